"""`keras.Model`, the functional API and `keras.Sequential`, with `summary()`.

- `Model(inputs, outputs)` is a functional model: a graph of layer calls recorded on
  KerasTensors, replayed on real tensors (nodes run in creation order, a topological order).
- `class M(keras.Model)` is a subclassed model: layers assigned as attributes are tracked.
- `Sequential([...])` chains layers; with a known input shape it builds at once.
Training (`compile`/`fit`/...) comes from `Trainer`.
"""

from __future__ import annotations

import inspect
import json
import math
import shutil
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework import nest
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.input_layer import InputLayer
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import (_INFERRING, KerasTensor, Layer, Operation,
                                         _infer_outputs)
from tapeflow.keras.trainer import Trainer
from tapeflow.ops import array_ops, math_ops


class Model(Layer, Trainer):
    """A layer with training and saving; see the module docstring for the three styles."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "Model":
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return object.__new__(Functional)
        return object.__new__(cls)

    metrics = Trainer.metrics  # the compiled metrics too, not only Layer's tracked ones

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_arguments(args, kwargs) and not isinstance(self, Functional):
            # A subclass built the functional way (`M(inputs, outputs)`, or its __init__
            # passing them on) becomes functional, as Keras 3 injects Functional into it.
            self.__class__ = _functional_variant(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        dtype = kwargs.pop("dtype", None)
        super().__init__(name=name, trainable=trainable, dtype=dtype, **kwargs)

    @property
    def layers(self) -> list:
        """The model's layers in order: the graph's (functional) or its attributes'."""
        return list(self._layers)

    def get_layer(self, name: Optional[str] = None, index: Optional[int] = None) -> Layer:
        """The layer called `name` (or at `index` in `layers`)."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[layer.name for layer in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def summary(self, line_length: Optional[int] = None, positions: Any = None,
                print_fn: Optional[Callable] = None, expand_nested: bool = False,
                show_trainable: bool = False, layer_range: Any = None) -> None:
        """Prints the layer table, as Keras 3 does (box-drawing characters included)."""
        text = summary_text(self, line_length, positions)
        if print_fn is None:
            from tapeflow.keras.utils import io_utils  # to the log while logging is off
            io_utils.print_msg(text)
        else:
            print_fn(text + "\n")  # Keras 3 hands print_fn the table with its final newline

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return super().__call__(*args, **kwargs)

    # -- saving -----------------------------------------------------------------------------
    def compile(self, *args: Any, **kwargs: Any) -> None:
        """`Trainer.compile`, remembering its arguments for `get_compile_config`."""
        names = list(inspect.signature(Trainer.compile).parameters)[1:]
        self._compile_args = {**dict(zip(names, args)), **kwargs}
        super().compile(*args, **kwargs)

    def get_compile_config(self) -> Optional[dict]:
        """The `compile()` arguments, serialized (None if not compiled), as Keras 3."""
        if not getattr(self, "compiled", False) or not hasattr(self, "_compile_args"):
            return None
        from tapeflow.keras.saving import serialize_keras_object
        args = self._compile_args
        return {"optimizer": serialize_keras_object(self.optimizer),
                "loss": serialize_keras_object(args.get("loss")),
                "loss_weights": serialize_keras_object(args.get("loss_weights")),
                "metrics": serialize_keras_object(args.get("metrics")),
                "weighted_metrics": serialize_keras_object(args.get("weighted_metrics")),
                "run_eagerly": bool(args.get("run_eagerly", False)),
                "steps_per_execution": args.get("steps_per_execution", 1),
                "jit_compile": args.get("jit_compile", False)
                if args.get("jit_compile", "auto") != "auto" else False}

    def compile_from_config(self, config: dict) -> None:
        """Compiles as `get_compile_config` recorded, then builds the optimizer (so its
        slots can be restored from a file)."""
        from tapeflow.keras.saving import deserialize_keras_object
        config = deserialize_keras_object(config)
        self.compile(**config)
        if self.built and self.optimizer is not None and not self.optimizer.built:
            self.optimizer.build(self.trainable_variables)

    def build_from_config(self, config: Optional[dict]) -> None:
        """Builds the model for the recorded input shape; a subclassed model without its own
        `build` is called once on zeros of that shape, creating its weights (as Keras 3)."""
        shape = (config or {}).get("input_shape")
        if self.built or shape is None:
            return
        if type(self).build is not Layer.build:
            self._maybe_build(tuple(shape))
            return
        concrete = tuple(1 if d is None else d for d in shape)
        self(np.zeros(concrete, self._dtype))
        self._build_shapes = list(shape)

    def save(self, filepath: Any, overwrite: bool = True, zipped: Optional[bool] = None,
             **kwargs: Any) -> None:
        """Saves the model (config, weights, optimizer state) as a Keras 3 `.keras` file, as
        Keras's unzipped directory (`zipped=False`), or in Keras's legacy HDF5 layout for a
        '.h5' or '.hdf5' path (`keras.saving.save_model`)."""
        from tapeflow.keras.saving import archive
        archive.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def to_json(self, **kwargs: Any) -> str:
        """The model's config as JSON (`keras.models.model_from_json` reads it back)."""
        import json
        from tapeflow.keras.saving import serialize_keras_object
        return json.dumps(serialize_keras_object(self), **kwargs)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Model":
        """A functional model from a functional config; otherwise `cls(**config)`."""
        if "layers" in config and "input_layers" in config and \
                not issubclass(cls, Sequential):
            return Functional._from_graph_config(config, custom_objects)
        return cls(**config)


