"""`tf.dtypes`: the data types and `as_dtype`."""

from tapeflow.framework.dtypes import *  # noqa: F403
from tapeflow.framework.dtypes import DType, as_dtype
from tapeflow.ops.math_ops import cast, saturate_cast

from tapeflow.framework import dtypes as _dtypes

__all__ = ["DType", "as_dtype", "cast", "saturate_cast"]
__all__ += _dtypes.__all__
