"""`keras.utils.model_to_dot` and `keras.utils.plot_model`, as Keras 3.15.

Keras builds a `pydot.Dot`; here the same DOT text is written directly (pydot is not needed),
in pydot's layout: node ids are `id(layer)`, labels Keras's HTML tables. Images come from
Graphviz's `dot` program where it is installed; a `.dot` file is the DOT text itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any, Optional

from tapeflow.framework import nest
from tapeflow.graph.render import dot_id
# keras.models imports keras.utils while it loads: its classes are read when a model is drawn.
from tapeflow.keras import models as _models

_GRAPHVIZ_MISSING = ("You must install graphviz (see instructions at "
                     "https://graphviz.gitlab.io/download/) for `plot_model` to work.")
_NOT_BUILT = ("This model has not yet been built. Build the model first by calling `build()` "
              "or by calling the model on a batch of data.")
_DOT_TEXT_FORMATS = ("dot", "gv", "raw")
_IMAGE_FORMATS = ("png", "jpg", "jpeg", "gif")   # what IPython's Image can show


class Dot:
    """A DOT graph as `model_to_dot` returns it: pydot.Dot's `to_string`, `create` and `write`
    (and `create_png`, `write_svg`, ... for each Graphviz format)."""

    def __init__(self, name: str = "G", cluster: bool = False) -> None:
        self.name, self.cluster = name, cluster
        self.attributes: list = []   # (key, value) statements, in the order set
        self.items: list = []        # node and edge lines, and nested Dot clusters
        self._edges: set = set()

    def set(self, key: str, value: Any) -> None:
        """Sets a graph attribute, as pydot's `set`."""
        self.attributes.append((key, value))

    def add_edge(self, source: str, destination: str) -> None:
        """An edge drawn with penwidth 2, once per pair (as Keras's `add_edge`)."""
        if (source, destination) not in self._edges:
            self._edges.add((source, destination))
            self.items.append(f"{source} -> {destination} [penwidth=2];")

    def to_string(self) -> str:
        """The DOT text, laid out as pydot 4 writes it."""
        head = f"subgraph cluster_{self.name} {{" if self.cluster else f"digraph {self.name} {{"
        lines = [head] + [f"{key}={_value(value)};" for key, value in self.attributes]
        if not self.cluster:
            lines.append("node [shape=record];")
        for item in self.items:
            lines.append(item.to_string().rstrip("\n") if isinstance(item, Dot) else item)
        lines.append("}")
        return "\n".join(lines) + "\n"

    __str__ = to_string

    def create(self, prog: Optional[str] = None, format: str = "ps") -> bytes:
        """The graph laid out by Graphviz (`prog`, by default `dot`) in `format`."""
        if format == "raw":
            return self.to_string().encode()
        return run_graphviz(self.to_string(), format, prog or "dot")

    def write(self, path: Any, prog: Optional[str] = None, format: str = "raw") -> bool:
        """Writes `create(prog, format)` to `path` (the DOT text itself for "raw")."""
        with open(path, "wb") as f:
            f.write(self.create(prog, format))
        return True

    def __getattr__(self, name: str) -> Any:
        # pydot's create_png(), write_svg(path), ...
        for verb in ("create", "write"):
            if name.startswith(verb + "_"):
                method, form = getattr(self, verb), name[len(verb) + 1:]
                return lambda *args, **kwargs: method(*args, format=form, **kwargs)
        raise AttributeError(f"'Dot' object has no attribute {name!r}")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return dot_id(str(value))


def run_graphviz(dot_text: str, format: str, prog: str = "dot") -> bytes:
    """The image Graphviz's `prog` draws from `dot_text`; ImportError with Keras's text where
    Graphviz is not installed."""
    program = shutil.which(prog)
    if program is None:
        raise ImportError(_GRAPHVIZ_MISSING)
    result = subprocess.run([program, f"-T{format}"], input=dot_text.encode(),
                            capture_output=True, check=False)
    if result.returncode != 0:
        raise OSError(f"{prog} -T{format} failed with code {result.returncode}: "
                      f"{result.stderr.decode(errors='replace').strip()}")
    return result.stdout


