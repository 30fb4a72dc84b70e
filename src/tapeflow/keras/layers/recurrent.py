"""Keras 3's recurrent layers: RNN (any cell), SimpleRNN, LSTM, GRU, Bidirectional,
TimeDistributed, and Masking.

The time loop: eagerly, and when tracing with a known number of steps, a Python loop over
the steps (unrolled into the trace); when tracing with an unknown number of steps, one
`tf.scan`. For the built-in cells the input projection of all steps is one matmul before the
loop, so each step costs `h @ recurrent_kernel` and the gate math. Masked steps keep the
previous output and states, as Keras's `backend.rnn`.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from tapeflow.framework import nest
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable as _StateVariable
from tapeflow.keras import backend, regularizers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer, set_keras_mask
from tapeflow.keras.layers.rnn_cells import (GRUCell, LSTMCell, SimpleRNNCell,
                                             StackedRNNCells, _output_dim)
from tapeflow.ops import array_ops, functional_ops, manip_ops, math_ops, reduce_ops

__all__ = ["RNN", "SimpleRNN", "LSTM", "GRU", "Bidirectional", "TimeDistributed", "Masking",
           "SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"]


def _is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple))


class RNN(Layer):
    """Runs `cell` over the time axis of `(batch, time, features)` inputs (Keras 3's RNN).

    A cell is any object with `state_size` and `call(inputs, states)` returning
    `(output, new_states)`; a list of cells is stacked (`StackedRNNCells`).
    """

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if "call" not in dir(cell):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: "
                             f"cell={cell}")
        if "state_size" not in dir(cell):
            raise ValueError("The RNN cell should have a `state_size` attribute (single "
                             "integer or list of integers, one integer per RNN state). "
                             f"Received: cell={cell}")
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.supports_masking = True
        self.states: Any = None
        state_size = getattr(cell, "state_size", None)
        if state_size is None:
            raise ValueError("state_size must be specified as property on the RNN cell.")
        if not isinstance(state_size, (list, tuple, int)):
            raise ValueError("state_size must be an integer, or a list/tuple of integers "
                             "(one for each state tensor).")
        self.single_state = isinstance(state_size, int)
        self.state_size = [state_size] if self.single_state else list(state_size)

    # -- shapes and states -------------------------------------------------------------------
    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        batch, length = sequences_shape[0], sequences_shape[1]
        states = [[(batch, s) for s in size] if _is_nested(size) else (batch, size)
                  for size in self.state_size]
        size = _output_dim(self.cell)
        output = (batch, length, size) if self.return_sequences else (batch, size)
        return (output, *states) if self.return_state else output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        step_shape = (sequences_shape[0],) + tuple(sequences_shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            with backend.name_scope(self.name, caller=self):
                self.cell.build(step_shape)
            self.cell.built = True
            self.cell._build_shapes = list(step_shape)  # Keras saves it with the cell
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError(f"When using `stateful=True` in a RNN, the batch size "
                                     f"must be static. Found dynamic batch size: "
                                     f"sequence.shape={tuple(sequences_shape)}")
                self._create_state_variables(sequences_shape[0])
        self.built = True

    def _create_state_variables(self, batch_size: int) -> None:
        # Plain variables: Keras keeps the states out of the layer's weights.
        states = nest.map_structure(
            lambda v: _StateVariable(v, trainable=False, name="rnn_state"),
            self.get_initial_state(batch_size))
        object.__setattr__(self, "states", states)

    def get_initial_state(self, batch_size: Any) -> list:
        """The zero states for a batch (the cell's `get_initial_state` when it has one)."""
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is None:
            return [array_ops.zeros(array_ops.stack([batch_size, d]), self.cell.compute_dtype)
                    for d in self.state_size]
        state = fn(batch_size=batch_size)
        return list(state) if _is_nested(state) else [state]

    def reset_states(self) -> None:
        """Alias of `reset_state`."""
        self.reset_state()

    def reset_state(self) -> None:
        """Zeroes the states of a stateful RNN."""
        if self.states is not None:
            for v in nest.flatten(self.states):
                v.assign(math_ops.zeros_like(v))

    # -- the call ----------------------------------------------------------------------------
    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Any = False) -> Any:
        sequences = convert_to_tensor(sequences)
        if self.unroll and sequences.shape[1] is None:
            raise ValueError("Cannot unroll a RNN if the time dimension is undefined. \n- If "
                             "using a Sequential model, specify the time dimension by passing "
                             "an `Input()` as your first layer.\n- If using the functional "
                             "API, specify the time dimension by passing a `shape` or "
                             "`batch_shape` argument to your `Input()`.")
        if initial_state is None:
            initial_state = self.states if self.stateful else \
                self.get_initial_state(array_ops.shape(sequences)[0])
        elif self.stateful:
            self._check_stateful_batch(sequences)
        initial_state = list(initial_state) if _is_nested(initial_state) else [initial_state]
        dtype = getattr(self.cell, "compute_dtype", self.compute_dtype)
        initial_state = nest.map_structure(lambda s: math_ops.cast(convert_to_tensor(s), dtype),
                                           initial_state)
        self._config_dropout_masks(self.cell, sequences[:, 0], initial_state)
        if _is_nested(mask):
            mask = mask[0]
        try:
            last, outputs, states = self._loop(sequences, initial_state, mask, training)
        finally:
            self._reset_dropout_masks(self.cell)
        if self.stateful:
            for variable, state in zip(nest.flatten(self.states), nest.flatten(states)):
                variable.assign(state)
        output = outputs if self.return_sequences else last
        return (output, *states) if self.return_state else output

    def _check_stateful_batch(self, sequences: Any) -> None:
        expected = nest.flatten(self.states)[0].shape[0] if self.states else None
        actual = sequences.shape[0]
        if expected is not None and actual is not None and actual != expected:
            raise ValueError(f"If an RNN is stateful, the batch size of the input sequences "
                             f"must be the same as the batch size of the initial state. \n- "
                             f"Expected batch size: {expected}\n- Received batch size: "
                             f"{actual}")

    def _config_dropout_masks(self, cell: Any, step_input: Any, state: Any) -> None:
        """Draws each cell's dropout masks for this call, in Keras's order (so seeded runs
        draw Keras's numbers)."""
        if hasattr(cell, "get_dropout_mask") and hasattr(cell, "recurrent_dropout"):
            cell.get_dropout_mask(step_input)
            cell.get_recurrent_dropout_mask(state[0] if _is_nested(state) else state)
        if isinstance(cell, StackedRNNCells):
            for inner, inner_state in zip(cell.cells, state):
                self._config_dropout_masks(inner, step_input, inner_state)
                step_input = array_ops.zeros(array_ops.stack(
                    [array_ops.shape(step_input)[0], _output_dim(inner)]), step_input.dtype)

    def _reset_dropout_masks(self, cell: Any) -> None:
        if hasattr(cell, "reset_dropout_mask"):
            cell.reset_dropout_mask()
            cell.reset_recurrent_dropout_mask()
        if isinstance(cell, StackedRNNCells):
            for inner in cell.cells:
                self._reset_dropout_masks(inner)

    def _step_function(self, sequences: Any, training: Any) -> tuple:
        """(inputs of every step, step(x_t, states) -> (output, flat new states)): the
        built-in cells' projected fast path, or the cell's own call."""
        cell = self.cell
        structure = self._state_structure
        if getattr(cell, "_fast_ok", None) is not None and cell._fast_ok(training):
            def step(x: Any, states: list) -> tuple:
                return cell._step(x, states, training)
            return cell._project(sequences, training), step
        kwargs = {"training": training} if isinstance(cell, Layer) and \
            cell._call_has_training else {}

        def cell_step(x: Any, states: list) -> tuple:
            output, new = cell(x, nest.pack_sequence_as(structure, states), **kwargs)
            return output, nest.flatten(new if _is_nested(new) else [new])
        return sequences, cell_step

    def _loop(self, sequences: Any, initial_state: list, mask: Any, training: Any) -> tuple:
        self._state_structure = initial_state
        cell = self.cell
        if mask is None and getattr(cell, "_fused_ok", None) is not None and \
                cell._fused_ok(training, sequences.shape[1]):
            z = cell._project(sequences, training)
            if self.go_backwards:
                z = manip_ops.reverse(z, [1])
            last, outputs, states = cell._sequence(z, nest.flatten(initial_state))
            return last, outputs, nest.pack_sequence_as(initial_state, states)
        inputs, step = self._step_function(sequences, training)
        states = nest.flatten(initial_state)
        if mask is not None:
            mask = array_ops.expand_dims(math_ops.cast(mask, "bool"), -1)
        if sequences.shape[1] is None:
            last, outputs, states = self._scanned(inputs, states, mask, step)
        else:
            last, outputs, states = self._unrolled(inputs, states, mask, step)
        return last, outputs, nest.pack_sequence_as(initial_state, states)

    def _unrolled(self, inputs: Any, states: list, mask: Any, step: Any) -> tuple:
        xs = array_ops.unstack(inputs, axis=1)
        masks = array_ops.unstack(mask, axis=1) if mask is not None else None
        if self.go_backwards:
            xs.reverse()
            masks = masks[::-1] if masks is not None else None
        outputs, prev = [], None
        for t, x in enumerate(xs):
            output, new = step(x, states)
            if masks is not None:
                m = masks[t]
                prev = math_ops.zeros_like(output) if prev is None else prev
                output = math_ops.where(m, output, prev)
                new = [math_ops.where(m, n, s) for n, s in zip(new, states)]
                prev = output
                if self.zero_output_for_mask:
                    output = math_ops.where(m, output, math_ops.zeros_like(output))
            states = new
            if self.return_sequences or t == len(xs) - 1:
                outputs.append(output)
        last = outputs[-1]
        stacked = array_ops.stack(outputs, axis=1) if self.return_sequences else None
        return last, stacked, states

    def _scanned(self, inputs: Any, states: list, mask: Any, step: Any) -> tuple:
        """The loop as one `tf.scan` over time-major steps (a trace with unknown length)."""
        elems = [array_ops.transpose(inputs, [1, 0, 2])]
        if mask is not None:
            elems.append(array_ops.transpose(mask, [1, 0, 2]))
        if self.go_backwards:
            elems = [manip_ops.reverse(e, [0]) for e in elems]
        size = _output_dim(self.cell)
        batch = array_ops.shape(inputs)[0]
        prev0 = array_ops.zeros(array_ops.stack([batch, size]), inputs.dtype)

        def body(carry: tuple, elem: Any) -> tuple:
            prev, old = carry[0], list(carry[1:])
            output, new = step(elem[0], old)
            if mask is not None:
                output = math_ops.where(elem[1], output, prev)
                new = [math_ops.where(elem[1], n, s) for n, s in zip(new, old)]
            return (output, *new)

        carried = functional_ops.scan(body, tuple(elems), initializer=(prev0, *states))
        outputs = carried[0]
        if mask is not None and self.zero_output_for_mask:
            outputs = math_ops.where(elems[1], outputs, math_ops.zeros_like(outputs))
        last = outputs[-1]
        return last, array_ops.transpose(outputs, [1, 0, 2]), [s[-1] for s in carried[1:]]

    def get_config(self) -> dict:
        from tapeflow.keras.saving import serialize_keras_object
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "cell": serialize_keras_object(self.cell)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "RNN":
        from tapeflow.keras.saving import deserialize_keras_object
        config = dict(config)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects)
        return cls(cell, **config)


