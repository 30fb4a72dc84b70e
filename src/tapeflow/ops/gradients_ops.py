"""`tf.gradients` and `tf.hessians`: symbolic derivatives of a traced graph (tf.function only).

A trace's graph is a list of nodes (primitive, input values, attributes, output values) in
execution order, which is what a GradientTape's record is. So these functions read the graph
being traced as a record (one tensor object per graph value: the backward walk keys on
identity) and run the tapes' backward walk over it (`autodiff.backprop`): the derivative rules
add their ops to the same graph, as TF's symbolic gradients do, and a tape recording the trace
records them too (higher orders). `tf.hessians` then pulls every row of the identity through
the gradient in one vectorized pass (`autodiff.batching`), where TF runs a while_loop of
gradients.

As TF 2, both raise RuntimeError outside tf.function.
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.autodiff import backprop
from tapeflow.autodiff.core import READ_VARIABLE
from tapeflow.autodiff.tape import UnconnectedGradients, _in_tf_convention
from tapeflow.framework.context import context
from tapeflow.framework.exports import tf_export
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.variables import Variable

_EAGER_ERROR = ("tf.gradients is not supported when eager execution is enabled. Use "
                "tf.GradientTape instead.")
_AGGREGATION_METHODS = (0, 1, 2)  # tf.AggregationMethod: ADD_N, EXPERIMENTAL_TREE, ..._N


class _Record:
    """The trace's graph as a tape's record: `nodes` (primitive, inputs, attrs, outputs) of
    the differentiable ops, oldest first, over one tensor per graph value (`tensor(vid)`)."""

    def __init__(self, graph: Any, stopped: set, known: list) -> None:
        self.graph = graph
        # The tensor objects a tape recording the trace tracks, and the caller's: a rule
        # that uses one is then an op the tape records (a gradient of tf.gradients).
        self.tensors: dict = {x._vid: x for x in _tracked_by_tapes(graph) + known
                              if getattr(x, "_graph", None) is graph}
        self.nodes = []
        for node in graph.nodes:
            op = node.op
            if op == "ReadVariableOp":  # a variable's read: the tape's READ_VARIABLE entry
                variable = graph.values[node.inputs[0]].example
                self.nodes.append((READ_VARIABLE, (variable,), {}, self.tensor(node.outputs[0])))
            elif not isinstance(op, str) and op.differentiable and \
                    not stopped.intersection(node.outputs):  # a stopped op passes nothing
                outs = tuple(map(self.tensor, node.outputs))
                self.nodes.append((op, tuple(map(self.tensor, node.inputs)), node.attrs,
                                   outs if op.multiple_results else outs[0]))

    def tensor(self, vid: int) -> Any:
        t = self.tensors.get(vid)
        if t is None:
            t = self.tensors[vid] = self.graph.symbolic(vid)
        return t

    def source(self, x: Any) -> Any:
        """The record's stand-in for a source `x` (a Variable stays itself: reads key on it);
        a value the graph does not hold gets a fresh tensor no node touches."""
        if isinstance(x, Variable):
            return x
        vid = _vid(self.graph, x)
        return self.tensor(vid) if vid is not None else x


def _tracked_by_tapes(graph: Any) -> list:
    return [x for tape in context.tapes for x in tape._tracked.values()
            if getattr(x, "_graph", None) is graph]


def _vid(graph: Any, x: Any) -> Optional[int]:
    """The value of `graph` that `x` stands for (None: one the graph does not hold)."""
    owner = getattr(x, "_graph", None)
    if owner is graph:
        return x._vid
    if owner is not None:  # an enclosing trace's tensor, if this trace captured it
        return graph._capture_ids.get(id(x))
    entry = graph._consts.get(id(x))  # an eager tensor the trace used as a constant
    return None if entry is None else entry[1]


def _current_graph() -> Any:
    graph = context.graph
    if graph is None:
        raise RuntimeError(_EAGER_ERROR)
    return graph


def _as_list(value: Any, what: str) -> list:
    flat = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in flat:
        if not isinstance(item, (TensorLike, Variable)):
            if item is None:
                raise AttributeError("'NoneType' object has no attribute 'op'")
            raise TypeError(f"tf.gradients: {what} must be Tensors or Variables, got "
                            f"{type(item).__name__}: {item!r}")
    return flat


def _unconnected_mode(value: Any) -> UnconnectedGradients:
    try:
        return UnconnectedGradients(getattr(value, "value", value))
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _seeds(ys: list, grad_ys: Any) -> Optional[list]:
    """One seed per y (None where TF's default, ones, applies), or None for all ones."""
    if grad_ys is None:
        return None
    grad_ys = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
    if len(grad_ys) != len(ys):
        raise ValueError(f"Length mismatch. Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    ops = backprop.support()
    seeds = []
    for index, (y, g) in enumerate(zip(ys, grad_ys)):
        if g is None:
            seeds.append(ops.ones_like(y))
            continue
        g = g if isinstance(g, TensorLike) else ops.convert_to_tensor(g)
        if g.dtype != y.dtype:
            raise TypeError(f"tf.gradients: grad_ys[{index}] has dtype {g.dtype.name}, but "
                            f"ys[{index}] has dtype {y.dtype.name}")
        seeds.append(g)
    return _in_tf_convention(seeds)


def _backward(ys: list, xs: list, seeds: Optional[list], stop_gradients: Any) -> list:
    graph = _current_graph()
    stopped = set() if stop_gradients is None else {
        _vid(graph, s) for s in _as_list(stop_gradients, "stop_gradients")} - {None}
    record = _Record(graph, stopped, ys + xs)
    targets = [record.source(y) for y in ys]
    sources = [record.source(x) for x in xs]
    needed, reads, live = backprop.live_nodes(record.nodes, sources)
    grads = backprop.seed_cotangents(targets, seeds, live)
    found = backprop.walk(needed, reads, live, grads, sources, backprop.support().zeros_like)
    return _in_tf_convention(found)


@tf_export("gradients")
def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              gate_gradients: bool = False, aggregation_method: Any = None,
              stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE) -> list:
    """The symbolic derivatives of the sum of `ys` with respect to each of `xs`, inside a
    tf.function (TF 2 raises RuntimeError eagerly: use tf.GradientTape there).

    Args:
      ys: a Tensor or list of Tensors to differentiate.
      xs: a Tensor or Variable, or a list of them.
      grad_ys: the cotangents of `ys` (one per y; None for ones), as `output_gradients`.
      name: TF's name scope for the gradient ops (unused).
      gate_gradients, aggregation_method: TF's graph-scheduling options; the sums are the
        same (unused, `aggregation_method` checked as TF's).
      stop_gradients: Tensors held constant: the ops making them pass no gradient on.
      unconnected_gradients: `tf.UnconnectedGradients.NONE` (None for an x the ys do not
        reach) or `ZERO` (zeros).

    Returns:
      A list with one entry per x: a Tensor, an IndexedSlices (gathers, as TF's), or None.
    """
    _current_graph()
    if aggregation_method is not None and aggregation_method not in _AGGREGATION_METHODS:
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. "
                         f"Accepted values are {list(_AGGREGATION_METHODS)}.")
    mode = _unconnected_mode(unconnected_gradients)
    flat_ys, flat_xs = _as_list(ys, "ys"), _as_list(xs, "xs")
    found = _backward(flat_ys, flat_xs, _seeds(flat_ys, grad_ys), stop_gradients)
    if mode is UnconnectedGradients.ZERO:
        zeros_like = backprop.support().zeros_like
        found = [zeros_like(x) if g is None else g for g, x in zip(found, flat_xs)]
    return found


