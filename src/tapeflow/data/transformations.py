"""The transformations of tf.data beyond the core ones, with TensorFlow's semantics, order,
element_spec and cardinality (each class is named as TensorFlow's, for its repr)."""

from __future__ import annotations

import collections
import os
import queue
import threading
import time
from typing import Any, Callable, Iterator, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.data.dataset_ops import (AUTOTUNE, INFINITE, UNKNOWN, DatasetV2,
                                       PassThroughDataset, UnaryDataset, ZipAccess, _ListAccess,
                                       _int_arg, stack_elements, RangeDataset)
from tapeflow.data.dataset_spec import DatasetSpec, is_symbolic, placeholder_element
from tapeflow.data.iterator_ops import to_tensors
from tapeflow.data.structured_function import StructuredFunction, _call
from tapeflow.autograph import conversion
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import (DataLossError, FailedPreconditionError,
                                       InvalidArgumentError)
from tapeflow.framework.tensor import TensorLike
from tapeflow.function import TensorSpec


def op_error(cls: type, message: str, op: str = "IteratorGetNext") -> Exception:
    """TF's kernel error text: the message and the op."""
    return cls(None, None, f"{message} [Op:{op}]")


# -- elements produced by Python functions that return datasets ------------------------------

class DatasetFunction:
    """A function from an element to a dataset (flat_map, interleave, group_by_window's
    reducer). It runs eagerly on each element; its element_spec comes from one call on
    placeholders of the input spec."""

    def __init__(self, func: Callable, input_spec: Any, name: str) -> None:
        self._func = conversion.convert(func)
        self._input_spec = input_spec
        probe = placeholder_element(input_spec, lambda element: _call(self._func, element))
        if not isinstance(probe, DatasetV2):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                            f"{type(probe)!r}.")
        self.output_spec = probe.element_spec

    def __call__(self, element: Any) -> DatasetV2:
        return _call(self._func, to_tensors(element))


class FlatMapDataset(UnaryDataset):
    _tf_name = "_FlatMapDataset"
    _unrollable = False   # runs Python per element (or a thread)

    def __init__(self, input_dataset: DatasetV2, map_func: Callable) -> None:
        fn = DatasetFunction(map_func, input_dataset.element_spec, "flat_map")
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn

    def _elements(self) -> Iterator:
        for element in self._input._elements():
            yield from self._fn(element)._elements()


class InterleaveDataset(UnaryDataset):
    _tf_name = "_InterleaveDataset"
    _unrollable = False   # runs Python per element (or a thread)

    def __init__(self, input_dataset: DatasetV2, map_func: Callable, cycle_length: Any,
                 block_length: Any, num_parallel_calls: Any) -> None:
        fn = DatasetFunction(map_func, input_dataset.element_spec, "interleave")
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn
        cycle = AUTOTUNE if cycle_length is None else _int_arg(cycle_length, "cycle_length")
        self._cycle = schedulable_cpus() if cycle == AUTOTUNE else cycle
        self._block = 1 if block_length is None else _int_arg(block_length, "block_length")
        if num_parallel_calls is not None:
            self._tf_name = "_ParallelInterleaveDataset"

    def _elements(self) -> Iterator:
        opened = (self._fn(element)._elements() for element in self._input._elements())
        return interleaved(opened, self._cycle, self._block)


