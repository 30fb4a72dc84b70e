"""The LSTM's fused sequence op (one op for the whole recurrence, one for its gradient)
against the per-step path it replaces: the same outputs bitwise, gradients within float
rounding, eagerly and in tf.function (known and unknown length), second derivatives and
forward mode; and where it does not apply (masks, other activations, float16), the per-step
path runs."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers import rnn_cells

L = keras.layers
_FUSED_OK = rnn_cells.LSTMCell._fused_ok


def _per_step(monkeypatch):
    monkeypatch.setattr(rnn_cells.LSTMCell, "_fused_ok", lambda self, *args: False)


def _fused(monkeypatch):
    monkeypatch.setattr(rnn_cells.LSTMCell, "_fused_ok", _FUSED_OK)


def _case(dtype="float32", **kwargs):
    keras.utils.set_random_seed(3)
    layer = L.LSTM(8, return_sequences=True, return_state=True, dtype=dtype, **kwargs)
    x = tf.constant(np.random.default_rng(0).uniform(-2, 2, (5, 7, 3)).astype(dtype))
    layer(x)
    return layer, x


def _values(layer, x, call=None):
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            out, h, c = layer(x, training=True)
            loss = tf.reduce_sum(out * out) + tf.reduce_sum(h * 3.0) + tf.reduce_sum(c * c)
        return [out, h, c] + tape.gradient(loss, [x] + layer.trainable_weights)
    return [v.numpy() for v in (call or step)(x)]


def _compare(fused, steps, dtype):
    for a, b in zip(fused[:3], steps[:3]):
        np.testing.assert_array_equal(a, b)   # the forward runs the same float ops
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(fused[3:], steps[3:]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_fused_matches_per_step_eagerly(monkeypatch, dtype, go_backwards):
    layer, x = _case(dtype, go_backwards=go_backwards)
    fused = _values(layer, x)
    _per_step(monkeypatch)
    _compare(fused, _values(layer, x), dtype)


@pytest.mark.parametrize("unknown_length", [False, True])
def test_fused_matches_per_step_in_tf_function(monkeypatch, unknown_length):
    layer, x = _case()
    spec = [tf.TensorSpec([None, None, 3], tf.float32)] if unknown_length else None

    def compiled():
        def step(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                out, h, c = layer(x)
                loss = tf.reduce_sum(out * out) + tf.reduce_sum(h) + tf.reduce_sum(c * c)
            return [out, h, c] + tape.gradient(loss, [x] + layer.trainable_weights)
        return tf.function(step, input_signature=spec)

    fused = _values(layer, x, compiled())
    _per_step(monkeypatch)
    _compare(fused, _values(layer, x, compiled()), "float32")


def test_trace_holds_one_op_per_layer_not_per_step():
    """A 40-step LSTM's training step traces to a graph of tens of nodes (the per-step path
    traced ~40 per step): its trace time no longer grows with the length."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((40, 3)), L.LSTM(4, return_sequences=True),
                              L.LSTM(4), L.Dense(1)])
    x = tf.constant(np.random.default_rng(0).uniform(-1, 1, (2, 40, 3)).astype("float32"))

    @tf.function
    def grads(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))
        return tape.gradient(loss, model.trainable_variables)

    graph = grads.get_concrete_function(x).graph
    assert len(graph.nodes) < 150
    ops = [n.op_name for n in graph.nodes]
    assert ops.count("LSTMSequence") == 2 and ops.count("LSTMSequenceGrad") == 2


def test_second_order_matches_per_step(monkeypatch):
    """d/dx of (d loss / d kernel) . v through the fused op's gradient (its own VJP
    differentiates the composite recurrence) equals the per-step path's."""
    layer, x = _case()
    v = tf.constant(np.random.default_rng(2).uniform(-1, 1, (8, 32)).astype("float32"))

    def second():
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                out, h, c = layer(x)
                loss = tf.reduce_sum(out ** 2) + tf.reduce_sum(c)
            y = tf.reduce_sum(inner.gradient(loss, layer.cell.recurrent_kernel) * v)
        return outer.gradient(y, x).numpy()

    fused = second()
    _per_step(monkeypatch)
    np.testing.assert_allclose(fused, second(), rtol=1e-4, atol=1e-6)


def test_forward_mode_uses_the_per_step_path(monkeypatch):
    """A ForwardAccumulator sees the per-step ops (the fused op has no JVP): the JVP equals
    the tape's VJP contracted with the tangent."""
    layer, x = _case()
    t = tf.constant(np.random.default_rng(4).uniform(-1, 1, x.shape).astype("float32"))
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        out = layer(x)[0]
    jvp = acc.jvp(out).numpy()
    w = np.random.default_rng(5).uniform(-1, 1, out.shape).astype("float32")
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layer(x)[0] * w)
    vjp = tape.gradient(loss, x).numpy()
    np.testing.assert_allclose(np.sum(jvp * w), np.sum(vjp * t.numpy()), rtol=1e-4)


@pytest.mark.parametrize("kwargs", [{"activation": "relu"}, {"dtype": "mixed_float16"},
                                    {"recurrent_activation": "hard_sigmoid"}])
def test_other_cells_take_the_per_step_path(monkeypatch, kwargs):
    keras.utils.set_random_seed(0)
    layer = L.LSTM(4, **kwargs)
    layer.build((2, 3, 2))
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 2)).astype("float32")
    assert not layer.cell._fused_ok(False, 3)
    out = layer(x).numpy()
    _per_step(monkeypatch)
    np.testing.assert_array_equal(out, layer(x).numpy())


def test_masked_steps_keep_the_per_step_path():
    """A mask (the fused op has none) runs the step loop: masked steps keep the state."""
    keras.utils.set_random_seed(0)
    layer = L.LSTM(4, return_sequences=True)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 4, 3)).astype("float32")
    mask = tf.constant([[True, True, False, False], [True] * 4])
    out = layer(x, mask=mask).numpy()
    np.testing.assert_array_equal(out[0, 2], out[0, 1])
    np.testing.assert_array_equal(out[0, :2], layer(x[:, :2]).numpy()[0])