class Functional(Model):
    """A model defined by its input and output KerasTensors."""

    _autocasts_inputs = False   # `call` casts each input to its Input's dtype (Keras 3)

    def __init__(self, inputs: Any, outputs: Any, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name or backend.unique_name("functional"), **kwargs)
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self.inputs = nest.flatten(inputs)
        self.outputs = nest.flatten(outputs)
        for t in self.inputs + self.outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `inputs` and `outputs` values must be KerasTensors. "
                                 f"Received: {t}")
        self._nodes = _nodes_between(self.inputs, self.outputs)
        layers = _keras_layer_order(self.inputs, self.outputs)
        # keras.ops nodes (`x + y`) are listed by summary() but are not layers (Keras 3).
        self._summary_layers = layers
        self._layers = [layer for layer in layers if not isinstance(layer, Operation)]
        self.built = True
        self._output_shape = nest.map_structure(lambda t: t.shape, outputs)
        self._input_spec = self._inputs_spec()

    def _inputs_spec(self) -> Any:
        """One InputSpec per input (batch size free, a last axis of 1 optional), named by
        its InputLayer (or dict key), as Keras 3's Functional.input_spec."""
        def spec(t: KerasTensor, name: Optional[str] = None) -> InputSpec:
            shape = (None,) + tuple(t.shape[1:]) if t.shape else ()
            return InputSpec(shape=shape, allow_last_axis_squeeze=True,
                             name=name or t._keras_history[0].name)
        struct = self._inputs_struct
        if isinstance(struct, dict):
            if not all(isinstance(t, KerasTensor) for t in struct.values()):
                return None  # a deeply nested dict: no check, as Keras
            return [spec(struct[k], name=k) for k in sorted(struct)]
        return [spec(t) for t in self.inputs]

    @property
    def input(self) -> Any:
        """The model's input KerasTensor(s), in the structure given to the model."""
        return self._inputs_struct

    @property
    def output(self) -> Any:
        """The model's output KerasTensor(s), in the structure given to the model."""
        return self._outputs_struct

    @property
    def output_names(self) -> list:
        """The names of the layers that produce the outputs, in output order."""
        return [t._keras_history[0].name for t in self.outputs]

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        flat = nest.flatten(self._inputs_by_name(inputs))
        if len(flat) != len(self.inputs):
            raise ValueError(f"Layer \"{self.name}\" expects {len(self.inputs)} input(s), but "
                             f"it received {len(flat)} input tensors.")
        flat = _adjust_input_rank(self.inputs, flat, self._inputs_struct)
        values = {id(t): v for t, v in zip(self.inputs, flat)}
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue
            args, kwargs = nest.map_structure(
                lambda t: values[id(t)] if isinstance(t, KerasTensor) else t,
                (list(node.args), dict(node.kwargs)))
            if node.layer._call_has_training or isinstance(node.layer, Model):
                kwargs.setdefault("training", training)
            result = node.layer(*args, **kwargs)
            for t, v in zip(node.output_tensors, nest.flatten(result)):
                values[id(t)] = v
        outputs = nest.pack_sequence_as(self._outputs_struct,
                                        [values[id(t)] for t in self.outputs])
        return outputs if _INFERRING[0] else _unpack_singleton(outputs)

    def _inputs_by_name(self, inputs: Any) -> Any:
        """A dict given to a model built on a list of Inputs (or one): its entries taken by
        the Inputs' names, in the model's order (Keras 3's `_standardize_inputs`; a dict
        that lacks a name is refused first by the InputSpec check, as in Keras)."""
        struct = self._inputs_struct
        if not isinstance(inputs, dict) or isinstance(struct, dict):
            return inputs
        references = list(struct) if isinstance(struct, (list, tuple)) else [struct]
        if all(isinstance(t, KerasTensor) for t in references) and \
                {t.name for t in references} <= set(inputs):
            return [inputs[t.name] for t in references]
        expected = nest.map_structure(lambda t: t.name, struct)
        received = {key: "None" if value is None else f"Tensor(shape={tuple(np.shape(value))})"
                    for key, value in inputs.items()}
        raise ValueError(f"The structure of `inputs` doesn't match the expected structure.\n"
                         f"Expected: {expected}\nReceived: inputs={received}")

    def get_build_config(self) -> dict:
        return {"input_shape": None}  # Keras 3's: the graph builds the model

    def _node_indices(self) -> dict:
        """node id -> its index among its layer's nodes in this model (Keras's reindexing)."""
        in_model = {node.id for node in self._nodes}
        indices: dict = {}
        for layer in self._layers + [n.layer for n in self._nodes]:
            k = 0
            for node in layer._inbound_nodes:
                if node.id in in_model and node.id not in indices:
                    indices[node.id] = k
                    k += 1
        return indices

    def get_config(self) -> dict:
        """Keras 3's functional config: each layer's config with its name and inbound nodes,
        and the input and output layers as `[layer name, node index, tensor index]`."""
        from tapeflow.keras.saving import serialize_keras_object
        from tapeflow.keras.saving.serialization import _keras_tensor_config
        indices = self._node_indices()
        for node in self._nodes:
            if isinstance(node.layer, Operation):
                raise NotImplementedError(
                    f"Cannot serialize the functional model '{self.name}': its graph applies "
                    f"the operation '{node.layer.name}' ({node.layer._class_name}) to "
                    "KerasTensors; wrap it in a layer to save the model's config.")

        def history(t: KerasTensor) -> list:
            layer, node_index, tensor_index = t._keras_history
            return [layer.name, indices[layer._inbound_nodes[node_index].id], tensor_index]

        def encode(value: Any) -> Any:
            if isinstance(value, KerasTensor):
                return _keras_tensor_config(value, history(value))
            if isinstance(value, (list, tuple)):
                return [encode(v) for v in value]
            if isinstance(value, dict):
                return {k: encode(v) for k, v in value.items()}
            return serialize_keras_object(value)

        layers = []
        in_model = {node.id for node in self._nodes}
        for layer in self._layers:
            config = serialize_keras_object(layer)
            config["name"] = layer.name
            config["inbound_nodes"] = [] if isinstance(layer, InputLayer) else [
                {"args": encode(list(node.args)), "kwargs": encode(dict(node.kwargs))}
                for node in layer._inbound_nodes if node.id in in_model]
            layers.append(config)

        def endpoints(struct: Any) -> Any:
            if isinstance(struct, KerasTensor):
                return history(struct)
            if isinstance(struct, dict):
                return {k: endpoints(v) for k, v in struct.items()}
            return [endpoints(t) for t in struct]
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": endpoints(self._inputs_struct),
                "output_layers": endpoints(self._outputs_struct)}

    @classmethod
    def _from_graph_config(cls, config: dict, custom_objects: Optional[dict] = None,
                           make_layer: Optional[Callable] = None) -> "Functional":
        """Rebuilds the graph of a functional config: each layer is created (by
        `make_layer(layer config)` or deserialized), then called on the tensors its inbound
        nodes name, in an order where every input exists."""
        from tapeflow.keras.saving import deserialize_keras_object
        created, tensors, pending = {}, {}, []
        for layer_config in config["layers"]:
            inner = {k: v for k, v in layer_config.items() if k not in ("name", "inbound_nodes")}
            layer = make_layer(layer_config) if make_layer else \
                deserialize_keras_object(inner, custom_objects)
            created[layer_config["name"]] = layer
            if isinstance(layer, InputLayer):
                tensors[(layer_config["name"], 0)] = [layer.output_tensor]
            pending += [(layer_config["name"], i, node)
                        for i, node in enumerate(layer_config.get("inbound_nodes", []))]

        def decode(value: Any) -> Any:
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                name, node_index, tensor_index = value["config"]["keras_history"]
                return tensors[(name, node_index)][tensor_index]
            if isinstance(value, list):
                return [decode(v) for v in value]
            if isinstance(value, dict):
                return {k: decode(v) for k, v in value.items()}
            return value
        while pending:
            remaining = []
            for name, index, node in pending:
                try:
                    args, kwargs = decode(node.get("args", [])), decode(node.get("kwargs", {}))
                except KeyError:
                    remaining.append((name, index, node))
                    continue
                tensors[(name, index)] = nest.flatten(created[name](*args, **kwargs))
            if len(remaining) == len(pending):
                raise ValueError(f"Could not rebuild the functional model '{config.get('name')}'"
                                 f": the inputs of layer(s) {[p[0] for p in remaining]} are "
                                 "not produced by any layer of the config.")
            pending = remaining

        def endpoint(struct: Any) -> Any:
            if isinstance(struct, list) and len(struct) == 3 and isinstance(struct[0], str):
                return tensors[(struct[0], struct[1])][struct[2]]
            if isinstance(struct, dict):
                return {k: endpoint(v) for k, v in struct.items()}
            return [endpoint(s) for s in struct]
        inputs, outputs = endpoint(config["input_layers"]), endpoint(config["output_layers"])
        model = cls(inputs, outputs, name=config.get("name"))
        model.trainable = config.get("trainable", True)
        return model


