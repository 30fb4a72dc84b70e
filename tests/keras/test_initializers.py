"""keras.initializers: Keras 3's formulas (limits, standard deviations, orthogonality),
names, defaults and configs."""

from __future__ import annotations

import numpy as np
import pytest

from tapeflow import keras
from tapeflow.keras import initializers as I


def test_names_map_to_classes_with_keras_defaults():
    assert isinstance(I.get("glorot_uniform"), I.GlorotUniform)
    assert isinstance(I.get("GlorotUniform"), I.GlorotUniform)
    assert I.get("random_normal").get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert I.get("random_uniform").get_config() == {"seed": None, "minval": -0.05,
                                                    "maxval": 0.05}
    assert I.get("orthogonal").get_config() == {"seed": None, "gain": 1.0}
    assert I.get("he_normal").get_config() == {"seed": None}
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
