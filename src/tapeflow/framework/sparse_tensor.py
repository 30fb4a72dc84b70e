"""`tf.SparseTensor`: a tensor stored as the coordinates (COO) of its explicit values.

Three dense tensors make one: `indices` (int64 `[N, rank]`), `values` (`[N]`) and
`dense_shape` (int64 `[rank]`). The static `shape` comes from `dense_shape` when its value is
known, else from the spec a `tf.function` traced it with (TF's `_dense_shape_default`).

A SparseTensor is a composite value: `tf.function` passes it in and out as its three component
tensors (`_to_components` / `SparseTensorSpec._from_components`), traced by its spec (shape
and dtype: a different number of values does not retrace, a different dense shape does).

This module holds the data structure; the ops (`tf.sparse.*`, its operators) live in
`tapeflow.ops.sparse_ops`, which attaches the operators (the framework layer sits below ops).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.framework.tensor_shape import TensorShape, as_shape


def _static_dims(dense_shape: Tensor) -> Optional[list]:
    """The value of `dense_shape` as Python ints where it is a constant (eager, or a trace's
    constant), else None (a trace's input or an op's result, known when the graph runs)."""
    graph = getattr(dense_shape, "_graph", None)
    if graph is None:
        value = dense_shape._value
    else:  # a symbolic tensor (the graph layer sits above: read by duck typing)
        info = graph.values[dense_shape._vid]
        value = info.example if info.kind == "const" else None
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "iu":
        return None
    return [int(d) for d in value.reshape(-1)]


def _check_shapes(indices: Tensor, values: Tensor, dense_shape: Tensor) -> None:
    """TF's static checks (ValueError): ranks 2, 1, 1 and matching N and rank."""
    shapes = (indices.shape, values.shape, dense_shape.shape)
    for shape, rank in zip(shapes, (2, 1, 1)):
        if shape.rank is not None and shape.rank != rank:
            raise ValueError(f"Shape {shape} must have rank {rank}")
    pairs = ((shapes[0], 0, shapes[1], 0), (shapes[0], 1, shapes[2], 0))
    for a, i, b, j in pairs:
        if a.rank is None or b.rank is None:
            continue
        x, y = a.as_list()[i], b.as_list()[j]
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimensions {x} and {y} are not compatible")


@tf_export("sparse.SparseTensor", "SparseTensor")
class SparseTensor:
    """A sparse tensor, as `tf.sparse.SparseTensor(indices, values, dense_shape)`.

    Args:
      indices: int64 `[N, rank]` coordinates of the explicit values.
      values: `[N]` values, any dtype.
      dense_shape: int64 `[rank]`, the shape of the dense tensor.
    """

    # _shape is the static shape TF shows; _dims the dims tapeflow's ops size outputs by,
    # kept through ops (with_values) where TF's static shape is lost inside a trace.
    __slots__ = ("_indices", "_values", "_dense_shape", "_shape", "_dims", "__weakref__")

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        from tapeflow.framework.tensor_conversion import convert_to_tensor
        if isinstance(dense_shape, TensorShape):
            dense_shape = dense_shape.as_list()
        self._indices = convert_to_tensor(indices, dtype=_dtypes.int64)
        self._values = convert_to_tensor(values)
        self._dense_shape = convert_to_tensor(dense_shape, dtype=_dtypes.int64)
        _check_shapes(self._indices, self._values, self._dense_shape)
        dims = _static_dims(self._dense_shape)
        if dims is not None:
            self._shape = TensorShape(dims)
        else:
            rank = self._dense_shape.shape.as_list()[0] if self._dense_shape.shape.rank else None
            self._shape = TensorShape(None if rank is None else [None] * rank)
        self._dims = self._shape

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> "SparseTensor":
        """A SparseTensor from a SparseTensor (returned as is) or a SparseTensorValue."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values,
                   sparse_tensor_value.dense_shape)

    indices = property(lambda self: self._indices, doc="The int64 `[N, rank]` coordinates.")
    values = property(lambda self: self._values, doc="The `[N]` explicit values.")
    dense_shape = property(lambda self: self._dense_shape, doc="The int64 `[rank]` dense shape.")

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The static `TensorShape` of the dense tensor."""
        return self._shape

    def get_shape(self) -> TensorShape:
        """The static `TensorShape` (alias of `shape`)."""
        return self._shape

    @property
    def device(self) -> str:
        """The device of the values."""
        return self._values.device

    @property
    def _type_spec(self) -> "SparseTensorSpec":
        return SparseTensorSpec(self._shape, self.dtype)

    def _to_components(self) -> list:
        return [self._indices, self._values, self._dense_shape]

    def with_values(self, new_values: Any) -> "SparseTensor":
        """A SparseTensor with these indices and dense shape and `new_values` ([N])."""
        result = SparseTensor(self._indices, new_values, self._dense_shape)
        result._shape, result._dims = self._shape, self._dims  # the same dense shape, as known
        return result

    def consumers(self) -> list:
        """The ops that use this tensor (none, eagerly)."""
        return []

    def __str__(self) -> str:
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    __repr__ = __str__

    def __bool__(self) -> bool:
        return True


