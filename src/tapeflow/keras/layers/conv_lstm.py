"""Keras 3's convolutional LSTM: ConvLSTM1D/2D/3D run a ConvLSTMCell (the LSTM's gates
computed by convolutions of the step input and of the previous output) over the time axis of
`(batch, time, *spatial, channels)` inputs (channels first: `(batch, time, channels,
*spatial)`), on tapeflow's RNN loop."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework import nest
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, backend, constraints, initializers, regularizers
from tapeflow.keras.layers.convolutional import _to_format, _to_last
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.layers.recurrent import RNN
from tapeflow.keras.layers.reshaping import standardize_tuple
from tapeflow.keras.layers.rnn_cells import DropoutRNNCell
from tapeflow.ops import array_ops, conv_ops, functional_ops, manip_ops, math_ops

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


def _padding(value: Any) -> str:
    """Keras's `standardize_padding` (a list or tuple passes as given)."""
    if isinstance(value, (list, tuple)):
        return value
    padding = value.lower()
    if padding not in {"valid", "same"}:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of "
                         f"{{'valid', 'same'}}. Received: {padding}")
    return padding


def _conv_length(size: Optional[int], kernel: int, stride: int, padding: str,
                 dilation: int) -> Optional[int]:
    """The spatial size a convolution produces (Keras's `compute_conv_output_shape`)."""
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    return (size - dilation * (kernel - 1) - 1) // stride + 1


