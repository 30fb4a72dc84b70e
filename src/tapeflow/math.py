"""`tf.math`: elementwise and reduction math."""

from tapeflow.ops.math_ops import (abs, acos, add, add_n, asin, atan, atan2, ceil, cos, cosh,  # noqa: F401
                                   divide, divide_no_nan, equal, erf, exp, expm1, floor,
                                   floordiv, floormod, greater, greater_equal, invert, is_finite,
                                   is_inf, is_nan, less, less_equal, log, log1p, logical_and,
                                   logical_not, logical_or, logical_xor, maximum, minimum, mod,
                                   multiply, negative, not_equal, pow, reciprocal, round, rsqrt,
                                   sigmoid, sign, sin, sinh, softplus, sqrt, square,
                                   squared_difference, subtract, tan, tanh, truediv)
from tapeflow.ops.reduce_ops import (argmax, argmin, reduce_all, reduce_any,  # noqa: F401
                                     reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                                     reduce_prod, reduce_std, reduce_sum, reduce_variance)
