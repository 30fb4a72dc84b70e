"""What converted code calls (as `ag__.<name>`): control flow that decides at run time.

Each statement checks its condition (or iterable) when it runs: a traced tensor makes it graph
control flow (`tf.cond`, `tf.while_loop`), anything else runs it as Python, so loops over
Python values unroll and Python conditions pick one branch while tracing, exactly as
TensorFlow's AutoGraph decides. The statements get and return the values of the names they
assign (their state) instead of reading and writing the caller's variables.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.variables import Variable
from tapeflow.graph.ir import Graph, SymbolicTensor, tracing
from tapeflow.ops import array_ops, control_deps, control_flow_ops, math_ops
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.autograph.conversion import converted_call  # noqa: F401 - used as ag__.converted_call
from tapeflow.autograph.conversion import range_bounds
from tapeflow.autograph.transformer import RETURN_FLAG


# -- undefined values -----------------------------------------------------------------------------

class Undefined:
    """The value of a name a statement reads before anything assigned it. Using it raises
    the error Python would have raised for the unbound name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def _unbound(self, *args: Any, **kwargs: Any) -> Any:
        raise UnboundLocalError(f"cannot access local variable '{self.name}' where it is not "
                                f"associated with a value")

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __float__ = __int__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _unbound
    __rtruediv__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = __matmul__ = _unbound

    def __getattr__(self, name: str) -> Any:
        self._unbound()

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"


class UndefinedReturnValue:
    """The return value of a converted function before a `return` ran."""

    __slots__ = ()


def retval(value: Any) -> Any:
    """What the converted function returns: None where no `return` ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


def ld(local_values: dict, names: Sequence[str]) -> tuple:
    """The current values of `names` (from the caller's `locals()`), Undefined where unbound."""
    return tuple(local_values[n] if n in local_values else Undefined(n) for n in names)


def _is_traced(x: Any) -> bool:
    """A condition that makes graph control flow: a tensor of the graph being traced."""
    if isinstance(x, Variable):
        return context.graph is not None
    return isinstance(x, SymbolicTensor)


def _condition(x: Any) -> Any:
    return x.value() if isinstance(x, Variable) else x


# -- boolean operators and conditional expressions ------------------------------------------------

def not_(x: Any) -> Any:
    """`not x`: a logical_not for a traced tensor, Python's `not` otherwise."""
    if _is_traced(x):
        return math_ops.logical_not(_condition(x))
    return not x


def and_(a: Callable, b: Callable) -> Any:
    """`a and b`, lazy: `b` runs only when needed (inside a tf.cond for a traced `a`)."""
    first = a()
    if _is_traced(first):
        first = _condition(first)
        return control_flow_ops.cond(first, lambda: _as_bool(b()), lambda: first)
    return b() if first else first


def or_(a: Callable, b: Callable) -> Any:
    """`a or b`, lazy: `b` runs only when needed (inside a tf.cond for a traced `a`)."""
    first = a()
    if _is_traced(first):
        first = _condition(first)
        return control_flow_ops.cond(first, lambda: first, lambda: _as_bool(b()))
    return first if first else b()


def _as_bool(x: Any) -> Any:
    return convert_to_tensor(_condition(x))


def if_exp(test: Any, body: Callable, orelse: Callable) -> Any:
    """`body() if test else orelse()`."""
    if _is_traced(test):
        return control_flow_ops.cond(_condition(test), body, orelse)
    return body() if test else orelse()


# -- if -------------------------------------------------------------------------------------------

def if_stmt(test: Any, body: Callable, orelse: Callable, state: tuple,
            outputs: Sequence[str]) -> tuple:
    """An `if` statement: `body(*state)` or `orelse(*state)`, each returning the values of
    `outputs`; a tf.cond when `test` is a traced tensor."""
    if not _is_traced(test):
        return body(*state) if test else orelse(*state)
    if not outputs:
        # A branch with only side effects (assignments, tf.print) still needs an output.
        control_flow_ops.cond(_condition(test), lambda: (body(*state), 0)[1],
                              lambda: (orelse(*state), 0)[1])
        return ()
    seen: dict = {}

    def branch(fn: Callable, which: str) -> Callable:
        def run() -> tuple:
            values = _branch_values(fn(*state), outputs, which)
            seen[which] = values
            if len(seen) == 2:
                _check_branches(seen["main"], seen["else"], outputs)
            return values
        return run
    result = control_flow_ops.cond(_condition(test), branch(body, "main"),
                                   branch(orelse, "else"))
    return tuple(result)


def _branch_values(values: tuple, names: Sequence[str], which: str) -> tuple:
    out = []
    for name, value in zip(names, values):
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(f"the {which} branch must also have a return statement.")
        if isinstance(value, Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {which} branch")
        if value is None:
            raise ValueError(f"'{name}' is None at the end of the {which} branch.")
        out.append(_as_state_value(value, name, f"at the end of the {which} branch"))
    return tuple(out)


def _check_branches(main: tuple, orelse: tuple, names: Sequence[str]) -> None:
    for name, a, b in zip(names, main, orelse):
        try:
            nest.assert_same_structure(a, b, check_types=False)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"'{name}' must have the same nested structure in the main and else "
                            f"branches:\n\n{exc}") from None
        for x, y in zip(nest.flatten(a), nest.flatten(b)):
            if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {x.dtype.name} in the main branch, but "
                                f"dtype {y.dtype.name} in the else branch")