def schedulable_cpus() -> int:
    """The cores this process may run on: TF's AUTOTUNE cycle length (port::MaxParallelism,
    which reads the CPU affinity; os.cpu_count counts every core of the machine)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def interleaved(iterators: Iterator, cycle: int, block: int = 1) -> Iterator:
    """TensorFlow's InterleaveDataset loop over `iterators` (opened lazily, as the input
    elements are pulled): a cycle of `cycle` open iterators, `block` elements from each in
    turn; an exhausted one frees its slot and the turn moves on, the slot taking the next
    iterator when its turn comes again."""
    slots: list = [None] * cycle
    index = taken = opened = 0
    end_of_input = False
    while not end_of_input or opened:
        current = slots[index]
        if current is not None:
            element = next(current, _END)
            if element is not _END:
                yield element
                taken += 1
                if taken == block:
                    index, taken = (index + 1) % cycle, 0
                continue
            slots[index] = None
            opened -= 1
            index, taken = (index + 1) % cycle, 0
        elif not end_of_input:
            current = next(iterators, _END)
            if current is _END:
                end_of_input = True
            else:
                slots[index] = current
                opened += 1
        else:
            index, taken = (index + 1) % cycle, 0


_END = object()


# -- simple element-wise transformations ------------------------------------------------------

class FilterDataset(UnaryDataset):
    _tf_name = "_FilterDataset"

    def __init__(self, input_dataset: DatasetV2, predicate: Callable,
                 name: str = "predicate") -> None:
        super().__init__(input_dataset)
        self._fn = _predicate(predicate, input_dataset.element_spec, name)

    def _elements(self) -> Iterator:
        fn = self._fn
        for element in self._input._elements():
            if fn(structure.flatten(element))[0]:
                yield element


def _predicate(func: Callable, spec: Any, name: str) -> StructuredFunction:
    fn = StructuredFunction(func, spec, name)
    out = fn.output_spec
    if not isinstance(out, TensorSpec) or out.dtype != _dtypes.bool or out.shape.rank != 0 \
            and out.shape.rank is not None:
        raise ValueError(f"Invalid `{name}`. `{name}` must return a `tf.bool` scalar tensor, "
                         f"but its return type is {out!r}.")
    return fn


class TakeWhileDataset(UnaryDataset):
    _tf_name = "_TakeWhileDataset"

    def __init__(self, input_dataset: DatasetV2, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._fn = _predicate(predicate, input_dataset.element_spec, "predicate")

    def _elements(self) -> Iterator:
        for element in self._input._elements():
            if not self._fn(structure.flatten(element))[0]:
                return
            yield element


class ShardDataset(UnaryDataset):
    _tf_name = "_ShardDataset"

    def __init__(self, input_dataset: DatasetV2, num_shards: Any, index: Any) -> None:
        super().__init__(input_dataset)
        self._num, self._index = _int_arg(num_shards, "num_shards"), _int_arg(index, "index")
        if self._num <= 0:
            raise op_error(InvalidArgumentError, f"Number of shards must be greater than zero "
                           f"(currently num_shards = {self._num}).", "ShardDataset")
        if not 0 <= self._index < self._num:
            raise op_error(InvalidArgumentError, f"Index must be between 0 and "
                           f"{self._num - 1} (currently index = {self._index}).",
                           "ShardDataset")

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._num + (1 if self._index < n % self._num else 0)

    def _elements(self) -> Iterator:
        for i, element in enumerate(self._input._elements()):
            if i % self._num == self._index:
                yield element


class UniqueDataset(UnaryDataset):
    _tf_name = "_UniqueDataset"

    def __init__(self, input_dataset: DatasetV2) -> None:
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.shape.rank not in (0, None) or \
                spec.dtype not in (_dtypes.int32, _dtypes.int64, _dtypes.string):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {spec!r}; it "
                            f"supports int32, int64 and string scalars.")
        super().__init__(input_dataset)

    def _elements(self) -> Iterator:
        seen = set()
        for element in self._input._elements():
            key = element.item() if element.dtype != object else element[()]
            if key not in seen:
                seen.add(key)
                yield element


class PrefetchDataset(PassThroughDataset):
    _tf_name = "_PrefetchDataset"
    _unrollable = False   # runs Python per element (or a thread)

    def __init__(self, input_dataset: DatasetV2, buffer_size: Any) -> None:
        super().__init__(input_dataset)
        size = _int_arg(buffer_size, "buffer_size")
        self._autotune = size == AUTOTUNE
        self._size = 8 if self._autotune else size

    def _elements(self) -> Iterator:
        if self._size == 0:
            return self._input._elements()
        if self._autotune:
            return autotuned_prefetch(self._input._elements(), self._size)
        return prefetched(self._input._elements(), self._size)


# A background producer pays for itself only when producing and consuming an element both
# take long enough to overlap (NumPy releases the GIL in its kernels): with a cheap producer
# (gathering a batch) or a consumer that does little, the handoff between threads and their
# contention for the GIL cost more than the overlap saves (a Keras epoch ran 17% slower).
_PROBE_ELEMENTS = 8
_WORTH_A_THREAD_S = 1e-3


def autotuned_prefetch(elements: Iterator, size: int) -> Iterator:
    """`prefetch(AUTOTUNE)`: the first elements are produced inline and timed, with the
    consumer's time between requests; the rest come from a background thread when both
    times average over a millisecond (their overlap saves more than the handoff costs), and
    inline otherwise."""
    produce_s = consume_s = 0.0
    for _ in range(_PROBE_ELEMENTS):
        start = time.perf_counter()
        element = next(elements, _NO_ELEMENT)
        produced = time.perf_counter()
        produce_s += produced - start
        if element is _NO_ELEMENT:
            return
        yield element
        consume_s += time.perf_counter() - produced
    if min(produce_s, consume_s) / _PROBE_ELEMENTS > _WORTH_A_THREAD_S:
        yield from prefetched(elements, size)
    else:
        yield from elements


_NO_ELEMENT = object()


def prefetched(elements: Iterator, size: int) -> Iterator:
    """`elements` produced by a background thread, up to `size` ahead; errors re-raised
    in order, and the thread stops when the consumer does."""
    buffer: queue.Queue = queue.Queue(size)
    stop = threading.Event()

    def produce() -> None:
        try:
            for element in elements:
                while not stop.is_set():
                    try:
                        buffer.put((True, element), timeout=0.1)
                        break
                    except queue.Full:
                        pass
                if stop.is_set():
                    return
            buffer.put((False, None))
        except BaseException as exc:     # handed to the consumer, raised there
            buffer.put((False, exc))

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        while True:
            ok, item = buffer.get()
            if ok:
                yield item
            elif item is None:
                return
            else:
                raise item
    finally:
        stop.set()


class OptionsDataset(PassThroughDataset):
    _tf_name = "_OptionsDataset"

    def __init__(self, input_dataset: DatasetV2, options: Any) -> None:
        super().__init__(input_dataset)
        self._options = options


class IgnoreErrorsDataset(UnaryDataset):
    _tf_name = "_IgnoreErrorsDataset"
    _unrollable = False   # runs Python per element (or a thread)

    def _elements(self) -> Iterator:
        from tapeflow.framework.errors import OpError
        elements = self._input._elements()
        while True:
            try:
                element = next(elements)
            except StopIteration:
                return
            except OpError:
                continue
            yield element


# -- batching ---------------------------------------------------------------------------------

class UnbatchDataset(UnaryDataset):
    _tf_name = "_UnbatchDataset"

    def __init__(self, input_dataset: DatasetV2) -> None:
        spec = structure.map_leaves(structure.unbatched_spec, input_dataset.element_spec)
        super().__init__(input_dataset, spec)

    def _elements(self) -> Iterator:
        spec = self._element_spec
        single = not structure.is_structure(spec)
        for element in self._input._elements():
            flat = structure.flatten(element)
            n = flat[0].shape[0]
            for a in flat[1:]:
                if a.shape[0] != n:
                    raise op_error(InvalidArgumentError, f"Input element must have the same "
                                   f"batch size in each component. Component 0 had size {n} "
                                   f"but component 1 had size {a.shape[0]}.")
            for i in range(n):
                if single:
                    yield structure.take_row(flat[0], i)
                else:
                    yield structure.pack(spec, [structure.take_row(a, i) for a in flat])


class RebatchDataset(UnaryDataset):
    _tf_name = "_RebatchDataset"

    def __init__(self, input_dataset: DatasetV2, batch_size: Any,
                 drop_remainder: bool = False) -> None:
        sizes = [int(s) for s in np.ravel(np.asarray(
            batch_size._value if isinstance(batch_size, TensorLike) else batch_size))]
        static = sizes[0] if drop_remainder and len(set(sizes)) == 1 else None
        spec = structure.map_leaves(
            lambda s: structure.batched_spec(structure.unbatched_spec(s), static),
            input_dataset.element_spec)
        super().__init__(input_dataset, spec)
        self._sizes, self._drop = sizes, bool(drop_remainder)

    def _elements(self) -> Iterator:
        rows: list = []
        k = 0
        for element in UnbatchDataset(self._input)._elements():
            rows.append(element)
            if len(rows) == self._sizes[k % len(self._sizes)]:
                yield stack_elements(self._element_spec, rows)
                rows, k = [], k + 1
        if rows and not self._drop:
            yield stack_elements(self._element_spec, rows)


class PaddedBatchDataset(UnaryDataset):
    _tf_name = "_PaddedBatchDataset"

    def __init__(self, input_dataset: DatasetV2, batch_size: Any, padded_shapes: Any,
                 padding_values: Any, drop_remainder: bool) -> None:
        in_spec = input_dataset.element_spec
        size = _int_arg(batch_size, "batch_size")
        if size <= 0:
            raise op_error(InvalidArgumentError, "Batch size must be greater than zero.",
                           "PaddedBatchDatasetV2")
        flat_specs = structure.flatten(in_spec)
        for spec in flat_specs:
            if structure.is_composite_spec(spec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce "
                                f"tensor elements but type spec of elements in the input "
                                f"dataset is not a subclass of TensorSpec: `{spec!r}`.")
        if padded_shapes is None:
            shapes = [s.shape.as_list() if s.shape.rank is not None else None
                      for s in flat_specs]
            if any(s is None for s in shapes):
                raise ValueError("You must provide `padded_shapes` argument because component "
                                 "has unknown rank.")
            shapes = [[None] * len(s) for s in shapes]
        else:
            shapes = [_shape_list(s) for s in _flatten_up_to(in_spec, padded_shapes)]
        if padding_values is None:
            values = [_default_padding(s.dtype) for s in flat_specs]
        else:
            values = [np.asarray(structure.to_numpy(structure.normalize(v)), s.dtype.
                                 as_numpy_dtype) for v, s in
                      zip(_flatten_up_to(in_spec, padding_values), flat_specs)]
        static = size if drop_remainder else None
        out = [TensorSpec([static] + [d if d is not None else None for d in shp], s.dtype)
               for shp, s in zip(shapes, flat_specs)]
        super().__init__(input_dataset, structure.pack(in_spec, out))
        self._size, self._drop = size, bool(drop_remainder)
        self._shapes, self._values = shapes, values

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _elements(self) -> Iterator:
        rows: list = []
        for element in self._input._elements():
            rows.append(structure.flatten(element))
            if len(rows) == self._size:
                yield self._pad(rows)
                rows = []
        if rows and not self._drop:
            yield self._pad(rows)

    def _pad(self, rows: list) -> Any:
        flat = []
        for i, (shape, value) in enumerate(zip(self._shapes, self._values)):
            column = [r[i] for r in rows]
            full = [max(a.shape[d] for a in column) if dim is None else dim
                    for d, dim in enumerate(shape)]
            out = np.full([len(column)] + full, value, dtype=column[0].dtype)
            for j, a in enumerate(column):
                if any(n > m for n, m in zip(a.shape, full)):
                    raise op_error(DataLossError, "Attempted to pad to a smaller size than "
                                   "the input element.")
                out[(j,) + tuple(slice(0, n) for n in a.shape)] = a
            flat.append(out)
        return structure.pack(self._element_spec, flat)


def _shape_list(shape: Any) -> list:
    if isinstance(shape, TensorLike):
        shape = np.asarray(shape._value).tolist()
    dims = list(shape) if not hasattr(shape, "as_list") else shape.as_list()
    return [None if d is None or d == -1 else int(d) for d in dims]


def _flatten_up_to(spec: Any, value: Any) -> list:
    """`value`'s parts matching `spec`'s leaves (a leaf of `value` may stand for a whole
    sub-structure? no: TF requires the same structure)."""
    if not structure.is_structure(spec):
        return [value]
    if isinstance(spec, dict):
        return [x for k in sorted(spec) for x in _flatten_up_to(spec[k], value[k])]
    return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v)]


def _default_padding(dtype: Any) -> Any:
    return b"" if dtype == _dtypes.string else np.zeros((), dtype.as_numpy_dtype)


# -- combining datasets -----------------------------------------------------------------------

class ZipDataset(DatasetV2):
    _tf_name = "_ZipDataset"

    def __init__(self, datasets: Any) -> None:
        _check_zip_input(datasets)
        self._datasets = structure.flatten(datasets)
        super().__init__(structure.pack(datasets, [d.element_spec for d in self._datasets]))
        self._structure = datasets

    def _inputs(self) -> list:
        return list(self._datasets)

    def _cardinality(self) -> int:
        result = INFINITE
        for d in self._datasets:
            n = d._cardinality()
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE:
                result = n if result == INFINITE else min(result, n)
        return result

    def _elements(self) -> Iterator:
        iterators = [d._elements() for d in self._datasets]
        while True:
            parts = []
            for it in iterators:
                part = next(it, _END)
                if part is _END:
                    return
                parts.append(part)
            yield structure.pack(self._structure, parts)

    def _random_access(self) -> Any:
        parts = [d._random_access() for d in self._datasets]
        if any(p is None for p in parts):
            return None
        return ZipAccess(self._structure, parts)


def _check_zip_input(datasets: Any) -> None:
    if isinstance(datasets, list):
        raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures "
                        "of `tf.data.Dataset` objects. Python `list` is not supported and you "
                        "should use `tuple` instead.")
    for d in structure.flatten(datasets):
        if not isinstance(d, DatasetV2):
            raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) "
                            f"structures of `tf.data.Dataset` objects but encountered object "
                            f"of type {type(d)}.")


class ConcatenateDataset(DatasetV2):
    _tf_name = "_ConcatenateDataset"

    def __init__(self, first: DatasetV2, second: DatasetV2) -> None:
        a, b = first.element_spec, second.element_spec
        try:
            structure.nest.assert_same_structure(a, b)
            spec = structure.pack(a, [structure.most_specific_common(x, y) for x, y in
                                      zip(structure.flatten(a), structure.flatten(b))])
        except (TypeError, ValueError):
            raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}") from None
        super().__init__(spec)
        self._first, self._second = first, second

    def _inputs(self) -> list:
        return [self._first, self._second]

    def _cardinality(self) -> int:
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b

    def _elements(self) -> Iterator:
        yield from self._first._elements()
        yield from self._second._elements()


def enumerate_dataset(dataset: DatasetV2, start: Any = 0) -> DatasetV2:
    """(index, element) pairs from `start`, as TF's zip with a range."""
    counter = RangeDataset(start, np.iinfo(np.int64).max)
    return ZipDataset((counter, dataset))


