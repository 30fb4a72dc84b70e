"""KerasTensor names as Keras 3 numbers them (tools/record_keras_behaviour.py): what
`print(model.output)` and `model.inputs` show."""

import json
import os

import pytest

from tapeflow import keras

from _keras_tensor_name_cases import record

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "keras_tensor_names.json")
KERAS = json.load(open(FIXTURE))["record"]


@pytest.fixture(scope="module")
def seen():
    return record(keras)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_keras_tensor_names_are_keras_names(seen, name):
    assert seen[name] == KERAS[name]


def test_sequential_has_no_inputs_before_it_is_built():
    model = keras.Sequential([keras.layers.Dense(2)], name="unbuilt")
    with pytest.raises(AttributeError, match="Sequential model 'unbuilt' has no defined "
                                             "inputs yet."):
        _ = model.inputs
    with pytest.raises(AttributeError, match="has no defined outputs yet."):
        _ = model.outputs
