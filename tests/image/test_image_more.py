"""The rest of `tf.image` against TensorFlow 2.21's values and gradients, recorded by
tools/record_image_fixtures.py into tests/image/fixtures/image_more.npz: colour spaces, hue and
saturation, the random and stateless random ops (TF's draws under set_seed + op seeds), PSNR,
SSIM, MS-SSIM, image gradients, patches, crop_and_resize, glimpses, drawn boxes and the
non-max suppressions."""

import os

import numpy as np
import pytest

import tapeflow as tf

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "image_more.npz"))
NAMES = sorted({key.split("/")[0] for key in FIXTURE.files if not key.startswith("inputs/")})

# Kernels whose float32 arithmetic tapeflow repeats step for step match to the last bit or
# two; composites of convolutions and reductions (NumPy's summation order) to float32 rounding.
TOLERANCE = dict(rtol=2e-5, atol=2e-6)


def _run(name):
    sources = [str(s) for s in FIXTURE[f"{name}/inputs"]]
    watch = [int(i) for i in FIXTURE[f"{name}/watch"]]
    args = [tf.constant(FIXTURE[f"inputs/{s}"]) for s in sources]
    text = str(FIXTURE[f"{name}/call"])
    with tf.GradientTape(persistent=True) as tape:
        for i in watch:
            tape.watch(args[i])
        result = eval(text, {"tf": tf, **dict(zip("abcdefgh", args))})  # noqa: S307 - fixture
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        loss = 0.0
        for k, y in enumerate(outputs):
            if f"{name}/w/{k}" in FIXTURE.files:
                loss = loss + tf.reduce_sum(tf.cast(y, tf.float32) * FIXTURE[f"{name}/w/{k}"])
    return args, watch, outputs, tape, loss


@pytest.mark.parametrize("name", NAMES)
def test_matches_tensorflow(name):
    args, watch, outputs, tape, loss = _run(name)
    count = len([k for k in FIXTURE.files if k.startswith(f"{name}/out/")])
    assert len(outputs) == count, name
    for k, y in enumerate(outputs):
        expected = FIXTURE[f"{name}/out/{k}"]
        assert y.dtype.as_numpy_dtype == expected.dtype, (name, k, y.dtype)
        assert y.shape.as_list() == list(expected.shape), (name, k)
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(y.numpy(), expected, **TOLERANCE, err_msg=name)
        else:
            np.testing.assert_array_equal(y.numpy(), expected, err_msg=name)
    for i in watch:
        expected = FIXTURE[f"{name}/grad/{i}"]
        grad = tape.gradient(loss, args[i])
        if expected.size == 0:
            assert grad is None, (name, i)
        else:
            np.testing.assert_allclose(grad.numpy(), expected, rtol=2e-5, atol=2e-5,
                                       err_msg=f"{name} gradient {i}")


def _input(name):
    return tf.constant(FIXTURE[f"inputs/{name}"])


@pytest.mark.parametrize("name", ["adjust_hue", "rgb_to_hsv", "nms_scores", "nms_padded",
                                  "combined_nms", "crop_and_resize", "draw_bounding_boxes",
                                  "extract_patches_same", "ssim", "extract_glimpse_zero",
                                  "stateless_random_flip_left_right_3",
                                  "stateless_random_crop_3"])
def test_traced_matches_tensorflow(name):
    sources = [str(s) for s in FIXTURE[f"{name}/inputs"]]
    text = str(FIXTURE[f"{name}/call"]).replace("tf.random.set_seed(3), ", "")
    if text.startswith("("):
        text = text.rsplit(", tf.image", 1)[0][1:]   # one call of a stateless pair
    names = "abcdefgh"[:len(sources)]
    fn = tf.function(eval(f"lambda {', '.join(names)}: {text}", {"tf": tf}))  # noqa: S307
    result = fn(*[_input(s) for s in sources])
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    for k, y in enumerate(outputs):
        np.testing.assert_allclose(y.numpy(), FIXTURE[f"{name}/out/{k}"], **TOLERANCE)


def test_errors_as_tensorflow():
    rgb = _input("RGB")
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        tf.image.adjust_hue(rgb, 1.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
        tf.image.random_hue(rgb, 0.6)
    with pytest.raises(ValueError, match="upper must be > lower."):
        tf.image.random_contrast(rgb, 0.5, 0.5)
    with pytest.raises(tf.errors.NotFoundError, match="AdjustSaturation"):
        tf.image.adjust_saturation(tf.cast(rgb, tf.float16), 1.5)   # TF: no half kernel
    with pytest.raises(tf.errors.FailedPreconditionError, match="3 channels"):
        tf.image.rgb_to_hsv(rgb[..., :2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed"):
        tf.image.rgb_to_hsv(tf.cast(rgb, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.random_crop(rgb, [3, 5, 6, 3], seed=1)
    with pytest.raises(ValueError, match="must be True for batched input"):
        tf.image.non_max_suppression_padded(tf.zeros([2, 3, 4]), tf.zeros([2, 3]), 2)


@pytest.mark.parametrize("call", [
    lambda x: tf.image.adjust_jpeg_quality(x, 50),
    lambda x: tf.image.random_jpeg_quality(x, 40, 90, seed=1),
    lambda x: tf.image.stateless_random_jpeg_quality(x, 40, 90, (1, 2)),
])
def test_jpeg_quality_is_a_clear_error(call):
    # TF round-trips through its JPEG codec; tapeflow has none and says so.
    with pytest.raises(tf.errors.UnimplementedError, match="no JPEG"):
        call(_input("RGB"))


@pytest.mark.parametrize("call", [
    tf.image.hsv_to_rgb,
    lambda x: tf.image.adjust_hue(x, 0.2),
    lambda x: tf.image.adjust_saturation(x, 1.3),
])
def test_no_gradient_where_tensorflow_has_none(call):
    x = _input("RGB")
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = call(x)
    assert tape.gradient(y, x) is None


def test_namespace_is_lazy_and_complete():
    import subprocess
    import sys
    code = ("import sys, tapeflow as tf; assert 'tapeflow.image' not in sys.modules; "
            "tf.image.ssim; assert 'tapeflow.image.boxes' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    for name in ("rgb_to_hsv", "stateless_random_crop", "ssim_multiscale",
                 "combined_non_max_suppression", "resize", "affine_transform"):
        assert callable(getattr(tf.image, name))