@tf_export("SparseTensorSpec")
class SparseTensorSpec:
    """The type of a SparseTensor: its dense shape and dtype, `tf.SparseTensorSpec`."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32) -> None:
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._dtype = _dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value: SparseTensor) -> "SparseTensorSpec":
        """The spec of a SparseTensor."""
        return value._type_spec

    shape = property(lambda self: self._shape, doc="The dense `TensorShape`.")
    dtype = property(lambda self: self._dtype, doc="The `DType` of the values.")
    value_type = property(lambda self: SparseTensor, doc="SparseTensor.")

    def is_compatible_with(self, other: Any) -> bool:
        """True when `other` (a SparseTensor or spec) has this dtype and a compatible shape."""
        if isinstance(other, SparseTensor):
            other = other._type_spec
        return isinstance(other, SparseTensorSpec) and other._dtype == self._dtype and \
            self._shape.is_compatible_with(other._shape)

    def _key(self) -> tuple:
        dims = None if self._shape.rank is None else tuple(self._shape.as_list())
        return (dims, self._dtype.name)

    def _component_specs(self) -> list:
        """(shape, dtype) of indices, values and dense_shape."""
        rank = self._shape.rank
        return [([None, rank], _dtypes.int64), ([None], self._dtype), ([rank], _dtypes.int64)]

    def _from_components(self, components: list) -> SparseTensor:
        """The SparseTensor of these component tensors (taken as they are: a trace's
        placeholders), with this spec's static shape, or the dense shape's value where it is
        known (a traced function's eager result, as TF's)."""
        result = object.__new__(SparseTensor)
        result._indices, result._values, result._dense_shape = components
        dims = _static_dims(result._dense_shape)
        result._shape = result._dims = self._shape if dims is None else TensorShape(dims)
        return result

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SparseTensorSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def sparse_rows(sp: SparseTensor, rows: np.ndarray) -> SparseTensor:
    """The rows `rows` (along axis 0, in that order, repeats allowed) of the eager `sp`,
    renumbered 0..len(rows)-1: a SparseTensor of dense shape `[len(rows)] + sp's other dims`
    (how tf.data and Keras's data adapters batch a SparseTensor)."""
    indices, values = np.asarray(sp.indices._value), np.asarray(sp.values._value)
    dims = [int(d) for d in np.asarray(sp.dense_shape._value)]
    rows = np.asarray(rows, np.int64).reshape(-1)
    first = indices[:, 0]
    order = None
    if first.size and np.any(first[1:] < first[:-1]):   # not in row order: sort by row
        order = np.argsort(first, kind="stable")
        first = first[order]
    starts = np.searchsorted(first, rows, "left")
    counts = np.searchsorted(first, rows, "right") - starts
    # entry positions: each row's run [start, start + count), the rows one after another
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
    taken = offsets + np.arange(int(counts.sum()))
    if order is not None:
        taken = order[taken]
    new_rows = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
    new_indices = np.concatenate([new_rows[:, None], indices[taken, 1:]], axis=1)
    return SparseTensor(wrap(new_indices), wrap(values[taken]),
                        wrap(np.asarray([len(rows)] + dims[1:], np.int64)))


__all__ = ["SparseTensor", "SparseTensorSpec", "sparse_rows"]
