"""AutoGraph: Python control flow on tensors inside `tf.function`, as TensorFlow converts it,
and the `tf.autograph` namespace.

`tf.function` traces `convert_for_tracing(f)`: `f`'s source rewritten so that `if`, `while`
and `for` decide, per statement and as they run, whether their condition (or iterable) is a
traced tensor (then they become `tf.cond` / `tf.while_loop`) or a Python value (then they run
as Python: unrolled loops, one branch). `transformer` is the source rewrite, `operators` what
the rewritten code calls, `conversion` which functions convert and how.
"""

from __future__ import annotations

from typing import Any, Callable

from tapeflow.autograph import experimental


def convert_for_tracing(function: Callable) -> Callable:
    """`function` converted by AutoGraph (or itself, where it must not or cannot be)."""
    from tapeflow.autograph.conversion import convert
    return convert(function)


def to_graph(entity: Callable, recursive: bool = True,
             experimental_optional_features: Any = None) -> Callable:
    """`entity` converted: Python control flow on tensors becomes graph control flow when
    the result is traced (e.g. by `tf.function`)."""
    from tapeflow.autograph.conversion import convert
    return convert(getattr(entity, "python_function", entity))


def to_code(entity: Callable, recursive: bool = True,
            experimental_optional_features: Any = None) -> str:
    """The source of `entity` as AutoGraph converts it (tapeflow's own rewrite, not
    TensorFlow's text)."""
    from tapeflow.autograph.conversion import source_of
    return source_of(entity)


_verbosity = {"level": 0, "alsologtostdout": False}


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets AutoGraph's verbosity (kept for programs that call it; tapeflow logs only its
    conversion warnings)."""
    _verbosity.update(level=int(level), alsologtostdout=alsologtostdout)


def get_verbosity() -> int:
    """The level `set_verbosity` set."""
    return _verbosity["level"]


def trace(*args: Any) -> None:
    """Prints its arguments (`tf.autograph.trace`)."""
    print(*args)


__all__ = ["convert_for_tracing", "to_graph", "to_code", "set_verbosity", "get_verbosity",
           "trace", "experimental"]
