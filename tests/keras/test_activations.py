"""keras.activations by name and by function: values from Keras 3 (TF 2.21)."""

from __future__ import annotations

import os as _os0
import sys as _sys0

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

_sys0.path.insert(0, _os0.path.join(_os0.path.dirname(__file__), "..", ".."))

X = np.array([-3.0, -0.5, 0.0, 0.7, 2.5], "float32")

KERAS_VALUES = {
    "relu": [0.0, 0.0, 0.0, 0.7, 2.5],
    "sigmoid": [0.04743, 0.37754, 0.5, 0.66819, 0.92414],
    "tanh": [-0.99505, -0.46212, 0.0, 0.60437, 0.98661],
    "softmax": [0.00314, 0.03826, 0.06308, 0.12703, 0.76849],
    "linear": [-3.0, -0.5, 0.0, 0.7, 2.5],
    "elu": [-0.95021, -0.39347, 0.0, 0.7, 2.5],
    "selu": [-1.67057, -0.69176, 0.0, 0.73549, 2.62675],
    "softplus": [0.04859, 0.47408, 0.69315, 1.10319, 2.57889],
    "softsign": [-0.75, -0.33333, 0.0, 0.41176, 0.71429],
    "silu": [-0.14228, -0.18877, 0.0, 0.46773, 2.31035],
    "swish": [-0.14228, -0.18877, 0.0, 0.46773, 2.31035],
    "gelu": [-0.00405, -0.15427, 0.0, 0.53063, 2.48448],
    "relu6": [0.0, 0.0, 0.0, 0.7, 2.5],
    "leaky_relu": [-0.6, -0.1, 0.0, 0.7, 2.5],
    "exponential": [0.04979, 0.60653, 1.0, 2.01375, 12.18249],
    "hard_sigmoid": [0.0, 0.41667, 0.5, 0.61667, 0.91667],
    "log_softmax": [-5.76333, -3.26333, -2.76333, -2.06333, -0.26333],
}


@pytest.mark.parametrize("name", sorted(KERAS_VALUES))
def test_activation_by_name_matches_keras(name):
    y = keras.activations.get(name)(tf.constant(X))
    np.testing.assert_allclose(y.numpy(), KERAS_VALUES[name], atol=1e-5)


def test_relu_options_match_keras():
    y = keras.activations.relu(tf.constant(X), negative_slope=0.1, max_value=2.0,
                               threshold=0.5)
    np.testing.assert_allclose(y.numpy(), [-0.35, -0.1, -0.05, 0.7, 2.0], atol=1e-6)


def test_get_accepts_callables_and_none():
    assert keras.activations.get(None) is keras.activations.linear
    fn = lambda t: t  # noqa: E731
    assert keras.activations.get(fn) is fn
    with pytest.raises(ValueError, match="Could not interpret activation function"):
        keras.activations.get("nope")


def test_dense_activation_by_name_is_differentiable():
    d = keras.layers.Dense(2, activation="tanh", kernel_initializer="ones")
    x = tf.constant([[0.1, 0.2]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d(x))
    g = tape.gradient(y, d.kernel)
    np.testing.assert_allclose(g.numpy(), np.outer([0.1, 0.2], [1 - np.tanh(0.3) ** 2] * 2),
                               rtol=1e-5)


NAN_X = np.array([np.nan, -3.0, -0.0, 0.5, 2.0, 7.0], "float32")


def _value_and_grad(fn):
    x = tf.constant(NAN_X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy()


def test_relu_options_follow_keras_at_nan_and_kinks():
    # Keras 3 (TF 2.21): a threshold maps nan to 0; a plain negative slope is leaky_relu
    # (-0.0 stays -0.0, the gradient at nan is the slope); max_value clips with the
    # gradient 1 at the cap.
    y, g = _value_and_grad(lambda x: keras.activations.relu(x, threshold=1.0))
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.0, 0.0, 2.0, 7.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0])
    y, g = _value_and_grad(lambda x: keras.activations.relu(x, negative_slope=0.1))
    np.testing.assert_allclose(y, [np.nan, -0.3, -0.0, 0.5, 2.0, 7.0], rtol=1e-6)
    assert np.signbit(y[2])
    np.testing.assert_allclose(g, [0.1, 0.1, 0.1, 1.0, 1.0, 1.0], rtol=1e-6)
    y, g = _value_and_grad(lambda x: keras.activations.relu(x, max_value=2.0))
    np.testing.assert_array_equal(y, [np.nan, 0.0, 0.0, 0.5, 2.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 1.0, 1.0, 0.0])


