"""tf.SparseTensor and tf.sparse against TensorFlow 2.21: every snippet of cases.py and the
examples of TF's guide "Working with sparse tensors" print what TF printed for them
(fixtures/tf221.json, recorded by tools/record_sparse_fixtures.py): values, dtypes, the
printed text, gradients, tf.function tracing and signatures, and error classes."""

import json
import os
import sys

import pytest

import tapeflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _runner import assert_prints, run_case, run_guide  # noqa: E402
from cases import CASES, SETUP  # noqa: E402

with open(os.path.join(HERE, "fixtures", "tf221.json")) as f:
    EXPECTED = json.load(f)


# Cases whose float32 results differ from TF's in the last place (TF's exp is Eigen's):
# the text must match with the numbers compared to a relative 1e-6.
APPROX = {"softmax"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_prints_what_tf_prints(name):
    assert_prints(run_case(tf, SETUP, CASES[name]), EXPECTED[name], name in APPROX)


def test_guide_prints_what_tf_prints():
    assert run_guide(tf, os.path.join(HERE, "guide_sparse_tensor.py")) == EXPECTED["guide"]


def test_composite_tensors_are_tensors():
    # TF 2.21: tf.is_tensor is True for SparseTensor and RaggedTensor, False for Python values.
    assert tf.is_tensor(tf.sparse.from_dense([[1, 0]]))
    assert tf.is_tensor(tf.ragged.constant([[1], [2, 3]]))
    assert not tf.is_tensor(1)
