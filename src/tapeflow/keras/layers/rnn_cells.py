"""Keras 3's recurrent cells: SimpleRNNCell, LSTMCell, GRUCell and StackedRNNCells.

Each cell has Keras's per-step `call(inputs, states, training)`. The built-in cells also offer
the fast path the RNN layer drives: `_project(sequences)` is the input projection of every
time step as one matmul, and `_step(x_t, states)` the recurrent part of one step (h @ U and
the gate math), so a step costs one matmul and a few element-wise ops.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
from tapeflow.framework import nest
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.keras import activations, backend, constraints, initializers, regularizers
from tapeflow.keras.layers.core import _weight_config
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, functional_ops, math_ops
from tapeflow.ops._convert import convert_to_tensor

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"]


def _matmul_last(x: Any, kernel: Any) -> Any:
    """`x @ kernel` over the last axis of a rank-3 `x`, as one (batch*time, features) matmul."""
    flat = array_ops.reshape(x, (-1, x.shape[-1]))
    out = math_ops.matmul(flat, kernel)
    time = x.shape[1]
    if time is not None:  # keeps the static shape (the loop unrolls over it)
        return array_ops.reshape(out, (-1, time, kernel.shape[-1]))
    shape = array_ops.shape(x)
    return array_ops.reshape(out, array_ops.concat([shape[:-1], [kernel.shape[-1]]], 0))


# -- the fused LSTM sequence -------------------------------------------------------------------
# The whole recurrence of a tanh/sigmoid LSTM over time as one op: its kernel is a NumPy loop
# (per step: h @ U and the gate math, in the composite's own order, so the outputs are the
# composite's bitwise), its VJP one op too (backpropagation through time, the recurrent
# kernel's gradient as one matmul over all steps). Eagerly that is two ops per layer instead
# of ~40 per step; traced, two nodes instead of thousands. The gradient of the gradient
# differentiates the composite (`_lstm_composite`), so higher orders stay exact.

def _lstm_sequence_kernel(z: np.ndarray, h0: np.ndarray, c0: np.ndarray,
                          u_kernel: np.ndarray) -> tuple:
    """(hs, cs, acts) over the projected inputs `z` (batch, time, 4 units): every step's h
    (batch, time, units); its c and activated gates i, f, c, o time-major (the VJP's
    residuals). Time-major buffers and in-place ufuncs keep each step's operands contiguous
    (NumPy runs strided 2-D operands ~3x slower)."""
    batch, time, width = z.shape
    units = width // 4
    z = np.ascontiguousarray(np.swapaxes(z, 0, 1))
    hs = np.empty((time, batch, units), z.dtype)
    cs = np.empty((time, batch, units), z.dtype)
    acts = np.empty((time, batch, width), z.dtype)
    tanh_c = np.empty((batch, units), z.dtype)
    cell = slice(2 * units, 3 * units)
    h, c = h0, c0
    for t in range(time):
        a = acts[t]
        np.matmul(h, u_kernel, out=a)
        a += z[t]
        g = np.tanh(a[:, cell])
        a *= 0.5      # sigmoid(x) = 0.5 * (1 + tanh(x / 2)), as the Sigmoid kernel
        np.tanh(a, out=a)
        a += 1.0
        a *= 0.5
        a[:, cell] = g
        c = np.multiply(a[:, units:2 * units], c, out=cs[t])
        c += a[:, :units] * g
        np.tanh(c, out=tanh_c)
        h = np.multiply(a[:, 3 * units:], tanh_c, out=hs[t])
    return np.swapaxes(hs, 0, 1), cs, acts


def _lstm_sequence_grad_kernel(g_hs: np.ndarray, g_cs: np.ndarray, hs: np.ndarray,
                               cs: np.ndarray, acts: np.ndarray, z: np.ndarray,
                               h0: np.ndarray, c0: np.ndarray, u_kernel: np.ndarray) -> tuple:
    """(dz, dh0, dc0, dU) from the cotangents of hs and cs: backpropagation through time.
    What does not depend on the recurrence (the gates' derivatives and the factors of dc and
    dh in dz) is computed for all steps at once; a step is then ~8 contiguous ops."""
    time, batch, width = acts.shape
    units = width // 4
    gates = acts.reshape(time, batch, 4, units).transpose(2, 0, 1, 3)   # (4, T, B, u)
    i, f, g, o = gates
    tanh_c = np.tanh(cs)
    c_prev = np.concatenate([c0[None], cs[:-1]])
    # dz_i = dc g i(1-i), dz_f = dc c_prev f(1-f), dz_c = dc i (1-g^2), dz_o = dh tanh(c) o(1-o)
    by_dc = np.stack([g * i * (1 - i), c_prev * f * (1 - f), i * (1 - g * g)], 2)
    by_dh = tanh_c * o * (1 - o)
    dh_to_dc = o * (1 - tanh_c * tanh_c)
    g_hs = np.ascontiguousarray(np.swapaxes(g_hs, 0, 1))
    dz = np.empty((time, batch, width), acts.dtype)
    dz_gates = dz.reshape(time, batch, 4, units)
    u_t = np.ascontiguousarray(u_kernel.T)
    dh = np.zeros_like(h0)
    dc = np.zeros_like(c0)
    for t in range(time - 1, -1, -1):
        dh += g_hs[t]
        dc += g_cs[t]
        dc += dh * dh_to_dc[t]
        np.multiply(dc[:, None], by_dc[t], out=dz_gates[t, :, :3])
        np.multiply(dh, by_dh[t], out=dz_gates[t, :, 3])
        dc *= f[t]
        dh = np.matmul(dz[t], u_t)
    h_prev = np.concatenate([h0[None], np.swapaxes(hs, 0, 1)[:-1]]).reshape(-1, units)
    d_u = np.matmul(h_prev.T, dz.reshape(-1, width))
    return np.swapaxes(dz, 0, 1), dh, dc, d_u


def _lstm_sequence_rule(z: ShapedArray, h0: ShapedArray, c0: ShapedArray,
                        u_kernel: ShapedArray) -> tuple:
    batch, time, width = z.shape if z.shape is not None else (None, None, None)
    units = None if width is None else width // 4
    return (ShapedArray((batch, time, units), z.dtype),
            ShapedArray((time, batch, units), z.dtype),
            ShapedArray((time, batch, width), z.dtype))


def _lstm_sequence_grad_rule(*avals: ShapedArray) -> tuple:
    return tuple(ShapedArray(a.shape, a.dtype) for a in avals[5:])


def _lstm_composite(z: Any, h0: Any, c0: Any, u_kernel: Any) -> tuple:
    """(hs, cs) of the fused op (cs time-major), as tapeflow ops: what its second
    derivatives differentiate (a `tf.scan` where the trace does not know the length)."""
    def step(h: Any, c: Any, zt: Any) -> tuple:
        z_i, z_f, z_c, z_o = array_ops.split(zt + math_ops.matmul(h, u_kernel), 4, axis=1)
        c = math_ops.sigmoid(z_f) * c + math_ops.sigmoid(z_i) * math_ops.tanh(z_c)
        return math_ops.sigmoid(z_o) * math_ops.tanh(c), c

    if z.shape[1] is None:
        hs, cs = functional_ops.scan(lambda carry, zt: step(*carry, zt),
                                     array_ops.transpose(z, [1, 0, 2]), initializer=(h0, c0))
        return array_ops.transpose(hs, [1, 0, 2]), cs
    h, c, hs, cs = h0, c0, [], []
    for zt in array_ops.unstack(z, axis=1):
        h, c = step(h, c, zt)
        hs.append(h)
        cs.append(c)
    return array_ops.stack(hs, axis=1), array_ops.stack(cs)


def _lstm_sequence_vjp(gs: tuple, ans: tuple, z: Any, h0: Any, c0: Any, u_kernel: Any) -> tuple:
    hs, cs, acts = ans
    return bind(_LSTM_SEQUENCE_GRAD, (gs[0], gs[1], hs, cs, acts, z, h0, c0, u_kernel))


def _lstm_sequence_grad_vjp(ggs: tuple, ans: tuple, g_hs: Any, g_cs: Any, hs: Any, cs: Any,
                            acts: Any, z: Any, h0: Any, c0: Any, u_kernel: Any) -> tuple:
    # hs, cs and acts are functions of (z, h0, c0, U): the whole derivative goes to those.
    primal = [z, h0, c0, u_kernel]
    with GradientTape() as outer:
        outer.watch(primal + [g_hs, g_cs])
        with GradientTape() as inner:
            inner.watch(primal)
            targets = _lstm_composite(z, h0, c0, u_kernel)
        grads = inner.gradient(list(targets), primal, output_gradients=[g_hs, g_cs],
                               unconnected_gradients=UnconnectedGradients.ZERO)
    out = outer.gradient(grads, [g_hs, g_cs] + primal, output_gradients=list(ggs),
                         unconnected_gradients=UnconnectedGradients.ZERO)
    return (out[0], out[1], None, None, None, *out[2:])


_LSTM_SEQUENCE_GRAD = Primitive("LSTMSequenceGrad", _lstm_sequence_grad_kernel,
                                multiple_results=True, shape_rule=_lstm_sequence_grad_rule,
                                register=False).defvjp(_lstm_sequence_grad_vjp)
_LSTM_SEQUENCE = Primitive("LSTMSequence", _lstm_sequence_kernel, multiple_results=True,
                           shape_rule=_lstm_sequence_rule,
                           register=False).defvjp(_lstm_sequence_vjp)


class DropoutRNNCell:
    """Keras's dropout masks of a cell: drawn once per RNN call (for every call, training or
    not, as Keras draws them) and used at every step."""

    dropout_mask_count: Optional[int] = None
    _dropout_mask: Any = None
    _recurrent_dropout_mask: Any = None

    def _create_dropout_mask(self, step_input: Any, rate: float) -> Any:
        ones = math_ops.ones_like(step_input)
        if self.dropout_mask_count is None:
            return backend.dropout(ones, rate, None, self.seed_generator)
        return [backend.dropout(ones, rate, None, self.seed_generator)
                for _ in range(self.dropout_mask_count)]

    def get_dropout_mask(self, step_input: Any) -> Any:
        """The input dropout mask of this call (None without dropout)."""
        if self._dropout_mask is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_input: Any) -> Any:
        """The recurrent dropout mask of this call (None without recurrent dropout)."""
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(
                step_input, self.recurrent_dropout)
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        """Forgets this call's input dropout mask (the next call draws a new one)."""
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        """Forgets this call's recurrent dropout mask (the next call draws a new one)."""
        self._recurrent_dropout_mask = None