def _functional_arguments(args: tuple, kwargs: dict) -> bool:
    """Keras's test for a functional construction: inputs and outputs given."""
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or \
        ("inputs" in kwargs and "outputs" in kwargs)


_FUNCTIONAL_VARIANTS: dict = {}


def _functional_variant(cls: type) -> type:
    """`cls` with Functional behind it (its own methods first), made once per class."""
    if cls not in _FUNCTIONAL_VARIANTS:
        _FUNCTIONAL_VARIANTS[cls] = type(cls.__name__, (cls, Functional),
                                         {"__module__": cls.__module__,
                                          "__qualname__": cls.__qualname__})
    return _FUNCTIONAL_VARIANTS[cls]


def _unpack_singleton(outputs: Any) -> Any:
    """A one-element list or tuple of outputs as its element: Keras 3's Functional returns
    `outputs=[y]`'s tensor itself when run (a symbolic call keeps the list)."""
    if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
        return outputs[0]
    return outputs


def _sparse_input(ref: KerasTensor, x: SparseTensor) -> Any:
    """A SparseTensor model input as Keras 3 converts it: its values cast to the Input's
    dtype; densified (zeros) where the Input is not sparse."""
    from tapeflow.ops import sparse_ops
    if x.dtype.name != ref.dtype:
        x = x.with_values(math_ops.cast(x.values, ref.dtype))
    return x if ref.sparse else sparse_ops.to_dense(x)


