"""Keras masks pass through the layers Keras 3 marks `supports_masking` (Dense, Dropout,
BatchNormalization, LayerNormalization) to the loss, and BatchNormalization's training
moments skip masked steps. The losses are Keras 3.15's (TF 2.21) for the same program."""

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers
X = np.array([[1, 2, 0, 0], [3, 1, 2, 0]])   # zeros: masked by Embedding(mask_zero=True)
Y = np.random.RandomState(0).rand(2, 4, 1).astype("float32")
HEADS = {"dense": lambda: [L.Dense(1)],
         "dropout": lambda: [L.Dropout(0.5), L.Dense(1)],
         "layer_norm": lambda: [L.LayerNormalization(), L.Dense(1)],
         "batch_norm": lambda: [L.BatchNormalization(), L.Dense(1)]}
# head -> (evaluate's loss, fit's two epoch losses), Keras 3.15's.
KERAS = {"dense": (0.323423, [0.323423, 0.306348]),
         "dropout": (0.363488, [0.396441, 0.357068]),
         "layer_norm": (0.541203, [0.541203, 0.299911]),
         "batch_norm": (0.323421, [1.18995, 2.408196])}


@pytest.mark.parametrize("head", sorted(HEADS))
def test_losses_of_a_masked_sequence_are_keras(head):
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Embedding(5, 3, mask_zero=True)]
                                + HEADS[head]())
    model.compile("sgd", "mse")
    loss, epochs = KERAS[head]
    assert model.evaluate(X, Y, verbose=0) == pytest.approx(loss, abs=2e-6)
    np.testing.assert_allclose(model.fit(X, Y, epochs=2, verbose=0).history["loss"], epochs,
                               atol=2e-6)


def test_layers_that_pass_masks_on_as_keras():
    for layer in (L.Dense(2), L.Dropout(0.1), L.SpatialDropout1D(0.1), L.BatchNormalization(),
                  L.LayerNormalization()):
        assert layer.supports_masking, type(layer).__name__


def test_batch_norm_refuses_a_mask_of_the_inputs_rank():
    with pytest.raises(ValueError, match="The mask provided should be one dimension less"):
        L.BatchNormalization()(tf.ones([2, 3]), training=True, mask=tf.ones([2, 3], tf.bool))
