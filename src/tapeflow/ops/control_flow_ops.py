"""Control flow (`tf.cond`, `tf.case`, `tf.switch_case`, `tf.while_loop`) and `tf.print`.

Eagerly these are plain Python: the chosen branch runs, the loop loops, and tapes record the
ops that ran. Inside `tf.function`, where the predicate is a traced value, each branch (and a
loop's condition and body) is traced into its own graph and compiled; the op that runs them
(`If`/`Case`/`While`, or their `Stateless` forms when the branches change no variable and
print nothing) takes the values the branches capture from outside as inputs, so tapes and
outer traces see one differentiable op.

Derivatives: a branch op's VJP is the same branch op over the branches' VJPs (each replays its
branch graph under a GradientTape). A loop records the loop variables at the start of every
iteration (only when a tape could need them; a variable whose shape may change is zero-padded
to the largest, with each iteration's shape beside it) and its VJP is a loop running the body's
VJP backwards over that history. Both are built from tapeflow ops, so higher derivatives work.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.framework.abstract import ShapedArray, same_as_input
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.variables import Variable
from tapeflow.framework.exports import tf_export
from tapeflow.graph import passes
from tapeflow.graph.compiler import Program, compile_graph, replay
from tapeflow.graph.ir import Graph, SymbolicTensor, has_side_effect, \
    tracing
from tapeflow.ops import tensor_array_ops as _ta
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.math_ops import zeros_like


# -- traced sub-graphs ------------------------------------------------------------------------

class _Branch:
    """A traced function of captured values: its graph, compiled program, output structure."""

    def __init__(self, graph: Any, structure: Any) -> None:
        self.graph = graph
        self.structure = structure
        passes.optimize(graph)
        self.program = compile_graph(graph)
        self.positions: list = []   # where each of its captures sits in the op's inputs
        self._dry = None

    @property
    def stateful(self) -> bool:
        return any(has_side_effect(n.op) or getattr(n.op, "stateful", False)
                   for n in self.graph.nodes)

    def run(self, leading: Sequence, captures: Sequence) -> list:
        program = self.program
        if context.graph is not None:
            # Computing example values while tracing must not assign variables or print.
            if self._dry is None:
                self._dry = Program(self.graph, dry=True)
            program = self._dry
        return program(list(leading) + [captures[p] for p in self.positions])

    def replay(self, leading: Sequence, captures: Sequence) -> list:
        return replay(self.graph, list(leading) + [captures[p] for p in self.positions],
                      skip_side_effects=True)

    def __repr__(self) -> str:
        return f"<branch {self.graph.name}: {len(self.graph.nodes)} ops>"


def _trace_branch(fn: Callable, name: str, args: Sequence = (),
                  shapes: Optional[Sequence] = None) -> tuple:
    """Traces `fn(*placeholders)` into a child graph of the current trace; `shapes` are the
    placeholders' static shapes (the args' own by default)."""
    graph = Graph(name, parent=context.graph, allow_variable_creation=False)
    shapes = [a.shape for a in args] if shapes is None else shapes
    placeholders = [graph.placeholder(a._value, f"{name}_arg{i}", shape)
                    for i, (a, shape) in enumerate(zip(args, shapes))]
    with tracing(graph, suspend_tapes=True):
        result = fn(*placeholders)
        flat = _ta.loop_tensors(result)   # a TensorArray passes as its buffer
        graph.outputs = [graph.value_id(x) for x in flat]
    return graph, result, flat


def _union_captures(branches: list) -> list:
    """The values captured by any branch, once each; sets each branch's positions."""
    outer: list = []
    index: dict = {}
    for branch in branches:
        branch.positions = []
        for obj, _ in branch.graph.captures:
            if id(obj) not in index:
                index[id(obj)] = len(outer)
                outer.append(obj)
            branch.positions.append(index[id(obj)])
    # Variables read before any assignment are passed in as their current value.
    return [x.value() if isinstance(x, Variable) else x for x in outer]


def _is_traced(x: Any) -> bool:
    return isinstance(x, SymbolicTensor)


# -- cond / case / switch_case ----------------------------------------------------------------

def _select_impl(index: Any, *captures: Any, branches: tuple) -> tuple:
    i = int(index)
    if not 0 <= i < len(branches):
        i = len(branches) - 1   # as TensorFlow's Case: out of range runs the last branch
    return tuple(branches[i].run((), captures))