def _input_tensor(ref: KerasTensor, x: Any) -> Any:
    """A model input as Keras 3 converts it: a tensor of its Input's dtype (arrays for
    integer and bool Inputs are converted first, then cast, so floats truncate)."""
    dtype = ref.dtype
    if not isinstance(x, TensorLike):
        if dtype == "bool" or "int" in dtype:
            x = convert_to_tensor(x)
        else:
            return convert_to_tensor(x, dtype=dtype)
    return x if x.dtype.name == dtype else math_ops.cast(x, dtype)


def _adjust_input_rank(references: list, inputs: list, struct: Any) -> list:
    """Each input converted to its Input's dtype; inputs one rank above their Input with a
    last axis of 1 lose it; one below an Input whose last axis is 1 gain it; other ranks are
    Keras 3's ValueError."""
    adjusted = []
    for i, (ref, x) in enumerate(zip(references, inputs)):
        if x is None or isinstance(x, KerasTensor):
            adjusted.append(x)
            continue
        if isinstance(x, SparseTensor):
            adjusted.append(_sparse_input(ref, x))
            continue
        x = _input_tensor(ref, x)
        shape, ref_shape = tuple(x.shape.as_list()), ref.shape
        if len(shape) == len(ref_shape):
            adjusted.append(x)
        elif len(shape) == len(ref_shape) + 1 and shape[-1] == 1:
            adjusted.append(array_ops.squeeze(x, axis=-1))
        elif len(shape) == len(ref_shape) - 1 and ref_shape and ref_shape[-1] == 1:
            adjusted.append(array_ops.expand_dims(x, -1))
        else:
            raise ValueError(f"Invalid input shape for input {np.asarray(x._value)} with name "
                             f"'{ref.name}' and path '{_input_path(struct, i)}'. Expected "
                             f"shape {ref_shape}, but input has incompatible shape {shape}")
    return adjusted


def _input_path(struct: Any, index: int) -> str:
    """The path of the index-th flat input in the model's input structure ('' for one)."""
    if isinstance(struct, dict):
        return str(sorted(struct)[index])
    return str(index) if isinstance(struct, (list, tuple)) else ""


def _nodes_between(inputs: list, outputs: list) -> list:
    """The nodes that the outputs depend on, in creation (topological) order."""
    found: dict = {}
    stack = [t for t in outputs]
    input_ids = {id(t) for t in inputs}
    while stack:
        t = stack.pop()
        if t._keras_history is None:
            raise ValueError(f"Output tensors of a Functional model must be the output of a "
                             f"Keras layer. Received: {t}")
        layer, node_index, _ = t._keras_history
        node = layer._inbound_nodes[node_index]
        if node.id in found:
            continue
        if id(t) in input_ids:
            if isinstance(layer, InputLayer):
                found[node.id] = node
            continue  # a model may start at a layer's output (Keras 3 can): not run here
        found[node.id] = node
        if isinstance(layer, InputLayer):
            raise ValueError(f"Graph disconnected: cannot find parent for tensor {t}. The "
                             f"following previous layers were accessed without issue: []")
        stack.extend(node.input_tensors)
    return [found[k] for k in sorted(found)]


