"""Top-level array ops added for TF parity: tensor_scatter_nd_sub/min/max and friends.
Every expected number here is TensorFlow 2.21's answer."""

import numpy as np
import pytest

import tapeflow as tf

T = tf.constant
IDX = [[1], [1], [3]]


def test_tensor_scatter_sub_min_max_values():
    np.testing.assert_array_equal(
        tf.tensor_scatter_nd_sub(T([1., 2, 3, 4]), IDX, T([5., 6, 7])).numpy(), [1, -9, 3, -3])
    np.testing.assert_array_equal(
        tf.tensor_scatter_nd_min(T([1., 2, 3, 4]), IDX, T([5., -6, 7])).numpy(), [1, -6, 3, 4])
    out = tf.tensor_scatter_nd_max(T([1, 2, 3, 4]), IDX, T([5, -6, 7]))
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [1, 5, 3, 7])


def test_tensor_scatter_errors():
    with pytest.raises(tf.errors.NotFoundError, match="TensorScatterMax"):
        tf.tensor_scatter_nd_max(T([True, False]), [[1]], T([True]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        tf.tensor_scatter_nd_max(T([1, 2]), [[5]], T([3]))


@pytest.mark.parametrize("name, want_x, want_u", [
    ("tensor_scatter_nd_min", [1., 0., 3., 4.], [0., 2., 0.]),
    ("tensor_scatter_nd_max", [1., 0., 3., 0.], [2., 0., 4.]),
    ("tensor_scatter_nd_sub", [1., 2., 3., 4.], [-2., -2., -4.]),
])
def test_tensor_scatter_gradients(name, want_x, want_u):
    x, u = tf.Variable([1., 2, 3, 4]), tf.Variable([5., -6, 7])
    with tf.GradientTape() as tape:
        y = getattr(tf, name)(x, IDX, u) * T([1., 2, 3, 4])
    gx, gu = tape.gradient(y, [x, u])
    np.testing.assert_array_equal(gx.numpy(), want_x)
    np.testing.assert_array_equal(gu.numpy(), want_u)


def test_tensor_scatter_max_ties_share_the_gradient():
    x = tf.Variable([1., 5, 3, 4])
    with tf.GradientTape() as tape:
        y = tf.tensor_scatter_nd_max(x, IDX, T([5., 5, 7]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1., 1 / 3, 1., 0.], rtol=1e-7)


def test_unravel_index_and_invert_permutation():
    out = tf.unravel_index([1, 5, 4], [3, 2])
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 2], [1, 1, 0]])
    np.testing.assert_array_equal(tf.unravel_index(5, [3, 2]).numpy(), [2, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="index is out of bound"):
        tf.unravel_index([7], [3, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Tidx' of float"):
        tf.unravel_index([1.0], [3, 2])
    traced = tf.function(lambda i: tf.unravel_index(i, [3, 2]))
    np.testing.assert_array_equal(traced(T([1, 5])).numpy(), [[0, 2], [1, 1]])
    np.testing.assert_array_equal(tf.math.invert_permutation([3, 4, 0, 2, 1]).numpy(),
                                  [2, 4, 3, 0, 1])
    assert tf.math.invert_permutation(T([1, 0], tf.int64)).dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 is duplicated in the input"):
        tf.math.invert_permutation([0, 0])


def test_broadcast_shapes_and_identity_n():
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])) == [2, 3]
    with pytest.raises(ValueError, match=r"Received: \(2,\) and \(3,\)"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    out = tf.broadcast_dynamic_shape([2, 1], [3])
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [2, 3])
    assert tf.broadcast_dynamic_shape(T([2, 1], tf.int64), T([3], tf.int64)).dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs"):
        tf.broadcast_dynamic_shape([2], [3])
    a, b = tf.identity_n([T(1), T([2.])])
    assert (a.dtype, b.dtype) == (tf.int32, tf.float32)