def _positive_units(units: Any) -> int:
    if not isinstance(units, int) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a "
                         f"positive integer, got {units}.")
    return units


class _Cell(Layer, DropoutRNNCell):
    """What the three built-in cells share: arguments, weights and their config."""

    _gates = 1
    _recurrent_activation = False

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Optional[int] = None, implementation: int = 2, **kwargs: Any) -> None:
        _positive_units(units)
        super().__init__(**kwargs)
        self.implementation = implementation
        self.units = units
        self.activation = activations.get(activation)
        if self._recurrent_activation:
            self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed
        self.seed_generator = backend.SeedGenerator(seed)
        self.output_size = units

    def _add_kernels(self, input_dim: int) -> None:
        width = self.units * self._gates
        self.kernel = self.add_weight(shape=(input_dim, width), name="kernel",
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, width),
                                                name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)

    def _add_bias(self, shape: tuple, initializer: Any) -> None:
        self.bias = self.add_weight(shape=shape, name="bias", initializer=initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None

    def get_initial_state(self, batch_size: Any = None) -> list:
        """Zero states, one per `state_size` entry."""
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [array_ops.zeros(array_ops.stack([batch_size, d]), self.compute_dtype)
                for d in sizes]

    def _fast_ok(self, training: Any) -> bool:
        """Whether `_project`/`_step` compute what `call` does (not so for the per-gate
        dropout masks of Keras's implementation 1 in training)."""
        return not (training and self.dropout_mask_count is not None and
                    (0 < self.dropout < 1 or 0 < self.recurrent_dropout < 1))

    def _project(self, sequences: Any, training: Any) -> Any:
        """Every step's input projection `x_t @ kernel (+ input bias)`, as one matmul."""
        x = sequences
        if training and 0.0 < self.dropout < 1.0:
            x = x * array_ops.expand_dims(self.get_dropout_mask(x[:, 0]), 1)
        z = _matmul_last(x, self.kernel)
        bias = self._input_bias()
        return z if bias is None else z + bias

    def _input_bias(self) -> Any:
        return self.bias

    def _config(self) -> dict:
        config = {"units": self.units, "activation": activations.serialize(self.activation)}
        if self._recurrent_activation:
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        return config

    def _weights_config(self) -> dict:
        k, r, b = (_weight_config(self, w) for w in ("kernel", "recurrent", "bias"))
        return {"kernel_initializer": k["kernel_initializer"],
                "recurrent_initializer": r["recurrent_initializer"],
                "bias_initializer": b["bias_initializer"],
                "kernel_regularizer": k["kernel_regularizer"],
                "recurrent_regularizer": r["recurrent_regularizer"],
                "bias_regularizer": b["bias_regularizer"],
                "kernel_constraint": k["kernel_constraint"],
                "recurrent_constraint": r["recurrent_constraint"],
                "bias_constraint": b["bias_constraint"]}

    def _dropout_config(self) -> dict:
        return {"dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout}


class SimpleRNNCell(_Cell):
    """`h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)` (Keras 3)."""

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.state_size = units

    def build(self, input_shape: Any) -> None:
        self._add_kernels(input_shape[-1])
        self._add_bias((self.units,), self.bias_initializer)
        self.built = True

    def call(self, sequence: Any, states: Any, training: Any = False) -> tuple:
        prev = states[0] if isinstance(states, (list, tuple)) else states
        dp_mask = self.get_dropout_mask(sequence)
        rec_mask = self.get_recurrent_dropout_mask(prev)
        if training and dp_mask is not None:
            sequence = sequence * dp_mask
        h = math_ops.matmul(sequence, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        if training and rec_mask is not None:
            prev = prev * rec_mask
        output = h + math_ops.matmul(prev, self.recurrent_kernel)
        if self.activation is not None:
            output = self.activation(output)
        return output, [output] if isinstance(states, (list, tuple)) else output

    def _project(self, sequences: Any, training: Any) -> Any:
        x = sequences
        if training and self.dropout > 0:  # SimpleRNNCell applies a rate-1 mask too
            x = x * array_ops.expand_dims(self.get_dropout_mask(x[:, 0]), 1)
        z = _matmul_last(x, self.kernel)
        return z if self.bias is None else z + self.bias

    def _step(self, x: Any, states: list, training: Any) -> tuple:
        prev = states[0]
        if training and self.recurrent_dropout > 0:
            prev = prev * self.get_recurrent_dropout_mask(prev)
        output = self.activation(x + math_ops.matmul(prev, self.recurrent_kernel))
        return output, [output]

    def get_config(self) -> dict:
        return {**super().get_config(), **self._config(), **self._weights_config(),
                **self._dropout_config(), "seed": self.seed}


class LSTMCell(_Cell):
    """Keras 3's LSTM cell: gates i, f, c, o in the kernels' column blocks, in that order;
    `unit_forget_bias` starts the forget gate's bias at 1."""

    _gates = 4
    _recurrent_activation = True

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        if self.recurrent_dropout != 0.0:
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = 4
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]

    def build(self, input_shape: Any) -> None:
        self._add_kernels(input_shape[-1])
        initializer = self.bias_initializer
        if self.unit_forget_bias:
            base, units = self.bias_initializer, self.units

            def initializer(_: Any, dtype: Any = None, **kwargs: Any) -> Any:
                return array_ops.concat([base((units,), dtype=dtype),
                                         initializers.get("ones")((units,), dtype=dtype),
                                         base((units * 2,), dtype=dtype)], 0)
        self._add_bias((self.units * 4,), initializer)
        self.built = True

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple:
        h_tm1, c_tm1 = states[0], states[1]
        if self.implementation == 1:
            return self._call_per_gate(inputs, h_tm1, c_tm1, training)
        if training and 0.0 < self.dropout < 1.0:
            inputs = inputs * self.get_dropout_mask(inputs)
        z = math_ops.matmul(inputs, self.kernel) + math_ops.matmul(h_tm1,
                                                                     self.recurrent_kernel)
        if self.use_bias:
            z = z + self.bias
        return self._gate(z, c_tm1)

    def _call_per_gate(self, inputs: Any, h_tm1: Any, c_tm1: Any, training: Any) -> tuple:
        """Keras's implementation 1: a kernel block per gate, each with its dropout mask."""
        xs = [inputs] * 4
        if training and 0.0 < self.dropout < 1.0:
            xs = [inputs * m for m in self.get_dropout_mask(inputs)]
        hs = [h_tm1] * 4
        if training and 0.0 < self.recurrent_dropout < 1.0:
            hs = [h_tm1 * m for m in self.get_recurrent_dropout_mask(h_tm1)]
        kernels = array_ops.split(self.kernel, 4, axis=1)
        recurrent = array_ops.split(self.recurrent_kernel, 4, axis=1)
        biases = array_ops.split(self.bias, 4, axis=0) if self.use_bias else [None] * 4
        z = []
        for x, h, k, r, b in zip(xs, hs, kernels, recurrent, biases):
            x_k = math_ops.matmul(x, k)
            if b is not None:
                x_k = x_k + b
            z.append(x_k + math_ops.matmul(h, r))
        i, f = self.recurrent_activation(z[0]), self.recurrent_activation(z[1])
        c = f * c_tm1 + i * self.activation(z[2])
        h = self.recurrent_activation(z[3]) * self.activation(c)
        return h, [h, c]

    def _gate(self, z: Any, c_tm1: Any) -> tuple:
        z_i, z_f, z_c, z_o = array_ops.split(z, 4, axis=1)
        act, rec = self.activation, self.recurrent_activation
        c = rec(z_f) * c_tm1 + rec(z_i) * act(z_c)
        h = rec(z_o) * act(c)
        return h, [h, c]

    def _step(self, x: Any, states: list, training: Any) -> tuple:
        return self._gate(x + math_ops.matmul(states[0], self.recurrent_kernel), states[1])

    def _fused_ok(self, training: Any, length: Any) -> bool:
        """Whether `_sequence` computes what the step loop does: tanh/sigmoid gates in
        float32/64, steps to run, and no forward accumulator (the fused op has no JVP)."""
        return (length != 0 and self._fast_ok(training) and
                self.activation is activations.tanh and
                self.recurrent_activation is activations.sigmoid and
                self.compute_dtype in ("float32", "float64") and not context.accumulators)

    def _sequence(self, z: Any, states: list) -> tuple:
        """(last output, every output, [h, c]) over the projected inputs `z` of all steps, as
        one fused op."""
        kernel = convert_to_tensor(self.recurrent_kernel)   # a read the tapes record
        hs, cs, _ = bind(_LSTM_SEQUENCE, (z, states[0], states[1], kernel))
        last = hs[:, -1]
        return last, hs, [last, cs[-1]]

    def get_config(self) -> dict:
        config = self._config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return {**super().get_config(), **config, **self._weights_config(),
                **self._dropout_config(), "seed": self.seed}


class GRUCell(_Cell):
    """Keras 3's GRU cell: gates z, r, h in the kernels' column blocks; `reset_after` (the
    default) applies the reset gate after the recurrent matmul, with a second bias row."""

    _gates = 3
    _recurrent_activation = True

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 reset_after: bool = True, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        if self.recurrent_dropout != 0.0:
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = 3
        self.reset_after = reset_after
        self.state_size = units

    def build(self, input_shape: Any) -> None:
        self._add_kernels(input_shape[-1])
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._add_bias(shape, self.bias_initializer)
        self.built = True

    def _biases(self) -> tuple:
        if not self.use_bias:
            return None, None
        if not self.reset_after:
            return self.bias, None
        return self.bias[0], self.bias[1]

    def _input_bias(self) -> Any:
        return self._biases()[0]

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple:
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        input_bias, recurrent_bias = self._biases()
        if self.implementation == 1:
            h = self._call_per_gate(inputs, h_tm1, training, input_bias, recurrent_bias)
        else:
            if training and 0.0 < self.dropout < 1.0:
                inputs = inputs * self.get_dropout_mask(inputs)
            x = math_ops.matmul(inputs, self.kernel)
            if input_bias is not None:
                x = x + input_bias
            h = self._step(x, [h_tm1], training)[0]
        return h, [h] if isinstance(states, (list, tuple)) else h

    def _call_per_gate(self, inputs: Any, h_tm1: Any, training: Any, input_bias: Any,
                       recurrent_bias: Any) -> Any:
        """Keras's implementation 1: a kernel block per gate, each with its dropout mask."""
        u = self.units
        xs = [inputs] * 3
        if training and 0.0 < self.dropout < 1.0:
            xs = [inputs * m for m in self.get_dropout_mask(inputs)]
        hs = [h_tm1] * 3
        if training and 0.0 < self.recurrent_dropout < 1.0:
            hs = [h_tm1 * m for m in self.get_recurrent_dropout_mask(h_tm1)]
        cols = [slice(0, u), slice(u, 2 * u), slice(2 * u, 3 * u)]
        x = [math_ops.matmul(xi, self.kernel[:, c]) for xi, c in zip(xs, cols)]
        if input_bias is not None:
            x = [xi + input_bias[c] for xi, c in zip(x, cols)]
        rec = [math_ops.matmul(hs[g], self.recurrent_kernel[:, cols[g]]) for g in (0, 1)]
        if self.reset_after and self.use_bias:
            rec = [r + recurrent_bias[c] for r, c in zip(rec, cols)]
        z = self.recurrent_activation(x[0] + rec[0])
        r = self.recurrent_activation(x[1] + rec[1])
        if self.reset_after:
            rec_h = math_ops.matmul(hs[2], self.recurrent_kernel[:, cols[2]])
            if self.use_bias:
                rec_h = rec_h + recurrent_bias[cols[2]]
            rec_h = r * rec_h
        else:
            rec_h = math_ops.matmul(r * hs[2], self.recurrent_kernel[:, cols[2]])
        hh = self.activation(x[2] + rec_h)
        return z * h_tm1 + (1 - z) * hh

    def _step(self, x: Any, states: list, training: Any) -> tuple:
        h_tm1 = states[0]
        u = self.units
        rec = self.recurrent_activation
        x_z, x_r, x_h = array_ops.split(x, 3, axis=-1)
        if self.reset_after:
            inner = math_ops.matmul(h_tm1, self.recurrent_kernel)
            if self.use_bias:
                inner = inner + self.bias[1]
            r_z, r_r, r_h = array_ops.split(inner, 3, axis=-1)
            z, r = rec(x_z + r_z), rec(x_r + r_r)
            hh = self.activation(x_h + r * r_h)
        else:
            inner = math_ops.matmul(h_tm1, self.recurrent_kernel[:, :2 * u])
            r_z, r_r = array_ops.split(inner, 2, axis=-1)
            z, r = rec(x_z + r_z), rec(x_r + r_r)
            hh = self.activation(x_h + math_ops.matmul(r * h_tm1,
                                                       self.recurrent_kernel[:, 2 * u:]))
        h = z * h_tm1 + (1 - z) * hh
        return h, [h]

    def get_config(self) -> dict:
        return {**super().get_config(), **self._config(), **self._weights_config(),
                **self._dropout_config(), "reset_after": self.reset_after, "seed": self.seed}


def _output_dim(cell: Any) -> int:
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    return cell.state_size[0] if isinstance(cell.state_size, (list, tuple)) else cell.state_size


class StackedRNNCells(Layer):
    """Cells run one after the other at each step, as one cell (Keras 3)."""

    def __init__(self, cells: list, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(f"All cells must have a `call` method. Received cell without "
                                 f"a `call` method: {cell}")
            if "state_size" not in dir(cell):
                raise ValueError(f"All cells must have a `state_size` attribute. Received "
                                 f"cell without a `state_size`: {cell}")
        self.cells = cells

    @property
    def state_size(self) -> list:
        """Each cell's state size, in order."""
        return [c.state_size for c in self.cells]

    @property
    def output_size(self) -> int:
        """The last cell's output size."""
        return _output_dim(self.cells[-1])

    def get_initial_state(self, batch_size: Any = None) -> list:
        """Each cell's zero states for a batch, in order."""
        states = []
        for cell in self.cells:
            if getattr(cell, "get_initial_state", None):
                states.append(cell.get_initial_state(batch_size=batch_size))
            elif isinstance(cell.state_size, int):
                states.append(array_ops.zeros(array_ops.stack([batch_size, cell.state_size]),
                                              self.compute_dtype))
            else:
                states.append([array_ops.zeros(array_ops.stack([batch_size, d]),
                                               self.compute_dtype) for d in cell.state_size])
        return states

    def call(self, inputs: Any, states: Any, training: Any = False, **kwargs: Any) -> tuple:
        new_states = []
        for cell, state in zip(self.cells, states):
            state_is_list = isinstance(state, (list, tuple))
            state = list(state) if state_is_list else [state]
            if isinstance(cell, Layer) and cell._call_has_training:
                kwargs["training"] = training
            else:
                kwargs.pop("training", None)
            inputs, state = cell(inputs, state, **kwargs)
            state = state if isinstance(state, (list, tuple)) else [state]
            if len(state) == 1 and not state_is_list:
                state = state[0]
            new_states.append(state)
        if len(new_states) == 1:
            new_states = new_states[0]
        return inputs, new_states

    def build(self, input_shape: Any) -> None:
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with backend.name_scope(self.name, caller=self):
                    cell.build(input_shape)
                cell.built = True
                cell._build_shapes = list(input_shape)
            input_shape = (nest.flatten(input_shape)[0], _output_dim(cell))
        self.built = True

    def get_config(self) -> dict:
        from tapeflow.keras.saving import serialize_keras_object
        return {**super().get_config(),
                "cells": [serialize_keras_object(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "StackedRNNCells":
        from tapeflow.keras.saving import deserialize_keras_object
        config = dict(config)
        cells = [deserialize_keras_object(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)

