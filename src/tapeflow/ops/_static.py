"""Static arguments: tensor arguments that an op wrapper reads into Python attributes.

TensorFlow takes a shape, an axis, `k` or `depth` as a run-time INPUT of its op. tapeflow's
kernels take them as attributes (plain Python values), which is what keeps them simple and
fast. Under tf.function that would bake the trace's example value into the graph, and later
calls with another value would silently compute the wrong thing. So an op wrapper reads such
an argument with `static_value` inside a function decorated by `reads_static`: eagerly this is
just the value; under a trace, the wrapper's outputs are passed through a check
(`TracedValueCheck`) that the argument still has the value the function was traced with, so a
different value raises a clear InvalidArgumentError instead of giving wrong numbers.

A tf.Variable given as such an argument is read in the graph first (`reads_static`,
`reads_variables`): TF's ops take it as a run-time input, so it takes the traced-tensor path.

Output SHAPES that depend on input values (boolean_mask, where, unique) need no such check:
tracing gives them unknown dims, and the graph computes them as it runs.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

import numpy as np

from tapeflow.framework.abstract import AbstractValueError, ShapedArray, same_as_input
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable

F = TypeVar("F", bound=Callable[..., Any])


# -- EnsureShape: the check behind tf.ensure_shape --------------------------

def _ensure_shape_kernel(x: np.ndarray, shape: tuple, note: str) -> np.ndarray:
    if len(shape) != np.ndim(x) or any(d is not None and d != s
                                       for d, s in zip(shape, np.shape(x))):
        expected = "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
        raise InvalidArgumentError(f"Shape of tensor input {dims_text(np.shape(x))} is not "
                                   f"compatible with expected shape {expected}.{note}")
    return x


def _ensure_shape_rule(x: ShapedArray, shape: tuple, note: str) -> ShapedArray:
    if x.shape is None:
        return ShapedArray(shape, x.dtype)
    if len(x.shape) != len(shape) or any(a is not None and b is not None and a != b
                                         for a, b in zip(x.shape, shape)):
        raise ValueError(f"Shape of tensor input {dims_text(x.shape)} is not compatible "
                         f"with expected shape {dims_text(shape)}.{note}")
    return ShapedArray([a if b is None else b for a, b in zip(x.shape, shape)], x.dtype)


ensure_shape_prim = Primitive("EnsureShape", _ensure_shape_kernel,
                              shape_rule=_ensure_shape_rule).defvjp(
    lambda g, ans, x, shape, note: g)


# -- TracedValueCheck: a static argument keeps its traced value ------------------------------------

def _value_check_kernel(x: np.ndarray, arg: np.ndarray, expected: Any, note: str) -> np.ndarray:
    if not np.array_equal(arg, np.asarray(expected)):
        raise InvalidArgumentError(f"{note} was {expected} when the function was traced and is "
                                   f"{np.asarray(arg).tolist()} now; tapeflow's tf.function "
                                   f"takes it as a constant of the graph: pass it as a Python "
                                   f"value, or trace again.")
    return x


# `x` passed through, after checking that `arg` (read by an op wrapper at trace time as an
# attribute: a shift, a band width) still has its traced value. No TensorFlow op has this
# name: TensorFlow takes such arguments as run-time inputs, tapeflow's kernels as attributes.
_value_check = Primitive("TracedValueCheck", _value_check_kernel,
                         shape_rule=same_as_input).defvjp(
    lambda g, ans, x, arg, expected, note: (g, None))


def traced_value_guard(x: Tensor, arg: Any, note: str) -> Tensor:
    """Under tf.function, `x` made to depend on a run-time check that the tensor `arg`, whose
    value the caller bakes into an attribute, keeps the value it had when traced (a clear
    error instead of wrong numbers). Eagerly, or for a non-tensor `arg`, `x` itself."""
    if context.graph is None or not isinstance(arg, Tensor):
        return x
    return bind(_value_check, (x, arg), {"expected": np.asarray(arg._value).tolist(),
                                         "note": note})


def is_traced(x: Any) -> bool:
    """Whether `x` is a tensor of the graph being traced (its value is only an example)."""
    return context.state.graph is not None and isinstance(x, Tensor) and hasattr(x, "_graph")


def read_at_run_time(arg: Any) -> bool:
    """Whether `arg` (a tensor, or a list, maybe nested, holding tensors) holds a traced tensor
    whose value may change from run to run: an op then takes it as a run-time input. One
    computed from constants only is read while tracing (TF folds it), as are eager tensors.
    Eagerly it costs one test (op wrappers call it on every call)."""
    return context.state.graph is not None and _holds_run_time_value(arg)


def _holds_run_time_value(arg: Any) -> bool:
    if isinstance(arg, (list, tuple)):
        return any(_holds_run_time_value(a) for a in arg)
    if isinstance(arg, Variable):   # its value may change between runs: read in the graph
        return True
    return is_traced(arg) and not arg._graph.values[arg._vid].fixed


def reject_traced(value: Any) -> None:
    """tf.constant's check: a traced tensor (or one inside a nested list) is not a constant."""
    if context.graph is not None and any(is_traced(v) for v in nest.flatten(value)):
        raise TypeError("Expected any non-tensor type, but got a tensor instead.")


