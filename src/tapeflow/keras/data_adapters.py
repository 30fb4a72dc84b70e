"""The data `fit`, `evaluate` and `predict` read, as Keras 3's data adapters on TensorFlow.

An adapter turns one kind of input into batches; `get_data_adapter` picks it:
- `ArrayDataAdapter`: arrays/tensors (or nests of them), cut into `batch_size` batches; with
  `shuffle=True` the sample order of each pass is TensorFlow's `tf.random.shuffle` of
  `range(n)` drawn as Keras-on-TF draws it (the op sits in a `tf.data` map function, so its
  seeds are (global seed, 0) and its kernel is new for every pass over the data).
- `TFDatasetAdapter`: a `tf.data.Dataset` of batches, read as it is (Keras does not rebatch).
- `GeneratorDataAdapter`: a Python generator of batches; its first two batches fix the
  element spec (TensorFlow's `from_generator`), and each later batch must fit it.
- `PyDatasetAdapter`: a `keras.utils.PyDataset`, optionally fetched on worker threads.

`EpochIterator` hands out the batches of each epoch, honouring `steps_per_epoch` (an
iterator that continues across epochs) and warning when the input runs out, as Keras's.
Batches are nests of NumPy arrays or tensors in Keras's packed form: `x`, `(x,)`, `(x, y)` or
`(x, y, sample_weight)`.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import itertools
import math
import random
import types
import warnings
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.framework import nest
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.sparse_tensor import SparseTensor, sparse_rows
from tapeflow.framework.tensor import TensorLike
from tapeflow.keras.utils.py_dataset import PyDataset

_NUM_BATCHES_FOR_SPEC = 2  # Keras's NUM_BATCHES_FOR_TENSOR_SPEC


# -- structures ------------------------------------------------------------------------------

def unpack_x_y_sample_weight(data: Any) -> tuple:
    """(x, y, sample_weight) from a tuple of one to three items (or a bare x)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """The batch form `train_step` receives: `x` (or `(x,)` for a tuple/list x), `(x, y)`,
    or `(x, y, sample_weight)`."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _numpy(value: Any) -> Any:
    if value is None or isinstance(value, (np.ndarray, SparseTensor)):
        return value      # a SparseTensor is sliced by rows (Keras keeps it sparse)
    return np.asarray(value._value if isinstance(value, TensorLike) else value)


def _to_numpy_tree(data: Any) -> Any:
    """Tensors and array-likes in a structure become NumPy arrays (None stays None)."""
    if data is None:
        return None
    return nest.map_structure(_numpy, data)


def _can_slice(x: Any) -> bool:
    return x is None or isinstance(x, (np.ndarray, TensorLike, SparseTensor)) or \
        hasattr(x, "__array__")


def can_convert_arrays(arrays: Any) -> bool:
    """True when every leaf is None or array-like (Keras's `can_convert_arrays`)."""
    return all(_can_slice(leaf) for leaf in nest.flatten(arrays))


def is_tf_dataset(x: Any) -> bool:
    """True for a `tf.data.Dataset` (checked by class name, so tf.data need not load)."""
    return any(cls.__name__ == "DatasetV2" and cls.__module__.startswith("tapeflow.data")
               for cls in type(x).__mro__)


def _floatx_cast(a: Any) -> Any:
    """Floats other than floatx become floatx, as Keras's array slicing casts them."""
    from tapeflow.keras import backend
    if isinstance(a, SparseTensor):
        if a.dtype.is_floating and a.dtype.name != backend.floatx():
            from tapeflow.ops import math_ops
            return a.with_values(math_ops.cast(a.values, backend.floatx()))
        return a
    if a is not None and a.dtype.kind == "f" and a.dtype != np.dtype(backend.floatx()):
        return a.astype(backend.floatx())
    return a


def class_weight_to_sample_weights(y: Any, class_weight: dict) -> np.ndarray:
    """Per-sample weights `class_weight[class of y]` (1.0 for classes not listed); one-hot
    targets use their argmax, as Keras does."""
    if nest.is_nested(y):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    labels = _numpy(y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else \
            np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype("int32")
    return np.array([class_weight.get(int(c), 1.0) for c in labels], dtype=np.float32)


def check_data_cardinality(data: Any) -> None:
    """Keras's error when x, y and sample_weight do not hold the same number of samples."""
    sizes = {int(a.shape[0]) for a in nest.flatten(data) if a is not None}
    if len(sizes) > 1:
        message = ("Data cardinality is ambiguous. Make sure all arrays contain the same "
                   "number of samples.")
        for label, part in zip(["x", "y", "sample_weight"], data):
            shown = ", ".join(str(a.shape[0]) for a in nest.flatten(part) if a is not None)
            message += f"'{label}' sizes: {shown}\n"
        raise ValueError(message)


def train_validation_split(arrays: tuple, validation_split: float) -> tuple:
    """Splits off the last `validation_split` fraction of the samples, as Keras does."""
    unsplitable = [type(t) for t in nest.flatten(arrays) if not _can_slice(t)]
    if unsplitable:
        raise ValueError("Argument `validation_split` is only supported for tensors or NumPy "
                         f"arrays.Found incompatible type in the input: {unsplitable}")
    arrays = tuple(_to_numpy_tree(a) for a in arrays)
    leaves = [a for a in nest.flatten(arrays) if a is not None]
    if not leaves:
        return arrays, arrays
    n = int(leaves[0].shape[0])
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`. Either provide more data, or "
                         "a different value for the `validation_split` argument.")

    def cut(part: Any, span: slice) -> Any:
        return None if part is None else nest.map_structure(
            lambda a: None if a is None else a[span], part)

    return (tuple(cut(a, slice(0, split_at)) for a in arrays),
            tuple(cut(a, slice(split_at, None)) for a in arrays))


# -- adapters --------------------------------------------------------------------------------

class DataAdapter:
    """One kind of input as batches: `num_batches` (None if unknown), `batches()` (a new
    pass), and the epoch hooks."""

    num_batches: Optional[int] = None
    # The size every batch has, where the input promises one (a dataset batched with
    # drop_remainder); None where the last batch may be smaller, as Keras's specs say.
    static_batch_size: Optional[int] = None

    def batches(self) -> Iterator:
        raise NotImplementedError

    def on_epoch_begin(self) -> None:
        pass

    def on_epoch_end(self) -> None:
        pass


def _shuffle_seeds() -> Optional[tuple]:
    """The seeds of a `tf.random.shuffle` made without an op seed as a graph's first random
    op (TF's get_seed: (global seed, 0)), or None without a global seed."""
    from tapeflow.ops import random_ops
    if random_ops.get_global_seed() is None:
        return None
    return random_ops._STATE.seeds(0)


def _tf_shuffle(indices: np.ndarray, stream: Any) -> np.ndarray:
    """`tf.random.shuffle(indices)` drawn from a kernel's Philox `stream`."""
    from tapeflow.ops import random_ops
    return random_ops._shuffle_kernel(indices, stream)


def _new_stream(seeds: tuple) -> Any:
    """A new shuffle kernel's stream for `seeds`."""
    from tapeflow.ops import random_ops
    return random_ops.Stream(*seeds)


def _shuffled(indices: np.ndarray, seeds: Optional[tuple], stream: Any = None) -> np.ndarray:
    """`indices` in the order Keras-on-TF's `tf.random.shuffle` gives under a global seed
    (from `stream`, or a new kernel's). Unseeded, TF's order is unpredictable: NumPy's
    permutation is as good, much faster than TF's Fisher-Yates, and `np.random.seed`
    repeats it."""
    if seeds is None:
        return np.random.permutation(indices)
    return _tf_shuffle(indices, stream if stream is not None else _new_stream(seeds))


class ArrayDataAdapter(DataAdapter):
    """Arrays, tensors or nests of them, cut into batches along axis 0."""

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None,
                 batch_size: Optional[int] = None, steps: Optional[int] = None,
                 shuffle: Any = False, class_weight: Optional[dict] = None) -> None:
        x, y, sample_weight = (_to_numpy_tree(part) for part in (x, y, sample_weight))
        if sample_weight is not None:
            if class_weight is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same "
                                 "time.")
            sample_weight = _per_output_sample_weight(y, sample_weight)
        if class_weight is not None:
            sample_weight = class_weight_to_sample_weights(y, class_weight)
        inputs = tuple(None if part is None else nest.map_structure(_floatx_cast, part)
                       for part in (x, y, sample_weight))
        check_data_cardinality(inputs)
        self._inputs = pack_x_y_sample_weight(*inputs)
        self._num_samples = int(next(a for a in nest.flatten(inputs) if a is not None).shape[0])
        if not batch_size:
            batch_size = int(math.ceil(self._num_samples / steps)) if steps else 32
        self.batch_size = int(batch_size)
        self.num_batches = int(math.ceil(self._num_samples / self.batch_size))
        self._shuffle = shuffle
        self._seeds = _shuffle_seeds() if shuffle else None  # read when TF traces the op

    def _take(self, index: Any) -> Any:
        return nest.map_structure(lambda a: _rows(a, index), self._inputs)

    def batches(self) -> Iterator:
        n, size = self._num_samples, self.batch_size
        order = None
        if self._shuffle and self._shuffle != "batch":
            order = _shuffled(np.arange(n, dtype=np.int64), self._seeds)
        by_batch = self._shuffle == "batch"
        stream = _new_stream(self._seeds) if by_batch and self._seeds is not None else None
        for step in range(self.num_batches):
            span = slice(step * size, min((step + 1) * size, n))
            if order is not None:
                yield self._take(order[span])
            elif by_batch:
                yield self._take(_shuffled(np.arange(span.start, span.stop), self._seeds,
                                           stream))
            else:
                yield self._take(span)


def _rows(a: Any, index: Any) -> Any:
    """`a[index]` (a slice or an index array) along axis 0; a SparseTensor's rows."""
    if isinstance(a, SparseTensor):
        if isinstance(index, slice):
            index = np.arange(*index.indices(int(a.shape[0])))
        return sparse_rows(a, index)
    return a[index]


def _per_output_sample_weight(y: Any, sample_weight: Any) -> Any:
    """A multi-output model's sample weights: one per output, or one samplewise array
    repeated for every output (Keras's checks)."""
    if not nest.is_nested(y):
        return sample_weight
    if nest.is_nested(sample_weight):
        try:
            nest.assert_same_structure(y, sample_weight)
        except (ValueError, TypeError):
            raise ValueError("You should provide one `sample_weight` array per output in `y`. "
                             f"The two structures did not match:\n- y: {y}\n"
                             f"- sample_weight: {sample_weight}\n") from None
        return sample_weight
    shape = sample_weight.shape
    if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
        raise ValueError("For a model with multiple outputs, when providing a single "
                         "`sample_weight` array, it should only have one scalar score per "
                         "sample (i.e. shape `(num_samples,)`). If you want to use non-scalar "
                         "sample weights, pass a `sample_weight` argument with one array per "
                         "model output.")
    return nest.map_structure(lambda _: sample_weight, y)


class TFDatasetAdapter(DataAdapter):
    """A `tf.data.Dataset` of batches, read as it is; `class_weight` adds sample weights."""

    def __init__(self, dataset: Any, class_weight: Optional[dict] = None) -> None:
        self._dataset = dataset
        self._class_weights = None
        if class_weight is not None:
            _check_class_weight_structure(dataset.element_spec)
            self._class_weights = _class_weight_table(class_weight)

    @property
    def num_batches(self) -> Optional[int]:  # type: ignore[override]
        cardinality = int(np.asarray(self._dataset.cardinality()))
        return None if cardinality < 0 else cardinality

    @property
    def static_batch_size(self) -> Optional[int]:  # type: ignore[override]
        specs = [s for s in nest.flatten(self._dataset.element_spec) if hasattr(s, "shape")]
        shape = specs[0].shape if specs else None
        return shape[0] if shape is not None and shape.rank else None

    def batches(self) -> Iterator:
        if self._class_weights is None:
            return iter(self._dataset)
        return (self._weighted(batch) for batch in self._dataset)

    def _weighted(self, batch: Any) -> tuple:
        x, y, _ = unpack_x_y_sample_weight(batch)
        return x, y, _gather_class_weights(self._class_weights, y)


def _check_class_weight_structure(spec: Any) -> None:
    """Keras's class-weight map's errors, raised when it is traced on the element spec."""
    _, y, sample_weight = unpack_x_y_sample_weight(spec)
    if sample_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if nest.is_nested(y):
        raise ValueError("`class_weight` is only supported for Models with a single output.")


def _class_weight_table(class_weight: dict) -> np.ndarray:
    """Keras's `class_weight_tensor`: weights of classes 0..max key (1.0 where unlisted)."""
    return np.asarray([class_weight.get(int(c), 1.0)
                       for c in range(max(class_weight.keys()) + 1)])


def _gather_class_weights(table: np.ndarray, y: Any) -> np.ndarray:
    """`tf.gather(table, classes of y)`, with tf.gather's error for a class past the table."""
    labels = _numpy(y)
    if labels.ndim >= 2:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] > 1 else \
            np.round(np.squeeze(labels, axis=-1))
    else:
        labels = np.round(labels)
    labels = labels.astype(np.int32)
    bad = np.flatnonzero((labels < 0) | (labels >= len(table)))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(None, None, f"{{{{function_node __wrapped__GatherV2_device_"
                                   f"/job:localhost/replica:0/task:0/device:CPU:0}}}} indices"
                                   f"[{i}] = {labels.reshape(-1)[i]} is not in [0, {len(table)})"
                                   f" [Op:GatherV2]")
    return table[labels]


class _LeafSpec:
    """One leaf's spec (a plain object, so nest sees a leaf)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype: np.dtype) -> None:
        self.shape, self.dtype = shape, dtype


def _batch_spec(batches: list) -> Any:
    """The element spec of a generator's first batches: each leaf's (shape, dtype), the batch
    axis and axes that differ set to None (Keras's `get_tensor_spec`)."""
    def leaf_spec(*leaves: Any) -> Any:
        if leaves[0] is None:
            return None
        arrays = [_numpy(leaf) for leaf in leaves]
        rank = arrays[0].ndim
        if rank < 1:
            raise ValueError("When passing a dataset to a Keras model, the arrays must be at "
                             f"least rank 1. Received: {arrays[0]} of rank {rank}.")
        for a in arrays:
            if a.ndim != rank:
                raise ValueError("When passing a dataset to a Keras model, the corresponding "
                                 "arrays in each batch must have the same rank. Received: "
                                 f"{arrays[0]} and {a}")
        shape = [dims[0] if len(set(dims)) == 1 else None
                 for dims in zip(*(a.shape for a in arrays))]
        return _LeafSpec((None, *shape[1:]), arrays[0].dtype)
    return nest.map_structure(leaf_spec, *batches)


def _shape_text(shape: tuple) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _conform(batch: Any, spec: Any) -> Any:
    """A batch as `from_generator` yields it: the spec's structure and dtypes, its shapes
    checked; a mismatch is the InvalidArgumentError that iterating the dataset raises."""
    try:
        nest.assert_same_structure(spec, batch)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(None, None, f"{type(e).__name__}: {e}") from None

    def leaf(value: Any, leaf_spec: Any) -> Any:
        if leaf_spec is None:
            return value
        shape, dtype = leaf_spec.shape, leaf_spec.dtype
        array = np.asarray(_numpy(value), dtype=dtype)
        if array.ndim != len(shape) or any(d is not None and d != s
                                           for d, s in zip(shape, array.shape)):
            raise InvalidArgumentError(
                None, None, f"TypeError: Generator yielded an element of shape "
                f"{_shape_text(array.shape)} where an element of shape {_shape_text(shape)} was "
                "expected. Your generator provides tensors with variable input dimensions other "
                "than the batch size. Make sure that the generator's first two batches do not "
                "have the same dimension value wherever there is a variable input dimension.")
        return array
    return nest.map_structure(leaf, batch, spec)


class GeneratorDataAdapter(DataAdapter):
    """A Python generator of batches. Its first batches are peeked to fix the element spec
    and replayed at the start of every pass, as Keras's `peek_and_restore`."""

    def __init__(self, generator: Iterator) -> None:
        self._first = list(itertools.islice(generator, _NUM_BATCHES_FOR_SPEC))
        self._generator = generator
        if not self._first:
            raise ValueError("When passing a Python generator to a Keras model, the generator "
                             "must yield at least one batch. Received an empty generator.")
        if not isinstance(self._first[0], tuple):
            raise ValueError("When passing a Python generator to a Keras model, the generator "
                             "must return a tuple, either (input,) or (inputs, targets) or "
                             f"(inputs, targets, sample_weights). Received: {self._first[0]}")
        self._spec = _batch_spec(self._first)

    def batches(self) -> Iterator:
        for batch in itertools.chain(self._first, self._generator):
            yield _conform(batch, self._spec)


class PyDatasetAdapter(DataAdapter):
    """A `keras.utils.PyDataset`: batches by index (shuffled with Python's `random` when
    `shuffle`), fetched `workers` at a time on threads when workers > 1."""

    def __init__(self, py_dataset: PyDataset, class_weight: Optional[dict] = None,
                 shuffle: bool = False) -> None:
        self.py_dataset = py_dataset
        self.class_weight = class_weight
        self.shuffle = shuffle
        self._within_epoch = False
        workers = py_dataset.workers
        self._pool_size = workers if workers > 1 or (workers > 0 and
                                                     py_dataset.use_multiprocessing) else 0
        self._queue_size = max(1, int(py_dataset.max_queue_size))
        count = _NUM_BATCHES_FOR_SPEC
        if py_dataset.num_batches is not None:
            count = min(count, py_dataset.num_batches)
        first = [self._standardize(py_dataset[i]) for i in range(count)]
        if not first:
            raise ValueError("The PyDataset has length 0")
        self._spec = _batch_spec(first)

    @property
    def num_batches(self) -> Optional[int]:  # type: ignore[override]
        return self.py_dataset.num_batches

    def _standardize(self, batch: Any) -> Any:
        if isinstance(batch, dict):
            return batch
        if isinstance(batch, np.ndarray):
            batch = (batch,)
        if isinstance(batch, list):
            batch = tuple(batch)
        if not isinstance(batch, tuple) or len(batch) not in {1, 2, 3}:
            raise ValueError("PyDataset.__getitem__() must return a tuple or a dict. If a "
                             "tuple, it must be ordered either (input,) or (inputs, targets) "
                             "or (inputs, targets, sample_weights). "
                             f"Received: {str(batch)[:100]}... of type {type(batch)}")
        if self.class_weight is not None:
            if len(batch) == 3:
                raise ValueError("You cannot specify `class_weight` and `sample_weight` at the "
                                 "same time.")
            if len(batch) == 2:
                batch = batch + (class_weight_to_sample_weights(batch[1], self.class_weight),)
        return batch

    def _indices(self) -> Iterator[int]:
        count = self.py_dataset.num_batches
        if count is None:
            return itertools.count()
        indices = list(range(count))
        if self.shuffle:
            random.shuffle(indices)
        return iter(indices)

    def _raw_batches(self) -> Iterator:
        indices = self._indices()
        if not self._pool_size:
            for i in indices:
                yield self.py_dataset[i]
            return
        # In order, at most max_queue_size batches fetched ahead (Keras's OrderedEnqueuer).
        with concurrent.futures.ThreadPoolExecutor(self._pool_size) as pool:
            pending: collections.deque = collections.deque()
            for i in itertools.islice(indices, self._queue_size):
                pending.append(pool.submit(self.py_dataset.__getitem__, i))
            try:
                while pending:
                    batch = pending.popleft().result()
                    for i in itertools.islice(indices, 1):
                        pending.append(pool.submit(self.py_dataset.__getitem__, i))
                    yield batch
            finally:
                for future in pending:
                    future.cancel()

    def batches(self) -> Iterator:
        for batch in self._raw_batches():
            yield _conform(self._standardize(batch), self._spec)

    def on_epoch_begin(self) -> None:
        if self._within_epoch:
            raise ValueError("`on_epoch_begin` was called twice without `on_epoch_end` having "
                             "been called.")
        self._within_epoch = True
        self.py_dataset.on_epoch_begin()

    def on_epoch_end(self) -> None:
        self.py_dataset.on_epoch_end()
        self._within_epoch = False


def _unsupported_arg(arg_name: str, description: str, input_type: str) -> ValueError:
    return ValueError(f"When providing `x` as a {input_type}, `{arg_name}` should not be "
                      f"passed. Instead, {description} should be included as part of the "
                      f"{input_type}.")


def _reject_targets(y: Any, sample_weight: Any, input_type: str) -> None:
    if y is not None:
        raise _unsupported_arg("y", "the targets", input_type)
    if sample_weight is not None:
        raise _unsupported_arg("sample_weights", "the sample weights", input_type)


def get_data_adapter(x: Any, y: Any = None, sample_weight: Any = None,
                     batch_size: Optional[int] = None, steps_per_epoch: Optional[int] = None,
                     shuffle: Any = False, class_weight: Optional[dict] = None) -> DataAdapter:
    """The adapter for `x`'s kind, with Keras's errors and warnings for unused arguments."""
    if isinstance(x, DataAdapter):
        return x
    if can_convert_arrays((x, y, sample_weight)):
        return ArrayDataAdapter(x, y, sample_weight=sample_weight, class_weight=class_weight,
                                shuffle=shuffle, batch_size=batch_size, steps=steps_per_epoch)
    if is_tf_dataset(x):
        _reject_targets(y, sample_weight, "tf.data.Dataset")
        if shuffle:
            warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` "
                          "was provided as a tf.data.Dataset. The Dataset is expected to "
                          "already be shuffled (via `.shuffle(buffer_size)`).", stacklevel=3)
        return TFDatasetAdapter(x, class_weight=class_weight)
    if isinstance(x, PyDataset):
        _reject_targets(y, sample_weight, "PyDataset")
        if getattr(x, "num_batches", None) is None and shuffle:
            warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` "
                          "was provided as an infinite PyDataset. The PyDataset is expected to "
                          "already be shuffled.", stacklevel=3)
        return PyDatasetAdapter(x, class_weight=class_weight, shuffle=shuffle)
    if isinstance(x, types.GeneratorType):
        _reject_targets(y, sample_weight, "generator")
        if class_weight is not None:
            raise ValueError("Argument `class_weight` is not supported for Python generator "
                             f"inputs. Received: class_weight={class_weight}")
        if shuffle:
            warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` "
                          "was provided as a generator. The generator is expected to yield "
                          "already-shuffled data.", stacklevel=3)
        return GeneratorDataAdapter(x)
    raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")


