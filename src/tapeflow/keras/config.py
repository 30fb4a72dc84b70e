"""`tf.keras.config`: Keras 3's global settings that tapeflow honours (the backend, the
default float type, the dtype policy, interactive logging). The fuzz factor and the image
data format are read-only here: tapeflow's losses and layers use Keras's defaults (1e-7,
"channels_last")."""

from __future__ import annotations

from typing import Any

from tapeflow.keras import mixed_precision
from tapeflow.keras.backend import floatx, set_floatx
from tapeflow.keras.utils.io_utils import (disable_interactive_logging,
                                           enable_interactive_logging,
                                           is_interactive_logging_enabled)


def backend() -> str:
    """The backend's name: tapeflow runs Keras's TensorFlow backend, "tensorflow"."""
    return "tensorflow"


def epsilon() -> float:
    """The fuzz factor Keras's losses and metrics clip with, 1e-7."""
    return 1e-7


def image_data_format() -> str:
    """The default layout of image tensors, "channels_last"."""
    return "channels_last"


def dtype_policy() -> mixed_precision.DTypePolicy:
    """The global dtype policy (`keras.mixed_precision.global_policy`)."""
    return mixed_precision.global_policy()


def set_dtype_policy(policy: Any) -> None:
    """Sets the global dtype policy ("float32", "mixed_float16", "mixed_bfloat16", ...)."""
    mixed_precision.set_global_policy(policy)


__all__ = ["backend", "disable_interactive_logging", "dtype_policy", "enable_interactive_logging",
           "epsilon", "floatx", "image_data_format", "is_interactive_logging_enabled",
           "set_dtype_policy", "set_floatx"]
