"""Per-thread execution state: which tapes, forward accumulators and traces are active.

This is the one place that knows the execution contexts; `autodiff.core.bind` reads it on every
op, so the no-tape path is a single attribute test.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator


class _State:
    """One thread's execution state: which tapes, accumulators and trace are active.

    A plain object: attribute reads on a `threading.local` cost several times more, so the
    hot paths (every op, every variable read) fetch this once per call as `context.state`.
    """

    __slots__ = ("tapes", "accumulators", "variable_watchers", "graph", "backward_depth",
                 "active")

    def __init__(self) -> None:
        self.tapes: list = []            # GradientTapes now recording, innermost last
        self.accumulators: list = []     # ForwardAccumulators now active
        self.variable_watchers: list = []  # custom_gradient's watchers of variable reads
        self.graph = None                # the graph being traced by tf.function, if any
        self.backward_depth = 0          # > 0 while a backward pass runs (traces mark its ops)
        self.active = False              # any of the above: the op path's only test

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