# -- reading static arguments ------------------------------------------------------------------

_state = threading.local()   # .scopes: one list of pending (tensor, note) checks per open wrapper


def _scopes() -> list:
    scopes = getattr(_state, "scopes", None)
    if scopes is None:
        scopes = _state.scopes = []
    return scopes


def _plain(arg: Any, note: str, checks: list) -> Any:
    """`arg` with tensors (itself, or the items of a list/tuple) replaced by their values;
    the traced ones whose value may change from run to run are noted in `checks` (one
    computed from constants only cannot). Under a trace a variable is read in the graph, so
    that a later assignment is checked too."""
    if isinstance(arg, TensorLike):
        if context.graph is not None and not isinstance(arg, Tensor):
            arg = convert_to_tensor(arg)
        graph = getattr(arg, "_graph", None)
        if graph is not None and not graph.values[arg._vid].fixed:
            checks.append((arg, note))
        return np.asarray(arg._value)
    if isinstance(arg, (list, tuple)) and any(isinstance(a, TensorLike) for a in arg):
        return type(arg)(_plain(a, note, checks) if isinstance(a, TensorLike) else a
                         for a in arg)
    return arg


def _identity(value: Any) -> Any:
    return value


def static_value(arg: Any, note: str, read: Callable[[Any], Any] = _identity) -> Any:
    """The Python value of an op's static argument `arg` (a shape, an axis, k, depth):
    `read(arg)`, with any tensor in `arg` (itself or the items of a list) replaced by its
    NumPy value first.

    Under tf.function, a traced tensor read this way is checked at run time to keep its traced
    value: the check is attached to the outputs of the enclosing `@reads_static` op wrapper.
    `note` names the argument in that error, e.g. "Reshape: shape".
    """
    if not isinstance(arg, (TensorLike, list, tuple)):
        return read(arg)      # the common case, kept short: a Python int, None, a TensorShape
    checks: list = []
    try:
        plain = _plain(arg, note, checks)
    except AbstractValueError:
        raise NotImplementedError(
            f"{note} is a tensor whose value is known only when the traced graph runs; this "
            f"op of tapeflow needs it while tracing. Pass a Python value (or a constant) "
            f"instead.") from None
    value = read(plain)
    if checks and context.graph is not None:
        scopes = _scopes()
        if not scopes:  # a wrapper that reads a static argument must be decorated
            raise RuntimeError(f"static_value({note!r}) read a traced tensor outside a "
                               f"@reads_static op wrapper")
        scopes[-1].extend(checks)
    return value


def _guard_outputs(out: Any, checks: list) -> Any:
    def guard(t: Any) -> Any:
        if not isinstance(t, Tensor):
            return t
        for arg, note in checks:
            t = traced_value_guard(t, arg, note)
        return t
    return nest.map_structure(guard, out)


def _read_variables(arg: Any) -> Any:
    """`arg` with a tf.Variable (itself, or an item of a list/tuple) read in the graph being
    traced: TF's ops take a variable given as a shape, axis or size as a run-time input, so an
    assignment between calls changes what the graph computes."""
    if isinstance(arg, Variable):
        return convert_to_tensor(arg)
    if isinstance(arg, (list, tuple)) and any(isinstance(a, Variable) for a in arg):
        return type(arg)(convert_to_tensor(a) if isinstance(a, Variable) else a for a in arg)
    return arg


def _variables_read(args: tuple, kwargs: dict) -> tuple:
    return (tuple(_read_variables(a) for a in args),
            {k: _read_variables(v) for k, v in kwargs.items()})


def reads_variables(fn: F) -> F:
    """Decorates a public op built on other ops that reads a size, offset or count while
    tracing: under a trace, a tf.Variable among its arguments is read in the graph first, so
    it takes the op's path for traced tensors (read when the graph runs) instead of being
    taken for a Python value. Eagerly it costs one test."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if context.state.graph is not None:
            args, kwargs = _variables_read(args, kwargs)
        return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def reads_static(fn: F) -> F:
    """Decorates an op wrapper that reads static arguments with `static_value`: under a trace,
    its tensor outputs are checked at run time to have been computed with the traced values.
    Eagerly it costs one test."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if context.state.graph is None:
            return fn(*args, **kwargs)
        args, kwargs = _variables_read(args, kwargs)
        scopes = _scopes()
        scopes.append([])
        try:
            out = fn(*args, **kwargs)
        finally:
            checks = scopes.pop()
        return _guard_outputs(out, checks) if checks else out
    return wrapper  # type: ignore[return-value]


__all__: list = []
