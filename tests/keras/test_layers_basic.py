"""Activation, merge, 1-D/2-D pooling, noise and core layers against Keras 3's numbers
(tests/keras/fixtures/layers_basic.*, recorded by tools/record_keras_layers_basic.py):
outputs and the Keras masks they carry, gradients with respect to every input and weight,
weights as made after set_random_seed, seeded noise draws, configs and their round trip,
weight paths and errors."""

import copy

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers.layer import get_keras_mask, set_keras_mask

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("layers_basic")
MASKS = {k: np.array(v, bool) for k, v in META["masks"].items()}
TOL = dict(rtol=2e-5, atol=2e-6)


def _attach_masks(case, xts):
    for t, name in zip(xts, case["options"].get("masks") or []):
        if name is not None:
            set_keras_mask(t, tf.constant(MASKS[name]))


def _call(layer, call, xs, kw):
    return layer(xs[0], **kw) if call == "x" else layer(list(xs), **kw)


def _first_call(name):
    """The case's layer made and called once, as the recorder did (builds it)."""
    case, layer, xts = fc.seeded_case(META, ARRAYS, name, globals())
    kw = dict(case["kwargs"])
    if case["options"].get("training"):
        kw["training"] = True
    _attach_masks(case, xts)
    _call(layer, case["call"], xts, kw)
    return case, layer, xts, kw


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xts, kw = _first_call(name)

    def call():
        _attach_masks(case, xts)
        return _call(layer, case["call"], xts, kw)

    outputs = fc.check_layer_case(ARRAYS, name, case, layer, xts, call, TOL)
    for i, o in enumerate(outputs):
        mask = get_keras_mask(o)
        if f"{name}/outmask{i}" in ARRAYS.files:
            assert mask is not None, f"{name}: Keras's output {i} carries a mask"
            np.testing.assert_array_equal(mask.numpy(), ARRAYS[f"{name}/outmask{i}"])
        else:
            assert mask is None, f"{name}: Keras's output {i} carries no mask"


@pytest.mark.parametrize("name", sorted(n for n in META["cases"]
                                        if fc.count(ARRAYS, n, "init")))
def test_initial_weights_match_keras(name):
    """After keras.utils.set_random_seed(0) the weights are Keras's, draw for draw."""
    _, layer, _, _ = _first_call(name)
    fc.assert_initial_weights_match(ARRAYS, name, layer)


# Keras 3.15-only config entries holding their 'off' value (tapeflow's layers and initializers
# do not take them; loading drops them).
_KERAS_ONLY: dict = {}


def _accepted(config):
    """Keras's config less the renorm entries tapeflow's BatchNormalization does not take
    yet (keras/layers/normalization.py)."""
    return {k: v for k, v in copy.deepcopy(config).items() if not k.startswith("renorm")}


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer, xts, kw = _first_call(name)
    fc.assert_config_round_trips(layer, case["config"], _KERAS_ONLY,
                                 lambda clone: _call(clone, case["call"], xts, kw),
                                 loadable=_accepted(case["config"]))


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    error = META["errors"][name]
    fc.assert_raises_as_keras(error, lambda: eval(error["code"]))  # noqa: S307
