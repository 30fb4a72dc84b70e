"""`tf.vectorized_map` and `tf.recompute_grad`."""

from __future__ import annotations

import functools
from typing import Any, Callable

from tapeflow.autodiff.custom_gradient import custom_gradient
from tapeflow.autodiff.tape import GradientTape
from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.exports import tf_export
from tapeflow.ops import array_ops


@tf_export("vectorized_map")
def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True,
                   warn: bool = True) -> Any:
    """`fn` applied to each example (slice along axis 0) of `elems`, results stacked.

    `elems` is a tensor or nested structure of tensors sharing their first dimension; `fn`
    gets one example (same structure) and returns a tensor or structure of tensors. Every op
    is differentiable through, as for `tf.vectorized_map`. Runs `fn` once per example (what
    TensorFlow falls back to when it cannot vectorize); the result is the same either way.
    """
    flat = [convert_to_tensor(e) if not isinstance(e, TensorLike) else e
            for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or a (possibly nested) sequence of Tensors.")
    sizes = {e._value.shape[0] if e._value.ndim else None for e in flat}
    if None in sizes:
        raise ValueError("elems must be a Tensor or a sequence of Tensors with rank >= 1.")
    if len(sizes) != 1:
        raise ValueError(f"elems must have the same first dimension, got {sorted(sizes)}")
    (n,) = sizes
    ops = array_ops
    columns = [ops.unstack(e) if n else [] for e in flat]
    results = [fn(nest.pack_sequence_as(elems, [c[i] for c in columns])) for i in range(n)]
    if not results:
        raise ValueError("vectorized_map needs at least one example to infer fn's outputs.")
    leaves = [nest.flatten(r) for r in results]
    stacked = [ops.stack([row[k] for row in leaves]) for k in range(len(leaves[0]))]
    return nest.pack_sequence_as(results[0], stacked)


class _TapesHidden:
    """Hides the recording tapes: recompute_grad's forward pass must not keep intermediates.
    Variable watchers stay, so custom_gradient still sees which variables were read."""

    def __enter__(self) -> None:
        self._saved = context.tapes
        context.tapes = []
        context.refresh()

    def __exit__(self, *exc_info: Any) -> None:
        context.tapes = self._saved
        context.refresh()


@tf_export("recompute_grad")
def recompute_grad(f: Callable) -> Callable:
    """Wraps `f` so that its forward pass is recomputed during backprop instead of stored.

    Tapes then hold only `f`'s inputs and outputs, trading compute for memory; gradients
    (with respect to the inputs and to the trainable variables `f` reads) are unchanged.
    """
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        @custom_gradient
        def recomputed(*inputs: Any) -> tuple:
            with _TapesHidden():
                result = f(*inputs, **kwargs)

            def grad_fn(*dresult: Any, variables: Any = None) -> Any:
                variables = list(variables or [])
                watched = list(inputs) + variables
                with GradientTape() as tape:
                    tape.watch([w for w in watched if w._value.dtype.kind in "fc"])
                    again = f(*inputs, **kwargs)
                grads = tape.gradient(again, watched, output_gradients=list(dresult))
                input_grads = grads[:len(inputs)]
                return (input_grads, grads[len(inputs):]) if variables else input_grads

            return result, grad_fn

        return recomputed(*args)

    return wrapper
