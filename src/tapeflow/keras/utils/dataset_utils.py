"""`keras.utils.split_dataset` and `timeseries_dataset_from_array`, returning tf.data datasets
as Keras 3 on TensorFlow does."""

from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np

from tapeflow.framework import nest


def _data() -> Any:
    import tapeflow.data as data  # tf.data loads lazily, on first use
    return data


def _is_dataset(x: Any) -> bool:
    from tapeflow.keras.data_adapters import is_tf_dataset
    return is_tf_dataset(x)


def _batch_size(dataset: Any) -> Optional[int]:
    """The batch size of a `.batch()` dataset (Keras reads `_batch_size`), else None."""
    size = getattr(dataset, "_batch_size", None)
    if size is None and type(dataset).__name__ == "BatchDataset":
        size = getattr(dataset, "_size", None)
    return None if size is None else int(np.asarray(size))


def _samples(dataset: Any) -> list:
    """The samples of a list/tuple of arrays, an array, or a dataset (unbatched)."""
    if isinstance(dataset, (list, tuple)):
        kind = "list" if isinstance(dataset, list) else "tuple"
        if not dataset:
            raise ValueError(f"Received an empty list dataset. Please provide a non-empty "
                             f"{kind} of arrays.")
        expected = None
        for i, element in enumerate(dataset):
            if not isinstance(element, np.ndarray):
                raise ValueError(f"Expected a {kind} of `numpy.ndarray` objects,Received: "
                                 f"{type(element)} at index {i}.")
            if expected is None:
                expected = element.shape
            elif element.shape[0] != expected[0]:
                raise ValueError(f"Received a {kind} of NumPy arrays with different lengths."
                                 f"Mismatch found at index {i}, Expected shape={expected} "
                                 f"Received shape={element.shape}.Please provide a {kind} of "
                                 "NumPy arrays of the same length.")
        samples = list(zip(*dataset))
    elif _is_dataset(dataset):
        samples = []
        for element in dataset.as_numpy_iterator():
            if _batch_size(dataset) is None:
                samples.append(element)
                continue
            leaves = nest.flatten(element)
            for i in range(len(leaves[0])):
                samples.append(nest.pack_sequence_as(element, [a[i] for a in leaves]))
    else:
        samples = list(dataset)
    if not samples:
        raise ValueError("Received an empty dataset. Argument `dataset` must be a non-empty "
                         "list/tuple of `numpy.ndarray` objects or `tf.data.Dataset` objects.")
    first = samples[0]
    if isinstance(first, np.ndarray):
        for i, sample in enumerate(samples[1:]):
            if np.shape(sample) != first.shape:
                raise ValueError(f"All `dataset` samples must have same shape, Expected shape: "
                                 f"{first.shape} Received shape: {np.shape(sample)} at index "
                                 f"{i}.")
    return samples


def _split_sizes(left_size: Any, right_size: Any, total: int) -> tuple:
    """Keras's `_rescale_dataset_split_sizes`: ints are counts, floats fractions."""
    lt, rt = type(left_size), type(right_size)
    if (left_size is not None and lt not in (int, float)) and (
            right_size is not None and rt not in (int, float)):
        raise TypeError("Invalid `left_size` and `right_size` Types. Expected: integer or "
                        f"float or None, Received: type(left_size)={lt} and "
                        f"type(right_size)={rt}")
    if left_size is not None and lt not in (int, float):
        raise TypeError("Invalid `left_size` Type. Expected: int or float or None, Received: "
                        f"type(left_size)={lt}.  ")
    if right_size is not None and rt not in (int, float):
        raise TypeError("Invalid `right_size` Type. Expected: int or float or None,Received: "
                        f"type(right_size)={rt}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the split "
                         "sizes must be non-zero.")
    if (lt is int and (left_size <= 0 or left_size >= total)
            or lt is float and (left_size <= 0 or left_size >= 1)):
        raise ValueError(f"`left_size` should be either a positive integer smaller than {total}"
                         f", or a float within the range `[0, 1]`. Received: left_size="
                         f"{left_size}")
    if (rt is int and (right_size <= 0 or right_size >= total)
            or rt is float and (right_size <= 0 or right_size >= 1)):
        raise ValueError(f"`right_size` should be either a positive integer and smaller than "
                         f"{total} or a float within the range `[0, 1]`. Received: right_size="
                         f"{right_size}")
    if rt is lt is float and right_size + left_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must be "
                         "less than or equal to 1.")
    left = round(left_size * total) if lt is float else left_size
    right = round(right_size * total) if rt is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the "
                         f"{total}. Received: left_size + right_size = {float(left + right)}"
                         f"and total_length = {total}")
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(f"With `dataset` of length={total}, `left_size`={float(left)} and "
                             f"`right_size`={float(right)}.Resulting {side} side dataset split "
                             "will be empty. Adjust any of the aforementioned parameters")
    return int(left), int(right)


