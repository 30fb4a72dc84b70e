"""Compiled metrics keep their own names; only the log keys change, as in Keras 3
(tools/record_keras_behaviour.py): history keys, metric objects, `metrics` and
`evaluate`'s list (where a repeated metric's value comes twice, as Keras's)."""

import json
import os

import pytest

from tapeflow import keras

from _metric_name_cases import record

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "metric_names.json")
WANT = json.load(open(FIXTURE))["record"]


@pytest.fixture(scope="module")
def got():
    return record(keras)


@pytest.mark.parametrize("model", ["single", "multi"])
def test_compiled_metric_names_are_keras_names(got, model):
    want = dict(WANT[model])
    have = dict(got[model])
    assert have.pop("evaluate") == pytest.approx(want.pop("evaluate"), rel=1e-4)
    assert have == want