def _keras_layer_order(inputs: list, outputs: list) -> list:
    """The graph's layers in Keras's order (`map_graph`): by decreasing depth (the longest
    path to an output), ties in the order a depth-first walk from the outputs first meets
    them. `layers`, `weights` (hence get_weights/set_weights) and summary() follow it."""
    input_ids = {id(t) for t in inputs}
    post_order: list = []  # nodes, inputs first (Keras's nodes_in_decreasing_depth)
    first_seen: dict = {}  # id(layer) -> DFS index
    done: set = set()

    def producer(t: KerasTensor) -> Any:
        layer, node_index, _ = t._keras_history
        return layer._inbound_nodes[node_index]

    def visit(t: KerasTensor) -> None:
        node = producer(t)
        if node.id in done:
            return
        done.add(node.id)
        if id(t) in input_ids and not isinstance(node.layer, InputLayer):
            return  # an intermediate tensor given as a model input: outside the graph
        first_seen.setdefault(id(node.layer), (len(first_seen), node.layer))
        if not isinstance(node.layer, InputLayer):
            for x in node.input_tensors:
                visit(x)
        post_order.append(node)

    for t in outputs:
        visit(t)
    in_graph = {node.id for node in post_order}
    node_depth: dict = {}
    layer_depth: dict = {}
    for node in reversed(post_order):
        depth = max(node_depth.setdefault(node.id, 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[node.id] = depth
        if isinstance(node.layer, InputLayer):
            continue
        for x in node.input_tensors:
            parent = producer(x)
            if parent.id in in_graph:
                node_depth[parent.id] = max(depth + 1, node_depth.get(parent.id, 0))
    for t in inputs:  # inputs no output depends on are still layers (depth 0)
        node = producer(t)
        if isinstance(node.layer, InputLayer) and id(node.layer) not in layer_depth:
            layer_depth[id(node.layer)] = 0
            first_seen[id(node.layer)] = (-1, node.layer)
    ranked = sorted(first_seen.values(),
                    key=lambda item: (-layer_depth[id(item[1])], item[0]))
    return [layer for _, layer in ranked]


class Sequential(Model):
    """A linear stack of layers.

    Args:
      layers: the layers, in order; the first may be an `Input` or have `input_shape`.
    """

    def __init__(self, layers: Optional[list] = None, trainable: bool = True,
                 name: Optional[str] = None) -> None:
        super().__init__(trainable=trainable, name=name or backend.unique_name("sequential"))
        self._input_batch_shape: Optional[tuple] = None
        self._input_dtype: Optional[str] = None
        self._input_name = "input_layer"
        self._has_input_layer = False
        self._input_tensor: Optional[KerasTensor] = None     # the given Input's, if any
        self._symbolic: Optional[tuple] = None   # (input, output) KerasTensors once built
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_from_input_shape()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Appends a layer (an `Input` sets the input shape instead)."""
        if isinstance(layer, KerasTensor):
            layer = layer._keras_history[0]
        if isinstance(layer, InputLayer):
            self._input_batch_shape, self._input_dtype = layer.batch_shape, layer.dtype
            self._input_name = layer.name
            self._has_input_layer = True
            self._input_tensor = layer.output_tensor
            return
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential "
                             f"model. Received: {layer} (of type {type(layer)})")
        if not self._layers and layer._batch_input_shape is not None:
            self._input_batch_shape = layer._batch_input_shape
        self._layers.append(layer)
        if rebuild:
            self.built = False
            self._maybe_build_from_input_shape()

    def pop(self, rebuild: bool = True) -> Layer:
        """Removes and returns the last layer; with a known input shape the model is built
        again (as Keras 3), so `output_shape` and `summary()` reflect the remaining layers."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        layer = self._layers.pop()
        self.built = False
        if rebuild:
            self._maybe_build_from_input_shape()
        return layer

    def _maybe_build_from_input_shape(self) -> None:
        if self._input_batch_shape is not None and self._layers:
            self.build(self._input_batch_shape)

    def build(self, input_shape: Any = None) -> None:
        """Builds every layer by passing a symbolic input of `input_shape` through them, which
        also records each layer's output shape for `summary()`."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if self.built:
            return
        # Keras builds an internal functional model here, first prepending an InputLayer of
        # this shape unless it was given one; that layer stays (its config is saved, and a
        # reloaded model is built from it), so record it as if it had been given.
        before = self._input_fields()
        if not self._has_input_layer:
            self._adopt_input_layer(tuple(input_shape))
        backend.unique_name("functional")
        try:
            first, x = self._trace_layers(tuple(input_shape))
        except BaseException:
            # Keras keeps the InputLayer of a failed build; restoring it lets the next call
            # build for its own shape.
            self._set_input_fields(before)
            raise
        self.built = True
        self._symbolic = (first, x)
        self._output_shape = nest.map_structure(lambda t: t.shape, x)

    def _trace_layers(self, input_shape: tuple) -> tuple:
        """(input, output) KerasTensors of passing a symbolic input through every layer."""
        given = self._input_tensor
        x: Any = given if given is not None and given.shape == input_shape else \
            KerasTensor(input_shape, self._input_dtype or self._dtype)
        first = x
        with backend.name_scope(self.name, caller=self):
            for layer in self._layers:
                x = layer(x)
        return first, x

    def _input_fields(self) -> tuple:
        return (self._input_batch_shape, self._input_dtype, self._input_name,
                self._has_input_layer)

    def _set_input_fields(self, fields: tuple) -> None:
        (self._input_batch_shape, self._input_dtype, self._input_name,
         self._has_input_layer) = fields

    def _adopt_input_layer(self, batch_shape: tuple) -> None:
        """Records the InputLayer Keras's `Sequential.build` prepends when the model has none:
        of the build shape and the first layer's compute dtype (a layer's `input_shape=` made
        one of the default dtype already), with an automatic name."""
        if self._input_batch_shape is None:
            self._input_batch_shape = batch_shape
            self._input_dtype = self._layers[0].compute_dtype if self._layers else None
        self._input_name = backend.unique_name("input_layer")
        self._has_input_layer = True

    def _built_symbolic(self, what: str) -> tuple:
        """(input, output) KerasTensors of the built model; Keras's AttributeError naming
        `what` before it is built."""
        if self._symbolic is None or not self.built:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._symbolic

    @property
    def inputs(self) -> list:
        """The input KerasTensors of the built model (Keras's inner functional model's)."""
        return [self._built_symbolic("inputs")[0]]

    @property
    def input_shape(self) -> tuple:
        """The built model's input shape (batch dim included)."""
        return self._built_symbolic("input shape")[0].shape

    @property
    def outputs(self) -> list:
        """The output KerasTensors of the built model."""
        return nest.flatten(self._built_symbolic("outputs")[1])

    def _maybe_build(self, shapes: Any) -> None:
        if not self.built:  # built for the first call's shape, batch size included (Keras)
            self.build(tuple(shapes))

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        if self._input_batch_shape is not None and not isinstance(x, (list, tuple, dict)):
            reference = KerasTensor(self._input_batch_shape, self._input_dtype or self._dtype,
                                    name="input_layer")  # Keras's
            x = _adjust_input_rank([reference], [x], reference)[0]  # inner functional model
        for layer in self._layers:
            if layer._call_has_training:
                x = layer(x, training=training)
            else:
                x = layer(x)
        return x

    @property
    def layers(self) -> list:
        """The stacked layers, in order (the InputLayer excluded)."""
        return list(self._layers)

    def get_config(self) -> dict:
        """Keras 3's Sequential config: the InputLayer (when the input shape is known) and
        each layer's config, and the shape the model was built for."""
        from tapeflow.keras.saving import serialize_keras_object
        layers = []
        if self._input_batch_shape is not None:
            layers.append({"module": "keras.layers", "class_name": "InputLayer", "config": {
                "batch_shape": list(self._input_batch_shape),
                "dtype": self._input_dtype or self._dtype, "sparse": False, "ragged": False,
                "name": self._input_name, "optional": False}, "registered_name": None})
        layers += [serialize_keras_object(layer) for layer in self._layers]
        config = {**super().get_config(), "layers": layers}
        if self.built and self._input_batch_shape is not None:
            config["build_input_shape"] = list(self._input_batch_shape)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Sequential":
        """The Sequential model `get_config` described (Keras's files included)."""
        from tapeflow.keras.saving import deserialize_keras_object
        layers = [deserialize_keras_object(c, custom_objects) for c in config.get("layers", [])]
        model = cls(layers, trainable=config.get("trainable", True), name=config.get("name"))
        shape = config.get("build_input_shape")
        if not model.built and shape is not None and model._layers:
            model._input_batch_shape = tuple(shape)
            model._maybe_build_from_input_shape()
        return model

    def get_build_config(self) -> Optional[dict]:
        if self._input_batch_shape is None:
            return None
        return {"input_shape": list(self._input_batch_shape)}

    def build_from_config(self, config: Optional[dict]) -> None:
        shape = (config or {}).get("input_shape")
        if not self.built and shape is not None and self._layers:
            self.build(tuple(shape))


# -- summary ----------------------------------------------------------------------------------

def _ratio_reduce(total: int, widths: list) -> list:
    """Rich's `ratio_reduce` with equal ratios: how a too-wide table shrinks its columns."""
    ratios, out, remaining = len(widths), [], total
    for w in widths:
        distributed = min(w, round(remaining / ratios))
        out.append(w - distributed)
        remaining -= distributed
        ratios -= 1
    return out


def _wrap(text: str, width: int) -> list:
    """Word-wrap to `width`; a word longer than the width is cut with '…' (rich's cells)."""
    lines: list = []
    current = ""
    for word in text.split(" "):
        candidate = word if not current else current + " " + word
        if len(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
    if current or not lines:
        lines.append(current)
    return [line if len(line) <= width else line[:width - 1] + "…" for line in lines]


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text(s) for s in shape) + "]"
    return "(" + ", ".join(str(d) for d in shape) + ")"


# tapeflow layers whose Keras class has no `compute_output_shape` (Keras's summary shows '?'
# for them once built by an eager call).
_KERAS_WITHOUT_OUTPUT_SHAPE = {"SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells",
                               "InputLayer", "Wrapper"}


def _has_output_shape(layer: Layer) -> bool:
    """Whether Keras's class of `layer` implements `compute_output_shape`: a user's layer or
    subclassed model must define it; tapeflow's own classes stand for Keras's."""
    cls = type(layer)
    if isinstance(layer, Model) and not isinstance(layer, (Functional, Sequential)):
        return cls.compute_output_shape is not Model.compute_output_shape
    if not cls.__module__.startswith("tapeflow."):
        return cls.compute_output_shape is not Layer.compute_output_shape
    return cls.__name__ not in _KERAS_WITHOUT_OUTPUT_SHAPE


def _layer_shape_text(layer: Layer) -> str:
    """A layer's 'Output Shape' cell, as Keras 3's `format_layer_shape`: the outputs of its
    last symbolic call; else, for a layer built by an eager call, `compute_output_shape` of
    the shape it was built for (batch size included); '?' when neither (a layer built at
    construction, or one without `compute_output_shape`)."""
    if layer._inbound_nodes:
        return _shape_text(layer._output_shape)
    shapes_dict = getattr(layer, "_build_shapes_dict", None)  # multi-input layers (attention)
    if shapes_dict:
        try:
            return _shape_text(_plain_tuples(layer.compute_output_shape(**shapes_dict)))
        except NotImplementedError:
            return "?"
    build_shapes = getattr(layer, "_build_shapes", None)
    if build_shapes is None or not _has_output_shape(layer):
        return "?"
    several = bool(build_shapes) and isinstance(build_shapes[0], list)
    shapes = [tuple(s) for s in build_shapes] if several else [tuple(build_shapes)]
    try:
        if type(layer).compute_output_shape is Layer.compute_output_shape:
            # the default runs `call` on symbolic inputs of those shapes
            dummies = tuple(KerasTensor(s, layer.compute_dtype) for s in shapes)
            shape = nest.map_structure(lambda t: t.shape, _infer_outputs(layer, dummies, {}))
        else:
            shape = layer.compute_output_shape(*shapes)
    except NotImplementedError:
        return "?"
    return _shape_text(_plain_tuples(shape))


def _plain_tuples(shape: Any) -> Any:
    """Shapes (TensorShapes, lists) as tuples; a structure of them as a list."""
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list())
    if isinstance(shape, (list, tuple)) and shape and not all(
            d is None or isinstance(d, int) for d in shape):
        return [_plain_tuples(s) for s in shape]
    return tuple(shape)


