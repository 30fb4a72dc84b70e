"""keras.layers: building, weights, names, training mode, and values checked against
Keras 3 (TF 2.21) with the same weights."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import layers


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = layers.Dense(3, activation="relu")
        self.blocks = [layers.Dense(2), layers.Dense(2)]
        self.bn = layers.BatchNormalization()
        self.drop = layers.Dropout(0.5)

    def call(self, x, training=False):
        h = self.d1(x)
        for b in self.blocks:
            h = b(h)
        h = self.drop(h, training=training)
        return self.bn(h, training=training)


X = np.arange(12, dtype="float32").reshape(4, 3) / 10


def test_layer_builds_on_first_call_and_names_weights_like_keras():
    d = layers.Dense(2, kernel_initializer="ones")
    assert not d.built and d.name == "dense"
    y = d(np.ones((1, 3)))  # float64 input is cast to the layer's float32
    assert d.built and y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), [[3.0, 3.0]])
    assert [w.name for w in d.weights] == ["kernel", "bias"]
    assert [w.path for w in d.weights] == ["dense/kernel", "dense/bias"]
    assert d.kernel.shape == (3, 2) and d.count_params() == 8
    assert layers.Dense(1).name == "dense_1"
    assert layers.Conv2D(1, 3).name == "conv2d"
    assert layers.BatchNormalization().name == "batch_normalization"


def test_subclassed_model_tracks_attribute_layers_in_order():
    m = Net()
    m(X)
    assert m.name == "net"
    assert [l.name for l in m.layers] == ["dense", "dense_1", "dense_2",
                                          "batch_normalization", "dropout"]
    assert (len(m.weights), len(m.trainable_weights), len(m.non_trainable_weights)) == (10, 8, 2)
    assert [w.path for w in m.weights][:2] == ["net/dense/kernel", "net/dense/bias"]
    assert m.weights[-1].path == "net/batch_normalization/moving_variance"


def test_values_and_batchnorm_statistics_match_keras():
    m = Net()
    m(X)
    m.set_weights([np.full(w.shape, 0.1, "float32") for w in m.weights])
    # Keras 3 output for the same weights (inference: moving statistics).
    np.testing.assert_allclose(m(X, training=False).numpy().ravel(),
                               np.repeat([0.10875, 0.11045, 0.11215, 0.11384], 2), atol=1e-5)
    y = m.bn(np.ones((2, 2), "float32") * 3, training=True)
    np.testing.assert_allclose(y.numpy(), 0.1)  # batch stats: x - mean = 0, plus beta
    # moving = 0.99 * moving + 0.01 * batch
    np.testing.assert_allclose(m.bn.moving_mean.numpy(), [0.129, 0.129], rtol=1e-6)
    np.testing.assert_allclose(m.bn.moving_variance.numpy(), [0.099, 0.099], rtol=1e-6)


def test_trainable_false_freezes_weights_and_batchnorm_runs_in_inference():
    m = Net()
    m(X)
    m.set_weights([np.full(w.shape, 0.1, "float32") for w in m.weights])
    m.bn(np.ones((2, 2), "float32") * 3, training=True)  # moving stats -> 0.129, 0.099
    m.bn.trainable = False
    assert (len(m.trainable_weights), len(m.non_trainable_weights)) == (6, 4)
    assert [w.trainable for w in m.bn.weights] == [False] * 4
    y = m.bn(np.ones((2, 2), "float32") * 3, training=True)
    np.testing.assert_allclose(y.numpy(), 1.00789, rtol=1e-5)
    m.trainable = False
    assert m.trainable_weights == [] and not m.d1.trainable
    with tf.GradientTape() as tape:  # Keras 3 (TF): frozen weights are still watched,
        tf.reduce_sum(m(X))          # only those created non-trainable are not
    assert [v.name for v in tape.watched_variables()] == ["kernel", "bias"] * 3 + ["gamma",
                                                                                  "beta"]


def test_training_flag_reaches_nested_layers():
    drop = layers.Dropout(0.5)
    outer = keras.Sequential([layers.Lambda(lambda t: t), drop])
    x = np.ones((50, 40), "float32")
    np.testing.assert_array_equal(outer(x).numpy(), x)  # inference: identity
    y = outer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.3 < (y == 0).mean() < 0.7


def test_gradients_flow_to_layer_weights():
    d = layers.Dense(2, kernel_initializer="ones")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(d(x) ** 2)
    gk, gb = tape.gradient(loss, d.trainable_variables)
    # d loss / d kernel = x^T * 2 y, y = 6
    np.testing.assert_allclose(gk.numpy(), [[12, 12], [24, 24], [36, 36]])
    np.testing.assert_allclose(gb.numpy(), [12, 12])


def test_layer_normalization_matches_keras():
    ln = layers.LayerNormalization()
    y = ln(np.array([[1.0, 2.0, 4.0]], "float32"))
    np.testing.assert_allclose(y.numpy(), [[-1.0687, -0.26718, 1.33588]], atol=1e-4)
    assert [w.name for w in ln.weights] == ["gamma", "beta"]


def test_shapes_of_shape_layers():
    e = layers.Embedding(5, 2, embeddings_initializer="ones")
    assert e(np.array([[1, 2]])).shape == (1, 2, 2) and e.weights[0].name == "embeddings"
    assert layers.Reshape((2, -1))(np.ones((3, 6), "float32")).shape == (3, 2, 3)
    assert layers.Flatten()(np.ones((3, 2, 2))).shape == (3, 4)
    assert layers.GlobalAveragePooling2D()(np.ones((2, 3, 3, 4))).shape == (2, 4)
    c1 = layers.Conv1D(4, 3, padding="same")
    assert c1(np.ones((2, 5, 3))).shape == (2, 5, 4) and c1.kernel.shape == (3, 3, 4)
    c2 = layers.Conv2D(4, 3, strides=2)
    assert c2(np.ones((2, 7, 7, 3))).shape == (2, 3, 3, 4)
    assert layers.MaxPooling2D()(np.ones((1, 5, 5, 2))).shape == (1, 2, 2, 2)
    assert layers.AveragePooling2D(3, padding="same")(np.ones((1, 5, 5, 2))).shape == \
        (1, 2, 2, 2)
    np.testing.assert_array_equal(layers.Lambda(lambda t: t * 2)(np.ones((1, 2))).numpy(),
                                  [[2.0, 2.0]])
    assert layers.Concatenate()([np.ones((2, 1)), np.ones((2, 3))]).shape == (2, 4)
    np.testing.assert_array_equal(layers.Add()([np.ones((1, 2)), np.ones((1, 2))]).numpy(),
                                  [[2.0, 2.0]])


def test_conv2d_layer_is_conv_plus_bias():
    conv = layers.Conv2D(2, (2, 2), activation="relu", bias_initializer="ones")
    x = np.random.default_rng(0).standard_normal((1, 4, 4, 3)).astype("float32")
    y = conv(x)
    expected = np.maximum(tf.nn.conv2d(x, conv.kernel, 1, "VALID").numpy() + 1.0, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)


def test_errors_match_keras():
    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments passed to Dense: "
                                         r"\{'foo': 1\}"):
        layers.Dense(2, foo=1)
    with pytest.raises(ValueError, match="isn't built"):
        layers.Dense(3).count_params()
    d = layers.Dense(2)
    d(np.ones((1, 3)))
    with pytest.raises(ValueError, match="with a weight list of length 1, but the layer was "
                                         "expecting 2 weights"):
        d.set_weights([np.ones((3, 2))])


def test_get_and_set_weights_round_trip():
    d = layers.Dense(2)
    d(np.ones((1, 3)))
    values = [np.arange(6, dtype="float32").reshape(3, 2), np.array([1, 2], "float32")]
    d.set_weights(values)
    for got, want in zip(d.get_weights(), values):
        np.testing.assert_array_equal(got, want)


def test_custom_layer_add_weight_and_training_argument():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="s")
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                         name="count")

        def call(self, x, training=None):
            return x * self.s * (2.0 if training else 1.0)

    layer = Scale()
    assert layer.name == "scale"
    np.testing.assert_array_equal(layer(np.ones((1, 2)), training=True).numpy(), [[2, 2]])
    assert [w.name for w in layer.trainable_weights] == ["s"]
    assert [w.name for w in layer.non_trainable_weights] == ["count"]


def test_variable_repr_like_keras():
    d = layers.Dense(1, kernel_initializer="ones")
    d(np.ones((1, 2)))
    assert repr(d.kernel) == ("<Variable path=dense/kernel, shape=(2, 1), dtype=float32, "
                              "value=[[1.]\n [1.]]>")
