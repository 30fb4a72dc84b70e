"""Graph passes over the traced IR: dead code elimination, common subexpressions, constant
folding. Each rewrites the graph in place and keeps every node a real op, so the graph can
still be printed and replayed op by op (fusion and buffer reuse happen later, in lowering)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.graph.ir import Graph, has_side_effect, is_nondeterministic


def _substitute(graph: Graph, subst: dict) -> None:
    if not subst:
        return
    for node in graph.nodes:
        node.inputs = [subst.get(v, v) for v in node.inputs]
    graph.outputs = [subst.get(v, v) for v in graph.outputs]


def eliminate_dead_code(graph: Graph) -> int:
    """Removes nodes whose outputs nothing needs (side-effecting ops always stay)."""
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if has_side_effect(node.op) or any(v in live for v in node.outputs):
            kept.append(node)
            live.update(node.inputs)
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept[::-1]
    return removed


def attrs_key(attrs: dict) -> Any:
    """A hashable key that is equal for equal attributes (arrays compare by value, slices
    by their bounds); raises TypeError for attributes that cannot be hashed."""
    key = tuple((name, _frozen(attrs[name])) for name in sorted(attrs))
    hash(key)  # unhashable attributes (callables held by reference are fine) raise here
    return key


def _frozen(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, slice):  # unhashable before Python 3.12
        return ("slice", _frozen(value.start), _frozen(value.stop), _frozen(value.step))
    if type(value) in (tuple, list):
        return (type(value).__name__,) + tuple(_frozen(item) for item in value)
    return value


def eliminate_common_subexpressions(graph: Graph) -> int:
    """Merges nodes that compute the same op on the same inputs with the same attributes.

    Variable reads merge only between two assignments of that variable, and never across a
    stateful control-flow op (its branches or body may assign any variable); random draws and
    side effects never merge.
    """
    seen: dict = {}
    subst: dict = {}
    epoch: dict = {}   # variable handle vid -> number of assignments so far
    barriers = 0       # stateful control-flow ops so far
    kept = []
    for node in graph.nodes:
        node.inputs = [subst.get(v, v) for v in node.inputs]
        name = node.op_name
        if name == "AssignVariableOp":
            epoch[node.inputs[0]] = epoch.get(node.inputs[0], 0) + 1
            kept.append(node)
            continue
        if has_side_effect(node.op):  # a branch or loop may assign any variable
            barriers += 1
            kept.append(node)
            continue
        if name == "ReadVariableOp":
            key = ("read", node.inputs[0], epoch.get(node.inputs[0], 0), barriers)
        elif is_nondeterministic(node.op):
            kept.append(node)
            continue
        else:
            try:
                key = (id(node.op), tuple(node.inputs), attrs_key(node.attrs))
            except TypeError:
                kept.append(node)
                continue
        previous = seen.get(key)
        if previous is None:
            seen[key] = node
            kept.append(node)
        else:
            subst.update(zip(node.outputs, previous.outputs))
    merged = len(graph.nodes) - len(kept)
    graph.nodes = kept
    _substitute(graph, subst)
    return merged


def fold_constants(graph: Graph) -> int:
    """Replaces deterministic ops whose inputs are all constants by their (traced) values.

    The example values computed while tracing are exactly the ops' results on those constants,
    so folding needs no extra computation: the outputs become constants.
    """
    values = graph.values
    kept = []
    folded = 0
    for node in graph.nodes:
        # Only where every output has its value: a kernel that failed on the constants left
        # its outputs abstract (its error is the graph's, raised when it runs).
        if node.inputs and not is_nondeterministic(node.op) and \
                all(values[v].kind == "const" for v in node.inputs) and \
                all(values[v].example is not None for v in node.outputs):
            for v in node.outputs:
                values[v].kind = "const"
                values[v].producer = None
            folded += 1
        else:
            kept.append(node)
    graph.nodes = kept
    return folded


_SMALL_CONSTANT = 64  # elements: compared by value; larger constants keep their identity


def merge_equal_constants(graph: Graph) -> int:
    """Makes small constants with equal dtype, shape and value one value, so that the same
    computation on them (an optimizer's per-variable step size, say) becomes one node."""
    canonical: dict = {}
    subst: dict = {}
    for info in graph.values:
        if info.kind != "const":
            continue
        value = np.asarray(info.example)
        if value.size > _SMALL_CONSTANT or value.dtype == object:
            continue
        key = (value.dtype.str, value.shape, value.tobytes())
        first = canonical.setdefault(key, info.vid)
        if first != info.vid:
            subst[info.vid] = first
    _substitute(graph, subst)
    return len(subst)


def fold_constant_selects(graph: Graph) -> int:
    """Replaces a select (`tf.where`) whose condition is a constant, all True or all False,
    by the operand it picks where that operand already has the result's shape and dtype (a
    loss's `divide_no_nan`-style guard on a count known when tracing)."""
    values = graph.values
    subst: dict = {}
    kept = []
    for node in graph.nodes:
        node.inputs = [subst.get(v, v) for v in node.inputs]   # a select of a folded one
        picked = None
        if node.op_name == "SelectV2" and values[node.inputs[0]].kind == "const":
            condition = np.asarray(values[node.inputs[0]].example)
            if condition.dtype == bool and condition.size and \
                    (condition.all() or not condition.any()):
                picked = node.inputs[1] if condition.all() else node.inputs[2]
                out, info = values[node.outputs[0]], values[picked]
                if not (out.shape.is_fully_defined() and info.shape.is_fully_defined()
                        and out.shape == info.shape and out.dtype == info.dtype):
                    picked = None
        if picked is None:
            kept.append(node)
        else:
            subst[node.outputs[0]] = picked
    graph.nodes = kept
    _substitute(graph, subst)
    return len(subst)


def optimize(graph: Graph) -> dict:
    """Runs the passes; returns how much each did (shown by ConcreteFunction.pretty_printed)."""
    stats = {"dead_code": eliminate_dead_code(graph)}
    stats["constants_merged"] = merge_equal_constants(graph)
    stats["constants_folded"] = fold_constants(graph)
    stats["constants_merged"] += merge_equal_constants(graph)  # folding made new ones
    stats["selects_folded"] = fold_constant_selects(graph)
    stats["cse_merged"] = eliminate_common_subexpressions(graph)
    stats["dead_code"] += eliminate_dead_code(graph)
    return stats


__all__ = ["optimize", "eliminate_dead_code", "merge_equal_constants",
           "eliminate_common_subexpressions", "fold_constants", "fold_constant_selects"]
