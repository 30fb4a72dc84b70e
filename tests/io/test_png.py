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