# -- windows ----------------------------------------------------------------------------------

class ListDataset(DatasetV2):
    """A dataset over a Python list of internal elements (a window, a group)."""

    _tf_name = "_VariantDataset"

    def __init__(self, element_spec: Any, elements: list) -> None:
        super().__init__(element_spec)
        self._list = elements

    def _elements(self) -> Iterator:
        return iter(self._list)

    def _cardinality(self) -> int:
        return len(self._list)

    def _random_access(self) -> Any:
        return _ListAccess(self._element_spec, self._list)


class WindowDataset(UnaryDataset):
    _tf_name = "_WindowDataset"

    def __init__(self, input_dataset: DatasetV2, size: Any, shift: Any, stride: Any,
                 drop_remainder: bool) -> None:
        in_spec = input_dataset.element_spec
        spec = structure.map_leaves(lambda s: DatasetSpec(s), in_spec)
        super().__init__(input_dataset, spec)
        self._size = _int_arg(size, "size")
        self._shift = self._size if shift is None else _int_arg(shift, "shift")
        self._stride = _int_arg(stride, "stride")
        self._drop = bool(drop_remainder)
        for name, value in (("size", self._size), ("shift", self._shift),
                            ("stride", self._stride)):
            if value <= 0:
                raise op_error(InvalidArgumentError, f"Window {name} must be greater than "
                               f"zero, but got {value}.", "WindowDataset")

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _elements(self) -> Iterator:
        span = (self._size - 1) * self._stride + 1
        buffer: collections.deque = collections.deque()
        offset = 0                      # input index of buffer[0]
        start = 0                       # input index where the next window starts
        inputs = self._input._elements()
        exhausted = False
        while True:
            while not exhausted and offset + len(buffer) < start + span:
                element = next(inputs, _END)
                if element is _END:
                    exhausted = True
                else:
                    buffer.append(element)
            available = offset + len(buffer)
            if start >= available or (exhausted and self._drop and
                                      start + span > available):
                return
            items = [buffer[i - offset] for i in range(start, min(start + span, available),
                                                         self._stride)]
            yield self._window(items)
            start += self._shift
            while buffer and offset < start:
                buffer.popleft()
                offset += 1
            while offset < start and not exhausted:   # a shift past the buffer skips inputs
                if next(inputs, _END) is _END:
                    exhausted = True
                else:
                    offset += 1

    def _window(self, items: list) -> Any:
        spec = self._input.element_spec
        if not structure.is_structure(spec):
            return ListDataset(spec, items)
        columns = list(zip(*[structure.flatten(e) for e in items]))
        return structure.pack(spec, [ListDataset(s, list(c)) for s, c in
                                     zip(structure.flatten(spec), columns)])


