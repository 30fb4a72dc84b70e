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
from tapeflow.data.dataset_spec import is_symbolic
from tapeflow.data.structured_function import StructuredFunction
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context as _context
from tapeflow.framework.errors import InvalidArgumentError, OpError
from tapeflow.framework.tensor import TensorLike, wrap
from tapeflow.function import TensorSpec

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1
_NOTHING = object()


def _int_arg(value: Any, name: str, dtype: Any = np.int64) -> int:
    """A scalar integer argument (a Python int or an integer tensor), as TF's ops take it.
    A traced tensor (a dataset built while a function is probed for its spec) gives 1."""
    if is_symbolic(value):
        return 1
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
        if any(structure.is_composite_spec(s) for s in structure.flatten(spec)):
            self.gather, self.element = self._composite_gather, self._composite_element

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

    # With RaggedTensor or SparseTensor leaves, rows are taken by their own helpers.
    def _composite_gather(self, indices: np.ndarray) -> Any:
        return structure.pack(self._spec, [structure.take_rows(leaf, indices)
                                           for leaf in self._leaves])

    def _composite_element(self, i: int) -> Any:
        return structure.pack(self._spec, [structure.take_row(leaf, i)
                                           for leaf in self._leaves])


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

    # AutoGraph's `for x in dataset` inside tf.function runs with the graph
    # (`_autograph_for_stmt`). Python iteration while tracing (`iter()` in code AutoGraph does
    # not convert) runs while tracing instead: the elements become constants of the graph.
    # That equals TF's values only for pipelines whose elements are the same on every call,
    # with no side effects, so others refuse.
    _unrollable = True
    _UNROLL_LIMIT = 10000

    def _check_unrollable(self) -> None:
        """Raises NotImplementedError unless iterating while tracing gives TF's values."""
        stack = [self]
        while stack:
            d = stack.pop()
            fn = getattr(d, "_fn", None)
            stateful = fn is not None and getattr(fn, "stateful", True)
            if not d._unrollable or stateful or hasattr(d, "_seed_generator"):
                raise NotImplementedError(
                    f"tapeflow cannot iterate over {d._tf_name} inside tf.function: it runs a "
                    f"`for` over a dataset while tracing, which would fix its elements (and "
                    f"any randomness or side effects of its functions) into the graph. "
                    f"Iterate over the dataset outside tf.function and pass each element in.")
            stack.extend(d._inputs())
        n = self._cardinality()
        if n < 0 or n > self._UNROLL_LIMIT:
            raise NotImplementedError(
                f"tapeflow cannot iterate over a dataset of cardinality {n} inside "
                f"tf.function (it unrolls the loop while tracing, up to "
                f"{self._UNROLL_LIMIT} elements). Iterate outside tf.function instead.")

    # -- iteration and introspection --------------------------------------------------------
    def _autograph_for_stmt(self, extra_test: Any, body: Any, state: tuple, names: Any,
                            options: dict) -> tuple:
        """AutoGraph's `for x in dataset` inside tf.function: a loop run with the graph."""
        from tapeflow.data.graph_iteration import graph_for
        return graph_for(self, extra_test, body, state, names, options)

    def __iter__(self) -> OwnedIterator:
        if _context.graph is not None:
            self._check_unrollable()
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

    def filter(self, predicate: Callable, name: Optional[str] = None) -> "DatasetV2":
        """The elements for which `predicate` (a tf.bool scalar) is True."""
        from tapeflow.data.transformations import FilterDataset
        return FilterDataset(self, predicate)

    def flat_map(self, map_func: Callable, name: Optional[str] = None) -> "DatasetV2":
        """The elements of the datasets `map_func` returns for each element, in order."""
        from tapeflow.data.transformations import FlatMapDataset
        return FlatMapDataset(self, map_func)

    def interleave(self, map_func: Callable, cycle_length: Any = None,
                   block_length: Any = None, num_parallel_calls: Any = None,
                   deterministic: Any = None, name: Optional[str] = None) -> "DatasetV2":
        """The datasets of `map_func` interleaved, `block_length` elements from each of
        `cycle_length` open ones in turn (TF's order)."""
        from tapeflow.data.transformations import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length,
                                 num_parallel_calls)

    def concatenate(self, dataset: "DatasetV2", name: Optional[str] = None) -> "DatasetV2":
        """This dataset's elements, then `dataset`'s."""
        from tapeflow.data.transformations import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def enumerate(self, start: Any = 0, name: Optional[str] = None) -> "DatasetV2":
        """(index, element) pairs, the index an int64 counting from `start`."""
        from tapeflow.data.transformations import enumerate_dataset
        return enumerate_dataset(self, start)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: Optional[str] = None) -> "DatasetV2":
        """Elements of the (nested) datasets side by side, as long as the shortest."""
        from tapeflow.data.transformations import ZipDataset
        if datasets is None:
            datasets = args[0] if len(args) == 1 else args
        return ZipDataset(datasets)

    def unbatch(self, name: Optional[str] = None) -> "DatasetV2":
        """Each element split along its first axis into elements."""
        from tapeflow.data.transformations import UnbatchDataset
        return UnbatchDataset(self)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: Optional[str] = None) -> "DatasetV2":
        """The batched elements regrouped into batches of `batch_size` (a list cycles)."""
        from tapeflow.data.transformations import RebatchDataset
        return RebatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: Optional[str] = None) -> "DatasetV2":
        """Batches with each component padded to `padded_shapes` (None dims: the batch's
        longest) with `padding_values` (0 / b"")."""
        from tapeflow.data.transformations import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder)

    def ragged_batch(self, batch_size: Any, drop_remainder: bool = False,
                     row_splits_dtype: Any = _dtypes.int64,
                     name: Optional[str] = None) -> "DatasetV2":
        """Batches elements of different shapes into RaggedTensors: a component whose spec
        has unknown dims becomes ragged up to its last unknown dim; fully known components
        and RaggedTensors batch as `batch` does."""
        return BatchDataset(DenseToRaggedDataset(self, row_splits_dtype), batch_size,
                            drop_remainder)

    def window(self, size: Any, shift: Any = None, stride: Any = 1,
               drop_remainder: bool = False, name: Optional[str] = None) -> "DatasetV2":
        """Windows of `size` elements (every `stride`-th), starting every `shift`; each
        window is a dataset (a structure of datasets for structured elements)."""
        from tapeflow.data.transformations import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "DatasetV2":
        """The first complete pass kept in memory (or in `filename`) for later passes."""
        from tapeflow.data.transformations import CacheDataset
        return CacheDataset(self, filename)

    def prefetch(self, buffer_size: Any, name: Optional[str] = None) -> "DatasetV2":
        """Elements produced ahead by a background thread (`buffer_size` of them)."""
        from tapeflow.data.transformations import PrefetchDataset
        return PrefetchDataset(self, buffer_size)

    def apply(self, transformation_func: Callable) -> "DatasetV2":
        """`transformation_func(self)`, which must return a dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV2):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. "
                            f"Got {type(dataset)}.")
        return dataset

    def with_options(self, options: Any, name: Optional[str] = None) -> "DatasetV2":
        """This dataset with `options` (a tf.data.Options) attached."""
        from tapeflow.data.transformations import OptionsDataset
        return OptionsDataset(self, options)

    def options(self) -> Any:
        """The tf.data.Options attached to this pipeline (defaults where none are)."""
        from tapeflow.data.options import Options
        dataset: Any = self
        while dataset is not None:
            if hasattr(dataset, "_options"):
                return dataset._options
            inputs = dataset._inputs()
            dataset = inputs[0] if inputs else None
        return Options()

    def shard(self, num_shards: Any, index: Any, name: Optional[str] = None) -> "DatasetV2":
        """Every `num_shards`-th element, starting at `index`."""
        from tapeflow.data.transformations import ShardDataset
        return ShardDataset(self, num_shards, index)

    def unique(self, name: Optional[str] = None) -> "DatasetV2":
        """The elements (int32/int64/string scalars) without repeats, first occurrence kept."""
        from tapeflow.data.transformations import UniqueDataset
        return UniqueDataset(self)

    def reduce(self, initial_state: Any, reduce_func: Callable,
               name: Optional[str] = None) -> Any:
        """`reduce_func(state, element)` folded over the elements from `initial_state`."""
        from tapeflow.data.transformations import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)

    def scan(self, initial_state: Any, scan_func: Callable, name: Optional[str] = None
             ) -> "DatasetV2":
        """The outputs of `scan_func(state, element) -> (new_state, output)`."""
        from tapeflow.data.transformations import ScanDataset
        return ScanDataset(self, initial_state, scan_func)

    def take_while(self, predicate: Callable, name: Optional[str] = None) -> "DatasetV2":
        """The elements up to the first for which `predicate` is False."""
        from tapeflow.data.transformations import TakeWhileDataset
        return TakeWhileDataset(self, predicate)

    def group_by_window(self, key_func: Callable, reduce_func: Callable,
                        window_size: Any = None, window_size_func: Any = None,
                        name: Optional[str] = None) -> "DatasetV2":
        """Elements grouped by the int64 `key_func`; each full window (and, at the end, each
        remaining one, by key) becomes the dataset `reduce_func(key, window)`."""
        from tapeflow.data.transformations import GroupByWindowDataset
        return GroupByWindowDataset(self, key_func, reduce_func, window_size,
                                    window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable,
                                  bucket_boundaries: Any, bucket_batch_sizes: Any,
                                  padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: Optional[str] = None) -> "DatasetV2":
        """Elements bucketed by length and padded-batched per bucket, as TF."""
        from tapeflow.data.transformations import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def ignore_errors(self, log_warning: bool = False, name: Optional[str] = None
                      ) -> "DatasetV2":
        """The elements, skipping those whose computation raised a tf.errors error."""
        from tapeflow.data.transformations import IgnoreErrorsDataset
        return IgnoreErrorsDataset(self)

    def get_single_element(self, name: Optional[str] = None) -> Any:
        """The dataset's only element (InvalidArgumentError for none or more, as TF)."""
        elements = self._elements()
        first = next(elements, _NOTHING)
        if first is _NOTHING:
            raise InvalidArgumentError(None, None,
                                       "Dataset was empty. [Op:DatasetToSingleElement]")
        if next(elements, _NOTHING) is not _NOTHING:
            raise InvalidArgumentError(
                None, None, "Dataset had more than one element. [Op:DatasetToSingleElement]")
        return to_tensors(first)

    def save(self, path: str, compression: Any = None, shard_func: Any = None,
             checkpoint_args: Any = None) -> None:
        """Writes the elements to the directory `path` in tapeflow's format (io_format: a
        NumPy archive, no pickle)."""
        from tapeflow.data import io_format
        io_format.save_dataset(path, self.element_spec, list(self._elements()))

    @staticmethod
    def load(path: str, element_spec: Any = None, compression: Any = None,
             reader_func: Any = None, wait: bool = False) -> "DatasetV2":
        """The dataset `save` wrote to `path` (checked, never run: see io_format);
        InvalidArgumentError where `element_spec` does not fit its elements."""
        from tapeflow.data import io_format
        from tapeflow.data.transformations import ListDataset
        spec, elements = io_format.load_dataset(path)
        if element_spec is not None:
            spec, elements = element_spec, io_format.fit_element_spec(element_spec, spec,
                                                                      elements)
        dataset = ListDataset(spec, elements)
        dataset._tf_name = "_LoadDataset"
        return dataset

    @staticmethod
    def from_generator(generator: Callable, output_types: Any = None,
                       output_shapes: Any = None, args: Any = None,
                       output_signature: Any = None, name: Optional[str] = None
                       ) -> "DatasetV2":
        """The elements `generator(*args)` yields, converted to `output_signature`."""
        from tapeflow.data.readers import GeneratorDataset
        return GeneratorDataset(generator, output_types, output_shapes, args,
                                output_signature)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: Any = None, seed: Any = None,
                   name: Optional[str] = None) -> "DatasetV2":
        """The file names matching the glob pattern(s), shuffled unless shuffle=False."""
        from tapeflow.data.readers import list_files
        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def random(seed: Any = None, rerandomize_each_iteration: Any = None,
               name: Optional[str] = None) -> "DatasetV2":
        """An infinite stream of TF's pseudorandom int64 values (uint32 Philox words)."""
        from tapeflow.data.sampling_ops import RandomDataset
        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64,
                name: Optional[str] = None) -> "DatasetV2":
        """start, start + step, start + 2 * step, ... forever, in `dtype`."""
        from tapeflow.data.sampling_ops import counter
        return counter(start, step, dtype)

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: Any = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: Any = None) -> "DatasetV2":
        """Elements of `datasets` drawn at random with probabilities `weights`, in TF's
        order for a seed."""
        from tapeflow.data.sampling_ops import sample_from_datasets
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset,
                                    rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: Any,
                             stop_on_empty_dataset: bool = True) -> "DatasetV2":
        """The element of `datasets[i]` for each int64 `i` that `choice_dataset` yields."""
        from tapeflow.data.sampling_ops import choose_from_datasets
        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


