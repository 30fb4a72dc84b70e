"""The one wrapper every `keras.ops` function goes through: eager on tensors and arrays, an
operation node of the functional graph when any argument is a KerasTensor (as Keras 3)."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from tapeflow.framework import nest
from tapeflow.keras.backend import to_snake_case
from tapeflow.keras.layers.layer import KerasTensor, _operation


def keras_op(class_name: str, fn: Callable) -> Callable:
    """`fn` as the keras.ops function of Keras's operation class `class_name`: called on
    KerasTensors (positionally or by keyword), it becomes a graph node."""
    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(t, KerasTensor) for t in nest.flatten((args, kwargs))):
            args, kwargs = _positional(fn, args, kwargs)
            return _operation(class_name, fn, *args, **kwargs)
        return fn(*args, **kwargs)
    if fn.__name__.startswith(("_", "<")):
        op.__name__ = op.__qualname__ = to_snake_case(class_name)
    if not fn.__doc__:
        op.__doc__ = f"keras.ops: {class_name} (eager, or a graph node on KerasTensors)."
    return op


def _positional(fn: Callable, args: tuple, kwargs: dict) -> tuple:
    """The call with every positional-or-keyword argument passed by position, so that a
    KerasTensor given by keyword (`mask=kt`) is an input of the node, not part of its
    config; keyword-only arguments stay keywords."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs  # the eager call raises the user's TypeError
    bound.apply_defaults()
    return bound.args, bound.kwargs
