"""`tf.data.Dataset`: the base class and the core datasets.

Every dataset has an `element_spec` (a nest of TensorSpecs: tuples, dicts, namedtuples) and
yields its elements from `_elements()` as nests of NumPy arrays; the public iterator turns them
into EagerTensors at the boundary. `_cardinality()` is TF's count (-1 infinite, -2 unknown).

Random access, for speed: a dataset whose elements can be fetched by index answers
`_random_access()` with an object with `len(ra)` and `ra.gather(indices)` (a nest of arrays
stacked along a new axis 0); a dataset yielding elements as indices into such a source (a
shuffle over one) answers `_index_plan()` with `(ra, index_chunks)`. `batch` then gathers each
batch with one fancy index per leaf instead of stacking elements one by one.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.data.iterator_ops import NumpyIterator, OwnedIterator, to_tensors
from tapeflow.data.structured_function import StructuredFunction
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import TensorLike, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.function import TensorSpec

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1


def _int_arg(value: Any, name: str, dtype: Any = np.int64) -> int:
    """A scalar integer argument (a Python int or an integer tensor), as TF's ops take it."""
    if isinstance(value, TensorLike):
        array = np.asarray(value._value)
    else:
        array = np.asarray(value)
    if array.ndim != 0 or array.dtype.kind not in "iu":
        if array.dtype.kind not in "iu" and array.ndim == 0 and not isinstance(value, bool):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")
        raise InvalidArgumentError(None, None, f"{name} must be a scalar")
    return int(array)


# -- random access ----------------------------------------------------------------------------

class SliceAccess:
    """Random access over arrays sliced along axis 0 (from_tensor_slices)."""

    def __init__(self, spec: Any, leaves: list) -> None:
        self._spec = spec
        self._leaves = leaves
        self._single = not structure.is_structure(spec)

    def __len__(self) -> int:
        return self._leaves[0].shape[0] if self._leaves else 0

    def gather(self, indices: np.ndarray) -> Any:
        if self._single:
            return self._leaves[0][indices]
        return structure.pack(self._spec, [leaf[indices] for leaf in self._leaves])

    def element(self, i: int) -> Any:
        if self._single:
            return self._leaves[0][i, ...]
        return structure.pack(self._spec, [leaf[i, ...] for leaf in self._leaves])


class RangeAccess:
    """Random access over range(start, stop, step)."""

    def __init__(self, start: int, step: int, length: int, dtype: np.dtype) -> None:
        self._start, self._step, self._length, self._dtype = start, step, length, dtype

    def __len__(self) -> int:
        return self._length

    def gather(self, indices: np.ndarray) -> np.ndarray:
        return (self._start + np.asarray(indices, np.int64) * self._step).astype(self._dtype)

    def element(self, i: int) -> np.ndarray:
        return np.asarray(self._start + i * self._step, self._dtype)


class OffsetAccess:
    """Random access over the window [start, start + length) of another one (take/skip)."""

    def __init__(self, inner: Any, start: int, length: int) -> None:
        self._inner, self._start, self._length = inner, start, length

    def __len__(self) -> int:
        return self._length

    def gather(self, indices: np.ndarray) -> Any:
        return self._inner.gather(np.asarray(indices, np.int64) + self._start)

    def element(self, i: int) -> Any:
        return element_of(self._inner, i + self._start)


class ZipAccess:
    """Random access over a zip of random-access datasets (shortest length)."""

    def __init__(self, spec: Any, parts: list) -> None:
        self._spec, self._parts = spec, parts

    def __len__(self) -> int:
        return min(len(p) for p in self._parts)

    def gather(self, indices: np.ndarray) -> Any:
        return structure.pack(self._spec, [p.gather(indices) for p in self._parts])

    def element(self, i: int) -> Any:
        return structure.pack(self._spec, [element_of(p, i) for p in self._parts])


def element_of(ra: Any, i: int) -> Any:
    """Element `i` of a random-access object (one-row gather where it has no `element`)."""
    get = getattr(ra, "element", None)
    if get is not None:
        return get(i)
    return structure.map_leaves(lambda a: a[0], ra.gather(np.asarray([i], np.int64)))


def _elements_from_access(ra: Any) -> Iterator:
    for i in range(len(ra)):
        yield element_of(ra, i)


# -- the base class ---------------------------------------------------------------------------

