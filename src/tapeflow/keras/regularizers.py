"""`keras.regularizers`: weight and activity penalties (L1, L2, L1L2, OrthogonalRegularizer),
as Keras 3.

A regularizer is a callable `x -> scalar`; a layer's `losses` calls each weight's regularizer
on the weight's current value every time it is read, so the penalty follows the training.
"""

from __future__ import annotations

import math
from typing import Any

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras._registry import (deserialize_keras_object, get_keras_object,
                                      serialize_keras_object)
from tapeflow.keras.layers.layer import to_snake_case
from tapeflow.ops import math_ops, reduce_ops


def validate_float_arg(value: Any, name: str) -> float:
    """A non-negative finite float, or Keras's ValueError."""
    if (not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value)
            or value < 0):
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float."
                         f"Received: {name}={value}")
    return float(value)


class Regularizer:
    """Base class: `__call__(x)` returns the scalar penalty of `x` (0.0 here)."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    def get_config(self) -> dict:
        """The regularizer's constructor arguments, as a dict."""
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        """A regularizer built from the dict `get_config()` returns."""
        return cls(**config)


def _penalty(coefficient: float, x: Any, fn: Any) -> Any:
    x = convert_to_tensor(x)
    return math_ops.cast(coefficient, x.dtype) * reduce_ops.reduce_sum(fn(x))


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)` (both 0 by default); also `l1_l2`."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x: Any) -> Any:
        x = convert_to_tensor(x)
        regularization = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            regularization = regularization + _penalty(self.l1, x, math_ops.abs)
        if self.l2 != 0.0:
            regularization = regularization + _penalty(self.l2, x, math_ops.square)
        return regularization

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """`l1 * sum(|x|)` (l1=0.01 by default); also `l1`."""

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = validate_float_arg(l1, name="l1")

    def __call__(self, x: Any) -> Any:
        return _penalty(self.l1, x, math_ops.abs)

    def get_config(self) -> dict:
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """`l2 * sum(x**2)` (l2=0.01 by default); also `l2`."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = validate_float_arg(l2, name="l2")

    def __call__(self, x: Any) -> Any:
        return _penalty(self.l2, x, math_ops.square)

    def get_config(self) -> dict:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """`factor * 0.5 * mean(|dot products|)` over the distinct pairs of the L2-normalized
    rows (`mode="rows"`) or columns (`mode="columns"`) of a rank-2 input; also
    `orthogonal_regularizer`."""

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        validate_float_arg(factor, name="factor")
        # Keras keeps the factor as a tensor of its own dtype (an int factor stays int32).
        self.factor = convert_to_tensor(factor)
        if mode not in {"rows", "columns"}:
            raise ValueError("Invalid value for argument `mode`. Expected one of "
                             f'{{"rows", "columns"}}. Received: mode={mode}')
        self.mode = mode

    def __call__(self, inputs: Any) -> Any:
        from tapeflow.keras.utils.numerical_utils import normalize
        from tapeflow.ops import array_ops, linalg_ops
        if len(inputs.shape) != 2:
            raise ValueError("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape={inputs.shape}")
        rows = self.mode == "rows"
        inputs = convert_to_tensor(normalize(inputs, axis=1 if rows else 0))
        if rows:
            product = math_ops.matmul(inputs, array_ops.transpose(inputs))
        else:
            product = math_ops.matmul(array_ops.transpose(inputs), inputs)
        size = inputs.shape[0 if rows else 1]
        product_no_diagonal = product * (1.0 - linalg_ops.eye(size, dtype=inputs.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        total = reduce_ops.reduce_sum(math_ops.abs(product_no_diagonal))
        return self.factor * 0.5 * total / num_pairs

    def get_config(self) -> dict:
        return {"factor": float(self.factor), "mode": self.mode}


l1, l2, l1_l2 = L1, L2, L1L2
orthogonal_regularizer = OrthogonalRegularizer

_ALL = {cls.__name__: cls for cls in (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)}
_ALL.update({to_snake_case(name): cls for name, cls in list(_ALL.items())})


def serialize(regularizer: Any) -> Any:
    """`{'module', 'class_name', 'config', 'registered_name'}` for a Regularizer (None stays
    None)."""
    return serialize_keras_object(regularizer, "keras.regularizers")


def deserialize(config: dict, custom_objects: Any = None) -> Regularizer:
    """The Regularizer described by `serialize`'s dict."""
    return deserialize_keras_object(config, _ALL, "regularizer", custom_objects)


def get(identifier: Any) -> Any:
    """A regularizer from None, a name ('l1', 'l2', 'L1L2', ...), a config dict or a
    callable, as `keras.regularizers.get`."""
    return get_keras_object(identifier, _ALL, "regularizer")


__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "orthogonal_regularizer", "get", "serialize", "deserialize"]
