"""tnp's elementwise math, comparisons, reductions and linear algebra, as TF's `np_math_ops`.

The dtype rules are TF's: binary ops promote their operands together as NumPy; unary
transcendental ops compute integers in float64 (`np.result_type(float)`); sums of small
integers accumulate in int64, means of integers in float64.
"""

from __future__ import annotations

import builtins
import math as _pymath
from typing import Any, Callable, Optional

import numpy as np

import tapeflow as tf
from tapeflow.experimental.numpy import _dtypes
from tapeflow.experimental.numpy._arrays import (
    _axis, _dims, _maybe_promote_to_int, _np_dtype, array, asarray, atleast_1d, diagonal,
    full_like, moveaxis, promote, ravel, where, zeros)
from tapeflow.framework.tensor import TensorLike

_FLOAT_KINDS = "fc"


def _float_of(a: tf.Tensor) -> tf.Tensor:
    # Integers and bools computed as the default float (float64), as TF's `_scalar`.
    if a._value.dtype.kind in _FLOAT_KINDS or a._value.dtype.name == "bfloat16":
        return a
    return tf.cast(a, _dtypes.result_numpy_type(float))


def _unary(tf_fn: Callable, name: str, to_float: bool = False, doc: str = "") -> Callable:
    def fn(x: Any) -> tf.Tensor:
        x = asarray(x)
        return tf_fn(_float_of(x) if to_float else x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"`tnp.{name}`, elementwise."
    return fn


def _binary(tf_fn: Callable, name: str, doc: str = "") -> Callable:
    def fn(x1: Any, x2: Any) -> tf.Tensor:
        return tf_fn(*promote(x1, x2))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"`tnp.{name}`, elementwise over the promoted, broadcast operands."
    return fn


def _bool_or(bool_fn: Callable, fn: Callable) -> Callable:
    return lambda a, b: bool_fn(a, b) if a.dtype == tf.bool else fn(a, b)


def _bools_as_int8(fn: Callable) -> Callable:
    def op(a, b):
        if a.dtype == tf.bool:
            a, b = tf.cast(a, tf.int8), tf.cast(b, tf.int8)
        return fn(a, b)
    return op


# --- arithmetic --------------------------------------------------------------------------

add = _binary(_bool_or(tf.math.logical_or, tf.math.add), "add")
subtract = _binary(tf.math.subtract, "subtract")
multiply = _binary(_bool_or(tf.math.logical_and, tf.math.multiply), "multiply")
floor_divide = _binary(_bools_as_int8(tf.math.floordiv), "floor_divide")
mod = _binary(_bools_as_int8(tf.math.floormod), "mod")
remainder = mod
minimum = _binary(_bool_or(tf.math.logical_and, tf.math.minimum), "minimum")
maximum = _binary(_bool_or(tf.math.logical_or, tf.math.maximum), "maximum")
power = _binary(tf.math.pow, "power")
arctan2 = _binary(tf.math.atan2, "arctan2")


def _true_divide(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    if a.dtype == tf.bool:
        a, b = _float_of(a), _float_of(b)
    return tf.math.truediv(a, b)


true_divide = _binary(_true_divide, "true_divide",
                      "`tnp.true_divide`: integers divide as TF's truediv (int32/int64 in "
                      "float64).")
divide = true_divide


def divmod(x1: Any, x2: Any) -> tuple:  # noqa: A001 - NumPy's name
    """`tnp.divmod`: `(floor_divide(x1, x2), mod(x1, x2))`."""
    return floor_divide(x1, x2), mod(x1, x2)


def float_power(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.float_power`: as TF's, `power` (integers stay integers, float32 stays float32)."""
    return power(x1, x2)


def clip(a: Any, a_min: Any, a_max: Any) -> tf.Tensor:
    """`tnp.clip`: `a` limited to [a_min, a_max] (one bound may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = promote(a, a_min, a_max)
    shp = np.broadcast_shapes(*(tuple(t.shape.as_list()) for t in (a, a_min, a_max)))
    return tf.clip_by_value(tf.broadcast_to(a, shp), a_min, a_max)


def heaviside(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.heaviside`: 0 below zero, 1 above, `x2` at zero (float64 for integers)."""
    x1, x2 = promote(x1, x2)
    y = tf.where(x1 < 0, tf.zeros_like(x2), tf.where(x1 > 0, tf.ones_like(x2), x2))
    return _float_of(y)


def hypot(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.hypot`: sqrt(x1**2 + x2**2)."""
    return sqrt(add(square(x1), square(x2)))


def logaddexp(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.logaddexp`: log(exp(x1) + exp(x2)), computed stably."""
    x1, x2 = promote(x1, x2)
    x1, x2 = _float_of(x1), _float_of(x2)
    amax, delta = tf.maximum(x1, x2), x1 - x2
    return tf.where(tf.math.is_nan(delta), x1 + x2, amax + tf.math.log1p(tf.exp(-tf.abs(delta))))


def logaddexp2(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.logaddexp2`: log2(2**x1 + 2**x2), computed stably."""
    x1, x2 = promote(x1, x2)
    x1, x2 = _float_of(x1), _float_of(x2)
    amax, delta = tf.maximum(x1, x2), x1 - x2
    two = tf.constant(2, x1.dtype)
    return tf.where(tf.math.is_nan(delta), x1 + x2,
                    amax + tf.math.log1p(two ** -tf.abs(delta)) / np.log(2))


def nextafter(x1: Any, x2: Any) -> tf.Tensor:
    """`tnp.nextafter`: the next representable float after x1 towards x2 (no gradient)."""
    x1, x2 = promote(x1, x2)
    return tf.numpy_function(lambda a, b: np.nextafter(a, b), [x1, x2], x1.dtype,
                             stateful=False)


def _gcd(x1: tf.Tensor, x2: tf.Tensor) -> tf.Tensor:
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise ValueError("Arguments to gcd must be integers.")
    return tf.numpy_function(lambda a, b: np.gcd(a, b).astype(a.dtype), [x1, x2], x1.dtype,
                             stateful=False)


gcd = _binary(_gcd, "gcd", "`tnp.gcd`: the greatest common divisor of integers.")


def _lcm(x1: tf.Tensor, x2: tf.Tensor) -> tf.Tensor:
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise ValueError("Arguments to lcm must be integers.")
    return tf.numpy_function(lambda a, b: np.lcm(a, b).astype(a.dtype), [x1, x2], x1.dtype,
                             stateful=False)


lcm = _binary(_lcm, "lcm", "`tnp.lcm`: the least common multiple of integers.")


def _bitwise(tf_fn: Callable, name: str) -> Callable:
    def op(a, b):
        if a.dtype == tf.bool:
            return tf.cast(tf_fn(tf.cast(a, tf.int8), tf.cast(b, tf.int8)), tf.bool)
        return tf_fn(a, b)
    return _binary(op, name)


bitwise_and = _bitwise(tf.bitwise.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(tf.bitwise.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(tf.bitwise.bitwise_xor, "bitwise_xor")
bitwise_not = _unary(
    lambda x: tf.math.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x),
    "bitwise_not")


# --- unary -------------------------------------------------------------------------------

log = _unary(tf.math.log, "log", True)
exp = _unary(tf.math.exp, "exp", True)
sqrt = _unary(tf.math.sqrt, "sqrt", True)
abs = _unary(tf.math.abs, "abs")  # noqa: A001 - NumPy's name
absolute = fabs = abs
ceil = _unary(tf.math.ceil, "ceil", True)
floor = _unary(tf.math.floor, "floor", True)
conj = conjugate = _unary(tf.math.conj, "conj")
negative = _unary(tf.math.negative, "negative")
reciprocal = _unary(tf.math.reciprocal, "reciprocal")
sin = _unary(tf.math.sin, "sin", True)
cos = _unary(tf.math.cos, "cos", True)
tan = _unary(tf.math.tan, "tan", True)
sinh = _unary(tf.math.sinh, "sinh", True)
cosh = _unary(tf.math.cosh, "cosh", True)
tanh = _unary(tf.math.tanh, "tanh", True)
arcsin = _unary(tf.math.asin, "arcsin", True)
arccos = _unary(tf.math.acos, "arccos", True)
arctan = _unary(tf.math.atan, "arctan", True)
arcsinh = _unary(tf.math.asinh, "arcsinh", True)
arccosh = _unary(tf.math.acosh, "arccosh", True)
arctanh = _unary(tf.math.atanh, "arctanh", True)
expm1 = _unary(tf.math.expm1, "expm1", True)
log1p = _unary(tf.math.log1p, "log1p", True)
square = _unary(tf.math.square, "square")
positive = _unary(lambda x: x, "positive")
isnan = _unary(tf.math.is_nan, "isnan", True)
isfinite = _unary(tf.math.is_finite, "isfinite", True)
deg2rad = _unary(lambda x: x * (np.pi / 180.0), "deg2rad", True)
exp2 = _unary(lambda x: tf.constant(2, x.dtype) ** x, "exp2", True)
fix = _unary(lambda x: tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x)), "fix", True)
signbit = _unary(lambda x: tf.zeros_like(x, tf.bool) if x.dtype == tf.bool else x < 0, "signbit")


def _cbrt(x: tf.Tensor) -> tf.Tensor:
    rt = tf.abs(x) ** tf.constant(1.0 / 3, x.dtype)
    return tf.where(x < 0, -rt, rt)


cbrt = _unary(_cbrt, "cbrt", True)


def _sinc(x: tf.Tensor) -> tf.Tensor:
    pi_x = x * np.pi
    safe = tf.where(x == 0, tf.ones_like(x), pi_x)  # no 0/0 in the gradient at 0
    return tf.where(x == 0, tf.ones_like(x), tf.sin(safe) / safe)


sinc = _unary(_sinc, "sinc", True)


def rad2deg(x: Any) -> Any:
    """`tnp.rad2deg`: `x * (180 / pi)` with `*`'s rules, as TF's (a Python float stays one)."""
    return x * (180.0 / np.pi)


def log2(x: Any) -> tf.Tensor:
    """`tnp.log2`."""
    return log(x) / np.log(2)


def log10(x: Any) -> tf.Tensor:
    """`tnp.log10`."""
    return log(x) / np.log(10)


def sign(x: Any, out: Any = None, where: Any = None, **kwargs: Any) -> tf.Tensor:
    """`tnp.sign` (NumPy 2's definition: x / |x| for complex)."""
    if out:
        raise ValueError("tf.numpy doesnt support setting out.")
    if where:
        raise ValueError("tf.numpy doesnt support setting where.")
    if kwargs:
        raise ValueError(f"tf.numpy doesnt support setting {kwargs.keys()}")
    return tf.sign(asarray(x))


def real(val: Any) -> tf.Tensor:
    """`tnp.real`."""
    return tf.math.real(asarray(val))


def imag(val: Any) -> tf.Tensor:
    """`tnp.imag`."""
    return tf.math.imag(asarray(val))


def angle(z: Any, deg: bool = False) -> tf.Tensor:
    """`tnp.angle`: the argument of complex values (0 or pi for reals)."""
    z = _float_of(asarray(z))
    if z._value.dtype.kind == "c":
        y = tf.math.atan2(tf.math.imag(z), tf.math.real(z))
    else:  # TF's where(x < 0, np.pi, 0): float32 whatever the input's float type
        y = tf.where(z < 0, tf.constant(np.pi, tf.float32), tf.constant(0.0, tf.float32))
    return rad2deg(y) if deg else y


def iscomplex(x: Any) -> tf.Tensor:
    """`tnp.iscomplex`: elementwise nonzero imaginary part."""
    return imag(x) != 0


def isreal(x: Any) -> tf.Tensor:
    """`tnp.isreal`: elementwise zero imaginary part."""
    return imag(x) == 0


def iscomplexobj(x: Any) -> bool:
    """`tnp.iscomplexobj`: whether the dtype is complex."""
    return array(x)._value.dtype.kind == "c"


def isrealobj(x: Any) -> bool:
    """`tnp.isrealobj`."""
    return not iscomplexobj(x)


def isinf(x: Any) -> Any:
    """`tnp.isinf` (False for a non-float tensor, as TF's)."""
    x = asarray(x)
    return tf.math.is_inf(x) if x.dtype.is_floating else False


def isneginf(x: Any) -> Any:
    """`tnp.isneginf`."""
    x = asarray(x)
    return x == full_like(x, -np.inf) if x.dtype.is_floating else False


def isposinf(x: Any) -> Any:
    """`tnp.isposinf`."""
    x = asarray(x)
    return x == full_like(x, np.inf) if x.dtype.is_floating else False


def around(a: Any, decimals: int = 0) -> tf.Tensor:
    """`tnp.around`: rounded half to even at `decimals`, in `a`'s dtype."""
    a = asarray(a)
    dtype = a._value.dtype
    work = _float_of(a)
    factor = tf.constant(_pymath.pow(10, decimals), work.dtype)
    return tf.cast(tf.round(work * factor) / factor, dtype)


round = around  # noqa: A001 - NumPy's name


# --- comparisons and logic ---------------------------------------------------------------

def _comparison(tf_fn: Callable, name: str, bool_as_int: bool = False) -> Callable:
    def fn(x1: Any, x2: Any) -> tf.Tensor:
        x1, x2 = promote(x1, x2)
        if bool_as_int and x1.dtype == tf.bool:
            x1, x2 = tf.cast(x1, tf.int32), tf.cast(x2, tf.int32)
        return tf_fn(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`tnp.{name}`: elementwise, over the promoted operands."
    return fn


equal = _comparison(tf.math.equal, "equal")
not_equal = _comparison(tf.math.not_equal, "not_equal")
greater = _comparison(tf.math.greater, "greater", True)
greater_equal = _comparison(tf.math.greater_equal, "greater_equal", True)
less = _comparison(tf.math.less, "less", True)
less_equal = _comparison(tf.math.less_equal, "less_equal", True)


def array_equal(a1: Any, a2: Any) -> tf.Tensor:
    """`tnp.array_equal`: True when the shapes match and every element is equal."""
    a1, a2 = promote(a1, a2)
    if a1.shape.as_list() != a2.shape.as_list():
        return tf.constant(False)
    return tf.reduce_all(tf.equal(a1, a2))


def _logical(tf_fn: Callable, name: str) -> Callable:
    def fn(x1: Any, x2: Any) -> tf.Tensor:
        return tf_fn(asarray(x1, np.bool_), asarray(x2, np.bool_))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`tnp.{name}`: elementwise on the operands as bools."
    return fn


logical_and = _logical(tf.math.logical_and, "logical_and")
logical_or = _logical(tf.math.logical_or, "logical_or")
logical_xor = _logical(tf.math.logical_xor, "logical_xor")


def logical_not(x: Any) -> tf.Tensor:
    """`tnp.logical_not`."""
    return tf.math.logical_not(asarray(x, np.bool_))


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> tf.Tensor:
    """`tnp.isclose`: |a - b| <= atol + rtol * |b| elementwise (equality for integers)."""
    a, b = promote(a, b)
    if a._value.dtype.kind not in _FLOAT_KINDS:
        return tf.equal(a, b)
    real_dtype = a.dtype.real_dtype
    tolerance = tf.constant(atol, real_dtype) + tf.constant(rtol, real_dtype) * tf.abs(b)
    result = tf.abs(a - b) <= tolerance
    if equal_nan:
        result = result | (tf.math.is_nan(a) & tf.math.is_nan(b))
    return result


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> tf.Tensor:
    """`tnp.allclose`: `isclose` everywhere (a bool tensor)."""
    return tf.reduce_all(isclose(a, b, rtol, atol, equal_nan))


# --- reductions --------------------------------------------------------------------------

_TO_INT, _TO_FLOAT = 0, 1


def _reduction_int(np_type: np.dtype) -> np.dtype:
    # NumPy sums bools and narrow integers in its `int_` (`uint` for unsigned).
    if np_type.kind == "b" or (np_type.kind == "i" and np_type.itemsize < 8):
        return np.dtype(np.int64)
    if np_type.kind == "u" and np_type.itemsize < 8:
        return np.dtype(np.uint64)
    return np_type


def _reduce(tf_fn: Callable, a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None,
            promote_int: Optional[int] = _TO_INT, tf_bool_fn: Optional[Callable] = None,
            preserve_bool: bool = False) -> tf.Tensor:
    dtype = _np_dtype(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype)
    if tf_bool_fn is not None and (dtype == np.bool_ or
                                   (preserve_bool and a.dtype == tf.bool)):
        return tf_bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None and a._value.dtype.kind in "iub":
        if promote_int == _TO_INT:
            a = tf.cast(a, _reduction_int(a._value.dtype))
        elif promote_int == _TO_FLOAT:
            a = _float_of(a)
    if isinstance(axis, TensorLike) and axis.dtype not in (tf.int32, tf.int64):
        axis = tf.cast(axis, tf.int64)
    return tf_fn(a, axis=axis, keepdims=keepdims)


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> tf.Tensor:  # noqa: A001
    """`tnp.sum`: small integers and bools accumulate in int64."""
    return _reduce(tf.reduce_sum, a, axis, dtype, keepdims, tf_bool_fn=tf.reduce_any)


def prod(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.prod`."""
    return _reduce(tf.reduce_prod, a, axis, dtype, keepdims, tf_bool_fn=tf.reduce_all)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: Any = None) -> tf.Tensor:
    """`tnp.mean`: integers averaged in float64."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_mean, a, axis, dtype, keepdims, promote_int=_TO_FLOAT)


def amax(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.amax` (`tnp.max`)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_max, a, axis, None, keepdims, None, tf.reduce_any, True)


def amin(a: Any, axis: Any = None, out: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.amin` (`tnp.min`)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_min, a, axis, None, keepdims, None, tf.reduce_all, True)


def max(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:  # noqa: A001
    """`tnp.max`."""
    return amax(a, axis=axis, keepdims=keepdims)


def min(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:  # noqa: A001
    """`tnp.min`."""
    return amin(a, axis=axis, keepdims=keepdims)


def _variance_fn(ddof: int) -> Callable:
    def fn(x: tf.Tensor, axis: Any, keepdims: bool) -> tf.Tensor:
        centered = x - tf.reduce_mean(x, axis=axis, keepdims=True)
        sq = tf.math.real(centered * tf.math.conj(centered)) if x.dtype.is_complex else \
            tf.square(centered)
        total = tf.reduce_sum(sq, axis=axis, keepdims=keepdims)
        axes = range(x.shape.rank) if axis is None else np.atleast_1d(axis)
        n = int(np.prod([x.shape[int(i)] for i in axes]))
        return total / tf.constant(n - ddof, total.dtype)
    return fn


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: Any = None) -> tf.Tensor:
    """`tnp.var`: the variance (`ddof` delta degrees of freedom); integers in float64."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    working = _dtypes.result_numpy_type(a, dtype) if dtype else None
    result = _reduce(_variance_fn(ddof) if ddof else tf.math.reduce_variance, a, axis,
                     working, keepdims, promote_int=_TO_FLOAT)
    return tf.cast(result, _np_dtype(dtype)) if dtype else result


def std(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.std`: the standard deviation; integers in float64."""
    return _reduce(tf.math.reduce_std, a, axis, None, keepdims, promote_int=_TO_FLOAT)


def ptp(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.ptp`: max - min."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def all(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:  # noqa: A001
    """`tnp.all`."""
    return tf.reduce_all(asarray(a, np.bool_), axis=axis, keepdims=bool(keepdims))


def any(a: Any, axis: Any = None, keepdims: Any = None) -> tf.Tensor:  # noqa: A001
    """`tnp.any`."""
    return tf.reduce_any(asarray(a, np.bool_), axis=axis, keepdims=bool(keepdims))


def count_nonzero(a: Any, axis: Any = None) -> tf.Tensor:
    """`tnp.count_nonzero`: an int64 count."""
    return tf.math.count_nonzero(asarray(a), axis)


def _nan_reduction(name: str, reduction: Callable, init: float) -> Callable:
    def fn(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> tf.Tensor:
        a = array(a)
        v = array(init, dtype=a._value.dtype)
        return reduction(where(isnan(a), v, a), axis=axis, dtype=dtype, keepdims=keepdims)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`tnp.{name}`: NaNs count as {init}."
    return fn


nansum = _nan_reduction("nansum", sum, 0)
nanprod = _nan_reduction("nanprod", prod, 1)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: Any = None) -> tf.Tensor:
    """`tnp.nanmean`: the mean of the non-NaN elements."""
    a = array(a)
    if a._value.dtype.kind in "iub":
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    dtype = dtype or a._value.dtype
    count = sum(logical_not(isnan(a)), axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / count


def average(a: Any, axis: Optional[int] = None, weights: Any = None,
            returned: bool = False) -> Any:
    """`tnp.average`: the (weighted) mean; with `returned`, also the sum of weights."""
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis} (of type "
                         f"{type(axis)})")
    a = array(a)
    float_type = _dtypes.result_numpy_type(float)
    if weights is None:
        if a._value.dtype.kind not in _FLOAT_KINDS:
            a = tf.cast(a, _dtypes.result_numpy_type(a.dtype, float_type))
        avg = tf.reduce_mean(a, axis=axis)
        n = int(np.prod(a.shape.as_list())) if axis is None else a.shape[axis]
        weights_sum = tf.constant(n, a.dtype)
    else:
        kinds = () if a._value.dtype.kind in _FLOAT_KINDS else (float_type,)
        out_dtype = _dtypes.result_numpy_type(a.dtype, weights, *kinds)
        a, weights = array(a, out_dtype), array(weights, out_dtype)
        if axis is None or a.shape.rank == weights.shape.rank:
            if a.shape.as_list() != weights.shape.as_list():
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            weights_sum = tf.reduce_sum(weights, axis=axis)
            avg = tf.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            weights_sum = tf.reduce_sum(weights)
            avg = tf.tensordot(a, weights, [[axis], [0]]) / weights_sum
    if returned:
        return avg, tf.broadcast_to(weights_sum, _dims(avg))
    return avg


def cumsum(a: Any, axis: Optional[int] = None, dtype: Any = None) -> tf.Tensor:
    """`tnp.cumsum` (over the flattened array when `axis` is None)."""
    return _cumulative(tf.math.cumsum, a, axis, dtype)


def cumprod(a: Any, axis: Optional[int] = None, dtype: Any = None) -> tf.Tensor:
    """`tnp.cumprod` (over the flattened array when `axis` is None)."""
    return _cumulative(tf.math.cumprod, a, axis, dtype)


def _cumulative(tf_fn: Callable, a: Any, axis: Optional[int], dtype: Any) -> tf.Tensor:
    a = asarray(a, dtype)
    if dtype is None:
        a = _maybe_promote_to_int(a)
    if axis is None:
        a, axis = ravel(a), 0
    return tf_fn(a, axis=_axis(axis, a.shape.rank))


def diff(a: Any, n: int = 1, axis: int = -1) -> tf.Tensor:
    """`tnp.diff`: the n-th discrete difference along `axis` (`!=` for bools)."""
    a = asarray(a)
    nd = a.shape.rank
    if (axis + nd if axis < 0 else axis) >= nd:
        raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds for input "
                         f"{a} of rank {nd}.")
    if n < 0:
        raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
    hi, lo = [slice(None)] * nd, [slice(None)] * nd
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    op = tf.math.not_equal if a.dtype == tf.bool else tf.math.subtract
    for _ in range(n):
        a = op(a[tuple(hi)], a[tuple(lo)])
    return a


def argmax(a: Any, axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.argmax`: int64 (over the flattened array when `axis` is None)."""
    a = asarray(a)
    return tf.argmax(ravel(a) if axis is None else atleast_1d(a), axis=axis or 0)


def argmin(a: Any, axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.argmin`: int64 (over the flattened array when `axis` is None)."""
    a = asarray(a)
    return tf.argmin(ravel(a) if axis is None else atleast_1d(a), axis=axis or 0)


def sort(a: Any, axis: Optional[int] = -1, kind: str = "quicksort", order: Any = None) -> tf.Tensor:
    """`tnp.sort`: ascending along `axis` (the flattened array when None)."""
    if kind != "quicksort":
        raise ValueError("Invalid value for argument `kind`. Only kind=\"quicksort\" is "
                         f"supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    return tf.sort(ravel(a), 0) if axis is None else tf.sort(a, axis)


def argsort(a: Any, axis: Optional[int] = -1, kind: str = "quicksort",
            order: Any = None) -> tf.Tensor:
    """`tnp.argsort`: int64 indices that sort `a` along `axis`."""
    if kind not in ("quicksort", "stable"):
        raise ValueError("Invalid value for argument `kind`. Only kind=\"quicksort\" and "
                         f"kind=\"stable\" are supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received "
                        f"dtype: {a.dtype}")
    if a.shape.rank == 0:
        return tf.constant([0], tf.int64)
    if axis is None:
        a, axis = ravel(a), 0
    return tf.cast(tf.argsort(a, axis, stable=kind == "stable"), tf.int64)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> tf.Tensor:
    """`tnp.trace`: the sum along a diagonal."""
    return sum(diagonal(asarray(a, dtype), offset, axis1, axis2), -1, dtype)


def polyval(p: Any, x: Any) -> tf.Tensor:
    """`tnp.polyval`: the polynomial with coefficients `p` (highest first) at `x`."""
    p, x = promote(p, x)
    if p.shape.rank == 0:
        p = tf.reshape(p, [1])
    coeffs = tf.unstack(p)
    y = tf.math.polyval(coeffs, x)
    return tf.broadcast_to(y, _dims(x)) if len(coeffs) == 1 else y


# --- products and linear algebra ---------------------------------------------------------

def _matmul(x1: tf.Tensor, x2: tf.Tensor) -> tf.Tensor:
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (a scalar).")
    if x2.shape.rank == 1:
        return tf.tensordot(x1, x2, axes=1)
    if x1.shape.rank == 1:
        return tf.tensordot(x1, x2, axes=[[0], [-2]])
    try:
        return tf.matmul(x1, x2)
    except tf.errors.InvalidArgumentError as err:
        raise ValueError(str(err)) from None


matmul = _binary(_matmul, "matmul", "`tnp.matmul`: matrix product (vectors as NumPy's).")


def dot(a: Any, b: Any) -> tf.Tensor:
    """`tnp.dot`: products of scalars, inner products of vectors, else sum over a's last
    and b's second-to-last axis."""
    a, b = promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    if b.shape.rank == 1:
        return tf.tensordot(a, b, [[-1], [-1]])
    return tf.tensordot(a, b, [[-1], [-2]])


def tensordot(a: Any, b: Any, axes: Any = 2) -> tf.Tensor:
    """`tnp.tensordot`."""
    a, b = promote(a, b)
    return tf.tensordot(a, b, axes)


def inner(a: Any, b: Any) -> tf.Tensor:
    """`tnp.inner`: the sum over the last axes (a product with a scalar)."""
    a, b = promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return tf.tensordot(a, b, [[-1], [-1]])


def vdot(a: Any, b: Any) -> tf.Tensor:
    """`tnp.vdot`: the dot product of the flattened arrays, `a` conjugated."""
    a, b = promote(a, b)
    a = ravel(a)
    if a.dtype.is_complex:
        a = tf.math.conj(a)
    return tf.tensordot(a, ravel(b), 1)


def outer(a: Any, b: Any) -> tf.Tensor:
    """`tnp.outer`: the outer product of the flattened arrays."""
    a, b = promote(a, b)
    return tf.reshape(a, [-1, 1]) * tf.reshape(b, [-1])


def kron(a: Any, b: Any) -> tf.Tensor:
    """`tnp.kron`: the Kronecker product."""
    a, b = promote(a, b)
    r = builtins.max(a.shape.rank, b.shape.rank)
    sa = [1] * (r - a.shape.rank) + a.shape.as_list()
    sb = [1] * (r - b.shape.rank) + b.shape.as_list()
    a = tf.reshape(a, [d for s in sa for d in (s, 1)])
    b = tf.reshape(b, [d for s in sb for d in (1, s)])
    return tf.reshape(a * b, [x * y for x, y in zip(sa, sb)])


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.cross`: the cross product of 3-vectors (2-vectors have z = 0)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote(a, b)
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    da, db = a.shape[-1], b.shape[-1]
    if da not in (2, 3) or db not in (2, 3):
        raise ValueError(f"Dimension must be either 2 or 3 for cross product; got {da} and "
                         f"{db}.")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    if da == 2 and db == 2:
        return a0 * b1 - a1 * b0
    a2 = a[..., 2] if da == 3 else tf.zeros_like(a0)
    b2 = b[..., 2] if db == 3 else tf.zeros_like(b0)
    c = tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


def einsum(subscripts: str, *operands: Any, **kwargs: Any) -> tf.Tensor:
    """`tnp.einsum`: the operands promoted together (`casting`/`optimize` accepted)."""
    casting = kwargs.pop("casting", "safe")
    kwargs.pop("optimize", None)
    if casting != "safe" or kwargs:
        raise ValueError(f"Unsupported einsum arguments: casting={casting}, {kwargs}")
    if not isinstance(subscripts, str):
        raise TypeError("Operand interleaving (subscripts as lists) is not supported.")
    return tf.einsum(subscripts, *promote(*operands))


# --- ranges ------------------------------------------------------------------------------

def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = float, axis: int = 0) -> Any:
    """`tnp.linspace`: `num` evenly spaced values (dtype from the bounds, as TF's with
    NumPy 2: float64, or float32 under `prefer_float32`)."""
    if dtype:
        dtype = _dtypes.result_numpy_type(start * 1.0, stop * 1.0)
    start, stop = array(start, dtype=dtype), array(stop, dtype=dtype)
    if num < 0:
        raise ValueError("Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    step = tf.constant(np.nan)
    if endpoint:
        result = tf.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = tf.cast(stop, step.dtype) - step
            result = tf.linspace(tf.cast(start, new_stop.dtype), new_stop, num, axis=axis)
        else:
            result = tf.linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.kind in "iu":
            result = tf.floor(result)
        result = tf.cast(result, dtype)
    return (result, step) if retstep else result


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0,
             dtype: Any = None, axis: int = 0) -> tf.Tensor:
    """`tnp.logspace`: `base` to the powers `linspace(start, stop, num)`."""
    dtype = _dtypes.result_numpy_type(start * 1.0, stop * 1.0)
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return tf.cast(tf.math.pow(tf.cast(base, result.dtype), result), dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> tf.Tensor:
    """`tnp.geomspace`: `num` values evenly spaced on a log scale."""
    dtype = _np_dtype(dtype) if dtype else _dtypes.result_numpy_type(
        start, stop, float(num), zeros((), dtype))
    work = np.promote_types(dtype, np.float32)
    start, stop = asarray(start, dtype=work), asarray(stop, dtype=work)
    start_sign = 1 - tf.sign(tf.math.real(start))
    stop_sign = 1 - tf.sign(tf.math.real(stop))
    signflip = 1 - start_sign * stop_sign // 2
    res = signflip * logspace(log10(signflip * start), log10(signflip * stop), num,
                              endpoint=endpoint, base=10.0, dtype=work, axis=0)
    if axis != 0:
        res = moveaxis(res, 0, axis)
    return tf.cast(res, dtype)
