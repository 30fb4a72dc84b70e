"""`tf.data.experimental`: the names TensorFlow users commonly call from it."""

from __future__ import annotations

from typing import Any

from tapeflow.data.dataset_ops import AUTOTUNE
from tapeflow.data.options import AutoShardPolicy
from tapeflow.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tapeflow.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY


def cardinality(dataset: Any) -> Any:
    """The dataset's cardinality as a scalar int64 tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def get_single_element(dataset: Any) -> Any:
    """The dataset's only element (deprecated alias of Dataset.get_single_element)."""
    return dataset.get_single_element()


def assert_cardinality(expected_cardinality: Any) -> Any:
    """A transformation declaring the dataset's cardinality (for apply)."""
    from tapeflow.data.transformations import AssertCardinalityDataset
    return lambda dataset: AssertCardinalityDataset(dataset, int(expected_cardinality))


def ignore_errors(log_warning: bool = False) -> Any:
    """A transformation skipping elements whose computation raised (for apply)."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def enumerate_dataset(start: Any = 0) -> Any:
    """A transformation pairing elements with their index (for apply)."""
    return lambda dataset: dataset.enumerate(start)


def bucket_by_sequence_length(*args: Any, **kwargs: Any) -> Any:
    """A transformation bucketing elements by length (for apply)."""
    return lambda dataset: dataset.bucket_by_sequence_length(*args, **kwargs)


def Counter(start: Any = 0, step: Any = 1, dtype: Any = None) -> Any:  # noqa: N802
    """start, start + step, ... forever (deprecated alias of Dataset.counter)."""
    from tapeflow.data.sampling_ops import counter
    return counter(start, step, "int64" if dtype is None else dtype)


def RandomDataset(seed: Any = None, rerandomize_each_iteration: Any = None,  # noqa: N802
                  name: Any = None) -> Any:
    """TF's pseudorandom int64 stream (deprecated alias of Dataset.random)."""
    from tapeflow.data.sampling_ops import RandomDatasetV2
    return RandomDatasetV2(seed, rerandomize_each_iteration)


def sample_from_datasets(datasets: Any, weights: Any = None, seed: Any = None,
                         stop_on_empty_dataset: bool = False) -> Any:
    """Elements of `datasets` drawn at random (alias of Dataset.sample_from_datasets)."""
    from tapeflow.data.sampling_ops import sample_from_datasets as sample
    return sample(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets: Any, choice_dataset: Any,
                         stop_on_empty_dataset: bool = True) -> Any:
    """Elements of `datasets` picked by `choice_dataset` (alias of
    Dataset.choose_from_datasets)."""
    from tapeflow.data.sampling_ops import choose_from_datasets as choose
    return choose(datasets, choice_dataset, stop_on_empty_dataset)


def dense_to_ragged_batch(batch_size: Any, drop_remainder: bool = False,
                          row_splits_dtype: Any = None) -> Any:
    """A transformation (for `dataset.apply`) that batches elements of different shapes
    into RaggedTensors: `dataset.ragged_batch(...)` (TF deprecates this name for it)."""
    from tapeflow.framework import dtypes as _dtypes
    dtype = _dtypes.int64 if row_splits_dtype is None else row_splits_dtype
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, dtype)


def CsvDataset(*args: Any, **kwargs: Any) -> Any:  # noqa: N802
    """One tuple of scalars per CSV record, as tf.data.experimental.CsvDataset."""
    from tapeflow.data.readers import CsvDatasetV2
    return CsvDatasetV2(*args, **kwargs)


def make_csv_dataset(*args: Any, **kwargs: Any) -> Any:
    """Batches of (features, label) from CSV files, as TF's make_csv_dataset."""
    from tapeflow.data.readers import make_csv_dataset as make
    return make(*args, **kwargs)


class TFRecordWriter:
    """Writes a dataset of scalar strings to a TFRecord file, one record per element
    (`compression_type` None, "", "GZIP" or "ZLIB"), as tf.data.experimental.TFRecordWriter."""

    def __init__(self, filename: Any, compression_type: Any = None) -> None:
        self._filename, self._compression = filename, compression_type

    def write(self, dataset: Any) -> None:
        """Writes every element of `dataset` (scalar tf.string elements only)."""
        from tapeflow.data.readers import TFRecordWriter as RecordWriter
        from tapeflow.framework import dtypes
        spec = dataset.element_spec
        if getattr(spec, "dtype", None) != dtypes.string or spec.shape.rank != 0:
            raise TypeError(
                "Invalid `dataset`. Expected a`dataset` that produces scalar `tf.string` "
                "elements, but got a dataset which produces elements with shapes "
                f"{_nest_text(dataset, 'output_shapes')} and types "
                f"{_nest_text(dataset, 'output_types')}.")
        with RecordWriter(_path(self._filename), self._compression) as writer:
            for element in dataset:
                writer.write(element.numpy())


def _nest_text(dataset: Any, kind: str) -> str:
    """The element structure's shapes or types as TF's message prints them."""
    from tapeflow.framework import nest
    specs = nest.flatten(dataset.element_spec)
    parts = [str(s.shape) if kind == "output_shapes" else str(s.dtype) for s in specs]
    return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def _path(filename: Any) -> str:
    value = filename.numpy() if hasattr(filename, "numpy") else filename
    return value.decode() if isinstance(value, bytes) else str(value)


__all__ = ["TFRecordWriter", "dense_to_ragged_batch", "AUTOTUNE", "AutoShardPolicy",
           "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY",
           "cardinality",
           "get_single_element", "assert_cardinality", "ignore_errors", "enumerate_dataset",
           "bucket_by_sequence_length", "Counter", "RandomDataset", "sample_from_datasets",
           "choose_from_datasets", "CsvDataset", "make_csv_dataset"]
