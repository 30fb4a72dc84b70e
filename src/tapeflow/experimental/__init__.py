"""`tf.experimental`: TensorFlow's experimental namespaces (`tf.experimental.numpy`) and
ragged shapes (`DynamicRaggedShape`, `RowPartition`)."""

from tapeflow.experimental import numpy
from tapeflow.framework.ragged_shape import DynamicRaggedShape, RowPartition

__all__ = ["numpy", "DynamicRaggedShape", "RowPartition"]
