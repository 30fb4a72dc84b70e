"""`tf.bitwise`: and, or, xor, invert (primitives of ops/math_ops.py, where the Python
operators use them) and the shifts, with TensorFlow's rule for shift counts out of range."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops import math_ops
from tapeflow.ops.math_ops import _binary_op, _broadcasting


def _clamped(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # TF clamps the count to [0, bits - 1] (so shifting by -1 is by 0, by 100 is by 7 for
    # int8), where C leaves counts out of range undefined.
    return np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(x.dtype)


def _left_shift_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # On the unsigned bits, as TF does: a signed left shift wraps instead of overflowing.
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    shifted = np.left_shift(x.astype(unsigned), _clamped(x, y).astype(unsigned))
    return np.asarray(shifted).astype(x.dtype)


def _right_shift_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(np.right_shift(x, _clamped(x, y)), x.dtype)  # arithmetic for signed


_left_shift = Primitive("LeftShift", _left_shift_kernel, shape_rule=_broadcasting("LeftShift"),
                        differentiable=False)
_right_shift = Primitive("RightShift", _right_shift_kernel,
                         shape_rule=_broadcasting("RightShift"), differentiable=False)

left_shift = tf_export("bitwise.left_shift")(_binary_op(_left_shift, "iu"))
left_shift.__doc__ = ("x shifted left by y bits elementwise (integers; counts outside "
                      "[0, bits) are clamped into it, as in TF).")
right_shift = tf_export("bitwise.right_shift")(_binary_op(_right_shift, "iu"))
right_shift.__doc__ = ("x shifted right by y bits elementwise, arithmetically for signed "
                       "integers (counts outside [0, bits) are clamped into it, as in TF).")


@tf_export("bitwise.bitwise_and")
def bitwise_and(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Bitwise AND of two integer tensors of one dtype (broadcasting)."""
    return math_ops.bitwise_and(x, y)


@tf_export("bitwise.bitwise_or")
def bitwise_or(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Bitwise OR of two integer tensors of one dtype (broadcasting)."""
    return math_ops.bitwise_or(x, y)


@tf_export("bitwise.bitwise_xor")
def bitwise_xor(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Bitwise XOR of two integer tensors of one dtype (broadcasting)."""
    return math_ops.bitwise_xor(x, y)


@tf_export("bitwise.invert")
def invert(x: Any, name: Optional[str] = None) -> Tensor:
    """Bitwise NOT of an integer tensor (~x)."""
    return math_ops.invert(x)


__all__ = ["left_shift", "right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "invert"]
