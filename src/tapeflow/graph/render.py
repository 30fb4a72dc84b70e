"""Text and Graphviz DOT views of what was traced or taped: ops, inputs, attributes, shapes and
dtypes.

Both a `tf.function` graph (`Graph.as_text`, `Graph.to_dot`) and a GradientTape's record
(`tape.to_text`, `tape.to_dot`) are first described as a `Picture` (values, leaves, ops, outputs)
and then written by the same two writers, so they read alike. Ops that a GradientTape's backward
pass created inside a graph are marked `[backward]` in text and drawn in their own cluster in
DOT, so the forward and backward parts of a training step stand apart. On a tape, the path that
`tape.explain` found cut for a source with no gradient is drawn dashed and red, labelled with
the reason.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff import backprop, diagnostics
from tapeflow.framework.variables import Variable
from tapeflow.graph.ir import Graph, dtype_of

_CUT_COLOR = "red"


class Op:
    """One op of a picture: its TF op name, value keys in and out, and how to mark it."""

    __slots__ = ("name", "inputs", "outputs", "attrs", "cluster", "marks", "line", "cut")

    def __init__(self, name: str, inputs: list, outputs: list, attrs: Optional[dict] = None,
                 cluster: Optional[str] = None, line: int = 0) -> None:
        self.name, self.inputs, self.outputs = name, inputs, outputs
        self.attrs = attrs or {}
        self.cluster = cluster      # "forward"/"backward" in graphs; None: no cluster
        self.line = line            # the user's line that made it, 0 if unknown
        self.marks: list = []       # words shown in brackets after the op in text
        self.cut: Optional[str] = None   # the reason, for the op that cut a gradient path


class Leaf:
    """A value no op of the picture produced: a function input, constant, variable, or a
    tensor a tape watched."""

    __slots__ = ("key", "kind", "label", "marks")

    def __init__(self, key: int, kind: str, label: str) -> None:
        self.key, self.kind, self.label = key, kind, label   # kind: "input", "const", "var"
        self.marks: list = []


class Picture:
    """What the writers draw: `values` maps a key to its `%k:dtype(shape)` text; `outputs`
    are (key or None, label) pairs; `cut_edges` are (value key, op index) pairs on a cut
    path; `notes` are lines added at the end of the text."""

    def __init__(self, title: str, kind: str) -> None:
        self.title, self.kind = title, kind
        self.values: dict = {}
        self.header_inputs: list = []   # leaf keys shown in the text's first line (graphs)
        self.leaves: list = []
        self.ops: list = []
        self.outputs: list = []
        self.output_word = "return"     # text: `return %4` (graphs) or `targets %4` (tapes)
        self.cut_edges: set = set()
        self.notes: list = []


# -- describing a tf.function graph -----------------------------------------------------------

def _graph_value_text(graph: Graph, vid: int) -> str:
    info = graph.values[vid]
    if info.kind == "var":
        return f"%{vid}:resource<{info.example._name}>"
    return f"%{vid}:{dtype_of(info)}{info.shape}"


def graph_picture(graph: Graph) -> Picture:
    """A graph's picture. Constants and variables appear only where a node reads them or an
    output is one: passes (folding, dead-code removal) leave values nothing uses behind."""
    picture = Picture(graph.name, "graph")
    used = {v for node in graph.nodes for v in node.inputs}
    used.update(graph.outputs)
    for vid, info in enumerate(graph.values):
        if info.kind in ("input", "op") or vid in used:
            picture.values[vid] = _graph_value_text(graph, vid)
    for vid in graph.inputs:
        info = graph.values[vid]
        picture.leaves.append(Leaf(vid, "input", info.name))
        picture.header_inputs.append(vid)
    for vid, info in enumerate(graph.values):
        if info.kind in ("const", "var") and vid in used:
            label = info.example._name if info.kind == "var" else "Const"
            picture.leaves.append(Leaf(vid, info.kind, label))
    for node in graph.nodes:
        op = Op(node.op_name, list(node.inputs), list(node.outputs), node.attrs, node.phase,
                node.location[1])
        if node.phase == "backward":
            op.marks.append("backward")
        picture.ops.append(op)
    picture.outputs = [(v, f"output {i}") for i, v in enumerate(graph.outputs)]
    return picture


def graph_text(graph: Graph) -> str:
    """One line per node: `%out:dtype(shape) = Op(%in, ...) {attrs}  # line N`."""
    return write_text(graph_picture(graph))


def graph_dot(graph: Graph) -> str:
    """Graphviz DOT: a box per op labelled with its outputs' shapes and dtypes."""
    return write_dot(graph_picture(graph))