# -- caching ----------------------------------------------------------------------------------

class CacheDataset(UnaryDataset):
    """`cache()`: the first complete pass is kept (in memory, or in `filename`) and later
    passes read it. The file (io_format's NumPy archive, no pickle) is written to
    `filename + ".tapeflow-cache"` when a pass completes."""

    _tf_name = "CacheDataset"
    _unrollable = False

    def __init__(self, input_dataset: DatasetV2, filename: str = "") -> None:
        super().__init__(input_dataset)
        self._filename = str(filename)
        self._cache: Optional[list] = None

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _path(self) -> str:
        return self._filename + ".tapeflow-cache"

    def _elements(self) -> Iterator:
        cached = self._load()
        if cached is not None:
            yield from cached
            return
        kept = []
        for element in self._input._elements():
            kept.append(element)
            yield element
        self._store(kept)

    def _load(self) -> Optional[list]:
        if self._cache is not None or not self._filename:
            return self._cache
        from tapeflow.data import io_format
        if os.path.exists(self._path()):
            self._cache = io_format.read_cache(self._path(), self._element_spec)
        return self._cache

    def _store(self, kept: list) -> None:
        self._cache = kept
        if self._filename:
            from tapeflow.data import io_format
            io_format.write_elements(self._path(), io_format.CACHE_FORMAT,
                                     self._element_spec, kept)


