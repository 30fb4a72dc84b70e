"""The one wrapper every `keras.ops` function goes through: eager on tensors and arrays, an
operation node of the functional graph when any argument is a KerasTensor (as Keras 3)."""

from __future__ import annotations

import functools
from typing import Any, Callable

from tapeflow.framework import nest
from tapeflow.keras.layers.layer import KerasTensor, _operation


def keras_op(class_name: str, fn: Callable) -> Callable:
    """`fn` as the keras.ops function of Keras's operation class `class_name` (its snake-case
    name is the function's name): called on KerasTensors, it becomes a graph node."""
    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(t, KerasTensor) for t in nest.flatten((args, kwargs))):
            return _operation(class_name, fn, *args, **kwargs)
        return fn(*args, **kwargs)
    op.__name__ = op.__qualname__ = class_name[0].lower() + class_name[1:]
    if not fn.__doc__:
        op.__doc__ = f"keras.ops: {class_name} (eager, or a graph node on KerasTensors)."
    return op
