"""`tf.IndexedSlices`: a sparse set of slices of a dense tensor along its first axis.

Gradients of `tf.gather` (axis 0) and `tf.nn.embedding_lookup` are IndexedSlices, as in
TensorFlow: `values[i]` is the cotangent of slice `indices[i]` of a tensor shaped
`dense_shape`, and repeated indices add up. Converting one to a Tensor
(`tf.convert_to_tensor`, or passing it to any op) sums the slices into a dense tensor with
`unsorted_segment_sum`, a differentiable op, so higher derivatives flow through.

The backward pass keeps IndexedSlices cotangents sparse only through the ops that pass a
cotangent along unchanged (reading a variable, identity); every other rule gets it densified
(see `autodiff/backprop.py`). Two IndexedSlices for one tensor are concatenated, as TF's
gradient aggregation does.

This module holds the data structure only: densifying (`_dense`), negation and aggregation
are ops, attached by `tapeflow.ops.indexed_slices_ops` (the framework layer sits below ops).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import AbstractArray
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_shape import TensorShape

# The device string TensorFlow reports for eager CPU tensors.
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices, as
    `tf.IndexedSlices(values, indices, dense_shape=None)`.

    Args:
      values: the slices, shape `[n] + dense_shape[1:]`.
      indices: 1-D integer tensor of `n` indices into the first axis of the dense tensor.
      dense_shape: 1-D integer tensor, the shape of the dense tensor (optional).
    """

    __slots__ = ("_values", "_indices", "_dense_shape")

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        from tapeflow.framework.tensor_conversion import convert_to_tensor
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    @property
    def values(self) -> Tensor:
        """The slices."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The indices (into the dense tensor's first axis) of the slices."""
        return self._indices

    @property
    def dense_shape(self) -> Optional[Tensor]:
        """The shape of the dense tensor these slices belong to, or None."""
        return self._dense_shape

    @property
    def dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's static shape (unknown without a `dense_shape`)."""
        if self._dense_shape is None:
            return TensorShape(None)
        if type(self._dense_shape._value) is AbstractArray:  # traced: rows known when it runs
            return TensorShape([None]).concatenate(self._values.shape[1:])
        return TensorShape([int(d) for d in np.asarray(self._dense_shape._value)])

    @property
    def device(self) -> str:
        """The device of the values."""
        return _DEVICE

    @property
    def name(self) -> str:
        """The name of the values tensor."""
        return self._values.name

    def __str__(self) -> str:
        dense = "" if self._dense_shape is None else f", dense_shape={str(self._dense_shape)}"
        return f"IndexedSlices(indices={str(self._indices)}, values={str(self._values)}{dense})"


__all__ = ["IndexedSlices"]
