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