class DatasetV2:
    """A sequence of elements, each a nest of tensors described by `element_spec`."""

    _tf_name = "Dataset"

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec

    # -- the protocol -----------------------------------------------------------------------
    @property
    def element_spec(self) -> Any:
        """The nest of TensorSpecs describing one element."""
        return self._element_spec

    def _elements(self) -> Iterator:
        """One pass over the dataset: its elements as nests of NumPy arrays."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        """The number of elements, or INFINITE (-1) / UNKNOWN (-2)."""
        return UNKNOWN

    def _random_access(self) -> Any:
        """An object with `len()` and `gather(indices)`, or None."""
        return None

    def _index_plan(self) -> Any:
        """`(ra, index_chunks)` for a dataset that yields indices into `ra`, or None."""
        return None

    def _inputs(self) -> list:
        """The datasets this one reads."""
        return []

    def _check_replayable(self) -> None:
        """Raises where a fresh pass would not repeat this one (an unseeded shuffle)."""
        for d in self._inputs():
            d._check_replayable()

    # -- iteration and introspection --------------------------------------------------------
    def __iter__(self) -> OwnedIterator:
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> NumpyIterator:
        """An iterator of the elements as NumPy values."""
        return NumpyIterator(self)

    def __repr__(self) -> str:
        return f"<{self._tf_name} element_spec={self.element_spec!r}>"

    def cardinality(self) -> Any:
        """The number of elements as a scalar int64 tensor (-1 infinite, -2 unknown)."""
        return wrap(np.asarray(self._cardinality(), np.int64))

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def _dataset_spec(self) -> Any:
        from tapeflow.data.dataset_spec import DatasetSpec
        return DatasetSpec(self.element_spec)

    # -- sources ----------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "DatasetV2":
        """The slices of `tensors` along their first axis, one element each."""
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "DatasetV2":
        """One element: `tensors`."""
        return TensorDataset(tensors)

    @staticmethod
    def range(*args: Any, output_type: Any = _dtypes.int64, name: Optional[str] = None
              ) -> "DatasetV2":
        """range(stop) / range(start, stop[, step]) as elements of `output_type`."""
        return RangeDataset(*args, output_type=output_type)

    # -- transformations --------------------------------------------------------------------
    def batch(self, batch_size: Any, drop_remainder: bool = False,
              num_parallel_calls: Any = None, deterministic: Any = None,
              name: Optional[str] = None) -> "DatasetV2":
        """Consecutive elements stacked into batches of `batch_size`."""
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_calls is not None)

    def shuffle(self, buffer_size: Any, seed: Any = None,
                reshuffle_each_iteration: Any = True, name: Optional[str] = None
                ) -> "DatasetV2":
        """Elements in a random order, drawn from a buffer of `buffer_size`, as TF."""
        from tapeflow.data.shuffle_ops import shuffle_dataset
        return shuffle_dataset(self, buffer_size, seed, reshuffle_each_iteration, name)

    def repeat(self, count: Any = None, name: Optional[str] = None) -> "DatasetV2":
        """The dataset `count` times over (forever when None or -1)."""
        return RepeatDataset(self, -1 if count is None else _int_arg(count, "count"))

    def take(self, count: Any, name: Optional[str] = None) -> "DatasetV2":
        """The first `count` elements (all when -1)."""
        return TakeDataset(self, _int_arg(count, "count"))

    def skip(self, count: Any, name: Optional[str] = None) -> "DatasetV2":
        """All but the first `count` elements (none when -1)."""
        return SkipDataset(self, _int_arg(count, "count"))

    def map(self, map_func: Callable, num_parallel_calls: Any = None,
            deterministic: Any = None, name: Optional[str] = None) -> "DatasetV2":
        """`map_func` of each element, traced once on the element_spec."""
        return MapDataset(self, map_func, num_parallel_calls, deterministic)


class TensorSliceDataset(DatasetV2):
    _tf_name = "_TensorSliceDataset"

    def __init__(self, tensors: Any) -> None:
        element = structure.normalize(tensors)
        flat = [structure.to_numpy(t) for t in structure.flatten(element)]
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        for a in flat:
            if a.ndim == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1")
        n = flat[0].shape[0]
        for a in flat[1:]:
            if a.shape[0] != n:
                raise ValueError(
                    f"Dimensions {n} and {a.shape[0]} are not compatible")
        specs = [structure.unbatched_spec(structure.array_spec(a)) for a in flat]
        super().__init__(structure.pack(element, specs))
        self._access = SliceAccess(self._element_spec, flat)

    def _elements(self) -> Iterator:
        return _elements_from_access(self._access)

    def _cardinality(self) -> int:
        return len(self._access)

    def _random_access(self) -> Any:
        return self._access


class TensorDataset(DatasetV2):
    _tf_name = "_TensorDataset"

    def __init__(self, tensors: Any) -> None:
        element = structure.normalize(tensors)
        super().__init__(structure.specs_of(element))
        self._element = structure.map_leaves(_internal_leaf, element)

    def _elements(self) -> Iterator:
        yield self._element

    def _cardinality(self) -> int:
        return 1

    def _random_access(self) -> Any:
        element = self._element
        return _ListAccess(self._element_spec, [element])


def _internal_leaf(leaf: Any) -> Any:
    return leaf if isinstance(leaf, DatasetV2) else structure.to_numpy(leaf)


class _ListAccess:
    """Random access over a Python list of elements."""

    def __init__(self, spec: Any, elements: list) -> None:
        self._spec, self._list = spec, elements

    def __len__(self) -> int:
        return len(self._list)

    def element(self, i: int) -> Any:
        return self._list[i]

    def gather(self, indices: np.ndarray) -> Any:
        rows = [structure.flatten(self._list[i]) for i in np.asarray(indices)]
        flat = [np.stack(col) for col in zip(*rows)] if rows else [
            np.zeros((0,) + tuple(s.shape.as_list()), s.dtype.as_numpy_dtype)
            for s in structure.flatten(self._spec)]
        return structure.pack(self._spec, flat)


class RangeDataset(DatasetV2):
    _tf_name = "_RangeDataset"

    def __init__(self, *args: Any, output_type: Any = _dtypes.int64) -> None:
        if not args or len(args) > 3:
            raise ValueError("Invalid arguments to RangeDataset: " + repr(args))
        values = [_int_arg(a, "range") for a in args]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (
            values[0], values[1], values[2] if len(values) == 3 else 1)
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer.")
        dtype = _dtypes.as_dtype(output_type)
        super().__init__(TensorSpec([], dtype))
        length = len(range(start, stop, step))
        self._access = RangeAccess(start, step, length, np.dtype(dtype.as_numpy_dtype))

    def _elements(self) -> Iterator:
        ra = self._access
        dtype, step = ra._dtype, ra._step
        for v in range(ra._start, ra._start + ra._length * step, step):
            yield np.asarray(v, dtype)

    def _cardinality(self) -> int:
        return len(self._access)

    def _random_access(self) -> Any:
        return self._access


class UnaryDataset(DatasetV2):
    """A dataset over one input dataset."""

    def __init__(self, input_dataset: DatasetV2, element_spec: Any = None) -> None:
        super().__init__(input_dataset.element_spec if element_spec is None else element_spec)
        self._input = input_dataset

    def _inputs(self) -> list:
        return [self._input]


class BatchDataset(UnaryDataset):
    _tf_name = "_BatchDataset"

    def __init__(self, input_dataset: DatasetV2, batch_size: Any, drop_remainder: Any,
                 parallel: bool = False) -> None:
        size = _int_arg(batch_size, "batch_size")
        if size <= 0:
            raise InvalidArgumentError(None, None, "batch_size must be greater than zero.")
        drop = bool(drop_remainder)
        static = size if drop else None
        spec = structure.map_leaves(lambda s: _batched(s, static), input_dataset.element_spec)
        super().__init__(input_dataset, spec)
        self._size, self._drop = size, drop
        if parallel:
            self._tf_name = "_ParallelBatchDataset"

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _elements(self) -> Iterator:
        plan = self._input._index_plan()
        if plan is not None:
            return self._from_plan(*plan)
        ra = self._input._random_access()
        if ra is not None:
            return self._from_access(ra)
        return self._stacked()

    def _from_plan(self, ra: Any, chunks: Iterator) -> Iterator:
        size, pending = self._size, []
        count = 0
        for chunk in chunks:
            pending.append(np.asarray(chunk, np.int64))
            count += len(chunk)
            if count < size:
                continue
            buffer = np.concatenate(pending) if len(pending) > 1 else pending[0]
            full = (len(buffer) // size) * size
            for start in range(0, full, size):
                yield ra.gather(buffer[start:start + size])
            pending, count = [buffer[full:]], len(buffer) - full
        if count and not self._drop:
            yield ra.gather(np.concatenate(pending))

    def _from_access(self, ra: Any) -> Iterator:
        n, size = len(ra), self._size
        end = (n // size) * size if self._drop else n
        for start in range(0, end, size):
            yield ra.gather(np.arange(start, min(start + size, n), dtype=np.int64))

    def _stacked(self) -> Iterator:
        size, rows = self._size, []
        for element in self._input._elements():
            rows.append(element)
            if len(rows) == size:
                yield stack_elements(self._element_spec, rows)
                rows = []
        if rows and not self._drop:
            yield stack_elements(self._element_spec, rows)


def _batched(spec: Any, size: Any) -> Any:
    if isinstance(spec, structure.DatasetSpecLike):
        raise TypeError("Batching of nested datasets is not supported.")
    return structure.batched_spec(spec, size)


def stack_elements(spec: Any, rows: list) -> Any:
    """The elements `rows` stacked along a new axis 0, with TF's error for ragged shapes."""
    if not structure.is_structure(spec):
        return _stack_component(rows, 0)
    columns = zip(*[structure.flatten(r) for r in rows])
    return structure.pack(spec, [_stack_component(list(c), i) for i, c in enumerate(columns)])


