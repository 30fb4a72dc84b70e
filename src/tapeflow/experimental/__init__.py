"""`tf.experimental`: TensorFlow's experimental namespaces (`tf.experimental.numpy`)."""

from tapeflow.experimental import numpy

__all__ = ["numpy"]
