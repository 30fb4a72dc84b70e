"""Special functions: lgamma, digamma, polygamma, erfc, xlogy, xlog1py, xdivy and the scaled
modified Bessel functions, with their rules. SciPy is imported inside the kernels only, so
`import tapeflow` stays fast."""

from __future__ import annotations

import math
import types
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import ShapedArray, dims_text, same_as_input, shape_error
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.convert import cpp_name, enum_name
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.exports import populate as _populate
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import binary_operands, convert_to_tensor, require
from tapeflow.ops.math_ops import (_broadcasting, abs as abs_, cast, conj, cos, equal, exp, less,
                                   log, negative, not_equal, ones_like, reciprocal, sign, sin,
                                   where, zeros_like)
from tapeflow.ops.nn_ops import softsign as _nn_softsign

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


# -- inverse error functions, Bessel functions, incomplete gamma and beta, zeta ----------------

# The Bessel J, Y and K functions have TF CPU kernels for half too (not for bfloat16).
_HALF_KERNELS = {"BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0", "BesselK0e",
                 "BesselK1", "BesselK1e"}


def _half_refused(x: Tensor, op_name: str) -> None:
    """TF declares half and bfloat16 for these ops but registers CPU kernels for float and
    double only (and half, for `_HALF_KERNELS`)."""
    dtype = x._value.dtype
    if dtype.itemsize == 2 and (dtype.kind == "V" or
                                dtype.kind == "f" and op_name not in _HALF_KERNELS):
        if op_name in ("Betainc", "Zeta"):  # these declare float and double only
            raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x.dtype)} is not in "
                                       f"the list of allowed values: float, double "
                                       f"[Op:{op_name}]")
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(x.dtype)}] [Op:{op_name}]")


def _igamma_kernel(name: str):
    def kernel(a: np.ndarray, x: np.ndarray) -> np.ndarray:
        from scipy import special
        out = getattr(special, name)(a, x)
        # NaN for a <= 0, as TF (SciPy gives P(0, x) = 1).
        return np.where(a > 0, out, np.nan).astype(x.dtype, copy=False)
    return kernel


def _igamma_partial_x(a: Tensor, x: Tensor) -> Tensor:
    # TF's rule, in log space because Gamma(a) grows large.
    return exp(negative(x) + (a - 1) * log(x) - lgamma(a))


def _igamma_vjp_a(g: Tensor, ans: Tensor, a: Tensor, x: Tensor) -> Tensor:
    # TF differentiates in a with its IgammaGradA kernel, which tapeflow does not have:
    # refuse rather than give a gradient that is not TF's.
    raise UnimplementedError("tapeflow cannot differentiate tf.math.igamma/igammac with "
                             "respect to a (TF's IgammaGradA); only with respect to x")


def _betainc_rule(a: ShapedArray, b: ShapedArray, x: ShapedArray) -> ShapedArray:
    # TF's Betainc does not broadcast: the operands have one shape, or are scalars.
    shapes = [v.shape for v in (a, b, x) if v.shape is None or len(v.shape)]
    shape = shapes[0] if shapes else ()
    for other in shapes[1:]:
        if shape is None or other is None:
            shape = shape if other is None else other
        elif len(other) != len(shape) or any(
                p is not None and q is not None and p != q for p, q in zip(shape, other)):
            raise shape_error("Betainc", (a, b, x), "Shapes of a, b, and x must be equal or "
                              "scalars")
        else:
            shape = tuple(p if p is not None else q for p, q in zip(shape, other))
    return ShapedArray(shape, x.dtype)