def _stacked(samples: list) -> Any:
    """The samples stacked leaf by leaf, lists as tuples (Keras's restore from list)."""
    first = samples[0]
    columns = [np.array(column) for column in zip(*(nest.flatten(s) for s in samples))]
    packed = nest.pack_sequence_as(first, columns)

    def tuples(x: Any) -> Any:
        if isinstance(x, list):
            return tuple(tuples(v) for v in x)
        if isinstance(x, tuple) and not hasattr(x, "_fields"):
            return tuple(tuples(v) for v in x)
        if isinstance(x, dict):
            return {k: tuples(v) for k, v in x.items()}
        return x
    return tuples(packed) if nest.is_nested(first) else packed


def split_dataset(dataset: Any, left_size: Any = None, right_size: Any = None,
                  shuffle: bool = False, seed: Optional[int] = None,
                  preferred_backend: Optional[str] = None) -> tuple:
    """Splits a dataset (a `tf.data.Dataset`, an array, or a list/tuple of arrays) into two
    `tf.data.Dataset`s of `left_size` and `right_size` samples (ints are counts, floats
    fractions), optionally shuffled with Python's `random` seeded by `seed`, as Keras 3."""
    if not isinstance(dataset, (list, tuple, np.ndarray)) and not _is_dataset(dataset):
        raise TypeError("The `dataset` argument must be eithera `tf.data.Dataset` object, ora "
                        f"list/tuple of arrays. Received: dataset={dataset} of type "
                        f"{type(dataset)}")
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    samples = _samples(dataset)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left, right = _split_sizes(left_size, right_size, len(samples))
    restore = isinstance(dataset, (list, tuple)) or _is_dataset(dataset)
    parts = []
    for chunk in (samples[:left], samples[-right:]):
        tensors = _stacked(chunk) if restore else list(chunk)
        if not restore:
            tensors = np.array(tensors)
        part = _data().Dataset.from_tensor_slices(tensors)
        size = _batch_size(dataset) if _is_dataset(dataset) else None
        parts.append(part.batch(size) if size is not None else part)
    return parts[0], parts[1]


def timeseries_dataset_from_array(data: Any, targets: Any, sequence_length: int,
                                  sequence_stride: int = 1, sampling_rate: int = 1,
                                  batch_size: Optional[int] = 128, shuffle: bool = False,
                                  seed: Optional[int] = None, start_index: Optional[int] = None,
                                  end_index: Optional[int] = None, format: str = "tf") -> Any:
    """A `tf.data.Dataset` of sliding windows over `data` (`sequence_length` steps taken
    every `sampling_rate`, windows starting every `sequence_stride`), paired with
    `targets[start]` when targets are given, batched by `batch_size`, as Keras 3."""
    _check_timeseries_args(data, start_index, end_index, sampling_rate, sequence_stride,
                           format)
    start = start_index or 0
    end = len(data) if end_index is None else end_index
    num_seqs = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    positions = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(positions)
    data = np.asarray(data)[start:end]
    offsets = np.arange(0, sequence_length * sampling_rate, sampling_rate, dtype=index_dtype)
    windows = positions[:, None] + offsets  # each window's row indices into `data`
    columns: Any = data[windows]
    if targets is not None:
        columns = (columns, np.asarray(targets)[start:end][positions])
    dataset = _unknown_window_length(_data().Dataset.from_tensor_slices(columns))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024 if batch_size is None else batch_size * 8,
                                  seed=seed)
    return dataset if batch_size is None else dataset.batch(batch_size)


def _unknown_window_length(dataset: Any) -> Any:
    """The dataset with its windows' length unknown in `element_spec`, as TF's windows (cut
    by a `tf.range` of tensors) have it; the elements are the same."""
    from tapeflow.data.dataset_ops import PassThroughDataset

    class _WindowDataset(PassThroughDataset):
        _tf_name = "_MapDataset"

    spec = dataset.element_spec
    windows = spec[0] if isinstance(spec, tuple) else spec
    relaxed = type(windows)((None, *windows.shape[1:]), windows.dtype)
    return _WindowDataset(dataset, (relaxed, spec[1]) if isinstance(spec, tuple) else relaxed)


def _check_timeseries_args(data: Any, start_index: Any, end_index: Any, sampling_rate: int,
                           sequence_stride: int, format: str) -> None:
    n = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: "
                             f"start_index={start_index}")
        if start_index >= n:
            raise ValueError(f"`start_index` must be lower than the length of the data. "
                             f"Received: start_index={start_index}, for data of length {n}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= n:
            raise ValueError(f"`end_index` must be lower than the length of the data. "
                             f"Received: end_index={end_index}, for data of length {n}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: "
                             f"end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= n:
            raise ValueError(f"`{name}` must be lower than the length of the data. "
                             f"Received: {name}={value}, for data of length {n}")
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise NotImplementedError('tapeflow has no grain datasets: use format="tf".')


__all__ = ["split_dataset", "timeseries_dataset_from_array"]
