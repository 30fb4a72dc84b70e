"""Model inputs take their Input's dtype before any layer sees them, as in Keras 3 (recorded
by tools/record_keras_behaviour.py): floats truncate into an integer Input, float32 data
rounds in a float16 Input, float64 stays exact in a float64 one (but `predict`'s adapter
makes float64 arrays float32 first)."""

import json
import os

import pytest

from tapeflow import keras

from _input_dtype_cases import record

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "input_dtypes.json")
KERAS = json.load(open(FIXTURE))["record"]


@pytest.fixture(scope="module")
def seen():
    return record(keras)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_model_inputs_take_their_input_dtype_as_keras(seen, name):
    assert seen[name] == KERAS[name]
