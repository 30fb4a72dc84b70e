"""keras.utils.model_to_dot / plot_model against Keras 3.15's output.

The expected DOT texts below are what Keras 3.15.1 (with pydot 4.0.1) gave for the same models,
node ids (`id(layer)`) replaced by layer names on both sides.
"""

from __future__ import annotations

import functools
import re
import shutil

import pytest

import tapeflow as tf

keras = tf.keras
layers = keras.layers
ALL_FLAGS = dict(show_shapes=True, show_dtype=True, show_layer_names=True,
                 show_layer_activations=True, show_trainable=True)


def _models() -> dict:
    seq = keras.Sequential([keras.Input((3,), name="x"), layers.Dense(4, activation="relu",
                                                                       name="d1"),
                            layers.Dense(2, name="d2")], name="seq")
    inp = keras.Input((5,), name="inp")
    a = layers.Dense(3, name="a")(inp)
    b = layers.Dense(3, name="b", trainable=False)(inp)
    merged = layers.Add(name="add")([a, b])
    func = keras.Model(inp, layers.Concatenate(name="cat")([merged, a]), name="func")
    inner = keras.Sequential([keras.Input((4,)), layers.Dense(3, name="i1"),
                              layers.Dense(2, name="i2")], name="inner")
    x = keras.Input((4,), name="outer_in")
    nested = keras.Model(x, layers.Dense(1, name="head")(inner(x)), name="nested")
    i2 = keras.Input((2,), name="in2")
    sub = keras.Model(i2, layers.Dense(2, name="fd")(i2), name="fsub")
    x3 = keras.Input((2,), name="x3")
    h = layers.Dense(2, name="pre")(x3)
    nestf = keras.Model(x3, layers.Dense(1, name="post")(sub(h)), name="nestf")
    return {"seq": seq, "func": func, "nested": nested, "nestf": nestf}


def _names(model, out: dict) -> dict:
    for layer in getattr(model, "_summary_layers", None) or model.layers:
        out[str(id(layer))] = layer.name
        if hasattr(layer, "layers"):
            _names(layer, out)
    return out


def _normalized(dot, model) -> str:
    names = _names(model, {})
    return re.sub(r"\b\d{6,}\b", lambda m: names.get(m.group(0), "??"), dot.to_string())


# model_to_dot(seq)
SEQUENTIAL = (
    'digraph G {\n'
    'rankdir=TB;\n'
    'concentrate=true;\n'
    'dpi=200;\n'
    'splines=ortho;\n'
    'node [shape=record];\n'
    'd1 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>d1</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'd2 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>d2</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'd1 -> d2 [penwidth=2];\n'
    '}\n'
)

