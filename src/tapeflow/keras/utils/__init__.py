"""`keras.utils`: data helpers (padding, one-hot, image and text datasets from folders, file
downloads), FeatureSpace for structured data, the progress bar, interactive logging, and the
(de)serialization registry."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.keras.utils.config import Config
from tapeflow.keras.utils.dataset_utils import split_dataset, timeseries_dataset_from_array
from tapeflow.keras.utils.io_utils import (
    disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled)
from tapeflow.keras.utils.model_plot import model_to_dot, plot_model
from tapeflow.keras.utils.numerical_utils import normalize, to_categorical
from tapeflow.keras.utils.progbar import Progbar
from tapeflow.keras.utils.py_dataset import PyDataset, Sequence
from tapeflow.keras.utils.sequence_utils import pad_sequences

# Loaded on first use: these modules import Keras's layers and saving code, which import this
# package while Keras itself loads.
_LAZY = {
    "pack_x_y_sample_weight": "tapeflow.keras.data_adapters",
    "unpack_x_y_sample_weight": "tapeflow.keras.data_adapters",
    "audio_dataset_from_directory": "tapeflow.keras.utils.directory_datasets",
    "bounding_boxes": "tapeflow.keras.utils.bounding_boxes",  # a module
    "image_dataset_from_directory": "tapeflow.keras.utils.directory_datasets",
    "text_dataset_from_directory": "tapeflow.keras.utils.directory_datasets",
    "FeatureSpace": "tapeflow.keras.utils.feature_space",
    "get_file": "tapeflow.keras.utils.file_utils",
    "array_to_img": "tapeflow.keras.utils.image_utils",
    "img_to_array": "tapeflow.keras.utils.image_utils",
    "load_img": "tapeflow.keras.utils.image_utils",
    "save_img": "tapeflow.keras.utils.image_utils",
    **{name: "tapeflow.keras.saving.serialization" for name in (
        "CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
        "get_custom_objects", "get_registered_name", "get_registered_object",
        "register_keras_serializable", "serialize_keras_object")},
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        module = importlib.import_module(_LAZY[name])
        value = module if module.__name__.endswith("." + name) else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tapeflow.keras.utils' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))


def set_random_seed(seed: int) -> None:
    """Seeds every generator a Keras program draws from, as Keras 3: Python's `random` (the
    default seeds of initializers and seed generators), NumPy's global generator,
    `tf.random.set_seed`, and a fresh global seed generator."""
    import random

    from tapeflow.keras import backend
    from tapeflow.ops.random_ops import set_seed
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} "
                         f"(of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)
    backend._GLOBAL_SEED_GENERATOR[0] = None


def is_keras_tensor(x: Any) -> bool:
    """Whether `x` is a symbolic KerasTensor (from `keras.Input` or a layer called on
    one), not an eager tensor."""
    from tapeflow.keras.layers.layer import KerasTensor
    return isinstance(x, KerasTensor)


def get_source_inputs(tensor: Any) -> Any:
    """The `Input` tensors a KerasTensor was computed from, in order, each once (a list); an
    object without a Keras history is returned as it is."""
    if not hasattr(tensor, "_keras_history"):
        return tensor
    if tensor._keras_history is None:
        return [tensor]
    layer, node_index, _ = tensor._keras_history
    nodes = getattr(layer, "_inbound_nodes", None)
    if not nodes or getattr(layer, "is_input_layer", False) or _is_input(layer):
        return [tensor]
    sources: list = []
    for t in nodes[node_index].input_tensors:
        for x in get_source_inputs(t):
            if all(x is not s for s in sources):
                sources.append(x)
    return sources


def _is_input(layer: Any) -> bool:
    from tapeflow.keras.layers.input_layer import InputLayer
    return isinstance(layer, InputLayer)


_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float32", str: "string", "int": "int64",
                  complex: "complex128"}
_ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64",
                   "int8", "int16", "int32", "int64", "bfloat16", "bool", "string",
                   "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")


def standardize_dtype(dtype: Any) -> str:
    """A dtype's Keras name ('float32', 'int64', ...): None is floatx, Python `int` is
    'int64' and `float` 'float32' (the TensorFlow backend's rules); other values raise
    ValueError('Invalid dtype: ...')."""
    from tapeflow.keras.backend import floatx
    if dtype is None:
        return floatx()
    try:
        dtype = _PYTHON_DTYPES.get(dtype, dtype)
    except TypeError:  # unhashable
        pass
    if hasattr(dtype, "name"):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if dtype not in _ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


def clear_session(free_memory: bool = True) -> None:
    """Resets Keras's global state: the automatic layer names start again ('dense', ...)."""
    from tapeflow.keras import backend
    backend.clear_session()


__all__ = ["Config", "CustomObjectScope", "FeatureSpace", "Progbar", "PyDataset", "Sequence",
           "array_to_img",
           "audio_dataset_from_directory", "bounding_boxes", "clear_session",
           "custom_object_scope", "deserialize_keras_object",
           "disable_interactive_logging", "enable_interactive_logging", "get_custom_objects",
           "get_file", "get_registered_name", "get_registered_object", "get_source_inputs",
           "image_dataset_from_directory", "img_to_array", "is_interactive_logging_enabled",
           "is_keras_tensor", "load_img", "model_to_dot", "normalize", "pack_x_y_sample_weight",
           "pad_sequences", "plot_model", "register_keras_serializable", "save_img",
           "serialize_keras_object", "set_random_seed", "split_dataset", "standardize_dtype",
           "text_dataset_from_directory", "timeseries_dataset_from_array", "to_categorical",
           "unpack_x_y_sample_weight"]
