"""`tf.image` against TensorFlow 2.21's values and gradients, recorded by
tools/record_image_fixtures.py into tests/image/fixtures/image.npz (every resize method and
antialias mode, flips, rotations, crops, pads, colour and dtype conversions, and Keras's
affine transform in each fill mode and interpolation)."""

import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import image as tf_image

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "image.npz"))
NAMES = sorted({key.split("/")[0] for key in FIXTURE.files
                if key.split("/")[0] not in ("inputs", "transforms")})
CALLS = [n for n in NAMES if f"{n}/call" in FIXTURE.files]
AFFINE = [n for n in NAMES if f"{n}/affine" in FIXTURE.files]


def _tolerance(expected):
    return dict(rtol=2e-5, atol=2e-6) if expected.dtype.kind == "f" else dict(rtol=0, atol=0)


def _check(name, x, run):
    expected = FIXTURE[f"{name}/out"]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = run(x)
        loss = None
        if f"{name}/w" in FIXTURE.files:
            loss = tf.reduce_sum(tf.cast(y, tf.float32) * FIXTURE[f"{name}/w"])
    assert y.dtype.as_numpy_dtype == expected.dtype, name
    assert y.shape.as_list() == list(expected.shape), name
    np.testing.assert_allclose(y.numpy(), expected, **_tolerance(expected))
    if loss is not None:
        np.testing.assert_allclose(tape.gradient(loss, x).numpy(), FIXTURE[f"{name}/grad"],
                                   rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", CALLS)
def test_matches_tensorflow(name):
    source, text = FIXTURE[f"{name}/call"]
    x = tf.constant(FIXTURE[f"inputs/{source}"])
    _check(name, x, lambda v: eval(text, {"tf": tf, "x": v}))  # noqa: S307 - fixture text


@pytest.mark.parametrize("name", AFFINE)
def test_affine_transform_matches_image_projective_transform_v3(name):
    transform, mode, interpolation = FIXTURE[f"{name}/affine"]
    x = tf.constant(FIXTURE["inputs/IMAGE"])
    _check(name, x, lambda v: tf_image.affine_transform(
        v, FIXTURE[f"transforms/{transform}"], str(interpolation), str(mode), 0.5))


def test_namespace_and_traced_resize():
    assert tf.image.resize is tf_image.resize
    x = tf.constant(FIXTURE["inputs/IMAGE"])
    traced = tf.function(lambda v: tf.image.resize(v, (3, 4), method="bicubic"))
    np.testing.assert_allclose(traced(x).numpy(), FIXTURE["resize_bicubic_3x4_plain/out"],
                               rtol=2e-5, atol=2e-6)


def test_unknown_height_is_read_when_the_graph_runs():
    f = tf.function(lambda v: tf.image.resize(v, (3, 4)),
                    input_signature=[tf.TensorSpec([None, None, None, 2])])
    np.testing.assert_array_equal(f(FIXTURE["inputs/IMAGE"]).numpy(),
                                  tf.image.resize(FIXTURE["inputs/IMAGE"], (3, 4)).numpy())


@pytest.mark.parametrize("call,op", [
    (lambda x: tf.image.resize(x, (3, 4), method="area"), "ResizeArea"),
    (lambda x: tf.image.adjust_contrast(x, 1.5), "AdjustContrastv2"),
])
def test_no_gradient_where_tensorflow_has_none(call, op):
    # TF 2.21: LookupError "gradient registry has no entry for: <op>".
    x = tf.constant(FIXTURE["inputs/IMAGE"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = call(x)
    with pytest.raises(LookupError, match=f"no entry for: {op}"):
        tape.gradient(y, x)


def test_bad_arguments_raise_tensorflow_errors():
    x = FIXTURE["inputs/IMAGE"]
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tf.image.resize(x, (3, 3), method="cubic")
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.resize(x[0, 0], (3, 3))
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        tf.image.central_crop(x, 1.5)
    with pytest.raises(ValueError, match="width must be >= target \\+ offset."):
        tf.image.crop_to_bounding_box(x, 0, 2, 3, 6)
    with pytest.raises(ValueError, match="width must be <= target - offset"):
        tf.image.pad_to_bounding_box(x, 0, 2, 8, 8)