# -- stateful functions -----------------------------------------------------------------------

class StateFunction:
    """`func(state, element)` of reduce/scan, traced on the state's spec, relaxed and traced
    again where the state's shape changes (as TF)."""

    def __init__(self, func: Callable, initial_state: Any, element_spec: Any, name: str,
                 outputs_state_only: bool) -> None:
        state = structure.normalize(initial_state)
        self.initial = structure.map_leaves(structure.to_numpy, state)
        state_spec = structure.specs_of(state)
        for _ in range(8):
            fn = StructuredFunction(lambda s, e: _call_state(func, s, e), (state_spec,
                                    element_spec), name)
            out = fn.output_spec
            new_state = out if outputs_state_only else out[0]
            relaxed = _relax(state_spec, new_state, name)
            if relaxed == state_spec:
                break
            state_spec = relaxed
        self.fn, self.state_spec, self._only = fn, state_spec, outputs_state_only
        self.output_spec = None if outputs_state_only else out[1]

    def step(self, state: Any, element: Any) -> Any:
        return self.fn.call_element((state, element))


def _call_state(func: Callable, state: Any, element: Any) -> Any:
    args = (state,) + (element if type(element) is tuple else (element,))
    return conversion.convert(func)(*args)


def _relax(old: Any, new: Any, name: str) -> Any:
    try:
        structure.nest.assert_same_structure(old, new)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"The element types for the new state must match the initial state. "
                        f"Expected {old!r}; got {new!r}.") from exc
    flat = []
    for a, b in zip(structure.flatten(old), structure.flatten(new)):
        if a.dtype != b.dtype:
            raise TypeError(f"The element types for the new state must match the initial "
                            f"state. Expected {old!r}; got {new!r}.")
        flat.append(structure.most_specific_common(a, b))
    return structure.pack(old, flat)