# model_to_dot(func, **ALL_FLAGS)
FUNCTIONAL_ALL_FLAGS = (
    'digraph G {\n'
    'rankdir=TB;\n'
    'concentrate=true;\n'
    'dpi=200;\n'
    'splines=ortho;\n'
    'node [shape=record];\n'
    'inp [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="4" bgcolor="black"><font point-size="16" color="white"><b>inp</b> '
    '(InputLayer)</font></td></tr><tr><td bgcolor="white"><font point-size="14">Output shape: '
    '<b>(None, 5)</b></font></td><td bgcolor="white"><font point-size="14">Output dtype: '
    '<b>float32</b></font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'a [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="4" bgcolor="black"><font point-size="16" color="white"><b>a</b> (Dense)</font>'
    '</td></tr><tr><td bgcolor="white" colspan="4"><font point-size="14">Activation: '
    '<b>linear</b></font></td></tr><tr><td bgcolor="white"><font point-size="14">Input shape: '
    '<b>(None, 5)</b></font></td><td bgcolor="white"><font point-size="14">Output shape: '
    '<b>(None, 3)</b></font></td><td bgcolor="white"><font point-size="14">Output dtype: '
    '<b>float32</b></font></td><td bgcolor="forestgreen"><font point-size="14" color="white">'
    '<b>Trainable</b></font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'b [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="4" bgcolor="black"><font point-size="16" color="white"><b>b</b> (Dense)</font>'
    '</td></tr><tr><td bgcolor="white" colspan="4"><font point-size="14">Activation: '
    '<b>linear</b></font></td></tr><tr><td bgcolor="white"><font point-size="14">Input shape: '
    '<b>(None, 5)</b></font></td><td bgcolor="white"><font point-size="14">Output shape: '
    '<b>(None, 3)</b></font></td><td bgcolor="white"><font point-size="14">Output dtype: '
    '<b>float32</b></font></td><td bgcolor="firebrick"><font point-size="14" color="white">'
    '<b>Non-trainable</b></font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'add [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="4" bgcolor="black"><font point-size="16" color="white"><b>add</b> (Add)</font>'
    '</td></tr><tr><td bgcolor="white"><font point-size="14">Input shape: <b>[(None, 3), '
    '(None, 3)]</b></font></td><td bgcolor="white"><font point-size="14">Output shape: '
    '<b>(None, 3)</b></font></td><td bgcolor="white"><font point-size="14">Output dtype: '
    '<b>float32</b></font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'cat [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="4" bgcolor="black"><font point-size="16" color="white"><b>cat</b> '
    '(Concatenate)</font></td></tr><tr><td bgcolor="white"><font point-size="14">Input shape: '
    '<b>[(None, 3), (None, 3)]</b></font></td><td bgcolor="white"><font point-size="14">Output '
    'shape: <b>(None, 6)</b></font></td><td bgcolor="white"><font point-size="14">Output '
    'dtype: <b>float32</b></font></td></tr></table>>, fontname=Helvetica, border=0, '
    'margin=0];\n'
    'inp -> a [penwidth=2];\n'
    'inp -> b [penwidth=2];\n'
    'a -> add [penwidth=2];\n'
    'b -> add [penwidth=2];\n'
    'add -> cat [penwidth=2];\n'
    'a -> cat [penwidth=2];\n'
    '}\n'
)

# model_to_dot(nested, expand_nested=True, ...)
NESTED_EXPANDED = (
    'digraph G {\n'
    'rankdir=TB;\n'
    'concentrate=true;\n'
    'dpi=200;\n'
    'splines=ortho;\n'
    'node [shape=record];\n'
    'outer_in [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr>'
    '<td colspan="1" bgcolor="black"><font point-size="16" color="white"><b>outer_in</b> '
    '(InputLayer)</font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'subgraph cluster_inner {\n'
    'style=dashed;\n'
    'label=inner;\n'
    'labeljust=l;\n'
    'i1 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>i1</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'i2 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>i2</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'i1 -> i2 [penwidth=2];\n'
    '}\n'
    'head [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>head</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'outer_in -> i1 [penwidth=2];\n'
    'i2 -> head [penwidth=2];\n'
    '}\n'
)

# model_to_dot(nested, rankdir="LR", dpi=96, ...)
NESTED_COLLAPSED_LR = (
    'digraph G {\n'
    'rankdir=LR;\n'
    'concentrate=true;\n'
    'dpi=96;\n'
    'splines=ortho;\n'
    'node [shape=record];\n'
    'outer_in [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr>'
    '<td colspan="1" bgcolor="black"><font point-size="16" color="white"><b>InputLayer</b>'
    '</font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'inner [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>Sequential</b></font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'head [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>Dense</b></font></td>'
    '</tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'outer_in -> inner [penwidth=2];\n'
    'inner -> head [penwidth=2];\n'
    '}\n'
)

# model_to_dot(nestf, expand_nested=True, ...)
NESTED_FUNCTIONAL_EXPANDED = (
    'digraph G {\n'
    'rankdir=TB;\n'
    'concentrate=true;\n'
    'dpi=200;\n'
    'splines=ortho;\n'
    'node [shape=record];\n'
    'x3 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>x3</b> '
    '(InputLayer)</font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'pre [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>pre</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'subgraph cluster_fsub {\n'
    'style=dashed;\n'
    'label=fsub;\n'
    'labeljust=l;\n'
    'in2 [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>in2</b> '
    '(InputLayer)</font></td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'fd [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>fd</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'in2 -> fd [penwidth=2];\n'
    '}\n'
    'post [label=<<table border="0" cellborder="1" bgcolor="black" cellpadding="10"><tr><td '
    'colspan="1" bgcolor="black"><font point-size="16" color="white"><b>post</b> (Dense)</font>'
    '</td></tr></table>>, fontname=Helvetica, border=0, margin=0];\n'
    'x3 -> pre [penwidth=2];\n'
    'pre -> in2 [penwidth=2];\n'
    'fd -> post [penwidth=2];\n'
    '}\n'
)


@pytest.fixture(scope="module")
def models():
    return _models()


def test_sequential(models):
    assert _normalized(keras.utils.model_to_dot(models["seq"]), models["seq"]) == SEQUENTIAL


def test_functional_with_branches_merges_and_every_flag(models):
    # shapes of a merge's inputs as a list, the non-trainable layer in firebrick
    dot = keras.utils.model_to_dot(models["func"], **ALL_FLAGS)
    assert _normalized(dot, models["func"]) == FUNCTIONAL_ALL_FLAGS


def test_nested_sequential_expanded_and_collapsed(models):
    model = models["nested"]
    dot = keras.utils.model_to_dot(model, expand_nested=True, show_layer_names=True)
    assert _normalized(dot, model) == NESTED_EXPANDED
    dot = keras.utils.model_to_dot(model, rankdir="LR", dpi=96, show_layer_names=False)
    assert _normalized(dot, model) == NESTED_COLLAPSED_LR


def test_nested_functional_expanded_points_at_its_input_layer(models):
    model = models["nestf"]
    dot = keras.utils.model_to_dot(model, expand_nested=True, show_layer_names=True)
    assert _normalized(dot, model) == NESTED_FUNCTIONAL_EXPANDED


def test_subclassed_model_is_one_box():
    class Net(keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    net = Net()
    net(tf.ones((1, 3)))
    text = keras.utils.model_to_dot(net).to_string()
    assert text.count("[label=") == 1 and "<b>net</b> (Net)" in text and "->" not in text


def test_errors_as_keras(tmp_path):
    unbuilt = keras.Sequential([layers.Dense(2)])
    message = ("This model has not yet been built. Build the model first by calling `build()` "
               "or by calling the model on a batch of data.")
    for fn in (keras.utils.plot_model, keras.utils.model_to_dot):
        with pytest.raises(ValueError, match=re.escape(message)):
            fn(unbuilt)
    model = _models()["seq"]
    # A .dot file needs no Graphviz, so the argument checks are reached without it (for an
    # image, Keras checks for Graphviz first: test_plot_model_writes_dot_text_without_graphviz).
    plot_dot_text = functools.partial(keras.utils.plot_model, to_file=tmp_path / "model.dot")
    for fn in (plot_dot_text, keras.utils.model_to_dot):
        with pytest.raises(ValueError, match="Argument `layer_range` is no longer supported."):
            fn(model, layer_range=[0, 1])
        with pytest.raises(ValueError, match=re.escape("Unrecognized keyword arguments: "
                                                       "{'foo': 1}")):
            fn(model, foo=1)


def test_plot_model_writes_dot_text_without_graphviz(tmp_path, monkeypatch):
    model = _models()["func"]
    monkeypatch.setattr(shutil, "which", lambda name: None)
    path = tmp_path / "model.dot"
    assert keras.utils.plot_model(model, to_file=path, show_layer_names=True) is None
    text = path.read_text()
    assert text == keras.utils.model_to_dot(model, show_layer_names=True).to_string()
    # Keras 3.15's message where Graphviz is missing (measured with `dot` off the PATH)
    with pytest.raises(ImportError, match=re.escape(
            "You must install graphviz (see instructions at "
            "https://graphviz.gitlab.io/download/) for `plot_model` to work.")):
        keras.utils.plot_model(model, to_file=tmp_path / "model.png")


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot is not installed (apt-get install graphviz)")
@pytest.mark.parametrize("name", ["model.png", "model.svg", "model"])
def test_plot_model_renders_with_graphviz(tmp_path, name):
    path = tmp_path / name
    keras.utils.plot_model(_models()["nested"], to_file=path, show_shapes=True,
                           expand_nested=True)
    data = path.read_bytes()
    if name.endswith(".svg"):
        assert b"<svg" in data and b"InputLayer" in data
    else:  # no extension: PNG, as Keras
        assert data.startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot is not installed (apt-get install graphviz)")
def test_dot_object_creates_images_as_pydot():
    dot = keras.utils.model_to_dot(_models()["seq"])
    assert dot.create(format="svg").lstrip().startswith(b"<?xml")
    assert dot.create_png().startswith(b"\x89PNG")
