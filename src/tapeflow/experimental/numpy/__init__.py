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

# TF 2.21's dir(tf.experimental.numpy), all 229 names.
__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "argmax", "argmin", "argsort", "around", "array", "array_equal", "asanyarray", "asarray",
    "ascontiguousarray", "atleast_1d", "atleast_2d", "atleast_3d", "average", "bitwise_and",
    "bitwise_not", "bitwise_or", "bitwise_xor", "bool_", "broadcast_arrays", "broadcast_to",
    "cbrt", "ceil", "clip", "complex128", "complex64", "complex_", "compress", "concatenate",
    "conj", "conjugate", "copy", "cos", "cosh", "count_nonzero", "cross", "cumprod", "cumsum",
    "deg2rad", "diag", "diag_indices", "diagflat", "diagonal", "diff", "divide", "divmod",
    "dot", "dsplit", "dstack", "e", "einsum", "empty", "empty_like", "equal", "exp", "exp2",
    "expand_dims", "experimental_enable_numpy_behavior", "expm1", "eye", "fabs", "finfo", "fix",
    "flatten", "flip", "fliplr", "flipud", "float16", "float32", "float64", "float_",
    "float_power", "floor", "floor_divide", "full", "full_like", "gcd", "geomspace", "greater",
    "greater_equal", "heaviside", "hsplit", "hstack", "hypot", "identity", "iinfo", "imag",
    "inexact", "inf", "inner", "int16", "int32", "int64", "int8", "int_", "isclose",
    "iscomplex", "iscomplexobj", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal",
    "isrealobj", "isscalar", "issubdtype", "ix_", "kron", "lcm", "less", "less_equal",
    "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logspace", "matmul", "max", "maximum", "mean",
    "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply", "nanmean", "nanprod", "nansum",
    "ndarray", "ndim", "negative", "newaxis", "nextafter", "nonzero", "not_equal", "object_",
    "ones", "ones_like", "outer", "pad", "pi", "polyval", "positive", "power", "prod",
    "promote_types", "ptp", "rad2deg", "random", "ravel", "real", "reciprocal", "remainder",
    "repeat", "reshape", "result_type", "roll", "rot90", "round", "select", "shape", "sign",
    "signbit", "sin", "sinc", "sinh", "size", "sort", "split", "sqrt", "square", "squeeze",
    "stack", "std", "string_", "subtract", "sum", "swapaxes", "take", "take_along_axis", "tan",
    "tanh", "tensordot", "tile", "trace", "transpose", "tri", "tril", "triu", "true_divide",
    "uint16", "uint32", "uint64", "uint8", "unicode_", "vander", "var", "vdot", "vsplit",
    "vstack", "where", "zeros", "zeros_like"]
