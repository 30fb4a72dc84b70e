"""`tf.dtypes`: the data types and `as_dtype`."""

from tapeflow.framework.dtypes import *  # noqa: F401,F403
from tapeflow.framework.dtypes import DType, as_dtype  # noqa: F401
from tapeflow.ops.math_ops import cast  # noqa: F401