class TensorSliceDataset(DatasetV2):
    _tf_name = "_TensorSliceDataset"

    def __init__(self, tensors: Any) -> None:
        element = structure.normalize(tensors)
        leaves = structure.flatten(element)
        if not leaves:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        if any(is_symbolic(t) for t in leaves):    # probing a function: the spec only
            specs = [structure.unbatched_spec(structure.spec_of(t)) for t in leaves]
            super().__init__(structure.pack(element, specs))
            self._access = None
            return
        flat = [structure.to_numpy(t) for t in leaves]
        for a in flat:
            if a.shape == ():
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
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
        if any(is_symbolic(t) for t in structure.flatten(element)):
            self._element = None                   # probing a function: the spec only
            return
        self._element = structure.map_leaves(_internal_leaf, element)

    def _elements(self) -> Iterator:
        yield self._element

    def _cardinality(self) -> int:
        return 1

    def _random_access(self) -> Any:
        element = self._element
        return _ListAccess(self._element_spec, [element])


class SpecOnlyDataset(DatasetV2):
    """A dataset known by its element_spec only: a placeholder while a function is probed."""

    _unrollable = False

    def _elements(self) -> Iterator:
        raise TypeError("A dataset built from traced values has no elements outside the "
                        "function it was made in.")


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
        specs = structure.flatten(self._spec)
        flat = [structure.stack_leaf(list(col), spec)
                for col, spec in zip(zip(*rows), specs)] if rows else [
            np.zeros((0,) + tuple(s.shape.as_list()), s.dtype.as_numpy_dtype)
            for s in structure.flatten(self._spec)]
        return structure.pack(self._spec, flat)


