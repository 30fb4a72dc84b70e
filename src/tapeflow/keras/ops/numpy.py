"""`keras.ops.numpy`: Keras 3's NumPy-like ops, all 220 names of Keras 3.15.

Each follows what Keras's TensorFlow backend does (keras/src/backend/tensorflow/numpy.py):
inputs convert as its `convert_to_tensor` (`_dtypes.convert`), dtypes promote with Keras's own
`result_type` (JAX-like, `_dtypes`), and the computation is the same composition of TF ops,
here tapeflow's, so numbers, dtypes and shapes agree and results differentiate and trace.

Where Keras 3.15's TensorFlow backend is wrong, these follow NumPy instead: `rot90` with an
even `k` on a non-square plane and `unravel_index` of indices not of rank 1 (Keras scrambles
them), and `nanquantile`/`nanpercentile`/`nanmedian` of integers (Keras's raises).
"""

from __future__ import annotations

import builtins
import collections
import functools
import math
import operator
import re
from typing import Any, Callable, Optional

import numpy as np

import tapeflow as tf
from tapeflow.keras.backend import floatx
from tapeflow.keras.layers.layer import KerasTensor
from tapeflow.keras.ops import _dtypes
from tapeflow.keras.ops._dtypes import convert, is_python_scalar, result_type
from tapeflow.keras.ops._node import keras_op
from tapeflow.keras.utils import standardize_dtype

# The public names below shadow Python's sum, max, min, abs, round, any and all in this
# module: helpers call them as builtins.sum etc.
_SMALL_INTS = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32")
_FLOATS = ("bfloat16", "float16", "float32", "float64")


# --- helpers -------------------------------------------------------------------------------

def _name(x: Any) -> str:
    return standardize_dtype(x.dtype)


def _canonical_axis(axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array with dimension {ndim}.")
    return axis + ndim if axis < 0 else axis


def _tuple_or_list(value: Any) -> Any:
    if value is None:
        return value
    if not isinstance(value, (int, tuple, list)):
        raise ValueError(f"`value` must be an integer, tuple or list. Received: value={value}")
    return (value,) if isinstance(value, int) else value


def _rank(x: Any) -> int:
    return x.shape.rank


def _shape(x: Any) -> list:
    """The static shape, with dynamic dims as scalar tensors (Keras's `shape_op`)."""
    dims = x.shape.as_list()
    if None in dims:
        dynamic = tf.shape(x)
        return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]
    return dims


def _weak_pair(x1: Any, x2: Any, extra: Any = None) -> tuple:
    # Keras's pattern for add/maximum/where/...: Python int/float stay weak.
    x1, x2 = _dtypes.convert_and_promote(x1, x2, dtype=extra)
    return x1, x2, _name(x1)


def _strict_pair(x1: Any, x2: Any, *extra: Any) -> tuple:
    # Keras's pattern for equal/bitwise/...: both converted first (scalars strong).
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, *extra)
    return tf.cast(x1, dtype), tf.cast(x2, dtype), dtype


def _float_of(x: Any) -> Any:
    """`x` cast as Keras's float-valued unary ops do: int64 to floatx, the rest by
    `result_type(dtype, float)` (ints and bool to floatx, floats unchanged)."""
    x = convert(x)
    dtype = floatx() if _name(x) == "int64" else result_type(x.dtype, float)
    return tf.cast(x, dtype)


def _floatx_unless_float(x: Any) -> Any:
    # exp/expm1/std: ints and bool (int64 included) become floatx.
    x = convert(x)
    name = _name(x)
    if "int" in name or name == "bool":
        x = tf.cast(x, floatx())
    return x


def _wide_float(dtype: str, bool_too: bool = False) -> str:
    # deg2rad/heaviside/hypot: small ints (bool too for deg2rad) -> floatx, int64 -> float64.
    if dtype in _SMALL_INTS[1:] or (bool_too and dtype == "bool"):
        return floatx()
    return "float64" if dtype == "int64" else dtype


def _sum_dtype(dtype: str) -> str:
    # Keras's accumulation dtype for sum/prod/trace of small ints and bool.
    if dtype in ("bool", "int8", "int16"):
        return "int32"
    return "uint32" if dtype in ("uint8", "uint16") else dtype


def _is_float(x: Any) -> bool:
    return x.dtype.is_floating


def _not_numeric(x: Any) -> bool:
    return x.dtype.is_integer or x.dtype == tf.bool or x.dtype == tf.string


def _unary(fn: Callable) -> Callable:
    return lambda x: fn(_float_of(x))


# --- elementwise arithmetic -------------------------------------------------------------------

