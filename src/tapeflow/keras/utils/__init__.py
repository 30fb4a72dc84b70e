"""`keras.utils`: the progress bar and small helpers for training."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.keras.utils.dataset_utils import split_dataset, timeseries_dataset_from_array
from tapeflow.keras.utils.model_plot import model_to_dot, plot_model
from tapeflow.keras.utils.progbar import Progbar
from tapeflow.keras.utils.py_dataset import PyDataset, Sequence


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


__all__ = ["Progbar", "PyDataset", "Sequence", "model_to_dot", "plot_model", "set_random_seed",
           "split_dataset", "timeseries_dataset_from_array", "to_categorical"]
