"""`tf.custom_gradient`: a function that supplies its own gradient."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable


class VariableWatcher:
    """Collects the variables read while it is active (custom_gradient's `variables`)."""

    def __init__(self) -> None:
        self._seen: dict = {}

    def add(self, variable: Variable) -> None:
        self._seen.setdefault(id(variable), variable)

    def watched_variables(self) -> list:
        return list(self._seen.values())

    def __enter__(self) -> "VariableWatcher":
        context.variable_watchers.append(self)
        context.refresh()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        context.variable_watchers.remove(self)
        context.refresh()


def _accepts_variables(grad_fn: Callable) -> bool:
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def custom_gradient(f: Callable = None) -> Callable:
    """Decorates `f(*x) -> (y, grad_fn)` so that tapes use `grad_fn(*dy)` as y's gradient.

    `grad_fn` returns one gradient per input of `f`. When `f` reads trainable variables,
    `grad_fn` must take a `variables` keyword and return `(input_grads, variable_grads)`.
    `grad_fn` runs with tapeflow ops, so an outer tape can differentiate it again.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not context.active:
            return f(*args, **kwargs)[0]
        inputs = [convert_to_tensor(a) if not isinstance(a, TensorLike) or
                  isinstance(a, Variable) else a for a in args]
        with VariableWatcher() as watcher:
            result, grad_fn = f(*inputs, **kwargs)
        variables = [v for v in watcher.watched_variables() if v.trainable]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError("If using @custom_gradient with a function that uses variables, "
                            "then grad_fn must accept a keyword argument 'variables'.")
        for tape in context.tapes:
            # Watched as their reads would have made them: recompute_grad runs `f` with the
            # tapes hidden, so a variable read only inside it is seen here first.
            for variable in variables:
                tape._watch_read(variable)
        flat = [convert_to_tensor(r) for r in nest.flatten(result)]
        # The outputs pass through one identity op whose gradient is grad_fn's: backprop
        # reaches f's inputs only through grad_fn (the identity gives f's own ops none). As
        # an op it is traced like any other, so it also works inside tf.function.
        prim = _custom_primitive(f.__name__, grad_fn, len(inputs), variables)
        outputs = bind(prim, (*flat, *inputs, *variables), {"n": len(flat)})
        return nest.pack_sequence_as(result, list(outputs))

    return wrapper


def _custom_primitive(name: str, grad_fn: Callable, n_inputs: int, variables: list) -> Primitive:
    # Inputs: f's n results, then f's inputs and the variables it read; outputs: the results.
    prim = Primitive(name, lambda *xs, n: xs[:n], multiple_results=True,
                     shape_rule=lambda *avals, n: tuple(avals[:n]), register=False)

    def vjp(out_grads: Any, outputs: Any, *inputs: Any, n: int) -> tuple:
        if variables:
            input_grads, variable_grads = grad_fn(*out_grads, variables=variables)
        else:
            input_grads, variable_grads = grad_fn(*out_grads), []
        input_grads = list(nest.flatten(input_grads)) if isinstance(input_grads, (list, tuple)) \
            else [input_grads]
        if len(input_grads) != n_inputs:
            raise ValueError(f"custom_gradient function expected to return {n_inputs} gradients,"
                             f" but returned {len(input_grads)} instead.")
        return (None,) * n + tuple(input_grads) + tuple(variable_grads)

    prim.defvjp(vjp)
    return prim


__all__ = ["custom_gradient", "VariableWatcher"]
