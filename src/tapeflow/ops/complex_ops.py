"""`tf.complex` and `tf.math.angle`, with TensorFlow's gradients.

Complex cotangents inside the backward pass are the conjugates of TensorFlow's (the rules are
written in holomorphic form; GradientTape conjugates at its ends, see `autodiff.tape`), so a
rule here returns conj(TF's gradient) for a complex input and TF's gradient for a real one.
Real, imag, conj and complex abs live with the other elementwise ops in `math_ops`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework.abstract import same_shape
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.math_ops import (_broadcasting, _real_dtype, cast, imag, multiply,
                                   negative, real, reciprocal, where, less, ones_like,
                                   zeros_like)

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def _complex_kernel(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    try:
        shape = np.broadcast_shapes(re.shape, im.shape)
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(re.shape)} vs. "
                                   f"{dims_text(im.shape)} [Op:Complex]") from None
    out = np.empty(shape, _COMPLEX_OF[re.dtype])
    out.real = re   # part by part: re + 1j * im would turn an infinite im into NaN + inf j
    out.imag = im
    return out


def _complex_rule(re: Any, im: Any) -> Any:
    shaped = _broadcasting("Complex")(re, im)
    return type(shaped)(shaped.shape, _COMPLEX_OF[re.dtype])


# TF's rule gives real(g) and imag(g); the backward pass holds conj(g).
_complex = Primitive("Complex", _complex_kernel, shape_rule=_complex_rule, linear=True,
                     batch_safe=True).defvjp(
    lambda g, ans, re, im: real(g), lambda g, ans, re, im: negative(imag(g)))


@tf_export("complex")
def complex(real: Any, imag: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """`real + imag * 1j` elementwise (broadcasting): complex64 from float32 parts,
    complex128 from float64 ones."""
    re = convert_to_tensor(real)
    im = convert_to_tensor(imag)
    if re._value.dtype != im._value.dtype or re._value.dtype not in _COMPLEX_OF:
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{re.dtype.name} {im.dtype.name}. They must be consistent, and one "
                        f"of [tf.float32, tf.float64]")
    return bind(_complex, (re, im))


def _angle_vjp(g: Tensor, ans: Tensor, z: Tensor) -> Tensor:
    # TF's rule: -g / (imag(z) + i real(z)); conjugated for the backward pass.
    return multiply(negative(cast(g, z.dtype)),
                    reciprocal(complex(imag(z), negative(real(z)))))


def _angle_jvp(tangents: list, ans: Tensor, z: Tensor) -> Optional[Tensor]:
    # d angle(z) = Im(dz / z).
    return None if tangents[0] is None else imag(tangents[0] / z)


_angle = Primitive("Angle", np.angle, shape_rule=same_shape(_real_dtype),
                   batch_safe=True).defvjp(_angle_vjp).defjvp(_angle_jvp)


@tf_export("math.angle")
def angle(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF's name
    """The argument of a complex tensor (atan2(imag, real), in its real dtype); for a real
    tensor pi where it is negative and 0 elsewhere, in its dtype, as TF."""
    x = convert_to_tensor(input)
    if x._value.dtype.kind == "c":
        return bind(_angle, (x,))
    return where(less(x, zeros_like(x)), multiply(np.pi, ones_like(x)), zeros_like(x))


__all__ = ["complex", "angle"]
