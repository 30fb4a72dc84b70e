"""The one backward walk over a tape's record, shared by `gradient` and the vectorized
`jacobian` (which pushes a batch of cotangents with a leading axis through the same walk).

A record is a list of nodes `(primitive, inputs, attrs, outputs)`, oldest first. The walk
keeps only the nodes that depend on a source, runs their rules newest first, and sums the
cotangents arriving at each tensor. Variable reads are the exception: their rule is the
identity, so instead of running one node per read the walk adds each read's cotangent into
its variable's at the end (in the order the nodes would have run).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework.abstract import has_static_shape
from tapeflow.autodiff.core import READ_VARIABLE
from tapeflow.framework.context import context
from tapeflow.framework.dtypes import kind_of
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike, wrap


def carries_gradient(x: Any) -> bool:
    """Whether `x` can have a gradient: floating (bfloat16 too, NumPy's kind 'V') or
    complex; integers and booleans never do. The hot paths test NumPy's kind first and call
    this only on a miss."""
    return kind_of(x._value.dtype) in "fc"


# Installed by tapeflow.graph.backward: `compiled_backprop(nodes, targets, seeds, sources)`
# gives the sources' cotangents from a compiled program for the record `nodes`, or None to walk.
hooks: dict = {"compiled_backprop": None}

_support: Any = None


def install_support(module: Any) -> None:
    """Called once by `tapeflow.ops._autodiff_support`: the module of ops the backward pass
    builds with (seeds, sums, reshapes). The ops sit above autodiff, so they register
    themselves here instead of being imported."""
    global _support
    _support = module


def support() -> Any:
    """The ops the backward pass builds with (installed by the ops layer)."""
    return _support


def live_nodes(nodes: list, sources: list) -> tuple:
    """The nodes that depend on a source, oldest first; the reads of source variables,
    `(read tensor, variable)` oldest first; and the ids of every floating value reached
    (integer and boolean values carry no gradient, so they never enter the set)."""
    live = {id(s) for s in sources if carries_gradient(s)}
    needed = []
    reads = []
    for node in nodes:
        prim = node[0]
        if prim is READ_VARIABLE:
            if id(node[1][0]) in live:
                reads.append((node[3], node[1][0]))
                live.add(id(node[3]))
            continue
        for x in node[1]:
            if id(x) in live:
                needed.append(node)
                outs = node[3]
                if prim.multiple_results:
                    live.update(id(o) for o in outs if carries_gradient(o))
                elif outs._value.dtype.kind in "fc" or carries_gradient(outs):  # kind first: hot
                    live.add(id(outs))
                break
    return needed, reads, live


def seed_cotangents(targets: list, seeds: Optional[list], live: set) -> dict:
    """id -> the cotangent each target starts with: its seed, or ones of its shape where
    `seeds` is None (`gradient` without `output_gradients`). A target given twice adds its
    seeds; targets the sources do not reach, and integer ones, get none."""
    grads: dict = {}
    for index, target in enumerate(targets):
        key = id(target)
        if key not in live:
            continue
        if seeds is None:
            value = target._value
            seed = wrap(np.ones(value.shape, value.dtype)) if has_static_shape(value) else \
                support().ones_like(target)   # traced with unknown dims: ones as it runs
        else:
            seed = seeds[index]
            if seed is None:
                continue
        grads[key] = seed if key not in grads else support().add(grads[key], seed)
    return grads


def walk(needed: list, reads: list, live: set, grads: dict, sources: list,
         missing_output: Callable, run_rules: Optional[Callable] = None,
         fit: Optional[Callable] = None) -> list:
    """Pulls the cotangents in `grads` (id -> cotangent, the seeds) back through `needed`
    and then `reads` (as `live_nodes` gives them).

    `missing_output(o)` is the zero cotangent for an output of a multi-output op that got
    none. By default each node runs its primitive's VJP rules and a cotangent is summed to
    its input's shape (`fit_to_input`); the batched pass replaces both:
    `run_rules(prim, out_grads, outs, inputs, attrs, live)` gives the inputs' cotangents and
    `fit(g, x)` shapes one like its input `x` (called when its shape is not `x`'s).
    Popping each node as it is done lets its tensors die early. Returns the sources'
    cotangents (None where the target does not reach them).
    """
    ops = support()
    keep = {id(s) for s in sources}
    fit = fit or fit_to_input
    context.backward_depth += 1
    try:
        _walk(needed, live, grads, run_rules, fit, missing_output, ops.add, keep)
        for tensor, variable in reversed(reads):  # newest first, as the nodes would run
            key = id(tensor)
            g = grads.get(key) if key in keep else grads.pop(key, None)
            if g is not None:
                _accumulate(grads, id(variable), g, variable, fit, ops.add)
        return [grads.get(id(s)) for s in sources]
    finally:
        context.backward_depth -= 1


def _walk(needed: list, live: set, grads: dict, run_rules: Optional[Callable], fit: Callable,
          missing_output: Callable, add: Callable, keep: set) -> None:
    # The hottest loop of a training step: one pass per recorded op.
    while needed:
        prim, inputs, attrs, outs = needed.pop()
        if prim.multiple_results:
            out_grads = [_take(grads, id(o), keep) for o in outs]
            if all(g is None for g in out_grads):
                continue
            out_grads = tuple(missing_output(o) if g is None else
                              g._dense() if type(g) is IndexedSlices else g
                              for g, o in zip(out_grads, outs))
        else:
            key = id(outs)
            out_grads = grads.get(key) if key in keep else grads.pop(key, None)
            if out_grads is None:
                continue
            if type(out_grads) is IndexedSlices and not prim.sparse_pass_through:
                out_grads = out_grads._dense()  # the one place rules get sparse ones densified
        if run_rules is None and prim.vjps is not None:
            # Per-input rules: run only those of inputs that need a gradient (live inputs;
            # a constant operand's rule is skipped).
            for rule, x in zip(prim.vjps, inputs):
                if id(x) in live:
                    g = rule(out_grads, outs, *inputs, **attrs)
                    if g is not None:
                        _accumulate(grads, id(x), g, x, fit, add)
            continue
        in_grads = (run_rules or _run_vjp)(prim, out_grads, outs, inputs, attrs, live)
        for x, g in zip(inputs, in_grads):
            if g is not None and id(x) in live:  # live: floating values only
                _accumulate(grads, id(x), g, x, fit, add)


def _run_vjp(prim: Any, out_grads: Any, outs: Any, inputs: tuple, attrs: dict,
             live: set) -> Any:
    in_grads = prim.vjp(out_grads, outs, *inputs, **attrs)
    if len(inputs) == 1 and not isinstance(in_grads, (tuple, list)):
        return (in_grads,)
    return in_grads


def _accumulate(grads: dict, key: int, g: Any, x: Any, fit: Callable, add: Callable) -> None:
    """Adds the cotangent `g` for input `x` (id `key`) to what `grads` holds for it."""
    if type(g) is not Tensor or g._value.shape != x._value.shape:
        g = fit(g, x)
    previous = grads.get(key)
    if previous is None:
        grads[key] = g
    elif type(previous) is IndexedSlices or type(g) is IndexedSlices:
        # Newest first: TF's breadth-first walk reaches the inputs of one op in
        # order, ours takes them newest first (exact for f(gather(a), gather(b))).
        grads[key] = support().aggregate(g, previous)
    else:
        grads[key] = add(previous, g)


def fit_to_input(g: Any, x: Any) -> Any:
    """A rule's cotangent `g` shaped like its input `x`: converted to a tensor of x's dtype
    and summed over the axes broadcasting added (an IndexedSlices stays sparse)."""
    if isinstance(g, IndexedSlices):
        return g  # shaped like x by construction (dense_shape)
    ops = support()
    if not isinstance(g, TensorLike):
        g = ops.convert_to_tensor(g, dtype=x.dtype)
    if not (has_static_shape(g._value) and has_static_shape(x._value)):
        # Traced with unknown dims: equal static shapes may still differ as the graph runs
        # ([None] against [None] can be 5 against 1), so the sum is decided then.
        return ops.unbroadcast_like(g, x)
    if g._value.shape != x._value.shape:
        g = ops.unbroadcast(g, x._value.shape)
    return g


def _take(grads: dict, key: int, keep: set) -> Any:
    # A source's cotangent stays (it is the answer); any other is consumed by its producer.
    return grads.get(key) if key in keep else grads.pop(key, None)


__all__ = ["carries_gradient", "support", "live_nodes", "walk", "fit_to_input", "hooks",
           "seed_cotangents"]
