"""`tf.shape` of a RaggedTensor, `tf.experimental.DynamicRaggedShape` and
`tf.experimental.RowPartition` against TensorFlow 2.21's printed answers
(tools/record_ragged_shape_fixtures.py): each recorded program, among them the section
"Ragged shapes" of TF's guide "Ragged tensors", runs on tapeflow and must print what TF
printed (values, dtypes, reprs, error classes and messages)."""

from __future__ import annotations

import json
import pathlib

import pytest

import tapeflow as tf
from test_ragged_fixtures import _printed  # the runner of the ragged fixtures

CASES = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                    "ragged_shape.json").read_text())["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_prints_what_tensorflow_prints(name):
    case = CASES[name]
    assert _printed(case["program"]) == case["printed"]


def test_shape_partitions_share_the_ragged_tensors_splits():
    # A view, not a copy: tf.shape(rt) costs no copy of the row splits.
    rt = tf.ragged.constant([[1], [2, 3]])
    assert tf.shape(rt, out_type=tf.int64).row_partitions[0]._splits is rt._splits


def test_zeros_of_a_misaligned_shape_raises():
    # TF builds a shape whose partitions do not align (validate=False); its values must not
    # be made silently.
    shape = tf.experimental.DynamicRaggedShape(
        [tf.experimental.RowPartition.from_row_lengths([5, 3, 2])], [11, 8])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.zeros(shape)


def test_gradient_flows_through_reshape_to_a_ragged_shape():
    x = tf.constant([1.0, 2.0, 3.0])
    shape = tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2)])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.reshape(x, shape).flat_values * tf.constant([1.0, 2.0, 3.0]))
    assert tape.gradient(y, x).numpy().tolist() == [1.0, 2.0, 3.0]
