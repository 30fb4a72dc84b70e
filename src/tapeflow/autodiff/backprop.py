"""The one backward walk over a tape's record, shared by `gradient` and the vectorized
`jacobian` (which pushes a batch of cotangents with a leading axis through the same walk).

A record is a list of nodes `(primitive, inputs, attrs, outputs)`, oldest first. The walk
keeps only the nodes that depend on a source, runs their rules newest first, and sums the
cotangents arriving at each tensor.
"""

from __future__ import annotations

from typing import Any, Callable

from tapeflow.framework.context import context
from tapeflow.framework.indexed_slices import IndexedSlices, aggregate, densify

# Ops whose VJP hands the cotangent on unchanged: an IndexedSlices cotangent stays sparse
# through them (a gather of a variable's value gives the variable IndexedSlices, as in TF).
SPARSE_PASS_THROUGH = frozenset({"ReadVariableOp", "Identity"})


def carries_gradient(x: Any) -> bool:
    """Only floating and complex values have gradients; integers and booleans never do."""
    return x._value.dtype.kind in "fc"


_support = None


def support():
    """The ops the backward pass builds with (ops import autodiff, so fetched lazily)."""
    global _support
    if _support is None:
        from tapeflow.ops import _autodiff_support
        _support = _autodiff_support
    return _support


def live_nodes(nodes: list, source_ids: set) -> tuple:
    """The nodes that depend on a source, oldest first, and the ids of everything they reach."""
    live = set(source_ids)
    needed = []
    for node in nodes:
        for x in node[1]:
            if id(x) in live:
                needed.append(node)
                outs = node[3]
                if node[0].multiple_results:
                    live.update(id(o) for o in outs)
                else:
                    live.add(id(outs))
                break
    return needed, live


def walk(needed: list, live: set, grads: dict, sources: list, run_rules: Callable,
         fit: Callable, missing_output: Callable) -> list:
    """Pulls the cotangents in `grads` (id -> cotangent, the seeds) back through `needed`.

    `run_rules(prim, out_grads, outs, inputs, attrs, live)` gives the inputs' cotangents;
    `fit(g, x)` shapes a cotangent like its input `x` (undoing broadcasting); and
    `missing_output(o)` is the zero cotangent for an output of a multi-output op that got
    none. Popping each node as it is done lets its tensors die early. Returns the sources'
    cotangents (None where the target does not reach them).
    """
    ops = support()
    keep = {id(s) for s in sources}
    context.backward_depth += 1
    try:
        return _walk(needed, live, grads, sources, run_rules, fit, missing_output, ops, keep)
    finally:
        context.backward_depth -= 1


def _walk(needed: list, live: set, grads: dict, sources: list, run_rules: Callable,
          fit: Callable, missing_output: Callable, ops: Any, keep: set) -> list:
    while needed:
        prim, inputs, attrs, outs = needed.pop()
        if prim.multiple_results:
            out_grads = [_take(grads, id(o), keep) for o in outs]
            if all(g is None for g in out_grads):
                continue
            out_grads = tuple(missing_output(o) if g is None else densify(g)
                              for g, o in zip(out_grads, outs))
        else:
            key = id(outs)
            out_grads = grads.get(key) if key in keep else grads.pop(key, None)
            if out_grads is None:
                continue
            if type(out_grads) is IndexedSlices and prim.name not in SPARSE_PASS_THROUGH:
                out_grads = out_grads._dense()  # the one place rules get sparse ones densified
        in_grads = run_rules(prim, out_grads, outs, inputs, attrs, live)
        for x, g in zip(inputs, in_grads):
            if g is None:
                continue
            key = id(x)
            if key not in live or x._value.dtype.kind not in "fc":  # no gradient for ints
                continue
            g = fit(g, x)
            previous = grads.get(key)
            if previous is None:
                grads[key] = g
            elif type(previous) is IndexedSlices or type(g) is IndexedSlices:
                # Newest first: TF's breadth-first walk reaches the inputs of one op in
                # order, ours takes them newest first (exact for f(gather(a), gather(b))).
                grads[key] = aggregate(g, previous)
            else:
                grads[key] = ops.add(previous, g)
    return [grads.get(id(s)) for s in sources]


def _take(grads: dict, key: int, keep: set) -> Any:
    # A source's cotangent stays (it is the answer); any other is consumed by its producer.
    return grads.get(key) if key in keep else grads.pop(key, None)


__all__ = ["carries_gradient", "support", "live_nodes", "walk"]
