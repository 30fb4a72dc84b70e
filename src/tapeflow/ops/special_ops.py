"""Special functions: lgamma, digamma, polygamma, erfc, xlogy, xlog1py, xdivy and the scaled
modified Bessel functions, with their rules. SciPy is imported inside the kernels only, so
`import tapeflow` stays fast."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import same_as_input
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import binary_operands, convert_to_tensor, require
from tapeflow.ops.math_ops import (_broadcasting, abs as abs_, cast, conj, exp, less, negative,
                                   not_equal, ones_like, reciprocal, sign, where, zeros_like)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _scipy(name: str):
    """A SciPy special function whose result keeps the input's dtype."""
    def kernel(*arrays: np.ndarray) -> np.ndarray:
        from scipy import special
        return getattr(special, name)(*arrays).astype(arrays[-1].dtype, copy=False)
    return kernel


def _poles(x: np.ndarray) -> np.ndarray:
    """Where x is 0 or a negative integer (-inf included): the poles of Gamma."""
    return (x <= 0) & (x == np.floor(x))


def _lgamma_kernel(x: np.ndarray) -> np.ndarray:
    from scipy import special
    out = special.gammaln(x)
    return np.where(x == -np.inf, np.inf, out).astype(x.dtype, copy=False)  # TF: +inf


def _digamma_kernel(x: np.ndarray) -> np.ndarray:
    from scipy import special
    # TF gives NaN at the poles (SciPy: -inf at 0, +inf at -0).
    return np.where(_poles(x), np.nan, special.digamma(x)).astype(x.dtype, copy=False)


def _polygamma_kernel(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    from scipy import special
    # TF's (Eigen's) formula, elementwise: digamma for a = 0, else
    # (-1)^(a+1) a! zeta(a+1, x), NaN unless a is a whole number >= 0. At a pole of Gamma
    # zeta(a+1, x) is +inf for an even a+1 and NaN for an odd one (SciPy: inf for both).
    dtype = x.dtype
    a, x = a.astype(np.float64), x.astype(np.float64)  # in float64, cast back at the end
    out = (-1.0) ** (a + 1) * special.gamma(a + 1) * special.zeta(a + 1, x)
    out = np.where(a == 0, _digamma_kernel(x), out)
    out = np.where(_poles(x) & (a != 0), np.where(a % 2 == 1, np.inf, np.nan), out)
    whole = (a >= 0) & (a == np.floor(a))
    return np.where(whole, out, np.nan).astype(dtype, copy=False)


def _xlogy_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # 0 wherever x is 0, even where y is NaN (TF's rule; SciPy gives NaN there).
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log(y))


def _xlog1py_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log1p(y))


def _xdivy_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == 0, np.zeros((), x.dtype), x / y)


def _bessel_i1e_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    # TF's rule: d/dx i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 where x is 0. TF's
    # CPU kernels treat subnormal float32/float64 inputs as 0, so its 1/2 covers them too
    # (1/x would overflow there): below the smallest normal number, as here. The discarded
    # branch is NaN there, so the second derivative is NaN, as in TF.
    slope = bessel_i0e(x) - ans * (sign(x) + reciprocal(x))
    tiny = float(np.finfo(x.dtype.as_numpy_dtype).tiny)
    return g * where(less(abs_(x), tiny), zeros_like(x) + 0.5, slope)


_lgamma = Primitive("Lgamma", _lgamma_kernel, shape_rule=same_as_input, elementwise=True,
                    batch_safe=True).defvjp(lambda g, ans, x: g * digamma(x))
_digamma = Primitive("Digamma", _digamma_kernel, shape_rule=same_as_input, elementwise=True,
                     batch_safe=True).defvjp(
    lambda g, ans, x: g * polygamma(ones_like(x), x))
_polygamma = Primitive("Polygamma", _polygamma_kernel, shape_rule=_broadcasting("Polygamma"),
                       elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, a, x: (None, g * polygamma(a + 1, x)))