def _if_impl(pred: Any, *captures: Any, branches: tuple) -> tuple:
    return tuple(branches[0 if pred else 1].run((), captures))


def _branch_vjp(gs: list, ans: tuple, selector: Tensor, *captures: Tensor,
                branches: tuple) -> tuple:
    from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients

    def grad_fn(branch: _Branch) -> Callable:
        def compute() -> list:
            # Only floating captures have gradients (watching an integer one would warn).
            positions = [p for p in branch.positions if captures[p].dtype.is_floating]
            mine = [captures[p] for p in positions]
            with GradientTape(persistent=False) as tape:
                for c in mine:
                    tape.watch(c)
                outs = branch.replay((), captures)
            float_outs = [(o, g) for o, g in zip(outs, gs) if o.dtype.is_floating]
            grads = tape.gradient([o for o, _ in float_outs], mine,
                                  output_gradients=[g for _, g in float_outs],
                                  unconnected_gradients=UnconnectedGradients.ZERO) \
                if float_outs and mine else [None] * len(mine)
            full = [zeros_like(c) for c in captures]
            for p, g in zip(positions, grads):
                if g is not None:
                    full[p] = g
            return full
        return compute

    fns = [grad_fn(b) for b in branches]
    if not captures:
        return (None,)
    if len(branches) == 2 and selector.dtype.is_bool:
        grads = cond(selector, fns[0], fns[1])
    else:
        grads = switch_case(selector, fns)
    return (None, *grads)


def _known_zero(g: Tensor) -> bool:
    """True for a cotangent that is zero on every run: an eager tensor (or a traced value
    computed from constants only) of zeros, as the tape supplies for an output nothing used
    (`jacobian` slices it per row)."""
    if any(id(g) in tape._tracked for tape in context.tapes) or \
            any(id(g) in acc._tangents for acc in context.accumulators):
        return False   # a watched zero (forward mode's double-VJP dummy) is a variable
    return (not _is_traced(g) or g._graph.values[g._vid].fixed) and not np.any(g._value)


def _merged(avals: Sequence[ShapedArray]) -> ShapedArray:
    """The most specific shape every one of `avals` fits (as TF merges branch outputs)."""
    shapes = [a.shape for a in avals]
    first = shapes[0]
    if first is None or any(s is None or len(s) != len(first) for s in shapes):
        return ShapedArray(None, avals[0].dtype)
    return ShapedArray([d if all(s[i] == d for s in shapes) else None
                        for i, d in enumerate(first)], avals[0].dtype)


def _branches_rule(selector: ShapedArray, *captures: ShapedArray, branches: tuple) -> tuple:
    per_branch = [[b.graph.values[v].aval for v in b.graph.outputs] for b in branches]
    return tuple(_merged(outs) for outs in zip(*per_branch))


def control_primitives(name: str, impl: Callable, shape_rule: Callable,
                       vjp: Callable) -> tuple:
    """An op running traced sub-graphs, in its two forms: `Stateless<name>`, and `<name>` for
    sub-graphs with side effects (assignments, prints), which graphs never prune or merge."""
    forms = []
    for prim_name, stateful in (("Stateless" + name, False), (name, True)):
        prim = Primitive(prim_name, impl, stateful=stateful, side_effect=stateful,
                         multiple_results=True, shape_rule=shape_rule)
        forms.append(prim.defvjp(vjp))
    return tuple(forms)


_STATELESS_IF, _IF = control_primitives("If", _if_impl, _branches_rule, _branch_vjp)
_STATELESS_CASE, _CASE = control_primitives("Case", _select_impl, _branches_rule, _branch_vjp)


def _check_same_structure(results: list, what: str) -> None:
    first = results[0]
    for other in results[1:]:
        try:
            nest.assert_same_structure(first[1], other[1], check_types=False)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{what} must have the same nested structure of return values: "
                             f"{exc}") from None
        for a, b in zip(first[2], other[2]):
            if a.dtype != b.dtype:
                raise TypeError(f"{what} must return the same dtypes; got {a.dtype.name} and "
                                f"{b.dtype.name}.")


