"""`keras.ops.numpy`: Keras 3's NumPy-like ops."""

from __future__ import annotations

from typing import Any

from tapeflow.keras.ops._node import keras_op
from tapeflow.ops import array_ops, math_ops, reduce_ops

add = keras_op("Add", math_ops.add)
subtract = keras_op("Subtract", math_ops.subtract)
multiply = keras_op("Multiply", math_ops.multiply)
divide = true_divide = keras_op("TrueDivide", math_ops.truediv)
matmul = keras_op("Matmul", math_ops.matmul)
negative = keras_op("Negative", math_ops.negative)
absolute = abs = keras_op("Absolute", math_ops.abs)  # noqa: A001 - Keras's name
square = keras_op("Square", math_ops.square)
sqrt = keras_op("Sqrt", math_ops.sqrt)
exp = keras_op("Exp", math_ops.exp)
log = keras_op("Log", math_ops.log)
maximum = keras_op("Maximum", math_ops.maximum)
minimum = keras_op("Minimum", math_ops.minimum)
reshape = keras_op("Reshape", array_ops.reshape)
transpose = keras_op("Transpose", array_ops.transpose)
expand_dims = keras_op("ExpandDims", array_ops.expand_dims)


def _sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return reduce_ops.reduce_sum(x, axis=axis, keepdims=keepdims)


def _mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return reduce_ops.reduce_mean(x, axis=axis, keepdims=keepdims)


def _concatenate(xs: Any, axis: int = 0) -> Any:
    return array_ops.concat(list(xs), axis=axis)


sum = keras_op("Sum", _sum)  # noqa: A001 - Keras's name
mean = keras_op("Mean", _mean)
concatenate = keras_op("Concatenate", _concatenate)

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "matmul", "negative",
           "absolute", "abs", "square", "sqrt", "exp", "log", "maximum", "minimum", "reshape",
           "transpose", "expand_dims", "sum", "mean", "concatenate"]
