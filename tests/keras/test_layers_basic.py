"""Activation, merge, 1-D/2-D pooling, noise and core layers against Keras 3's numbers
(tests/keras/fixtures/layers_basic.*, recorded by tools/record_keras_layers_basic.py):
outputs and the Keras masks they carry, gradients with respect to every input and weight,
weights as made after set_random_seed, seeded noise draws, configs and their round trip,
weight paths and errors."""

import copy
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers.layer import get_keras_mask, set_keras_mask
from tapeflow.keras.saving import serialize_keras_object

L = keras.layers
HERE = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(HERE, "layers_basic.json")))
ARRAYS = np.load(os.path.join(HERE, "layers_basic.npz"))
MASKS = {k: np.array(v, bool) for k, v in META["masks"].items()}
TOL = dict(rtol=2e-5, atol=2e-6)


def _attach_masks(case, xts):
    for t, name in zip(xts, case["options"].get("masks") or []):
        if name is not None:
            set_keras_mask(t, tf.constant(MASKS[name]))


def _call(layer, call, xs, kw):
    return layer(xs[0], **kw) if call == "x" else layer(list(xs), **kw)


def _n(prefix, kind):
    return len([k for k in ARRAYS.files if k.startswith(f"{prefix}/{kind}")])


def _first_call(name):
    """The case's layer made and called once, as the recorder did (builds it)."""
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    xts = [tf.constant(ARRAYS[f"{name}/x{i}"]) for i in range(len(case["shapes"]))]
    kw = dict(case["kwargs"])
    if case["options"].get("training"):
        kw["training"] = True
    _attach_masks(case, xts)
    _call(layer, case["call"], xts, kw)
    return case, layer, xts, kw


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xts, kw = _first_call(name)
    assert [w.path for w in layer.weights] == case["paths"]
    assert len(layer.trainable_weights) == case["n_trainable"]
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(_n(name, "w"))])
    with tf.GradientTape() as tape:
        for t in xts:
            tape.watch(t)
        _attach_masks(case, xts)
        outputs = tf.nest.flatten(_call(layer, case["call"], xts, kw))
        cots = [ARRAYS[f"{name}/cot{i}"] for i in range(len(outputs))]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    assert len(outputs) == case["n_outputs"]
    for i, o in enumerate(outputs):
        np.testing.assert_allclose(o.numpy(), ARRAYS[f"{name}/out{i}"], **TOL,
                                   err_msg=f"{name} output {i}")
        mask = get_keras_mask(o)
        if f"{name}/outmask{i}" in ARRAYS.files:
            assert mask is not None, f"{name}: Keras's output {i} carries a mask"
            np.testing.assert_array_equal(mask.numpy(), ARRAYS[f"{name}/outmask{i}"])
        else:
            assert mask is None, f"{name}: Keras's output {i} carries no mask"
    grads = tape.gradient(loss, xts + list(layer.trainable_weights))
    for i, g in enumerate(grads):
        expected = ARRAYS[f"{name}/grad{i}"]
        got = np.zeros(()) if g is None else tf.convert_to_tensor(g).numpy()
        np.testing.assert_allclose(got, expected, **TOL, err_msg=f"{name} gradient {i}")


@pytest.mark.parametrize("name", sorted(n for n in META["cases"] if _n(n, "init")))
def test_initial_weights_match_keras(name):
    """After keras.utils.set_random_seed(0) the weights are Keras's, draw for draw."""
    _, layer, _, _ = _first_call(name)
    for i, w in enumerate(layer.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{name}/init{i}"], rtol=1e-6,
                                   atol=1e-7, err_msg=f"{name} weight {w.path}")


# Keras 3.15-only config entries holding their 'off' value (tapeflow's layers and initializers
# do not take them; loading drops them).
_KERAS_ONLY = {"input_axes": None, "output_axes": None, "quantization_config": None,
               "renorm": False, "renorm_clipping": None, "renorm_momentum": 0.99}


def _without_keras_only(config):
    if isinstance(config, dict):
        return {k: _without_keras_only(v) for k, v in config.items()
                if not (k in _KERAS_ONLY and v == _KERAS_ONLY[k])}
    if isinstance(config, list):
        return [_without_keras_only(v) for v in config]
    return config


def _accepted(config):
    """Keras's config less the renorm entries tapeflow's BatchNormalization does not take
    yet (keras/layers/normalization.py)."""
    return {k: v for k, v in copy.deepcopy(config).items() if not k.startswith("renorm")}


def _serialized(layer):
    return json.loads(json.dumps(serialize_keras_object(layer)["config"]))


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer, xts, kw = _first_call(name)
    config = _serialized(layer)
    assert config == _without_keras_only(case["config"])
    clone = type(layer).from_config(layer.get_config())
    _call(clone, case["call"], xts, kw)
    assert _serialized(clone) == config
    from_keras = type(layer).from_config(_accepted(case["config"]))  # Keras's own config
    _call(from_keras, case["call"], xts, kw)
    assert _serialized(from_keras) == config


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    error = META["errors"][name]
    keras.backend.clear_session()
    with pytest.raises(Exception) as info:
        eval(error["code"])  # noqa: S307
    assert type(info.value).__name__ == error["class"]
    assert str(info.value) == error["message"]
