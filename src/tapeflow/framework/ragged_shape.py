"""`tf.experimental.RowPartition` and `tf.experimental.DynamicRaggedShape`, as TensorFlow 2's.

A RowPartition splits a sequence of `nvals` values into `nrows` contiguous rows; it is held
as its row splits (a NumPy array, as tapeflow's RaggedTensor holds them), plus the row length
where the rows are known to share one. A DynamicRaggedShape is the shape of a ragged or
dense tensor: its row partitions (outermost first) and `inner_shape`, the shape of the flat
values. `tf.shape` of a RaggedTensor gives one; `tf.reshape`, `tf.zeros`, `tf.ones` and
`tf.fill` accept one (tapeflow.ops.array_ops calls `_add_row_partitions` on their dense
result). Everything here is computed with NumPy when the shape is built: shapes carry no
gradients.

Inside a trace, `tf.shape` of a RaggedTensor whose row splits are graph values (see
`ragged_tensor.is_symbolic`) gives a shape over those tensors: a RowPartition then holds its
row splits as a traced tensor, and a DynamicRaggedShape its inner shape as one (with the
static dims tracing knows), as TF's do; their methods then build graph ops through the
traced handlers `tapeflow.ops.ragged_ops` registers (`ragged_tensor.register_traced`);
`==` compares the components as the graph runs, as TF's extension types do, and slicing
out uniform dims stacks their lengths as the graph runs.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.ragged_tensor import _TRACED, RaggedTensor, \
    concrete, is_symbolic
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor

_INDEX_DTYPES = (_dtypes.int32, _dtypes.int64)


# -- TensorFlow's assertion texts (the checks run eagerly, on NumPy values) --------------------
def _summary(x: np.ndarray) -> str:
    items = [str(v) for v in x[:3].tolist()] + (["..."] if x.size > 3 else [])
    return repr(items)


def _check_non_negative(x: np.ndarray, what: str) -> None:
    if np.any(x < 0):
        raise InvalidArgumentError(
            f"{what}.  \nCondition x >= 0 did not hold element-wise:\nx (shape={x.shape} "
            f"dtype={x.dtype.name}) = \n{_summary(x)}")


def _check_relation(holds: bool, x: Any, y: Any, relation: str, what: str) -> None:
    if not holds:
        raise InvalidArgumentError(f"{what}\nCondition x {relation} y did not hold.\nFirst 1 "
                                   f"elements of x:\n[{x}]\nFirst 1 elements of y:\n[{y}]")


def _index_dtype(dtype: Any, message: str) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _INDEX_DTYPES:
        raise ValueError(message)
    return dtype


def _index_array(value: Any, name: str, rank: int, dtype: Any = None,
                 dtype_hint: Any = None) -> np.ndarray:
    """`value` as an int32/int64 NumPy array of rank `rank`: a tensor keeps its dtype (and
    must match `dtype`); a Python value takes `dtype`, else `dtype_hint`, else int64."""
    bad_dtype = f"{name} must have dtype int32 or int64"
    if isinstance(value, TensorLike):
        tensor = convert_to_tensor(value)
        if tensor.dtype not in _INDEX_DTYPES:
            raise ValueError(bad_dtype)
        if dtype is not None and _dtypes.as_dtype(dtype) != tensor.dtype:
            raise ValueError(f"{name}: Tensor conversion requested dtype "
                             f"{_dtypes.as_dtype(dtype).name} for Tensor with dtype "
                             f"{tensor.dtype.name}: {tensor!r}")
        array = concrete(value, name)
    else:
        array = np.asarray(value)
        if array.size and array.dtype.kind not in "iu":
            raise ValueError(bad_dtype)
        if dtype is None and array.dtype in (np.int32, np.int64) and \
                isinstance(value, np.ndarray):
            dtype = array.dtype
        target = _index_dtype(dtype if dtype is not None else dtype_hint or _dtypes.int64,
                              bad_dtype)
        array = array.astype(target.as_numpy_dtype)
    if array.ndim != rank:
        raise ValueError(f"Shape {array.shape} must have rank {rank}")
    return array


def _traced(value: Any) -> bool:
    """Whether a partition's splits or a shape's inner shape is a traced tensor."""
    return type(value) is not np.ndarray


def _splits_of_lengths(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths)]).astype(lengths.dtype)


class RowPartition:
    """Partitioning of a sequence of values into contiguous rows, as
    `tf.experimental.RowPartition`: build one with a `from_*` factory
    (`RowPartition.from_row_lengths([2, 0, 3])`)."""

    __slots__ = ("_splits", "_uniform", "_nvals")

    def __init__(self, row_splits: Any = None, internal: bool = False,
                 uniform_row_length: Optional[int] = None, nvals: Any = None,
                 **unused: Any) -> None:
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the "
                             "factory methods instead (e.g., RowPartition.from_row_lengths())")
        self._splits: np.ndarray = row_splits
        self._uniform = uniform_row_length  # the rows' common length, where known
        self._nvals = nvals  # `static_nvals` where TF knows it from the factory's arguments

    # -- factories ------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits: Any, validate: bool = True, dtype: Any = None,
                        dtype_hint: Any = None) -> "RowPartition":
        """Row `i` is `values[row_splits[i]:row_splits[i + 1]]`."""
        splits = _index_array(row_splits, "row_splits", 1, dtype, dtype_hint)
        if splits.size == 0:
            raise ValueError("row_splits tensor may not be empty.")
        if validate:
            what = "Arguments to from_row_splits do not form a valid RaggedTensor:"
            _check_relation(splits[0] == 0, splits[0], 0, "==", what + "zero")
            _check_non_negative(np.diff(splits), what + "monotonic")
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths: Any, validate: bool = True, dtype: Any = None,
                         dtype_hint: Any = None) -> "RowPartition":
        """Rows of the given lengths, in order."""
        lengths = _index_array(row_lengths, "row_lengths", 1, dtype, dtype_hint)
        if validate:
            _check_non_negative(lengths, "Arguments to from_row_lengths do not form a valid "
                                         "RowPartition")
        return cls(_splits_of_lengths(lengths), internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids: Any, nrows: Any = None, validate: bool = True,
                          dtype: Any = None, dtype_hint: Any = None) -> "RowPartition":
        """Value `i` is in row `value_rowids[i]` (sorted); `nrows` adds trailing empty
        rows."""
        rowids = _index_array(value_rowids, "value_rowids", 1, dtype, dtype_hint)
        if nrows is None:
            n = int(rowids[-1]) + 1 if rowids.size else 0
        else:
            n = int(_index_array(nrows, "nrows", 0, rowids.dtype))
            if rowids.size and n < rowids[-1] + 1:
                raise ValueError(f"Expected nrows >= value_rowids[-1] + 1; got nrows={n}, "
                                 f"value_rowids[-1]={rowids[-1]}")
        if validate:
            what = "Arguments to from_value_rowids do not form a valid RowPartition"
            _check_non_negative(rowids[:1], what)
            _check_non_negative(np.diff(rowids), what)
        lengths = np.bincount(rowids, minlength=n).astype(rowids.dtype)
        return cls(_splits_of_lengths(lengths), internal=True, nvals=len(rowids))

    @classmethod
    def from_row_starts(cls, row_starts: Any, nvals: Any, validate: bool = True,
                        dtype: Any = None, dtype_hint: Any = None) -> "RowPartition":
        """Rows starting at `row_starts`, each ending where the next starts (the last at
        `nvals`)."""
        starts = _index_array(row_starts, "row_starts", 1, dtype, dtype_hint)
        n = _index_array(nvals, "nvals", 0, starts.dtype)
        if validate and starts.size:
            what = "Arguments to from_row_starts do not form a valid RaggedTensor"
            _check_relation(starts[0] == 0, starts[0], 0, "==", what)
            _check_non_negative(np.diff(starts), what)
            _check_relation(starts[-1] <= n, starts[-1], n, "<=", what)
        return cls(np.concatenate([starts, [n]]).astype(starts.dtype), internal=True,
                   nvals=starts.dtype.type(n))

    @classmethod
    def from_row_limits(cls, row_limits: Any, validate: bool = True, dtype: Any = None,
                        dtype_hint: Any = None) -> "RowPartition":
        """Rows ending at `row_limits`, each starting where the one before ends."""
        limits = _index_array(row_limits, "row_limits", 1, dtype, dtype_hint)
        if validate:
            what = "Arguments to from_row_limits do not form a valid RaggedTensor"
            _check_non_negative(limits[:1], what)
            _check_non_negative(np.diff(limits), what)
        return cls(np.concatenate([[0], limits]).astype(limits.dtype), internal=True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length: Any, nvals: Any = None,
                                nrows: Any = None, validate: bool = True, dtype: Any = None,
                                dtype_hint: Any = None) -> "RowPartition":
        """`nrows` rows of `uniform_row_length` values each (nrows or nvals, or both)."""
        if nvals is None and nrows is None:
            raise ValueError("Either (or both) of nvals and nrows must be specified")
        length = _index_array(uniform_row_length, "uniform_row_length", 0, dtype, dtype_hint)
        kind = length.dtype
        if length < 0:
            raise ValueError("uniform_row_length must be >= 0.")
        if nrows is None:
            nrows = int(_index_array(nvals, "nvals", 0, kind)) // length if length else 0
        else:
            nrows = int(_index_array(nrows, "nrows", 0, kind))
        if nvals is not None:
            nvals = int(_index_array(nvals, "nvals", 0, kind))
            if nvals != nrows * length:
                raise ValueError(f"uniform_row_length={length} times nrows={nrows} must "
                                 f"equal nvals={nvals}")
        splits = np.arange(nrows + 1, dtype=kind) * length
        return cls(splits, internal=True, uniform_row_length=int(length))

    @classmethod
    def _from_ragged(cls, rt: RaggedTensor) -> "RowPartition":
        """The outermost row partition of a RaggedTensor (its splits, not a copy; in a
        trace, its traced splits)."""
        splits = rt._row_splits
        return cls(rt._splits if type(splits) is Tensor else splits, internal=True,
                   uniform_row_length=rt._uniform)

    def _view(self) -> RaggedTensor:
        """A RaggedTensor of these traced splits (no values), for the traced handlers."""
        return RaggedTensor(None, self._splits, internal=True)

    # -- encodings --------------------------------------------------------------------------
    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the partition's tensors (int32 or int64)."""
        return _dtypes.as_dtype(self._splits.dtype)

    @property
    def _np_dtype(self) -> np.dtype:
        return np.dtype(self.dtype.as_numpy_dtype)

    def _scalar(self, value: Any) -> Tensor:
        return wrap(np.asarray(value, self._np_dtype))

    def row_splits(self) -> Tensor:
        """Where each row starts and ends (nrows + 1 entries)."""
        return self._splits if _traced(self._splits) else wrap(self._splits)

    def row_lengths(self) -> Tensor:
        """The length of each row."""
        if _traced(self._splits):
            return self._splits[1:] - self._splits[:-1]
        return wrap(np.diff(self._splits))

    def row_starts(self) -> Tensor:
        """Where each row starts."""
        if _traced(self._splits):
            return self._splits[:-1]
        return wrap(self._splits[:-1].copy())

    def row_limits(self) -> Tensor:
        """Where each row ends."""
        if _traced(self._splits):
            return self._splits[1:]
        return wrap(self._splits[1:].copy())

    def nrows(self) -> Tensor:
        """The number of rows, a scalar tensor."""
        if _traced(self._splits):
            return _TRACED["nrows"](self._view(), None)
        return self._scalar(len(self._splits) - 1)

    def nvals(self) -> Tensor:
        """The number of values partitioned, a scalar tensor."""
        if _traced(self._splits):
            return self._splits[-1]
        return self._scalar(self._splits[-1])

    def value_rowids(self) -> Tensor:
        """The row of each value."""
        if _traced(self._splits):
            return _TRACED["value_rowids"](self._view())
        s = self._splits
        return wrap(np.repeat(np.arange(len(s) - 1, dtype=s.dtype), np.diff(s)))

    def offsets_in_rows(self) -> Tensor:
        """The position of each value within its row."""
        if _traced(self._splits):
            return _TRACED["offsets_in_rows"](self._splits)
        s = self._splits
        starts = np.repeat(s[:-1], np.diff(s))
        return wrap(np.arange(s[-1], dtype=s.dtype) - starts)

    def uniform_row_length(self) -> Optional[Tensor]:
        """The rows' common length where the partition was built uniform, else None."""
        return None if self._uniform is None else self._scalar(self._uniform)

    def is_uniform(self) -> bool:
        """Whether the partition was built with a uniform row length."""
        return self._uniform is not None

    # TensorFlow's static values: what its shape inference knows without running a graph
    # (nvals only from some factories' arguments).
    @property
    def static_nrows(self) -> Optional[int]:
        """The number of rows, a Python int (None in a trace that does not know it)."""
        if _traced(self._splits):
            return RaggedTensor._static_nrows(self._view())
        return len(self._splits) - 1

    @property
    def static_nvals(self) -> Any:
        """The number of values where TensorFlow knows it statically (a uniform partition,
        from_value_rowids, from_row_starts), else None."""
        if _traced(self._splits):
            return None
        if self._uniform is None:
            return self._nvals
        return self._splits.dtype.type(self._splits[-1])

    @property
    def static_uniform_row_length(self) -> Any:
        """The uniform row length (a NumPy integer), or None."""
        return None if self._uniform is None else self._np_dtype.type(self._uniform)

    def with_dtype(self, dtype: Any) -> "RowPartition":
        """The same partition with its tensors in `dtype` (int32 or int64)."""
        dtype = _index_dtype(dtype, "dtype must be int32 or int64")
        if dtype == self.dtype:
            return self
        if _traced(self._splits):
            return RowPartition(_TRACED["cast"](self._splits, dtype), internal=True,
                                uniform_row_length=self._uniform)
        # A Python count stays known; a cast tensor's is not (as in TF)
        nvals = self._nvals if type(self._nvals) is int else None
        return RowPartition(self._splits.astype(dtype.as_numpy_dtype), internal=True,
                            uniform_row_length=self._uniform, nvals=nvals)

    def _rebuild(self, values: Any) -> RaggedTensor:
        """The RaggedTensor of `values` partitioned by this."""
        if _traced(self._splits):   # the values' count checked as the graph runs
            checked = RaggedTensor.from_row_splits(values, self._splits)
            return RaggedTensor(checked._values, checked._row_splits, internal=True,
                                uniform_row_length=self._uniform)
        nvals = values._nrows_int() if isinstance(values, RaggedTensor) else \
            int(values.shape[0]) if values.shape.rank else None
        if nvals != self._splits[-1]:
            raise InvalidArgumentError(f"A row partition of {self._splits[-1]} values cannot "
                                       f"partition values of shape {values.shape}")
        return RaggedTensor(values, wrap(self._splits), internal=True,
                            uniform_row_length=self._uniform)

    def __repr__(self) -> str:
        if self._uniform is not None:
            return (f"tf.RowPartition(nrows={self.static_nrows}, "
                    f"uniform_row_length={self._uniform})")
        if _traced(self._splits):
            return f"tf.RowPartition(row_splits={self._splits!r})"
        return f"tf.RowPartition(row_splits={self._splits})"