def _as_state_value(value: Any, name: str, where: str) -> Any:
    """A value graph control flow can carry: tensors (Python numbers converted), nested
    structures of them, TensorArrays."""
    def leaf(x: Any) -> Any:
        if isinstance(x, TensorLike) or type(x).__name__ == "TensorArray":
            return x.value() if isinstance(x, Variable) else x
        try:
            return convert_to_tensor(x)
        except (TypeError, ValueError):
            raise TypeError(f"'{name}' must be a Tensor or a value convertible to one "
                            f"{where}; got {type(x).__name__}: {x!r}") from None
    return nest.map_structure(leaf, value)


# -- while ----------------------------------------------------------------------------------------

_LIMITATIONS = ("https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
                "g3doc/reference/limitations.md#consistency-of-control-flow-types for more info.")
_RETURN_IN_LOOP = ("a return statement cannot be placed inside this TensorFlow loop; this may "
                   "happen if a return statement depends on a static Python condition such as "
                   "a hyperparameter")


def while_stmt(test: Callable, body: Callable, state: tuple, names: Sequence[str],
               options: dict) -> tuple:
    """A `while` loop: `state = body(*state)` while `test(*state)`; a tf.while_loop when the
    first test is a traced tensor."""
    first = test(*state)
    if _is_traced(first):
        return _graph_loop(lambda *s: _condition(test(*s)), body, state, names, options)
    if not first:
        return state
    state = body(*state)
    while _python_test(test(*state)):
        state = body(*state)
    return state


def _python_test(value: Any) -> bool:
    if _is_traced(value):
        raise NotImplementedError(
            "The condition of while loop started as non-Tensor, then changed to Tensor. This "
            "may happen either because variables changed type, or when a break or return "
            "statement inside the loop depends on a Tensor condition. In both cases, changing "
            "to a TF loop should remove the error.\nSee " + _LIMITATIONS)
    return bool(value)


def for_stmt(iterable: Any, extra_test: Optional[Callable], body: Callable, state: tuple,
             names: Sequence[str], options: dict) -> tuple:
    """A `for` loop: `state = body(item, *state)` per item (while `extra_test(*state)`, the
    lowered `break`/`return`); a tf.while_loop over a traced tensor's rows, a tf.range or,
    inside tf.function, a dataset's elements."""
    if isinstance(iterable, Variable) and context.graph is not None:
        iterable = iterable.value()
    if isinstance(iterable, SymbolicTensor):
        return _graph_for(iterable, extra_test, body, state, names, options)
    # A dataset brings its own run-time loop (tapeflow.data sits above this layer).
    dataset_loop = getattr(iterable, "_autograph_for_stmt", None)
    if dataset_loop is not None and context.graph is not None:
        return dataset_loop(extra_test, body, state, names, options)
    for item in iterable:
        if extra_test is not None and not _python_extra_test(extra_test(*state)):
            break
        state = body(item, *state)
    return state