def _stack_component(arrays: list, component: int) -> np.ndarray:
    first = np.shape(arrays[0])
    for i, a in enumerate(arrays):
        if np.shape(a) != first:
            raise InvalidArgumentError(
                None, None,
                f"Cannot batch tensors with different shapes in component {component}. First "
                f"element had shape {_dims(first)} and element {i} had shape "
                f"{_dims(np.shape(a))}.")
    return np.stack(arrays)


def _dims(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


class RepeatDataset(UnaryDataset):
    _tf_name = "_RepeatDataset"

    def __init__(self, input_dataset: DatasetV2, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0 or n == INFINITE:
            return INFINITE
        return UNKNOWN if n == UNKNOWN else n * self._count

    def _elements(self) -> Iterator:
        epochs = itertools.count() if self._count < 0 else range(self._count)
        for _ in epochs:
            empty = True
            for element in self._input._elements():
                empty = False
                yield element
            if empty:        # as TF: repeating an empty dataset ends
                return


class TakeDataset(UnaryDataset):
    _tf_name = "_TakeDataset"

    def __init__(self, input_dataset: DatasetV2, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return UNKNOWN if n == UNKNOWN else min(n, self._count)

    def _elements(self) -> Iterator:
        if self._count < 0:
            return self._input._elements()
        return itertools.islice(self._input._elements(), self._count)

    def _random_access(self) -> Any:
        ra = self._input._random_access()
        if ra is None:
            return None
        return OffsetAccess(ra, 0, len(ra) if self._count < 0 else min(len(ra), self._count))


class SkipDataset(UnaryDataset):
    _tf_name = "_SkipDataset"

    def __init__(self, input_dataset: DatasetV2, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n if n == UNKNOWN or self._count >= 0 else 0
        return 0 if self._count < 0 else max(0, n - self._count)

    def _elements(self) -> Iterator:
        if self._count < 0:
            for _ in self._input._elements():
                pass
            return iter(())
        return itertools.islice(self._input._elements(), self._count, None)

    def _random_access(self) -> Any:
        ra = self._input._random_access()
        if ra is None:
            return None
        start = len(ra) if self._count < 0 else min(len(ra), self._count)
        return OffsetAccess(ra, start, len(ra) - start)


class MapDataset(UnaryDataset):
    _tf_name = "_MapDataset"

    def __init__(self, input_dataset: DatasetV2, map_func: Callable,
                 num_parallel_calls: Any = None, deterministic: Any = None) -> None:
        fn = StructuredFunction(map_func, input_dataset.element_spec, "map")
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn
        self._parallel = None if num_parallel_calls is None else _int_arg(
            num_parallel_calls, "num_parallel_calls")
        if self._parallel is not None:
            self._tf_name = "_ParallelMapDataset"

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _elements(self) -> Iterator:
        fn = self._fn
        if self._parallel is not None and self._parallel != 1:
            return parallel_map(fn.call_element, self._input._elements(), self._parallel)
        return (fn.call_element(e) for e in self._input._elements())


def parallel_map(func: Callable, items: Iterator, parallelism: int) -> Iterator:
    """`func` of each item on a thread pool, results in order (a bounded window ahead)."""
    from concurrent.futures import ThreadPoolExecutor
    import os
    workers = os.cpu_count() or 2 if parallelism == AUTOTUNE else max(1, parallelism)
    window = 2 * workers
    with ThreadPoolExecutor(workers) as pool:
        pending: list = []
        for item in items:
            pending.append(pool.submit(func, item))
            if len(pending) >= window:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


Dataset = DatasetV2

__all__ = ["DatasetV2", "Dataset", "INFINITE", "UNKNOWN", "AUTOTUNE", "stack_elements",
           "SliceAccess", "RangeAccess", "OffsetAccess", "ZipAccess", "element_of",
           "UnaryDataset", "parallel_map"]
