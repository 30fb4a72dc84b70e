"""Per-thread execution state: which tapes, forward accumulators and traces are active.

This is the one place that knows the execution contexts; `autodiff.core.bind` reads it on every
op, so the no-tape path is a single attribute test.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from tapeflow.framework.exports import tf_export

# NumPy (2 and later) keeps its floating-point error state in a context variable, so kernels
# run inside a context of their own whose state ignores every error are silent (as
# TensorFlow's kernels are) whatever warning filters a caller installs, at ~30 ns a call.


def _is_reentry(exc: RuntimeError) -> bool:
    """True when `exc` is the thread's quiet context refusing a nested entry (a kernel that
    runs ops itself, as an eager while loop does), not an error of the kernel."""
    return exc.__traceback__ is not None and exc.__traceback__.tb_next is None and \
        str(exc).startswith("cannot enter context")


def rerun_kernel(fn: Callable, args: Sequence[Any], kwargs: dict, exc: Exception) -> Any:
    """Runs a kernel whose quiet call did not run it because it is nested inside another
    kernel's quiet call (already silent); any other RuntimeError is the kernel's own."""
    if not _is_reentry(exc):
        raise exc
    return fn(*args, **kwargs)


def run_kernel(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Calls a NumPy kernel (or a compiled program) with floating-point warnings silenced,
    also from inside another kernel."""
    try:
        return context.state.run_kernel(fn, *args, **kwargs)
    except RuntimeError as exc:
        return rerun_kernel(fn, args, kwargs, exc)


def _quiet_kernel_runner() -> Callable:
    """`run(fn, *args, **kwargs)`: calls `fn` with NumPy's floating-point errors ignored."""
    quiet = contextvars.Context()
    quiet.run(np.seterr, all="ignore")
    return quiet.run


class _State:
    """One thread's execution state: which tapes, accumulators and trace are active.

    A plain object: attribute reads on a `threading.local` cost several times more, so the
    hot paths (every op, every variable read) fetch this once per call as `context.state`.
    """

    __slots__ = ("tapes", "accumulators", "variable_watchers", "graph", "backward_depth",
                 "active", "run_kernel")

    def __init__(self) -> None:
        self.tapes: list = []            # GradientTapes now recording, innermost last
        self.accumulators: list = []     # ForwardAccumulators now active
        self.variable_watchers: list = []  # custom_gradient's watchers of variable reads
        self.graph = None                # the graph being traced by tf.function, if any
        self.backward_depth = 0          # > 0 while a backward pass runs (traces mark its ops)
        self.active = False              # any of the above: the op path's only test
        # Calls a NumPy kernel silently. A context can be entered once at a time, so each
        # thread has its own; a kernel that runs ops itself (an eager while loop) makes
        # nested calls, which `autodiff.core.run_kernel` sends straight to the kernel.
        self.run_kernel = _quiet_kernel_runner()

    def refresh(self) -> None:
        """Recomputes `active` after a tape, accumulator, watcher or trace came or went."""
        self.active = bool(self.tapes or self.accumulators or self.variable_watchers
                           or self.graph is not None)


def _state_attribute(name: str) -> property:
    return property(lambda self: getattr(self.state, name),
                    lambda self, value: setattr(self.state, name, value),
                    doc=f"This thread's `{name}` (see `_State`).")


class _Context(threading.local):
    """Per-thread state; `context.state` is this thread's `_State`, whose attributes can also
    be read and set on the context itself (`context.graph`), as the less hot code does."""

    def __init__(self) -> None:
        self.state = _State()

    tapes = _state_attribute("tapes")
    accumulators = _state_attribute("accumulators")
    variable_watchers = _state_attribute("variable_watchers")
    graph = _state_attribute("graph")
    backward_depth = _state_attribute("backward_depth")
    active = _state_attribute("active")

    def refresh(self) -> None:
        """Recomputes `active` after a tape, accumulator, watcher or trace came or went."""
        self.state.refresh()


context = _Context()


@tf_export("executing_eagerly")
def executing_eagerly() -> bool:
    """`tf.executing_eagerly`: False while a tf.function traces (outside `tf.init_scope`),
    True otherwise (also inside a tf.function run by `run_functions_eagerly(True)`)."""
    return context.graph is None


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """`tf.init_scope`: runs its block eagerly, outside any tf.function trace and unseen by
    tapes and forward accumulators (variable initializers run here, as in TensorFlow)."""
    ctx = context
    saved = (ctx.graph, ctx.tapes, ctx.accumulators, ctx.variable_watchers)
    ctx.graph, ctx.tapes, ctx.accumulators, ctx.variable_watchers = None, [], [], []
    ctx.refresh()
    try:
        yield
    finally:
        ctx.graph, ctx.tapes, ctx.accumulators, ctx.variable_watchers = saved
        ctx.refresh()