def _add(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.add(x1, x2)


def _subtract(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.subtract(x1, x2)


def _multiply(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.multiply(x1, x2)


def _divide(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2, float)
    return tf.divide(x1, x2)


def _divide_no_nan(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2, float)
    return tf.math.divide_no_nan(x1, x2)


def _floor_divide(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.math.floordiv(x1, x2)


def _maximum(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.maximum(x1, x2)


def _minimum(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.minimum(x1, x2)


def _nan_aware(pick: Callable) -> Callable:
    # fmax/fmin: a NaN loses to a number.
    def fn(x1: Any, x2: Any) -> Any:
        x1, x2, dtype = _weak_pair(x1, x2)
        res = pick(x1, x2)
        if "float" not in dtype:
            return res
        nan1, nan2 = tf.math.is_nan(x1), tf.math.is_nan(x2)
        res = tf.where(tf.logical_and(nan1, tf.logical_not(nan2)), x2, res)
        return tf.where(tf.logical_and(nan2, tf.logical_not(nan1)), x1, res)
    return fn


def _power(x1: Any, x2: Any) -> Any:
    x1 = x1 if is_python_scalar(x1) else convert(x1)
    x2 = x2 if is_python_scalar(x2) else convert(x2)
    dtype = result_type(_dtypes.operand_dtype(x1), _dtypes.operand_dtype(x2))
    if "uint" in dtype:
        return tf.cast(tf.pow(convert(x1, "int32"), convert(x2, "int32")), dtype)
    return tf.pow(convert(x1, dtype), convert(x2, dtype))


def _mod(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    return tf.math.mod(tf.cast(x1, dtype), tf.cast(x2, dtype))


def _fmod(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = "int32" if dtype in ("uint8", "uint16", "uint32") else dtype
    x1, x2 = tf.cast(x1, compute), tf.cast(x2, compute)
    return tf.cast(tf.sign(x1) * tf.math.floormod(tf.abs(x1), tf.abs(x2)), dtype)


def _arctan2(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _strict_pair(x1, x2, float)
    return tf.math.atan2(x1, x2)


def _hypot(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = _wide_float(result_type(x1.dtype, x2.dtype))
    a1, a2 = tf.abs(tf.cast(x1, dtype)), tf.abs(tf.cast(x2, dtype))
    big, small = tf.maximum(a1, a2), tf.minimum(a1, a2)
    return big * tf.sqrt(1.0 + tf.square(tf.math.divide_no_nan(small, big)))


def _heaviside(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = _wide_float(result_type(x1.dtype, x2.dtype))
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    return tf.where(x1 < 0, tf.zeros_like(x1), tf.where(x1 > 0, tf.ones_like(x1), x2))


def _logaddexp(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _strict_pair(x1, x2, float)
    delta = x1 - x2
    return tf.where(tf.math.is_nan(delta), x1 + x2,
                    tf.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.abs(delta))))


def _logaddexp2(x1: Any, x2: Any) -> Any:
    x1, x2, dtype = _strict_pair(x1, x2, float)
    delta = x1 - x2
    ln2 = tf.cast(tf.math.log(2.0), dtype)
    return tf.where(tf.math.is_nan(delta), x1 + x2,
                    tf.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.abs(delta) * ln2)) / ln2)


def _nextafter(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    out = tf.math.nextafter(tf.cast(x1, "float64"), tf.cast(x2, "float64"))
    return tf.cast(out, dtype)


def _ldexp(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    if _name(x2) not in _dtypes.INT_TYPES:
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2 dtype={x2.dtype}")
    x1 = tf.cast(x1, dtype)
    x2 = tf.cast(x2, dtype)
    result = x1 * tf.pow(tf.constant(2.0, dtype=dtype), x2)
    return tf.cast(tf.where(tf.math.is_inf(x1) | (x1 == 0), x1, result), dtype)


def _gcd(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    if not x1.dtype.is_integer:
        raise TypeError("Arguments to gcd must be integers.")
    x1, x2 = x1 + tf.zeros_like(x2), x2 + tf.zeros_like(x1)  # broadcast (exact for ints)
    if "uint" not in dtype:
        x1, x2 = tf.abs(x1), tf.abs(x2)

    def body(a: Any, b: Any) -> tuple:
        b_safe = tf.where(tf.equal(b, 0), tf.ones_like(b), b)
        return (tf.where(tf.not_equal(b, 0), b, a),
                tf.where(tf.not_equal(b, 0), tf.math.floormod(a, b_safe), tf.zeros_like(b)))

    out, _ = tf.while_loop(lambda a, b: tf.reduce_any(b != 0), body, [x1, x2])
    return out


def _lcm(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise TypeError("Arguments to lcm must be integers. "
                        f"Received: x1.dtype={x1.dtype.name}, x2.dtype={x2.dtype.name}")
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    if "uint" not in dtype:
        x1, x2 = tf.abs(x1), tf.abs(x2)
    divisor = _gcd(x1, x2)
    safe = tf.where(divisor == 0, tf.ones_like(divisor), divisor)
    result = x1 * (x2 // safe)
    return tf.where(divisor == 0, tf.zeros_like(result), result)


# --- elementwise unary ------------------------------------------------------------------------

def _absolute(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    return x if "uint" in name or name == "bool" else tf.abs(x)


def _fabs(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    if "complex" in name:
        raise TypeError(f"fabs does not support complex inputs. Received: x.dtype={x.dtype}")
    if "int" in name or name == "bool":
        x = tf.cast(x, floatx())
    return tf.abs(x)


def _negative(x: Any) -> Any:
    return tf.negative(convert(x))


def _square(x: Any) -> Any:
    x = convert(x)
    if _name(x) == "bool":
        x = tf.cast(x, "int32")
    return tf.square(x)


def _exp(x: Any) -> Any:
    return tf.exp(_floatx_unless_float(x))


def _expm1(x: Any) -> Any:
    return tf.math.expm1(_floatx_unless_float(x))


def _exp2(x: Any) -> Any:
    x = _floatx_unless_float(x)
    return tf.math.pow(tf.constant(2.0, x.dtype), x)


def _log10(x: Any) -> Any:
    x = _float_of(x)
    return tf.math.log(x) / tf.math.log(tf.constant(10, x.dtype))


def _log2(x: Any) -> Any:
    x = _float_of(x)
    return tf.math.log(x) / tf.math.log(tf.constant(2, x.dtype))


def _cbrt(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    if name == "int64":
        x = tf.cast(x, "float64")
    elif name not in ("bfloat16", "float16", "float64"):
        x = tf.cast(x, floatx())
    return tf.sign(x) * tf.pow(tf.abs(x), tf.constant(1.0 / 3.0, x.dtype))


def _angle(x: Any) -> Any:
    return tf.math.angle(_float_of(x))


def _degrees(factor: Callable) -> Callable:
    def fn(x: Any) -> Any:
        x = convert(x)
        dtype = _wide_float(_name(x), bool_too=True)
        x = tf.cast(x, dtype)
        return x * factor(tf.constant(math.pi, dtype), tf.constant(180.0, dtype))
    return fn


def _i0(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    dtype = "float64" if name in ("int64", "float64") else (
        name if name in ("bfloat16", "float16") else floatx())
    return tf.math.bessel_i0(tf.cast(x, dtype))


def _sinc(x: Any) -> Any:
    x = _float_of(x)
    pi_x = x * tf.constant(np.pi, x.dtype)
    return tf.where(tf.equal(x, 0), tf.ones_like(x), tf.math.sin(pi_x) / pi_x)


def _sign(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    if name in ("uint8", "uint16", "uint32"):
        return tf.cast(tf.sign(tf.cast(x, "int32")), name)
    return tf.sign(x)


def _signbit(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    if name == "bool":
        return tf.fill(tf.shape(x), False)
    if "int" in name:
        return x < 0
    bits = tf.bitcast(tf.cast(x, "float32"), tf.int32)
    return tf.less(tf.bitwise.bitwise_and(bits, tf.constant(np.iinfo(np.int32).min, tf.int32)),
                   0)


def _trunc(x: Any) -> Any:
    x = convert(x)
    name = _name(x)
    if name == "bool" or "int" in name:
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def _round(x: Any, decimals: int = 0) -> Any:
    if decimals == 0:
        return tf.round(x)
    x_dtype = tf.as_dtype(x.dtype)  # Keras reads it unconverted: an int input comes back as is
    if x_dtype.is_integer:
        if decimals > 0:
            return x
        factor = tf.cast(math.pow(10, decimals), floatx())
        x = tf.cast(x, floatx())
    else:
        factor = tf.cast(math.pow(10, decimals), x.dtype)
    return tf.cast(tf.divide(tf.round(tf.multiply(x, factor)), factor), x_dtype)


def _reciprocal(x: Any) -> Any:
    return tf.math.reciprocal(convert(x))


def _real(x: Any) -> Any:
    return tf.math.real(convert(x))


def _imag(x: Any) -> Any:
    return tf.math.imag(convert(x))


def _conj(x: Any) -> Any:
    return tf.math.conj(convert(x))


def _copy(x: Any) -> Any:
    return tf.identity(convert(x))


def _nan_to_num(x: Any, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    x = convert(x)
    if _not_numeric(x):
        return x
    posinf = x.dtype.max if posinf is None else posinf
    neginf = x.dtype.min if neginf is None else neginf
    x = tf.where(tf.math.is_nan(x), tf.constant(nan, x.dtype), x)
    x = tf.where(tf.math.is_inf(x) & (x > 0), tf.constant(posinf, x.dtype), x)
    return tf.where(tf.math.is_inf(x) & (x < 0), tf.constant(neginf, x.dtype), x)


# --- comparisons and logic --------------------------------------------------------------------

def _compare(fn: Callable) -> Callable:
    def compare(x1: Any, x2: Any) -> Any:
        x1, x2, _ = _strict_pair(x1, x2)
        return fn(x1, x2)
    return compare


def _logical(fn: Callable) -> Callable:
    return lambda x1, x2: fn(tf.cast(x1, "bool"), tf.cast(x2, "bool"))


def _logical_not(x: Any) -> Any:
    return tf.logical_not(tf.cast(x, "bool"))


def _bitwise(fn: Callable) -> Callable:
    def bitwise(x: Any, y: Any) -> Any:
        x, y, _ = _strict_pair(x, y)
        return fn(x, y)
    return bitwise


def _shift(fn: Callable) -> Callable:
    def shift(x: Any, y: Any) -> Any:
        x = convert(x)
        if not isinstance(y, int):
            x, y, _ = _strict_pair(x, y)
        else:
            y = tf.constant(y, x.dtype)
        return fn(x, y)
    return shift


def _bitwise_invert(x: Any) -> Any:
    return tf.bitwise.invert(convert(x))


def _is_value(fn: Callable, missing: bool) -> Callable:
    # isnan/isinf/isfinite: integer (and bool) inputs are never NaN/inf, always finite.
    def check(x: Any) -> Any:
        x = convert(x)
        if _not_numeric(x):
            return tf.fill(tf.shape(x), missing)
        return fn(x)
    return check


def _isneginf(x: Any) -> Any:
    return tf.math.equal(x, tf.constant(-np.inf, x.dtype))


def _isposinf(x: Any) -> Any:
    return tf.math.equal(x, tf.constant(np.inf, x.dtype))


def _isreal(x: Any) -> Any:
    x = convert(x)
    if x.dtype.is_complex:
        return tf.equal(tf.math.imag(x), 0)
    return tf.ones_like(x, dtype=tf.bool)


def _isclose(x1: Any, x2: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Any:
    x1, x2, dtype = _strict_pair(x1, x2)
    if "float" not in dtype:
        return tf.equal(x1, x2)
    result = tf.abs(x1 - x2) <= (atol + rtol * tf.abs(x2))
    if equal_nan:
        result = result | (tf.math.is_nan(x1) & tf.math.is_nan(x2))
    return result


def _allclose(x1: Any, x2: Any, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False) -> Any:
    x1, x2, dtype = _strict_pair(x1, x2)
    if "float" not in dtype:
        return tf.reduce_all(tf.equal(x1, x2))
    finite = tf.math.is_finite(x1) & tf.math.is_finite(x2)
    close = tf.abs(x1 - x2) <= (atol + rtol * tf.abs(x2))
    result = (finite & close) | tf.equal(x1, x2)
    if equal_nan:
        result = result | (tf.math.is_nan(x1) & tf.math.is_nan(x2))
    return tf.reduce_all(result)


def _isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    x1, x2, _ = _strict_pair(x1, x2)
    out_shape = tf.shape(x1)
    x1, x2 = tf.reshape(x1, [-1]), tf.reshape(x2, [-1])
    cmp = tf.equal(tf.expand_dims(x1, 1), tf.expand_dims(x2, 0))
    found = tf.reduce_any(cmp, axis=1)
    if invert:
        found = tf.logical_not(found)
    return tf.reshape(found, out_shape)


# --- reductions --------------------------------------------------------------------------------

def _sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    return tf.reduce_sum(tf.cast(x, _sum_dtype(_name(x))), axis=axis, keepdims=keepdims)


def _prod(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    x = convert(x)
    if dtype is None:
        x = tf.cast(x, _sum_dtype(result_type(x.dtype)))
    return tf.reduce_prod(x, axis=axis, keepdims=keepdims)


def _mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    name = _name(x)
    compute = result_type(x.dtype, "float32")
    out_dtype = compute if "int" in name or name == "bool" else name
    out = tf.reduce_mean(tf.cast(x, compute), axis=axis, keepdims=keepdims)
    return tf.cast(out, out_dtype)


def _var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    compute, out_dtype = result_type(x.dtype, "float32"), result_type(x.dtype, float)
    out = tf.math.reduce_variance(tf.cast(x, compute), axis=axis, keepdims=keepdims)
    return tf.cast(out, out_dtype)


def _std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return tf.math.reduce_std(_floatx_unless_float(x), axis=axis, keepdims=keepdims)


def _assert_not_empty(x: Any, what: str) -> None:
    if tf.executing_eagerly():
        size = tf.size(x)
        tf.debugging.assert_greater(size, tf.constant(0, size.dtype),
                                    message=f"Cannot compute the {what} of an empty tensor.")


def _extremum(reduce: Callable, bool_reduce: Callable, pick: Callable, what: str) -> Callable:
    def extremum(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
        x = convert(x)
        is_bool = _name(x) == "bool"
        if initial is not None:
            if is_bool:
                x = bool_reduce(x, axis=axis, keepdims=keepdims)
                return tf.cast(pick(tf.cast(x, "int32"), tf.cast(initial, "int32")), "bool")
            x = reduce(x, axis=axis, keepdims=keepdims)
            return pick(x, tf.cast(initial, x.dtype))
        _assert_not_empty(x, what)
        return (bool_reduce if is_bool else reduce)(x, axis=axis, keepdims=keepdims)
    return extremum


_max = _extremum(tf.reduce_max, tf.reduce_any, tf.math.maximum, "max")
_min = _extremum(tf.reduce_min, tf.reduce_all, tf.math.minimum, "min")


def _amax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _max(x, axis=axis, keepdims=keepdims)


def _amin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _min(x, axis=axis, keepdims=keepdims)


def _all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return tf.reduce_all(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


def _any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return tf.reduce_any(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


def _ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    return tf.reduce_max(x, axis=axis, keepdims=keepdims) - tf.reduce_min(
        x, axis=axis, keepdims=keepdims)


def _count_nonzero(x: Any, axis: Any = None) -> Any:
    return tf.math.count_nonzero(convert(x), axis=axis, dtype="int32")


def _keepdims_shape(x: Any, y: Any, axis: Any) -> Any:
    if axis is None:
        shape = [1] * _rank(x)
    else:
        shape = list(_shape(x))
        for a in tf.nest.flatten(axis):
            shape[a] = 1
    return tf.reshape(y, shape)


def _check_one_axis(axis: Any, is_max: bool) -> None:
    # tf.argmax/argmin take one int axis; Keras passes others on and TF refuses them:
    # argmax's Python wrapper with TypeError, argmin's kernel with InvalidArgumentError.
    if axis is None or isinstance(axis, (int, np.integer, tf.Tensor)) and not isinstance(
            axis, bool):
        return
    if is_max:
        raise TypeError("axis must be int or Tensor with integer datatype")
    raise tf.errors.InvalidArgumentError(
        None, None, f"dim must be a scalar, but received tensor of shape: [{len(axis)}]"
        if isinstance(axis, (list, tuple)) else "Value for attr 'Tidx' is not in the list of "
        "allowed values: int32, int64")


def _arg_extremum(fn: Callable) -> Callable:
    def arg(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        x = convert(x)
        _check_one_axis(axis, fn is tf.argmax)
        if "float" in _name(x) and _rank(x) != 0:
            # -0.0 sorts below +0.0, as NumPy's.
            x = tf.cast(x, result_type(x.dtype, "float32"))
            negative_zero = tf.logical_and(tf.equal(x, 0.0), _signbit(x))
            x = tf.where(negative_zero, tf.constant(-np.finfo(_name(x)).tiny, x.dtype), x)
        flat = tf.reshape(x, [-1]) if axis is None else x
        y = fn(flat, axis=axis, output_type="int32")
        return _keepdims_shape(x, y, axis) if keepdims else y
    return arg


_argmax = _arg_extremum(tf.argmax)
_argmin = _arg_extremum(tf.argmin)


def _nanargmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _nan_arg(x, axis, keepdims, _argmax, -np.inf)


def _nanargmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _nan_arg(x, axis, keepdims, _argmin, np.inf)


def _nan_arg(x: Any, axis: Any, keepdims: bool, arg: Callable, fill: float) -> Any:
    x = convert(x)
    if not _is_float(x):
        return arg(x, axis=axis, keepdims=keepdims)
    nan = tf.math.is_nan(x)
    found = arg(tf.where(nan, tf.constant(fill, x.dtype), x), axis=axis, keepdims=keepdims)
    return tf.where(tf.reduce_all(nan, axis=axis, keepdims=keepdims),
                    tf.constant(-1, tf.int32), found)


def _nan_extremum(reduce: Callable, bool_reduce: Callable, fill: float) -> Callable:
    def fn(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        x = convert(x)
        if not _is_float(x):
            return (bool_reduce if _name(x) == "bool" else reduce)(x, axis=axis,
                                                                   keepdims=keepdims)
        nan = tf.math.is_nan(x)
        clean = tf.where(nan, tf.constant(fill, x.dtype), x)
        return tf.where(tf.reduce_all(nan, axis=axis, keepdims=keepdims),
                        tf.constant(np.nan, x.dtype), reduce(clean, axis=axis, keepdims=keepdims))
    return fn


_nanmax = _nan_extremum(tf.reduce_max, tf.reduce_any, -np.inf)
_nanmin = _nan_extremum(tf.reduce_min, tf.reduce_all, np.inf)


def _nansum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    name = _name(x)
    clean = tf.where(tf.math.is_nan(tf.cast(x, floatx())), tf.zeros((), x.dtype), x)
    return tf.reduce_sum(tf.cast(clean, _sum_dtype(name)), axis=axis, keepdims=keepdims)


def _nanprod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    if not _is_float(x):
        return _prod(x, axis=axis, keepdims=keepdims)
    return _prod(tf.where(tf.math.is_nan(x), tf.ones((), x.dtype), x), axis=axis,
                 keepdims=keepdims)


def _nanmean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    if axis == () or axis == []:
        return x
    if not _is_float(x):
        return tf.reduce_mean(tf.cast(x, "float32"), axis=axis, keepdims=keepdims)
    dtype = result_type(_name(x), float)
    total = tf.cast(_nansum(x, axis=axis, keepdims=keepdims), dtype)
    count = tf.reduce_sum(tf.cast(~tf.math.is_nan(x), dtype), axis=axis, keepdims=keepdims)
    return tf.divide(total, count)


def _nanvar(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    x = tf.cast(x, result_type(x.dtype, float))
    mean = _nanmean(x, axis=axis, keepdims=True)
    valid = ~tf.math.is_nan(x)
    centered = tf.where(valid, x - mean, tf.zeros_like(x))
    if centered.dtype.is_complex:
        centered = tf.math.real(centered * tf.math.conj(centered))
    else:
        centered = tf.square(centered)
    count = tf.reduce_sum(tf.cast(valid, centered.dtype), axis=axis, keepdims=keepdims)
    return tf.reduce_sum(centered, axis=axis, keepdims=keepdims) / count


def _nanstd(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return tf.sqrt(_nanvar(x, axis=axis, keepdims=keepdims))


def _average(x: Any, axis: Any = None, weights: Any = None) -> Any:
    x = convert(x)
    if weights is None:
        return tf.reduce_mean(tf.cast(x, result_type(x.dtype, float)), axis=axis)
    weights = convert(weights)
    dtype = result_type(x.dtype, weights.dtype, float)
    x, weights = tf.cast(x, dtype), tf.cast(weights, dtype)
    if axis is None or _rank(x) == _rank(weights):
        return tf.reduce_sum(x * weights, axis=axis) / tf.reduce_sum(weights, axis=axis)
    return tf.tensordot(x, weights, [[axis], [0]]) / tf.reduce_sum(weights)


def _cumulative(fn: Callable) -> Callable:
    def cumulative(x: Any, axis: Any = None, dtype: Any = None) -> Any:
        x = convert(x, dtype)
        if _name(x) == "bool":
            x = tf.cast(x, "int32")
        if axis is None:
            x, axis = tf.reshape(x, [-1]), 0
        return fn(x, axis=axis)
    return cumulative


_cumsum = _cumulative(tf.math.cumsum)
_cumprod = _cumulative(tf.math.cumprod)


def _nancumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumsum(_nan_to_num(x), axis=axis, dtype=dtype)


def _nancumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumprod(_nan_to_num(x, nan=1.0), axis=axis, dtype=dtype)


# --- quantiles ---------------------------------------------------------------------------------

def _quantile_core(x: Any, q: Any, axis: Any, method: str, keepdims: bool) -> Any:
    """Keras's `_quantile`: `x`'s `q` quantiles over `axis` (a list, or None for all),
    the quantile dims first; rows holding NaN give NaN."""
    if method not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"Invalid method: {method}")
    q = tf.cast(q, "float64")
    if axis is None:
        y = tf.reshape(x, [-1])
    else:
        ndim = _rank(x)
        axis = [_canonical_axis(a, ndim) for a in axis]
        other = sorted(set(range(ndim)).difference(axis))
        permuted = tf.transpose(x, other + list(axis))
        dims = _shape(x)
        y = tf.reshape(permuted, [dims[i] for i in other] + [-1])
    sorted_y = tf.sort(y, axis=-1)
    n = tf.shape(y)[-1]
    d = tf.cast(n, "float64")

    def indices(how: str) -> Any:
        rounding = {"lower": tf.math.floor, "higher": tf.math.ceil, "nearest": tf.round}[how]
        return tf.clip_by_value(tf.cast(rounding((d - 1) * q), "int32"), 0, n - 1)

    if method in ("nearest", "lower", "higher"):
        out = tf.gather(sorted_y, indices(method), axis=-1)
    elif method == "midpoint":
        out = 0.5 * (tf.gather(sorted_y, indices("lower"), axis=-1)
                     + tf.gather(sorted_y, indices("higher"), axis=-1))
    else:  # linear
        larger = indices("higher")
        exact = (d - 1) * q
        smaller = tf.maximum(larger - 1, 0)
        larger = tf.minimum(smaller + 1, n - 1)
        fraction = tf.cast(tf.cast(larger, "float64") - exact, y.dtype)
        out = (tf.gather(sorted_y, larger, axis=-1) * (1 - fraction)
               + tf.gather(sorted_y, smaller, axis=-1) * fraction)
    q_rank = _rank(q)
    if _name(x) in _FLOATS:
        nan_rows = tf.reduce_any(tf.math.is_nan(x), axis=axis)
        nan_rows = tf.reshape(nan_rows, _shape(nan_rows) + [1] * q_rank)
        out = tf.where(nan_rows, tf.constant(np.nan, x.dtype), out)
    if keepdims:
        if axis is None:
            out = tf.reshape(out, [1] * _rank(x) + _shape(out))
        else:
            for i in sorted(axis):
                out = tf.expand_dims(out, axis=i)
    ndims = _rank(out)
    if ndims < 2 or q_rank % ndims == 0:
        return out
    perm = collections.deque(range(ndims))
    perm.rotate(q_rank % ndims)
    return tf.transpose(out, list(perm))


def _quantile_dtype(x: Any) -> str:
    # nanquantile's: result_type(x, float); strings go to floatx, so that the cast refuses
    # them as Keras's (which casts each row to floatx).
    return floatx() if x.dtype == tf.string else result_type(x.dtype, float)


def _quantile(x: Any, q: Any, axis: Any = None, method: str = "linear",
              keepdims: bool = False) -> Any:
    x, q = convert(x), convert(q)
    x = tf.cast(x, result_type(x.dtype, float))
    return _quantile_core(x, q, _tuple_or_list(axis), method, keepdims)


def _percentile(x: Any, q: Any, axis: Any = None, method: str = "linear",
                keepdims: bool = False) -> Any:
    q = convert(q, floatx()) / 100.0
    return _quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def _median(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _quantile(x, 0.5, axis=axis, keepdims=keepdims)


def _nanquantile(x: Any, q: Any, axis: Any = None, method: str = "linear",
                 keepdims: bool = False) -> Any:
    x = convert(x)
    q = convert(q, floatx())
    x = tf.cast(x, _quantile_dtype(x))
    # Each row (the reduced axes flattened) drops its NaNs and takes its quantiles alone.
    axes = None if axis is None else [_canonical_axis(a, _rank(x))
                                      for a in _tuple_or_list(axis)]
    if axes is None:
        rows = tf.reshape(x, [1, -1])
        other_shape: list = []
    else:
        other = [i for i in range(_rank(x)) if i not in axes]
        dims = _shape(x)
        reduced = functools.reduce(operator.mul, [dims[i] for i in axes], 1)
        rows = tf.reshape(tf.transpose(x, other + axes), [-1, reduced])
        other_shape = [dims[i] for i in other]
    out = tf.map_fn(lambda row: _nanquantile_row(row, q, method), rows,
                    fn_output_signature=tf.TensorSpec(shape=q.shape, dtype=x.dtype))
    q_rank = _rank(q)
    if q_rank > 0:
        out = tf.transpose(out)
    out = tf.reshape(out, _shape(q) + other_shape)
    if keepdims:
        if axes is None:
            out = tf.reshape(out, _shape(q) + [1] * _rank(x))
        else:
            for a in sorted(axes):
                out = tf.expand_dims(out, axis=a + q_rank)
    return out


def _nanquantile_row(row: Any, q: Any, method: str) -> Any:
    valid = tf.boolean_mask(row, ~tf.math.is_nan(row))
    return tf.cond(tf.size(valid) > 0,
                   lambda: _quantile_core(valid, q, None, method, False),
                   lambda: tf.fill(tf.shape(q), tf.constant(np.nan, row.dtype)))


def _nanpercentile(x: Any, q: Any, axis: Any = None, method: str = "linear",
                   keepdims: bool = False) -> Any:
    q = convert(q, floatx()) / 100.0
    return _nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


def _nanmedian(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert(x)
    if axis == () or axis == []:
        return x
    return _nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


# --- creation ----------------------------------------------------------------------------------

def _creation_dtype(dtype: Any) -> str:
    return standardize_dtype(dtype or floatx())


def _zeros(shape: Any, dtype: Any = None) -> Any:
    return tf.zeros(shape, dtype=_creation_dtype(dtype))


def _ones(shape: Any, dtype: Any = None) -> Any:
    return tf.ones(shape, dtype=_creation_dtype(dtype))


def _empty(shape: Any, dtype: Any = None) -> Any:
    return tf.zeros(shape, dtype=_creation_dtype(dtype))


def _like(fn: Callable) -> Callable:
    def like(x: Any, dtype: Any = None) -> Any:
        dtype = None if dtype is None else standardize_dtype(dtype)
        return fn(convert(x), dtype=dtype)
    return like


def _full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    fill_value = convert(fill_value, _creation_dtype(dtype))
    return tf.broadcast_to(fill_value, shape)


def _full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    x = convert(x)
    dtype = result_type(standardize_dtype(dtype) if dtype else x.dtype)
    return tf.broadcast_to(convert(fill_value, dtype), tf.shape(x))


def _array(x: Any, dtype: Any = None) -> Any:
    return convert(x, None if dtype is None else standardize_dtype(dtype))


def _arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    if dtype is None:
        operands = [a for a in (start, stop, step) if a is not None]
        dtype = result_type(*(_dtypes.operand_dtype(a) for a in operands))
    dtype = standardize_dtype(dtype)
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    return tf.cast(tf.range(start, stop, delta=step, dtype=_range_dtype(dtype)), dtype)


def _range_dtype(dtype: str) -> str:
    # tf.range's kernels: int32/int64/float32/float64; others compute in float32 (as
    # Keras's fallback after NotFoundError).
    return dtype if dtype in ("int32", "int64", "float32", "float64") else "float32"


def _eye(N: Any, M: Any = None, k: int = 0, dtype: Any = None) -> Any:
    def is_float(v: Any) -> bool:
        return isinstance(v, float) or getattr(v, "dtype", None) in _dtypes.FLOAT_TYPES
    if is_float(N):
        raise TypeError("Argument `N` must be an integer or an integer tensor.")
    if is_float(M):
        raise TypeError("Argument `M` must be an integer, an integer tensor, or `None`.")
    dtype = _creation_dtype(dtype)
    M = N if M is None else M
    if isinstance(k, int) and k == 0:
        return tf.eye(N, M, dtype=dtype)
    return tf.pad(tf.eye(tf.minimum(M - k, N + k), dtype=dtype),
                  paddings=((tf.maximum(-k, 0), tf.maximum(N - M + k, 0)),
                            (tf.maximum(k, 0), tf.maximum(M - N - k, 0))))


def _identity(n: Any, dtype: Any = None) -> Any:
    return _eye(N=n, M=n, dtype=dtype)


def _tri(N: Any, M: Any = None, k: int = 0, dtype: Any = None) -> Any:
    # Keras's bands; a band wider than the matrix is clamped to it (the same values).
    M = N if M is None else M
    dtype = _creation_dtype(dtype)
    if k < 0:
        excluded = tf.linalg.band_part(tf.ones([N, M], dtype="bool"), tf.minimum(-k - 1, N), -1)
        return tf.cast(tf.logical_not(excluded), dtype)
    return tf.linalg.band_part(tf.ones([N, M], dtype=dtype), -1, tf.minimum(k, M))


def _linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    if dtype is None:
        dtype = result_type(_dtypes.operand_dtype(start), _dtypes.operand_dtype(stop), float)
    else:
        dtype = standardize_dtype(dtype)
    start, stop = convert(start, dtype), convert(stop, dtype)
    step = convert(np.nan)
    if endpoint:
        result = tf.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (tf.cast(num, dtype) - 1)
    else:
        if num > 0:
            step = (stop - start) / tf.cast(num, dtype)
        if num > 1:
            new_stop = tf.cast(stop, step.dtype) - step
            result = tf.linspace(tf.cast(start, new_stop.dtype), new_stop, num, axis=axis)
        else:
            result = tf.linspace(start, stop, num, axis=axis)
    if "int" in dtype:
        result = tf.floor(result)
    result = tf.cast(result, dtype)
    return (result, step) if retstep else result


def _logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10,
              dtype: Any = None, axis: int = 0) -> Any:
    result = _linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return tf.pow(tf.cast(base, result.dtype), result)


def _geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
               axis: int = 0) -> Any:
    start, stop = convert(start), convert(stop)
    dtype = None if dtype is None else standardize_dtype(dtype)
    log_start = tf.math.log(tf.cast(tf.abs(start), dtype or floatx()))
    log_stop = tf.math.log(tf.cast(tf.abs(stop), dtype or floatx()))
    log_base = tf.math.log(tf.constant(10.0, dtype=log_start.dtype))
    result = _logspace(log_start / log_base, log_stop / log_base, num=num, endpoint=endpoint,
                       base=10, dtype=dtype, axis=axis)
    return result * tf.cast(tf.sign(tf.cast(start, log_start.dtype)), result.dtype)


def _window_length(x: Any) -> Any:
    return convert(x, "int32")


def _bartlett(x: Any) -> Any:
    x = convert(x, floatx())
    if x == 0:
        return tf.constant([])
    if x == 1:
        return tf.ones([1])
    n = tf.range(x)
    half = (x - 1) / 2
    return tf.where(n <= half, 2.0 * n / (x - 1), 2.0 - 2.0 * n / (x - 1))


def _blackman(x: Any) -> Any:
    dtype = floatx()
    x = tf.cast(x, dtype)
    n = tf.range(x, dtype=dtype)
    n_minus_1 = tf.cast(x - 1, dtype)
    safe = tf.where(tf.equal(n_minus_1, 0), tf.ones_like(n_minus_1), n_minus_1)
    window = (0.42 - 0.5 * tf.cos(2 * np.pi * n / safe) + 0.08 * tf.cos(4 * np.pi * n / safe))
    return tf.where(tf.equal(n_minus_1, 0), tf.ones_like(window), window)


def _hamming(x: Any) -> Any:
    return tf.signal.hamming_window(_window_length(x), periodic=False)


def _hanning(x: Any) -> Any:
    return tf.signal.hann_window(_window_length(x), periodic=False)


def _kaiser(x: Any, beta: Any) -> Any:
    return tf.signal.kaiser_window(_window_length(x), beta=beta)


def _not_symbolic(name: str, fn: Callable) -> Callable:
    """Keras's window functions refuse KerasTensors (they need the length's value)."""
    def window(x: Any, *args: Any) -> Any:
        if isinstance(x, KerasTensor):
            raise TypeError(f"{name} operation does not support symbolic tensors. "
                            f"Received input x = {x} of type {type(x)}")
        return fn(x, *args)
    window.__name__ = window.__qualname__ = name.lower()
    window.__doc__ = f"keras.ops: {name} window of length `x` (eager only, as Keras)."
    window.__wrapped__ = fn  # type: ignore[attr-defined]
    return window


# --- shape and indexing ----------------------------------------------------------------------

def _reshape(x: Any, newshape: Any) -> Any:
    x = convert(x)
    if not isinstance(newshape, tf.Tensor):
        try:
            newshape = tuple(newshape)
        except TypeError:
            newshape = (newshape,)
        _check_newshape(newshape)
    return tf.reshape(x, newshape)


def _check_newshape(newshape: tuple) -> None:
    # Keras's validate_reshape_shape: Python dims are >= 0 or a single -1.
    if builtins.any(d is None for d in newshape):  # as TF converting the shape
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    dims = [d for d in newshape if isinstance(d, (int, np.integer))]
    if builtins.any(d < -1 for d in dims):
        raise ValueError("Each dimension in `newshape` must be a non-negative integer, or `-1` "
                         f"for a single unknown dimension. Received: newshape={newshape}.")
    if builtins.sum(1 for d in dims if d == -1) > 1:
        raise ValueError("There must be at most one unknown dimension (-1) in `newshape`. "
                         f"Received: newshape={newshape}.")


def _transpose(x: Any, axes: Any = None) -> Any:
    x = convert(x)
    if axes:
        axes = tuple(_canonical_axis(a, _rank(x)) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("`axes` must be a valid permutation of the input dimensions (no "
                             f"duplicates). Received: axes={list(axes)} for input of rank "
                             f"{_rank(x)}.")
    return tf.transpose(x, perm=axes)


def _expand_dims(x: Any, axis: Any) -> Any:
    x = convert(x)
    axis = _tuple_or_list(axis)
    out_ndim = _rank(x) + len(axis)
    for a in sorted(_canonical_axis(a, out_ndim) for a in axis):
        x = tf.expand_dims(x, a)
    return x


def _squeeze(x: Any, axis: Any = None) -> Any:
    x = convert(x)
    axis = _tuple_or_list(axis)
    static = x.shape.as_list()
    if axis is not None:
        for a in axis:
            if static[a] != 1:
                raise ValueError(f"Cannot squeeze axis={a}, because the dimension is not 1.")
        axis = sorted(_canonical_axis(a, len(static)) for a in axis)
    return tf.squeeze(x, axis=axis)


def _ravel(x: Any) -> Any:
    return tf.reshape(convert(x), [-1])


def _broadcast_to(x: Any, shape: Any) -> Any:
    return tf.broadcast_to(convert(x), shape)


def _moveaxis(x: Any, source: Any, destination: Any) -> Any:
    x = convert(x)
    src = tuple(_canonical_axis(i, _rank(x)) for i in _tuple_or_list(source))
    dst = tuple(_canonical_axis(i, _rank(x)) for i in _tuple_or_list(destination))
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of `source` and `destination`. "
                         f"Received: source={source}, destination={destination}")
    if src == dst:
        return x
    perm = [i for i in range(_rank(x)) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return tf.transpose(x, perm)


def _swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    x = convert(x)
    axis1, axis2 = _canonical_axis(axis1, _rank(x)), _canonical_axis(axis2, _rank(x))
    if axis1 == axis2:
        return x
    perm = list(range(_rank(x)))
    perm[axis1], perm[axis2] = axis2, axis1
    return tf.transpose(x, perm)


def _promote_all(xs: Any) -> list:
    # concatenate/stack/hstack/vstack/dstack: one dtype where they differ.
    xs = [convert(x) for x in xs]
    if len({x.dtype for x in xs}) > 1:
        dtype = result_type(*[x.dtype for x in xs])
        xs = [tf.cast(x, dtype) for x in xs]
    return xs


def _concatenate(xs: Any, axis: int = 0) -> Any:
    return tf.concat(_promote_all(xs), axis=axis)


def _stack(x: Any, axis: int = 0) -> Any:
    return tf.stack(_promote_all(x), axis=axis)


def _hstack(xs: Any) -> Any:
    xs = _promote_all(xs)
    return tf.concat(xs, axis=0 if _rank(xs[0]) == 1 else 1)


def _vstack(xs: Any) -> Any:
    return tf.concat(_promote_all(xs), axis=0)


def _dstack(xs: Any) -> Any:
    out = []
    for x in _promote_all(xs):
        if _rank(x) == 0:
            x = tf.reshape(x, (1, 1, 1))
        elif _rank(x) == 1:
            x = tf.expand_dims(tf.expand_dims(x, 0), 2)
        elif _rank(x) == 2:
            x = tf.expand_dims(x, 2)
        out.append(x)
    return tf.concat(out, axis=2)


def _append(x1: Any, x2: Any, axis: Any = None) -> Any:
    x1, x2, _ = _strict_pair(x1, x2)
    if axis is None:
        return tf.concat([tf.reshape(x1, [-1]), tf.reshape(x2, [-1])], axis=0)
    return tf.concat([x1, x2], axis=axis)


def _split(x: Any, indices_or_sections: Any, axis: int = 0) -> Any:
    x = convert(x)
    if isinstance(indices_or_sections, int):
        sizes = indices_or_sections
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [x.shape[axis]]
        sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
    return tf.split(x, sizes, axis=axis)


def _array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> Any:
    if not isinstance(indices_or_sections, int):
        raise TypeError("Argument `indices_or_sections` must be of type `int`. Received: "
                        f"indices_or_sections={indices_or_sections}")
    if indices_or_sections <= 0:
        raise ValueError("Argument `indices_or_sections` must be a positive integer. "
                         f"Received: indices_or_sections={indices_or_sections}")
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be of type `int`. Received: {axis}")
    x = convert(x)
    total = x.shape[axis]
    avg, rem = divmod(total, indices_or_sections)
    return tf.split(x, [avg + 1] * rem + [avg] * (indices_or_sections - rem), axis=axis)


def _hsplit(x: Any, indices_or_sections: Any) -> Any:
    x = convert(x)
    return _split(x, indices_or_sections, axis=0 if _rank(x) == 1 else 1)


def _vsplit(x: Any, indices_or_sections: Any) -> Any:
    return _split(x, indices_or_sections, axis=0)


def _dsplit(x: Any, indices_or_sections: Any) -> Any:
    return _split(x, indices_or_sections, axis=2)


def _tile(x: Any, repeats: Any) -> Any:
    x = convert(x)
    if isinstance(repeats, tf.Tensor) and repeats.shape.rank == 1 and \
            repeats.shape[0] is not None:  # a traced vector: as many entries as its length
        repeats = tf.unstack(repeats)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    if len(repeats) < _rank(x):
        repeats = [1] * (_rank(x) - len(repeats)) + repeats
    while len(repeats) > _rank(x):
        x = tf.expand_dims(x, 0)
    return tf.tile(x, repeats)


def _repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    x = convert(x)
    if _name(x) == "uint16":
        return tf.cast(tf.repeat(tf.cast(x, "uint32"), repeats, axis=axis), "uint16")
    return tf.repeat(x, repeats, axis=axis)


def _flip(x: Any, axis: Any = None) -> Any:
    x = convert(x)
    if axis is None:
        return _reverse(x, list(range(_rank(x))))
    return _reverse(x, [_canonical_axis(a, _rank(x)) for a in _tuple_or_list(axis)])


def _fliplr(x: Any) -> Any:
    return _reverse(convert(x), [1])


def _flipud(x: Any) -> Any:
    return _reverse(convert(x), [0])


def _reverse(x: Any, axes: list) -> Any:
    # TF's reverse gives a scalar back whatever the axes (measured with TF 2.21).
    return tf.identity(x) if _rank(x) == 0 else tf.reverse(x, axes)


def _roll(x: Any, shift: Any, axis: Any = None) -> Any:
    x = convert(x)
    if axis is not None:
        return tf.roll(x, shift=shift, axis=axis)
    return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), tf.shape(x))


def _rot90(array: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    array = convert(array)
    if _rank(array) < 2:
        raise ValueError("Input array must have at least 2 dimensions. "
                         f"Received: array.ndim={_rank(array)}")
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"Invalid axes: {axes}. Axes must be a tuple of two different "
                         "dimensions.")
    k %= 4
    if k == 0:
        return array
    a0, a1 = (a + _rank(array) if a < 0 else a for a in axes)
    # A quarter turn in the (a0, a1) plane is a flip of a1 then a swap of a0 and a1.
    for _ in range(k):
        array = _swapaxes(tf.reverse(array, [a1]), a0, a1)
    return array


def _pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> Any:
    pad_width = _pad_pairs(pad_width)
    x = convert(x)
    if len(pad_width) > 1 and len(pad_width) != _rank(x):
        raise ValueError(f"`pad_width` must have the same length as `x.shape`. Received: "
                         f"pad_width={pad_width} (of length {len(pad_width)}) and x.shape="
                         f"{tuple(x.shape.as_list())} (of length {_rank(x)})")
    kwargs = {}
    if constant_values is not None:
        if mode != "constant":
            raise ValueError("Argument `constant_values` can only be provided when "
                             f"`mode == 'constant'`. Received: mode={mode}")
        kwargs["constant_values"] = constant_values
    return tf.pad(x, convert(pad_width, "int32"), mode.upper(), **kwargs)


def _pad_pairs(pad_width: Any) -> Any:
    # Keras's Pad operation: n is ((n, n),), (a, b) is ((a, b),), (n,) pairs are (n, n).
    if isinstance(pad_width, int):
        return ((pad_width, pad_width),)
    if isinstance(pad_width, (tuple, list)) and isinstance(pad_width[0], int):
        return (pad_width,)
    pad_width = list(pad_width)
    first_len = len(pad_width[0])
    for i, pair in enumerate(pad_width):
        if len(pair) != first_len:
            raise ValueError("`pad_width` should be a list of tuples of length 1 or 2. "
                             f"Received: pad_width={pad_width}")
        if len(pair) == 1:
            pad_width[i] = (pair[0], pair[0])
    return pad_width


def _get_item(x: Any, key: Any) -> Any:
    return x[key]  # as Keras: no conversion (a NumPy array gives NumPy values)


def _take(x: Any, indices: Any, axis: Any = None) -> Any:
    x = convert(x)
    if axis is None:
        x, axis = tf.reshape(x, (-1,)), 0
    indices = convert(indices)
    indices = tf.where(indices < 0, indices + tf.cast(tf.shape(x)[axis], indices.dtype), indices)
    return tf.gather(x, indices, axis=axis)


def _take_along_axis(x: Any, indices: Any, axis: Any = None) -> Any:
    x = convert(x)
    indices = convert(indices, "int64")
    if axis is None:
        if _rank(indices) != 1:
            raise ValueError(f"`indices` must be 1D if axis=None. Received: indices.shape="
                             f"{tuple(indices.shape.as_list())}")
        return _take_along_axis(tf.reshape(x, [-1]), indices, 0)
    rank = _rank(x)
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis} for input rank: {rank}")
    axis = axis + rank if axis < 0 else axis
    x, indices = _broadcast_except(x, indices, axis), _broadcast_except(indices, x, axis)
    indices = tf.where(indices < 0, indices + tf.cast(tf.shape(x)[axis], indices.dtype), indices)
    x, indices = _swapaxes(x, axis, -1), _swapaxes(indices, axis, -1)
    flat_x = tf.reshape(x, [-1, tf.shape(x)[-1]])
    out_shape = tf.shape(indices)
    flat_i = tf.reshape(indices, [-1, out_shape[-1]])
    out = tf.reshape(tf.gather(flat_x, flat_i, batch_dims=1), out_shape)
    return _swapaxes(out, axis, -1)


def _broadcast_except(a: Any, other: Any, axis: int) -> Any:
    """`a` broadcast against `other`'s dims except `axis` (values unchanged; dims known only
    when the graph runs stay tensors)."""
    a_dims, o_dims = a.shape.as_list(), other.shape.as_list()
    a_dims[axis] = o_dims[axis] = 1
    if None not in a_dims + o_dims:
        target = list(np.broadcast_shapes(tuple(a_dims), tuple(o_dims)))
        target[axis] = a.shape[axis] if a.shape[axis] is not None else tf.shape(a)[axis]
        return tf.broadcast_to(a, target)
    keep = tf.equal(tf.reduce_sum(tf.zeros_like(other, "int32"), axis=axis, keepdims=True), 0)
    return tf.where(keep, a, a)


def _where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    if (x1 is None) != (x2 is None):
        raise ValueError("`x1` and `x2` either both should be `None` or both should have "
                         "non-None value.")
    condition = tf.cast(condition, "bool")
    if x1 is None:
        return _nonzero(condition)
    x1, x2, _ = _weak_pair(x1, x2)
    return tf.where(condition, x1, x2)


def _nonzero(x: Any) -> Any:
    x = convert(x)
    found = tf.unstack(tf.where(tf.cast(x, "bool")), _rank(x), axis=1)
    return [tf.cast(i, "int32") for i in found]


def _select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ValueError("condlist and choicelist must be lists. Received: type(condlist) = "
                         f"{type(condlist)}, type(choicelist) = {type(choicelist)}")
    if not condlist or not choicelist:
        raise ValueError("condlist and choicelist must not be empty. Received: condlist = "
                         f"{condlist}, choicelist = {choicelist}")
    return tf.experimental.numpy.select(list(condlist), list(choicelist), default=default)


def _clip(x: Any, x_min: Any, x_max: Any) -> Any:
    # Keras reads x.dtype before converting: lists and scalars raise AttributeError there.
    if standardize_dtype(x.dtype) == "bool":
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, x_min, x_max)


def _diag(x: Any, k: int = 0) -> Any:
    x = convert(x)
    if _rank(x) == 1:
        if x.dtype == tf.string:  # TF's diag converts its 0 padding to x's dtype
            raise TypeError("Cannot convert 0 to EagerTensor of dtype string")
        return tf.linalg.diag(x, k=k)
    if _rank(x) == 2:
        return _diagonal(x, offset=k)
    raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={tuple(x.shape.as_list())}")


def _diagflat(x: Any, k: int = 0) -> Any:
    return _diag(tf.reshape(convert(x), [-1]), k)


def _diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    rank = len(x.shape)  # before converting, as Keras (AttributeError for lists)
    x = convert(x)
    ax1, ax2 = _canonical_axis(axis1, rank), _canonical_axis(axis2, rank)
    if ax1 == ax2:
        raise ValueError(f"`axis1` and `axis2` cannot be the same. Received: axis1={axis1}, "
                         f"axis2={axis2}")
    x = _moveaxis(x, (ax1, ax2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    if rows is not None and cols is not None and (offset <= -rows or offset >= cols):
        # Keras's TF backend asks MatrixDiagPart for a diagonal outside the matrix.
        raise tf.errors.InvalidArgumentError(
            None, None, f"lower_diag_index is out of bound: {offset}. It must be between "
            f"{-rows} and {cols} [Op:MatrixDiagPartV3] name: diag_part")
    return tf.linalg.diag_part(x, k=offset)


def _trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    x = convert(x)
    x = tf.cast(x, _sum_dtype(_name(x)))
    return tf.reduce_sum(_diagonal(x, offset=offset, axis1=axis1, axis2=axis2), axis=-1)


def _band(x: Any, k: int, lower: bool) -> Any:
    # Keras's masks (band_part where k allows): row i keeps the columns j with i >= j - k
    # (tril) or i <= j - k (triu).
    x = convert(x)
    if x.dtype == tf.string:
        raise tf.errors.NotFoundError(None, None, "Could not find device for node: {{node "
                                      "MatrixBandPart}} = MatrixBandPart[T=DT_STRING]")
    dims = tf.shape(x)
    i = tf.expand_dims(tf.range(dims[-2]), -1)
    j = tf.expand_dims(tf.range(dims[-1]), 0)
    mask = i >= j - k if lower else i <= j - k
    return tf.where(mask, x, tf.zeros_like(x))


def _tril(x: Any, k: int = 0) -> Any:
    return _band(x, k, lower=True)


def _triu(x: Any, k: int = 0) -> Any:
    return _band(x, k, lower=False)


def _diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    a = convert(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"Order `n` must be non-negative. Received n={n}")
    if _rank(a) == 0:
        raise ValueError("`diff` requires input that is at least one dimensional. "
                         f"Received: a={a}")
    axis = _canonical_axis(axis, _rank(a))
    upper = tuple(slice(1, None) if i == axis else slice(None) for i in range(_rank(a)))
    lower = tuple(slice(None, -1) if i == axis else slice(None) for i in range(_rank(a)))
    for _ in range(n):
        if _name(a) == "bool":
            a = tf.not_equal(a[upper], a[lower])
        else:
            a = tf.subtract(a[upper], a[lower])
    return a


def _meshgrid(*x: Any, indexing: str = "xy") -> Any:
    x = [convert(v) for v in x]
    for v in x[1:]:
        if v.dtype != x[0].dtype:  # tf.meshgrid multiplies the grids without promoting
            raise tf.errors.InvalidArgumentError(
                None, None, f"cannot compute Mul as input #1(zero-based) was expected to be a "
                f"{x[0].dtype.name} tensor but is a {v.dtype.name} tensor [Op:Mul] name: ")
    return tf.meshgrid(*x, indexing=indexing)


def _ndim(x: Any) -> int:
    return _rank(convert(x))


def _size(x: Any) -> Any:
    return tf.size(convert(x))


def _sort(x: Any, axis: Any = -1) -> Any:
    x = convert(x)
    name = _name(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if name == "bool":
        return tf.cast(tf.sort(tf.cast(x, "int8"), axis=axis), name)
    return tf.sort(x, axis=axis)


def _argsort(x: Any, axis: Any = -1) -> Any:
    x = convert(x)
    if _name(x) == "bool":
        x = tf.cast(x, "uint8")
    if _rank(x) == 0:
        return tf.constant([0], "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.argsort(x, axis=axis)


def _argpartition(x: Any, kth: Any, axis: int = -1) -> Any:
    x = convert(x, "int32")
    original_axis = axis
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    x = _swapaxes(x, axis, -1)
    n = tf.shape(x)[-1]
    kth = tf.clip_by_value(tf.cast(kth, tf.int32), 0, n - 1)
    bottom = tf.math.top_k(-x, kth + 1).indices
    mask = tf.reduce_sum(tf.one_hot(bottom, n, dtype=tf.int32), axis=0)
    found = tf.where(mask)
    masked = tf.tensor_scatter_nd_update(x, found, tf.zeros(tf.shape(found)[0], tf.int32))
    top = tf.math.top_k(masked, n - kth - 1).indices
    out = tf.concat([bottom, top], axis=-1)
    return out if original_axis is None else _swapaxes(out, -1, axis)


def _searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> Any:
    sorted_sequence, values = convert(sorted_sequence), convert(values)
    if _rank(sorted_sequence) != 1:
        raise ValueError("`searchsorted` only supports 1-D sorted sequences. You can use "
                         "`keras.ops.vectorized_map` to extend it to N-D sequences. Received: "
                         f"sorted_sequence.shape={sorted_sequence.shape}")
    return tf.searchsorted(sorted_sequence, values, side=side, out_type="int32")


def _digitize(x: Any, bins: Any) -> Any:
    x = convert(x)
    bins = [float(b) for b in bins]
    name = _name(x)
    if x.dtype == tf.string:
        raise tf.errors.InvalidArgumentError(
            None, None, "Value for attr 'T' of string is not in the list of allowed values: "
            "int32, int64, float, double [Op:Bucketize]")
    if name in ("bool", "int8", "int16", "uint8", "uint16"):
        x = tf.cast(x, "int32")
    elif name == "uint32":
        x = tf.cast(x, "int64")
    elif name in ("bfloat16", "float16"):
        x = tf.cast(x, "float32")
    # Bucketize: the number of boundaries at or below each value.
    boundaries = tf.constant(bins, "float64")
    flat = tf.reshape(tf.cast(x, "float64"), [-1])
    return tf.reshape(tf.searchsorted(boundaries, flat, side="right", out_type="int32"),
                      tf.shape(x))


def _bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    x = convert(x)
    dtypes = [x.dtype]
    if _name(x) not in ("int32", "int64"):
        x = tf.cast(x, "int32")
    if weights is not None:
        weights = convert(weights)
        dtypes.append(weights.dtype)
        dtype = result_type(*dtypes)
        wname = _name(weights)
        if wname not in ("int32", "int64", "float32", "float64"):
            weights = tf.cast(weights, "int32" if "int" in wname else "float32")
    else:
        dtype = "int32"
    if sparse:
        # axis=0 for a vector: TF's axis=-1 there counts it whole (tapeflow's adds a batch).
        counted = tf.sparse.bincount(x, weights=weights, minlength=minlength,
                                     axis=-1 if _rank(x) > 1 else 0)
        return tf.SparseTensor(counted.indices, tf.cast(counted.values, dtype),
                               counted.dense_shape)
    return tf.cast(tf.math.bincount(x, weights=weights, minlength=minlength, axis=-1), dtype)


def _histogram(x: Any, bins: int = 10, range: Any = None) -> Any:  # noqa: A002 - Keras's
    if not isinstance(bins, int):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError("Argument `bins` should be a non-negative integer. "
                         f"Received: bins={bins}")
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError("Argument `range` must be a tuple of two elements. "
                             f"Received: range={range}")
        if range[1] < range[0]:
            raise ValueError("The second element of `range` must be greater than the first. "
                             f"Received: range={range}")
    x = convert(x)
    if _rank(x) > 1:
        raise ValueError("Input tensor must be 1-dimensional. Received: input.shape="
                         f"{tuple(x.shape.as_list())}")
    if range is None:
        lo, hi = tf.reduce_min(x), tf.reduce_max(x)
    else:
        lo, hi = range
    x = tf.boolean_mask(x, (x >= lo) & (x <= hi))
    edges = tf.cast(tf.linspace(lo, hi, bins + 1), x.dtype)
    which = tf.searchsorted(edges[1:-1], x, side="right")
    counts = tf.scatter_nd(tf.expand_dims(which, -1), tf.ones_like(which, dtype=x.dtype),
                           (bins,))
    return counts, edges


def _unique(x: Any, sorted: bool = True, return_index: bool = False,  # noqa: A002
            return_inverse: bool = False, return_counts: bool = False, axis: Any = None,
            size: Any = None, fill_value: Any = None) -> Any:
    x = convert(x)
    original_shape = tf.shape(x)
    if axis is None:
        x, axis, flat = tf.reshape(x, [-1]), 0, True
        y, inverse, counts = tf.unique_with_counts(x)
    else:
        axis, flat = _canonical_axis(axis, _rank(x)), False
        y, inverse, counts = _unique_slices(x, axis)
    num_unique = tf.shape(y)[axis]
    first = tf.math.unsorted_segment_min(tf.range(tf.shape(x)[axis], dtype=tf.int32), inverse,
                                         num_unique)
    if sorted:
        order = tf.argsort(y) if _rank(y) == 1 else _lexicographic_order(y, axis)
        y = tf.gather(y, order, axis=axis)
        first, counts = tf.gather(first, order), tf.gather(counts, order)
        inverse = tf.gather(tf.math.invert_permutation(order), inverse)
    if size is not None:
        y, first, counts = _fixed_size(y, first, counts, axis, size, fill_value)
    results = [y]
    if return_index:
        results.append(first)
    if return_inverse:
        results.append(tf.reshape(inverse, original_shape) if flat else inverse)
    if return_counts:
        results.append(counts)
    return tuple(results) if len(results) > 1 else results[0]


def _unique_slices(x: Any, axis: int) -> tuple:
    """TF's UniqueWithCountsV2 along `axis`: the distinct slices in order of first
    occurrence, each slice's index among them, and how often each occurs."""
    slices = _moveaxis(x, axis, 0)
    rows = tf.reshape(slices, [tf.shape(slices)[0], -1])
    same = tf.reduce_all(tf.equal(tf.expand_dims(rows, 1), tf.expand_dims(rows, 0)), axis=-1)
    first_equal = tf.argmax(tf.cast(same, "int32"), axis=1, output_type="int32")
    is_first = tf.equal(first_equal, tf.range(tf.shape(rows)[0]))
    inverse = tf.gather(tf.math.cumsum(tf.cast(is_first, "int32")) - 1, first_equal)
    y = tf.gather(x, tf.reshape(tf.where(is_first), [-1]), axis=axis)
    counts = tf.math.bincount(inverse, minlength=tf.shape(y)[axis])
    return y, inverse, tf.cast(counts, "int32")


def _lexicographic_order(y: Any, axis: int) -> Any:
    # Stable sorts from the last column to the first (Keras's while_loop).
    rows = tf.reshape(_moveaxis(y, axis, 0), [tf.shape(y)[axis], -1])
    order = tf.range(tf.shape(rows)[0], dtype=tf.int32)
    for column in range(int(np.prod(rows.shape.as_list()[1:])) - 1, -1, -1):
        order = tf.gather(order, tf.argsort(tf.gather(rows[:, column], order), stable=True))
    return order


def _fixed_size(y: Any, first: Any, counts: Any, axis: int, size: int,
                fill_value: Any) -> tuple:
    # unique(size=n): the first n values, padded with `fill_value` (index 1, count 0).
    found = tf.shape(y)[axis]
    keep = tf.range(tf.minimum(found, size))
    pad = tf.maximum(0, size - found)
    paddings = [[0, pad] if i == axis else [0, 0] for i in range(_rank(y))]
    fill = tf.cast(0 if fill_value is None else fill_value, y.dtype)
    y = tf.pad(tf.gather(y, keep, axis=axis), paddings, constant_values=fill)
    first = tf.pad(tf.gather(first, keep), [[0, pad]], constant_values=1)
    counts = tf.pad(tf.gather(counts, keep), [[0, pad]], constant_values=0)
    return y, first, counts


def _unravel_index(indices: Any, shape: Any) -> Any:
    indices = convert(indices)
    dtype = indices.dtype
    if None in shape:
        raise ValueError(f"`shape` argument cannot contain `None`. Received: shape={shape}")
    coords = []
    for dim in reversed(shape):
        coords.append(tf.cast(indices % dim, dtype))
        indices = indices // dim
    return tuple(reversed(coords))


def _view(x: Any, dtype: Any = None) -> Any:
    x = convert(x)
    old = tf.as_dtype(_name(x))
    new = tf.as_dtype(standardize_dtype(dtype) if dtype else _name(x))
    old_size, new_size = old.size, new.size
    dims = _shape(x)
    last = dims[-1] if dims else -1
    if (last == -1 and old_size != new_size) or (last * old_size % new_size != 0):
        raise ValueError(f"Cannot view array of shape {x.shape} and dtype {old} as dtype {new} "
                         "because the total number of bytes is not divisible by the new "
                         "itemsize.")
    if old_size == new_size:
        return tf.bitcast(x, new)
    if old_size > new_size:
        return tf.reshape(tf.bitcast(tf.reshape(x, [-1]), new),
                          dims[:-1] + [last * (old_size // new_size)])
    ratio = new_size // old_size
    if last % ratio != 0:
        raise ValueError(f"Cannot view dtype. Last dimension size ({last}) must be divisible "
                         f"by the ratio of new/old item sizes ({ratio}).")
    return tf.bitcast(tf.reshape(x, dims[:-1] + [last // ratio, ratio]), new)


# --- products ----------------------------------------------------------------------------------

def _matmul(x1: Any, x2: Any) -> Any:
    x1, x2 = convert(x1), convert(x2)
    if _name(x1) == _name(x2) == "int8" and _rank(x1) != 1 and _rank(x2) != 1:
        return tf.cast(tf.matmul(tf.cast(x1, "int32"), tf.cast(x2, "int32")), "int32")
    compute = result_type(x1.dtype, x2.dtype, float)
    out_dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = tf.cast(x1, compute), tf.cast(x2, compute)
    if _rank(x2) == 1:
        out = tf.tensordot(x1, x2, axes=1)
    elif _rank(x1) == 1:
        out = tf.tensordot(x1, x2, axes=[[0], [-2]])
    elif _rank(x2) == 2 and _rank(x1) > 2:
        out = tf.tensordot(x1, x2, axes=[[-1], [0]])
    else:
        out = tf.matmul(x1, x2)
    return tf.cast(out, out_dtype)


def _float_compute(x1: Any, x2: Any) -> tuple:
    # dot/vdot/inner: computed in float, returned in the promoted dtype.
    x1, x2 = convert(x1), convert(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    compute = result_type(out_dtype, float)
    return tf.cast(x1, compute), tf.cast(x2, compute), out_dtype


def _dot(x1: Any, x2: Any) -> Any:
    x1, x2, out_dtype = _float_compute(x1, x2)
    if _rank(x1) == 0 or _rank(x2) == 0:
        out = x1 * x2
    elif _rank(x2) == 1:
        out = tf.tensordot(x1, x2, axes=[[-1], [-1]])
    else:
        out = tf.tensordot(x1, x2, axes=[[-1], [-2]])
    return tf.cast(out, out_dtype)


def _vdot(x1: Any, x2: Any) -> Any:
    x1, x2, out_dtype = _float_compute(x1, x2)
    return tf.cast(_dot(tf.reshape(x1, [-1]), tf.reshape(x2, [-1])), out_dtype)


def _inner(x1: Any, x2: Any) -> Any:
    x1, x2, out_dtype = _float_compute(x1, x2)
    if _rank(x1) == 0 or _rank(x2) == 0:
        out = x1 * x2
    else:
        out = tf.tensordot(x1, x2, axes=[[-1], [-1]])
    return tf.cast(out, out_dtype)


def _outer(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _strict_pair(x1, x2)
    return tf.reshape(x1, [-1, 1]) * tf.reshape(x2, [-1])


def _tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    x1, x2 = convert(x1), convert(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    exact = ("int32", "int64", "float16", "float32", "float64", "bfloat16", "complex64",
             "complex128")
    compute = out_dtype if out_dtype in exact else result_type(out_dtype, float)
    if isinstance(axes, int) and axes > _rank(x1):
        raise ValueError("`axes` must not be larger than the number of dimensions of tensor "
                         f"{x1}.  Received {axes}, vs tensor dimensions {_rank(x1)}.")
    if isinstance(axes, int) and axes > _rank(x2):
        raise IndexError("list index out of range")  # as TF's tensordot indexes b's shape
    out = tf.tensordot(tf.cast(x1, compute), tf.cast(x2, compute), axes=axes)
    return tf.cast(out, out_dtype)


def _kron(x1: Any, x2: Any) -> Any:
    x1, x2, _ = _strict_pair(x1, x2)
    r1, r2 = _rank(x1), _rank(x2)
    x1 = tf.reshape(x1, [1] * (r2 - r1) + _shape(x1)) if r1 < r2 else x1
    x2 = tf.reshape(x2, [1] * (r1 - r2) + _shape(x2)) if r2 < r1 else x2
    s1, s2 = _shape(x1), _shape(x2)
    a = tf.reshape(x1, [d for pair in zip(s1, [1] * len(s1)) for d in pair])
    b = tf.reshape(x2, [d for pair in zip([1] * len(s2), s2) for d in pair])
    return tf.reshape(tf.multiply(a, b), [p * q for p, q in zip(s1, s2)])


def _cross(x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
           axis: Any = None) -> Any:
    x1, x2, _ = _strict_pair(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    x1, x2 = _moveaxis(x1, axisa, -1), _moveaxis(x2, axisb, -1)
    d1, d2 = x1.shape[-1], x2.shape[-1]

    def pad_to_3(x: Any, d: int) -> Any:
        return tf.pad(x, [[0, 0]] * (_rank(x) - 1) + [[0, 1]]) if d == 2 else x

    x1, x2 = pad_to_3(x1, d1), pad_to_3(x2, d2)
    if not (x1.shape.is_fully_defined() and x1.shape == x2.shape):
        shape = tf.broadcast_static_shape(x1.shape, x2.shape)
        if shape.is_fully_defined():
            x1, x2 = tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape)
        else:  # dims known only when the graph runs: broadcast by adding zeros
            x1, x2 = x1 + tf.zeros_like(x2), x2 + tf.zeros_like(x1)
    c = tf.linalg.cross(x1, x2)
    if d1 == 2 and d2 == 2:
        return c[..., 2]
    return _moveaxis(c, -1, axisc)


def _einsum(subscripts: str, *operands: Any, **kwargs: Any) -> Any:
    operands = [convert(x) for x in operands]
    names = list({_name(x) for x in operands})
    if names == ["int8"]:
        out_dtype, compute = "int32", "int32"
    else:
        out_dtype = result_type(*names)
        compute = floatx() if "int" in out_dtype else out_dtype
    out = tf.einsum(subscripts, *[tf.cast(x, compute) for x in operands], **kwargs)
    return tf.cast(out, out_dtype)


def _correlate(x1: Any, x2: Any, mode: str = "valid") -> Any:
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "float64" if dtype == "int64" else (
        dtype if dtype in ("bfloat16", "float16", "float64") else "float32")
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"Invalid mode: '{mode}'. Mode must be one of: 'full', 'same', "
                         "'valid'.")
    n, m = _shape(x1)[0], _shape(x2)[0]

    def corr(a: Any, b: Any) -> Any:
        a = tf.reshape(a, (1, _shape(a)[0], 1))
        b = tf.reshape(b, (_shape(b)[0], 1, 1))
        return tf.squeeze(tf.nn.conv1d(a, b, stride=1, padding="VALID"), axis=[0, 2])

    if mode == "valid":
        return corr(x1, x2)
    pad = builtins.max(m - 1, 0)
    full = corr(tf.pad(x1, [[pad, pad]]), x2)
    if mode == "full":
        return full
    out_len = builtins.max(n, m)
    return tf.slice(full, [(n + m - 1 - out_len) // 2], [out_len])


def _corrcoef(x: Any) -> Any:
    # Keras reads x.dtype before converting: lists and scalars raise AttributeError there.
    x = convert(x, floatx() if standardize_dtype(x.dtype) in _SMALL_INTS else None)
    if _rank(x) == 0:
        return tf.constant(np.nan, dtype=floatx())
    centered = x - tf.reduce_mean(x, axis=-1, keepdims=True)
    n = tf.cast(tf.shape(x)[-1], x.dtype)
    cov = tf.matmul(centered, centered, adjoint_b=True) / (n - 1)
    std = tf.sqrt(tf.math.real(tf.linalg.diag_part(cov)))
    corr = cov / tf.cast(tf.tensordot(std, std, axes=0), cov.dtype)
    clipped = tf.clip_by_value(tf.math.real(corr), -1.0, 1.0)
    if corr.dtype.is_complex:
        return tf.complex(clipped, tf.clip_by_value(tf.math.imag(corr), -1.0, 1.0))
    return clipped


def _slogdet(x: Any) -> Any:
    return tuple(tf.linalg.slogdet(convert(x)))


def _trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    y = convert(y)
    dtype = result_type(y.dtype, float)
    y = tf.cast(y, dtype)
    if x is None:
        dx_array = tf.cast(dx, dtype)
    else:
        dx_array = _moveaxis(_diff(convert(x, dtype), axis=axis), axis, -1)
    y = _moveaxis(y, axis, -1)
    heights = 0.5 * (y[..., 1:] + y[..., :-1])
    return tf.reduce_sum(heights * dx_array, axis=-1)


def _vander(x: Any, N: Any = None, increasing: bool = False) -> Any:
    if len(x.shape) != 1:  # before converting, as Keras (AttributeError for lists)
        raise ValueError("Input tensor must be 1-dimensional. Received: input.shape="
                         f"{tuple(x.shape)}")
    x = convert(x)
    if N is not None:
        if not isinstance(N, int):
            raise TypeError(f"Argument `N` must be of type `int`. Received: N={N} of type "
                            f"{type(N)}")
        if N < 0:
            raise ValueError(f"Argument 'N' must be nonnegative. Received: N={N}")
    if not isinstance(increasing, bool):
        raise TypeError("Argument `increasing` must be of type `bool`. Received: increasing="
                        f"{increasing} of type {type(increasing)}")
    out_dtype = result_type(x.dtype)
    N = _shape(x)[0] if N is None else N
    powers = tf.range(N) if increasing else tf.range(N - 1, -1, -1)
    compute = result_type(x.dtype, "float32")
    out = tf.math.pow(tf.cast(tf.expand_dims(x, -1), compute), tf.cast(powers, compute))
    return tf.cast(out, out_dtype)


def vectorize(pyfunc: Callable, *, excluded: Any = None, signature: Optional[str] = None
              ) -> Callable:
    """`keras.ops.vectorize`: `pyfunc` mapped (`tf.vectorized_map`) over its inputs'
    broadcast leading dims; `signature` ("(n),(n)->()") names the core dims each call sees,
    as NumPy's. Keras 3.15's TensorFlow backend refuses every call ("Not supported with
    `vectorize()`"); this maps as its JAX backend does. `excluded` is ignored, as Keras's."""
    if not callable(pyfunc):
        raise ValueError(f"Expected argument `pyfunc` to be a callable. Received: "
                         f"pyfunc={pyfunc}")
    core_in, core_out = _parse_signature(signature)

    def wrapped(*args: Any) -> Any:
        args = [convert(a) for a in args]
        cores = [()] * len(args) if core_in is None else core_in
        if len(args) != len(cores):
            raise TypeError("wrong number of positional arguments: expected "
                            f"{len(cores)}, got {len(args)}")
        _check_core_dims(args, cores)
        batch = [tuple(_shape(a)[:_rank(a) - len(c)]) for a, c in zip(args, cores)]
        batch_shape = list(np.broadcast_shapes(*batch))
        flat = [tf.reshape(tf.broadcast_to(a, batch_shape + _shape(a)[_rank(a) - len(c):]),
                           [-1] + _shape(a)[_rank(a) - len(c):]) for a, c in zip(args, cores)]
        out = tf.vectorized_map(lambda xs: pyfunc(*xs), tuple(flat))
        return tf.nest.map_structure(
            lambda o: tf.reshape(o, batch_shape + _shape(o)[1:]), out)
    return wrapped


_DIM = r"\w+"
_CORE_DIMS = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_SIGNATURE = rf"^{_CORE_DIMS}(?:,{_CORE_DIMS})*->{_CORE_DIMS}(?:,{_CORE_DIMS})*$"


def _parse_signature(signature: Optional[str]) -> tuple:
    # NumPy's gufunc signature: each argument's and result's core dim names.
    if signature is None:
        return None, None
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_DIM, arg)) for arg in re.findall(_CORE_DIMS, side)]
                 for side in signature.split("->"))


def _check_core_dims(args: list, cores: list) -> None:
    sizes: dict = {}
    for arg, core in zip(args, cores):
        shape = tuple(arg.shape.as_list())
        if len(shape) < len(core):
            raise ValueError(f"input with shape {shape} does not have enough dimensions for "
                             f"all core dimensions {core}")
        for dim, size in zip(core, shape[len(shape) - len(core):]):
            if sizes.setdefault(dim, size) != size:
                raise ValueError(f"inconsistent size for core dimension {dim}: {size} vs "
                                 f"{sizes[dim]}")


# --- the public names ----------------------------------------------------------------------------

# Keras's operation class for each name where it is not the name in CamelCase.
_CLASS_NAMES = {"abs": "Absolute", "conj": "Conjugate", "allclose": "AllClose",
                "isin": "IsIn", "searchsorted": "SearchSorted", "nan_to_num": "NanToNum"}


def _op(name: str, fn: Callable) -> Callable:
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    op = keras_op(_CLASS_NAMES.get(name, camel), fn)
    op.__name__ = op.__qualname__ = name
    return op


_OPS: dict = {
    # arithmetic
    "add": _add, "subtract": _subtract, "multiply": _multiply, "divide": _divide,
    "true_divide": _divide, "divide_no_nan": _divide_no_nan, "floor_divide": _floor_divide,
    "maximum": _maximum, "minimum": _minimum, "fmax": _nan_aware(tf.maximum),
    "fmin": _nan_aware(tf.minimum), "power": _power, "mod": _mod, "fmod": _fmod,
    "arctan2": _arctan2, "hypot": _hypot, "heaviside": _heaviside, "logaddexp": _logaddexp,
    "logaddexp2": _logaddexp2, "nextafter": _nextafter, "ldexp": _ldexp, "gcd": _gcd,
    "lcm": _lcm,
    # unary
    "absolute": _absolute, "abs": _absolute, "fabs": _fabs, "negative": _negative,
    "square": _square, "sqrt": _unary(tf.math.sqrt), "exp": _exp,
    "exp2": _exp2, "expm1": _expm1,
    "log": _unary(tf.math.log), "log10": _log10, "log1p": _unary(tf.math.log1p),
    "log2": _log2, "sin": _unary(tf.math.sin), "cos": _unary(tf.math.cos),
    "tan": _unary(tf.math.tan), "arcsin": _unary(tf.math.asin),
    "arccos": _unary(tf.math.acos), "arctan": _unary(tf.math.atan),
    "sinh": _unary(tf.math.sinh), "cosh": _unary(tf.math.cosh),
    "tanh": _unary(tf.math.tanh), "arcsinh": _unary(tf.math.asinh),
    "arccosh": _unary(tf.math.acosh), "arctanh": _unary(tf.math.atanh),
    "ceil": _unary(tf.math.ceil), "floor": _unary(tf.floor), "cbrt": _cbrt, "angle": _angle,
    "deg2rad": _degrees(lambda pi, d180: pi / d180),
    "rad2deg": _degrees(lambda pi, d180: d180 / pi), "i0": _i0, "sinc": _sinc,
    "sign": _sign, "signbit": _signbit, "trunc": _trunc, "round": _round,
    "reciprocal": _reciprocal, "real": _real, "imag": _imag, "conj": _conj,
    "conjugate": _conj, "copy": _copy, "nan_to_num": _nan_to_num,
    # comparison and logic
    "equal": _compare(tf.equal), "not_equal": _compare(tf.not_equal),
    "greater": _compare(tf.greater), "greater_equal": _compare(tf.greater_equal),
    "less": _compare(tf.less), "less_equal": _compare(tf.less_equal),
    "logical_and": _logical(tf.logical_and), "logical_or": _logical(tf.logical_or),
    "logical_xor": _logical(tf.math.logical_xor), "logical_not": _logical_not,
    "bitwise_and": _bitwise(tf.bitwise.bitwise_and),
    "bitwise_or": _bitwise(tf.bitwise.bitwise_or),
    "bitwise_xor": _bitwise(tf.bitwise.bitwise_xor), "bitwise_invert": _bitwise_invert,
    "bitwise_not": _bitwise_invert, "bitwise_left_shift": _shift(tf.bitwise.left_shift),
    "left_shift": _shift(tf.bitwise.left_shift),
    "bitwise_right_shift": _shift(tf.bitwise.right_shift),
    "right_shift": _shift(tf.bitwise.right_shift),
    "isnan": _is_value(tf.math.is_nan, False), "isinf": _is_value(tf.math.is_inf, False),
    "isfinite": _is_value(tf.math.is_finite, True), "isneginf": _is_value(_isneginf, False),
    "isposinf": _is_value(_isposinf, False), "isreal": _isreal, "isclose": _isclose,
    "allclose": _allclose, "isin": _isin,
    # reductions
    "sum": _sum, "prod": _prod, "mean": _mean, "var": _var, "std": _std, "max": _max,
    "min": _min, "amax": _amax, "amin": _amin, "all": _all, "any": _any, "ptp": _ptp,
    "count_nonzero": _count_nonzero, "argmax": _argmax, "argmin": _argmin,
    "nanargmax": _nanargmax, "nanargmin": _nanargmin, "nanmax": _nanmax, "nanmin": _nanmin,
    "nansum": _nansum, "nanprod": _nanprod, "nanmean": _nanmean, "nanvar": _nanvar,
    "nanstd": _nanstd, "average": _average, "cumsum": _cumsum, "cumprod": _cumprod,
    "nancumsum": _nancumsum, "nancumprod": _nancumprod, "quantile": _quantile,
    "percentile": _percentile, "median": _median, "nanquantile": _nanquantile,
    "nanpercentile": _nanpercentile, "nanmedian": _nanmedian,
    # creation
    "zeros": _zeros, "ones": _ones, "empty": _empty, "zeros_like": _like(tf.zeros_like),
    "ones_like": _like(tf.ones_like), "empty_like": _like(tf.zeros_like), "full": _full,
    "full_like": _full_like, "array": _array, "arange": _arange, "eye": _eye,
    "identity": _identity, "tri": _tri, "linspace": _linspace, "logspace": _logspace,
    "geomspace": _geomspace,
    # shape and indexing
    "reshape": _reshape, "transpose": _transpose, "expand_dims": _expand_dims,
    "squeeze": _squeeze, "ravel": _ravel, "broadcast_to": _broadcast_to,
    "moveaxis": _moveaxis, "swapaxes": _swapaxes, "concatenate": _concatenate,
    "stack": _stack, "hstack": _hstack, "vstack": _vstack, "dstack": _dstack,
    "append": _append, "split": _split, "array_split": _array_split, "hsplit": _hsplit,
    "vsplit": _vsplit, "dsplit": _dsplit, "tile": _tile, "repeat": _repeat, "flip": _flip,
    "fliplr": _fliplr, "flipud": _flipud, "roll": _roll, "rot90": _rot90, "pad": _pad,
    "get_item": _get_item, "take": _take, "take_along_axis": _take_along_axis,
    "where": _where, "nonzero": _nonzero, "select": _select, "clip": _clip, "diag": _diag,
    "diagflat": _diagflat, "diagonal": _diagonal, "trace": _trace, "tril": _tril,
    "triu": _triu, "diff": _diff, "meshgrid": _meshgrid, "ndim": _ndim, "size": _size,
    "sort": _sort, "argsort": _argsort, "argpartition": _argpartition,
    "searchsorted": _searchsorted, "digitize": _digitize, "bincount": _bincount,
    "histogram": _histogram, "unique": _unique, "unravel_index": _unravel_index,
    "view": _view,
    # products
    "matmul": _matmul, "dot": _dot, "vdot": _vdot, "inner": _inner, "outer": _outer,
    "tensordot": _tensordot, "kron": _kron, "cross": _cross, "einsum": _einsum,
    "correlate": _correlate, "corrcoef": _corrcoef, "slogdet": _slogdet,
    "trapezoid": _trapezoid, "vander": _vander,
}

globals().update({name: _op(name, fn) for name, fn in _OPS.items()})
bartlett = _not_symbolic("Bartlett", _bartlett)
blackman = _not_symbolic("Blackman", _blackman)
hamming = _not_symbolic("Hamming", _hamming)
hanning = _not_symbolic("Hanning", _hanning)
kaiser = _not_symbolic("Kaiser", _kaiser)

__all__ = sorted([*_OPS, "bartlett", "blackman", "hamming", "hanning", "kaiser", "vectorize"])