def _sequential_like(model: Model) -> bool:
    if not isinstance(model, Functional):
        return True
    per_layer: dict = {}
    for node in model._nodes:
        if len(node.input_tensors) > 1:
            return False
        per_layer[id(node.layer)] = per_layer.get(id(node.layer), 0) + 1
    # one node per depth: every tensor feeds at most one node
    consumers: dict = {}
    for node in model._nodes:
        for t in node.input_tensors:
            consumers[id(t)] = consumers.get(id(t), 0) + 1
    return all(c <= 1 for c in consumers.values()) and \
        all(c <= 1 for c in per_layer.values()) and len(model.inputs) == 1


def _connections(model: Model, layer: Layer) -> str:
    nodes = {node.id for node in model._nodes}
    parts = []
    for node in layer._inbound_nodes:
        if node.id not in nodes:
            continue
        for t in node.input_tensors:
            source, node_index, tensor_index = t._keras_history
            parts.append(f"{source.name}[{node_index}][{tensor_index}]")
    return ", ".join(parts) or "-"


def _memory(count_and_bytes: float) -> str:
    size = count_and_bytes
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _weights_bytes(weights: list) -> float:
    unique = {id(w): w for w in weights}.values()
    return float(sum(math.prod(w.shape.as_list()) * w._value.dtype.itemsize for w in unique))


