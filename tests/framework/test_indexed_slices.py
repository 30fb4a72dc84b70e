"""tf.IndexedSlices: attributes, text, densifying, clipping (values checked with TF 2.21)."""

import numpy as np
import pytest

import tapeflow as tf


def _slices():
    return tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]], tf.float64), tf.constant([1, 1]),
                            tf.constant([3, 2]))


def test_attributes():
    s = _slices()
    assert s.dtype == tf.float64
    assert s.shape == tf.TensorShape([3, 2])
    assert s.indices.dtype == tf.int32
    assert s.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1])).dense_shape is None


def test_str_as_tensorflow():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]))
    assert str(s) == ("IndexedSlices(indices=tf.Tensor([1], shape=(1,), dtype=int32), "
                      "values=tf.Tensor([[1. 2.]], shape=(1, 2), dtype=float32))")
    assert str(_slices()).endswith(
        "dense_shape=tf.Tensor([3 2], shape=(2,), dtype=int32))")


def test_convert_to_tensor_sums_repeated_indices():
    dense = tf.convert_to_tensor(_slices())
    np.testing.assert_array_equal(dense.numpy(), [[0, 0], [4, 6], [0, 0]])
    assert dense.dtype == tf.float64


def test_convert_errors():
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.]]), tf.constant([0])))
    with pytest.raises(ValueError, match="Incompatible tensor conversion requested"):
        tf.convert_to_tensor(_slices(), dtype=tf.float32)
    bad = tf.IndexedSlices(tf.ones((2, 4)), tf.constant([0, 5]), tf.constant([3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"segment_ids\[1\] = 5 is out of range \[0, 3\)"):
        tf.convert_to_tensor(bad)


def test_negation_and_ops_densify():
    neg = -_slices()
    assert isinstance(neg, tf.IndexedSlices)
    np.testing.assert_array_equal(neg.values.numpy(), [[-1, -2], [-3, -4]])
    x = tf.constant(np.ones((3, 2)))
    np.testing.assert_array_equal(tf.add(_slices(), x).numpy(), [[1, 1], [5, 7], [1, 1]])
    np.testing.assert_array_equal(tf.multiply(_slices(), 2.).numpy(), [[0, 0], [8, 12], [0, 0]])
    np.testing.assert_array_equal(tf.math.add_n([_slices(), _slices()]).numpy(),
                                  [[0, 0], [8, 12], [0, 0]])
    with pytest.raises(TypeError):
        _slices() + _slices()


def test_cast_keeps_slices():
    c = tf.cast(_slices(), tf.float32)
    assert isinstance(c, tf.IndexedSlices) and c.dtype == tf.float32


def test_clip_by_norm_and_global_norm():
    s = tf.IndexedSlices(tf.ones((2, 4), tf.float64), tf.constant([0, 0]), tf.constant([3, 4]))
    clipped = tf.clip_by_norm(s, 1.0)
    assert isinstance(clipped, tf.IndexedSlices)
    np.testing.assert_allclose(clipped.values.numpy(), np.full((2, 4), 0.35355339), rtol=1e-7)
    x = tf.constant(np.arange(12, dtype=np.float64).reshape(3, 4))
    (cs, cx), norm = tf.clip_by_global_norm([s, x], 5.0)
    # TF: the norm counts each slice's values (22.67156809750927), slices stay slices.
    np.testing.assert_allclose(norm.numpy(), 22.67156809750927)
    assert isinstance(cs, tf.IndexedSlices)
    np.testing.assert_allclose(cx.numpy()[0, 1], 0.22054055, rtol=1e-7)
