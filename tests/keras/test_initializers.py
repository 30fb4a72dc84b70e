"""keras.initializers: Keras 3's formulas (limits, standard deviations, orthogonality),
names, defaults and configs."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import initializers as I


def test_names_map_to_classes_with_keras_defaults():
    assert isinstance(I.get("glorot_uniform"), I.GlorotUniform)
    assert isinstance(I.get("GlorotUniform"), I.GlorotUniform)
    assert I.get("random_normal").get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert I.get("random_uniform").get_config() == {"seed": None, "minval": -0.05,
                                                    "maxval": 0.05}
    assert I.get("orthogonal").get_config() == {"seed": None, "gain": 1.0}
    assert I.get("he_normal").get_config() == {"seed": None, "input_axes": None,
                                               "output_axes": None}
    with pytest.raises(ValueError, match="Could not interpret initializer"):
        I.get("nope")


def test_dense_defaults_glorot_uniform_kernel_and_zero_bias():
    d = keras.layers.Dense(300)
    d(np.ones((1, 200), "float32"))
    k = d.kernel.numpy()
    limit = np.sqrt(6 / (200 + 300))
    assert k.dtype == np.float32 and np.abs(k).max() <= limit
    assert np.abs(k).max() > 0.95 * limit  # uses the whole range
    np.testing.assert_allclose(k.std(), limit / np.sqrt(3), rtol=0.05)
    np.testing.assert_array_equal(d.bias.numpy(), 0)


def test_variance_scaling_statistics():
    he = I.HeNormal(seed=1)((400, 300)).numpy()
    # truncated normal, corrected so the final stddev is sqrt(2 / fan_in)
    np.testing.assert_allclose(he.std(), np.sqrt(2 / 400), rtol=0.05)
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 + 1e-6
    hu = I.HeUniform(seed=1)((400, 300)).numpy()
    assert np.abs(hu).max() <= np.sqrt(6 / 400)
    conv = I.GlorotUniform(seed=2)((3, 3, 16, 32)).numpy()  # fans count the 3x3 field
    assert np.abs(conv).max() <= np.sqrt(6 / (9 * 16 + 9 * 32))


def test_constant_ones_zeros_random():
    np.testing.assert_array_equal(I.Constant(3.0)((2,)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(I.Ones()((2, 2), dtype="float64").numpy(), np.ones((2, 2)))
    assert I.Zeros()((3,)).numpy().dtype == np.float32
    u = I.RandomUniform(-1.0, 1.0, seed=3)((1000,)).numpy()
    assert -1 <= u.min() and u.max() < 1 and abs(u.mean()) < 0.1
    n = I.RandomNormal(mean=2.0, stddev=0.5, seed=3)((2000,)).numpy()
    np.testing.assert_allclose([n.mean(), n.std()], [2.0, 0.5], rtol=0.05)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 3, 2, 5)])
def test_orthogonal_is_orthogonal(shape):
    q = I.Orthogonal(gain=2.0, seed=0)(shape).numpy().reshape(-1, shape[-1])
    small = min(q.shape)
    gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-5)


def test_seeded_initializer_is_reproducible():
    a = I.GlorotUniform(seed=5)((3, 4)).numpy()
    b = I.GlorotUniform(seed=5)((3, 4)).numpy()
    np.testing.assert_array_equal(a, b)


# -- STFT and the alias names (Keras 3's kernels recorded by tools/record_keras_utils.py).

import json as _json  # noqa: E402
import os as _os  # noqa: E402
import sys as _sys  # noqa: E402

_sys.path.insert(0, _os.path.join(_os.path.dirname(__file__), "..", ".."))
_FIX = _json.load(open(_os.path.join(_os.path.dirname(__file__), "fixtures",
                                     "keras_utils.json")))


@pytest.mark.parametrize("name", sorted(_FIX["stft"]))
def test_stft_kernel_matches_keras(name):
    from tools.record_keras_utils import STFT_CASES, WINDOW_NAMES
    kwargs, shape = STFT_CASES[name]
    got = keras.initializers.STFT(**kwargs)(shape)
    assert got.dtype == tf.float32   # Keras: (frame_length, 1, fft_length), whatever the channels
    np.testing.assert_allclose(got.numpy(), _FIX["stft"][name], rtol=1e-5, atol=1e-6)
    if name in WINDOW_NAMES:   # the SciPy window by name gives the same kernel
        pytest.importorskip("scipy")
        named = keras.initializers.STFT(**{**kwargs, "window": WINDOW_NAMES[name]})(shape)
        np.testing.assert_allclose(named.numpy(), _FIX["stft"][name], rtol=1e-5, atol=1e-6)


def test_stft_errors_config_and_aliases():
    with pytest.raises(ValueError, match="side should be 'real' or 'imag', not x"):
        keras.initializers.STFT(side="x")
    with pytest.raises(ValueError, match="Scaling is invalid"):
        keras.initializers.STFT(scaling="x")
    init = keras.initializers.get("stft")
    assert isinstance(init, keras.initializers.STFT)
    assert init.get_config() == {"side": "real", "window": "hann", "periodic": False,
                                 "scaling": "density"}
    assert keras.initializers.STFTInitializer is keras.initializers.STFT
    assert keras.initializers.stft is keras.initializers.STFT
    assert keras.initializers.IdentityInitializer is keras.initializers.Identity
    assert keras.initializers.OrthogonalInitializer is keras.initializers.Orthogonal
    config = keras.initializers.serialize(keras.initializers.STFT(side="imag"))
    back = keras.initializers.deserialize(config)
    assert isinstance(back, keras.initializers.STFT) and back.side == "imag"
    assert isinstance(keras.initializers.deserialize("glorot_uniform"),
                      keras.initializers.GlorotUniform)
    assert isinstance(keras.initializers.deserialize({"class_name": "Zeros", "config": {}}),
                      keras.initializers.Zeros)
