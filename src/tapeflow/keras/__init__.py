"""`tf.keras`: Keras 3's API on tapeflow (layers, models, training, initializers, ...)."""

import importlib as _importlib

from tapeflow.keras import activations, backend, initializers, layers
from tapeflow.keras.layers import Input, InputLayer, InputSpec, Layer, KerasTensor
from tapeflow.keras.models import Functional, Model, Sequential
from tapeflow.keras import models
from tapeflow.keras.variables import Variable

# Training-side modules (optimizers, losses, metrics, callbacks, utils) load on first use.
_LAZY = {"optimizers", "losses", "metrics", "callbacks", "utils", "regularizers", "saving",
         "random",
         "constraints", "ops", "mixed_precision", "config", "datasets", "preprocessing",
         "tree", "dtype_policies", "applications"}


def __getattr__(name: str):
    if name in _LAZY:
        module = _importlib.import_module(f"tapeflow.keras.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'tapeflow.keras' has no attribute {name!r}")

__all__ = ["activations", "backend", "initializers", "layers", "Input", "InputLayer", "InputSpec",
           "Layer", "KerasTensor", "Functional", "Model", "Sequential", "models", "Variable"]
