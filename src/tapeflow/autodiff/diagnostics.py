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

import ast
import contextlib
import linecache
import logging
import os
import sys
import warnings
from types import FrameType
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

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

EVERY_SOURCE = object()  # `tape.explain()` with no argument: the whole report


def describe(x: Any) -> str:
    """`variable 'w:0'`, or `the tensor of shape (2, 3) and dtype float32`."""
    if isinstance(x, Variable):
        return f"variable {x.name!r}"
    return f"the tensor of shape {tuple(x._value.shape)} and dtype {x.dtype.name}"


# -- the user's line ----------------------------------------------------------------------------

# Frames in these files are tapeflow's, NumPy's (np.mean calls __array__ from Python) or
# contextlib's (between a user's `with` and tapeflow's generator): the first frame outside them
# is the user's line.
_INTERNAL = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
             os.path.dirname(os.path.abspath(np.__file__)) + os.sep, contextlib.__file__)


def user_frame() -> Optional[FrameType]:
    """The innermost frame of the user's code (outside tapeflow, NumPy and contextlib)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back
    return frame


def user_site() -> Optional[tuple]:
    """(file, line) of the user's code now running. Called only at the rare events that cut
    a gradient path (never per op): a walk of a few frames."""
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_INTERNAL):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


def where(site: tuple) -> str:
    """``file.py:12: `y = tf.round(x)` `` (the path relative to the working directory)."""
    file, line = site
    code = linecache.getline(file, line).strip()
    try:
        shown = os.path.relpath(file)
        shown = file if shown.startswith("..") else shown
    except ValueError:  # another drive
        shown = file
    return f"{shown}:{line}" + (f": `{code}`" if code else "")


# -- what the user's code says around the gradient call (read only when a gradient is None) ----

_GRADIENT_CALLS = {"gradient", "jacobian", "batch_jacobian"}
_COPIES = {"identity", "convert_to_tensor", "constant", "read_value", "value"}
_TREES: dict = {}  # file -> (source text, its ast), parsed once per text


class _Code:
    """The gradient call's frame read with `ast`: which names the user passed as target and
    sources, and where the scope around the call assigned them."""

    def __init__(self, frame: FrameType) -> None:
        self.site = (frame.f_code.co_filename, frame.f_lineno)
        self.values = {**frame.f_globals, **frame.f_locals}
        self.scope, self.call = _locate(*self.site)

    def _argument(self, index: int, keyword: str) -> Optional[ast.AST]:
        if self.call is None:
            return None
        if len(self.call.args) > index:
            return self.call.args[index]
        return next((k.value for k in self.call.keywords if k.arg == keyword), None)

    def source_names(self, count: int) -> list:
        """The user's expression for each of `count` flat sources (`w`, `layer.kernel`), or
        None where the call does not spell them one by one."""
        arg = self._argument(1, "sources")
        if count == 1 and isinstance(arg, (ast.Name, ast.Attribute)):
            return [ast.unparse(arg)]
        if isinstance(arg, (ast.List, ast.Tuple)) and len(arg.elts) == count:
            return [ast.unparse(e) if isinstance(e, (ast.Name, ast.Attribute)) else None
                    for e in arg.elts]
        return [None] * count

    def target_name(self) -> Optional[str]:
        arg = self._argument(0, "target")
        return arg.id if isinstance(arg, ast.Name) else None

    def assignments(self, name: str) -> list:
        """(line, value expression) of each statement in the scope that binds `name`, in line
        order; `x -= d` gives the BinOp it means."""
        found = []
        for node in _scope_nodes(self.scope):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found.append((node.lineno, node.value))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(
                    node.target, ast.Name) and node.target.id == name and node.value:
                value = (ast.BinOp(node.target, node.op, node.value)
                         if isinstance(node, ast.AugAssign) else node.value)
                found.append((node.lineno, value))
        return sorted(found, key=lambda item: item[0])

    def binding(self, name: Optional[str]) -> Optional[tuple]:
        """(line, value expression) of the assignment that made `name`'s current value: the
        last one before the gradient call that made a value of its kind (a Variable or not),
        else the last such one after it (a loop that goes round)."""
        if not name or not name.isidentifier():
            return None
        found = self.assignments(name)
        is_variable = isinstance(self.values.get(name), Variable)
        fits = [a for a in found if _calls(a[1], {"Variable"}) == is_variable]
        before = [a for a in fits if a[0] <= self.site[1]]
        return (before or fits or [None])[-1]

    def made_at(self, name: Optional[str]) -> Optional[tuple]:
        """The site of the assignment that made `name`'s current value."""
        found = self.binding(name)
        return (self.site[0], found[0]) if found else None

    def rebinding(self, name: Optional[str]) -> Optional[tuple]:
        """The site where `name`, a tf.Variable, was rebound to an expression of itself
        (`w = w - lr * g`, `x = x + 1`, `w -= d`), making its current value: a Variable
        replaced by a Tensor."""
        found = self.binding(name)
        if found is None or _calls(found[1], {"Variable"}) or not _mentions(found[1], name):
            return None
        if not any(_calls(value, {"Variable"}) for _, value in self.assignments(name)):
            return None
        return self.site[0], found[0]

    def rebound_variables(self) -> list:
        """(name, site) for each name the tape's `with` block reads that was a tf.Variable and
        was rebound to a Tensor computed from it (the code reads that Tensor, not the
        variable)."""
        block = self._tape_block()
        if block is None:
            return []
        names = sorted({n.id for stmt in block.body for n in ast.walk(stmt)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)})
        found = [(name, self.rebinding(name)) for name in names]
        return [(name, site) for name, site in found if site is not None]

    def read_outside(self, name: Optional[str]) -> Optional[tuple]:
        """The site of a statement outside the tape's `with` block that reads `name` into a
        value the block then uses (`r = w * 1.0` before it, `y = r * r` inside)."""
        block = self._tape_block()
        if block is None or not name or not name.isidentifier():
            return None
        used = {n.id for stmt in block.body for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for node in _scope_nodes(self.scope):
            if isinstance(node, ast.Assign) and not block.lineno <= node.lineno <= \
                    block.end_lineno and _mentions(node.value, name) and any(
                        isinstance(t, ast.Name) and t.id in used for t in node.targets):
                return self.site[0], node.lineno
        return None

    def _tape_block(self) -> Optional[ast.With]:
        """The last `with tf.GradientTape(...) as <tape>:` before the call, <tape> being the
        object whose gradient method is called."""
        func = self.call.func if self.call is not None else None
        tape = func.value.id if func is not None and isinstance(func.value, ast.Name) else None
        blocks = [node for node in _scope_nodes(self.scope) if isinstance(node, ast.With)
                  and node.lineno <= self.site[1] and any(
                      isinstance(item.optional_vars, ast.Name) and
                      item.optional_vars.id == tape for item in node.items)]
        return max(blocks, key=lambda node: node.lineno, default=None)

    def copy_of(self, name: Optional[str], source: Any) -> Optional[tuple]:
        """(variable name, site) where `name`, holding `source`, was made as a copy of a
        variable (`tf.identity(v)`, `tf.convert_to_tensor(v)`, `v.read_value()`)."""
        found = self.binding(name)
        if found is None or self.values.get(name) is not source or \
                not _calls(found[1], _COPIES):
            return None
        func = found[1].func
        args = ([func.value] if isinstance(func, ast.Attribute) else []) + found[1].args
        for arg in args:
            if isinstance(arg, ast.Name) and isinstance(self.values.get(arg.id), Variable):
                return arg.id, (self.site[0], found[0])
        return None


def _locate(file: str, line: int) -> tuple:
    """The innermost function (or the module) around `line`, and the gradient call there."""
    text = "".join(linecache.getlines(file))
    cached = _TREES.get(file)
    if cached is None or cached[0] != text:
        try:
            cached = _TREES[file] = (text, ast.parse(text) if text else None)
        except SyntaxError:
            cached = _TREES[file] = (text, None)
    tree = cached[1]
    if tree is None:
        return None, None
    scope: ast.AST = tree
    calls = []
    for node in ast.walk(tree):
        start, end = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
        if not start <= line <= end:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and (
                scope is tree or node.lineno >= scope.lineno):
            scope = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _GRADIENT_CALLS:
            calls.append(node)
    call = min(calls, key=lambda c: c.end_lineno - c.lineno, default=None)
    return scope, call


def _scope_nodes(scope: Optional[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of `scope`, not descending into nested functions or classes."""
    if scope is None:
        return
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _calls(node: ast.AST, names: set) -> bool:
    """Whether `node` is a call of a function or method named one of `names`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in names


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _read_code() -> Optional[_Code]:
    """The user's code at the gradient call, or None where its source cannot be read."""
    frame = user_frame()
    if frame is None:
        return None
    try:
        return _Code(frame)
    except Exception:  # an explanation must never break gradient(): explain without lines
        return None
    finally:
        del frame


# -- the tape's report ----------------------------------------------------------------------------

def note(tape: Any, record: Optional[list], targets: list, sources: list, grads: list) -> None:
    """After `gradient`/`jacobian`: remembers which sources were asked about and, only when a
    gradient is None, why (logged at DEBUG on the "tapeflow" logger; warned with
    `explain_none=True`)."""
    tape._explained_ids = [id(s) for s in sources]
    for g in grads:
        if g is None:
            break
    else:
        tape._explanations = tape._report = None
        return
    code = _read_code()
    names = code.source_names(len(sources)) if code is not None else [None] * len(sources)
    facts = _Facts(tape, _edges(record or [], tape._blocked), targets, code)
    reasons: dict = {}
    lines = []
    for source, g, name in zip(sources, grads, names):
        if g is None and id(source) not in reasons:
            reasons[id(source)] = reason = diagnose(tape, facts.edges, targets, source,
                                                    facts, name)
            logger.debug("GradientTape.gradient returned None for %s: %s", describe(source),
                         reason)
            label = f"`{name}` ({describe(source)})" if name else describe(source)
            lines.append(f"- {label}: {reason}")
    call = f" at {where(code.site)}" if code is not None else ""
    count = sum(g is None for g in grads)
    tape._report = (f"{count} of {len(grads)} gradient{'s' if len(grads) != 1 else ''} of "
                    f"the gradient call{call} {'is' if count == 1 else 'are'} None:\n"
                    + "\n".join(lines))
    tape._explanations = reasons
    if tape._explain_none:
        warnings.warn(tape._report, NoneGradientWarning, stacklevel=3)


class NoneGradientWarning(UserWarning):
    """Warned by `tape.gradient` on a `GradientTape(explain_none=True)` with a None
    gradient: the text of `tape.explain()` (a tapeflow addition)."""


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


def report(tape: Any) -> str:
    """`tape.explain()`: every None gradient of the last call explained, one per line."""
    if getattr(tape, "_explained_ids", None) is None:
        raise ValueError("GradientTape.explain needs a gradient or jacobian call first.")
    return tape._report or "Every gradient of the last gradient call exists (none is None)."


# -- the reasoning ------------------------------------------------------------------------------

class _Facts:
    """What one explanation reads: the record's edges, the tape's cut events, the targets and
    the user's code (None where unreadable)."""

    def __init__(self, tape: Any, edges: dict, targets: list, code: Optional[_Code]) -> None:
        self.edges, self.targets, self.code = edges, targets, code
        self.cuts = tape._cuts or {}
        self.pauses = tape._pauses or []

    def call(self) -> str:
        """` The gradient call is at f.py:9: `...`.` (empty where the code is unknown)."""
        return f" The gradient call is at {where(self.code.site)}." if self.code else ""

    def made(self, name: Optional[str], text: str = "It was made at") -> str:
        site = self.code.made_at(name) if self.code else None
        return f" {text} {where(site)}." if site else self.call()

    def paused(self) -> str:
        first = self.pauses[0]
        more = f" (and {len(self.pauses) - 1} more)" if len(self.pauses) > 1 else ""
        return f"the block at {where(first)}{more}"


def diagnose(tape: Any, edges: dict, targets: list, source: Any,
             facts: Optional[_Facts] = None, name: Optional[str] = None) -> str:
    """One or two sentences on why the gradient of `targets` w.r.t. `source` is None, naming
    the user's line where the path was cut.

    `edges` is `_edges(record, tape._blocked)`: what each recorded value was computed from;
    `name` is the user's name for the source at the gradient call, where known.
    """
    facts = facts or _Facts(tape, edges, targets, None)
    what = describe(source)
    if not carries_gradient(source):
        return (f"The gradient with respect to {what} is None because its dtype is "
                f"{source.dtype.name}: gradients flow only through floating-point values; "
                f"cast to tf.float32 first{_cast_hint(source)}.{facts.made(name)}")
    if all(not carries_gradient(t) for t in targets):
        dtypes = ", ".join(sorted({t.dtype.name for t in targets}))
        return (f"The target has dtype {dtypes}: gradients flow only through floating-point "
                f"values; cast to tf.float32 first (compute the target in floating point) to "
                f"get a gradient with respect to {what}.{_target_origin(tape, facts)}")
    unwatched = _unwatched(tape, source, what, facts, name)
    if unwatched is not None:
        return unwatched
    return _unconnected(tape, source, what, facts, name)


def _cast_hint(source: Any) -> str:
    if isinstance(source, Variable):
        return " (create the variable with a floating-point value or dtype=tf.float32)"
    return " (x = tf.cast(x, tf.float32), then watch and use the cast tensor)"


def _target_origin(tape: Any, facts: _Facts) -> str:
    for t in facts.targets:
        blocked, event = tape._blocked.get(id(t)), facts.cuts.get(id(t))
        if blocked is not None and event is not None and event[0] == "op":
            return f" The target is the output of {_op_name(blocked[1], t)} at {where(event[1])}."
    return facts.call()


def _unwatched(tape: Any, source: Any, what: str, facts: _Facts,
               name: Optional[str]) -> Optional[str]:
    """The reason when the tape never tracked `source`, else None."""
    key = id(source)
    shown = name or (_var(source) if isinstance(source, Variable) else "x")
    if isinstance(source, Variable):
        if key in tape._watched_variables:
            return None
        if not tape._watch_accessed_variables:
            made = (f" The tape was created at {where(tape._origin)}."
                    if tape._origin else facts.call())
            return (f"{_cap(what)} was not watched: the tape was created with "
                    f"watch_accessed_variables=False, so only what you pass to tape.watch is "
                    f"tracked; call tape.watch({shown}) inside the tape's context.{made}")
        if not source.trainable:
            return (f"{_cap(what)} is not trainable (trainable=False){_layer(source)}, so the "
                    f"tape does not watch it automatically; call tape.watch({shown}) inside "
                    f"the tape's context, or create it with trainable=True."
                    f"{facts.made(name, 'It was created at')}")
        return _unread_variable(source, what, facts, name)
    if key in tape._tracked:
        return None
    blocked = tape._blocked.get(key)
    if blocked is not None:
        event = facts.cuts.get(key)
        at = f" at {where(event[1])}" if event is not None else ""
        return (f"{_cap(what)} is the output of {_op_name(blocked[1], source)}{at}, which has "
                f"no gradient, so the tape does not track it; call tape.watch on it inside "
                f"the tape's context if you want gradients with respect to it.")
    code = facts.code
    rebound = code.rebinding(name) if code and code.values.get(name) is source else None
    if rebound is not None:
        return (f"{_cap(what)} is not a tf.Variable: `{name}` was one, but {where(rebound)} "
                f"replaced it with a Tensor (arithmetic on a Variable makes a new Tensor), and "
                f"tapes watch only variables by themselves. Update the variable in place "
                f"instead: {name}.assign(...) or {name}.assign_sub(...).")
    copy = _copy(tape, source, facts, name)
    if copy is not None:
        return copy
    return (f"{_cap(what)} was never watched, so the tape did not record the operations on "
            f"it; call tape.watch({shown}) inside the tape's context (only variables are "
            f"watched automatically).{facts.made(name)}")


def _unread_variable(source: Any, what: str, facts: _Facts, name: Optional[str]) -> str:
    """A trainable variable the tape never saw read."""
    escape = facts.cuts.get(id(source))
    if escape is not None and escape[0] == "assign":   # given to an assignment, not read
        op, variable = escape[3]
        return (f"{_cap(what)} was read only by {_var(variable)}.{op}(...) at "
                f"{where(escape[1])}: an assignment is not differentiable (the variable's new "
                f"value has no history), so the target, computed from {describe(variable)} "
                f"after it, does not depend on {what}. Use {what} in the target's "
                f"computation itself.")
    if escape is not None and escape[0] in _ESCAPES:
        return (f"{_cap(what)} was not read by any tapeflow op while the tape was recording: "
                f"{_ESCAPES[escape[0]]} took its value out of tapeflow at {where(escape[1])}, "
                f"and a NumPy value has no gradient path back to the variable. "
                f"{_ESCAPE_ADVICE[escape[0]]}")
    for var_name, site in (facts.code.rebound_variables() if facts.code else ()):
        return (f"{_cap(what)} was not read while the tape was recording: `{var_name}` was a "
                f"tf.Variable, but {where(site)} replaced it with a Tensor (arithmetic on a "
                f"Variable makes a new Tensor), so the code reads that Tensor and not the "
                f"variable. Update the variable in place instead: {var_name}.assign(...) or "
                f"{var_name}.assign_sub(...).")
    if facts.pauses:
        return (f"{_cap(what)} was not read while the tape was recording: it was read only "
                f"under tape.stop_recording(), in {facts.paused()}, where the tape records "
                f"nothing; read it outside that block.")
    outside = facts.code.read_outside(name) if facts.code else None
    if outside is not None:
        return (f"{_cap(what)} was not read while the tape was recording: it was read before "
                f"the `with` block (or after it), at {where(outside)}, and the tape saw only "
                f"the value computed there; compute the target from it inside the tape's "
                f"context.")
    return (f"{_cap(what)} was not read while the tape was recording: it was read before the "
            f"`with` block (or after it), or not at all; compute the target from it inside "
            f"the tape's context.{facts.call()}")


def _layer(variable: Any) -> str:
    """`, a weight of Keras layer 'dense'` for a Keras variable (its path names the layer)."""
    path = getattr(variable, "path", None)
    if isinstance(path, str) and "/" in path:
        return f", a non-trainable weight of Keras layer {path.rsplit('/', 1)[0]!r}"
    return ""


def _copy(tape: Any, source: Any, facts: _Facts, name: Optional[str]) -> Optional[str]:
    """The reason when `source` is a copy of a variable (tf.identity, tf.convert_to_tensor)
    while the target was computed from the variable itself."""
    found = facts.code.copy_of(name, source) if facts.code else None
    if found is not None:
        var_name, site = found
        variable = facts.code.values.get(var_name)
        return (f"{_cap(describe(source))} is a copy of {describe(variable)} made at "
                f"{where(site)}, outside what the tape records: the target was computed from "
                f"the variable, not from this copy. Pass `{var_name}` itself as the source.")
    for variable in tape._watched_variables.values():
        if variable._value is source._value:  # tf.identity(v) shares v's array
            return (f"{_cap(describe(source))} is a copy of {describe(variable)} (the same "
                    f"value, made outside what the tape records): the target was computed "
                    f"from the variable, not from this copy. Pass the variable itself as the "
                    f"source.{facts.call()}")
    return None


_ESCAPES = {".numpy()": ".numpy()", "NumPy": "NumPy", "float()": "float()"}
_ESCAPE_ADVICE = {
    ".numpy()": "Keep the value a tensor: compute with tapeflow ops instead of on .numpy().",
    "NumPy": "Use the tapeflow op instead of the NumPy function (tf.exp for np.exp, "
             "tf.reduce_sum for np.sum).",
    "float()": "Keep the value a tensor: a Python float carries no gradient.",
}


def _unconnected(tape: Any, source: Any, what: str, facts: _Facts,
                 name: Optional[str]) -> str:
    """The reason for a tracked source that still got no gradient."""
    edges, targets = facts.edges, facts.targets
    above = _ancestors(edges, targets)
    below = _descendants(edges, source, lambda edge: True)
    # The first op without a gradient on each path: fed by the source through gradient-
    # carrying ops only, and feeding the target. Ops after it are cut off already.
    open_below = _descendants(edges, source, lambda edge: not _is_cut(edge))
    cuts: dict = {}  # the user's name of each cutting op -> (TF op name, site), oldest first
    for key, (prim, inputs, out) in edges.items():
        if (key in above and _is_cut((prim, inputs, out))
                and any(id(x) in open_below for x in inputs)):
            event = facts.cuts.get(key)
            cuts.setdefault(_op_name(prim, out), (prim.name, event and event[1]))
    if cuts:
        names = list(cuts)
        why, todo = _advice(cuts[names[0]][0])
        has = "has" if len(names) == 1 else "have"
        sites = [(n, cuts[n][1]) for n in names[:3] if cuts[n][1]]
        at = (f" The cut is at {where(sites[0][1])}." if len(sites) == 1 else
              " The cuts: " + "; ".join(f"{n} at {where(site)}" for n, site in sites) + "."
              if sites else "")
        return (f"The path from {what} to the target passes through {' and '.join(names[:3])}, "
                f"which {has} no gradient{why}. {todo}{at}")
    events = [facts.cuts[k] for k in below if k in facts.cuts]
    assign = next((e for e in events if e[0] == "assign"), None)
    if assign is not None:
        op, variable = assign[3]
        return (f"The path from {what} to the target goes through {_var(variable)}.{op}(...) "
                f"at {where(assign[1])}: an assignment is not differentiable (the variable's "
                f"new value has no history), so the target, computed from {describe(variable)} "
                f"after it, does not depend on {what}. Compute the target from the assigned "
                f"value itself.")
    escape = next((e for e in events if e[0] in _ESCAPES), None)
    if escape is not None:
        took = "its value" if escape[2] is source else "a value computed from it"
        return (f"{_cap(what)} reaches the target only through {took} taken out of tapeflow "
                f"by {_ESCAPES[escape[0]]} at {where(escape[1])}: .numpy() or NumPy "
                f"functions, which break the chain, give values with no history. "
                f"{_ESCAPE_ADVICE[escape[0]]}")
    if len(below) == 1:  # nothing recorded used the source
        read = "read" if isinstance(source, Variable) else "used"
        if facts.pauses:
            return (f"{_cap(what)} was watched but no tapeflow op {read} it while the tape was "
                    f"recording: it was {read} only under tape.stop_recording(), in "
                    f"{facts.paused()}, where the tape records nothing. Compute the target "
                    f"from it outside that block.")
        copy = _copy(tape, source, facts, name) if not isinstance(source, Variable) else None
        if copy is not None:
            return copy
        return (f"{_cap(what)} was watched but no tapeflow op {read} it while the tape was "
                f"recording: it was {read} before the `with` block or after it. Compute the "
                f"target from it with tapeflow ops inside the tape's context.{facts.call()}")
    if not any(id(t) in edges or id(t) in tape._tracked for t in targets):
        target = facts.code.target_name() if facts.code else None
        if facts.pauses:
            return (f"The target was not computed from any watched value while the tape was "
                    f"recording: it was computed under tape.stop_recording(), in "
                    f"{facts.paused()}, where the tape records nothing. Compute it from "
                    f"{what} outside that block.")
        return (f"The target was not computed from any watched value while the tape was "
                f"recording: it was computed after the `with` block (or before it). Compute "
                f"it from {what} with tapeflow ops inside the tape's context."
                f"{facts.made(target, 'The target was computed at')}")
    if id(source) in above:
        return (f"Every op between {what} and the target is recorded, but their gradient "
                f"rules give no gradient for it (for example, it is only used as an index)."
                f"{facts.call()}")
    return (f"The target does not depend on {what} through tapeflow ops; values taken out "
            f"with .numpy() or NumPy functions break the chain, so compute the target from it "
            f"with tapeflow ops inside the tape's context.{facts.call()}")


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


__all__ = ["describe", "diagnose", "note", "explanation", "report", "user_site", "where",
           "NoneGradientWarning", "gradient_report", "GradientReport"]
