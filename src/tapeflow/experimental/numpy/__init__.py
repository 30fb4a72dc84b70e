"""`tf.experimental.numpy` (tnp): NumPy's API on tapeflow tensors, as TensorFlow's.

Every function takes array-likes and returns `tf.Tensor`s (`tnp.ndarray` is `tf.Tensor`),
built on tapeflow ops, so results differentiate through `tf.GradientTape` and trace in
`tf.function`. Dtypes follow TF's tnp: NumPy's inference and promotion (Python floats are
float64 unless `experimental_enable_numpy_behavior(prefer_float32=True)`).
"""

from tapeflow.experimental.numpy import random
from tapeflow.experimental.numpy._arrays import (
    append, arange, array, asanyarray, asarray, ascontiguousarray, atleast_1d, atleast_2d,
    atleast_3d, broadcast_arrays, broadcast_to, compress, concatenate, copy, diag,
    diag_indices, diagflat, diagonal, dsplit, dstack, e, empty, empty_like, expand_dims, eye,
    flatten, flip, fliplr, flipud, full, full_like, hsplit, hstack, identity, inf, isscalar,
    ix_, meshgrid, moveaxis, ndarray, ndim, newaxis, nonzero, ones, ones_like, pad, pi, ravel,
    repeat, reshape, roll, rot90, select, shape, size, split, squeeze, stack, swapaxes, take,
    take_along_axis, tile, transpose, tri, tril, triu, vander, vsplit, vstack, where, zeros,
    zeros_like)
from tapeflow.experimental.numpy._behavior import (
    enable_numpy_behavior as experimental_enable_numpy_behavior)
from tapeflow.experimental.numpy._dtypes import (
    bool_, complex64, complex128, complex_, finfo, float16, float32, float64, float_, iinfo,
    inexact, int8, int16, int32, int64, int_, issubdtype, object_, promote_types, result_type,
    string_, uint8, uint16, uint32, uint64, unicode_)
from tapeflow.experimental.numpy._math import (
    abs, absolute, add, all, allclose, amax, amin, angle, any, arccos, arccosh, arcsin,
    arcsinh, arctan, arctan2, arctanh, argmax, argmin, argsort, around, array_equal, average,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clip, conj, conjugate, cos,
    cosh, count_nonzero, cross, cumprod, cumsum, deg2rad, diff, divide, divmod, dot, einsum,
    equal, exp, exp2, expm1, fabs, fix, float_power, floor, floor_divide, gcd, geomspace,
    greater, greater_equal, heaviside, hypot, imag, inner, isclose, iscomplex, iscomplexobj,
    isfinite, isinf, isnan, isneginf, isposinf, isreal, isrealobj, kron, lcm, less,
    less_equal, linspace, log, log10, log1p, log2, logaddexp, logaddexp2, logical_and,
    logical_not, logical_or, logical_xor, logspace, matmul, max, maximum, mean, min, minimum,
    mod, multiply, nanmean, nanprod, nansum, negative, nextafter, not_equal, outer, polyval,
    positive, power, prod, ptp, rad2deg, real, reciprocal, remainder, round, sign, signbit,
    sin, sinc, sinh, sort, sqrt, square, std, subtract, sum, tan, tanh, tensordot, trace,
    true_divide, var, vdot)

__all__ = sorted(n for n in dir() if not n.startswith("_"))
