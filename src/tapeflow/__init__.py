"""tapeflow: TensorFlow 2's GradientTape programming model on NumPy.

`import tapeflow as tf` gives a namespace shaped like TensorFlow's: `tf.constant`,
`tf.Variable`, `tf.GradientTape`, `tf.math`, `tf.nn`, `tf.random`, `tf.linalg`, `tf.keras`, ...
This module only re-exports; the logic lives in the subpackages.
"""

import importlib as _importlib

from tapeflow.framework import errors, nest
from tapeflow.framework.dtypes import (DType, as_dtype, bool, complex64, complex128, double,
                                       float16, float32, float64, half, int8, int16, int32,
                                       int64, string, uint8, uint16, uint32, uint64)
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.context import init_scope
from tapeflow.framework.variables import Variable
from tapeflow.autodiff import GradientTape, UnconnectedGradients, custom_gradient
from tapeflow.ops.map_ops import recompute_grad, vectorized_map
from tapeflow import ops as _ops
from tapeflow.ops.array_ops import *  # noqa: F403
from tapeflow.ops.math_ops import *  # noqa: F403
from tapeflow.ops.reduce_ops import *  # noqa: F403
from tapeflow.ops.control_flow_ops import *  # noqa: F403
# Binds tf.function to the decorator (the submodule of the same name is tapeflow.function).
from tapeflow.function import function, TensorSpec  # noqa: E402
from tapeflow.ops.linalg_ops import *  # noqa: F403  (after reduce_ops: tf.norm does matrices)
from tapeflow.ops.manip_ops import *  # noqa: F403
from tapeflow.ops.index_ops import *  # noqa: F403
from tapeflow.ops.clip_ops import *  # noqa: F403
from tapeflow import linalg  # noqa: E402  (namespace)
from tapeflow import dtypes, math, nn, random  # noqa: E402  (namespaces)
from tapeflow.module import Module, name_scope  # noqa: E402

newaxis = None
from tapeflow._version import __version__  # noqa: E402

# Heavier namespaces load on first use, so `import tapeflow` stays fast.
_LAZY_SUBMODULES = {"keras", "train", "test"}


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        module = _importlib.import_module(f"tapeflow.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'tapeflow' has no attribute {name!r}")

# Everything `from tapeflow import *` gives: the names above and each op family's __all__.
__all__ = ["errors", "nest", "DType", "as_dtype", "bool", "complex64", "complex128", "double",
           "float16", "float32", "float64", "half", "int8", "int16", "int32", "int64", "string",
           "uint8", "uint16", "uint32", "uint64", "IndexedSlices", "Tensor", "convert_to_tensor",
           "TensorShape", "Variable", "init_scope", "GradientTape", "UnconnectedGradients",
           "custom_gradient",
           "recompute_grad", "vectorized_map", "function", "TensorSpec", "linalg", "dtypes", "math",
           "nn", "random", "Module", "name_scope", "newaxis"]
__all__ += _ops.array_ops.__all__
__all__ += _ops.math_ops.__all__
__all__ += _ops.reduce_ops.__all__
__all__ += _ops.control_flow_ops.__all__
__all__ += _ops.linalg_ops.__all__
__all__ += _ops.manip_ops.__all__
__all__ += _ops.index_ops.__all__
__all__ += _ops.clip_ops.__all__
