"""The vectorized backward pass behind `GradientTape.jacobian` and `batch_jacobian`.

Instead of one backward pass per output element, a batch of N cotangents (one leading axis)
goes through the recorded ops once; each op's rule is applied batched by
`ops._autodiff_support.batched_vjp`, which falls back to row-by-row for rules not known to
accept a batch axis. The walk mirrors `GradientTape._backprop`.
"""

from __future__ import annotations

from typing import Any


def _ops():
    from tapeflow.ops import _autodiff_support
    return _autodiff_support


def _is_float(x: Any) -> bool:
    return x._value.dtype.kind in "fc"


def _live_nodes(nodes: list, source_ids: set) -> tuple:
    """The recorded ops that depend on a source, oldest first, and the ids they reach."""
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


def backprop_batched(nodes: list, target: Any, seeds: Any, sources: list) -> list:
    """For each source, the batched cotangent `(N,) + source.shape` that `seeds`
    (`(N,) + target.shape`) pulls back through `nodes`, or None where unconnected."""
    ops = _ops()
    source_ids = {id(s) for s in sources}
    needed, live = _live_nodes(nodes, source_ids)
    if id(target) not in live:
        return [None] * len(sources)
    n = seeds._value.shape[0]
    grads: dict = {id(target): seeds}
    while needed:
        prim, inputs, attrs, outs = needed.pop()
        if prim.multiple_results:
            out_grads = [_take(grads, id(o), source_ids) for o in outs]
            if all(g is None for g in out_grads):
                continue
            out_grads = tuple(ops.zeros((n,) + o._value.shape, o.dtype) if g is None else g
                              for g, o in zip(out_grads, outs))
        else:
            out_grads = _take(grads, id(outs), source_ids)
            if out_grads is None:
                continue
        in_grads = ops.batched_vjp(prim, out_grads, outs, tuple(inputs), attrs)
        for x, g in zip(inputs, in_grads):
            if g is None or id(x) not in live or not _is_float(x):
                continue
            if not isinstance(g, ops.Tensor):
                g = ops.convert_to_tensor(g, dtype=x.dtype)
            if g._value.shape != (n,) + x._value.shape:
                g = ops.batch_unbroadcast(g, x._value.shape)
            previous = grads.get(id(x))
            grads[id(x)] = g if previous is None else ops.add(previous, g)
    return [grads.get(id(s)) for s in sources]


def _take(grads: dict, key: int, keep: set) -> Any:
    return grads.get(key) if key in keep else grads.pop(key, None)


__all__ = ["backprop_batched"]
