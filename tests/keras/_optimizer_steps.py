"""What the optimizer tests against recorded Keras steps share (test_optimizers_more.py,
test_optimizers_keras3_more.py): building an optimizer from a recorded case, and the
distance in float32 units in the last place."""

from __future__ import annotations

import numpy as np

from tapeflow import keras
from tapeflow.keras.optimizers import schedules


def make(name: str, kwargs: dict):
    """The optimizer `name` with a case's arguments (a learning-rate dict is a schedule)."""
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        kwargs["learning_rate"] = getattr(schedules, lr["class_name"])(**lr["config"])
    return getattr(keras.optimizers, name)(**kwargs)


def ulps(a, b) -> int:
    """The largest distance in float32 units in the last place between a and b."""
    def ordered(x):
        i = np.asarray(x, np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return int(np.max(np.abs(ordered(a) - ordered(b)), initial=0))
