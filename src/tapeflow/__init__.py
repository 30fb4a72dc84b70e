"""tapeflow: TensorFlow 2's GradientTape programming model on NumPy.

`import tapeflow as tf` gives a namespace shaped like TensorFlow's.
"""

from tapeflow.framework import errors, nest
from tapeflow.framework.dtypes import (DType, as_dtype, bool, complex64, complex128, double,
                                       float16, float32, float64, half, int8, int16, int32,
                                       int64, string, uint8, uint16, uint32, uint64)
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.variables import Variable
from tapeflow.autodiff import GradientTape, UnconnectedGradients, custom_gradient
from tapeflow import ops as _ops
from tapeflow.ops.array_ops import (broadcast_to, concat, constant, expand_dims, fill, ones,
                                    rank, reshape, shape, size, slice, split, squeeze, stack,
                                    tile, transpose, unstack, zeros)
from tapeflow.ops.math_ops import (abs, add, add_n, cast, divide, equal, exp, greater,
                                   greater_equal, identity, less, less_equal, logical_and,
                                   logical_not, logical_or, matmul, maximum, minimum, multiply,
                                   negative, not_equal, ones_like, pow, round, sigmoid, sign,
                                   sqrt, square, stop_gradient, subtract, tanh, truediv, where,
                                   zeros_like)
from tapeflow.ops.reduce_ops import (argmax, argmin, norm, reduce_all, reduce_any,
                                     reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                                     reduce_prod, reduce_std, reduce_sum, reduce_variance)
from tapeflow import dtypes, math  # noqa: E402  (namespaces)

newaxis = None
__version__ = "0.1.0"
