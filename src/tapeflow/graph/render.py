"""Text and Graphviz DOT views of a graph: ops, inputs, attributes, shapes and dtypes.

Ops that a GradientTape's backward pass created are marked `[backward]` in text and drawn in
their own cluster in DOT, so the forward and backward parts of a training step stand apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.graph.ir import Graph, dtype_of


def _value_text(graph: Graph, vid: int) -> str:
    info = graph.values[vid]
    if info.kind == "var":
        return f"%{vid}:resource<{info.example._name}>"
    return f"%{vid}:{dtype_of(info)}{info.shape}"


def _attr_text(value: Any) -> str:
    if isinstance(value, np.dtype):
        return value.name
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def graph_text(graph: Graph) -> str:
    """One line per node: `%out:dtype(shape) = Op(%in, ...) {attrs}  # file:line`."""
    lines = [f"graph {graph.name}("
             + ", ".join(_value_text(graph, v) for v in graph.inputs) + ") {"]
    for vid, info in enumerate(graph.values):
        if info.kind == "const" and any(vid in n.inputs for n in graph.nodes) or \
                info.kind == "const" and vid in graph.outputs:
            lines.append(f"  {_value_text(graph, vid)} = Const")
    for node in graph.nodes:
        outs = ", ".join(_value_text(graph, v) for v in node.outputs)
        ins = ", ".join(_value_text(graph, v) for v in node.inputs)
        attrs = ""
        if node.attrs:
            attrs = " {" + ", ".join(f"{k}={_attr_text(v)}" for k, v in node.attrs.items()) + "}"
        phase = "  [backward]" if node.phase == "backward" else ""
        where = f"  # line {node.location[1]}" if node.location[1] else ""
        lhs = f"{outs} = " if outs else ""
        lines.append(f"  {lhs}{node.op_name}({ins}){attrs}{phase}{where}")
    lines.append("  return " + ", ".join(_value_text(graph, v) for v in graph.outputs))
    lines.append("}")
    return "\n".join(lines)


def graph_dot(graph: Graph) -> str:
    """Graphviz DOT: a box per op labelled with its outputs' shapes and dtypes."""
    lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", '  node [shape=box, fontsize=10];']
    producer = {}
    for vid in graph.inputs:
        info = graph.values[vid]
        lines.append(f'  v{vid} [shape=ellipse, label="{info.name}\\n{dtype_of(info)}'
                     f'{info.shape}"];')
        producer[vid] = f"v{vid}"
    for vid, info in enumerate(graph.values):
        if info.kind in ("const", "var"):
            label = f"{info.example._name}" if info.kind == "var" else "Const"
            lines.append(f'  v{vid} [shape=note, label="{label}\\n{dtype_of(info)}'
                         f'{info.shape}"];')
            producer[vid] = f"v{vid}"
    clusters = {"forward": [], "backward": []}
    for index, node in enumerate(graph.nodes):
        shapes = ", ".join(f"{dtype_of(graph.values[v])}{graph.values[v].shape}"
                           for v in node.outputs)
        clusters[node.phase].append(f'    n{index} [label="{node.op_name}\\n{shapes}"];')
        for v in node.outputs:
            producer[v] = f"n{index}"
    for phase, color in (("forward", "lightblue"), ("backward", "lightpink")):
        if clusters[phase]:
            lines.append(f"  subgraph cluster_{phase} {{")
            lines.append(f'    label="{phase}"; style=filled; color="{color}";')
            lines.extend(clusters[phase])
            lines.append("  }")
    for index, node in enumerate(graph.nodes):
        for v in node.inputs:
            if v in producer:
                lines.append(f"  {producer[v]} -> n{index};")
    for i, v in enumerate(graph.outputs):
        lines.append(f'  out{i} [shape=ellipse, label="output {i}"];')
        if v in producer:
            lines.append(f"  {producer[v]} -> out{i};")
    lines.append("}")
    return "\n".join(lines)