# -- epochs ----------------------------------------------------------------------------------

class EpochIterator:
    """The steps of each epoch over an adapter's batches, as Keras 3's EpochIterator: each
    epoch yields `(step, iterator)`; the loop takes one batch from the iterator per step, in
    `with catch_stop_iteration():`, which ends the epoch when the input runs out."""

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None,
                 batch_size: Optional[int] = None, steps_per_epoch: Optional[int] = None,
                 shuffle: Any = False, class_weight: Optional[dict] = None) -> None:
        from tapeflow.keras import config
        cap = config.max_steps_per_epoch()
        if cap and (not steps_per_epoch or cap < steps_per_epoch):
            warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=3)
            steps_per_epoch = cap
        self.steps_per_epoch = steps_per_epoch
        self.data_adapter = get_data_adapter(x, y, sample_weight, batch_size=batch_size,
                                             steps_per_epoch=steps_per_epoch, shuffle=shuffle,
                                             class_weight=class_weight)
        self._num_batches = self.data_adapter.num_batches
        self._current: Optional[Iterator] = None
        self._steps_seen = 0

    @property
    def num_batches(self) -> Optional[int]:
        """The steps of an epoch: `steps_per_epoch`, the input's length, or None (unknown
        until a first pass runs out)."""
        return self.steps_per_epoch or self._num_batches

    @property
    def static_batch_size(self) -> Optional[int]:
        """The size of every batch where the input promises one, else None."""
        return self.data_adapter.static_batch_size

    def reset(self) -> None:
        """Starts afresh (a new pass at the next epoch)."""
        self._current = None
        self._num_batches = self.data_adapter.num_batches
        self._steps_seen = 0
        self.data_adapter.on_epoch_end()

    @staticmethod
    def _interrupted_warning() -> None:
        warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                      "dataset or generator can generate at least `steps_per_epoch * epochs` "
                      "batches. You may need to use the `.repeat()` function when building "
                      "your dataset.", stacklevel=4)

    def __iter__(self) -> Iterator:
        adapter = self.data_adapter
        adapter.on_epoch_begin()
        steps = self.steps_per_epoch or self._num_batches or -1
        if steps > 0:
            if self._current is None or self.steps_per_epoch is None:
                self._current, self._steps_seen = iter(adapter.batches()), 0
            for step in range(steps):
                if self._num_batches and self._steps_seen >= self._num_batches:
                    if self.steps_per_epoch:
                        self._interrupted_warning()
                    break
                self._steps_seen += 1
                yield step, self._current
            if self._num_batches and self._steps_seen >= self._num_batches:
                self._current, self._steps_seen = iter(adapter.batches()), 0
        else:
            iterator = iter(adapter.batches())
            for step in itertools.count():
                self._steps_seen = step + 1
                yield step, iterator
        adapter.on_epoch_end()

    @contextlib.contextmanager
    def catch_stop_iteration(self) -> Iterator[None]:
        """Ends the epoch quietly but for Keras's warning when the input runs out; the epoch's
        length is then known."""
        try:
            yield
        except StopIteration:
            if self._num_batches is None:
                self._num_batches = self._steps_seen
            self._interrupted_warning()
            self._current = None
            self.data_adapter.on_epoch_end()


__all__ = ["ArrayDataAdapter", "DataAdapter", "EpochIterator", "GeneratorDataAdapter",
           "PyDatasetAdapter", "TFDatasetAdapter", "get_data_adapter",
           "pack_x_y_sample_weight", "train_validation_split", "unpack_x_y_sample_weight"]
