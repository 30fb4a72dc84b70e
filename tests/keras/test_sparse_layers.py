"""Keras layers on SparseTensors as Keras 3 (tools/record_keras_behaviour.py): Flatten,
Reshape, Concatenate and the elementwise merges give the same kind of result, indices,
values and shapes."""

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


def test_merging_sparse_inputs_of_different_ranks_refuses_clearly():
    sp = tf.sparse.from_dense(np.eye(2, dtype="float32"))
    with pytest.raises(NotImplementedError, match="does not merge SparseTensors of different"):
        tf.keras.layers.Add()([sp, tf.sparse.expand_dims(sp, -1)])
