"""`keras.utils.bounding_boxes` against Keras 3.15.1 (TF 2.21): the bounding-box steps of
tools/record_keras_bbox_audio.py run on tapeflow give the answers recorded from Keras
(fixtures/bbox_audio.json): every format pair of `convert_format` (dict and plain inputs,
batched and unbatched, int and float dtypes), `clip_to_image_size`, `crop`, `pad`,
`affine_transform`, the anchor deltas, `compute_iou`/`compute_ciou`, Keras's errors, and the
functions inside `tf.data` maps and `tf.function`."""

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
    EXPECTED = {k: v for k, v in json.load(_f).items() if k.startswith("bbox.")}

# Steps whose float32 values come through log, exp or cos/sin/tan: tapeflow's kernels for
# these round differently from TF's vectorized Eigen ones in the last bit (for example
# log(1.1f): TF 0.095310204, tapeflow 0.0953102), so they are compared to 4e-6 relative;
# every other step (and every dtype, shape and error) is compared exactly.
TRANSCENDENTAL = {"bbox.affine", "bbox.decode", "bbox.decode_levels", "bbox.decode_round_trip",
                  "bbox.encode", "bbox.encode_batched_variance", "bbox.encode_center_xywh",
                  "bbox.encode_rel", "bbox.in_function"}


@pytest.fixture(scope="module")
def answers() -> dict:
    return json.loads(json.dumps(recorder.run_steps(keras, tf, recorder.BBOX)))


@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_answers_match_keras(answers: dict, step: str) -> None:
    rtol = 4e-6 if step in TRANSCENDENTAL else 0.0
    recorder.assert_same(EXPECTED[step], answers[step], rtol, step)


def test_every_step_is_recorded() -> None:
    assert sorted(EXPECTED) == sorted(s for s, _ in recorder.BBOX if s != "run")


def test_namespace_has_keras_functions() -> None:
    bb = keras.utils.bounding_boxes
    assert sorted(bb.__all__) == ["affine_transform", "clip_to_image_size", "compute_ciou",
                                  "compute_iou", "convert_format", "crop",
                                  "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]
    assert "bounding_boxes" in dir(keras.utils)


def test_round_trip_between_every_format() -> None:
    """Converting out to any format and back gives the boxes again (to float32 rounding)."""
    bb = keras.utils.bounding_boxes
    boxes = np.array([[[12., 7., 40., 33.], [0., 0., 299., 199.]]], "float32")
    for fmt in recorder.FORMATS:
        there = bb.convert_format(boxes, "xyxy", fmt, height=200, width=300)
        back = bb.convert_format(there, fmt, "xyxy", height=200, width=300)
        np.testing.assert_allclose(np.asarray(back), boxes, rtol=1e-6, atol=1e-4,
                                   err_msg=fmt)


def test_iou_is_differentiable() -> None:
    """Detection losses differentiate through the IoU: the gradient is finite and pushes a
    shifted box back toward its target."""
    bb = keras.utils.bounding_boxes
    target = tf.constant([[0., 0., 10., 10.]])
    box = tf.Variable([[2., 0., 12., 10.]])
    with tf.GradientTape() as tape:
        iou = bb.compute_iou(box, target, "xyxy")[0, 0]
    grad = tape.gradient(iou, box).numpy()
    assert np.all(np.isfinite(grad)) and grad[0, 0] < 0 and grad[0, 2] < 0
