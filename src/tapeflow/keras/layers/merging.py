"""Merge layers: Concatenate, Add, Subtract, Multiply, Average, Maximum, Minimum."""

from __future__ import annotations

from typing import Any

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, math_ops


class _Merge(Layer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.built = True

    def _check(self, inputs: Any) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"A merge layer should be called on a list of inputs. "
                             f"Received: inputs={inputs} (not a list of tensors)")
        return [convert_to_tensor(x) for x in inputs]

    def build(self, input_shape: Any = None) -> None:
        self.built = True


class Add(_Merge):
    """Elementwise sum of a list of inputs."""

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        return math_ops.add_n(xs) if len(xs) > 1 else xs[0]


class Subtract(_Merge):
    """inputs[0] - inputs[1]."""

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        if len(xs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        return xs[0] - xs[1]


class Multiply(_Merge):
    """Elementwise product of a list of inputs."""

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        out = xs[0]
        for x in xs[1:]:
            out = out * x
        return out


class Average(_Merge):
    """Elementwise mean of a list of inputs."""

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        return math_ops.add_n(xs) / float(len(xs))


class Maximum(_Merge):
    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        out = xs[0]
        for x in xs[1:]:
            out = math_ops.maximum(out, x)
        return out


class Minimum(_Merge):
    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        out = xs[0]
        for x in xs[1:]:
            out = math_ops.minimum(out, x)
        return out


class Concatenate(_Merge):
    """Joins a list of inputs along `axis` (the last by default)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any) -> Any:
        return array_ops.concat(self._check(inputs), axis=self.axis)


def add(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Add` layer: the elementwise sum of `inputs`."""
    return Add(**kwargs)(inputs)


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional interface to the `Concatenate` layer, along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "add", "concatenate"]
