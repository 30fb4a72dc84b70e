"""tape.to_text()/to_dot() and the graph export drawn by the same renderer (graph/render.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import tapeflow as tf
import tapeflow.graph.render  # noqa: F401 - the renderer (see test_import_installs_renderer)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (apt-get install graphviz)")


def _graphviz_accepts(dot: str) -> None:
    result = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


def _cut_tape():
    """x and w reach the loss only through tf.cast to int32 and tf.stop_gradient."""
    x = tf.constant([1.0, 2.0, 3.0])
    w = tf.Variable([0.5, 0.5, 0.5], name="w")
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * w
        loss = tf.reduce_sum(tf.cast(tf.cast(y, tf.int32), tf.float32)) + \
            tf.reduce_sum(tf.stop_gradient(y) * 2.0)
    return tape, x, w, loss


def test_text_before_gradient_lists_the_record_in_order():
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(x) * 3.0)
    assert tape.to_text() == "\n".join([
        "GradientTape(persistent=False) {",
        "  %0:float32(1, 2) = Watched  [watched]",
        "  %1:float32() = Const",
        "  %2:float32(1, 2) = Sin(%0:float32(1, 2))",
        "  %3:float32(1, 2) = Mul(%2:float32(1, 2), %1:float32())",
        "  %4:float32() = Sum(%3:float32(1, 2)) {axis=None, keepdims=False}",
        "}"])
    assert tape.gradient(y, x) is not None


def test_non_persistent_tape_after_gradient_has_no_record_to_draw():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.to_dot()


def test_sources_and_targets_marked_after_gradient():
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")   # watched, not a source of the call
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(w * w) + b
    tape.gradient(y, [w])
    text = tape.to_text()
    assert "%0:resource<w> = Variable  [source]" in text
    assert "%1:resource<b> = Variable  [watched]" in text
    # w * w reads the variable twice, as TensorFlow's tape records it
    assert text.count("= ReadVariableOp(%0:resource<w>)") == 2
    assert text.splitlines()[-2] == "  targets %7:float32()"
    dot = tape.to_dot()
    assert 'v0 [shape=note, label="w:0\\nresource<w>\\nsource", penwidth=2];' in dot
    assert 'out0 [shape=ellipse, label="target 0"];' in dot and "n5 -> out0;" in dot


def test_cut_path_drawn_dashed_red_with_explains_reason():
    tape, x, w, loss = _cut_tape()
    assert tape.gradient(loss, [x, w]) == [None, None]
    reason = tape.explain(x)
    text = tape.to_text()
    assert "= Cast(%4:float32(3,)) {dtype=int32}  [cuts the gradient]" in text
    assert "= StopGradient(%4:float32(3,))  [cuts the gradient]" in text
    assert "= Mul(%0:float32(3,), %3:float32(3,))  [cut path]" in text
    assert f"  # no gradient for %0:float32(3,): {reason}" in text
    dot = tape.to_dot()
    assert re.search(r'n2 \[label="Cast\\nint32\(3,\)", color=red, fontcolor=red, '
                     r'style=dashed\];', dot)
    assert "v0 -> n1 [style=dashed, color=red];" in dot
    assert "v2 -> n6;" in dot       # the constant 2.0 is on no path from a source
    label = re.search(r'n1 -> n2 \[style=dashed, color=red, fontcolor=red, label="([^"]*)"',
                      dot).group(1)
    assert label.replace("\\n", " ").startswith("The path from variable 'w:0' to the target "
                                                "passes through tf.cast to int32 and")


def test_connected_sources_draw_no_cut():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 4.0
    assert "red" not in tape.to_dot() and "#" not in tape.to_text()


@needs_dot
def test_graphviz_reads_the_tape_dot():
    tape, x, w, loss = _cut_tape()
    tape.gradient(loss, [x, w])
    _graphviz_accepts(tape.to_dot())


def _orphan_constants_graph():
    @tf.function
    def f(x):
        unused = tf.sin(tf.constant([1.0, 2.0, 3.0]))  # noqa: F841 - removed as dead code
        unused_too = x + tf.constant(7.0)                # noqa: F841
        scale = tf.constant(2.0) * tf.constant(3.0)      # folded into one constant
        return x * scale
    return f.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph


def test_graph_export_draws_no_orphan_constants():
    graph = _orphan_constants_graph()
    dot = graph.to_dot()
    assert dot.count("shape=note") == 1              # the folded 6.0 only
    assert re.findall(r"(v\d+) \[shape=note", dot)[0] + " -> n0;" in dot
    assert "float32(3,)" not in dot and "float32(3,)" not in graph.as_text()
    assert graph.as_text().count("= Const") == 1


@needs_dot
def test_graphviz_reads_the_graph_dot():
    _graphviz_accepts(_orphan_constants_graph().to_dot())


def test_import_installs_renderer():
    code = ("import tapeflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as t:\n"
            "    t.watch(x)\n    y = x * 2.0\nprint(t.to_text().splitlines()[0])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "GradientTape(persistent=False) {", result.stderr
