"""Convolution and pooling layers against Keras 3's numbers (tests/keras/fixtures/conv_more.*,
recorded by tools/record_keras_conv_more.py): Conv3D, the transposed, depthwise and
separable convolutions, groups, channels_first, the 3-D pools; outputs, gradients with
respect to the input and every weight, configs and their round trip, weight paths, and the
errors Keras raises."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("conv_more")
TOL = dict(rtol=2e-5, atol=2e-5)
_KERAS_ONLY: dict = {}


def _layer(name):
    keras.backend.clear_session()
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    layer.build(tuple(case["shape"]))
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(fc.count(ARRAYS, name, "w"))])
    return case, layer


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer = _layer(name)
    assert [w.path for w in layer.weights] == case["paths"]
    x = tf.constant(ARRAYS[f"{name}/x"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x)
        loss = tf.reduce_sum(out * ARRAYS[f"{name}/cot"])
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    np.testing.assert_allclose(out.numpy(), ARRAYS[f"{name}/out"], **TOL)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), ARRAYS[f"{name}/grad{i}"], **TOL,
                                   err_msg=f"{name} gradient {i}")


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer = _layer(name)
    fc.assert_config_round_trips(layer, case["config"], _KERAS_ONLY, lambda clone: None)


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    case = META["errors"][name]

    def run():
        layer = eval(case["expr"])  # noqa: S307
        if case["shape"] is not None:
            layer(tf.zeros(case["shape"]))

    fc.assert_raises_as_keras(case, run)


def test_traced_and_functional_model_match_eager():
    """A functional model of the new layers gives the eager numbers, also under tf.function."""
    keras.utils.set_random_seed(0)
    inputs = keras.Input((4, 6, 6, 2))
    y = L.Conv3D(4, 3, padding="same", groups=2)(inputs)
    y = L.MaxPooling3D((1, 2, 2))(y)
    y = L.Conv3DTranspose(2, 2, strides=(1, 2, 2))(y)
    y = L.GlobalAveragePooling3D()(y)
    model = keras.Model(inputs, y)
    x = tf.constant(np.random.default_rng(0).uniform(-1, 1, (2, 4, 6, 6, 2)).astype("float32"))
    eager = model(x).numpy()
    assert eager.shape == (2, 2)
    np.testing.assert_allclose(tf.function(model)(x).numpy(), eager, rtol=1e-6, atol=1e-6)
