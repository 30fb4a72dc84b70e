"""Why a gradient is None: the reasoning behind `GradientTape.explain` (a tapeflow addition).

`tape.gradient` returns None exactly where TensorFlow does. When it does, and only then, the
tape asks `diagnose` why, while its record still exists, and keeps the answers as plain
sentences; the normal path pays one short loop. The reasons, checked in this order:

1. the source (or the target) is an integer or boolean value;
2. a variable that was not watched (trainable=False, or watch_accessed_variables=False), or a
   constant tensor that was never watched;
3. a path that exists but passes through an op with no gradient: tapes keep a cheap map of
   "blocked" tensors (outputs of non-differentiable ops, or integer outputs, fed by a watched
   value) so the op that cut the path can be named;
4. a watched value that no recorded op used (read before the `with` block, under
   `tape.stop_recording()`, or through `.numpy()`), or a target computed outside the context;
5. otherwise the target does not depend on the source through tapeflow ops at all.

`gradient_report` (also a tapeflow addition, `tf.debugging.gradient_report`) tabulates the
gradients themselves: norms, largest magnitudes, NaN/Inf counts and Nones, per variable.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.backprop import carries_gradient
from tapeflow.framework.exports import tf_export
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.variables import Variable

logger = logging.getLogger("tapeflow")

# TensorFlow op names -> the public function a user wrote.
_PUBLIC_NAMES = {
    "StopGradient": "tf.stop_gradient", "Cast": "tf.cast", "ArgMax": "tf.math.argmax",
    "ArgMin": "tf.math.argmin", "Round": "tf.math.round", "Floor": "tf.math.floor",
    "Ceil": "tf.math.ceil", "FloorDiv": "tf.math.floordiv", "Equal": "tf.math.equal",
    "NotEqual": "tf.math.not_equal", "Less": "tf.math.less", "LessEqual": "tf.math.less_equal",
    "Greater": "tf.math.greater", "GreaterEqual": "tf.math.greater_equal",
    "IsNan": "tf.math.is_nan", "IsFinite": "tf.math.is_finite", "IsInf": "tf.math.is_inf",
    "TopKV2": "tf.math.top_k", "OneHot": "tf.one_hot", "Range": "tf.range",
    "Multinomial": "tf.random.categorical", "Where": "tf.where (one argument)",
}

# Why the op has no gradient, and what to do instead, for the ops users most often put on a
# path by accident.
_ROUNDING = (" (it is piecewise constant)",
             "Use the value before rounding, or a straight-through estimator: "
             "x + tf.stop_gradient(tf.round(x) - x).")
_ADVICE = {
    "StopGradient": (" (it blocks gradients on purpose)",
                     "Remove it if you want this gradient."),
    "ArgMax": (" (indices are integers)", "Use a smooth surrogate such as tf.nn.softmax."),
    "ArgMin": (" (indices are integers)", "Use a smooth surrogate such as tf.nn.softmax."),
    "Round": _ROUNDING, "Floor": _ROUNDING, "Ceil": _ROUNDING,
    "Cast": (" (integer and boolean values carry none)", "Keep the value floating-point."),
}
_COMPARISON_ADVICE = (" (booleans carry none)",
                      "Select values with tf.where(condition, a, b) instead of computing with "
                      "the condition.")
_COMPARISONS = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                "LogicalAnd", "LogicalOr", "LogicalNot", "IsNan", "IsFinite", "IsInf"}
_DEFAULT_ADVICE = ("", "Compute the target through differentiable ops instead.")


def describe(x: Any) -> str:
    """`variable 'w:0'`, or `the tensor of shape (2, 3) and dtype float32`."""
    if isinstance(x, Variable):
        return f"variable {x.name!r}"
    return f"the tensor of shape {tuple(x._value.shape)} and dtype {x.dtype.name}"


def note(tape: Any, record: Optional[list], targets: list, sources: list, grads: list) -> None:
    """After `gradient`/`jacobian`: remembers which sources were asked about and, only when a
    gradient is None, why (logged at DEBUG on the "tapeflow" logger)."""
    tape._explained_ids = [id(s) for s in sources]
    for g in grads:
        if g is None:
            break
    else:
        tape._explanations = None
        return
    reasons: dict = {}
    edges = _edges(record or [], tape._blocked)  # built once for all None sources
    for source, g in zip(sources, grads):
        if g is None and id(source) not in reasons:
            reasons[id(source)] = reason = diagnose(tape, edges, targets, source)
            logger.debug("GradientTape.gradient returned None for %s: %s", describe(source),
                         reason)
    tape._explanations = reasons


def explanation(tape: Any, source: Any) -> Optional[str]:
    """The stored reason for one source of the last call (None if its gradient was not None)."""
    ids = getattr(tape, "_explained_ids", None)
    if ids is None:
        raise ValueError("GradientTape.explain needs a gradient or jacobian call first.")
    if id(source) not in ids:
        raise ValueError(f"{describe(source) if hasattr(source, '_value') else repr(source)} "
                         f"was not a source of the last gradient or jacobian call.")
    reasons = tape._explanations
    return None if reasons is None else reasons.get(id(source))


# -- the reasoning ------------------------------------------------------------------------------

def diagnose(tape: Any, edges: dict, targets: list, source: Any) -> str:
    """One or two sentences on why the gradient of `targets` w.r.t. `source` is None.

    `edges` is `_edges(record, tape._blocked)`: what each recorded value was computed from.
    """
    what = describe(source)
    if not carries_gradient(source):
        return (f"The gradient with respect to {what} is None because its dtype is "
                f"{source.dtype.name}: gradients flow only through floating-point values; "
                f"cast to tf.float32 first{_cast_hint(source)}.")
    if all(not carries_gradient(t) for t in targets):
        dtypes = ", ".join(sorted({t.dtype.name for t in targets}))
        return (f"The target has dtype {dtypes}: gradients flow only through floating-point "
                f"values; cast to tf.float32 first (compute the target in floating point) to "
                f"get a gradient with respect to {what}.")
    unwatched = _unwatched(tape, source, what)
    if unwatched is not None:
        return unwatched
    return _unconnected(tape, edges, targets, source, what)


def _cast_hint(source: Any) -> str:
    if isinstance(source, Variable):
        return " (create the variable with a floating-point value or dtype=tf.float32)"
    return " (x = tf.cast(x, tf.float32), then watch and use the cast tensor)"


def _unwatched(tape: Any, source: Any, what: str) -> Optional[str]:
    """The reason when the tape never tracked `source`, else None."""
    key = id(source)
    if isinstance(source, Variable):
        if key in tape._watched_variables:
            return None
        if not tape._watch_accessed_variables:
            return (f"{_cap(what)} was not watched: the tape was created with "
                    f"watch_accessed_variables=False, so only what you pass to tape.watch is "
                    f"tracked; call tape.watch({_var(source)}) inside the tape's context.")
        if not source.trainable:
            return (f"{_cap(what)} is not trainable (trainable=False), so the tape does not "
                    f"watch it automatically; call tape.watch({_var(source)}) inside the tape's "
                    f"context, or create it with trainable=True.")
        return (f"{_cap(what)} was not read while the tape was recording (read before the "
                f"`with` block, under tape.stop_recording(), or not at all); compute the "
                f"target from it inside the tape's context.")
    if key in tape._tracked:
        return None
    blocked = tape._blocked.get(key)
    if blocked is not None:
        return (f"{_cap(what)} is the output of {_op_name(blocked[1], source)}, which has no "
                f"gradient, so the tape does not track it; call tape.watch on it inside the "
                f"tape's context if you want gradients with respect to it.")
    return (f"{_cap(what)} was never watched, so the tape did not record the operations on "
            f"it; call tape.watch(x) inside the tape's context (only variables are watched "
            f"automatically).")


def _unconnected(tape: Any, edges: dict, targets: list, source: Any, what: str) -> str:
    """The reason for a tracked source that still got no gradient."""
    above = _ancestors(edges, targets)
    below = _descendants(edges, source, lambda edge: True)
    # The first op without a gradient on each path: fed by the source through gradient-
    # carrying ops only, and feeding the target. Ops after it are cut off already.
    open_below = _descendants(edges, source, lambda edge: not _is_cut(edge))
    cuts: dict = {}  # the user's name of each cutting op -> its TF op name, oldest first
    for key, (prim, inputs, out) in edges.items():
        if (key in above and _is_cut((prim, inputs, out))
                and any(id(x) in open_below for x in inputs)):
            cuts.setdefault(_op_name(prim, out), prim.name)
    if cuts:
        names = list(cuts)
        why, todo = _advice(cuts[names[0]])
        has = "has" if len(names) == 1 else "have"
        return (f"The path from {what} to the target passes through {' and '.join(names[:3])}, "
                f"which {has} no gradient{why}. {todo}")
    if len(below) == 1:  # nothing recorded used the source
        read = "read" if isinstance(source, Variable) else "used"
        return (f"{_cap(what)} was watched but no tapeflow op {read} it while the tape was "
                f"recording: it was {read} before the `with` block or under "
                f"tape.stop_recording(), or taken out with .numpy() or NumPy functions, which "
                f"break the chain. Compute the target from it with tapeflow ops inside the "
                f"tape's context.")
    if not any(id(t) in edges or id(t) in tape._tracked for t in targets):
        return (f"The target was not computed from any watched value while the tape was "
                f"recording: it was computed after the `with` block or under "
                f"tape.stop_recording(), or from values taken out with .numpy() or NumPy "
                f"functions, which break the chain. Compute it from {what} with tapeflow ops "
                f"inside the tape's context.")
    if id(source) in above:
        return (f"Every op between {what} and the target is recorded, but their gradient "
                f"rules give no gradient for it (for example, it is only used as an index).")
    return (f"The target does not depend on {what} through tapeflow ops; values taken out "
            f"with .numpy() or NumPy functions break the chain, so compute the target from it "
            f"with tapeflow ops inside the tape's context.")


def _edges(record: list, blocked: dict) -> dict:
    """id(output) -> (primitive, inputs, output), over the record and the blocked tensors."""
    edges = {}
    for prim, inputs, _, outputs in record:
        for out in (outputs if prim.multiple_results else (outputs,)):
            edges[id(out)] = (prim, inputs, out)
    for key, (out, prim, inputs) in blocked.items():
        edges.setdefault(key, (prim, inputs, out))
    return edges


def _ancestors(edges: dict, targets: Iterable) -> set:
    """The ids of the targets and of everything they were computed from, within the record."""
    seen: set = set()
    stack = [id(t) for t in targets]
    while stack:
        key = stack.pop()
        if key not in seen:
            seen.add(key)
            edge = edges.get(key)
            if edge is not None:
                stack.extend(id(x) for x in edge[1])
    return seen


def _descendants(edges: dict, source: Any, follow: Callable[[tuple], bool]) -> set:
    """The ids of the source and of everything recorded that was computed from it, through
    the edges `follow` accepts."""
    consumers: dict = {}
    for key, edge in edges.items():
        if follow(edge):
            for x in edge[1]:
                consumers.setdefault(id(x), []).append(key)
    seen: set = set()
    stack = [id(source)]
    while stack:
        key = stack.pop()
        if key not in seen:
            seen.add(key)
            stack.extend(consumers.get(key, ()))
    return seen


def _is_cut(edge: tuple) -> bool:
    """An op that passes no gradient: not differentiable, or an integer/boolean output."""
    prim, _, out = edge
    return not prim.differentiable or not carries_gradient(out)


def _op_name(prim: Any, out: Any) -> str:
    public = _PUBLIC_NAMES.get(prim.name)
    if prim.name == "Cast":
        return f"tf.cast to {out.dtype.name}"
    if public is not None:
        return public
    return f"the {prim.name} op"


def _advice(op: str) -> tuple:
    if op in _ADVICE:
        return _ADVICE[op]
    return _COMPARISON_ADVICE if op in _COMPARISONS else _DEFAULT_ADVICE


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _var(variable: Variable) -> str:
    return variable._name if variable._name.isidentifier() else "v"


# -- gradient_report (a tapeflow addition) -------------------------------------------------------

class GradientReport(str):
    """The text of `gradient_report`; its repr is the text itself, so it prints as a table at
    an interactive prompt too. `rows` holds one dict per variable, `global_norm` the norm of
    all gradients together (NaN where one holds NaN or Inf, as tf.linalg.global_norm)."""

    rows: list
    global_norm: float

    def __repr__(self) -> str:
        return str(self)


@tf_export("debugging.gradient_report")
def gradient_report(grads: Sequence[Any], variables: Sequence[Any]) -> GradientReport:
    """A table of `grads` (from `tape.gradient(loss, variables)`) by variable: its name (a
    Keras variable's path, as Keras prints it), shape, L2 norm, largest |g| and counts of NaN
    and Inf elements, or None where the gradient is None; the largest norm is flagged and the
    global norm closes the table (a tapeflow addition)."""
    grads, variables = list(grads), list(variables)
    if len(grads) != len(variables):
        raise ValueError(f"gradient_report: {len(grads)} gradients for {len(variables)} "
                         f"variables")
    rows = [_gradient_row(g, v) for g, v in zip(grads, variables)]
    norms = [r["norm"] for r in rows if r["norm"] is not None]
    global_norm = float(np.sqrt(np.sum(np.square(norms)))) if norms else 0.0
    finite = [r["norm"] for r in rows if r["norm"] is not None and np.isfinite(r["norm"])]
    largest = max(finite) if finite else None
    cells = [("variable", "shape", "norm", "max |g|", "NaN", "Inf", "")]
    for r in rows:
        if r["norm"] is None:
            cells.append((r["name"], r["shape"], "None", "", "", "", ""))
            continue
        flag = "<- largest" if largest is not None and r["norm"] == largest else ""
        cells.append((r["name"], r["shape"], f"{r['norm']:.6g}", f"{r['max_abs']:.6g}",
                      str(r["nan"]), str(r["inf"]), flag))
    widths = [max(len(row[i]) for row in cells) for i in range(6)]
    lines = [f"Gradient report: {len(rows)} variable{'s' if len(rows) != 1 else ''}"]
    for row in cells:
        lines.append(("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  "
                      + row[6]).rstrip())
    lines.append(f"global norm: {global_norm:.6g}")
    report = GradientReport("\n".join(lines))
    report.rows, report.global_norm = rows, global_norm
    return report


def _gradient_row(g: Any, variable: Any) -> dict:
    name = getattr(variable, "path", None) or getattr(variable, "name", None) or "?"
    shape = str(tuple(np.shape(variable._value))) if hasattr(variable, "_value") else "?"
    row = {"name": str(name), "shape": shape, "norm": None, "max_abs": None, "nan": 0,
           "inf": 0}
    if g is None:
        return row
    values = np.asarray((g.values if isinstance(g, IndexedSlices) else g)._value)
    if isinstance(g, IndexedSlices):  # repeated indices add up, as the dense gradient does
        dense = np.zeros(tuple(np.shape(variable._value)), values.dtype)
        np.add.at(dense, np.asarray(g.indices._value), values)
        values = dense
    magnitude = np.abs(values.astype(np.float64) if values.dtype.kind != "c" else values)
    row.update(norm=float(np.sqrt(np.sum(np.square(magnitude)))),
               max_abs=float(magnitude.max()) if magnitude.size else 0.0,
               nan=int(np.isnan(magnitude).sum()), inf=int(np.isinf(magnitude).sum()))
    return row


__all__ = ["describe", "diagnose", "note", "explanation", "gradient_report", "GradientReport"]
