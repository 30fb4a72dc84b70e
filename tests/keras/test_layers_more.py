"""Attention, activation, reshaping, noise and normalization layers against Keras 3's numbers
(tests/keras/fixtures/layers_more.*, recorded by tools/record_keras_layers_more.py): outputs,
gradients with respect to every input and weight, weights as made after set_random_seed,
configs and their round trip, weight paths, masks, errors, and a transformer block's
outputs, gradients and summary text."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers.layer import set_keras_mask

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("layers_more")
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


def _first_call(name):
    """The case's layer made and called once, as the recorder did (builds it)."""
    case, layer, xts = fc.seeded_case(META, ARRAYS, name, globals())
    kw = _call_kwargs(case)
    _attach_masks(case, xts)
    _call(layer, case["call"], xts, kw)
    return case, layer, xts, kw


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xts, kw = _first_call(name)
    _attach_masks(case, xts)
    fc.check_layer_case(ARRAYS, name, case, layer, xts,
                        lambda: _call(layer, case["call"], xts, kw), TOL)


@pytest.mark.parametrize("name", sorted(n for n in META["cases"]
                                        if fc.count(ARRAYS, n, "init")))
def test_initial_weights_match_keras(name):
    """After keras.utils.set_random_seed(0) the weights are Keras's, draw for draw."""
    _, layer, _, _ = _first_call(name)
    fc.assert_initial_weights_match(ARRAYS, name, layer)


# Keras 3.15-only entries that hold their 'off' value (tapeflow's initializers do not take
# them; loading drops them).
_KERAS_ONLY: dict = {}


@pytest.mark.parametrize("name", sorted(n for n in META["cases"]
                                        if META["cases"][n]["config"] is not None))
def test_config_matches_keras_and_round_trips(name):
    case, layer, xts, kw = _first_call(name)
    fc.assert_config_round_trips(layer, case["config"], _KERAS_ONLY,
                                 lambda clone: _call(clone, case["call"], xts, kw))


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    error = META["errors"][name]
    fc.assert_raises_as_keras(error, lambda: eval(error["code"]))  # noqa: S307


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
    model.set_weights([ARRAYS[f"model/w{i}"] for i in range(fc.count(ARRAYS, "model", "w"))])
    x = tf.constant(np.array(META["model"]["ids"], np.int32))
    fc.assert_model_matches(ARRAYS, "model", model, x, TOL)


def test_transformer_block_summary_matches_keras():
    lines = []
    _model().summary(print_fn=lambda line, **_: lines.append(line))
    assert "\n".join(lines) == META["model"]["summary"]
