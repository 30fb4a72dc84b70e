"""Keras 3 behaviours checked against Keras 3.15 (TF backend); the hard-coded numbers are
Keras's answers, recorded from runs of the same programs in Keras."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def _sigmoid_model():
    m = keras.Sequential([keras.Input((2,)),
                          keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")])
    m.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    return m


X2 = np.array([[1., 1.], [2., 2.]], "float32")
ONES, ZEROS = np.ones((2, 1), "float32"), np.zeros((2, 1), "float32")


def test_train_on_batch_reports_its_own_batch():
    # Keras 3 resets the metrics at each train_on_batch/test_on_batch call.
    m = _sigmoid_model()
    np.testing.assert_allclose(m.train_on_batch(X2, ONES), [0.07253896445035934, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.train_on_batch(X2, ZEROS), [3.075385570526123, 0.0], rtol=1e-6)
    logs = m.train_on_batch(X2, ONES, return_dict=True)
    assert list(logs) == ["accuracy", "loss"]
    np.testing.assert_allclose(logs["loss"], 0.07526902109384537, rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ONES), [0.07508876919746399, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ZEROS), [3.029237985610962, 0.0], rtol=1e-6)
    assert m.test_on_batch(X2, ZEROS, return_dict=True)["accuracy"] == 0.0
    p = m.predict_on_batch(X2)
    assert isinstance(p, np.ndarray) and p.dtype == np.float32 and p.shape == (2, 1)


def test_train_on_batch_class_and_sample_weight_message():
    m = _sigmoid_model()
    with pytest.raises(ValueError, match="Arguments `sample_weight` and `class_weight` cannot"):
        m.train_on_batch(X2, ONES, sample_weight=np.ones(2), class_weight={0: 1.0})


def _frozen_dense(when):
    d = keras.layers.Dense(2, kernel_initializer="ones", trainable=(when != "constructor"))
    d.build((None, 3))
    if when == "after_build":
        d.trainable = False
    return d


@pytest.mark.parametrize("when", ["constructor", "after_build"])
def test_frozen_layer_kernel_still_has_a_gradient(when):
    # Keras 3 (TF backend): the wrapped tf.Variable stays trainable=True, so the tape watches
    # a frozen kernel; only the KerasVariable's flag and trainable_weights change.
    d = _frozen_dense(when)
    assert d.kernel.trainable is False and d.bias.trainable is False
    assert d.trainable_weights == [] and len(d.non_trainable_weights) == 2
    x = np.array([[1., 2., 3.]], "float32")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d(x))
    gk, gb = tape.gradient(y, [d.kernel, d.bias])
    np.testing.assert_array_equal(gk, [[1., 1.], [2., 2.], [3., 3.]])
    np.testing.assert_array_equal(gb, [1., 1.])
    d.trainable = True
    assert d.kernel.trainable is True and len(d.trainable_weights) == 2


def test_non_trainable_add_weight_is_not_watched():
    # Keras 3: add_weight(trainable=False) makes a non-trainable tf.Variable: gradient None.
    class Scale(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(3,), initializer="ones", trainable=False, name="w")

        def call(self, x):
            return x * self.w

    layer = Scale()
    layer.build((None, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(np.ones((1, 3), "float32")))
    assert tape.gradient(y, layer.w) is None
    layer.trainable = True  # unfreezing the layer does not make such a weight trainable
    assert layer.w.trainable is False


def test_fit_leaves_a_frozen_layer_alone():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones"),
                          keras.layers.Dense(1, kernel_initializer="ones")])
    m.layers[0].trainable = False
    m.compile(keras.optimizers.SGD(0.1), "mse")
    h = m.fit(np.array([[1., 2., 3.]], "float32"), np.array([[1.]], "float32"), epochs=2,
              verbose=0)
    np.testing.assert_allclose(h.history["loss"], [121.0, 22380.158203125], rtol=1e-6)
    np.testing.assert_array_equal(m.layers[0].kernel.numpy(), np.ones((3, 2)))
    np.testing.assert_allclose(m.layers[1].kernel.numpy(), [[167.32000732421875]] * 2,
                               rtol=1e-6)
    assert len(m.trainable_variables) == 2 and len(m.non_trainable_variables) == 2


def test_frozen_batch_normalization_runs_in_inference_mode():
    xb = np.array([[1., 2.], [3., 6.]], "float32")
    bn = keras.layers.BatchNormalization(trainable=False)
    np.testing.assert_allclose(bn(xb, training=True),
                               [[0.9995003938674927, 1.9990007877349854],
                                [2.9985013008117676, 5.997002601623535]], rtol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [0., 0.])
    assert len(bn.trainable_weights) == 0 and len(bn.non_trainable_weights) == 4
    bn = keras.layers.BatchNormalization()
    bn(xb, training=True)
    bn(xb, training=True)
    bn.trainable = False
    np.testing.assert_allclose(bn(xb, training=True),
                               [[0.959720253944397, 1.8646416664123535],
                                [2.958721160888672, 5.748502731323242]], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.0398, 0.0796], rtol=1e-6)
