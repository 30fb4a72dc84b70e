"""`keras.constraints`: projections applied to a weight after each optimizer update
(MaxNorm, NonNeg, UnitNorm, MinMaxNorm), as Keras 3."""

from __future__ import annotations

from typing import Any

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras._registry import (deserialize_keras_object, get_keras_object,
                                      serialize_keras_object)
from tapeflow.keras.layers.layer import to_snake_case
from tapeflow.ops import clip_ops, math_ops, reduce_ops



class Constraint:
    """Base class: `__call__(w)` returns the projected weight (here `w` itself)."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict:
        """The constraint's constructor arguments, as a dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Constraint":
        """A constraint built from the dict `get_config()` returns."""
        return cls(**config)


def _norms(w: Any, axis: Any) -> Any:
    return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales each slice along `axis` whose L2 norm exceeds `max_value` to that norm."""

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Clips negative weights to zero."""

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        return math_ops.maximum(w, math_ops.cast(0, w.dtype))


class UnitNorm(Constraint):
    """Scales each slice along `axis` to unit L2 norm."""

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm into [min_value, max_value] by the fraction `rate`."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: Any = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = (self.rate * clip_ops.clip_by_value(norms, float(self.min_value),
                                                      float(self.max_value))
                   + (1 - self.rate) * norms)
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm

_ALL = {cls.__name__: cls for cls in (Constraint, MaxNorm, NonNeg, UnitNorm, MinMaxNorm)}
_ALL.update({to_snake_case(name): cls for name, cls in list(_ALL.items())})


def serialize(constraint: Any) -> Any:
    """`{'module', 'class_name', 'config', 'registered_name'}` for a Constraint (None stays
    None)."""
    return serialize_keras_object(constraint, "keras.constraints")


def deserialize(config: dict, custom_objects: Any = None) -> Constraint:
    """The Constraint described by `serialize`'s dict."""
    return deserialize_keras_object(config, _ALL, "constraint", custom_objects)


def get(identifier: Any) -> Any:
    """A constraint from None, a name ('max_norm', 'NonNeg', ...), a config dict or a
    callable, as `keras.constraints.get`."""
    return get_keras_object(identifier, _ALL, "constraint")


__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "max_norm", "non_neg",
           "unit_norm", "min_max_norm", "get", "serialize", "deserialize"]