# -- labels -------------------------------------------------------------------------------------

def _class_name(layer: Any) -> str:
    return getattr(layer, "_class_name", None) or type(layer).__name__  # ops: 'Add'


def _activation_name(layer: Any) -> str:
    activation = layer.activation
    if hasattr(activation, "name"):
        return activation.name
    return getattr(activation, "__name__", str(activation))


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "?"
    text = ", ".join(f"{k}: {v}" for k, v in shape.items()) if isinstance(shape, dict) \
        else f"{shape}"
    return text.replace("}", "").replace("{", "")


def _io(layer: Any, what: str, field: str) -> Any:
    """`layer.input`/`layer.output` mapped to their shapes or dtypes; None where unknown."""
    try:
        return nest.map_structure(lambda t: getattr(t, field), getattr(layer, what))
    except (ValueError, AttributeError):
        return None


def _cell(text: str, color: str = "white", font_color: str = "") -> str:
    font = f' color="{font_color}"' if font_color else ""
    return (f'<td bgcolor="{color}"><font point-size="14"{font}>{text}</font></td>')


def layer_label(layer: Any, show_layer_names: bool, show_layer_activations: bool,
                show_dtype: bool, show_shapes: bool, show_trainable: bool) -> str:
    """Keras's HTML-table label of one layer's box (`make_layer_label`)."""
    class_name = _class_name(layer)
    colspan = max(1, int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0))
    title = f"<b>{layer.name}</b> ({class_name})" if show_layer_names else f"<b>{class_name}</b>"
    table = ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
             f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" '
             f'color="white">{title}</font></td></tr>')
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        table += (f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
                  f"Activation: <b>{_activation_name(layer)}</b></font></td></tr>")
    cols = []
    if show_shapes:
        if class_name != "InputLayer":
            cols.append(_cell(f"Input shape: <b>{_shape_text(_io(layer, 'input', 'shape'))}</b>"))
        cols.append(_cell(f"Output shape: <b>{_shape_text(_io(layer, 'output', 'shape'))}</b>"))
    if show_dtype:
        dtype = _io(layer, "output", "dtype")
        dtype = nest.map_structure(lambda d: getattr(d, "name", d), dtype)
        cols.append(_cell(f"Output dtype: <b>{dtype or '?'}</b>"))
    if show_trainable and hasattr(layer, "trainable") and layer.weights:
        cols.append(_cell("<b>Trainable</b>", "forestgreen", "white") if layer.trainable
                    else _cell("<b>Non-trainable</b>", "firebrick", "white"))
    if cols:
        table += f"<tr>{''.join(cols)}</tr>"
    return table + "</table>>"


def _node(layer: Any, flags: dict) -> str:
    return (f"{id(layer)} [label={layer_label(layer, **flags)}, fontname=Helvetica, border=0, "
            f"margin=0];")


# -- the graph ----------------------------------------------------------------------------------

def model_to_dot(model: Any, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = "TB",
                 expand_nested: bool = False, dpi: int = 200, subgraph: bool = False,
                 show_layer_activations: bool = False, show_trainable: bool = False,
                 splines: str = "ortho", **kwargs: Any) -> Dot:
    """The model as a DOT graph, as `keras.utils.model_to_dot`: a box per layer (a subclassed
    model is one box), edges along the layer calls; `expand_nested` draws nested Sequential and
    functional models as dashed clusters of their layers.

    Raises:
      ValueError: for a model that is not built, or for unknown keyword arguments.
    """
    if not model.built:
        raise ValueError(_NOT_BUILT)
    if subgraph:
        dot = Dot(model.name, cluster=True)
        dot.set("style", "dashed")
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = Dot()
        for key, value in (("rankdir", rankdir), ("concentrate", True), ("dpi", dpi),
                           ("splines", splines)):
            dot.set(key, value)
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    flags = {"show_layer_names": show_layer_names,
             "show_layer_activations": show_layer_activations, "show_dtype": show_dtype,
             "show_shapes": show_shapes, "show_trainable": show_trainable}
    Functional, Sequential = _models.Functional, _models.Sequential
    if isinstance(model, Sequential):
        layers = model.layers
    elif not isinstance(model, Functional):
        dot.items.append(_node(model, flags))  # a subclassed model: one box
        return dot
    else:
        layers = model._summary_layers  # Keras's `_operations`: keras.ops nodes included
    for layer in layers:
        if expand_nested and isinstance(layer, (Functional, Sequential)):
            dot.items.append(model_to_dot(
                layer, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                subgraph=True, show_layer_activations=show_layer_activations,
                show_trainable=show_trainable))
        else:
            dot.items.append(_node(layer, flags))
    if isinstance(model, Sequential):
        if not expand_nested:
            for first, second in zip(layers, layers[1:]):
                dot.add_edge(str(id(first)), str(id(second)))
            return dot
        layers = layers[1:]  # the first layer's edge comes from outside the Sequential
    _add_call_edges(dot, model, layers, expand_nested)
    return dot


