"""tapeflow: TensorFlow 2's GradientTape programming model on NumPy.

`import tapeflow as tf` gives a namespace shaped like TensorFlow's: `tf.constant`,
`tf.Variable`, `tf.GradientTape`, `tf.math`, `tf.nn`, `tf.random`, `tf.linalg`, `tf.keras`, ...
This module only re-exports; the logic lives in the subpackages. The ops declare their public
names where they are defined (`framework.exports.tf_export`); the values and the machinery
below are imported by name.
"""

import importlib as _importlib

from tapeflow.framework import errors, nest
from tapeflow.framework.dtypes import (DType, as_dtype, bool, complex64, complex128, double,
                                       float16, float32, float64, half, int8, int16, int32,
                                       int64, string, uint8, uint16, uint32, uint64)
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tapeflow.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.context import init_scope
import tapeflow.framework.device  # noqa: F401 - declares tf.device
from tapeflow.framework.variables import Variable, VariableAggregation, VariableSynchronization
from tapeflow.framework.exports import populate as _populate
from tapeflow.autodiff import GradientTape, UnconnectedGradients, custom_gradient
import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
import tapeflow.ops.ragged_ops  # noqa: F401 - RaggedTensor's op methods, tf.ragged
import tapeflow.ops.complex_ops  # noqa: F401 - tf.complex, tf.math.angle
import tapeflow.ops.fft_ops  # noqa: F401 - tf.signal's transforms; tf.fftnd, tf.rfftnd, ...
import tapeflow.ops.sparse_ops  # noqa: F401 - tf.sparse's ops, SparseTensor's operators
import tapeflow.ops.string_ops  # noqa: F401 - tf.strings' ops, tf.as_string
import tapeflow.ops.gradients_ops  # noqa: F401 - tf.gradients, tf.hessians
from tapeflow import dtypes, linalg, math, nn, random  # the namespaces
from tapeflow.module import Module, get_current_name_scope, name_scope
from tapeflow._version import __version__

_populate(globals(), "")
# After the ops: `tf.function` is the decorator (the submodule of that name is
# tapeflow.function).
from tapeflow.function import TensorSpec, function  # noqa: E402

newaxis = None

# Heavier namespaces load on first use, so `import tapeflow` stays fast.
_LAZY_SUBMODULES = {"keras", "train", "test", "config", "autograph", "version", "data",
                     "debugging", "summary", "distribute", "experimental", "image", "signal",
                     "ragged", "sparse", "strings", "bitwise", "lookup", "io", "sets", "audio",
                     "saved_model"}


# Names TF 2.21 gives to Keras's modules: `tf.initializers` is `tf.keras.initializers`.
_LAZY_ALIASES = {"initializers": "tapeflow.keras.initializers"}


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES or name in _LAZY_ALIASES:
        module = _importlib.import_module(_LAZY_ALIASES.get(name, f"tapeflow.{name}"))
        globals()[name] = module
        return module
    raise AttributeError(f"module 'tapeflow' has no attribute {name!r}")


# Everything `from tapeflow import *` gives: every public name above that is not one of
# tapeflow's own subpackages (the TensorFlow-shaped namespaces among them are).
__all__ = sorted(name for name, value in globals().items() if not name.startswith("_") and (
    not isinstance(value, type(_importlib)) or name in
    ("errors", "nest", "dtypes", "linalg", "math", "nn", "random")))
