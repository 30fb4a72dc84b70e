"""Keras 3's core and math ops (`keras.ops.cast`, `cond`, `scan`, `segment_sum`, ...): the
names of `keras.ops` outside its `numpy`, `nn` and `linalg` namespaces."""

from __future__ import annotations

from tapeflow.keras.ops._node import keras_op
from tapeflow.ops import math_ops

cast = keras_op("Cast", math_ops.cast)

__all__ = ["cast"]