class RangeDataset(DatasetV2):
    _tf_name = "_RangeDataset"

    def __init__(self, *args: Any, output_type: Any = _dtypes.int64) -> None:
        if not args or len(args) > 3:
            raise ValueError("Invalid arguments to RangeDataset: " + repr(args))
        dtype = _dtypes.as_dtype(output_type)
        if any(is_symbolic(a) for a in args):     # probing a function: the spec only
            super().__init__(TensorSpec([], dtype))
            self._access = RangeAccess(0, 1, 0, np.dtype(dtype.as_numpy_dtype))
            return
        values = [_int_arg(a, "range") for a in args]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (
            values[0], values[1], values[2] if len(values) == 3 else 1)
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer. "
                                       "[Op:RangeDataset]")
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


class PassThroughDataset(UnaryDataset):
    """A dataset with its input's elements (options, prefetch, a declared cardinality, a
    relaxed spec): count, random access and index plan are the input's."""

    def _elements(self) -> Iterator:
        return self._input._elements()

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _random_access(self) -> Any:
        return self._input._random_access()

    def _index_plan(self) -> Any:
        return self._input._index_plan()


class BatchDataset(UnaryDataset):
    _tf_name = "_BatchDataset"

    def __init__(self, input_dataset: DatasetV2, batch_size: Any, drop_remainder: Any,
                 parallel: bool = False) -> None:
        size = _int_arg(batch_size, "batch_size")
        if size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero. "
                                       "[Op:BatchDatasetV2]")
        drop = bool(drop_remainder)
        static = size if drop and not is_symbolic(batch_size) else None
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
    """The elements `rows` stacked along a new axis 0, with TF's error for ragged shapes
    (`spec` is the batch's: a RaggedTensorSpec component stacks into a RaggedTensor)."""
    if not structure.is_structure(spec):
        return _stack_leaf(rows, spec, 0)
    columns = zip(*[structure.flatten(r) for r in rows])
    return structure.pack(spec, [_stack_leaf(list(c), leaf, i)
                                 for i, (c, leaf) in enumerate(zip(columns,
                                                                   structure.flatten(spec)))])


