"""keras.layers.GaussianNoise and GaussianDropout: after keras.utils.set_random_seed(11), the
numbers Keras 3.15 on TensorFlow 2.21 gives (hard-coded below: the first row of two training
calls on X), the identity at inference, and Keras's config and errors."""

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras
X = (np.arange(12, dtype="float64").reshape(3, 4) / 4 - 1).astype("float32")

# Keras 3.15 / TF 2.21's answers: the first row of each of two calls with training=True.
CASES = [
    (lambda: keras.layers.GaussianNoise(0.3), "float32",
     [[-0.641623854637146, -0.6094536185264587, -0.2463299036026001, -0.3973473906517029],
      [-0.9486334919929504, -0.05918508768081665, -0.7090115547180176, 0.13196271657943726]]),
    (lambda: keras.layers.GaussianNoise(0.3, seed=7), "float32",
     [[-1.2022517919540405, -0.8576077818870544, -1.0638744831085205, -0.6918679475784302],
      [-1.2000555992126465, -1.4840524196624756, -0.7089611291885376, 0.0726747214794159]]),
    (lambda: keras.layers.GaussianDropout(0.4), "float32",
     [[-1.9753763675689697, -1.0368890762329102, -0.8452012538909912, -0.14974279701709747],
      [-1.1398018598556519, -2.1601200103759766, -0.2155713140964508, -0.5098927021026611]]),
    (lambda: keras.layers.GaussianDropout(0.4, seed=7), "float32",
     [[-0.4495401978492737, -0.5303465723991394, 0.26733601093292236, 0.05065307021141052],
      [-0.45551782846450806, 0.748378336429596, -0.2156398892402649, -0.46955233812332153]]),
    (lambda: keras.layers.GaussianNoise(0.5, dtype="float16"), "float16",
     [[-0.40283203125, -0.515625, -0.0771484375, -0.49560546875],
      [-0.91455078125, 0.4013671875, -0.8486328125, 0.38671875]]),
    (lambda: keras.layers.GaussianDropout(0.25, seed=3, dtype="float64"), "float64",
     [[-1.6139258462502262, -0.7262492087029503, -0.5704944927536619, -0.42574903404661235],
      [-0.8483423522623782, -0.2764915908910752, 0.28082380266624474, -0.13540757011915794]]),
]


@pytest.mark.parametrize("make, dtype, rows", CASES)
def test_training_draws_keras_numbers(make, dtype, rows):
    keras.utils.set_random_seed(11)
    layer = make()
    for row in rows:   # each call moves the layer's seed generator on
        out = layer(X, training=True)
        assert out.dtype.name == dtype and out.shape == X.shape
        if dtype == "float64":   # float64 normals may differ from TF's in the last bit
            np.testing.assert_allclose(out.numpy()[0], row, rtol=1e-15)
        else:
            np.testing.assert_array_equal(out.numpy()[0], np.array(row, dtype))


def test_in_a_model_and_at_inference():
    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((4,)), keras.layers.GaussianNoise(0.2),
                              keras.layers.GaussianDropout(0.3)])
    # Keras 3.15 / TF 2.21: the first six outputs of a training call.
    np.testing.assert_array_equal(model(X, training=True).numpy().reshape(-1)[:6], np.array(
        [-0.5341454744338989, -0.8570196628570557, -0.475375771522522, -0.21503837406635284,
         -0.5813447833061218, 0.8768150806427002], np.float32))
    np.testing.assert_array_equal(model(X).numpy(), X)
    for layer in model.layers:
        np.testing.assert_array_equal(layer(X, training=False).numpy(), X)


def test_zero_strength_is_the_identity_without_a_generator():
    for layer in (keras.layers.GaussianNoise(0.0), keras.layers.GaussianDropout(0.0)):
        assert not hasattr(layer, "seed_generator")
        np.testing.assert_array_equal(layer(X, training=True).numpy(), X)


@pytest.mark.parametrize("make, key, value", [
    (lambda: keras.layers.GaussianNoise(0.3, seed=7, name="gn"), "stddev", 0.3),
    (lambda: keras.layers.GaussianDropout(0.4, name="gd"), "rate", 0.4),
])
def test_config_round_trips(make, key, value):
    layer = make()
    config = layer.get_config()
    assert config[key] == value and config["seed"] == layer.seed
    assert config["name"] == layer.name and config["trainable"] is True
    clone = type(layer).from_config(config)
    assert clone.get_config() == config


@pytest.mark.parametrize("make, message", [
    (lambda: keras.layers.GaussianNoise(1.5), "Invalid value received for argument `stddev`. "
     "Expected a float value between 0 and 1. Received: stddev=1.5"),
    (lambda: keras.layers.GaussianDropout(-0.1), "Invalid value received for argument "
     "`rate`. Expected a float value between 0 and 1. Received: rate=-0.1"),
    (lambda: keras.layers.GaussianNoise(0.1, seed=1.5),
     "Argument `seed` must be an integer. Received: seed=1.5"),
])
def test_errors(make, message):
    # Keras 3.15's ValueErrors.
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message
