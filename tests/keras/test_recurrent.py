"""Recurrent layers against Keras 3's numbers (tests/keras/fixtures/rnn.*, recorded by
tools/record_keras_rnn.py): outputs, gradients with respect to the input and every weight,
configs and their round trip, weight paths, masks, dropout in training, stateful calls, and
a model's summary text."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("rnn")
MASK = np.array(META["mask"], bool)
TOL = dict(rtol=2e-5, atol=2e-6)


def _run(layer, xt, kwargs, prefix):
    outputs, grads = fc.run_with_cotangents(ARRAYS, prefix, lambda: layer(xt, **kwargs), [xt],
                                            layer.trainable_weights)
    fc.assert_outputs_match(ARRAYS, prefix, outputs, TOL)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), ARRAYS[f"{prefix}/grad{i}"], **TOL,
                                   err_msg=f"{prefix} gradient {i}")


def _layer_case(name):
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    x = ARRAYS[f"{name}/x"]
    options = case["options"]
    kwargs = {}
    if options.get("mask"):
        kwargs["mask"] = tf.constant(MASK)
    if options.get("training"):
        kwargs["training"] = True
    if options.get("initial_state"):
        kwargs["initial_state"] = [tf.constant(ARRAYS[f"{name}/state{i}"]) for i in (0, 1)]
    layer.build(x.shape)
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(fc.count(ARRAYS, name, "w"))])
    return case, layer, tf.constant(x), kwargs


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xt, kwargs = _layer_case(name)
    assert [w.path for w in layer.weights] == case["paths"]
    for call in range(case["options"].get("calls", 1)):
        _run(layer, xt, kwargs, name if call == 0 else f"{name}/call{call}")
    if case["options"].get("calls"):
        layer.reset_states()
        np.testing.assert_allclose(layer(xt).numpy(), ARRAYS[f"{name}/after_reset"], **TOL)


# Keras 3.15-only arguments that hold their 'off' value (tapeflow's initializers and Dense do
# not take them; loading drops them, see keras/_registry.drop_keras_only).
_KERAS_ONLY: dict = {}


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer, _, _ = _layer_case(name)
    fc.assert_config_round_trips(layer, case["config"], _KERAS_ONLY,
                                 lambda clone: clone.build(ARRAYS[f"{name}/x"].shape))


@pytest.mark.parametrize("name", sorted(META["models"]))
def test_masked_model_matches_keras(name):
    keras.backend.clear_session()
    case = META["models"][name]
    model = keras.Sequential(eval(case["expr"]))  # noqa: S307
    model.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(fc.count(ARRAYS, name, "w"))])
    assert [w.path for w in model.weights] == case["paths"]
    fc.assert_model_matches(ARRAYS, name, model, tf.constant(ARRAYS[f"{name}/x"]), TOL)


def test_summary_matches_keras():
    keras.backend.clear_session()
    model = keras.Sequential(eval(META["summary"]["expr"]))  # noqa: S307
    lines = []
    model.summary(print_fn=lambda line, **_: lines.append(line))
    assert "\n".join(lines) == META["summary"]["text"]


@pytest.mark.parametrize("name", ["lstm_seq_state", "gru_mask_seq_state", "bidi_mask",
                                  "stacked_mask", "rnn_cell_state"])
def test_traced_matches_eager(name):
    """Under tf.function (steps unrolled into the trace; with an unknown number of steps,
    one scan) the numbers are Keras's too."""
    _, layer, xt, kwargs = _layer_case(name)
    prefix = name

    @tf.function
    def run(x):
        return tf.nest.flatten(layer(x, **kwargs))

    for i, o in enumerate(run(xt)):
        np.testing.assert_allclose(o.numpy(), ARRAYS[f"{prefix}/out{i}"], **TOL)

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def run_any_length(x):
        return tf.nest.flatten(layer(x, **kwargs))

    for i, o in enumerate(run_any_length(xt)):
        np.testing.assert_allclose(o.numpy(), ARRAYS[f"{prefix}/out{i}"], **TOL)


