"""Cross-entropies of a Keras sigmoid or softmax activation's output are computed from its
logits, as Keras 3's TF backend does (`_keras_logits`), in `fit` and eagerly; of other
probabilities, clipped. Saturated outputs tell them apart: the numbers are Keras 3.15's
(TF 2.21) for the same programs."""

import numpy as np
import pytest

import tapeflow as tf

X = (np.random.RandomState(0).rand(16, 3).astype("float32") - 0.5) * 40
Y = (np.random.RandomState(1).rand(16, 1) > 0.5).astype("float32")


@pytest.mark.parametrize("activation, loss, target, keras_fit, keras_evaluate", [
    ("sigmoid", "binary_crossentropy", Y, [11.50769, 10.87337], 10.26454),
    ("softmax", "sparse_categorical_crossentropy", Y, [0.69315, 0.49317], 0.44786),
    ("softmax", "categorical_crossentropy", np.concatenate([Y, 1 - Y], 1),
     [0.69315, 0.49317], 0.44786)])
def test_fit_computes_cross_entropy_from_logits(activation, loss, target, keras_fit,
                                                keras_evaluate):
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(
        1 if activation == "sigmoid" else 2, activation=activation, kernel_initializer="ones")])
    model.compile("sgd", loss)
    history = model.fit(X, target, epochs=2, verbose=0, batch_size=16).history["loss"]
    np.testing.assert_allclose(history, keras_fit, atol=1e-5)
    assert model.evaluate(X, target, verbose=0) == pytest.approx(keras_evaluate, abs=1e-5)


def test_an_activations_output_keeps_its_logits_eagerly():
    p = tf.keras.activations.sigmoid(tf.constant([[30.0]]))
    assert tf.keras.losses.binary_crossentropy(tf.constant([[0.0]]), p).numpy().tolist() == [30.0]
    plain = tf.constant(p.numpy())   # the same probability, no logits: clipped at 1 - 1e-7
    assert float(tf.keras.losses.binary_crossentropy(tf.constant([[0.0]]), plain)[0]) == \
        pytest.approx(15.942385, abs=1e-5)
