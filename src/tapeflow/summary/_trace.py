"""`tf.summary.trace_on` / `trace_off` / `trace_export`.

TensorFlow exports the graphs of the functions run while tracing is on as a GraphDef for
TensorBoard's Graphs dashboard. tapeflow's traced programs are not TensorFlow GraphDefs, so
nothing is exported: `trace_on` warns once that the Graphs dashboard stays empty. The on/off
state and `trace_export`'s errors are TensorFlow's.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

_trace: Optional[tuple] = None


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir: Any = None) -> None:
    """Starts a trace (warns: tapeflow exports no graph or profile)."""
    global _trace
    if _trace is not None:
        warnings.warn("Trace already enabled", stacklevel=2)
        return
    warnings.warn("tf.summary.trace_on: tapeflow's traced functions are not TensorFlow "
                  "GraphDefs; trace_export writes no graph or profile to TensorBoard.",
                  stacklevel=2)
    _trace = (graph, profiler)


def trace_off() -> None:
    """Stops the trace without exporting it."""
    global _trace
    _trace = None


def trace_export(name: str, step: Any = None, profiler_outdir: Any = None) -> None:
    """Ends the trace started by `trace_on` (ValueError without one, as TF)."""
    if _trace is None:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    trace_off()


__all__ = ["trace_on", "trace_off", "trace_export"]