class ScanDataset(UnaryDataset):
    _tf_name = "_ScanDataset"

    def __init__(self, input_dataset: DatasetV2, initial_state: Any, scan_func: Callable
                 ) -> None:
        fn = StateFunction(scan_func, initial_state, input_dataset.element_spec, "scan", False)
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _elements(self) -> Iterator:
        state = self._fn.initial
        for element in self._input._elements():
            state, out = self._fn.step(state, element)
            yield out


def reduce_dataset(dataset: DatasetV2, initial_state: Any, reduce_func: Callable) -> Any:
    """`reduce_func` folded over the elements from `initial_state`, as tensors."""
    fn = StateFunction(reduce_func, initial_state, dataset.element_spec, "reduce", True)
    state = fn.initial
    for element in dataset._elements():
        state = fn.step(state, element)
    return to_tensors(state)


# -- grouping ---------------------------------------------------------------------------------

class GroupByWindowDataset(UnaryDataset):
    _tf_name = "_GroupByWindowDataset"
    _unrollable = False   # runs Python per element (or a thread)

    def __init__(self, input_dataset: DatasetV2, key_func: Callable, reduce_func: Callable,
                 window_size: Any = None, window_size_func: Optional[Callable] = None) -> None:
        spec = input_dataset.element_spec
        self._key = StructuredFunction(key_func, spec, "key_func")
        if self._key.output_spec != TensorSpec([], _dtypes.int64):
            raise ValueError(f"Invalid `key_func`. `key_func` must return a single tf.int64 "
                             f"scalar tensor but its return type is {self._key.output_spec!r}.")
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        self._size_func = window_size_func
        self._size = None if window_size is None else _int_arg(window_size, "window_size")
        converted = conversion.convert(reduce_func)
        self._reduce = converted
        probe = placeholder_element((TensorSpec([], _dtypes.int64), DatasetSpec(spec)),
                                    lambda kw: converted(*kw))
        super().__init__(input_dataset, probe.element_spec)

    def _window_size(self, key: np.ndarray) -> int:
        if self._size is not None:
            return self._size
        return int(np.asarray(self._size_func(to_tensors(key))))

    def _elements(self) -> Iterator:
        groups: dict = {}
        spec = self._input.element_spec
        for element in self._input._elements():
            key = self._key(structure.flatten(element))[0]
            group = groups.setdefault(int(key), [])
            group.append(element)
            if len(group) >= self._window_size(key):
                del groups[int(key)]
                yield from self._reduced(key, ListDataset(spec, group))
        for k in sorted(groups):
            yield from self._reduced(np.asarray(k, np.int64), ListDataset(spec, groups[k]))

    def _reduced(self, key: np.ndarray, window: DatasetV2) -> Iterator:
        return self._reduce(to_tensors(np.asarray(key, np.int64)), window)._elements()


