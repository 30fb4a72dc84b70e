"""tf.io.parse_*example: values, specs and TF 2.21's errors (recorded by
tools/record_example_fixtures.py), eagerly and traced inside Dataset.map / tf.function."""

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def test_parse_program_prints_what_tf_printed():
    record = json.loads((FIXTURES / "example_parse.json").read_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(record["program"], "<parse>", "exec"), {"tf": tf, "__name__": "p"})
    assert out.getvalue().splitlines() == record["output"].splitlines()


def _example(**values):
    feats = {k: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
             for k, v in values.items()}
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


DESC = {"a": tf.io.FixedLenFeature([2], tf.int64),
        "b": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
        "s": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}


def test_traced_parse_has_tfs_static_shapes():
    @tf.function
    def parse(x):
        return tf.io.parse_example(x, DESC)
    spec = parse.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs
    # TF 2.21: (None, 2), (None,), (None, None)
    assert spec["a"].shape.as_list() == [None, 2]
    assert spec["b"].shape.as_list() == [None]
    assert spec["s"].shape.as_list() == [None, None]
    out = parse(tf.constant([_example(a=[1, 2], s=[5]), _example(a=[3, 4], b=[7], s=[])]))
    np.testing.assert_array_equal(out["a"].numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(out["b"].numpy(), [-1, 7])
    np.testing.assert_array_equal(out["s"].numpy(), [[5], [0]])


def test_dataset_map_runs_the_parse_per_element():
    ds = tf.data.Dataset.from_tensor_slices([_example(a=[i, i], b=[i]) for i in range(3)])
    ds = ds.map(lambda r: tf.io.parse_single_example(r, DESC))
    assert ds.element_spec["a"].shape.as_list() == [2]
    assert [int(e["b"]) for e in ds] == [0, 1, 2]


def test_traced_missing_feature_raises_tfs_error_when_run():
    parse = tf.function(lambda x: tf.io.parse_single_example(
        x, {"q": tf.io.FixedLenFeature([], tf.int64)}))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Feature: q \(data type: int64\) is required"):
        parse(tf.constant(_example(a=[1])))
