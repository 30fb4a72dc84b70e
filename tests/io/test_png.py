"""tf.io's PNG and BMP codecs against TensorFlow 2.21's decoder (fixtures recorded by
tools/record_io_fixtures.py: TF's decode of TF-encoded and hand-built PNGs, BMPs)."""

from __future__ import annotations

import base64
import json
import os

import numpy as np
import pytest

import tapeflow as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _load(name: str) -> dict:
    with open(os.path.join(FIXTURES, name)) as f:
        data = json.load(f)
    data.pop("tf_version")
    return data


PNGS = _load("io_png.json")
BMPS = _load("io_bmp.json")
PNG_CASES = [(name, key) for name in sorted(PNGS) for key in sorted(PNGS[name]["decoded"])]


@pytest.mark.parametrize("name,key", PNG_CASES, ids=[f"{n}-{k}" for n, k in PNG_CASES])
def test_decode_png_matches_tensorflow(name, key):
    channels, dtype = key.split("/")
    data = base64.b64decode(PNGS[name]["png"])
    expected = np.array(PNGS[name]["decoded"][key], dtype=dtype)
    got = tf.io.decode_png(data, channels=int(channels), dtype=getattr(tf, dtype))
    assert got.dtype == getattr(tf, dtype)
    np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize("name", sorted(BMPS))
def test_decode_bmp_matches_tensorflow(name):
    data = base64.b64decode(BMPS[name]["bmp"])
    for channels, expected in BMPS[name]["decoded"].items():
        if isinstance(expected, dict):
            with pytest.raises(getattr(tf.errors, expected["error"])):
                tf.io.decode_bmp(data, int(channels))
        else:
            got = tf.io.decode_bmp(data, int(channels))
            np.testing.assert_array_equal(got.numpy(), np.array(expected, np.uint8))
            np.testing.assert_array_equal(tf.io.decode_image(data, int(channels)).numpy(),
                                          np.array(expected, np.uint8))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_round_trip(dtype, channels):
    # tools/record_io_fixtures.py checked that TF decodes these files to the same pixels
    image = np.random.RandomState(channels).randint(0, np.iinfo(dtype).max + 1,
                                                    (5, 8, channels)).astype(dtype)
    data = tf.io.encode_png(image, compression=9)
    assert data.dtype == tf.string and data.shape == ()
    got = tf.io.decode_png(data, dtype=tf.as_dtype(dtype))
    np.testing.assert_array_equal(got.numpy(), image)


def test_encode_png_batch_and_errors():
    batch = tf.io.encode_png(np.zeros((2, 3, 4, 3), np.uint8))
    assert batch.shape == (2,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of float is not in"):
        tf.io.encode_png(np.zeros((2, 3, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^images must be at least rank 3\[2,3\] \[Op:EncodePng\]"):
        tf.io.encode_png(np.zeros((2, 3), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="1, 2, 3, or 4 channels, got 5"):
        tf.io.encode_png(np.zeros((2, 3, 5), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"compression should be in "
                                                             r"\[-1,9\], got 12"):
        tf.io.encode_png(np.zeros((2, 3, 3), np.uint8), compression=12)
    with pytest.raises(tf.errors.InternalError, match="PNG encoding failed"):
        tf.io.encode_png(np.zeros((0, 3, 3), np.uint8))


def test_decode_errors_and_formats_without_decoder():
    png = tf.io.encode_png(np.zeros((2, 3, 3), np.uint8)).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Unknown image file format\. One of JPEG, JPEG XL, PNG, GIF, BMP, "
                             r"WebP required\. \[Op:DecodePng\]$"):
        tf.io.decode_png(b"garbage")
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 1, 3 or 4 "
                                                             "but got 2"):
        tf.io.decode_png(png, channels=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'dtype' of float"):
        tf.io.decode_png(png, dtype=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"must be scalar but got shape\[1\]"):
        tf.io.decode_png([png])
    bmp = base64.b64decode(BMPS["bmp_3x2_24"]["bmp"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode BMP format using"):
        tf.io.decode_png(bmp)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode PNG format using "
                                                             "DecodeBmp op"):
        tf.io.decode_bmp(png)
    jpeg, gif = b"\xff\xd8\xff\xe0" + bytes(30), b"GIF89a" + bytes(20)
    webp = b"RIFF\0\0\0\0WEBPVP8 " + bytes(20)
    for op, data in ((tf.io.decode_jpeg, jpeg), (tf.io.decode_png, jpeg), (tf.io.decode_gif, gif),
                     (tf.io.decode_webp, webp), (tf.io.decode_image, jpeg),
                     (tf.io.decode_image, gif)):
        with pytest.raises(tf.errors.UnimplementedError, match="tapeflow has no"):
            op(data)
    # TF's decoders sniff the format: PNG data through decode_jpeg / decode_gif still decodes
    assert tf.io.decode_jpeg(png).shape == (2, 3, 3)
    assert tf.io.decode_gif(png).shape == (1, 2, 3, 3)
    assert tf.io.is_jpeg(jpeg).numpy() and not tf.io.is_jpeg(png).numpy()


def test_decode_image():
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    png = tf.io.encode_png(image)
    np.testing.assert_array_equal(tf.io.decode_image(png).numpy(), image)
    assert tf.io.decode_image(png, channels=4).shape == (2, 4, 4)
    floats = tf.io.decode_image(png, dtype=tf.float32)
    assert floats.dtype == tf.float32
    np.testing.assert_allclose(floats.numpy(), image / 255.0, rtol=1e-6)


def test_decode_png_in_tf_function():
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)

    @tf.function
    def gray(data):
        return tf.io.decode_png(data, channels=1)
    expected = tf.io.decode_png(tf.io.encode_png(image), channels=1).numpy()
    np.testing.assert_array_equal(gray(tf.io.encode_png(image)).numpy(), expected)
