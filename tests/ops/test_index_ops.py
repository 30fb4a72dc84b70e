"""gather_nd / scatter_nd / tensor_scatter_*, boolean_mask, segment ops and searchsorted,
checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tapeflow as tf
from _support import grad

P = [[1., 2.], [3., 4.]]


def test_gather_nd_elements_and_rows():
    assert tf.gather_nd(P, [[0, 1], [1, 0]]).numpy().tolist() == [2., 3.]
    assert tf.gather_nd(P, [[1], [0]]).numpy().tolist() == [[3., 4.], [1., 2.]]
    assert tf.gather_nd(P, [[1], [0]], batch_dims=1).numpy().tolist() == [2., 3.]


def test_gather_nd_out_of_range_names_index_and_shape():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[0\] = \[0, 5\] does not index into param shape \[2,2\]"):
        tf.gather_nd(P, [[0, 5]])


def test_gather_nd_gradient_adds_repeated_rows():
    np.testing.assert_allclose(grad(lambda x: tf.gather_nd(x, [[0], [0], [1]]), [1., 2.]), [2., 1.])


def test_scatter_nd_and_tensor_scatter():
    assert tf.scatter_nd([[1], [3]], tf.constant([1., 2.]), [5]).numpy().tolist() == [0., 1., 0., 2., 0.]
    assert tf.tensor_scatter_nd_update(P, [[0, 0]], [9.]).numpy().tolist() == [[9., 2.], [3., 4.]]
    assert tf.tensor_scatter_nd_add(P, [[0, 0], [0, 0]], [9., 1.]).numpy().tolist() == [[11., 2.], [3., 4.]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[7\] does not index into shape \[5\] \[Op:ScatterNd\]"):
        tf.scatter_nd([[1], [7]], tf.constant([1., 2.]), [5])


def test_tensor_scatter_update_gradient_zeroes_replaced_entries():
    t = tf.constant([[1., 2.], [3., 4.]], tf.float64)
    u = tf.constant([5.], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([t, u])
        y = tf.tensor_scatter_nd_update(t, [[0, 1]], u) * tf.constant([[1., 2.], [3., 4.]], tf.float64)
    gt, gu = tape.gradient(y, [t, u])
    assert gt.numpy().tolist() == [[1., 0.], [3., 4.]]
    assert gu.numpy().tolist() == [2.]


def test_boolean_mask():
    assert tf.boolean_mask(P, [True, False]).numpy().tolist() == [[1., 2.]]
    assert tf.boolean_mask(P, [True, False], axis=1).numpy().tolist() == [[1.], [3.]]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.boolean_mask(P, [True, False, True])
    np.testing.assert_allclose(grad(lambda x: tf.boolean_mask(x, [True, False, True]) * 2, [1., 2., 3.]),
                               [2., 0., 2.])


def test_segment_reductions():
    data = tf.constant([1., 2., 3.])
    assert tf.math.segment_sum(data, [0, 0, 2]).numpy().tolist() == [3., 0., 3.]
    assert tf.math.unsorted_segment_sum(data, [1, -1, 2], 4).numpy().tolist() == [0., 1., 3., 0.]
    assert tf.math.unsorted_segment_mean(data, [1, 1, 2], 4).numpy().tolist() == [0., 1.5, 3., 0.]
    lowest = float(np.finfo(np.float32).min)
    assert tf.math.unsorted_segment_max(data, [1, 1, 2], 4).numpy().tolist() == [lowest, 2., 3., lowest]
    ints = tf.math.unsorted_segment_min(tf.constant([1, 2, 3]), [1, 1, 2], 4)
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [2147483647, 1, 3, 2147483647]


def test_segment_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment ids are not increasing \[Op:SegmentSum\]"):
        tf.math.segment_sum(tf.constant([1., 2., 3.]), [1, 0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"segment_ids\[1\] = 5 is out of range \[0, 4\) \[Op:UnsortedSegmentSum\]"):
        tf.math.unsorted_segment_sum(tf.constant([1., 2., 3.]), [1, 5, 2], 4)


def test_segment_gradients_match_tensorflow():
    np.testing.assert_allclose(grad(lambda x: tf.math.unsorted_segment_max(x, [0, 0, 1], 2), [1., 2., 3.]),
                               [0., 1., 1.])
    np.testing.assert_allclose(grad(lambda x: tf.math.unsorted_segment_mean(x, [0, 0, 1], 2), [1., 2., 3.]),
                               [0.5, 0.5, 1.])


def test_searchsorted():
    out = tf.searchsorted(tf.constant([[1., 3., 5.]]), tf.constant([[0., 3., 6.]]))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[0, 1, 3]]
    right = tf.searchsorted(tf.constant([1., 3., 5.]), tf.constant([0., 3., 6.]), side="right",
                            out_type=tf.int64)
    assert right.dtype == tf.int64 and right.numpy().tolist() == [0, 2, 3]
    with pytest.raises(ValueError, match="Argument `side` must be either 'right' or 'left'"):
        tf.searchsorted(tf.constant([1.]), tf.constant([1.]), side="middle")


def test_one_argument_where_gives_int64_coordinates():
    out = tf.where([[1, 0], [0, 2]])
    assert out.dtype == tf.int64 and out.numpy().tolist() == [[0, 0], [1, 1]]


def test_reduce_euclidean_norm():
    ints = tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [5, 12]]), axis=1)
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [5, 13]
    np.testing.assert_allclose(tf.math.reduce_euclidean_norm(tf.constant([[3., 4], [5, 12]])).numpy(),
                               13.928389, rtol=1e-6)


def test_segment_mean_of_integers_keeps_dtype_and_truncates():
    # TF 2.21: SegmentMean keeps int dtypes, truncating toward zero (unsorted_segment_mean
    # returns float64 instead).
    out = tf.math.segment_mean(tf.constant([-5, 0, 3, 4, 4]), [0, 0, 1, 1, 1])
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [-2, 3])
    out = tf.math.segment_mean(tf.constant([-5, 0, 3, 4, 4], tf.int64), [0, 0, 1, 1, 2])
    assert out.dtype == tf.int64
    np.testing.assert_array_equal(out.numpy(), [-2, 3, 4])


def test_bincount_matches_tensorflow():
    arr = tf.constant([1, 1, 3, 0])
    out = tf.math.bincount(arr)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [1, 2, 0, 1]
    assert tf.math.bincount(arr, minlength=6).numpy().tolist() == [1, 2, 0, 1, 0, 0]
    assert tf.math.bincount(arr, maxlength=2).numpy().tolist() == [1, 2]
    out = tf.math.bincount(arr, weights=tf.constant([0.5, 1., 2., 3.]))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [3.0, 1.5, 0.0, 2.0]
    assert tf.math.bincount(tf.constant([[1, 2], [2, 0]])).numpy().tolist() == [1, 1, 2]
    assert tf.math.bincount(tf.constant([[1, 2], [2, 0]]), axis=-1).numpy().tolist() == \
        [[0, 1, 1], [1, 0, 1]]
    assert tf.math.bincount(tf.constant([], tf.int32)).shape == (0,)
    assert tf.math.bincount(tf.constant([1, 2]), dtype=tf.float32).dtype == tf.float32
    assert tf.math.bincount(tf.constant([1.0, 2.0])).numpy().tolist() == [0, 1, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"non-negative.*DenseBincount"):
        tf.math.bincount(tf.constant([1, -1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"same shape as `arr`"):
        tf.math.bincount(tf.constant([1, 2]), weights=[1, 2, 3])
