"""Convolution and pooling layers against Keras 3's numbers (tests/keras/fixtures/conv_more.*,
recorded by tools/record_keras_conv_more.py): Conv3D, the transposed, depthwise and
separable convolutions, groups, channels_first, the 3-D pools; outputs, gradients with
respect to the input and every weight, configs and their round trip, weight paths, and the
errors Keras raises."""

import copy
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.saving import serialize_keras_object

L = keras.layers
HERE = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(HERE, "conv_more.json")))
ARRAYS = np.load(os.path.join(HERE, "conv_more.npz"))
TOL = dict(rtol=2e-5, atol=2e-5)
_KERAS_ONLY = {"input_axes": None, "output_axes": None, "quantization_config": None}


def _without_keras_only(config):
    if isinstance(config, dict):
        return {k: _without_keras_only(v) for k, v in config.items()
                if not (k in _KERAS_ONLY and v is None)}
    if isinstance(config, list):
        return [_without_keras_only(v) for v in config]
    return config


def _layer(name):
    keras.backend.clear_session()
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    layer.build(tuple(case["shape"]))
    n = len([k for k in ARRAYS.files if k.startswith(f"{name}/w")])
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(n)])
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


def _serialized(layer):
    return json.loads(json.dumps(serialize_keras_object(layer)["config"]))


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer = _layer(name)
    config = _serialized(layer)
    assert config == _without_keras_only(case["config"])
    clone = type(layer).from_config(layer.get_config())
    assert _serialized(clone) == config
    from_keras = type(layer).from_config(copy.deepcopy(case["config"]))
    assert _serialized(from_keras) == config


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    case = META["errors"][name]
    keras.backend.clear_session()
    with pytest.raises(Exception) as info:
        layer = eval(case["expr"])  # noqa: S307
        if case["shape"] is not None:
            layer(tf.zeros(case["shape"]))
    assert type(info.value).__name__ == case["class"]
    assert str(info.value) == case["message"]


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