# -- describing a GradientTape's record ---------------------------------------------------------

def _flat(prim: Any, outputs: Any) -> tuple:
    return tuple(outputs) if prim.multiple_results else (outputs,)


def _tape_ops(tape: Any) -> list:
    """(primitive, inputs, attrs, outputs tuple) of the record, with the ops `_blocked`
    remembers (ops with no gradient fed by a tracked value) placed before their first
    consumer."""
    record = [(prim, inputs, attrs, _flat(prim, outs)) for prim, inputs, attrs, outs in
              tape._nodes]
    produced = {id(out) for _, _, _, outs in record for out in outs}
    blocked: dict = {}   # id(output) -> its blocked op; a multi-output op appears once
    by_call: dict = {}   # (id(primitive), id(inputs)) -> that op
    for key, (out, prim, inputs) in tape._blocked.items():
        if key not in produced:  # else an integer output of a recorded op
            op = by_call.setdefault((id(prim), id(inputs)), (prim, inputs, {}, []))
            op[3].append(out)
            blocked[key] = op
    ordered: list = []
    placed: set = set()

    def place(op: tuple) -> None:
        if id(op) not in placed:
            placed.add(id(op))
            for x in op[1]:
                if id(x) in blocked:
                    place(blocked[id(x)])
            ordered.append(op)

    for op in record + list(by_call.values()):
        place(op)
    return ordered


def _tape_value_text(key: int, value: Any) -> str:
    if isinstance(value, Variable):
        return f"%{key}:resource<{value._name}>"
    return f"%{key}:{value.dtype.name}{value.shape}"


def tape_picture(tape: Any) -> Picture:
    """A tape's picture: its recorded ops in order, the watched values and other inputs as
    leaves, the last `gradient`/`jacobian` call's sources and targets marked, and the paths
    that call found cut drawn apart (a persistent tape keeps what that needs)."""
    if tape._nodes is None:
        raise RuntimeError("A non-persistent GradientTape frees its record in its gradient "
                           "(or jacobian) call, so there is nothing left to draw; call "
                           "to_text()/to_dot() before gradient(), or create the tape with "
                           "persistent=True.")
    targets, sources = getattr(tape, "_last_call", None) or ((), ())
    ops = _tape_ops(tape)
    picture = Picture(f"GradientTape(persistent={tape._persistent})", "tape")
    picture.output_word = "targets"
    keys: dict = {}            # id(value) -> key, in order of first appearance
    objects: dict = {}         # key -> value

    def key_of(value: Any) -> int:
        key = keys.get(id(value))
        if key is None:
            key = keys[id(value)] = len(keys)
            objects[key] = value
        return key

    produced = {id(out) for _, _, _, outs in ops for out in outs}
    leaves = [v for k, v in tape._tracked.items() if k not in produced]
    leaves += [s for s in sources if id(s) not in produced]
    leaves += [x for _, inputs, _, _ in ops for x in inputs if id(x) not in produced]
    source_ids = {id(s) for s in sources}
    for value in leaves:
        if id(value) not in keys:
            picture.leaves.append(_tape_leaf(tape, key_of(value), value, source_ids))
    for prim, inputs, attrs, outs in ops:
        op = Op(prim.name, [key_of(x) for x in inputs], [key_of(out) for out in outs], attrs)
        if any(id(out) in source_ids for out in outs):
            op.marks.append("source")
        picture.ops.append(op)
    picture.values = {key: _tape_value_text(key, value) for key, value in objects.items()}
    picture.outputs = [(keys.get(id(t)), f"target {i}") for i, t in enumerate(targets)]
    _mark_cut_paths(picture, tape, keys, objects, targets, sources)
    return picture