class ConvLSTMCell(Layer, DropoutRNNCell):
    """One ConvLSTM step: `kernel` `kernel_size + (channels, 4 * filters)` convolves the input
    (strides, padding, dilation as given), `recurrent_kernel` `kernel_size + (filters, 4 *
    filters)` the previous output ('same', stride 1); gates i, f, c, o in that order."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self.seed_generator = backend.SeedGenerator(seed)
        if rank > 3:
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. "
                             f"Received: rank={rank}")
        self.rank = rank
        self.filters = filters
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = standardize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = _padding(padding)
        self.data_format = backend.standardize_data_format(data_format)
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"Specifying `strides > 1` is not compatible with `dilation_rate "
                             f"> 1`. Please provide `strides=1` or `dilation_rate=1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.dropout_mask_count = 4
        self.input_spec = InputSpec(ndim=rank + 2)
        self.state_size = -1  # Keras's: the states' shapes come from get_initial_state

    def build(self, inputs_shape: Any, states_shape: Any = None) -> None:
        inputs_shape = tuple(inputs_shape)
        channel_axis = 1 if self.data_format == "channels_first" else -1
        self.spatial_dims = inputs_shape[2:] if self.data_format == "channels_first" \
            else inputs_shape[1:-1]
        if None in self.spatial_dims:
            raise ValueError(f"ConvLSTM layers only support static input shapes for the "
                             f"spatial dimension. Received invalid input shape: "
                             f"input_shape={inputs_shape}")
        if inputs_shape[channel_axis] is None:
            raise ValueError(f"The channel dimension of the inputs (last axis) should be "
                             f"defined. Found None. Full input shape received: "
                             f"input_shape={inputs_shape}")
        self.input_spec = InputSpec(ndim=self.rank + 3, shape=(None,) + inputs_shape[1:])
        self.input_dim = inputs_shape[channel_axis]
        self.kernel = self.add_weight(
            shape=self.kernel_size + (self.input_dim, self.filters * 4),
            initializer=self.kernel_initializer, name="kernel",
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, self.filters * 4),
            initializer=self.recurrent_initializer, name="recurrent_kernel",
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.filters * 4,), name="bias",
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def _bias_initializer(self) -> Any:
        """With `unit_forget_bias`, the forget gate's bias starts at one."""
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, filters = self.bias_initializer, self.filters

        def initializer(_: Any, dtype: Any = None, **kwargs: Any) -> Any:
            return array_ops.concat([base((filters,), dtype=dtype),
                                     initializers.get("ones")((filters,), dtype=dtype),
                                     base((filters * 2,), dtype=dtype)], 0)
        return initializer

    def _conv(self, x: Any, kernel: Any, strides: tuple, padding: str,
              dilations: tuple) -> Any:
        y = conv_ops.conv_nd(_to_last(x, self.data_format), kernel, strides, padding,
                             dilations)
        return _to_format(y, self.data_format)

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple:
        h_tm1, c_tm1 = states[0], states[1]
        xs, hs = [inputs] * 4, [h_tm1] * 4
        if training and 0.0 < self.dropout < 1.0:
            xs = [inputs * m for m in self.get_dropout_mask(inputs)]
        if training and 0.0 < self.recurrent_dropout < 1.0:
            hs = [h_tm1 * m for m in self.get_recurrent_dropout_mask(h_tm1)]
        kernels = array_ops.split(self.kernel, 4, axis=self.rank + 1)
        recurrent_kernels = array_ops.split(self.recurrent_kernel, 4, axis=self.rank + 1)
        biases = array_ops.split(self.bias, 4) if self.use_bias else [None] * 4
        ones = (1,) * self.rank
        gates = []
        for x, h, kernel, recurrent_kernel, bias in zip(xs, hs, kernels, recurrent_kernels,
                                                        biases):
            z = self._conv(x, kernel, self.strides, self.padding.upper(), self.dilation_rate)
            if bias is not None:
                shape = (1,) * (self.rank + 1) + (self.filters,) \
                    if self.data_format == "channels_last" else (1, self.filters) + ones
                z = z + array_ops.reshape(bias, shape)
            gates.append(z + self._conv(h, recurrent_kernel, ones, "SAME", ones))
        i = self.recurrent_activation(gates[0])
        f = self.recurrent_activation(gates[1])
        c = f * c_tm1 + i * self.activation(gates[2])
        o = self.recurrent_activation(gates[3])
        h = o * self.activation(c)
        return h, [h, c]

    def _step_output_shape(self, inputs_shape: tuple) -> tuple:
        """The shape of a step's output (and of each state) for a step input's shape."""
        first = self.data_format == "channels_first"
        spatial = inputs_shape[2:] if first else inputs_shape[1:-1]
        spatial = tuple(_conv_length(size, k, s, self.padding, d) for size, k, s, d in
                        zip(spatial, self.kernel_size, self.strides, self.dilation_rate))
        if first:
            return (inputs_shape[0], self.filters) + spatial
        return (inputs_shape[0],) + spatial + (self.filters,)

    def compute_output_shape(self, inputs_shape: Any, states_shape: Any = None) -> tuple:
        shape = self._step_output_shape(tuple(inputs_shape))
        return shape, [shape, shape]

    def get_initial_state(self, batch_size: Any = None) -> list:
        """Zero h and c, each the shape of a step's output."""
        spatial = tuple(self.spatial_dims)
        step = (1,) + spatial + (self.input_dim,) if self.data_format == "channels_last" \
            else (1, self.input_dim) + spatial
        shape = array_ops.concat([array_ops.reshape(batch_size, [1]),
                                  list(self._step_output_shape(step)[1:])], 0)
        return [array_ops.zeros(shape, self.compute_dtype),
                array_ops.zeros(shape, self.compute_dtype)]

    def get_config(self) -> dict:
        return {**super().get_config(), **_conv_lstm_config(self), "seed": self.seed}


def _conv_lstm_config(source: Any) -> dict:
    """The cell arguments of a ConvLSTM cell's or layer's config, in Keras's order."""
    return {"filters": source.filters, "kernel_size": source.kernel_size,
            "strides": source.strides, "padding": source.padding,
            "data_format": source.data_format, "dilation_rate": source.dilation_rate,
            "activation": activations.serialize(source.activation),
            "recurrent_activation": activations.serialize(source.recurrent_activation),
            "use_bias": source.use_bias,
            "kernel_initializer": initializers.serialize(source.kernel_initializer),
            "recurrent_initializer": initializers.serialize(source.recurrent_initializer),
            "bias_initializer": initializers.serialize(source.bias_initializer),
            "unit_forget_bias": source.unit_forget_bias,
            **{f"{weight}_{kind}": serialize(getattr(source, f"{weight}_{kind}"))
               for kind, serialize in (("regularizer", regularizers.serialize),
                                       ("constraint", constraints.serialize))
               for weight in ("kernel", "recurrent", "bias")},
            "dropout": source.dropout, "recurrent_dropout": source.recurrent_dropout}