@pytest.mark.parametrize("unknown_length", [False, True])
def test_second_order_gradient(unknown_length):
    """The loop differentiates twice: d/dx of (d loss / d kernel) . v, against the central
    difference of the first gradient."""
    keras.utils.set_random_seed(1)
    layer = L.LSTM(3, return_sequences=True)
    x = tf.constant(np.random.default_rng(1).uniform(-1, 1, (2, 4, 2)).astype("float32"))
    layer(x)
    v = np.random.default_rng(2).uniform(-1, 1, layer.cell.kernel.shape).astype("float32")
    spec = [tf.TensorSpec([None, None, 2], tf.float32)] if unknown_length else None

    def first(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(layer(x) ** 2)
        return tf.reduce_sum(tape.gradient(loss, layer.cell.kernel) * v)

    @tf.function(input_signature=spec)
    def second(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            y = first(x)
        return outer.gradient(y, x)

    g2 = second(x).numpy()
    d = np.zeros(x.shape, np.float64)
    eps = 1e-2
    for idx in [(0, 0, 0), (1, 2, 1), (0, 3, 1)]:
        e = np.zeros(x.shape, np.float32)
        e[idx] = eps
        d[idx] = (first(x + e).numpy() - first(x - e).numpy()) / (2 * eps)
        np.testing.assert_allclose(g2[idx], d[idx], rtol=2e-2, atol=2e-3)


def test_masking_layer_marks_steps_and_lstm_skips_them():
    """Masking's mask reaches an LSTM called on its output (eagerly, outside a model): the
    padded sequence gives the unpadded one's result, as in Keras."""
    keras.utils.set_random_seed(0)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 5, 3)).astype("float32")
    x[0, 3:] = 0.0
    masking, lstm = L.Masking(), L.LSTM(4)
    padded = lstm(masking(x)).numpy()
    np.testing.assert_allclose(padded[0], lstm(x[:1, :3]).numpy()[0], rtol=1e-6)
    np.testing.assert_array_equal(L.Masking().compute_mask(tf.constant(x)).numpy(),
                                  [[True] * 3 + [False] * 2, [True] * 5])


class MinimalRNNCell(L.Layer):
    """Keras's documentation example of a custom cell."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        prev = states[0]
        output = tf.matmul(inputs, self.kernel) + tf.matmul(prev, self.recurrent_kernel)
        return output, [output]


def test_custom_cell_is_a_simple_rnn_without_bias():
    """A user's cell runs step by step through its own `call`: with SimpleRNN's weights and
    a linear activation it gives SimpleRNN's numbers."""
    keras.backend.clear_session()
    x = tf.constant(ARRAYS["simple_rnn/x"])
    custom = L.RNN(MinimalRNNCell(4), return_sequences=True)
    reference = L.SimpleRNN(4, activation=None, use_bias=False, return_sequences=True)
    custom(x)
    reference(x)
    reference.set_weights(custom.get_weights())
    np.testing.assert_allclose(custom(x).numpy(), reference(x).numpy(), rtol=1e-6)
    assert [w.path for w in custom.weights] == ["rnn/minimal_rnn_cell/kernel",
                                                "rnn/minimal_rnn_cell/recurrent_kernel"]


def test_fit_trains_an_lstm_model():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (32, 5, 3)).astype("float32")
    y = (x.sum(axis=(1, 2)) > 0).astype("int32")
    model = keras.Sequential([L.Input((5, 3)), L.LSTM(8), L.Dense(2)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=5, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_errors_are_keras_errors():
    with pytest.raises(ValueError, match="expected a positive integer"):
        L.LSTMCell(0)
    with pytest.raises(ValueError, match="Invalid merge mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="should have a `call` method"):
        L.RNN(object())
    with pytest.raises(ValueError, match="expected ndim=3"):
        L.LSTM(2)(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="batch size must be static"):
        keras.Sequential([L.Input((4, 2)), L.LSTM(2, stateful=True)])
