"""`keras.ops` basics: each function runs eagerly on tensors/arrays and, given a KerasTensor,
becomes an operation node of the functional graph (as Keras 3)."""

from __future__ import annotations

from typing import Any, Callable

from tapeflow.framework import nest
from tapeflow.keras import activations
from tapeflow.keras.layers.layer import KerasTensor, _operation
from tapeflow.ops import array_ops, math_ops, reduce_ops


def _op(class_name: str, fn: Callable) -> Callable:
    def op(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(t, KerasTensor) for t in nest.flatten((args, kwargs))):
            return _operation(class_name, fn, *args, **kwargs)
        return fn(*args, **kwargs)
    op.__name__ = op.__qualname__ = fn.__name__ if class_name is None else \
        class_name[0].lower() + class_name[1:]
    op.__doc__ = f"keras.ops: {class_name} (eager, or a graph node on KerasTensors)."
    return op


add = _op("Add", math_ops.add)
subtract = _op("Subtract", math_ops.subtract)
multiply = _op("Multiply", math_ops.multiply)
divide = true_divide = _op("TrueDivide", math_ops.truediv)
matmul = _op("Matmul", math_ops.matmul)
negative = _op("Negative", math_ops.negative)
absolute = abs = _op("Absolute", math_ops.abs)  # noqa: A001 - Keras's name
square = _op("Square", math_ops.square)
sqrt = _op("Sqrt", math_ops.sqrt)
exp = _op("Exp", math_ops.exp)
log = _op("Log", math_ops.log)
maximum = _op("Maximum", math_ops.maximum)
minimum = _op("Minimum", math_ops.minimum)
relu = _op("Relu", activations.relu)
sigmoid = _op("Sigmoid", activations.sigmoid)
tanh = _op("Tanh", activations.tanh)
softmax = _op("Softmax", activations.softmax)
reshape = _op("Reshape", array_ops.reshape)
transpose = _op("Transpose", array_ops.transpose)
expand_dims = _op("ExpandDims", array_ops.expand_dims)
cast = _op("Cast", math_ops.cast)


def _sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return reduce_ops.reduce_sum(x, axis=axis, keepdims=keepdims)


def _mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return reduce_ops.reduce_mean(x, axis=axis, keepdims=keepdims)


def _concatenate(xs: Any, axis: int = 0) -> Any:
    return array_ops.concat(list(xs), axis=axis)


sum = _op("Sum", _sum)  # noqa: A001 - Keras's name
mean = _op("Mean", _mean)
concatenate = _op("Concatenate", _concatenate)

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "matmul", "negative",
           "absolute", "abs", "square", "sqrt", "exp", "log", "maximum", "minimum", "relu",
           "sigmoid", "tanh", "softmax", "reshape", "transpose", "expand_dims", "cast", "sum",
           "mean", "concatenate"]