# The cell arguments each layer forwards to its cell, and exposes as read-only properties.
_CELL_ARGS = ("activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout", "reset_after")
_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


class _CellLayer(RNN):
    """SimpleRNN/LSTM/GRU: an RNN over its own cell, made from the layer's arguments."""

    _cell_class: Any = None
    _cell_name = ""

    def __init__(self, units: int, cell_kwargs: dict, activity_regularizer: Any = None,
                 seed: Optional[int] = None, use_cudnn: Any = "auto", **kwargs: Any) -> None:
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        cell = self._cell_class(units, dtype=kwargs.get("dtype"),
                                trainable=kwargs.get("trainable", True), name=self._cell_name,
                                seed=seed, implementation=kwargs.pop("implementation", 2),
                                **cell_kwargs)
        super().__init__(cell, activity_regularizer=activity_regularizer, **rnn_kwargs,
                         **kwargs)
        self.input_spec = InputSpec(ndim=3)
        if use_cudnn not in ("auto", True, False):
            raise ValueError(f"Invalid valid received for argument `use_cudnn`. Expected one "
                             f"of {{'auto', True, False}}. Received: use_cudnn={use_cudnn}")
        self.use_cudnn = use_cudnn

    @property
    def units(self) -> int:
        """The cell's number of units (the output size)."""
        return self.cell.units

    def __getattr__(self, name: str) -> Any:
        if name in _CELL_ARGS and "cell" in self.__dict__ and hasattr(self.cell, name):
            return getattr(self.cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def get_config(self) -> dict:
        base = super().get_config()
        del base["cell"]
        cell = self.cell.get_config()
        for key in ("name", "trainable", "dtype", "seed"):
            cell.pop(key, None)
        # Keras's order: cell arguments, with activity_regularizer after bias_regularizer.
        config = {}
        for key, value in cell.items():
            config[key] = value
            if key == "bias_regularizer":
                config["activity_regularizer"] = regularizers.serialize(
                    self.activity_regularizer)
        config["seed"] = self.cell.seed
        return {**base, **config}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "RNN":
        return cls(**config)


def _cell_kwargs(names: tuple, values: dict) -> dict:
    return {k: values[k] for k in names}


_COMMON = ("kernel_initializer", "recurrent_initializer", "bias_initializer",
           "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
           "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
           "recurrent_dropout")


class SimpleRNN(_CellLayer):
    """A fully connected RNN: `h_t = activation(x_t W + h_{t-1} U + b)` (Keras 3)."""

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, unroll: bool = False, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        args = dict(locals())
        super().__init__(units, _cell_kwargs(("activation", "use_bias") + _COMMON, args),
                         activity_regularizer=activity_regularizer, seed=seed,
                         **_cell_kwargs(_RNN_ARGS, args), **kwargs)
        del self.use_cudnn

    def get_config(self) -> dict:
        config = super().get_config()
        del config["seed"]  # Keras's SimpleRNN config has no seed (its cell's has)
        return config


class LSTM(_CellLayer):
    """Long short-term memory (Keras 3's LSTM; its cuDNN path is GPU-only, so this is the
    generic one TensorFlow runs on CPU)."""

    _cell_class, _cell_name = LSTMCell, "lstm_cell"

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Optional[int] = None, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, unroll: bool = False, use_cudnn: Any = "auto",
                 **kwargs: Any) -> None:
        args = dict(locals())
        names = ("activation", "recurrent_activation", "use_bias", "unit_forget_bias")
        super().__init__(units, _cell_kwargs(names + _COMMON, args),
                         activity_regularizer=activity_regularizer, seed=seed,
                         use_cudnn=use_cudnn, **_cell_kwargs(_RNN_ARGS, args), **kwargs)


