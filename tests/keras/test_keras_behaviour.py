"""Keras 3 behaviour recorded as fixtures (tests/keras/_behaviour_fixtures.py): each cases
module's `record` runs on tapeflow and must show what it showed on Keras, case by case —
input dtypes, KerasTensor names, compiled metric names, keras.config settings and Flatten's
layouts, and layers on SparseTensors. Floats agree to float32 rounding (TensorFlow's float32
log is 1 ulp from NumPy's); everything else exactly."""

import importlib
import json
import math
import os

import numpy as np
import pytest

import tapeflow as tf

from _behaviour_fixtures import FIXTURES

HERE = os.path.dirname(__file__)


def _recorded(name: str) -> dict:
    with open(os.path.join(HERE, "fixtures", f"{name}.json")) as f:
        return json.load(f)["record"]


RECORDED = {name: _recorded(name) for name in FIXTURES}
_SEEN: dict = {}


def _seen(name: str) -> dict:
    """What the fixture's `record` shows on tapeflow (run once per fixture)."""
    if name not in _SEEN:
        module, takes_tf = FIXTURES[name]
        _SEEN[name] = importlib.import_module(module).record(tf if takes_tf else tf.keras)
    return _SEEN[name]


def _agree(got, want) -> bool:
    if isinstance(want, float) and isinstance(got, float):
        return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_agree(g, w) for g, w in zip(got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(_agree(got[k], want[k]) for k in want)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize("fixture, case", [(name, case) for name in FIXTURES
                                            for case in sorted(RECORDED[name])])
def test_tapeflow_shows_what_keras_showed(fixture, case):
    got, want = _seen(fixture)[case], RECORDED[fixture][case]
    assert _agree(got, want), (got, want)


def test_agreement_is_strict_about_types_and_values():
    assert not _agree([3.0004], [3.0]) and not _agree([6.0], [6]) and not _agree(["a"], ["b"])


def test_settings_are_restored_after_the_config_cases():
    _seen("keras_config")
    assert (tf.keras.config.epsilon(), tf.keras.config.image_data_format()) == (
        1e-7, "channels_last")


def test_merging_sparse_inputs_of_different_ranks_refuses_clearly():
    sp = tf.sparse.from_dense(np.eye(2, dtype="float32"))
    with pytest.raises(NotImplementedError, match="does not merge SparseTensors of different"):
        tf.keras.layers.Add()([sp, tf.sparse.expand_dims(sp, -1)])


@pytest.mark.parametrize("layer", [tf.keras.layers.Flatten(), tf.keras.layers.Reshape((6,))],
                         ids=["flatten", "reshape"])
def test_sparse_reshaping_layers_trace_with_an_unknown_batch(layer):
    sp = tf.sparse.from_dense(np.arange(12, dtype="float32").reshape(2, 3, 2))
    traced = tf.function(layer.__call__,
                         input_signature=[tf.SparseTensorSpec([None, 3, 2], tf.float32)])
    got = traced(sp)
    assert isinstance(got, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(got).numpy(),
                                  np.arange(12, dtype="float32").reshape(2, 6))
