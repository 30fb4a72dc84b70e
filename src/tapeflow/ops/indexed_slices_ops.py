"""The ops on `tf.IndexedSlices`: densifying, negation, and summing two cotangents.

`IndexedSlices` itself is a framework data structure (below ops); its op-backed behaviour is
attached here, as `ops/operators.py` attaches Tensor's operators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import AbstractArray
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor
from tapeflow.ops import array_ops, math_ops
from tapeflow.ops.index_ops import unsorted_segment_sum


def _negative(slices: IndexedSlices) -> IndexedSlices:
    return IndexedSlices(math_ops.negative(slices._values), slices._indices, slices._dense_shape)


def dense(slices: IndexedSlices, dtype: Any = None) -> Tensor:
    """The dense tensor of `slices`: the slices summed into `dense_shape` (differentiable)."""
    if dtype is not None and _dtypes.as_dtype(dtype) != slices.dtype:
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` "
                         f"{_dtypes.as_dtype(dtype).name} for IndexedSlices ({slices}) with "
                         f"dtype {slices.dtype.name}")
    if slices._dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices for argument "
                         f"`value` without dense_shape: {slices}")
    dense_shape = slices._dense_shape
    if type(dense_shape._value) is AbstractArray:  # traced: the row count is read as it runs
        rows = dense_shape[0]
    else:
        rows = int(np.asarray(dense_shape._value).reshape(-1)[0])
    return unsorted_segment_sum(slices._values, slices._indices, rows)


def densify(g: Any) -> Any:
    """`g` as a dense Tensor when it is IndexedSlices; anything else unchanged."""
    return dense(g) if type(g) is IndexedSlices else g


def aggregate(a: Any, b: Any) -> Any:
    """Sums two cotangents of one tensor, as TF's gradient aggregation: two IndexedSlices are
    concatenated (indices of int32 and int64 mixed become int64); with a dense one, dense."""
    if type(a) is IndexedSlices and type(b) is IndexedSlices:
        ia, ib = a._indices, b._indices
        if ia._value.dtype != ib._value.dtype:
            ia, ib = math_ops.cast(ia, _dtypes.int64), math_ops.cast(ib, _dtypes.int64)
        return IndexedSlices(array_ops.concat([a._values, b._values], axis=0),
                             array_ops.concat([ia, ib], axis=0), a._dense_shape)
    return math_ops.add(densify(a), densify(b))


IndexedSlices._dense = dense
IndexedSlices.__neg__ = _negative
