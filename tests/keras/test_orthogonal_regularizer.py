"""`keras.regularizers.OrthogonalRegularizer` (and its `orthogonal_regularizer` alias) against
Keras 3.15.1 (TF 2.21): the regularizer steps of tools/record_keras_bbox_audio.py run on
tapeflow give the answers recorded from Keras (fixtures/bbox_audio.json): penalties in both
modes on tensors, arrays and variables, configs, serialization by name, Keras's errors, and
the penalty a Dense layer reports."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import record_keras_bbox_audio as recorder  # noqa: E402

with open(os.path.join(HERE, "fixtures", "bbox_audio.json")) as _f:
    EXPECTED = {k: v for k, v in json.load(_f).items() if k.startswith("orth.")}

# Columns mode sums 16 products: TF's reduce_sum adds them in Eigen's vectorized order,
# tapeflow's in NumPy's, so the last bit may differ (4e-6 relative); the rest is exact.
SUMMATION_ORDER = {"orth.columns", "orth.variable"}
# TF's eager op errors end in " name: " (the op's empty name); tapeflow's end at "[Op:Mul]".
OP_ERROR_SUFFIX = {"orth.float64_tensor"}


@pytest.fixture(scope="module")
def answers() -> dict:
    return json.loads(json.dumps(recorder.run_steps(keras, tf, recorder.REGULARIZER)))


@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_answers_match_keras(answers: dict, step: str) -> None:
    expected = EXPECTED[step]
    if step in OP_ERROR_SUFFIX:
        (mark, cls, text), printed = expected
        expected = [[mark, cls, text.removesuffix(" name: ")], printed]
    rtol = 4e-6 if step in SUMMATION_ORDER else 0.0
    recorder.assert_same(expected, answers[step], rtol, step)


def test_every_step_is_recorded() -> None:
    assert sorted(EXPECTED) == sorted(s for s, _ in recorder.REGULARIZER if s != "run")


def test_training_makes_the_kernel_more_orthogonal() -> None:
    """The penalty is differentiable: steps of gradient descent on it alone lower it."""
    regularizer = keras.regularizers.OrthogonalRegularizer(factor=1.0, mode="columns")
    kernel = tf.Variable(np.array([[1., 0.9], [0.2, 1.], [0.5, 0.4]], "float32"))
    before = float(regularizer(kernel))
    for _ in range(50):
        with tf.GradientTape() as tape:
            penalty = regularizer(kernel)
        kernel.assign_sub(0.5 * tape.gradient(penalty, kernel))
    assert float(regularizer(kernel)) < 0.1 * before


def test_layer_keeps_the_regularizer_through_its_config() -> None:
    layer = keras.layers.Dense(2, kernel_regularizer=keras.regularizers.orthogonal_regularizer(
        0.3, mode="columns"))
    clone = keras.layers.Dense.from_config(layer.get_config())
    assert isinstance(clone.kernel_regularizer, keras.regularizers.OrthogonalRegularizer)
    assert clone.kernel_regularizer.get_config() == {"factor": 0.30000001192092896,
                                                     "mode": "columns"}