_erfc = Primitive("Erfc", _scipy("erfc"), shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(
    lambda g, ans, x: g * (-_TWO_OVER_SQRT_PI) * exp(-(x * x)))
def _times(g: Tensor, partial: Tensor) -> Tensor:
    """TF's g * partial for the x*-family, whose rules do not conjugate the partial; in the
    tape's holomorphic form (cotangents conjugated) that is g * conj(partial)."""
    return g * (conj(partial) if partial.dtype.is_complex else partial)


def _nonzero(x: Tensor) -> Tensor:
    return cast(not_equal(x, zeros_like(x)), x.dtype)


_xlogy = Primitive("Xlogy", _xlogy_kernel, shape_rule=_broadcasting("Xlogy"), elementwise=True,
                   batch_safe=True).defvjp(
    lambda g, ans, x, y: (_times(g, xlogy(_nonzero(x), y)), _times(g, xdivy(x, y))))
_xlog1py = Primitive("Xlog1py", _xlog1py_kernel, shape_rule=_broadcasting("Xlog1py"),
                     elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x, y: (_times(g, xlog1py(_nonzero(x), y)), _times(g, xdivy(x, y + 1))))
_xdivy = Primitive("Xdivy", _xdivy_kernel, shape_rule=_broadcasting("Xdivy"), elementwise=True,
                   batch_safe=True).defvjp(  # xdivy(-x, y^2): +0 where x is 0, as TF
    lambda g, ans, x, y: (_times(g, xdivy(_nonzero(x), y)),
                          _times(g, xdivy(negative(x), y * y))))
_bessel_i0e = Primitive("BesselI0e", _scipy("i0e"), shape_rule=same_as_input, elementwise=True,
                        batch_safe=True).defvjp(
    lambda g, ans, x: g * (bessel_i1e(x) - sign(x) * ans))
_bessel_i1e = Primitive("BesselI1e", _scipy("i1e"), shape_rule=same_as_input, elementwise=True,
                        batch_safe=True).defvjp(_bessel_i1e_vjp)


def _unary(prim: Primitive, doc: str):
    def op(x: Any, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(x)
        require(x, "f", prim.name)
        return bind(prim, (x,))
    op.__doc__ = doc
    op.__name__ = prim.name.lower()
    return op


def _binary(prim: Primitive, doc: str, allowed: str = "fc"):
    def op(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        x, y = binary_operands(x, y, prim.name)
        require(x, allowed, prim.name)
        return bind(prim, (x, y))
    op.__doc__ = doc
    return op


@tf_export("math.polygamma")
def polygamma(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The a-th derivative of digamma at x (a a whole number, given as a float of x's dtype;
    NaN elsewhere; no gradient for a). float32 and float64 only, as in TF."""
    a, x = binary_operands(a, x, "Polygamma")
    if a._value.dtype not in (np.float32, np.float64):
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(a.dtype)} is not in the list "
                                   f"of allowed values: float, double [Op:Polygamma]")
    return bind(_polygamma, (a, x))


lgamma = tf_export("math.lgamma")(
    _unary(_lgamma, "log |Gamma(x)| elementwise; its derivative is digamma."))
digamma = tf_export("math.digamma")(
    _unary(_digamma, "The derivative of lgamma: Gamma'(x) / Gamma(x)."))
erfc = tf_export("math.erfc")(
    _unary(_erfc, "The complementary error function 1 - erf(x), accurate for large x."))
bessel_i0e = tf_export("math.bessel_i0e")(_unary(
    _bessel_i0e, "exp(-|x|) I0(x), the scaled modified Bessel function of order 0."))
bessel_i1e = tf_export("math.bessel_i1e")(_unary(
    _bessel_i1e, "exp(-|x|) I1(x), the scaled modified Bessel function of order 1."))
xlogy = tf_export("math.xlogy")(
    _binary(_xlogy, "x * log(y), and 0 where x is 0 (even where y is 0)."))
xlog1py = tf_export("math.xlog1py")(_binary(_xlog1py, "x * log1p(y), and 0 where x is 0."))
xdivy = tf_export("math.xdivy")(_binary(_xdivy, "x / y, and 0 where x is 0."))

# TensorFlow exports these in tf.math only.
