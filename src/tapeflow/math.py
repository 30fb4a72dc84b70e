"""`tf.math`: elementwise and reduction math."""

from tapeflow.ops.math_ops import (acosh, asinh, atanh, conj, imag, polyval, real)
from tapeflow.ops.reduce_ops import count_nonzero
from tapeflow.ops.index_ops import bincount
from tapeflow.ops.manip_ops import cumulative_logsumexp
from tapeflow.ops.math_ops import (abs, acos, add, add_n, asin, atan, atan2, ceil, cos, cosh,
                                   divide, divide_no_nan, equal, erf, exp, expm1, floor,
                                   floordiv, floormod, greater, greater_equal, invert, is_finite,
                                   is_inf, is_nan, less, less_equal, log, log1p, logical_and,
                                   logical_not, logical_or, logical_xor, maximum, minimum, mod,
                                   multiply, negative, not_equal, pow, reciprocal, round, rsqrt,
                                   sigmoid, sign, sin, sinh, softplus, sqrt, square,
                                   squared_difference, subtract, tan, tanh, truediv)
from tapeflow.ops.reduce_ops import (argmax, argmin, reduce_all, reduce_any,
                                     reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                                     reduce_prod, reduce_std, reduce_sum, reduce_variance)
from tapeflow.ops.special_ops import (bessel_i0e, bessel_i1e, digamma, erfc, lgamma,
                                      polygamma, xdivy, xlog1py, xlogy)
from tapeflow.ops.manip_ops import cumprod, cumsum, in_top_k, top_k
from tapeflow.ops.index_ops import (segment_max, segment_mean, segment_min,
                                    segment_sum, unsorted_segment_max, unsorted_segment_mean,
                                    unsorted_segment_min, unsorted_segment_sum)
from tapeflow.ops.linalg_ops import reduce_euclidean_norm
from tapeflow.ops.nn_ops import log_sigmoid

__all__ = ["abs", "acos", "add", "add_n", "asin", "atan", "atan2", "ceil", "cos", "cosh", "divide",
           "divide_no_nan", "equal", "erf", "exp", "expm1", "floor", "floordiv", "floormod",
           "greater", "greater_equal", "invert", "is_finite", "is_inf", "is_nan", "less",
           "less_equal", "log", "log1p", "logical_and", "logical_not", "logical_or", "logical_xor",
           "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "pow", "reciprocal",
           "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "softplus", "sqrt", "square",
           "squared_difference", "subtract", "tan", "tanh", "truediv", "argmax", "argmin",
           "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean",
           "reduce_min", "reduce_prod", "reduce_std", "reduce_sum", "reduce_variance", "bessel_i0e",
           "bessel_i1e", "digamma", "erfc", "lgamma", "polygamma", "xdivy", "xlog1py", "xlogy",
           "cumprod", "cumsum", "in_top_k", "top_k", "segment_max", "segment_mean", "segment_min",
           "segment_sum", "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
           "unsorted_segment_sum", "reduce_euclidean_norm", "log_sigmoid", "acosh", "asinh", "atanh",
           "polyval", "count_nonzero", "bincount", "cumulative_logsumexp", "conj", "real", "imag"]