def _stack_leaf(rows: list, spec: Any, component: int) -> Any:
    if structure.is_ragged_spec(spec):
        return structure.stack_ragged(rows, spec)
    if structure.is_sparse_spec(spec):
        return structure.stack_sparse(rows)
    return _stack_component(rows, component)


def _stack_component(arrays: list, component: int) -> np.ndarray:
    first = np.shape(arrays[0])
    for a in arrays:
        if np.shape(a) != first:
            # TF's text: the element's shape against the first (the batch's) shape.
            raise InvalidArgumentError(
                None, None,
                f"Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {_dims(np.shape(a))}, [batch]: {_dims(first)} "
                f"[Op:IteratorGetNext]")
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
            outputs = parallel_map(fn.call_element, self._input._elements(), self._parallel)
        else:
            outputs = (fn.call_element(e) for e in self._input._elements())
        try:
            yield from outputs
        except OpError as exc:
            # TF's text for a kernel error inside the function, in the same class.
            raise type(exc)(None, None, f"Error in user-defined function passed to "
                            f"{self._tf_name[1:]} transformation with iterator: "
                            f"Iterator::Root::{self._tf_name[1:-7]}: {exc.message}") from exc


class DenseToRaggedDataset(UnaryDataset):
    """Its input's elements with each dense component of partly unknown shape as a ragged
    one (TF's _DenseToRaggedDataset, under ragged_batch): ragged up to the last unknown
    dim, ragged_rank 0 (its rows stay dense) where only the first is unknown."""

    _tf_name = "_DenseToRaggedDataset"

    def __init__(self, input_dataset: DatasetV2, row_splits_dtype: Any = _dtypes.int64) -> None:
        splits = _dtypes.as_dtype(row_splits_dtype)
        spec = structure.map_leaves(lambda s: _ragged_spec_of(s, splits),
                                    input_dataset.element_spec)
        super().__init__(input_dataset, spec)

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _elements(self) -> Iterator:
        specs = structure.flatten(self._element_spec)
        ranks = [s.ragged_rank if structure.is_ragged_spec(s) else None for s in specs]
        if not any(ranks):
            yield from self._input._elements()
            return
        from tapeflow.ops.ragged_ops import _from_tensor
        for element in self._input._elements():
            flat = structure.flatten(element)
            flat = [_from_tensor(wrap(a), ragged_rank=r, row_splits_dtype=s.row_splits_dtype)
                    if r and type(a) is np.ndarray else a
                    for a, r, s in zip(flat, ranks, specs)]
            yield structure.pack(self._element_spec, flat)


def _ragged_spec_of(spec: Any, splits_dtype: Any) -> Any:
    if type(spec) is not TensorSpec or spec.shape.rank is None or \
            spec.shape.is_fully_defined():
        return spec
    dims = spec.shape.as_list()
    rank = max(axis for axis, size in enumerate(dims) if size is None)
    from tapeflow.framework.ragged_tensor import RaggedTensorSpec
    return RaggedTensorSpec(dims, spec.dtype, rank, splits_dtype)


def parallel_map(func: Callable, items: Iterator, parallelism: int) -> Iterator:
    """`func` of each item on a thread pool, results in order (a bounded window ahead)."""
    from concurrent.futures import ThreadPoolExecutor
    import os
    workers = (os.cpu_count() or 2) if parallelism == AUTOTUNE else max(1, parallelism)
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
           "UnaryDataset", "PassThroughDataset", "parallel_map"]