def _python_extra_test(value: Any) -> bool:
    if _is_traced(value):
        raise NotImplementedError(
            "break and return statements which depend on a TF condition are not supported "
            "in Python for loops. Did you intend to make it a TF loop?\nSee " + _LIMITATIONS)
    return bool(value)


def _graph_for(iterable: SymbolicTensor, extra_test: Optional[Callable], body: Callable,
               state: tuple, names: Sequence[str], options: dict) -> tuple:
    bounds = range_bounds(iterable)
    if bounds is not None:
        start, limit, delta = bounds
        counter, item_of = start, (lambda i: i)
        step = delta
        done = _range_test(limit, delta)
    else:
        if iterable.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        length = iterable.shape[0] if iterable.shape.rank is not None and \
            iterable.shape[0] is not None else array_ops.shape(iterable)[0]
        counter = convert_to_tensor(np.int32(0))
        limit_t = convert_to_tensor(length, dtype="int32")
        done = lambda i: math_ops.less(i, limit_t)   # noqa: E731
        step = convert_to_tensor(np.int32(1))

        def item_of(i: Tensor) -> Tensor:
            return array_ops.gather(iterable, i)

    def loop_test(i: Tensor, *s: Any) -> Any:
        going = done(i)
        if extra_test is not None:
            going = math_ops.logical_and(going, _as_bool(extra_test(*s)))
        return going

    def loop_body(i: Tensor, *s: Any) -> tuple:
        return (math_ops.add(i, step), *body(item_of(i), *s))

    final = _graph_loop(loop_test, loop_body, (counter, *state), ("<iterate>", *names),
                        options)
    return tuple(final[1:])


def _range_test(limit: Tensor, delta: Tensor) -> Callable:
    """The loop condition of a `for` over tf.range: the step's sign decides the comparison,
    while tracing where the step is a constant, as the graph runs otherwise."""
    step = control_deps.get_static_value(delta)
    if step is not None and np.all(np.asarray(step) > 0):
        return lambda i: math_ops.less(i, limit)
    if step is not None:
        return lambda i: math_ops.greater(i, limit)
    zero = convert_to_tensor(np.zeros((), delta.dtype.as_numpy_dtype))
    return lambda i: math_ops.logical_or(
        math_ops.logical_and(math_ops.greater(delta, zero), math_ops.less(i, limit)),
        math_ops.logical_and(math_ops.less(delta, zero), math_ops.greater(i, limit)))


def _graph_loop(test: Callable, body: Callable, state: tuple, names: Sequence[str],
                options: dict) -> tuple:
    """tf.while_loop over `state`: Python values become tensors, values the body never
    changes stay out of the loop, undefined values get a start from a trial trace."""
    if RETURN_FLAG in names:
        raise NotImplementedError(_RETURN_IN_LOOP)
    state = _initial_values(test, body, state, names)
    carried = [i for i, v in enumerate(state) if not _constant_object(v)]
    fixed = {i: v for i, v in enumerate(state) if i not in carried}

    def full(loop_vars: Sequence) -> list:
        values = list(state)
        for i, v in zip(carried, loop_vars):
            values[i] = v
        return values

    entry = [state[i] for i in carried]

    def loop_test(*loop_vars: Any) -> Any:
        return _as_bool(test(*full(loop_vars)))

    def loop_body(*loop_vars: Any) -> tuple:
        out = body(*full(loop_vars))
        for i, value in fixed.items():
            if out[i] is not value:
                raise TypeError(f"'{names[i]}' must be a Tensor or a value convertible to one "
                                f"to be changed inside a TensorFlow loop; got "
                                f"{type(value).__name__}.")
        new = [_as_state_value(out[i], names[i], "after one iteration") for i in carried]
        _check_iteration(loop_vars, new, [names[i] for i in carried], invariants)
        return tuple(new) if new else (math_ops.add(loop_vars[0], 1),)

    invariants = _invariants(options, [state[i] for i in carried])
    if not entry:   # a loop of side effects only still needs a loop variable
        entry = [convert_to_tensor(np.int32(0))]
        invariants = None
    result = control_flow_ops.while_loop(
        loop_test, loop_body, tuple(entry), shape_invariants=invariants,
        maximum_iterations=options.get("maximum_iterations"))
    final = list(state)
    for i, v in zip(carried, result if carried else ()):
        final[i] = v
    return tuple(final)