def _add_call_edges(dot: Dot, model: Any, layers: list, expand_nested: bool) -> None:
    """An edge from the layer that made each input of each call to the layer called, inside
    nested models where `expand_nested` draws them."""
    in_model = {node.id for node in model._nodes} \
        if isinstance(model, _models.Functional) else None
    for layer in layers:
        for node in layer._inbound_nodes:
            if in_model is not None and node.id not in in_model:
                continue
            for input_index, tensor in enumerate(node.input_tensors):
                source, _, output_index = tensor._keras_history
                destination = layer
                if expand_nested:
                    source = _innermost_source(source, output_index)
                    destination = _innermost_destination(destination, input_index)
                dot.add_edge(str(id(source)), str(id(destination)))


def _innermost_source(source: Any, output_index: int) -> Any:
    """The layer inside (nested) models that produces their output `output_index`."""
    while isinstance(source, (_models.Functional, _models.Sequential)):
        if isinstance(source, _models.Sequential):
            source, output_index = source.layers[-1], 0
        else:
            source, _, output_index = source.outputs[output_index]._keras_history
    return source


def _innermost_destination(destination: Any, input_index: int) -> Any:
    """The layer inside (nested) models that takes their input `input_index`: a functional
    model's InputLayer, a Sequential's first layer."""
    while isinstance(destination, (_models.Functional, _models.Sequential)):
        if isinstance(destination, _models.Functional):
            destination = destination.inputs[input_index]._keras_history[0]
        else:
            destination = destination.layers[0]
    return destination


def plot_model(model: Any, to_file: Any = "model.png", show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = False, rankdir: str = "TB",
               expand_nested: bool = False, dpi: int = 200,
               show_layer_activations: bool = False, show_trainable: bool = False,
               splines: str = "ortho", **kwargs: Any) -> Any:
    """Draws the model (see `model_to_dot`) into `to_file`, as `keras.utils.plot_model`: the
    file's extension is Graphviz's output format (png when there is none); a `.dot` or `.gv`
    file gets the DOT text. Returns an IPython Image of a PNG, JPEG or GIF file where IPython is
    installed, else None.

    Raises:
      ImportError: Keras's message where Graphviz's `dot` is not installed (images only).
      ValueError: for a model that is not built, or for unknown keyword arguments.
    """
    if not model.built:
        raise ValueError(_NOT_BUILT)
    to_file = str(to_file)
    given = os.path.splitext(to_file)[1][1:]
    extension = given or "png"
    if extension not in _DOT_TEXT_FORMATS and shutil.which("dot") is None:
        if "IPython.core.magics.namespace" in sys.modules:
            print(_GRAPHVIZ_MISSING)  # as Keras: a notebook is told, not stopped
            return None
        raise ImportError(_GRAPHVIZ_MISSING)
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines)
    dot.write(to_file, format="raw" if extension in _DOT_TEXT_FORMATS else extension)
    # Keras tries every format but PDF; IPython then fails on SVG, or on a file named without
    # an extension, after the file is written.
    if given.lower() in _IMAGE_FORMATS:
        try:
            from IPython import display
        except ImportError:
            return None
        return display.Image(filename=to_file)
    return None


__all__ = ["Dot", "model_to_dot", "plot_model", "layer_label", "run_graphviz"]
