"""Reductions over empty inputs: the identities TensorFlow 2.21 returns (checked with the
reference install), where NumPy would raise or produce a NaN cast to an integer."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("fn, dtype, expected", [
    (tf.reduce_max, tf.float32, -np.inf),
    (tf.reduce_min, tf.float64, np.inf),
    (tf.reduce_max, tf.int32, np.iinfo(np.int32).min),
    (tf.reduce_min, tf.int64, np.iinfo(np.int64).max),
    (tf.reduce_logsumexp, tf.float32, -np.inf),
    (tf.reduce_mean, tf.int32, 0),
    (tf.reduce_mean, tf.int64, 0),
])
def test_empty_reduction_gives_identity(fn, dtype, expected):
    out = fn(tf.zeros([0], dtype))
    assert out.dtype == dtype and out.shape == ()
    assert out.numpy() == expected


def test_empty_axis_reduction_keeps_other_axes():
    x = tf.zeros([2, 0, 3])
    np.testing.assert_array_equal(tf.reduce_max(x, axis=1).numpy(), np.full((2, 3), -np.inf))
    out = tf.reduce_mean(tf.zeros([2, 0, 3], tf.int32), axis=1, keepdims=True)
    assert out.shape == (2, 1, 3)
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 1, 3), np.int32))


def test_softmax_of_empty_is_empty():
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        out = fn(tf.zeros([2, 0]))
        assert out.shape == (2, 0) and out.dtype == tf.float32


def test_prod_gradient_of_empty_input():
    x = tf.zeros([2, 0, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=[0, 1])
    np.testing.assert_array_equal(y.numpy(), np.ones(3, np.float32))
    grad = tape.gradient(y, x)
    assert grad.shape == (2, 0, 3) and grad.dtype == tf.float32


def test_count_nonzero_matches_tensorflow():
    assert tf.math.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]])).numpy() == 3
    out = tf.math.count_nonzero(tf.constant([[0., 1, 2], [0, 0, 3]]), axis=1, keepdims=True,
                                dtype=tf.int32)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[2], [1]]
    out = tf.math.count_nonzero(tf.constant([[True, False]]), axis=[0, 1], dtype=tf.float32)
    assert out.dtype == tf.float32 and out.numpy() == 1.0
    out = tf.math.count_nonzero(tf.constant([1.0, 0.0]), keepdims=True)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension"):
        tf.math.count_nonzero(tf.constant([[1, 2]]), axis=2)