def test_hard_sigmoid_relu6_and_softsign_at_nan_and_inf():
    # Keras 3 (TF 2.21): nan stays nan (relu6(nan) is nan), softsign's gradient at inf is 0
    y, g = _value_and_grad(keras.activations.hard_sigmoid)
    np.testing.assert_allclose(y, [np.nan, 0.0, 0.5, 0.5833333, 0.8333333, 1.0], rtol=1e-6)
    np.testing.assert_allclose(g, [0.0, 0.0, 1 / 6, 1 / 6, 1 / 6, 0.0], rtol=1e-6)
    assert np.isnan(keras.activations.relu6(tf.constant([np.nan])).numpy()[0])
    x = tf.constant([np.inf, -np.inf])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = keras.activations.softsign(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0])


# -- Keras 3's newer activations (tools/record_keras_utils.py recorded Keras's values and
# gradients into fixtures/keras_utils.json).

import json as _json  # noqa: E402
import os as _os  # noqa: E402

_FIX = _json.load(open(_os.path.join(_os.path.dirname(__file__), "fixtures",
                                     "keras_utils.json")))


@pytest.mark.parametrize("name", sorted(_FIX["activations"]))
def test_new_activation_values_and_gradients_match_keras(name):
    x = tf.constant(np.array(_FIX["x"], "float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = keras.activations.get(name)(x)
    want = _FIX["activations"][name]
    np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want["grad"], rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("name", sorted(_FIX["calls"]))
def test_activation_arguments_match_keras(name):
    from tools.record_keras_utils import ACTIVATION_CALLS
    x = tf.constant(np.array(_FIX["x2"], "float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = eval(ACTIVATION_CALLS[name], {"a": keras.activations, "x": x})
        weights = np.arange(1, 1 + int(np.prod(y.shape)), dtype="float32").reshape(y.shape)
        loss = tf.reduce_sum(y * weights)
    want = _FIX["calls"][name]
    np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), want["grad"], rtol=1e-5,
                               atol=1e-5)


def test_new_activations_by_name_in_layers_and_configs():
    d = keras.layers.Dense(2, activation="hard_swish")
    assert d.get_config()["activation"] == "hard_silu"   # Keras 3 stores the function's name
    assert keras.activations.deserialize("mish") is keras.activations.mish
    config = {"module": "keras.activations", "class_name": "function", "config": "celu",
              "registered_name": "celu"}
    assert keras.activations.deserialize(config) is keras.activations.celu
    assert keras.activations.get(config) is keras.activations.celu
    with pytest.raises(ValueError, match="axis size must be divisible by 2"):
        keras.activations.glu(tf.ones((2, 3)))


def test_sparsemax_is_keras_and_mish_second_order():
    # Keras 3.15 (TF 2.21) gives [[0, 0.05000007, 0, 0]] here: its tau sums the cumulative
    # sums over the support (its rows need not sum to 1); tapeflow follows Keras's numbers.
    x = tf.constant([[0.1, 1.2, -0.3, 0.9]])
    y = keras.activations.sparsemax(x)
    np.testing.assert_allclose(y.numpy(), [[0.0, 0.05000007, 0.0, 0.0]], atol=1e-7)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            z = tf.reduce_sum(keras.activations.mish(x) ** 2)
        g = inner.gradient(z, x)
    assert outer.gradient(g, x) is not None