class GRU(_CellLayer):
    """Gated recurrent unit (Keras 3's GRU, `reset_after=True` by default)."""

    _cell_class, _cell_name = GRUCell, "gru_cell"

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, seed: Optional[int] = None,
                 return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 reset_after: bool = True, use_cudnn: Any = "auto", **kwargs: Any) -> None:
        args = dict(locals())
        names = ("activation", "recurrent_activation", "use_bias", "reset_after")
        super().__init__(units, _cell_kwargs(names + _COMMON, args),
                         activity_regularizer=activity_regularizer, seed=seed,
                         use_cudnn=use_cudnn, **_cell_kwargs(_RNN_ARGS, args), **kwargs)


def _serialized_copy(layer: Layer, **changes: Any) -> Layer:
    """A new layer from `layer`'s config with `changes` (Keras's way to clone the wrapped
    RNN: it carries no weights or state over)."""
    from tapeflow.keras.saving import deserialize_keras_object, serialize_keras_object
    config = copy.deepcopy(serialize_keras_object(layer))
    config["config"].update(changes)
    return deserialize_keras_object(config)


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix):] if name.startswith(prefix) else name


_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


class Bidirectional(Layer):
    """Runs an RNN forwards and a copy of it backwards, merging their outputs
    (`merge_mode` concat, sum, mul, ave, or None for both)."""

    def __init__(self, layer: Layer, merge_mode: Optional[str] = "concat", weights: Any = None,
                 backward_layer: Optional[Layer] = None, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `Bidirectional` layer with a "
                             f"`keras.layers.Layer` instance. Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. "
                             f"Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should "
                             f'be one of {{"sum", "mul", "ave", "concat", None}}')
        super().__init__(**kwargs)
        self.forward_layer = _serialized_copy(
            layer, name=f"forward_{_strip(layer.name, 'forward_')}")
        self.backward_layer = backward_layer if backward_layer is not None else \
            _serialized_copy(layer, go_backwards=True,
                             name=f"backward_{_strip(layer.name, 'backward_')}")
        if hasattr(layer, "use_cudnn"):
            self.forward_layer.use_cudnn = self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        if weights:
            half = len(weights) // 2
            self.forward_layer.initial_weights = weights[:half]
            self.backward_layer.initial_weights = weights[half:]
        self.stateful, self.return_sequences = layer.stateful, layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify_layer_config(self) -> None:
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(f"Forward layer and backward layer should have different "
                             f"`go_backwards` value. Received: forward_layer.go_backwards "
                             f"{forward.go_backwards}, backward_layer.go_backwards="
                             f"{backward.go_backwards}")
        for attr in ("stateful", "return_sequences", "return_state"):
            f, b = getattr(forward, attr), getattr(backward, attr)
            if f != b:
                raise ValueError(f"Forward layer and backward layer are expected to have the "
                                 f'same value for attribute "{attr}", got "{f}" for forward '
                                 f'layer and "{b}" for backward layer')

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                with backend.name_scope(self.name, caller=self):
                    sub._maybe_build(sequences_shape)
        self.built = True

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        shape = self.forward_layer.compute_output_shape(sequences_shape)
        states: tuple = ()
        if self.return_state:
            shape, states = shape[0], tuple(shape[1:])
        if self.merge_mode == "concat":
            shape = tuple(shape[:-1]) + (shape[-1] * 2,)
        elif self.merge_mode is None:
            shape = [shape, shape]
        if self.return_state:
            if self.merge_mode is None:
                return tuple(shape) + states + states
            return (shape,) + states + states
        return tuple(shape)

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Any = None) -> Any:
        kwargs: dict = {}
        if self.forward_layer._call_has_training:
            kwargs["training"] = training
        if self.forward_layer._call_has_mask:
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states: tuple = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = manip_ops.reverse(y_rev, [1])
        output = _merge(self.merge_mode, y, y_rev)
        if self.return_state:
            return (output + states) if self.merge_mode is None else (output,) + states
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = (mask, mask) if not self.merge_mode else mask
        else:
            output_mask = (None, None) if not self.merge_mode else None
        return output_mask

    def reset_states(self) -> None:
        """Alias of `reset_state`."""
        self.reset_state()

    def reset_state(self) -> None:
        """Zeroes both directions' states (AttributeError unless stateful)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    @property
    def states(self) -> Any:
        """The forward then the backward layer's state variables (None unless stateful)."""
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states + self.backward_layer.states)
        return None

    def get_config(self) -> dict:
        from tapeflow.keras.saving import serialize_keras_object
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": serialize_keras_object(self.forward_layer),
                "backward_layer": serialize_keras_object(self.backward_layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "Bidirectional":
        from tapeflow.keras.saving import deserialize_keras_object
        config = copy.deepcopy(config)
        config["layer"] = deserialize_keras_object(config["layer"], custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = deserialize_keras_object(backward, custom_objects)
        return cls(**config)


def _merge(mode: Optional[str], y: Any, y_rev: Any) -> Any:
    if mode == "concat":
        return array_ops.concat([y, y_rev], -1)
    if mode == "sum":
        return y + y_rev
    if mode == "ave":
        return (y + y_rev) / 2
    if mode == "mul":
        return y * y_rev
    return (y, y_rev)


class TimeDistributed(Layer):
    """Applies `layer` to every time step (axis 1) of its input, as Keras 3: the step
    results are stacked back along axis 1."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a "
                             f"`keras.layers.Layer` instance. Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    @staticmethod
    def _child_shape(input_shape: Any) -> tuple:
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` "
                             f"with at least 3 dimensions, received: {input_shape}")
        return (input_shape[0], *input_shape[2:])

    def compute_output_shape(self, input_shape: Any) -> Any:
        child = self.layer.compute_output_shape(self._child_shape(input_shape))
        return (child[0], input_shape[1], *child[1:])

    def build(self, input_shape: Any) -> None:
        child = self._child_shape(tuple(input_shape))
        if not self.layer.built:
            with backend.name_scope(self.name, caller=self):
                self.layer._maybe_build(child)
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = convert_to_tensor(inputs)
        if mask is not None:
            mask = convert_to_tensor(mask)
            self._check_mask(x, mask)
        kwargs: dict = {}
        if self.layer._call_has_training:
            kwargs["training"] = training
        steps = array_ops.unstack(x, axis=1)
        masks = array_ops.unstack(mask, axis=1) if mask is not None and \
            self.layer._call_has_mask else None
        outputs = []
        for t, step in enumerate(steps):
            step_kwargs = dict(kwargs, mask=masks[t]) if masks is not None else kwargs
            outputs.append(self.layer.call(step, **step_kwargs))
        return array_ops.stack(outputs, axis=1)

    @staticmethod
    def _check_mask(x: Any, mask: Any) -> None:
        if mask.shape.rank < 2:
            raise ValueError(f"The `mask` passed to the `TimeDistributed` layer must be at "
                             f"least 2D (e.g., `(batch_size, timesteps)`), but it has "
                             f"{mask.shape.rank} dimension(s) with shape "
                             f"{tuple(mask.shape.as_list())}.")
        xs, ms = x.shape.as_list(), mask.shape.as_list()
        if any(a is not None and b is not None and a != b for a, b in zip(xs[:2], ms[:2])):
            raise ValueError(f"The `mask` passed to the `TimeDistributed` layer has a shape "
                             f"{tuple(ms)} that is incompatible with the input shape "
                             f"{tuple(xs)}. The first two dimensions of the mask (batch size "
                             f"and timesteps) must match the input's first two dimensions. "
                             f"Expected mask shape prefix: ({xs[0]}, {xs[1]}).")

    def get_config(self) -> dict:
        from tapeflow.keras.saving import serialize_keras_object
        return {**super().get_config(), "layer": serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "TimeDistributed":
        from tapeflow.keras.saving import deserialize_keras_object
        config = dict(config)
        layer = deserialize_keras_object(config.pop("layer"), custom_objects)
        return cls(layer, **config)


class Masking(Layer):
    """Masks the time steps whose features all equal `mask_value`: they become zeros, and
    the mask (True where a step is kept) goes to the layers that follow."""

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduce_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        keep = reduce_ops.reduce_any(math_ops.not_equal(x, self.mask_value), axis=-1,
                                   keepdims=True)
        outputs = math_ops.where(keep, x, math_ops.cast(0, x.dtype))
        set_keras_mask(outputs, array_ops.squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}

