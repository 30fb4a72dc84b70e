"""Refusing a gradient whose shape does not fit its variable, before an optimizer changes
anything.

Keras 3.15.1 on TF 2.21 finds such a gradient only when one of the update's ops fails, after
it has built the slots and, with several variables or weight decay, updated some of them. So
that a failed `apply_gradients` leaves every variable, slot and `iterations` as it was, the
optimizer checks every pair first and raises the InvalidArgumentError (and text) that TF's
failing op raises. A gradient that broadcasts to its variable's shape is applied, as TF does,
except where the first op is an assignment (plain SGD, Adagrad), which wants equal shapes.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from tapeflow.framework.abstract import dims_text
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices


class GradientShapeRefusal(NamedTuple):
    """How one optimizer's update meets a gradient of another shape than its variable's
    (measured with Keras 3.15.1 / TF 2.21).

    Attributes:
      op: the first op to take both shapes: 'Sub' or 'AddV2' broadcast them; an
        'Assign...VariableOp' wants them equal.
      gradient_first: whether the broadcasting op's text names the gradient's shape first.
      name_suffix: whether TF's text ends with ' name: '.
      assign_op: the assignment that refuses a gradient broadcasting past its variable's shape.
    """

    op: str
    gradient_first: bool = True
    name_suffix: bool = False
    assign_op: str = "AssignAddVariableOp"


def check_gradient_shapes(refusal: GradientShapeRefusal, grads: Sequence[Any],
                          variables: Sequence[Any]) -> None:
    """Raises TF's InvalidArgumentError for the first gradient that `refusal`'s update would
    fail on; None gradients, IndexedSlices and shapes not fully known are left to the update."""
    for grad, variable in zip(grads, variables):
        grad_shape, var_shape = _known_shape(grad), _known_shape(variable)
        if grad_shape is None or var_shape is None:
            continue
        message = _refusal_text(refusal, grad_shape, var_shape)
        if message is not None:
            raise InvalidArgumentError(message)


def _known_shape(value: Any) -> Optional[tuple]:
    """The fully known static shape of a tensor, variable or array-like, else None."""
    if value is None or isinstance(value, IndexedSlices):
        return None
    shape = getattr(value, "shape", None)
    if shape is None:
        shape = np.shape(value)
    as_list = getattr(shape, "as_list", None)
    if as_list is not None:
        if getattr(shape, "rank", 0) is None:
            return None
        shape = as_list()
    dims = tuple(shape)
    return None if any(d is None for d in dims) else tuple(int(d) for d in dims)


def _refusal_text(refusal: GradientShapeRefusal, grad_shape: tuple,
                  var_shape: tuple) -> Optional[str]:
    """TF's text for applying a gradient of `grad_shape` to a variable of `var_shape` in this
    update, or None where TF applies it."""
    if refusal.op.startswith("Assign"):
        return None if grad_shape == var_shape else \
            _assign_text(grad_shape, var_shape, refusal.op)
    try:
        broadcast = tuple(np.broadcast_shapes(grad_shape, var_shape))
    except ValueError:
        first, second = (grad_shape, var_shape) if refusal.gradient_first else \
            (var_shape, grad_shape)
        suffix = " name: " if refusal.name_suffix else ""
        return (f"Incompatible shapes: {dims_text(first)} vs. {dims_text(second)} "
                f"[Op:{refusal.op}]{suffix}")
    if broadcast == var_shape:
        return None
    return _assign_text(broadcast, var_shape, refusal.assign_op)


def _assign_text(value_shape: tuple, var_shape: tuple, op: str) -> str:
    return (f"Cannot update variable with shape {dims_text(var_shape)} using a Tensor with "
            f"shape {dims_text(value_shape)}, shapes must be equal. [Op:{op}] name: ")


__all__ = ["GradientShapeRefusal", "check_gradient_shapes"]