def _betainc_kernel(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    from scipy import special
    for name, v in (("b", b), ("x", x)):
        if a.ndim and v.ndim and a.shape != v.shape:
            raise InvalidArgumentError(f"Shapes of a and {name} are inconsistent: "
                                       f"{dims_text(a.shape)} vs. {dims_text(v.shape)} "
                                       f"[Op:Betainc]")
    out = special.betainc(a, b, x)
    # NaN unless a > 0 and b > 0, as TF (SciPy gives I_x(0, b) = 1).
    return np.where((a > 0) & (b > 0), out, np.nan).astype(x.dtype, copy=False)


def _betainc_vjp_x(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, x: Tensor) -> Tensor:
    # TF's rule: xlog1py and xlogy make the tails 0 where a or b is 1.
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    return g * exp(xlog1py(b - 1, negative(x)) + xlogy(a - 1, x) - log_beta)


def _zeta_kernel(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    from scipy import special
    return special.zeta(x, q).astype(x.dtype, copy=False)


_erfinv = Primitive("Erfinv", _scipy("erfinv"), shape_rule=same_as_input, elementwise=True,
                    batch_safe=True).defvjp(
    lambda g, ans, x: g * (math.sqrt(math.pi) / 2) * exp(ans * ans))
_ndtri = Primitive("Ndtri", _scipy("ndtri"), shape_rule=same_as_input, elementwise=True,
                   batch_safe=True).defvjp(
    lambda g, ans, x: g * math.sqrt(2 * math.pi) * exp(ans * ans / 2))
_bessel_i0 = Primitive("BesselI0", _scipy("i0"), shape_rule=same_as_input, elementwise=True,
                       batch_safe=True).defvjp(lambda g, ans, x: g * bessel_i1(x))
# TF's rule imputes 1 at x = 0 (where I1'(0) is 1/2): tapeflow gives TF's number.
_bessel_i1 = Primitive("BesselI1", _scipy("i1"), shape_rule=same_as_input, elementwise=True,
                       batch_safe=True).defvjp(
    lambda g, ans, x: g * where(equal(x, zeros_like(x)), ones_like(x),
                                bessel_i0(x) - ans / x))
def _igamma_jvp(sign: float):
    def jvp(tangents: list, ans: Tensor, a: Tensor, x: Tensor) -> Optional[Tensor]:
        if tangents[0] is not None:
            _igamma_vjp_a(tangents[0], ans, a, x)  # raises
        return None if tangents[1] is None else tangents[1] * sign * _igamma_partial_x(a, x)
    return jvp


_igamma = Primitive("Igamma", _igamma_kernel("gammainc"), shape_rule=_broadcasting("Igamma"),
                    batch_safe=True).defvjp(
    _igamma_vjp_a, lambda g, ans, a, x: g * _igamma_partial_x(a, x)).defjvp(_igamma_jvp(1.0))
_igammac = Primitive("Igammac", _igamma_kernel("gammaincc"),
                     shape_rule=_broadcasting("Igammac"), batch_safe=True).defvjp(
    _igamma_vjp_a, lambda g, ans, a, x: negative(g) * _igamma_partial_x(a, x)).defjvp(
    _igamma_jvp(-1.0))
_betainc = Primitive("Betainc", _betainc_kernel, shape_rule=_betainc_rule, elementwise=True,
                     batch_safe=True).defvjp(
    lambda g, ans, a, b, x: None, lambda g, ans, a, b, x: None, _betainc_vjp_x)
_zeta = Primitive("Zeta", _zeta_kernel, shape_rule=_broadcasting("Zeta"), elementwise=True,
                  batch_safe=True).defvjp(
    lambda g, ans, x, q: None, lambda g, ans, x, q: g * negative(x) * zeta(x + 1, q))


def _float_unary(prim: Primitive, doc: str, name: str):
    def op(x: Any, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(x)
        require(x, "f", prim.name)
        _half_refused(x, prim.name)
        return bind(prim, (x,))
    op.__doc__ = doc
    op.__name__ = name
    return op


erfinv = tf_export("math.erfinv")(_float_unary(
    _erfinv, "The inverse of erf: erfinv(erf(x)) = x on (-1, 1); +-inf at +-1, NaN beyond.",
    "erfinv"))
ndtri = tf_export("math.ndtri")(_float_unary(
    _ndtri, "The inverse of the standard normal CDF (the probit function) on (0, 1).",
    "ndtri"))
bessel_i0 = tf_export("math.bessel_i0", "math.special.bessel_i0")(_unary(
    _bessel_i0, "I0(x), the modified Bessel function of the first kind of order 0."))
bessel_i1 = tf_export("math.bessel_i1", "math.special.bessel_i1")(_unary(
    _bessel_i1, "I1(x), the modified Bessel function of the first kind of order 1."))
tf_export("math.special.bessel_i0e")(bessel_i0e)
tf_export("math.special.bessel_i1e")(bessel_i1e)


@tf_export("math.erfcinv")
def erfcinv(x: Any, name: Optional[str] = None) -> Tensor:
    """The inverse of erfc on (0, 2), as TF computes it: -ndtri(x / 2) / sqrt(2)."""
    x = convert_to_tensor(x)
    return negative(ndtri(x * 0.5)) * math.sqrt(0.5)


@tf_export("math.lbeta")
def lbeta(x: Any, name: Optional[str] = None) -> Tensor:
    """log |B(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (-inf for an empty
    last axis), as TF computes it."""
    from tapeflow.ops.reduce_ops import reduce_sum
    x = convert_to_tensor(x)
    return reduce_sum(lgamma(x), axis=[-1]) - lgamma(reduce_sum(x, axis=[-1]))


def _float_binary(prim: Primitive, doc: str, name: str):
    def op(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
        a, x = binary_operands(a, x, prim.name)
        require(a, "f", prim.name)
        _half_refused(a, prim.name)
        return bind(prim, (a, x))
    op.__doc__ = doc
    op.__name__ = name
    return op


igamma = tf_export("math.igamma")(_float_binary(
    _igamma, "The regularized lower incomplete gamma function P(a, x) (NaN for a <= 0 or "
    "x < 0); differentiable in x.", "igamma"))
igammac = tf_export("math.igammac")(_float_binary(
    _igammac, "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x); "
    "differentiable in x.", "igammac"))
zeta = tf_export("math.zeta")(_float_binary(
    _zeta, "The Hurwitz zeta function sum_n (n + q) ** -x; differentiable in q.", "zeta"))


@tf_export("math.betainc")
def betainc(a: Any, b: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The regularized incomplete beta function I_x(a, b) (operands of one shape, or scalars;
    NaN for x outside [0, 1]); differentiable in x."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype)
    x = convert_to_tensor(x, dtype=a.dtype)
    require(a, "f", "Betainc")
    _half_refused(a, "Betainc")
    return bind(_betainc, (a, b, x))


# -- tf.math.special ---------------------------------------------------------------------------

def _spence_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    partial = log(x) / (1 - x)
    return g * where(equal(x, ones_like(x)), negative(ones_like(x)), partial)


def _special(tf_name: str, scipy_name: str, vjp: Any, below: Optional[float] = None,
             at_zero: Optional[float] = None, at_inf: Optional[float] = None) -> Primitive:
    """A SciPy function as TF's (Cephes') kernel, which gives `below` for x < 0, `at_zero`
    at 0 and `at_inf` at +inf where those are given (SciPy differs there)."""
    scipy_kernel = _scipy(scipy_name)

    def kernel(x: np.ndarray) -> np.ndarray:
        out = scipy_kernel(x)
        if below is not None:
            out = np.where(x < 0, np.asarray(below, out.dtype), out)
        if at_zero is not None:
            out = np.where(x == 0, np.asarray(at_zero, out.dtype), out)
        if at_inf is not None:
            out = np.where(x == np.inf, np.asarray(at_inf, out.dtype), out)
        return out
    return Primitive(tf_name, kernel, shape_rule=same_as_input, elementwise=True,
                     batch_safe=True).defvjp(vjp)


def _fresnel_kernel(which: int):
    def kernel(x: np.ndarray) -> np.ndarray:
        from scipy import special
        return special.fresnel(x)[which].astype(x.dtype, copy=False)
    return kernel


def _spence_kernel(x: np.ndarray) -> np.ndarray:
    from scipy import special
    # TF's (Cephes') spence(x) is SciPy's spence(x) (the dilogarithm Li2(1 - x)).
    return special.spence(x).astype(x.dtype, copy=False)


_dawsn = _special("Dawsn", "dawsn", lambda g, ans, x: g * (1 - 2 * x * ans))
_expint = _special("Expint", "expi", lambda g, ans, x: g * exp(x) / x, below=np.nan,
                   at_inf=np.nan)
_fresnel_cos = Primitive("FresnelCos", _fresnel_kernel(1), shape_rule=same_as_input,
                         elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x: g * cos((math.pi / 2) * x * x))
_fresnel_sin = Primitive("FresnelSin", _fresnel_kernel(0), shape_rule=same_as_input,
                         elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x: g * sin((math.pi / 2) * x * x))
_spence = Primitive("Spence", _spence_kernel, shape_rule=same_as_input, elementwise=True,
                    batch_safe=True).defvjp(_spence_vjp)
_bessel_j0 = _special("BesselJ0", "j0", lambda g, ans, x: g * negative(bessel_j1(x)))
_bessel_j1 = _special("BesselJ1", "j1", lambda g, ans, x: g * where(
    equal(x, zeros_like(x)), zeros_like(x) + 0.5, bessel_j0(x) - ans / x))
_bessel_y0 = _special("BesselY0", "y0", lambda g, ans, x: g * negative(bessel_y1(x)),
                      below=-np.inf)
_bessel_y1 = _special("BesselY1", "y1", lambda g, ans, x: g * (bessel_y0(x) - ans / x),
                      below=-np.inf, at_zero=np.nan)
_bessel_k0 = _special("BesselK0", "k0", lambda g, ans, x: g * negative(bessel_k1(x)),
                      below=np.inf)
_bessel_k0e = _special("BesselK0e", "k0e", lambda g, ans, x: g * (ans - bessel_k1e(x)),
                       below=np.inf)
_bessel_k1 = _special("BesselK1", "k1",
                      lambda g, ans, x: g * (negative(bessel_k0(x)) - ans / x), below=np.inf)
_bessel_k1e = _special("BesselK1e", "k1e",
                       lambda g, ans, x: g * (ans * (1 - reciprocal(x)) - bessel_k0e(x)),
                       below=np.inf)

_SPECIAL_DOCS = {
    "dawsn": (_dawsn, "Dawson's integral exp(-x^2) * integral_0^x exp(t^2) dt."),
    "expint": (_expint, "The exponential integral Ei(x) (NaN below 0)."),
    "fresnel_cos": (_fresnel_cos, "The Fresnel cosine integral C(x)."),
    "fresnel_sin": (_fresnel_sin, "The Fresnel sine integral S(x)."),
    "spence": (_spence, "Spence's function (the dilogarithm Li2(1 - x)); NaN below 0."),
    "bessel_j0": (_bessel_j0, "J0(x), the Bessel function of the first kind of order 0."),
    "bessel_j1": (_bessel_j1, "J1(x), the Bessel function of the first kind of order 1."),
    "bessel_y0": (_bessel_y0, "Y0(x), the Bessel function of the second kind of order 0."),
    "bessel_y1": (_bessel_y1, "Y1(x), the Bessel function of the second kind of order 1."),
    "bessel_k0": (_bessel_k0, "K0(x), the modified Bessel function of the second kind, "
                              "order 0."),
    "bessel_k0e": (_bessel_k0e, "exp(x) K0(x), the scaled K0."),
    "bessel_k1": (_bessel_k1, "K1(x), the modified Bessel function of the second kind, "
                              "order 1."),
    "bessel_k1e": (_bessel_k1e, "exp(x) K1(x), the scaled K1."),
}
for _name, (_prim, _doc) in _SPECIAL_DOCS.items():
    globals()[_name] = tf_export(f"math.special.{_name}")(_float_unary(_prim, _doc, _name))
dawsn, expint, fresnel_cos, fresnel_sin, spence = (
    globals()[n] for n in ("dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"))
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (
    globals()[n] for n in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"))
bessel_k0, bessel_k0e, bessel_k1, bessel_k1e = (
    globals()[n] for n in ("bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e"))

# tf.math.special: a module of its own, filled from the declarations above.
special = types.ModuleType("tapeflow.math.special",
                           "`tf.math.special`: Bessel functions, Dawson's, Fresnel and "
                           "exponential integrals, Spence's function.")
_populate(vars(special), "math.special")
tf_export("math.special")(special)

# softsign is tf.nn's op; TF exports it in tf.math too.
tf_export("math.softsign")(_nn_softsign)
