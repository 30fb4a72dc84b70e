"""Attention, activation, reshaping, noise and normalization layers against Keras 3's numbers
(tests/keras/fixtures/layers_more.*, recorded by tools/record_keras_layers_more.py): outputs,
gradients with respect to every input and weight, weights as made after set_random_seed,
configs and their round trip, weight paths, masks, errors, and a transformer block's
outputs, gradients and summary text."""

import copy
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers.layer import set_keras_mask
from tapeflow.keras.saving import serialize_keras_object

L = keras.layers
HERE = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(HERE, "layers_more.json")))
ARRAYS = np.load(os.path.join(HERE, "layers_more.npz"))
MASKS = {k: np.array(v, bool) for k, v in META["masks"].items()}
TOL = dict(rtol=2e-5, atol=2e-6)


def _masks_for(shapes):
    return [MASKS["query"][:, :shapes[0][1]], MASKS["value"][:, :shapes[1][1]]]


def _call_kwargs(case):
    kw, options, shapes = dict(case["kwargs"]), case["options"], case["shapes"]
    if options.get("training"):
        kw["training"] = True
    if options.get("mask"):
        kw["mask"] = tf.constant(MASKS["softmax"])
    if options.get("masks"):
        kw["mask"] = [tf.constant(m) for m in _masks_for(shapes)]
    if options.get("attention_mask"):
        kw["attention_mask"] = tf.constant(
            MASKS["attention"][:, :shapes[0][1], :shapes[1][1]])
    if options.get("value_mask"):
        kw["value_mask"] = tf.constant(_masks_for(shapes)[1])
    return kw


def _call(layer, call, xs, kw):
    if call == "x":
        return layer(xs[0], **kw)
    if call == "list":
        return layer(list(xs), **kw)
    return layer(*xs, **kw)


def _attach_masks(case, xts):
    if case["options"].get("keras_masks"):
        for t, m in zip(xts, _masks_for(case["shapes"])):
            set_keras_mask(t, tf.constant(m))


def _n(prefix, kind):
    return len([k for k in ARRAYS.files if k.startswith(f"{prefix}/{kind}")])


def _first_call(name):
    """The case's layer made and called once, as the recorder did (builds it)."""
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    xts = [tf.constant(ARRAYS[f"{name}/x{i}"]) for i in range(len(case["shapes"]))]
    kw = _call_kwargs(case)
    _attach_masks(case, xts)
    _call(layer, case["call"], xts, kw)
    return case, layer, xts, kw


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xts, kw = _first_call(name)
    assert [w.path for w in layer.weights] == case["paths"]
    assert len(layer.trainable_weights) == case["n_trainable"]
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(_n(name, "w"))])
    _attach_masks(case, xts)
    with tf.GradientTape() as tape:
        for t in xts:
            tape.watch(t)
        outputs = tf.nest.flatten(_call(layer, case["call"], xts, kw))
        cots = [ARRAYS[f"{name}/cot{i}"] for i in range(len(outputs))]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    assert len(outputs) == case["n_outputs"]
    for i, o in enumerate(outputs):
        np.testing.assert_allclose(o.numpy(), ARRAYS[f"{name}/out{i}"], **TOL,
                                   err_msg=f"{name} output {i}")
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


# Keras 3.15-only entries that hold their 'off' value (tapeflow's initializers do not take
# them; loading drops them).
_KERAS_ONLY = {"input_axes": None, "output_axes": None}


def _without_keras_only(config):
    if isinstance(config, dict):
        return {k: _without_keras_only(v) for k, v in config.items()
                if not (k in _KERAS_ONLY and v is None)}
    if isinstance(config, list):
        return [_without_keras_only(v) for v in config]
    return config


def _serialized(layer):
    return json.loads(json.dumps(serialize_keras_object(layer)["config"]))


@pytest.mark.parametrize("name", sorted(n for n in META["cases"]
                                        if META["cases"][n]["config"] is not None))
def test_config_matches_keras_and_round_trips(name):
    case, layer, xts, kw = _first_call(name)
    config = _serialized(layer)
    assert config == _without_keras_only(case["config"])
    clone = type(layer).from_config(layer.get_config())
    _call(clone, case["call"], xts, kw)
    assert _serialized(clone) == config
    from_keras = type(layer).from_config(copy.deepcopy(case["config"]))  # Keras's own config
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


def _model():
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    scope = {"L": L, "keras": keras}
    exec(META["model"]["code"], scope)  # noqa: S102 - the fixture's model
    return scope["model"]


def test_transformer_block_matches_keras():
    """Embedding(mask_zero=True) -> MultiHeadAttention -> Add -> LayerNormalization -> Dense:
    the padding mask reaches the attention (masked query rows average the values, as Keras's
    dot_product_attention path), weights, outputs and gradients as Keras."""
    model = _model()
    assert [w.path for w in model.weights] == META["model"]["paths"]
    model.set_weights([ARRAYS[f"model/w{i}"] for i in range(_n("model", "w"))])
    with tf.GradientTape() as tape:
        out = model(tf.constant(np.array(META["model"]["ids"], np.int32)))
        loss = tf.reduce_sum(out * ARRAYS["model/cot0"])
    np.testing.assert_allclose(out.numpy(), ARRAYS["model/out0"], **TOL)
    for i, g in enumerate(tape.gradient(loss, model.trainable_weights)):
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), ARRAYS[f"model/grad{i}"],
                                   **TOL, err_msg=f"gradient {i}")


def test_transformer_block_summary_matches_keras():
    lines = []
    _model().summary(print_fn=lambda line, **_: lines.append(line))
    assert "\n".join(lines) == META["model"]["summary"]