def _nested_row_partitions(rt: RaggedTensor) -> tuple:
    partitions = []
    while isinstance(rt, RaggedTensor):
        partitions.append(RowPartition._from_ragged(rt))
        rt = rt._values
    return tuple(partitions)


class DynamicRaggedShape:
    """The shape of a ragged or dense tensor, as `tf.experimental.DynamicRaggedShape`: row
    partitions (one per ragged or partitioned dimension, outermost first) over
    `inner_shape`, the shape of the flat values. `tf.shape(rt)` gives one."""

    __slots__ = ("_partitions", "_inner", "_static")

    def __init__(self, row_partitions: Sequence[RowPartition], inner_shape: Any,
                 dtype: Any = None, validate: bool = False,
                 static_inner_shape: Any = None) -> None:
        partitions = tuple(row_partitions)
        for p in partitions:
            if not isinstance(p, RowPartition):
                raise TypeError(f"row_partitions contains {p!r} which is not a RowPartition")
        if dtype is None:
            dtype = partitions[0].dtype if partitions else \
                inner_shape.dtype if isinstance(inner_shape, TensorLike) else _dtypes.int64
        dtype = _index_dtype(dtype, f"Illegal dtype: {_dtypes.as_dtype(dtype)}")
        if is_symbolic(inner_shape):   # known as the graph runs
            inner = inner_shape if inner_shape.dtype == dtype else \
                _TRACED["cast"](inner_shape, dtype)
            if inner.shape.rank != 1 or inner.shape[0] is None:
                raise ValueError(f"tapeflow's traced DynamicRaggedShape needs an inner_shape "
                                 f"of rank 1 and known length, got shape {inner.shape}")
            dims = [None] * inner.shape[0] if static_inner_shape is None else \
                list(static_inner_shape)
        else:
            inner = np.asarray(concrete(inner_shape, "inner_shape")).astype(
                dtype.as_numpy_dtype)
            if inner.ndim != 1:
                raise ValueError(f"Shape {inner.shape} must have rank 1")
            dims = [int(d) if d >= 0 else None for d in inner]
        if partitions and not dims:
            raise IndexError("inner_shape must have a dimension when there are "
                             "row_partitions")
        self._partitions = tuple(p.with_dtype(dtype) for p in partitions)
        self._inner = inner
        self._static = dims   # the inner dims tracing knows (None where it does not)
        if validate and not self._traced():
            self._validate()

    def _traced(self) -> bool:
        """Whether a partition or the inner shape is known only as a graph runs."""
        return _traced(self._inner) or any(_traced(p._splits) for p in self._partitions)

    def _validate(self) -> None:
        parts = self._partitions
        for i in range(len(parts) - 1):
            nvals, nrows = parts[i]._splits[-1], parts[i + 1].static_nrows
            _check_relation(nvals == nrows, nvals, nrows, "==", f"RowPartitions in "
                            f"DynamicRaggedShape do not align between {i} and {i + 1}")
        if parts:
            nvals = parts[-1]._splits[-1]
            _check_relation(nvals == self._inner[0], nvals, self._inner[0], "==",
                            "Last row partition does not match inner_shape.")

    # -- factories ------------------------------------------------------------------------
    @classmethod
    def from_tensor(cls, t: Any, dtype: Any = None) -> "DynamicRaggedShape":
        """The shape of a RaggedTensor or a dense tensor."""
        if isinstance(t, RaggedTensor):
            dtype = t._row_splits.dtype if dtype is None else dtype
            flat = t.flat_values
            if is_symbolic(t) or not flat.shape.is_fully_defined():
                return cls(_nested_row_partitions(t), _TRACED["shape"](flat, dtype),
                           dtype=dtype, static_inner_shape=flat.shape.as_list())
            return cls(_nested_row_partitions(t), flat.shape.as_list(), dtype=dtype)
        shape = convert_to_tensor(t).shape
        if not shape.is_fully_defined():
            raise NotImplementedError(f"tapeflow builds a DynamicRaggedShape when it runs: "
                                      f"the shape {shape} of {t!r} is not known yet")
        return cls((), shape.as_list(), dtype=_dtypes.int32 if dtype is None else dtype)

    @classmethod
    def from_row_partitions(cls, row_partitions: Sequence[RowPartition],
                            dtype: Any = None) -> "DynamicRaggedShape":
        """The shape of a ragged tensor partitioned by `row_partitions` over a 1-D
        `values`."""
        if not row_partitions:
            raise ValueError("row_partitions cannot be empty")
        return cls(row_partitions, [row_partitions[-1]._splits[-1]], dtype=dtype)

    @classmethod
    def from_lengths(cls, lengths: Sequence[Any], num_row_partitions: Optional[int] = None,
                     dtype: Any = _dtypes.int64) -> "DynamicRaggedShape":
        """A shape from its lengths: an int for a uniform dimension, a tuple of row lengths
        for a ragged one (`[2, (1, 2), 3]`); the fewest row partitions unless
        `num_row_partitions` is given."""
        _index_dtype(dtype, f"Illegal dtype: {_dtypes.as_dtype(dtype)}")
        if not isinstance(lengths, (list, tuple)):
            raise ValueError("lengths should be a list")
        for length in lengths:
            if not (type(length) is int or (type(length) is tuple and
                                             all(type(d) is int for d in length))):
                raise ValueError(f"element of lengths should be int or tuple of ints: "
                                 f"instead {length!r}")
        ragged = [i for i, length in enumerate(lengths) if type(length) is tuple]
        needed = ragged[-1] if ragged else 0
        if num_row_partitions is None:
            num_row_partitions = needed
        elif num_row_partitions >= len(lengths) > 0:
            raise ValueError("num_row_partitions should be less than `len(lengths)` if "
                             "shape is not scalar.")
        if num_row_partitions < needed:
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        if ragged and ragged[0] == 0:
            raise ValueError(f"Shape {(1, len(lengths[0]))} must have rank 1")
        partitions, nrows = [], lengths[0] if lengths else 0
        for length in lengths[1:num_row_partitions + 1]:
            if type(length) is tuple:
                if len(length) != nrows:
                    raise ValueError("Shape not consistent.")
                p = RowPartition.from_row_lengths(length, dtype=dtype)
            else:
                p = RowPartition.from_uniform_row_length(length, nrows=nrows, dtype=dtype)
            partitions.append(p)
            nrows = int(p._splits[-1])
        inner = [nrows, *lengths[num_row_partitions + 1:]] if lengths else []
        return cls(partitions, inner, dtype=dtype)

    # -- properties -----------------------------------------------------------------------
    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the shape's tensors (int32 or int64)."""
        return _dtypes.as_dtype(self._inner.dtype)

    @property
    def row_partitions(self) -> tuple:
        """The row partitions, outermost first."""
        return self._partitions

    @property
    def num_row_partitions(self) -> int:
        """The number of row partitions."""
        return len(self._partitions)

    @property
    def inner_shape(self) -> Tensor:
        """The shape of the flat values (of the tensor itself without row partitions)."""
        return self._inner if _traced(self._inner) else wrap(self._inner)

    @property
    def inner_rank(self) -> int:
        """The rank of the flat values."""
        return len(self._static)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self._partitions) + len(self._inner)

    def is_uniform(self, axis: int) -> bool:
        """Whether dimension `axis` has one length."""
        if type(axis) is not int:
            raise TypeError("axis must be an integer")
        if axis < 0:
            raise IndexError("Negative axis values are not supported")
        if axis >= self.rank:
            raise IndexError(f"Expected axis={axis} < rank={self.rank}")
        return not 0 < axis <= len(self._partitions) or self._partitions[axis - 1].is_uniform()

    def static_lengths(self, ragged_lengths: bool = True) -> list:
        """The lengths as Python values: an int per uniform dimension, a tuple of row
        lengths per ragged one (None where `ragged_lengths` is False)."""
        inner = list(self._static)
        if not self._partitions:
            return inner
        lengths: list = [self._partitions[0].static_nrows]
        for p in self._partitions:
            if p.is_uniform():
                lengths.append(p.static_uniform_row_length)
            else:
                lengths.append(tuple(np.diff(p._splits).tolist()) if ragged_lengths and
                               not _traced(p._splits) else None)
        return lengths + inner[1:]

    def with_dtype(self, dtype: Any) -> "DynamicRaggedShape":
        """The same shape with its tensors in `dtype` (int32 or int64)."""
        return DynamicRaggedShape(self._partitions, self._inner, dtype=dtype,
                                  static_inner_shape=self._static)

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        """`shape[i]`: the length of a uniform dimension (a scalar tensor; ValueError for a
        ragged one); `shape[a:b]`: the shape of those dimensions."""
        if isinstance(key, slice):
            return self._slice(key)
        if not isinstance(key, int):
            raise TypeError("Argument is not an int or a slice")
        rank, index = self.rank, int(key)
        if index < 0:
            index += rank
            if index < 0:
                raise IndexError(f"Index must be non-negative: {index}")
        if index >= rank:
            if index == rank and self.inner_rank == 1:
                raise IndexError(f"Expected axis={index} < rank={rank}")
            raise IndexError(f"Index is too big: {index}>={rank}")
        return self._dimension(index)

    def _dimension(self, index: int) -> Tensor:
        nrp = len(self._partitions)
        if _traced(self._inner) and (index == 0 and not nrp or index > nrp):
            return self._inner[index - nrp]
        if index == 0:
            return self._partitions[0].nrows() if nrp else wrap(self._inner[0])
        if index > nrp:
            return wrap(self._inner[index - nrp])
        partition = self._partitions[index - 1]
        if not partition.is_uniform():
            raise ValueError(f"Index {index} is not uniform")
        return partition.uniform_row_length()

    def _slice(self, key: slice) -> "DynamicRaggedShape":
        if key.step is not None and key.step != 1:
            raise IndexError("Cannot stride through a shape")
        start, stop, _ = key.indices(self.rank)
        nrp = len(self._partitions)
        if stop <= start:   # TF's scalar shape, int64 whatever this shape's dtype
            return DynamicRaggedShape((), [])
        if self._traced() and start == 0 and stop > 1:   # partitions as they are
            if stop > nrp:
                return DynamicRaggedShape(self._partitions, self._inner[:stop - nrp],
                                          dtype=self.dtype,
                                          static_inner_shape=self._static[:stop - nrp])
            return DynamicRaggedShape(self._partitions[:stop - 1],
                                      self._partitions[stop - 2]._splits[-1:],
                                      dtype=self.dtype, static_inner_shape=[None])
        if self._traced() and start == 0 and stop == 1:   # the number of rows, int64
            rows = _TRACED["shape"](self._partitions[0]._splits, _dtypes.int64)[:1] - 1 \
                if nrp else _TRACED["cast"](self._inner[:1], _dtypes.int64)
            return DynamicRaggedShape((), rows, static_inner_shape=[self._static[0] if not nrp
                                                                    else None])
        if self._traced():   # TF's check first: it needs no partition
            if not all(self.is_uniform(axis) for axis in range(stop)):
                raise ValueError("All relevant dimensions must be uniform")
            dims = _TRACED["stack_dims"]([self._dimension(axis) for axis in range(start, stop)],
                                         self.dtype)
            return DynamicRaggedShape((), dims, dtype=self.dtype,
                                      static_inner_shape=[None] * (stop - start))
        if start == 0:   # the outer dimensions: their partitions as they are
            if stop > nrp:
                return DynamicRaggedShape(self._partitions, self._inner[:stop - nrp],
                                          dtype=self.dtype)
            if stop == 1:   # the number of rows, int64 as TF gives it
                return DynamicRaggedShape((), [self._partitions[0].static_nrows])
            return DynamicRaggedShape(self._partitions[:stop - 1],
                                      [self._partitions[stop - 2]._splits[-1]],
                                      dtype=self.dtype)
        if not all(self.is_uniform(axis) for axis in range(stop)):
            raise ValueError("All relevant dimensions must be uniform")
        dims = [self._dimension(axis)._value for axis in range(start, stop)]
        return DynamicRaggedShape((), dims, dtype=self.dtype)   # dense

    # -- values of this shape -------------------------------------------------------------
    def _add_row_partitions(self, flat_values: Any, validate: bool = False) -> Any:
        """`flat_values` (a tensor of `inner_shape`) with this shape's row partitions: a
        RaggedTensor, or `flat_values` itself where there are none."""
        result = flat_values
        for partition in reversed(self._partitions):
            result = partition._rebuild(result)
        return result

    def _broadcast(self, x: Any) -> Any:
        """`x` broadcast to this shape (tf.broadcast_to's ragged dispatch)."""
        return _TRACED["broadcast_to"](x, self)

    def __eq__(self, other: Any) -> Any:
        # As TF's extension types: False where the structure differs, else a bool tensor.
        if not isinstance(other, DynamicRaggedShape):
            return False
        if self._traced() or other._traced():
            return self._traced_equal(other, negate=False)
        if self._structure() != other._structure():
            return False
        same = np.array_equal(self._inner, other._inner) and all(
            np.array_equal(a._splits, b._splits)
            for a, b in zip(self._partitions, other._partitions))
        return wrap(np.asarray(same))

    def _traced_equal(self, other: "DynamicRaggedShape", negate: bool) -> Any:
        """`==` (or `!=`) where a shape is known as the graph runs, as TF's extension types:
        their specs compared while tracing, then each component (inner shape, row splits)
        as the graph runs, where components of different lengths fail to reduce."""
        if (self.dtype, self.num_row_partitions, self.static_lengths()) != \
                (other.dtype, other.num_row_partitions, other.static_lengths()):
            return negate
        pairs = [(self._inner, other._inner)] + [
            (a._splits, b._splits) for a, b in zip(self._partitions, other._partitions)]
        return _TRACED["shape_equal"](pairs, negate)

    def __ne__(self, other: Any) -> Any:
        if isinstance(other, DynamicRaggedShape) and (self._traced() or other._traced()):
            return self._traced_equal(other, negate=True)
        equal = self.__eq__(other)
        return True if equal is False else wrap(np.logical_not(equal._value))

    __hash__ = None  # == gives a tensor

    def _structure(self) -> tuple:
        return (self.dtype, tuple(self._inner.tolist()),
                tuple((p.static_nrows, p._uniform) for p in self._partitions))

    def __repr__(self) -> str:
        lengths = ", ".join("None" if d is None else str(d) if not isinstance(d, tuple) else
                            "(" + ", ".join(map(str, d)) + ("," if len(d) == 1 else "") + ")"
                            for d in self.static_lengths())
        return (f"<DynamicRaggedShape lengths=[{lengths}] "
                f"num_row_partitions={self.num_row_partitions}>")

    __str__ = __repr__


__all__ = ["DynamicRaggedShape", "RowPartition"]
