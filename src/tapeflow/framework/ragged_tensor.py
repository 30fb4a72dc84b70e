"""`tf.RaggedTensor`: a tensor whose rows have different lengths, as TensorFlow 2's.

A RaggedTensor is its `values` (a Tensor, or a RaggedTensor for more ragged dimensions) and
its `row_splits`: row `i` is `values[row_splits[i]:row_splits[i + 1]]`. Every op on a ragged
tensor works on its `flat_values` with tapeflow ops, so gradients flow through them; the row
partitions are integer tensors, computed with NumPy eagerly and by primitives in a trace
(they are never differentiated).

Inside a trace (tf.function, Dataset.map) the row splits may be traced tensors whose values
are known only when the graph runs (a RaggedTensorSpec argument, `tf.strings.split` of a traced
vector): such a tensor is *symbolic* (`is_symbolic`), and every method that needs its partition
goes through the traced versions `tapeflow.ops.ragged_ops` registers (`register_traced`),
whose kernels read the splits as the graph runs. Eager tensors keep the NumPy paths.

This module holds the data structure, its factories over row partitions and the dispatch
point; the methods that need ops (`to_tensor`, indexing, operators, `from_tensor`) are
attached by `tapeflow.ops.ragged_ops` (the framework layer sits below the ops).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape

_SPLIT_DTYPES = (_dtypes.int32, _dtypes.int64)


def _splits_dtype(dtype: Any) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _SPLIT_DTYPES:
        raise ValueError(f"row_splits_dtype must be int32 or int64, got {dtype!r}")
    return dtype


def concrete(value: Any, what: str) -> np.ndarray:
    """The NumPy value of a tensor (or Python value) that shapes a RaggedTensor. Row
    partitions are computed when a RaggedTensor is built, so a traced tensor (inside
    tf.function, where its value is only an example) is refused rather than baked in."""
    if isinstance(value, TensorLike):
        if type(value) is not Tensor and not hasattr(value, "numpy"):
            raise TypeError(f"tapeflow builds a RaggedTensor's row partition when it runs: "
                            f"{what} must be a Python value or an eager tensor, not the "
                            f"traced tensor {value!r} (pass the RaggedTensor itself into "
                            f"tf.function instead)")
        return np.asarray(convert_to_tensor(value)._value)
    return np.asarray(value)


def uniform_row_splits(nvals: int, length: int, nrows: Optional[int], validate: bool,
                       dtype: np.dtype) -> np.ndarray:
    """The row splits of rows of `length` over `nvals` values (`nrows` of them, else as many
    as fit), with from_uniform_row_length's check; eagerly, and as the graph runs."""
    n = nrows if nrows is not None else (nvals // length if length else 0)
    if validate and n * length != nvals:
        raise _invalid("from_uniform_row_length", "uniform_row_length must divide the number "
                                                  "of values")
    return np.arange(n + 1, dtype=dtype) * length


class PartitionNeeded(NotImplementedError):
    """Raised where an op computes with a RaggedTensor's row partition in NumPy but the
    partition is known only when a traced graph runs (tf.function then traces the call again
    with the partition as part of its key)."""


def _symbolic_tensor(value: Any) -> bool:
    """Whether `value` is a tensor whose value is known only when a traced graph runs."""
    return isinstance(value, TensorLike) and type(value) is not Tensor and \
        not hasattr(value, "numpy")


def is_symbolic(value: Any) -> bool:
    """Whether `value` is a RaggedTensor whose row partition (at some ragged dimension) is
    known only when a traced graph runs, or such a tensor."""
    if type(value) is RaggedTensor:
        return any(type(s) is not Tensor for s in value.nested_row_splits)
    return _symbolic_tensor(value)


def _built_traced(values: Any, *partition: Any) -> bool:
    """Whether a factory builds its partition as the graph runs: a partition argument is
    traced, or `values` is a RaggedTensor with a traced partition, or a traced tensor whose
    number of rows tracing does not know."""
    if any(_symbolic_tensor(p) for p in partition):
        return True
    if type(values) is RaggedTensor:
        return is_symbolic(values)
    return _symbolic_tensor(values) and (values.shape.rank == 0 or values.shape[0] is None)


# name -> the traced version of a RaggedTensor method or factory, filled by
# tapeflow.ops.ragged_ops (they need ops); called where a partition is symbolic. Also the
# ops DynamicRaggedShape needs from that layer ("shape_equal", "broadcast_to": any partition).
_TRACED: dict = {}


def register_traced(name: str, handler: Callable) -> None:
    _TRACED[name] = handler


def _index_tensor(value: Any, name: str, dtype: Any = None) -> Tensor:
    """A 1-D integer partition tensor (int64 unless it is already int32/int64); a traced
    tensor stays itself (its rank and dtype checked)."""
    if _symbolic_tensor(value):
        tensor = value
    elif isinstance(value, TensorLike):
        tensor = wrap(concrete(value, name))
    else:
        array = np.asarray(value)
        tensor = convert_to_tensor(value, dtype=dtype or (
            _dtypes.int64 if array.dtype.kind in "iu" or array.size == 0 else None))
    if tensor.dtype not in _SPLIT_DTYPES:
        raise ValueError(f"{name} must have dtype int32 or int64, got {tensor.dtype!r}")
    if tensor.shape.rank not in (1, None):
        raise ValueError(f"Shape {tensor.shape} must have rank 1")
    return tensor


def _invalid(factory: str, what: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"Arguments to {factory} do not form a valid RaggedTensor:"
                                f"{what}")


def _values_of(values: Any) -> Any:
    return values if isinstance(values, (RaggedTensor, TensorLike)) else \
        convert_to_tensor(values)


def _nvals(values: Any) -> int:
    return values._nrows_int() if isinstance(values, RaggedTensor) else int(values.shape[0])


def _static_rows(values: Any) -> Optional[int]:
    """The number of rows of a Tensor or RaggedTensor where tracing knows it, else None."""
    if type(values) is RaggedTensor:
        return values._static_nrows()
    shape = values._value.shape   # an array's, or a traced value's (None where unknown)
    return shape[0] if shape else None


class RaggedTensor:
    """Represents a ragged tensor, as `tf.RaggedTensor`: build one with `tf.ragged.constant`
    or a `from_*` factory (`RaggedTensor.from_row_splits(values, row_splits)`)."""

    __slots__ = ("_values", "_row_splits", "_uniform")

    def __init__(self, values: Any, row_splits: Tensor, internal: bool = False,
                 uniform_row_length: Optional[int] = None) -> None:
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        # Rows known to share one length (from_tensor, from_uniform_row_length): the shape
        # shows it, as TF's RowPartition does.
        self._uniform = uniform_row_length

    # -- factories ------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows `values[row_splits[i]:row_splits[i + 1]]`."""
        if _built_traced(values, row_splits):
            return _TRACED["from_row_splits"](values, row_splits, validate)
        values = _values_of(values)
        splits = _index_tensor(row_splits, "row_splits")
        if validate:
            s = np.asarray(splits._value)
            if s.size == 0:
                raise _invalid("from_row_splits", "empty row_splits")
            if s[0] != 0:
                raise _invalid("from_row_splits", "first value of row_splits must be 0")
            if np.any(np.diff(s) < 0):
                raise _invalid("from_row_splits", "row_splits must be sorted")
            if s[-1] != _nvals(values):
                raise _invalid("from_row_splits", "last value of row_splits must equal "
                                                  "the number of values")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: Optional[str] = None,
                         validate: bool = True) -> "RaggedTensor":
        """Rows of the given lengths, taken in order from `values`."""
        if _built_traced(values, row_lengths):
            return _TRACED["from_row_lengths"](values, row_lengths, validate)
        lengths = _index_tensor(row_lengths, "row_lengths")
        l = np.asarray(lengths._value)
        if validate and np.any(l < 0):
            raise _invalid("from_row_lengths", "row_lengths must be non-negative")
        splits = np.concatenate([[0], np.cumsum(l)]).astype(l.dtype)
        values = _values_of(values)
        if validate and splits[-1] != _nvals(values):
            raise _invalid("from_row_lengths", "sum of row_lengths must equal the number of "
                                               "values")
        return cls(values, wrap(splits), internal=True)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None,
                          name: Optional[str] = None, validate: bool = True) -> "RaggedTensor":
        """Value `i` goes to row `value_rowids[i]` (sorted); `nrows` adds trailing empty
        rows."""
        if _built_traced(values, value_rowids, nrows):
            return _TRACED["from_value_rowids"](values, value_rowids, nrows, validate)
        rowids = _index_tensor(value_rowids, "value_rowids")
        r = np.asarray(rowids._value)
        if validate and r.size and (np.any(np.diff(r) < 0) or r[0] < 0):
            raise _invalid("from_value_rowids", "value_rowids must be sorted and non-negative")
        n = (int(r[-1]) + 1 if r.size else 0) if nrows is None else int(
            concrete(nrows, "nrows"))
        if validate and r.size and r[-1] >= n:
            raise _invalid("from_value_rowids", "nrows must be greater than the largest "
                                                "value_rowid")
        lengths = np.bincount(r, minlength=n).astype(r.dtype)
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(r.dtype)
        return cls(_values_of(values), wrap(splits), internal=True)

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows starting at `row_starts` (the first must be 0), each ending where the next
        starts."""
        if _built_traced(values, row_starts):
            return _TRACED["from_row_starts"](values, row_starts, validate)
        values = _values_of(values)
        starts = _index_tensor(row_starts, "row_starts")
        s = np.asarray(starts._value)
        splits = np.concatenate([s, [_nvals(values)]]).astype(s.dtype)
        return cls.from_row_splits(values, wrap(splits), validate=validate)

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows ending at `row_limits`, each starting where the one before ends."""
        if _built_traced(values, row_limits):
            return _TRACED["from_row_limits"](values, row_limits, validate)
        limits = _index_tensor(row_limits, "row_limits")
        l = np.asarray(limits._value)
        splits = np.concatenate([[0], l]).astype(l.dtype)
        return cls.from_row_splits(values, wrap(splits), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values: Any, uniform_row_length: Any,
                                nrows: Any = None, validate: bool = True,
                                name: Optional[str] = None) -> "RaggedTensor":
        """Rows of one length, `uniform_row_length`, taken in order from `values`."""
        if _built_traced(values, uniform_row_length, nrows):
            return _TRACED["from_uniform_row_length"](values, uniform_row_length, nrows,
                                                      validate)
        values = _values_of(values)
        length = int(concrete(uniform_row_length, "uniform_row_length"))
        dtype = uniform_row_length.dtype.as_numpy_dtype if isinstance(
            uniform_row_length, TensorLike) else np.int64
        splits = uniform_row_splits(_nvals(values), length,
                                    None if nrows is None else int(concrete(nrows, "nrows")),
                                    validate, np.dtype(dtype))
        return cls(values, wrap(splits), internal=True, uniform_row_length=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Any,
                               name: Optional[str] = None,
                               validate: bool = True) -> "RaggedTensor":
        """A RaggedTensor with one ragged dimension per row-splits tensor (outermost
        first)."""
        if isinstance(nested_row_splits, TensorLike):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = _values_of(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Any,
                                name: Optional[str] = None,
                                validate: bool = True) -> "RaggedTensor":
        """As from_nested_row_splits, from row lengths."""
        result = _values_of(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values: Any, nested_value_rowids: Any,
                                 nested_nrows: Any = None, name: Optional[str] = None,
                                 validate: bool = True) -> "RaggedTensor":
        """As from_nested_row_splits, from value row ids (and optional row counts)."""
        rowids = list(nested_value_rowids)
        nrows = [None] * len(rowids) if nested_nrows is None else list(nested_nrows)
        result = _values_of(flat_values)
        for ids, n in reversed(list(zip(rowids, nrows))):
            result = cls.from_value_rowids(result, ids, n, validate=validate)
        return result

    # -- structure --------------------------------------------------------------------------
    @property
    def values(self) -> Any:
        """The concatenated rows (a Tensor, or a RaggedTensor when ragged_rank > 1)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """Where each row starts and ends in `values` (nrows + 1 entries)."""
        return self._row_splits

    @property
    def uniform_row_length(self) -> Optional[Tensor]:
        """The length of every row where the rows are known to share one, else None."""
        return None if self._uniform is None else wrap(
            np.asarray(self._uniform, self._splits.dtype))

    @property
    def flat_values(self) -> Tensor:
        """The innermost values, a Tensor."""
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def nested_row_splits(self) -> tuple:
        """The row_splits of every ragged dimension, outermost first."""
        splits, rt = [], self
        while isinstance(rt, RaggedTensor):
            splits.append(rt._row_splits)
            rt = rt._values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self.flat_values.dtype


    @property
    def shape(self) -> TensorShape:
        """The static shape: rows, then None for each ragged dimension, then the flat values'
        inner dimensions."""
        dims, rt = [self._static_nrows()], self
        while isinstance(rt, RaggedTensor):
            dims.append(rt._uniform)
            rt = rt._values
        return TensorShape(dims).concatenate(rt.shape[1:])

    @property
    def _row_partition(self) -> Any:
        """The outermost row partition, a `tf.experimental.RowPartition` over these row
        splits (a view, no copy)."""
        from tapeflow.framework.ragged_shape import RowPartition  # it builds on this module
        return RowPartition._from_ragged(self)

    def get_shape(self) -> TensorShape:
        """The static shape (as `shape`)."""
        return self.shape

    @property
    def _splits(self) -> np.ndarray:
        splits = self._row_splits
        if type(splits) is not Tensor:
            raise PartitionNeeded(
                "tapeflow computes this op's row partition with NumPy while tracing, but the "
                "RaggedTensor's row splits are known only when the traced graph runs; call "
                "the function with RaggedTensor values (it then traces once per partition)")
        return np.asarray(splits._value)

    def _nrows_int(self) -> int:
        """The number of rows, a Python int."""
        return len(self._splits) - 1

    def _static_nrows(self) -> Optional[int]:
        """The number of rows where it is known (always eagerly; from the splits' static
        shape in a trace), else None."""
        shape = self._row_splits._value.shape
        return None if not shape or shape[0] is None else shape[0] - 1

    def nrows(self, out_type: Any = None, name: Optional[str] = None) -> Tensor:
        """The number of rows, a scalar tensor of the row-splits dtype (or `out_type`)."""
        if type(self._row_splits) is not Tensor:
            return _TRACED["nrows"](self, out_type)
        dtype = self._row_splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
        return convert_to_tensor(self._nrows_int(), dtype=dtype)

    def row_lengths(self, axis: int = 1, name: Optional[str] = None) -> Any:
        """The length of each row (of the ragged dimension `axis`)."""
        if axis == 0:
            return self.nrows()
        if axis == 1:
            if type(self._row_splits) is not Tensor:
                return _TRACED["row_lengths"](self)
            return wrap(np.diff(self._splits))
        if not isinstance(self._values, RaggedTensor):
            raise ValueError(f"axis={axis} out of bounds: expected a ragged dimension")
        return self.with_values(self._values.row_lengths(axis - 1))

    def nested_row_lengths(self, name: Optional[str] = None) -> tuple:
        """The row lengths of every ragged dimension, outermost first."""
        lengths, rt = [], self
        while isinstance(rt, RaggedTensor):
            lengths.append(rt.row_lengths())
            rt = rt._values
        return tuple(lengths)

    def row_starts(self, name: Optional[str] = None) -> Tensor:
        """Where each row starts in `values`."""
        if type(self._row_splits) is not Tensor:
            return self._row_splits[:-1]
        return wrap(self._splits[:-1].copy())

    def row_limits(self, name: Optional[str] = None) -> Tensor:
        """Where each row ends in `values`."""
        if type(self._row_splits) is not Tensor:
            return self._row_splits[1:]
        return wrap(self._splits[1:].copy())

    def _rowids(self) -> np.ndarray:
        s = self._splits
        return np.repeat(np.arange(len(s) - 1, dtype=s.dtype), np.diff(s))

    def value_rowids(self, name: Optional[str] = None) -> Tensor:
        """The row of each value."""
        if type(self._row_splits) is not Tensor:
            return _TRACED["value_rowids"](self)
        return wrap(self._rowids())

    def nested_value_rowids(self, name: Optional[str] = None) -> tuple:
        """The value_rowids of every ragged dimension, outermost first."""
        ids, rt = [], self
        while isinstance(rt, RaggedTensor):
            ids.append(rt.value_rowids())
            rt = rt._values
        return tuple(ids)

    def bounding_shape(self, axis: Any = None, name: Optional[str] = None,
                       out_type: Any = None) -> Tensor:
        """The smallest dense shape that holds this tensor (longest rows)."""
        if is_symbolic(self):
            return _TRACED["bounding_shape"](self, axis, out_type)
        dims = [self._nrows_int()]
        rt = self
        while isinstance(rt, RaggedTensor):
            lengths = np.diff(rt._splits)
            dims.append(int(lengths.max()) if lengths.size else 0)
            rt = rt._values
        dims += [int(d) for d in np.shape(rt._value)[1:]]
        dtype = self._row_splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
        shape = np.asarray(dims, dtype=dtype.as_numpy_dtype)
        return wrap(shape if axis is None else shape[axis])

    def with_values(self, new_values: Any) -> "RaggedTensor":
        """This tensor's outermost row partition over `new_values`."""
        new_values = _values_of(new_values)
        old, new = _static_rows(self._values), _static_rows(new_values)
        if old is not None and new is not None and old != new:
            raise ValueError("new_values must have as many rows as values")
        return RaggedTensor(new_values, self._row_splits, internal=True,
                            uniform_row_length=self._uniform)

    def with_flat_values(self, new_values: Any) -> "RaggedTensor":
        """This tensor's row partitions over new flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype: Any) -> "RaggedTensor":
        """The same tensor with its row partitions in `dtype` (int32 or int64)."""
        dtype = _splits_dtype(dtype)
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        splits = _TRACED["cast"](self._row_splits, dtype) \
            if type(self._row_splits) is not Tensor else \
            wrap(self._splits.astype(dtype.as_numpy_dtype))
        return RaggedTensor(values, splits, internal=True, uniform_row_length=self._uniform)

    # -- Python values ------------------------------------------------------------------------
    def to_list(self) -> list:
        """The nested Python list of the values (eagerly only, as TF)."""
        if is_symbolic(self) or _symbolic_tensor(self.flat_values):
            raise ValueError("to_list can only be used in eager mode.")
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            np.asarray(self._values._value).tolist()
        s = self._splits.tolist()
        return [values[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def numpy(self) -> np.ndarray:
        """The rows as a NumPy array: one array when they have one length, else an object
        array of the rows (TensorFlow's rule)."""
        values = self._values.numpy()
        splits = self._splits
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        ragged = any(len(row) != len(rows[0]) for row in rows)
        return np.array(rows, dtype=np.object_ if ragged else None)

    def __repr__(self) -> str:
        if is_symbolic(self) or type(self.flat_values) is not Tensor:  # traced: TF's text
            return f"tf.RaggedTensor(values={self._values!s}, row_splits={self._row_splits!s})"
        with np.printoptions(formatter={"all": _formatter}):
            return f"<tf.RaggedTensor {_formatter(self.numpy())}>"

    __str__ = __repr__

    def __len__(self) -> int:
        return self._nrows_int()

    def __iter__(self):
        for i in range(self._nrows_int()):
            yield self[i]

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor may not be used as a boolean.")

    __hash__ = None  # as tensors: == is elementwise

    # Ops cannot convert a RaggedTensor to a dense tensor.
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("Attempt to convert a RaggedTensor to a dense array; use to_tensor()")

    @property
    def _type_spec(self) -> "RaggedTensorSpec":
        """The spec tf.function traces this value by, as TF's: shape (rows, None for each
        ragged dimension, the inner dims), dtype, ragged_rank and row-splits dtype."""
        return RaggedTensorSpec.from_value(self)

    def _partitioned_spec(self) -> "RaggedTensorSpec":
        """The spec of a trace that takes this tensor's row partition as constants (made
        where a function needs the partition while it traces)."""
        spec = RaggedTensorSpec.from_value(self)
        spec._partition = _Partition(self)
        spec._flat_shape = self.flat_values.shape
        return spec

    def _to_components(self) -> list:
        """The tensors a traced function takes for this value, as TF's: its flat values, then
        the row splits of each ragged dimension, outermost first."""
        return [self.flat_values, *self.nested_row_splits]


class RaggedTensorSpec:
    """The type of a RaggedTensor, as `tf.RaggedTensorSpec(shape, dtype, ragged_rank,
    row_splits_dtype, flat_values_spec)`."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_partition",
                 "_flat_shape")

    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32,
                 ragged_rank: Optional[int] = None, row_splits_dtype: Any = _dtypes.int64,
                 flat_values_spec: Any = None) -> None:
        if flat_values_spec is not None:
            dtype = flat_values_spec.dtype
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = _splits_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank
        self._partition: Optional[_Partition] = None  # set for tracing (`_type_spec`)
        self._flat_shape: Any = None

    @classmethod
    def from_value(cls, value: RaggedTensor) -> "RaggedTensorSpec":
        """The spec of a RaggedTensor."""
        return cls(value.shape, value.dtype, value.ragged_rank, value._row_splits.dtype)

    # -- the composite protocol tf.function uses --------------------------------------------
    def _component_specs(self) -> list:
        """(shape, dtype) of each component, as TF's: the flat values (any number of rows),
        then the row splits of each ragged dimension (the outer one of nrows + 1 items)."""
        if self._shape.rank is None:
            raise ValueError(f"tapeflow traces a RaggedTensorSpec of known rank only, got "
                             f"{self!r}")
        if self._ragged_rank == 0:   # a dense tensor
            return [(self._shape, self._dtype)]
        flat = self._flat_shape if self._partition is not None else \
            TensorShape([None]).concatenate(self._shape[self._ragged_rank + 1:])
        nrows = self._shape[0]
        outer = TensorShape([None if nrows is None else nrows + 1])
        splits = [(outer, self._row_splits_dtype)] + \
            [(TensorShape([None]), self._row_splits_dtype)] * (self._ragged_rank - 1)
        return [(flat, self._dtype)] + splits

    def _from_components(self, parts: list) -> Any:
        """The RaggedTensor of these components (a partitioned spec's own NumPy partition
        over the flat values, where a trace takes the partition as constants)."""
        if self._partition is not None:
            return self._partition.rebuild(parts[0])
        result = parts[0]
        if self._ragged_rank == 0:
            return result
        for splits in reversed(parts[1:]):
            result = RaggedTensor(result, splits, internal=True)
        return result

    @property
    def shape(self) -> TensorShape:
        """The static shape (None for ragged dimensions)."""
        return self._shape

    @property
    def dtype(self) -> _dtypes.DType:
        """The values' dtype."""
        return self._dtype

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> _dtypes.DType:
        """The row partitions' dtype."""
        return self._row_splits_dtype

    @property
    def flat_values_spec(self) -> None:
        """None: the flat values' spec follows from shape and dtype."""
        return None

    @property
    def value_type(self) -> type:
        """RaggedTensor."""
        return RaggedTensor

    def _key(self) -> tuple:
        dims = None if self._shape.rank is None else tuple(self._shape.as_list())
        return (dims, self._dtype, self._ragged_rank, self._row_splits_dtype,
                None if self._partition is None else self._partition.key)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether `other` (a spec or RaggedTensor) fits this spec."""
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype == other._dtype and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype == other._row_splits_dtype
                and self._shape.is_compatible_with(other._shape))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RaggedTensorSpec) and self._key()[:4] == other._key()[:4]

    def __hash__(self) -> int:
        return hash(self._key()[:4])

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")


class _Partition:
    """A RaggedTensor's row partitions (NumPy), for rebuilding it over traced flat values
    (a trace that takes them as constants: see polymorphic.Function's partitioned traces)."""

    __slots__ = ("levels", "key")

    def __init__(self, rt: RaggedTensor) -> None:
        self.levels = []
        while isinstance(rt, RaggedTensor):
            self.levels.append((rt._splits, rt._uniform))
            rt = rt._values
        self.key = tuple((s.dtype.str, s.tobytes(), u) for s, u in self.levels)

    def rebuild(self, flat_values: Any) -> RaggedTensor:
        result = flat_values
        for splits, uniform in reversed(self.levels):
            result = RaggedTensor(result, wrap(splits), internal=True, uniform_row_length=uniform)
        return result


def _formatter(x: Any) -> str:
    """TensorFlow's text for a ragged value: NumPy's, with commas between elements."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())  # NumPy writes `[]` for any empty shape
    return str(x)


# -- dispatch ---------------------------------------------------------------------------------
# kind ("unary", "binary", "reduce", "concat", "stack") -> the ragged version, filled by
# tapeflow.ops.ragged_ops. Ops call `fallback` only where converting an argument failed.
_FALLBACKS: dict = {}


def register_fallback(kind: str, handler: Callable) -> None:
    _FALLBACKS[kind] = handler


def _has_ragged(args: tuple) -> bool:
    for a in args:
        if type(a) is RaggedTensor:
            return True
        if type(a) in (list, tuple) and any(type(v) is RaggedTensor for v in a):
            return True
    return False


def fallback(exc: BaseException, kind: str, op: Callable, *args: Any, **kwargs: Any) -> Any:
    """What an op whose argument conversion raised `exc` does: with a RaggedTensor among
    `args` (or in a list argument), the ragged version of the op of this `kind`; else it
    re-raises `exc`."""
    if _has_ragged(args):
        handler = _FALLBACKS.get(kind)
        if handler is not None:
            return handler(op, *args, **kwargs)
    raise exc


def is_ragged(value: Any) -> bool:
    """Whether `value` is a RaggedTensor."""
    return type(value) is RaggedTensor


__all__ = ["RaggedTensor", "RaggedTensorSpec", "fallback", "register_fallback", "is_ragged",
           "is_symbolic", "register_traced", "PartitionNeeded"]