def _traced_select(selector: Tensor, fns: Sequence[Callable], kind: str) -> Any:
    traced = [_trace_branch(fn, f"{kind.lower()}_branch{i}") for i, fn in enumerate(fns)]
    _check_same_structure(traced, f"All branches of tf.{kind.lower()}")
    for g, _, _ in traced:   # later reads of a variable a branch assigns see the new value
        context.graph.assigned |= g.assigned
    branches = [_Branch(g, result) for g, result, _ in traced]
    captures = _union_captures(branches)
    stateful = any(b.stateful for b in branches)
    if kind == "Cond":
        prim = _IF if stateful else _STATELESS_IF
    else:
        prim = _CASE if stateful else _STATELESS_CASE
    outs = bind(prim, (selector, *captures), {"branches": tuple(branches)})
    return _ta.pack(traced[0][1], list(outs))


@tf_export("cond")
def cond(pred: Any, true_fn: Optional[Callable] = None, false_fn: Optional[Callable] = None,
         name: Optional[str] = None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`; inside tf.function, a traced branch op."""
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if _is_traced(pred):
        pred = convert_to_tensor(pred)
        if pred.shape.rank not in (0, None):
            raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for "
                             f"'{{{{node cond}}}} = If' with input shapes: {pred.shape}.")
        if not pred.dtype.is_bool:
            raise TypeError(f"pred must be a boolean scalar tensor, got {pred.dtype.name}.")
        return _traced_select(pred, [true_fn, false_fn], "Cond")
    if isinstance(pred, TensorLike) and np.size(pred._value) != 1:
        raise InvalidArgumentError(f"The second input must be a scalar, but it has shape "
                                   f"{list(np.shape(pred._value))} [Op:If]")
    return true_fn() if bool(pred) else false_fn()


@tf_export("switch_case")
def switch_case(branch_index: Any, branch_fns: Any, default: Optional[Callable] = None,
                name: Optional[str] = None) -> Any:
    """Runs `branch_fns[branch_index]` (`default`, or the last branch, when out of range)."""
    if isinstance(branch_fns, dict):
        keys = sorted(branch_fns)
        if keys != list(range(len(keys))):
            raise ValueError("branch_fns dict keys must be consecutive integers from 0.")
        branch_fns = [branch_fns[k] for k in keys]
    fns = [fn for _, fn in branch_fns] if branch_fns and isinstance(branch_fns[0], tuple) \
        else list(branch_fns)
    if not fns:
        raise ValueError("Must provide at least one item in branch_fns")
    if not all(callable(f) for f in fns):
        raise TypeError("branch_fns must be a list of callables.")
    if default is not None:
        fns = fns + [default]
    if _is_traced(branch_index):
        index = convert_to_tensor(branch_index)
        if not index.dtype.is_integer:
            raise TypeError(f"branch_index must be an int32 or int64 tensor, got "
                            f"{index.dtype.name}.")
        return _traced_select(index, fns, "Switch_case")
    i = int(branch_index)
    return fns[i]() if 0 <= i < len(fns) else fns[-1]()


@tf_export("case")
def case(pred_fn_pairs: Any, default: Optional[Callable] = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """Runs the function paired with the first true predicate (else `default`)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) \
        else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple, got {pair!r}.")
        if not callable(pair[1]):
            raise TypeError("fn for pred must be callable.")
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None.")
        *pairs, (_, default) = pairs
    if any(_is_traced(p) for p, _ in pairs):
        # The index of the first true predicate (len(pairs) when none is) picks the branch.
        from tapeflow.ops import math_ops
        preds = [convert_to_tensor(p) for p, _ in pairs]
        index = convert_to_tensor(np.int32(len(pairs)))
        for i in reversed(range(len(preds))):
            index = math_ops.where(preds[i], convert_to_tensor(np.int32(i)), index)
        return _traced_select(index, [fn for _, fn in pairs] + [default], "Case")
    if exclusive and sum(bool(p) for p, _ in pairs) > 1:
        raise InvalidArgumentError("Input error: exclusive=True: more than 1 conditions "
                                   "evaluated as True")
    for pred, fn in pairs:
        if bool(pred):
            return fn()
    return default()


# -- while_loop -------------------------------------------------------------------------------

def _while_impl(*inputs: Any, cond_fn: _Branch, body: _Branch, n_vars: int, limited: bool,
                history: bool) -> tuple:
    # inputs: the loop variables, the iteration limit (when `limited`), the captured values.
    state = list(inputs[:n_vars])
    limit = int(inputs[n_vars]) if limited else None
    captures = inputs[n_vars + limited:]
    trail: list = [[] for _ in state]
    count = 0
    while (limit is None or count < limit) and \
            bool(cond_fn.run(state, captures)[0]):
        if history:
            for record, value in zip(trail, state):
                record.append(value)
        state = body.run(state, captures)
        count += 1
    histories = [_history(record, v, index, dynamic) for index, (record, v, dynamic) in
                 enumerate(zip(trail, inputs[:n_vars], _dynamic_vars(body, n_vars)))] \
        if history else [(np.zeros((0,), np.asarray(v).dtype), _NO_SHAPES)
                         for v in inputs[:n_vars]]
    return (*state, np.int32(count), *(h for h, _ in histories),
            *(shapes for _, shapes in histories))


_NO_SHAPES = np.zeros((0, 0), np.int32)


def _dynamic_vars(body: _Branch, n_vars: int) -> list:
    """Whether each loop variable may change shape between iterations (its invariant, the
    body's placeholder, has unknown dims)."""
    return [not body.graph.values[v].shape.is_fully_defined()
            for v in body.graph.inputs[:n_vars]]


def _history(record: list, first: Any, index: int, dynamic: bool) -> tuple:
    """One loop variable's values at the start of each iteration, for the VJP: stacked, and
    for a variable whose shape may change, zero-padded to the largest with each iteration's
    shape beside it (so the history is one dense array the gradient reaches)."""
    if not dynamic:
        stack = np.stack(record) if record else \
            np.zeros((0,) + np.shape(first), np.asarray(first).dtype)
        return stack, _NO_SHAPES
    ranks = {np.ndim(v) for v in record} | {np.ndim(first)}
    if len(ranks) > 1:
        raise InvalidArgumentError(
            f"tf.while_loop: loop variable {index} changes rank between iterations; tapeflow "
            f"cannot differentiate such a loop. [Op:While]")
    shapes = np.array([np.shape(v) for v in record], np.int32).reshape(len(record),
                                                                       np.ndim(first))
    largest = shapes.max(axis=0) if record else np.zeros(np.ndim(first), np.int32)
    padded = np.zeros((len(record), *largest), np.asarray(first).dtype)
    for k, value in enumerate(record):
        padded[(k, *(slice(0, d) for d in np.shape(value)))] = value
    return padded, shapes


def _while_vjp(gs: list, ans: tuple, *inputs: Tensor, cond_fn: _Branch, body: _Branch,
               n_vars: int, limited: bool, history: bool) -> tuple:
    from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
    from tapeflow.ops import math_ops
    if not history:
        raise ValueError("tf.while_loop was run without recording its iterations, so it cannot "
                         "be differentiated; run it under the GradientTape.")
    captures = inputs[n_vars + limited:]
    # The backward loop runs as many times as the forward one did on THIS run (`count` and
    # the histories are values of the run, not of the trace).
    count = ans[n_vars]
    stacks = ans[n_vars + 1:2 * n_vars + 1]
    shapes = ans[2 * n_vars + 1:]
    dynamic = _dynamic_vars(body, n_vars)
    g_final = list(gs[:n_vars])
    # The tape fills the cotangent of an unused history with zeros shaped as in the trace; in
    # a graph that constant keeps the traced trip count, so known zeros are dropped here.
    g_stacks = [None if _known_zero(g) else g for g in gs[n_vars + 1:2 * n_vars + 1]]

    def at(j: int, stack: Tensor, i: Tensor) -> Tensor:
        """Iteration i's entry of loop variable j's history (or of its cotangent)."""
        if dynamic[j]:
            return bind(_PADDED_GET, (stack, shapes[j], i))
        return bind(_HISTORY_GET, (stack, i))
    float_caps = [i for i, c in enumerate(captures) if c.dtype.is_floating]

    def back_cond(i: Tensor, *rest: Tensor) -> Tensor:
        return math_ops.greater_equal(i, convert_to_tensor(np.int32(0)))

    def back_body(i: Tensor, *rest: Tensor) -> tuple:
        g_state = list(rest[:n_vars])
        g_caps = list(rest[n_vars:])
        state = [at(j, s, i) for j, s in enumerate(stacks)]
        float_state = [j for j, x in enumerate(state) if x.dtype.is_floating]
        sources = [state[j] for j in float_state] + [captures[k] for k in float_caps]
        with GradientTape() as tape:
            for x in sources:
                tape.watch(x)
            outs = body.replay(state, captures)
        pairs = [(o, g) for o, g in zip(outs, g_state) if o.dtype.is_floating]
        grads = tape.gradient([o for o, _ in pairs], sources,
                              output_gradients=[g for _, g in pairs],
                              unconnected_gradients=UnconnectedGradients.ZERO) if pairs \
            else [zeros_like(x) for x in sources]
        new_state = [zeros_like(x) for x in state]
        for j, g in zip(float_state, grads):
            # The value at the start of iteration i also reached the history output.
            new_state[j] = g if g_stacks[j] is None else math_ops.add(g, at(j, g_stacks[j], i))
        new_caps = [math_ops.add(c, g) for c, g in zip(g_caps, grads[len(float_state):])]
        return (math_ops.subtract(i, convert_to_tensor(np.int32(1))), *new_state, *new_caps)

    start = math_ops.subtract(count, convert_to_tensor(np.int32(1)))
    init_caps = [zeros_like(captures[k]) for k in float_caps]
    # The cotangents keep the loop variables' invariants: they change shape as those do.
    invariants = [TensorShape([]), *(body.graph.values[v].shape
                                     for v in body.graph.inputs[:n_vars]),
                  *(c.shape for c in init_caps)]
    result = while_loop(back_cond, back_body, (start, *g_final, *init_caps),
                        shape_invariants=invariants)
    g_vars = list(result[1:1 + n_vars])
    cap_grads: list = [None] * len(captures)
    for k, g in zip(float_caps, result[1 + n_vars:]):
        cap_grads[k] = g
    return (*g_vars, *([None] if limited else []), *cap_grads)


def _while_rule(*inputs: ShapedArray, cond_fn: _Branch, body: _Branch, n_vars: int,
                limited: bool, history: bool) -> tuple:
    # The loop variables keep their shape invariants (the body's placeholders); the trip
    # count; one history stack per loop variable (empty when not recorded).
    # and per variable the shape it had in each iteration (one row each; empty unless its
    # shape may change).
    state = [body.graph.values[v].aval for v in body.graph.inputs[:n_vars]]
    stacks = [ShapedArray(None if a.shape is None else (None, *a.shape), a.dtype)
              if history else ShapedArray((0,), a.dtype) for a in state]
    shapes = [ShapedArray((None, None if a.shape is None else len(a.shape)), np.int32)
              if history and dynamic else ShapedArray((0, 0), np.int32)
              for a, dynamic in zip(state, _dynamic_vars(body, n_vars))]
    return (*state, ShapedArray((), np.int32), *stacks, *shapes)


_STATELESS_WHILE, _WHILE = control_primitives("While", _while_impl, _while_rule, _while_vjp)

_HISTORY_GET = Primitive(
    "TensorListGetItem", lambda stack, i: stack[int(i)],
    shape_rule=lambda stack, i: ShapedArray(None if stack.shape is None else stack.shape[1:],
                                            stack.dtype))
_HISTORY_SET = Primitive(
    "TensorListSetItem",
    lambda like, i, g: _put(like, int(i), g), shape_rule=same_as_input)
_HISTORY_GET.defvjp(lambda g, ans, stack, i: (bind(_HISTORY_SET, (stack, i, g)), None))
_HISTORY_SET.defvjp(lambda g, ans, like, i, item: (None, None, bind(_HISTORY_GET, (g, i))))


def _put(like: np.ndarray, i: int, g: Any) -> np.ndarray:
    out = np.zeros_like(like)
    out[i] = g
    return out


def _entry(shapes: np.ndarray, i: Any) -> tuple:
    """The index of iteration i's value in a padded history."""
    i = int(i)
    return (i, *(slice(0, int(d)) for d in shapes[i]))


def _put_padded(like: np.ndarray, shapes: np.ndarray, i: Any, g: Any) -> np.ndarray:
    out = np.zeros_like(like)
    out[_entry(shapes, i)] = g
    return out


def _entry_rule(stack: ShapedArray, shapes: ShapedArray, i: ShapedArray) -> ShapedArray:
    rank = None if stack.shape is None else len(stack.shape) - 1
    return ShapedArray(None if rank is None else (None,) * rank, stack.dtype)


# The history of a loop variable whose shape changes: zero-padded, read at each iteration's
# own shape.
_PADDED_GET = Primitive("TensorListGetItemPadded",
                        lambda stack, shapes, i: stack[_entry(shapes, i)],
                        shape_rule=_entry_rule)
_PADDED_SET = Primitive("TensorListSetItemPadded", _put_padded, shape_rule=same_as_input)
_PADDED_GET.defvjp(lambda g, ans, stack, shapes, i:
                   (bind(_PADDED_SET, (stack, shapes, i, g)), None, None))
_PADDED_SET.defvjp(lambda g, ans, like, shapes, i, item:
                   (None, None, None, bind(_PADDED_GET, (g, shapes, i))))


@tf_export("while_loop")
def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: Optional[str] = None) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the final
    loop variables in the structure of `loop_vars`."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    limit = _iteration_limit(maximum_iterations)
    if context.graph is None:
        # Eagerly the loop is Python: shapes may change freely, as in TensorFlow.
        return _eager_while(cond, body, structure, single, limit)

    def packed(fn: Callable) -> Callable:
        def call(*leaves: Tensor) -> Any:
            args = _ta.pack(structure, list(leaves))
            return fn(*args)
        return call

    if _ta.has_pending(structure):
        _infer_array_shapes(body, structure, single)
    flat = _ta.loop_tensors(structure)
    invariants = _ta.invariants(structure,
                                _shape_invariants(shape_invariants, structure, flat))

    cond_graph, _, cond_flat = _trace_branch(packed(cond), "while_cond", flat, invariants)
    if len(cond_flat) != 1 or not cond_flat[0].dtype.is_bool:
        raise TypeError("cond must return a boolean scalar tensor.")

    def body_flat(*leaves: Tensor) -> list:
        out = packed(body)(*leaves)
        out = [out] if single or _lone(out, structure) else out
        nest.assert_same_structure(structure, out, check_types=False)
        return nest.flatten(out)

    body_graph, _, body_out = _trace_branch(body_flat, "while_body", flat, invariants)
    _check_loop_outputs(flat, body_out, invariants)
    # Variables the loop assigns are read anew on each iteration, not passed in once.
    assigned = body_graph.assigned | cond_graph.assigned
    for graph in (cond_graph, body_graph):
        graph.read_live(assigned)
    context.graph.assigned |= assigned
    cond_branch, body_branch = _Branch(cond_graph, None), _Branch(body_graph, None)
    captures = _union_captures([cond_branch, body_branch])
    stateful = cond_branch.stateful or body_branch.stateful
    attrs = {"cond_fn": cond_branch, "body": body_branch, "n_vars": len(flat),
             "limited": limit is not None,
             "history": bool(context.tapes or context.accumulators)}
    # The limit is an input, not an attribute: a traced limit is read when the graph runs.
    limits = () if limit is None else (limit,)
    outs = bind(_WHILE if stateful else _STATELESS_WHILE, (*flat, *limits, *captures), attrs)
    result = _ta.pack(structure, list(outs[:len(flat)]))
    return result[0] if single else result


def _infer_array_shapes(body: Callable, structure: Any, single: bool) -> None:
    """Traces `body` once, into a graph that is dropped, so that the TensorArray loop
    variables that have no buffer yet learn their element shape from its writes."""
    leaves = nest.flatten(structure)
    arrays = {i for i, x in enumerate(leaves) if isinstance(x, _ta.TensorArray)}
    tensors = [convert_to_tensor(x) for i, x in enumerate(leaves) if i not in arrays]

    def probe(*args: Tensor) -> list:
        it = iter(args)
        rebuilt = [x if i in arrays else next(it) for i, x in enumerate(leaves)]
        body(*nest.pack_sequence_as(structure, rebuilt))
        return []

    _trace_branch(probe, "while_probe", tensors)
    _ta.check_inferred(structure)


def _iteration_limit(maximum_iterations: Any) -> Optional[Tensor]:
    """`maximum_iterations` as a scalar integer tensor (None when not given)."""
    if maximum_iterations is None:
        return None
    limit = convert_to_tensor(maximum_iterations)
    if limit.shape.rank != 0:
        raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                         f"{limit.shape}")
    if not limit.dtype.is_integer:
        raise TypeError(f"'maximum_iterations' must be an integer tensor, got "
                        f"{limit.dtype.name}.")
    return limit


def _shape_invariants(shape_invariants: Any, structure: Any, flat: list) -> list:
    """One static shape per flat loop variable: its invariant, or its own shape."""
    if shape_invariants is None:
        return [x.shape for x in flat]
    shapes = [shape_invariants] if not isinstance(structure, (list, tuple)) or \
        (len(structure) == 1 and not isinstance(shape_invariants, (list, tuple))) \
        else shape_invariants
    try:
        nest.assert_same_structure(structure, shapes, check_types=False)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"shape_invariants must have the same structure as loop_vars: "
                         f"{exc}") from None
    return [TensorShape(s) if not isinstance(s, TensorShape) else s
            for s in nest.flatten(shapes)]


def _loop_var_name(x: Tensor) -> str:
    """The name TensorFlow's messages give a loop variable (`Const:0` for a constant)."""
    graph = context.graph
    return graph.values[graph.value_id(x)].name


def fits_invariant(shape: Any, invariant: Any) -> bool:
    """True when `invariant` admits `shape` (TensorFlow's _ShapeLessThanOrEqual)."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_list(), invariant.as_list()))


def _check_loop_outputs(flat: list, outs: list, invariants: list) -> None:
    """The body keeps each loop variable's dtype, and its shape within the invariant."""
    for before, after, invariant in zip(flat, outs, invariants):
        if before.dtype != after.dtype:
            name = _loop_var_name(before)
            raise TypeError(f"Loop var {name} enters the loop with type {before.dtype!s} but "
                            f"has type {after.dtype!s} after 1 iteration. {name} type should "
                            f"remain constant.")
        if not fits_invariant(after.shape, invariant):
            raise ValueError(f"Input tensor `{_loop_var_name(before)}` enters the loop with "
                             f"shape {invariant}, but has shape {after.shape} after one "
                             f"iteration. To allow the shape to vary across iterations, use "
                             f"the `shape_invariants` argument of tf.while_loop to specify a "
                             f"less-specific shape.")


def _lone(result: Any, structure: Any) -> bool:
    # As TensorFlow: a body may return a bare tensor for a one-element list of loop vars.
    return not isinstance(result, (list, tuple)) and len(structure) == 1


def _eager_while(cond: Callable, body: Callable, structure: Any, single: bool,
                 maximum_iterations: Optional[Tensor]) -> Any:
    state = structure
    count = 0
    limit = None if maximum_iterations is None else int(maximum_iterations)
    while (limit is None or count < limit) and bool(cond(*state)):
        new = body(*state)
        new = [new] if single or _lone(new, structure) else new
        nest.assert_same_structure(structure, new, check_types=False)
        state = type(structure)(new) if isinstance(structure, (list, tuple)) and \
            not hasattr(structure, "_fields") else new
        count += 1
    state = _ta.keep_arrays(state)
    return state[0] if single else state


# -- print ------------------------------------------------------------------------------------

def _format_float(x: Any) -> str:
    # As TensorFlow's FloatToBuffer/DoubleToBuffer: the short form when it reads back the
    # same value, else enough digits to round-trip (half types print as float32).
    if isinstance(x, (np.float64, float)):
        short = "%.15g" % x
        return short if np.isnan(x) or float(short) == x else "%.17g" % x
    x = np.float32(x)
    short = "%.6g" % x
    return short if np.isnan(x) or np.float32(short) == x else "%.9g" % x


def _format_scalar(x: Any, quote: bool = False) -> str:
    if isinstance(x, (np.bool_, bool)):
        return "1" if x else "0"
    if isinstance(x, (np.floating, float)) or type(x).__name__ == "bfloat16":
        return _format_float(x)
    if isinstance(x, (np.complexfloating, complex)):
        return "?"    # TensorFlow's tf.print has no format for complex numbers
    if isinstance(x, (np.bytes_, bytes, np.str_, str)):
        text = x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
        return f'"{text}"' if quote else text   # quoted only inside arrays, as TF
    return str(x)


def _dim_spacing(dim: int, ndim: int) -> str:
    return " " if dim == ndim - 1 else "\n" * (ndim - dim - 1) + " " * (dim + 1)


def _format_array(a: np.ndarray, summarize: int) -> str:
    """A tensor as tf.print shows it (TensorFlow's PrintOneDimV2): `summarize` entries at
    each end of every dimension; an empty tensor shows only where its elements would be."""
    ends = a.size if summarize < 0 else min(summarize, a.size)
    if a.ndim == 0:
        return _format_scalar(a[()])
    out: list = []

    def walk(sub: Any, dim: int) -> None:
        if dim == a.ndim:
            out.append(_format_scalar(sub, quote=True))
            return
        out.append("[")
        n = sub.shape[0]
        head = range(min(ends, n))
        for i in head:
            if i > 0:
                out.append(_dim_spacing(dim, a.ndim))
            walk(sub[i], dim + 1)
        if n > 2 * ends:
            out.append(_dim_spacing(dim, a.ndim) + "...")
        for i in range(max(ends, n - ends), n):
            out.append(_dim_spacing(dim, a.ndim))
            walk(sub[i], dim + 1)
        out.append("]")
    walk(a, 0)
    return "".join(out)


def _print_impl(*arrays: Any, template: tuple, sep: str, end: str, stream: str,
                summarize: int) -> tuple:
    if context.graph is not None:
        return ()   # tracing computes example values only; the graph prints when it runs
    values = iter(arrays)
    parts = [_format_array(np.asarray(next(values)), summarize) if piece is None else piece
             for piece in template]
    text = "".join(parts) + end   # `sep` is already in the template
    if stream.startswith("file://"):
        with open(stream[len("file://"):], "a") as handle:
            handle.write(text)
    else:
        target = sys.stdout if stream == "stdout" else sys.stderr
        target.write(text)
        target.flush()
    return ()


_PRINT = Primitive("PrintV2", _print_impl, multiple_results=True, differentiable=False,
                   side_effect=True, shape_rule=lambda *inputs, **attrs: ())


@tf_export("print")
def print(*inputs: Any, output_stream: Any = None, summarize: int = 3, sep: str = " ",  # noqa: A001
          end: str = "\n", name: Optional[str] = None) -> None:
    """Prints tensors and Python values, on every call (also inside tf.function), to
    stderr by default, as `tf.print`."""
    if output_stream is None or output_stream is sys.stderr:
        stream = "stderr"
    elif output_stream is sys.stdout:
        stream = "stdout"
    elif isinstance(output_stream, str) and output_stream.startswith("file://"):
        stream = output_stream
    else:
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. "
                         f"Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                         f"tf.logging.warning, tf.logging.error. File needs to be in the "
                         f"form of 'file://<filepath>'.")
    template, tensors = _print_template(inputs, sep)
    bind(_PRINT, tuple(tensors), {"template": template, "sep": sep, "end": end,
                                  "stream": stream, "summarize": int(summarize)})


_SLOT = "\x00tensor\x00"


def _print_template(inputs: Sequence, sep: str) -> tuple:
    """(template pieces, tensors) for tf.print: as TensorFlow, a string input is printed
    as it is and any other input as `pprint.pformat` of its structure with the tensors
    formatted in place; a None piece of the template stands for the next tensor."""
    import pprint
    texts, tensors = [], []
    for item in inputs:
        if isinstance(item, str):
            texts.append(item)
            continue
        leaves = []
        for leaf in nest.flatten(item):
            if isinstance(leaf, TensorLike):
                tensors.append(convert_to_tensor(leaf))
                leaves.append(_SLOT)
            else:
                leaves.append(leaf)
        packed = nest.pack_sequence_as(item, leaves) if nest.is_nested(item) else leaves[0]
        texts.append(pprint.pformat(packed).replace(repr(_SLOT), _SLOT))
    pieces = sep.join(texts).split(_SLOT)
    template = [pieces[0]]
    for piece in pieces[1:]:
        template += [None, piece]
    return tuple(p for p in template if p != ""), tensors