def _constant_object(value: Any) -> bool:
    """A loop state value that is no tensor and cannot become one (a model, a list the loop
    appends to): it stays a Python value, and the body must not replace it."""
    if isinstance(value, (TensorLike, bool, int, float, complex, np.ndarray, np.generic)) or \
            type(value).__name__ == "TensorArray":
        return False
    if isinstance(value, (list, tuple, dict)):
        return not all(isinstance(x, (TensorLike, bool, int, float, np.generic, np.ndarray))
                       or type(x).__name__ == "TensorArray" for x in nest.flatten(value))
    return True


def _initial_values(test: Callable, body: Callable, state: tuple, names: Sequence[str]) -> tuple:
    """The loop's starting values: Python numbers as tensors; a name undefined before the
    loop starts as zeros shaped as the body leaves it (found by a trial trace), as TF."""
    undefined = [i for i, v in enumerate(state) if isinstance(v, (Undefined,
                                                                 UndefinedReturnValue))]
    values = [v if i in undefined or _constant_object(v) else
              _as_state_value(v, names[i], "before the loop") for i, v in enumerate(state)]
    if not undefined:
        return tuple(values)
    trial = _trial_iteration(body, values)
    for i in undefined:
        like = trial[i] if trial is not None else None
        leaves = nest.flatten(like)
        if like is None or not leaves or not all(
                isinstance(t, Tensor) and t.shape.is_fully_defined() for t in leaves):
            raise ValueError(f"'{names[i]}' must be defined before the loop.")
        values[i] = nest.map_structure(lambda t: array_ops.zeros(t.shape.as_list(), t.dtype),
                                       like)
    return tuple(values)


def _trial_iteration(body: Callable, values: list,
                     shapes: Optional[Sequence] = None) -> Optional[tuple]:
    """The body's outputs traced once into a throwaway graph (their shapes and dtypes), on
    placeholders of the values' shapes or of `shapes` where given."""
    graph = Graph("loop_trial", parent=context.graph, allow_variable_creation=False)
    args = []
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            shape = v.shape if shapes is None or shapes[i] is None else shapes[i]
            args.append(graph.placeholder(v._value, f"trial_{i}", shape))
        else:
            args.append(v)
    try:
        with tracing(graph, suspend_tapes=True):
            out = body(*args)
            return tuple(_as_state_value(o, "", "") if not isinstance(o, Undefined) else o
                         for o in out)
    except Exception:  # noqa: BLE001 - the real trace reports the error
        return None


def _invariants(options: dict, values: list) -> Optional[list]:
    given = options.get("shape_invariants")
    if not given:
        return None
    shapes = []
    for value in values:
        shape = None
        for var, invariant in given:
            if var is value:
                shape = TensorShape(invariant)
        shapes.append(shape if shape is not None else
                      nest.map_structure(lambda t: t.shape if isinstance(t, TensorLike)
                                         else TensorShape(None), value))
    return shapes


def _check_iteration(before: Sequence, after: Sequence, names: Sequence[str],
                     invariants: Optional[list]) -> None:
    for name, a, b in zip(names, before, after):
        try:
            nest.assert_same_structure(a, b, check_types=False)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"'{name}' does not have the same nested structure after one "
                            f"iteration.\n\n{exc}") from None
        for x, y in zip(nest.flatten(a), nest.flatten(b)):
            if not (isinstance(x, Tensor) and isinstance(y, Tensor)):
                continue
            if x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {x.dtype.name} before the loop, but dtype "
                                f"{y.dtype.name} after one iteration")
            if invariants is None and not control_flow_ops.fits_invariant(y.shape, x.shape):
                raise ValueError(f"'{name}' has shape {x.shape} before the loop, but shape "
                                 f"{y.shape} after one iteration. Use "
                                 f"tf.autograph.experimental.set_loop_options to set shape "
                                 f"invariants.")