def _tape_leaf(tape: Any, key: int, value: Any, source_ids: set) -> Leaf:
    """A watched variable or tensor, or a value the tape does not track (a constant)."""
    if isinstance(value, Variable):
        leaf = Leaf(key, "var", value.name)
    else:
        leaf = Leaf(key, "input" if id(value) in tape._tracked else "const",
                    "Watched" if id(value) in tape._tracked else "Const")
    if id(value) in source_ids:
        leaf.marks.append("source")
    elif id(value) in tape._tracked:
        leaf.marks.append("watched")
    return leaf


def _mark_cut_paths(picture: Picture, tape: Any, keys: dict, objects: dict, targets: Any,
                    sources: Any) -> None:
    """For each source `explain` has a reason for: the edges between it and the targets
    (the path its gradient did not take), the ops on that path that have no gradient (as
    `explain` finds them), and the reason as a note."""
    reasons = getattr(tape, "_explanations", None) or {}
    if not reasons:
        return
    edges = diagnostics._edges(tape._nodes, tape._blocked)
    above = diagnostics._ancestors(edges, targets)
    for source in sources:
        reason = reasons.get(id(source))
        if reason is None or id(source) not in keys:
            continue
        picture.notes.append(f"no gradient for {picture.values[keys[id(source)]]}: {reason}")
        below = diagnostics._descendants(edges, source, lambda edge: True)
        open_below = diagnostics._descendants(
            edges, source, lambda edge: not diagnostics._is_cut(edge))
        on_path = {keys[k] for k in above & below if k in keys}
        for index, op in enumerate(picture.ops):
            ins = [k for k in op.inputs if k in on_path]
            if not ins or not any(k in on_path for k in op.outputs):
                continue
            picture.cut_edges.update((k, index) for k in ins)
            edge = edges[id(objects[op.outputs[0]])]
            if diagnostics._is_cut(edge) and any(id(x) in open_below for x in edge[1]):
                op.cut = reason
                if "cuts the gradient" not in op.marks:
                    op.marks.append("cuts the gradient")
            elif "cut path" not in op.marks:
                op.marks.append("cut path")


def tape_text(tape: Any) -> str:
    """`tape.to_text()`: one line per recorded op, as `graph_text` writes a graph."""
    return write_text(tape_picture(tape))


def tape_dot(tape: Any) -> str:
    """`tape.to_dot()`: the record in Graphviz DOT, as `graph_dot` draws a graph."""
    return write_dot(tape_picture(tape))


def _render_tape(tape: Any, form: str) -> str:
    return tape_dot(tape) if form == "dot" else tape_text(tape)


backprop.hooks["render_tape"] = _render_tape   # GradientTape.to_text/to_dot call it


# -- the writers --------------------------------------------------------------------------------

def _attr_text(value: Any) -> str:
    if isinstance(value, np.dtype):
        return value.name
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _marks(marks: list) -> str:
    return "".join(f"  [{m}]" for m in marks)


def write_text(picture: Picture) -> str:
    """The picture as text: a header, a line per leaf that is no header input, a line per op
    `%out:dtype(shape) = Op(%in, ...) {attrs}  [marks]  # line N`, the outputs, then notes."""
    values = picture.values
    header = ", ".join(values[k] for k in picture.header_inputs)
    lines = [f"graph {picture.title}({header}) {{" if picture.kind == "graph"
             else f"{picture.title} {{"]
    shown = set(picture.header_inputs)
    for leaf in picture.leaves:
        if leaf.key not in shown:
            word = "Const" if leaf.kind == "const" else "VarHandle" if \
                picture.kind == "graph" else "Variable" if leaf.kind == "var" else leaf.label
            lines.append(f"  {values[leaf.key]} = {word}{_marks(leaf.marks)}")
    for op in picture.ops:
        outs = ", ".join(values[k] for k in op.outputs)
        ins = ", ".join(values[k] for k in op.inputs)
        attrs = ""
        if op.attrs:
            attrs = " {" + ", ".join(f"{k}={_attr_text(v)}" for k, v in op.attrs.items()) + "}"
        where = f"  # line {op.line}" if op.line else ""
        lhs = f"{outs} = " if outs else ""
        lines.append(f"  {lhs}{op.name}({ins}){attrs}{_marks(op.marks)}{where}")
    if picture.outputs or picture.kind == "graph":
        lines.append(f"  {picture.output_word} " + ", ".join(
            values[k] if k is not None else f"<{label}: not recorded>"
            for k, label in picture.outputs))
    lines.extend(f"  # {note}" for note in picture.notes)
    lines.append("}")
    return "\n".join(lines)


