"""`tf.convert_to_tensor`: the one conversion every op and the autodiff layer use."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.convert import check_dtype, constant_value
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: Optional[str] = None) -> Tensor:
    """A Tensor for `value`: tensors pass through, variables are read, Python and NumPy
    values are converted with TensorFlow's dtype rules."""
    if type(value) is Tensor:
        return value if dtype is None else check_dtype(value, dtype)
    if isinstance(value, Variable):
        read = value.value()
        return read if dtype is None else check_dtype(read, dtype)
    if isinstance(value, TensorLike):  # Tensor subclasses (symbolic tensors)
        return value if dtype is None else check_dtype(value, dtype)
    if type(value) is IndexedSlices:  # densified: its slices summed (differentiably)
        return value._dense(dtype)
    return constant_value(value, dtype=dtype, dtype_hint=dtype_hint)


__all__ = ["convert_to_tensor"]
