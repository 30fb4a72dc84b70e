"""The C library's math as TensorFlow's CPU kernels call it, over NumPy arrays.

TensorFlow's random samplers call C's `logf`, `sinf`, `cosf` (float32 Box-Muller) and `log`,
`log1p`, `exp`, `pow`, `lgamma` (the double samplers). glibc's are not correctly rounded, and
NumPy's own SIMD versions (float32 everywhere, float64 `log`/`log1p`/`exp`/`pow` on AVX-512)
round differently in a fraction of a percent of results, so reproducing TensorFlow's numbers
bit for bit needs glibc's results:

- float32 `logf` and `sincosf`: glibc's algorithms (from Arm's optimized routines) vectorized:
  short polynomials in double precision, rounded once to float32, with those algorithms'
  published tables and the same operations in the same order. They cover the inputs
  Box-Muller gives them: `logf` positive normal floats, `sincosf` magnitudes under 120
  (glibc's fast range reduction).
- double functions: the C library itself, one call per element through Python's `math`
  (which calls it; `lgamma` through ctypes, as `math.lgamma` is CPython's own). Slow (about
  0.1 us per element), so only the samplers that need exact doubles use them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from typing import Callable

import numpy as np

# logf: log(x) = log1p(z / c - 1) + log(c) + k ln 2, with z = x scaled into [0.68, 1.36) by
# 2**k and c taken from a 16-entry table by z's top mantissa bits.
_LOG_INV_C = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
    "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
    "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
    "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOG_C = np.array([float.fromhex(h) for h in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
    "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
    "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
    "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOG_A0, _LOG_A1, _LOG_A2 = (float.fromhex(h) for h in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_LOG_OFFSET = np.uint32(0x3F330000)   # the bits of 0.7: z lands in [0.7, 1.4)


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's `logf` of positive normal float32s."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    shifted = bits - _LOG_OFFSET
    index = (shifted >> np.uint32(19)) & np.uint32(15)
    exponent = shifted.view(np.int32) >> np.int32(23)
    z = (bits - (shifted & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    r = z * _LOG_INV_C[index] - 1.0
    y0 = _LOG_C[index] + exponent * _LN2
    r2 = r * r
    y = _LOG_A1 * r + _LOG_A2
    y = _LOG_A0 * r2 + y
    y = y * r2 + (y0 + r)
    return y.astype(np.float32)


# sinf/cosf: x = n pi/2 + r with |r| <= pi/4, then a sine or cosine polynomial in r by
# quadrant. The quadrant comes from x * (2/pi * 2**24) truncated, as glibc on x86-64.
_HALF_PI_INV_SCALED = float.fromhex("0x1.45F306DC9C883p+23")
_HALF_PI = float.fromhex("0x1.921FB54442D18p0")
_COS_C = [float.fromhex(h) for h in (
    "0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10",
    "0x1.99343027bf8c3p-16")]
_SIN_S = [float.fromhex(h) for h in (
    "-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")]
_SIGN_BIT = np.uint32(0x80000000)
_TINY = np.uint32(0x39800000)    # 2**-12: below it glibc returns x and 1


def _sine_poly(x: np.ndarray, x2: np.ndarray) -> np.ndarray:
    x3 = x * x2
    s1 = _SIN_S[1] + x2 * _SIN_S[2]
    x7 = x3 * x2
    return (x + x3 * _SIN_S[0]) + x7 * s1


def _cosine_poly(x2: np.ndarray) -> np.ndarray:
    c0, c1, c2, c3, c4 = _COS_C
    x4 = x2 * x2
    high = c3 + x2 * c4
    low = c0 + x2 * c1
    x6 = x4 * x2
    return (low + x4 * c2) + x6 * high


def sincosf(x: np.ndarray) -> tuple:
    """glibc's `sinf` and `cosf` of float32s of magnitude under 120."""
    x = np.ascontiguousarray(x, np.float32)
    wide = x.astype(np.float64)
    # Below pi/4 the quadrant is 0 and the reduction subtracts 0.0: glibc's direct branch.
    quadrant = ((wide * _HALF_PI_INV_SCALED).astype(np.int32) + np.int32(0x800000)) >> 24
    reduced = wide - quadrant * _HALF_PI
    x2 = reduced * reduced
    sine, cosine = _sine_poly(reduced, x2), _cosine_poly(x2)
    sine, cosine = sine.astype(np.float32), cosine.astype(np.float32)
    odd = (quadrant & 1).astype(bool)
    sin, cos = np.where(odd, cosine, sine), np.where(odd, sine, cosine)
    # glibc's sign flips per quadrant (a negated argument, a negated coefficient table) are
    # exact negations, as its sine polynomial is odd and its cosine polynomial even: sin is
    # negative in quadrants 2 and 3, cos in 1 and 2.
    quadrant = quadrant.view(np.uint32)
    sin.view(np.uint32)[...] ^= (quadrant & np.uint32(2)) << np.uint32(30)
    cos.view(np.uint32)[...] ^= ((quadrant + np.uint32(1)) & np.uint32(2)) << np.uint32(30)
    tiny = (x.view(np.uint32) & ~_SIGN_BIT) < _TINY
    if tiny.any():
        sin[tiny], cos[tiny] = x[tiny], 1.0
    return sin, cos


# -- double functions: the C library's own --------------------------------------------------

def _elementwise(fn: Callable, fallback: Callable) -> Callable:
    """`fn` (a C library function reached through Python) over arrays. Python raises where C
    returns inf or NaN (log(0), pow(0, -1), overflow); those elements take NumPy's
    `fallback`, whose special values are C's."""
    def safe(*args: float) -> float:
        try:
            return fn(*args)
        except (ValueError, OverflowError):
            return float(fallback(*args))

    def apply(*arrays: np.ndarray) -> np.ndarray:
        arrays = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in arrays))
        lists = [a.reshape(-1).tolist() for a in arrays]
        try:
            values = list(map(fn, *lists))
        except (ValueError, OverflowError):
            values = list(map(safe, *lists))
        return np.array(values, np.float64).reshape(arrays[0].shape)
    return apply


log = _elementwise(math.log, np.log)
log1p = _elementwise(math.log1p, np.log1p)
exp = _elementwise(math.exp, np.exp)
pow = _elementwise(math.pow, np.power)   # noqa: A001 - C's name


def _c_lgamma() -> Callable:
    try:
        fn = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").lgamma
    except (OSError, AttributeError, TypeError):   # no C library to load: CPython's own
        return math.lgamma
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn


_LGAMMA: list = []


def lgamma_distinct(x: np.ndarray) -> np.ndarray:
    """The C library's lgamma over `x`, one call per distinct value (the samplers call it at
    whole numbers, which repeat)."""
    if not _LGAMMA:
        _LGAMMA.append(_c_lgamma())
    values, where = np.unique(x, return_inverse=True)
    return np.array([_LGAMMA[0](v) for v in values.tolist()], np.float64)[where.reshape(-1)]