_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)")


def dot_id(text: str) -> str:
    """A DOT ID: `text` as it is where Graphviz reads it bare, else double-quoted."""
    if _ID.fullmatch(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _label(*lines: str) -> str:
    return dot_id("\n".join(lines))


def _wrapped(text: str, width: int = 48) -> str:
    return "\n".join(textwrap.wrap(text, width))


def write_dot(picture: Picture) -> str:
    """The picture in Graphviz DOT: leaves as ellipses (inputs) or notes (constants,
    variables), ops as boxes labelled with their outputs' dtypes and shapes (in clusters by
    phase, for graphs), outputs as ellipses; cut paths dashed and red."""
    values = picture.values
    lines = [f"digraph {dot_id(picture.title)} {{", "  rankdir=TB;",
             "  node [shape=box, fontsize=10];"]
    producer: dict = {}

    def shape_of(key: int) -> str:
        return values[key].split(":", 1)[1]

    for leaf in picture.leaves:
        shape = "ellipse" if leaf.kind == "input" else "note"
        extra = ", penwidth=2" if "source" in leaf.marks else ""
        text = [leaf.label, shape_of(leaf.key)] + leaf.marks
        lines.append(f"  v{leaf.key} [shape={shape}, label={_label(*text)}{extra}];")
        producer[leaf.key] = f"v{leaf.key}"
    clusters: dict = {}
    for index, op in enumerate(picture.ops):
        shapes = ", ".join(shape_of(k) for k in op.outputs)
        style = ""
        if op.cut is not None:
            style = f", color={_CUT_COLOR}, fontcolor={_CUT_COLOR}, style=dashed"
        clusters.setdefault(op.cluster, []).append(
            f"n{index} [label={_label(op.name, shapes)}{style}];")
        for k in op.outputs:
            producer[k] = f"n{index}"
    lines.extend(f"  {line}" for line in clusters.pop(None, []))
    for phase, color in (("forward", "lightblue"), ("backward", "lightpink")):
        if clusters.get(phase):
            lines.append(f"  subgraph cluster_{phase} {{")
            lines.append(f'    label="{phase}"; style=filled; color="{color}";')
            lines.extend(f"    {line}" for line in clusters[phase])
            lines.append("  }")
    for index, op in enumerate(picture.ops):
        for k in op.inputs:
            if k not in producer:
                continue
            style = ""
            if (k, index) in picture.cut_edges:
                style = f" [style=dashed, color={_CUT_COLOR}"
                if op.cut is not None:
                    style += f", fontcolor={_CUT_COLOR}, label={_label(_wrapped(op.cut))}"
                style += "]"
            lines.append(f"  {producer[k]} -> n{index}{style};")
    for i, (k, label) in enumerate(picture.outputs):
        text = label if k is not None else f"{label}\n(not recorded)"
        lines.append(f"  out{i} [shape=ellipse, label={_label(text)}];")
        if k in producer:
            lines.append(f"  {producer[k]} -> out{i};")
    lines.append("}")
    return "\n".join(lines)


__all__ = ["Picture", "Op", "Leaf", "graph_picture", "graph_text", "graph_dot",
           "tape_picture", "tape_text", "tape_dot", "write_text", "write_dot", "dot_id"]
