"""The vectorized backward pass behind `GradientTape.jacobian` and `batch_jacobian`.

Instead of one backward pass per output element, a batch of N cotangents (one leading axis)
goes through the recorded ops once; each op's rule is applied batched by
`ops._autodiff_support.batched_vjp`, which falls back to row-by-row for rules not known to
accept a batch axis. The walk mirrors `GradientTape._backprop`.
"""

from __future__ import annotations

from typing import Any

from tapeflow.autodiff.backprop import live_nodes, support, walk


def backprop_batched(nodes: list, target: Any, seeds: Any, sources: list) -> list:
    """For each source, the batched cotangent `(N,) + source.shape` that `seeds`
    (`(N,) + target.shape`) pulls back through `nodes`, or None where unconnected."""
    ops = support()
    needed, reads, live = live_nodes(nodes, sources)
    if id(target) not in live:
        return [None] * len(sources)
    n = seeds._value.shape[0]

    def run_rules(prim: Any, out_grads: Any, outs: Any, inputs: tuple, attrs: dict,
                  live: set) -> tuple:
        return ops.batched_vjp(prim, out_grads, outs, tuple(inputs), attrs, live)

    def fit(g: Any, x: Any) -> Any:
        if not isinstance(g, ops.Tensor):
            g = ops.convert_to_tensor(g, dtype=x.dtype)
        return ops.batch_fit(g, x, n)

    def missing_output(o: Any) -> Any:
        return ops.batch_zeros(n, o)

    return walk(needed, reads, live, {id(target): seeds}, sources, missing_output, run_rules,
                fit)


__all__ = ["backprop_batched"]