def summary_text(model: Model, line_length: Optional[int] = None,
                 positions: Any = None) -> str:
    """Keras 3's `model.summary()` text: the rich table as rendered without colours."""
    sequential_like = _sequential_like(model)
    if sequential_like:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        align = ["left", "left", "right"]
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["left", "left", "right", "left"]
    columns = shutil.get_terminal_size().columns  # rich's console width
    line_length = line_length or min(default, columns - 4)
    widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) if pos <= 1 else int(pos)
        if width - current < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width - current)
        current = width
    # rich: each column is its width plus one space of padding either side; the table
    # (with its len+1 borders) is squeezed to line_length.
    cells = [w + 2 for w in widths]
    excess = sum(cells) + len(cells) + 1 - line_length
    if excess > 0:
        cells = _ratio_reduce(excess, cells)
    inner = [c - 2 for c in cells]

    layers = getattr(model, "_summary_layers", None) or model.layers
    rows = []
    for layer in layers:
        if isinstance(model, Sequential) and isinstance(layer, InputLayer):
            continue
        shape = _layer_shape_text(layer)
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        kind = getattr(layer, "_class_name", None) or type(layer).__name__  # ops: 'Add'
        row = [f"{layer.name} ({kind})", shape, params]
        if not sequential_like:
            row.append(_connections(model, layer))
        rows.append(row)

    def line(left: str, mid: str, right: str, fill: str) -> str:
        return left + mid.join(fill * c for c in cells) + right

    def render(row: list, bar: str) -> list:
        wrapped = [_wrap(text, inner[i]) for i, text in enumerate(row)]
        height = max(len(w) for w in wrapped)
        out = []
        for k in range(height):
            parts = []
            for i, w in enumerate(wrapped):
                text = w[k] if k < len(w) else ""
                parts.append(" " + (text.rjust(inner[i]) if align[i] == "right"
                                    else text.ljust(inner[i])) + " ")
            out.append(bar + bar.join(parts) + bar)
        return out

    out = [f'Model: "{model.name}"', line("┏", "┳", "┓", "━")]
    out += render(header, "┃")
    out.append(line("┡", "╇", "┩", "━"))
    for i, row in enumerate(rows):
        if i:
            out.append(line("├", "┼", "┤", "─"))
        out += render(row, "│")
    out.append(line("└", "┴", "┘", "─"))
    out = [text[:columns] for text in out]  # rich crops a table wider than its console
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    t_count = sum(math.prod(w.shape.as_list()) for w in trainable)
    n_count = sum(math.prod(w.shape.as_list()) for w in non_trainable)
    t_bytes, n_bytes = _weights_bytes(trainable), _weights_bytes(non_trainable)
    optimizer = getattr(model, "optimizer", None)
    o_vars = list(optimizer.variables) if getattr(model, "compiled", False) and \
        optimizer is not None and getattr(optimizer, "built", False) else None
    o_count = sum(math.prod(tuple(v.shape)) for v in o_vars) if o_vars else 0
    o_bytes = _weights_bytes(o_vars) if o_vars else 0.0
    out.append(f" Total params: {t_count + n_count + o_count:,} "
               f"({_memory(t_bytes + n_bytes + o_bytes)})")
    out.append(f" Trainable params: {t_count:,} ({_memory(t_bytes)})")
    out.append(f" Non-trainable params: {n_count:,} ({_memory(n_bytes)})")
    if o_vars is not None:
        out.append(f" Optimizer params: {o_count:,} ({_memory(o_bytes)})")
    return "\n".join(out)



