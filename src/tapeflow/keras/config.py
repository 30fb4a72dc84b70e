"""`tf.keras.config`: Keras 3's global settings (the backend, the default float type, the fuzz
factor, the image data format, the dtype policy, interactive logging, the epoch and step caps
of `fit`, and the flash-attention, traceback-filtering and NNX flags).

Three have nothing to act on in one tapeflow process, and say so: the flash-attention flag is
kept and read back but no attention kernel differs by it (tapeflow has one CPU attention);
traceback filtering is kept and read back but tapeflow's tracebacks are never filtered;
`is_nnx_enabled` is False (Flax NNX is JAX's). `set_backend` takes only "tensorflow", the
backend tapeflow runs.
"""

from __future__ import annotations

import os
from typing import Any, Optional

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


def set_backend(backend: str) -> None:
    """Keras's backend switch: tapeflow runs Keras's TensorFlow backend only, so "tensorflow"
    changes nothing and any other name raises ValueError."""
    if backend != "tensorflow":
        raise ValueError(f"Unable to import backend : {backend} (tapeflow runs Keras's "
                         "TensorFlow backend only)")


# Keras's module-level settings; the caps also read KERAS_MAX_EPOCHS and
# KERAS_MAX_STEPS_PER_EPOCH when the module loads, as Keras.
_STATE: dict = {
    "flash_attention": None, "traceback_filtering": True,
    "max_epochs": int(os.environ["KERAS_MAX_EPOCHS"]) if "KERAS_MAX_EPOCHS" in os.environ
    else None,
    "max_steps_per_epoch": int(os.environ["KERAS_MAX_STEPS_PER_EPOCH"])
    if "KERAS_MAX_STEPS_PER_EPOCH" in os.environ else None,
}


def enable_flash_attention() -> None:
    """Lets Keras choose flash attention where it applies (the flag goes back to None)."""
    _STATE["flash_attention"] = None


def disable_flash_attention() -> None:
    """Turns the flash-attention flag off."""
    _STATE["flash_attention"] = False


def is_flash_attention_enabled() -> Optional[bool]:
    """The flag: None (Keras decides, the default) or False. tapeflow's attention is the
    same computation either way."""
    return _STATE["flash_attention"]


def enable_traceback_filtering() -> None:
    """Sets the traceback-filtering flag (tapeflow filters no tracebacks)."""
    _STATE["traceback_filtering"] = True


def disable_traceback_filtering() -> None:
    """Clears the traceback-filtering flag."""
    _STATE["traceback_filtering"] = False


def is_traceback_filtering_enabled() -> bool:
    """The traceback-filtering flag (True by default, as Keras)."""
    return _STATE["traceback_filtering"]


def is_nnx_enabled() -> bool:
    """False: Flax NNX is for Keras's JAX backend."""
    return False


def set_max_epochs(max_epochs: Optional[int]) -> None:
    """Caps the epochs of every `fit` (None: no cap), for quick debugging runs."""
    _STATE["max_epochs"] = max_epochs


def max_epochs() -> Optional[int]:
    """The cap on `fit`'s epochs, or None."""
    return _STATE["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch: Optional[int]) -> None:
    """Caps the steps of every epoch (None: no cap)."""
    _STATE["max_steps_per_epoch"] = max_steps_per_epoch


def max_steps_per_epoch() -> Optional[int]:
    """The cap on each epoch's steps, or None."""
    return _STATE["max_steps_per_epoch"]


__all__ = ["disable_flash_attention", "disable_traceback_filtering", "enable_flash_attention",
           "enable_traceback_filtering", "is_flash_attention_enabled", "is_nnx_enabled",
           "is_traceback_filtering_enabled", "max_epochs", "max_steps_per_epoch",
           "set_backend", "set_max_epochs", "set_max_steps_per_epoch",
           "backend", "disable_interactive_logging", "dtype_policy", "enable_interactive_logging",
           "enable_unsafe_deserialization",
           "epsilon", "floatx", "image_data_format", "is_interactive_logging_enabled",
           "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format"]
