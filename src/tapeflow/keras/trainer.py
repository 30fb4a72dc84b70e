"""`Model.compile` / `fit` / `evaluate` / `predict` / `save_weights`: Keras 3's training API.

`Trainer` is a mixin for `keras.Model` (`class Model(Layer, Trainer)`): it keeps no state
from `__init__` and relies only on the model's `__call__(x, training=)`,
`trainable_variables`, `variables` (or `weights`), `get_weights()` and `set_weights()`.
"""

from __future__ import annotations

from typing import Any


class Trainer:
    """Training methods shared by Keras models (mixed into `keras.Model`)."""

    # Set by `compile`; class-level defaults so Layer's __init__ need not know about them.
    optimizer: Any = None
    loss: Any = None
    compiled: bool = False
    stop_training: bool = False
    history: Any = None
