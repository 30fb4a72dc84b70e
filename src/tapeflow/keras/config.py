"""`tf.keras.config`: Keras 3's global settings that tapeflow honours (the backend, the
default float type, the fuzz factor, the image data format, the dtype policy, interactive
logging)."""

from __future__ import annotations

from typing import Any

from tapeflow.keras import mixed_precision
from tapeflow.keras.saving.serialization import enable_unsafe_deserialization
from tapeflow.keras.backend import (epsilon, floatx, image_data_format, set_epsilon,
                                    set_floatx, set_image_data_format)
from tapeflow.keras.utils.io_utils import (disable_interactive_logging,
                                           enable_interactive_logging,
                                           is_interactive_logging_enabled)


def backend() -> str:
    """The backend's name: tapeflow runs Keras's TensorFlow backend, "tensorflow"."""
    return "tensorflow"


def dtype_policy() -> mixed_precision.DTypePolicy:
    """The global dtype policy (`keras.mixed_precision.global_policy`)."""
    return mixed_precision.global_policy()


def set_dtype_policy(policy: Any) -> None:
    """Sets the global dtype policy ("float32", "mixed_float16", "mixed_bfloat16", ...)."""
    mixed_precision.set_global_policy(policy)


__all__ = ["backend", "disable_interactive_logging", "dtype_policy", "enable_interactive_logging",
           "enable_unsafe_deserialization",
           "epsilon", "floatx", "image_data_format", "is_interactive_logging_enabled",
           "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format"]