_CELL_ATTRIBUTES = ("filters", "kernel_size", "strides", "padding", "data_format",
                    "dilation_rate", "activation", "recurrent_activation", "use_bias",
                    "kernel_initializer", "recurrent_initializer", "bias_initializer",
                    "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
                    "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                    "bias_constraint", "dropout", "recurrent_dropout")


class _ConvLSTM(RNN):
    """Keras's ConvLSTM: an RNN over a ConvLSTMCell made from the layer's arguments (read
    back as the layer's attributes)."""

    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = "tanh",
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
                 stateful: bool = False, **kwargs: Any) -> None:
        cell = ConvLSTMCell(
            rank=self.rank, filters=filters, kernel_size=kernel_size, strides=strides,
            padding=padding, data_format=data_format, dilation_rate=dilation_rate,
            activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell",
            dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def __getattr__(self, name: str) -> Any:
        if name in _CELL_ATTRIBUTES and "cell" in self.__dict__:
            return getattr(self.cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        batch, steps = sequences_shape[0], sequences_shape[1]
        state = self.cell._step_output_shape((batch,) + tuple(sequences_shape[2:]))[1:]
        output = (batch, steps) + state if self.return_sequences else (batch,) + state
        if self.return_state:
            return output, (batch,) + state, (batch,) + state
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        return [output_mask, None, None] if self.return_state else output_mask

    def _loop(self, sequences: Any, initial_state: list, mask: Any, training: Any) -> tuple:
        """The RNN's loop (unrolled over known steps, else scanned), with the (batch, time)
        mask broadcast over a step's (spatial, channels) axes."""
        self._state_structure = initial_state
        inputs, step = self._step_function(sequences, training)
        if mask is not None:
            mask = math_ops.cast(convert_to_tensor(mask), "bool")
            mask = array_ops.reshape(mask, array_ops.concat(
                [array_ops.shape(mask), [1] * (self.rank + 1)], 0))
        states = nest.flatten(initial_state)
        loop = self._scanned if sequences.shape[1] is None else self._unrolled
        last, outputs, states = loop(inputs, states, mask, step)
        return last, outputs, nest.pack_sequence_as(initial_state, states)

    def _scanned(self, inputs: Any, states: list, mask: Any, step: Any) -> tuple:
        """The loop as one `tf.scan` over time-major steps (a trace with unknown length)."""
        swap = [1, 0] + list(range(2, self.rank + 3))
        elems = [array_ops.transpose(inputs, swap)]
        if mask is not None:
            elems.append(array_ops.transpose(mask, swap))
        if self.go_backwards:
            elems = [manip_ops.reverse(e, [0]) for e in elems]

        def body(carry: tuple, elem: Any) -> tuple:
            prev, old = carry[0], list(carry[1:])
            output, new = step(elem[0], old)
            if mask is not None:
                output = math_ops.where(elem[1], output, prev)
                new = [math_ops.where(elem[1], n, s) for n, s in zip(new, old)]
            return (output, *new)

        carried = functional_ops.scan(body, tuple(elems),
                                      initializer=(math_ops.zeros_like(states[0]), *states))
        outputs = carried[0]
        return outputs[-1], array_ops.transpose(outputs, swap), [s[-1] for s in carried[1:]]

    def get_config(self) -> dict:
        base = super().get_config()
        del base["cell"]
        return {**base, **_conv_lstm_config(self),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "seed": self.cell.seed}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "_ConvLSTM":
        return cls(**config)


class ConvLSTM1D(_ConvLSTM):
    """Convolutional LSTM over `(batch, time, steps, channels)` sequences."""
    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """Convolutional LSTM over `(batch, time, rows, cols, channels)` sequences."""
    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """Convolutional LSTM over `(batch, time, depth, rows, cols, channels)` sequences."""
    rank = 3

