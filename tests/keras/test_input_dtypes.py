"""Model inputs take their Input's dtype before any layer sees them, as in Keras 3 (recorded
by tools/record_keras_input_dtypes.py): floats truncate into an integer Input, float32 data
rounds in a float16 Input, float64 stays exact in a float64 one (but `predict`'s adapter
makes float64 arrays float32 first)."""

import json
import os

import numpy as np
import pytest

from tapeflow import keras

from _input_dtype_cases import cases

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "input_dtypes.json")
RECORD = json.load(open(FIXTURE))["cases"]
CASES = cases(keras)


@pytest.mark.parametrize("name", sorted(RECORD))
def test_model_inputs_take_their_input_dtype_as_keras(name):
    build, x = CASES[name]
    want = RECORD[name]
    model = build()
    called = np.asarray(model(x))
    assert str(called.dtype) == want["call_dtype"]
    np.testing.assert_array_equal(called, np.array(want["call"], want["call_dtype"]))
    predicted = np.asarray(model.predict(x, verbose=0))
    assert str(predicted.dtype) == want["predict_dtype"]
    np.testing.assert_array_equal(predicted, np.array(want["predict"], want["predict_dtype"]))
