"""Flatten, Reshape and Concatenate keep SparseTensors sparse, as Keras 3
(tools/record_keras_behaviour.py): the same indices, values and shapes; the elementwise
merges refuse them clearly."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf

from _sparse_layer_cases import record

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "sparse_layers.json")
KERAS = json.load(open(FIXTURE))["record"]


@pytest.fixture(scope="module")
def seen():
    return record(tf)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_sparse_inputs_stay_sparse_as_keras(seen, name):
    assert seen[name] == KERAS[name]


def test_elementwise_merges_of_sparse_inputs_refuse_clearly():
    sp = tf.sparse.from_dense(np.eye(2, dtype="float32"))
    with pytest.raises(NotImplementedError, match="Add layer does not take SparseTensor"):
        tf.keras.layers.Add()([sp, sp])
