"""Special functions: lgamma, digamma, polygamma, erfc, xlogy, xlog1py, xdivy and the scaled
modified Bessel functions, with their rules. SciPy is imported inside the kernels only, so
`import tapeflow` stays fast."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import binary_operands, convert_to_tensor, require
from tapeflow.ops.math_ops import (cast, equal, exp, not_equal, ones_like, reciprocal, sign,
                                   where, zeros_like)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _scipy(name: str):
    """A SciPy special function whose result keeps the input's dtype."""
    def kernel(*arrays: np.ndarray) -> np.ndarray:
        from scipy import special
        return getattr(special, name)(*arrays).astype(arrays[-1].dtype, copy=False)
    return kernel


def _polygamma_kernel(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    from scipy import special
    out = special.polygamma(a.astype(np.int64), x) if np.all(a == np.round(a)) \
        else np.full(np.broadcast_shapes(a.shape, x.shape), np.nan)
    return np.asarray(out).astype(x.dtype, copy=False)


def _xlogy_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy import special
    return special.xlogy(x, y).astype(x.dtype, copy=False)


def _xlog1py_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy import special
    return special.xlog1py(x, y).astype(x.dtype, copy=False)


def _xdivy_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == 0, np.zeros((), x.dtype), x / y).astype(x.dtype, copy=False)


def _bessel_i1e_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    # d/dx i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x); at x = 0 the limit is 1/2.
    zero = equal(x, zeros_like(x))
    safe_x = where(zero, ones_like(x), x)
    slope = bessel_i0e(x) - ans * (sign(x) + reciprocal(safe_x))
    return g * where(zero, ones_like(x) * 0.5, slope)


_lgamma = Primitive("Lgamma", _scipy("gammaln")).defvjp(lambda g, ans, x: g * digamma(x))
_digamma = Primitive("Digamma", _scipy("digamma")).defvjp(
    lambda g, ans, x: g * polygamma(ones_like(x), x))
_polygamma = Primitive("Polygamma", _polygamma_kernel).defvjp(
    lambda g, ans, a, x: (None, g * polygamma(a + 1, x)))
_erfc = Primitive("Erfc", _scipy("erfc")).defvjp(
    lambda g, ans, x: g * (-_TWO_OVER_SQRT_PI) * exp(-(x * x)))
_xlogy = Primitive("Xlogy", _xlogy_kernel).defvjp(
    lambda g, ans, x, y: (g * xlogy(cast(not_equal(x, zeros_like(x)), x.dtype), y),
                          g * xdivy(x, y)))
_xlog1py = Primitive("Xlog1py", _xlog1py_kernel).defvjp(
    lambda g, ans, x, y: (g * xlog1py(cast(not_equal(x, zeros_like(x)), x.dtype), y),
                          g * xdivy(x, y + 1)))
_xdivy = Primitive("Xdivy", _xdivy_kernel).defvjp(
    lambda g, ans, x, y: (g * xdivy(cast(not_equal(x, zeros_like(x)), x.dtype), y),
                          -g * xdivy(x, y * y)))
_bessel_i0e = Primitive("BesselI0e", _scipy("i0e")).defvjp(
    lambda g, ans, x: g * (bessel_i1e(x) - sign(x) * ans))
_bessel_i1e = Primitive("BesselI1e", _scipy("i1e")).defvjp(_bessel_i1e_vjp)


def _unary(prim: Primitive, doc: str):
    def op(x: Any, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(x)
        require(x, "f", prim.name)
        return bind(prim, (x,))
    op.__doc__ = doc
    op.__name__ = prim.name.lower()
    return op


def _binary(prim: Primitive, doc: str):
    def op(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        x, y = binary_operands(x, y, prim.name)
        require(x, "f", prim.name)
        return bind(prim, (x, y))
    op.__doc__ = doc
    return op


lgamma = _unary(_lgamma, "log |Gamma(x)| elementwise; its derivative is digamma.")
digamma = _unary(_digamma, "The derivative of lgamma: Gamma'(x) / Gamma(x).")
erfc = _unary(_erfc, "The complementary error function 1 - erf(x), accurate for large x.")
bessel_i0e = _unary(_bessel_i0e, "exp(-|x|) I0(x), the scaled modified Bessel function of "
                                 "order 0.")
bessel_i1e = _unary(_bessel_i1e, "exp(-|x|) I1(x), the scaled modified Bessel function of "
                                 "order 1.")
polygamma = _binary(_polygamma, "The a-th derivative of digamma at x (a a whole number, given "
                                "as a float of x's dtype; no gradient for a).")
xlogy = _binary(_xlogy, "x * log(y), and 0 where x is 0 (even where y is 0).")
xlog1py = _binary(_xlog1py, "x * log1p(y), and 0 where x is 0.")
xdivy = _binary(_xdivy, "x / y, and 0 where x is 0.")

# TensorFlow exports these in tf.math only.
__all__: list = []
