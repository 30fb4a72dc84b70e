"""`keras.ops.nn`: Keras 3's neural-network ops."""

from __future__ import annotations

from tapeflow.keras import activations
from tapeflow.keras.ops._node import keras_op

relu = keras_op("Relu", activations.relu)
sigmoid = keras_op("Sigmoid", activations.sigmoid)
tanh = keras_op("Tanh", activations.tanh)
softmax = keras_op("Softmax", activations.softmax)

__all__ = ["relu", "sigmoid", "tanh", "softmax"]