# -- keras.models functions -------------------------------------------------------------------

def load_model(filepath: Any, custom_objects: Optional[dict] = None, compile: bool = True,
               safe_mode: bool = True) -> Model:
    """The model in a Keras 3 `.keras` file (tapeflow's or Keras's)."""
    from tapeflow.keras.saving import archive
    return archive.load_model(filepath, custom_objects=custom_objects, compile=compile,
                              safe_mode=safe_mode)


def save_model(model: Model, filepath: Any, overwrite: bool = True,
               zipped: Optional[bool] = None, **kwargs: Any) -> None:
    """`model.save(filepath)`: a `.keras` file, Keras's unzipped directory (`zipped=False`)
    or a legacy '.h5' file."""
    model.save(filepath, overwrite=overwrite, zipped=zipped, **kwargs)


def model_from_json(json_string: str, custom_objects: Optional[dict] = None) -> Model:
    """The (unbuilt-weights, uncompiled) model a `model.to_json()` string describes."""
    from tapeflow.keras.saving import deserialize_keras_object
    return deserialize_keras_object(json.loads(json_string), custom_objects=custom_objects)


def _default_clone(layer: Layer) -> Layer:
    return layer.__class__.from_config(layer.get_config())


def clone_model(model: Model, input_tensors: Any = None, clone_function: Optional[Callable] = None,
                call_function: Optional[Callable] = None, recursive: bool = False,
                **kwargs: Any) -> Model:
    """A new model of the same architecture with new weights, as `keras.models.clone_model`:
    each layer is `clone_function(layer)` (by default rebuilt from its config)."""
    if input_tensors is not None or call_function is not None:
        raise NotImplementedError("clone_model: tapeflow supports neither `input_tensors` nor "
                                  "`call_function` yet.")
    clone = clone_function or _default_clone
    if isinstance(model, Sequential):
        layers = [clone(layer) for layer in model.layers]
        if model._input_batch_shape is not None:
            from tapeflow.keras.layers.input_layer import Input
            layers.insert(0, Input(batch_shape=model._input_batch_shape,
                                   dtype=model._input_dtype or model._dtype,
                                   name=model._input_name))
        return Sequential(layers, trainable=model.trainable, name=model.name)
    if isinstance(model, Functional):
        by_name = {layer.name: layer for layer in model.layers}

        def make(layer_config: dict) -> Layer:
            layer = by_name[layer_config["name"]]
            if isinstance(layer, InputLayer):
                return InputLayer(batch_shape=layer.batch_shape, dtype=layer.dtype,
                                  name=layer.name)
            return clone(layer)
        return Functional._from_graph_config(model.get_config(), make_layer=make)
    if clone_function is not None:
        raise ValueError("clone_function cannot be used with a subclassed model; it is "
                         "rebuilt from its config.")
    return model.__class__.from_config(model.get_config())


__all__ = ["Model", "Functional", "Sequential", "summary_text", "load_model", "save_model",
           "model_from_json", "clone_model"]
