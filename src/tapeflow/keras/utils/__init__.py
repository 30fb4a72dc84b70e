"""`keras.utils`: the progress bar and small helpers for training."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.keras.utils.progbar import Progbar


def to_categorical(x: Any, num_classes: Optional[int] = None) -> np.ndarray:
    """One-hot float32 rows for integer class labels (as keras.utils.to_categorical)."""
    x = np.asarray(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    num_classes = int(np.max(x)) + 1 if num_classes is None else num_classes
    out = np.zeros((x.shape[0], num_classes), dtype="float32")
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (num_classes,))


__all__ = ["Progbar", "to_categorical"]