def _dense(g: Any) -> Any:
    return g._dense() if isinstance(g, IndexedSlices) else g


@tf_export("hessians")
def hessians(ys: Any, xs: Any, name: str = "hessians", gate_gradients: bool = False,
             aggregation_method: Any = None) -> list:
    """The second derivatives of the sum of `ys` with respect to each of `xs`, inside a
    tf.function: for an x of shape S, a Tensor of shape S + S.

    Args:
      ys: a Tensor or list of Tensors to differentiate.
      xs: a Tensor or list of Tensors (of shapes known while tracing).
      name, gate_gradients, aggregation_method: as `tf.gradients`.
    """
    from tapeflow.autodiff.batching import backprop_batched
    first = gradients(ys, xs, name=name, gate_gradients=gate_gradients,
                      aggregation_method=aggregation_method)
    ops = backprop.support()
    result = []
    for g, x in zip(first, _as_list(xs, "xs")):
        if g is None:  # TF reshapes the missing gradient, and fails so
            raise ValueError("Tried to convert 'tensor' to a tensor and failed. Error: None "
                             "values not supported.")
        g = _dense(g)
        if not x.shape.is_fully_defined():
            raise NotImplementedError(f"tf.hessians: the shape of {x.name} is {x.shape} while "
                                      f"tracing; tapeflow needs it fully known (give the "
                                      f"tf.function an input_signature with known dims, or "
                                      f"none).")
        size = x.shape.num_elements()
        record = _Record(_current_graph(), set(), [g, x])  # now with the gradient's ops
        target, source = record.source(g), record.source(x)
        rows = backprop_batched(record.nodes, target, ops.identity_seeds(target, 0, size),
                                [source])[0] if size else ops.zeros((0,) + tuple(x.shape),
                                                                    x.dtype)
        if rows is None:  # TF's while_loop writes a None row, and fails so
            raise ValueError("None values not supported.")
        rows = _in_tf_convention([_dense(rows)])[0]
        result.append(ops.reshape(rows, tuple(x.shape) * 2))
    return result