def bucket_by_sequence_length(dataset: DatasetV2, element_length_func: Callable,
                              bucket_boundaries: list, bucket_batch_sizes: list,
                              padded_shapes: Any = None, padding_values: Any = None,
                              pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False, drop_remainder: bool = False
                              ) -> DatasetV2:
    """TF's bucketing: elements grouped by which of the buckets their length falls in,
    each group padded and batched by its bucket's batch size."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1 but "
                         f"len(bucket_batch_sizes)={len(bucket_batch_sizes)} and "
                         f"len(bucket_boundaries)={len(bucket_boundaries)}")
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    length_func = conversion.convert(element_length_func)

    def key_func(*element: Any) -> Any:
        from tapeflow.ops import math_ops
        length = _call(length_func, element if len(element) > 1 else element[0])
        key = math_ops.cast(0, _dtypes.int64)
        for b in boundaries:   # the number of boundaries at or below the length
            key = key + math_ops.cast(math_ops.greater_equal(length, b), _dtypes.int64)
        return key

    def reduce_func(key: Any, window: DatasetV2) -> DatasetV2:
        # While the function is probed for its spec the key is a placeholder: any bucket's
        # size gives the same spec (an unknown batch size).
        size = sizes[0] if is_symbolic(key) else sizes[int(key)]
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            raise NotImplementedError("bucket_by_sequence_length(pad_to_bucket_boundary=True)"
                                      " is not supported by tapeflow")
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    return GroupByWindowDataset(dataset, key_func, reduce_func,
                                window_size_func=lambda key: sizes[int(key)])


__all__ = ["FlatMapDataset", "InterleaveDataset", "FilterDataset", "TakeWhileDataset",
           "ShardDataset", "UniqueDataset", "PrefetchDataset", "OptionsDataset",
           "IgnoreErrorsDataset", "UnbatchDataset", "RebatchDataset", "PaddedBatchDataset",
           "ZipDataset", "ConcatenateDataset", "enumerate_dataset", "ListDataset",
           "WindowDataset", "CacheDataset", "ScanDataset", "reduce_dataset",
           "GroupByWindowDataset", "bucket_by_sequence_length", "op_error"]


class AssertCardinalityDataset(PassThroughDataset):
    """`tf.data.experimental.assert_cardinality`: the input with a declared cardinality,
    checked as the elements go by (TF's FailedPreconditionError once a pass has too many or
    too few)."""

    _tf_name = "_AssertCardinalityDataset"

    def __init__(self, input_dataset: DatasetV2, cardinality: int) -> None:
        super().__init__(input_dataset)
        self._declared = cardinality

    def _cardinality(self) -> int:
        return self._declared

    def _random_access(self) -> Any:
        return None          # the count is checked by walking the elements

    def _index_plan(self) -> Any:
        return None

    def _elements(self) -> Iterator:
        expected = ("an infinite number of" if self._declared == INFINITE
                    else str(self._declared))
        count = 0
        for element in self._input._elements():
            count += 1
            if 0 <= self._declared < count:
                raise op_error(FailedPreconditionError, f"Input dataset was expected to "
                               f"contain {expected} elements but contained at least {count} "
                               f"elements.")
            yield element
        if count != self._declared:
            raise op_error(FailedPreconditionError, f"Input dataset was expected to contain "
                           f"{expected} elements but contained only {count} elements.")
