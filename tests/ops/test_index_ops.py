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
    np.testing.assert_allclose(grad(lambda x: tf.gather_nd(x, [[0, 0], [0, 0], [0, 1]]),
                                    [[1., 2.]]), [[2., 1.]])


def test_gather_nd_of_whole_rows_has_an_indexed_slices_gradient():
    # TF 2.21's _GatherNdGrad: a matrix of single indices gives IndexedSlices, the rows as
    # gathered (repeats kept) and dense_shape in the indices' dtype; deeper indices, dense.
    v = tf.Variable(tf.ones([4, 3]))
    for dtype in (tf.int32, tf.int64):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather_nd(v, tf.constant([[1], [2], [1]], dtype)) *
                              [[1., 2., 3.]])
        g = tape.gradient(y, v)
        assert isinstance(g, tf.IndexedSlices)
        assert g.indices.numpy().tolist() == [1, 2, 1] and g.indices.dtype == dtype
        assert g.dense_shape.numpy().tolist() == [4, 3] and g.dense_shape.dtype == dtype
        assert g.values.numpy().tolist() == [[1., 2., 3.]] * 3
        assert tf.convert_to_tensor(g).numpy().tolist() == [
            [0, 0, 0], [2, 4, 6], [1, 2, 3], [0, 0, 0]]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather_nd(v, [[[1]], [[2]]]))
    assert not isinstance(tape.gradient(y, v), tf.IndexedSlices)


def test_scatter_nd_and_tensor_scatter():
    assert tf.scatter_nd([[1], [3]], tf.constant([1., 2.]), [5]).numpy().tolist() == [0., 1., 0., 2., 0.]
    assert tf.tensor_scatter_nd_update(P, [[0, 0]], [9.]).numpy().tolist() == [[9., 2.], [3., 4.]]
    assert tf.tensor_scatter_nd_add(P, [[0, 0], [0, 0]], [9., 1.]).numpy().tolist() == [[11., 2.], [3., 4.]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[7\] does not index into shape \[5\] \[Op:ScatterNd\]"):
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


# -- round 2: answers of TF 2.21 (CPU), recorded by hand --------------------------------------

@pytest.mark.parametrize("call", [
    # 1-D indices: TF also reads them as a batch of one-element rows, so it refuses them.
    lambda: tf.tensor_scatter_nd_update(tf.zeros([1, 4]), [0], [1., 2., 3., 4.]),
    lambda: tf.tensor_scatter_nd_add(tf.zeros([2, 1, 3]), [1, 0], [1., 2., 3.]),
    lambda: tf.scatter_nd(tf.constant([0]), tf.constant([5, 6, 7]), [3, 3]),
    # scalar updates or indices
    lambda: tf.scatter_nd(tf.constant([0]), tf.constant(0, tf.int64), [3]),
    lambda: tf.tensor_scatter_nd_add(tf.zeros([3]), [1], 2.),
    lambda: tf.tensor_scatter_nd_add(tf.zeros([3]), 1, 2.),
    # empty index rows with updates, and rows longer than 7
    lambda: tf.tensor_scatter_nd_add(tf.zeros([3]), tf.zeros([2, 0], tf.int32), tf.ones([2, 3])),
    lambda: tf.scatter_nd(tf.zeros([0, 0], tf.int32), tf.zeros([0, 2]), [2]),
    lambda: tf.scatter_nd(tf.zeros([1, 8], tf.int32), [1.], [1] * 8),
])
def test_scatters_refuse_what_tensorflow_refuses(call):
    with pytest.raises(tf.errors.InvalidArgumentError):
        call()


def test_scatters_accept_row_indices_and_empty_updates():
    assert tf.tensor_scatter_nd_update(tf.zeros([3]), [[0], [2]], [1., 2.]).numpy().tolist() == [1., 0., 2.]
    empty = tf.tensor_scatter_nd_add(tf.zeros([3]), tf.zeros([0, 1], tf.int32), tf.zeros([0]))
    assert empty.numpy().tolist() == [0.] * 3
    assert tf.scatter_nd(tf.zeros([1, 7], tf.int32), [1.], [1] * 7).shape == (1,) * 7


def test_gather_nd_edge_shapes_and_1d_index_gradient():
    out = tf.gather_nd(tf.constant([[1, 2], [3, 4]]), tf.zeros([3, 0], tf.int32))
    assert out.shape == (3, 2, 2) and out.numpy()[2].tolist() == [[1, 2], [3, 4]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="params must be at least a vector"):
        tf.gather_nd(tf.constant(1.), tf.zeros([2, 0], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="between 1 and 7"):
        tf.gather_nd(tf.zeros([1] * 8), tf.zeros([1, 8], tf.int32))
    # TF's own gradient fails here (its ScatterNd refuses 1-D indices); tapeflow keeps one.
    assert grad(lambda x: tf.gather_nd(x, [1]), [1., 2., 3.]).tolist() == [0., 1., 0.]


def test_unsorted_segment_ids_are_checked_only_when_there_is_data():
    out = tf.math.unsorted_segment_max(tf.zeros([2, 0]), [0, 5], 2)
    assert out.shape == (2, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[0\] = 0 is out of range \[0, 0\)"):
        tf.math.unsorted_segment_sum([1., 2.], [0, 1], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5"):
        tf.math.unsorted_segment_mean(tf.zeros([2, 0]), [0, 5], 2)  # its count has data


def test_segment_extrema_follow_tensorflows_nan_and_inf_rules():
    nan, inf = np.nan, np.inf
    big = float(np.finfo(np.float32).max)
    # A NaN is taken, and replaced by the next value of its segment.
    out = tf.math.unsorted_segment_max([nan, 5., 2., 1., nan, 3.], [0, 1, 0, 1, 1, 0], 2)
    np.testing.assert_array_equal(out.numpy(), [3., nan])
    np.testing.assert_array_equal(tf.math.unsorted_segment_max([nan, -inf], [0, 0], 1).numpy(), [-inf])
    np.testing.assert_array_equal(
        tf.math.unsorted_segment_min([[nan, 5.], [2., nan], [1., 3.]], [0, 0, 1], 2).numpy(),
        [[2., nan], [1., 3.]])
    np.testing.assert_array_equal(tf.math.segment_min([nan, 1., nan, 2., 3.], [0, 0, 0, 0, 1]).numpy(), [2., 3.])
    # The unsorted ops start from the dtype's finite extreme, the sorted ones from +-inf.
    np.testing.assert_array_equal(tf.math.unsorted_segment_min([inf, inf], [0, 0], 1).numpy(), [big])
    np.testing.assert_array_equal(tf.math.segment_min([inf, inf, 1.], [0, 0, 1]).numpy(), [inf, 1.])
    np.testing.assert_array_equal(tf.math.segment_max([-inf, -inf, 1.], [0, 0, 1]).numpy(), [-inf, 1.])
    np.testing.assert_array_equal(tf.math.segment_min([inf, -inf, 1.], [0, 1, 3]).numpy(), [inf, -inf, 0., 1.])


def test_boolean_mask_axis_slices_like_python():
    x = tf.constant([[1, 2], [3, 4]])
    for axis in (2, -1, -3):  # shape[axis:axis + 1] is empty
        with pytest.raises(ValueError, match=r"Shapes \(\) and \(2,\) are incompatible"):
            tf.boolean_mask(x, [True, False], axis=axis)
    assert tf.boolean_mask(x, [True, False], axis=-2).numpy().tolist() == [[1, 2]]


def test_searchsorted_nan_empty_and_dtypes():
    nan = np.nan
    assert tf.searchsorted([[1., 2., 3.]], [[nan, 2., 5.]]).numpy().tolist() == [[0, 1, 3]]
    assert tf.searchsorted([[1., 2., 3.]], [[nan, 2., 5.]], side="right").numpy().tolist() == [[3, 2, 3]]
    assert tf.searchsorted([[1., nan, 3.]], [[0., 2., 5.]]).numpy().tolist() == [[0, 1, 1]]
    assert tf.searchsorted(tf.constant([[1., 2.]]), tf.zeros([1, 0])).shape == (1, 0)
    assert tf.searchsorted(tf.zeros([1, 0]), tf.constant([[1., 2.]])).numpy().tolist() == [[0, 0]]
    for value in (1 + 1j, True):
        with pytest.raises(tf.errors.NotFoundError, match="LowerBound"):
            tf.searchsorted(tf.constant([[value]]), tf.constant([[value]]))


def test_gather_nd_refuses_rows_of_empty_params():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requested more than 0 entries"):
        tf.gather_nd(tf.zeros([4, 0]), [[3]])
    assert tf.gather_nd(tf.zeros([4, 0]), tf.zeros([0, 1], tf.int32)).shape == (0, 0)
    assert tf.repeat(tf.zeros([2, 0]), 2, axis=0).shape == (4, 0)  # helpers still gather


def test_segment_mean_takes_complex():
    out = tf.math.segment_mean(tf.constant([1 + 1j, 3 + 1j], tf.complex64), [1, 1])
    assert out.dtype == tf.complex64 and out.numpy().tolist() == [0j, 2 + 1j]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Maximum"):  # as TF's Python
        tf.math.unsorted_segment_mean(tf.constant([1 + 1j], tf.complex64), [0], 1)


def test_boolean_mask_negative_axis_gathers_along_the_collapsed_tensors_axis():
    # TF reshapes to [3, 9, 3], then gathers along axis -3 of that: axis 0 (of size 3).
    x = tf.reshape(tf.range(81), [3, 3, 3, 3])
    m = tf.constant([[False, True, False], [True, False, True], [False, False, True]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
        tf.boolean_mask(x, m, axis=-3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape must be at least rank 4 but is rank 3"):
        tf.boolean_mask(x, m, axis=-4)
    assert tf.boolean_mask(x, m, axis=1).numpy().reshape(-1)[:8].tolist() == [3, 4, 5, 9, 10, 11, 15, 16]


def test_sorted_segment_extrema_skip_nans_in_whole_packets():
    # TF 2.21 (AVX build): one-row segments are copies; for more rows Eigen reduces the
    # columns in packets of 8 float32 (NaNs skipped), then the rest one at a time.
    nan = np.nan
    a = np.zeros((3, 9), np.float32)
    a[0] = np.arange(9)
    a[1] = nan
    a[1, 1] = 5
    a[2] = -1
    np.testing.assert_array_equal(tf.math.segment_max(a, [0, 0, 0]).numpy(),
                                  [[0., 5., 2., 3., 4., 5., 6., 7., -1.]])
    np.testing.assert_array_equal(tf.math.segment_max(a[:2], [0, 0]).numpy(),
                                  [[0., 5., 2., 3., 4., 5., 6., 7., nan]])
    np.testing.assert_array_equal(tf.math.segment_max(a[1:2], [0]).numpy(), a[1:2])
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(a, [0, 0, 0], 1).numpy(),
                                  [[-1., 5., -1., -1., -1., -1., -1., -1., -1.]])


def test_tensor_scatter_add_has_no_bool_kernel():
    with pytest.raises(tf.errors.NotFoundError, match="TensorScatterAdd"):
        tf.tensor_scatter_nd_add([[True, False]], [[0]], [[True, True]])
    assert tf.tensor_scatter_nd_update([[True, False]], [[0]], [[False, True]]).numpy().tolist() == [[False, True]]


def test_histogram_fixed_width_counts_as_tensorflow():
    # TF 2.21's counts: below the range in the first bin, at or above it in the last.
    assert tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 7.5], [0.0, 5.0],
                                    nbins=5).numpy().tolist() == [2, 1, 1, 0, 2]
    counts = tf.histogram_fixed_width(tf.constant([1, 2, 9, -4]), [0, 10], nbins=3,
                                      dtype=tf.int64)
    assert counts.dtype == tf.int64 and counts.numpy().tolist() == [3, 0, 1]
    # An int32 value far above the range does not overflow into a negative bin.
    assert tf.histogram_fixed_width(tf.constant([2147483647]), [-3, -1],
                                    nbins=2).numpy().tolist() == [0, 1]
    for bad in (lambda: tf.histogram_fixed_width([1.0], [1.0, 1.0]),
                lambda: tf.histogram_fixed_width([1.0], [0.0, 1.0], nbins=0),
                lambda: tf.histogram_fixed_width(tf.constant([1.0], tf.float16),
                                                 tf.constant([0.0, 1.0], tf.float16)),
                lambda: tf.histogram_fixed_width([float("nan")], [0.0, 1.0]),
                lambda: tf.histogram_fixed_width(tf.constant([1.0], tf.float64),
                                                 tf.constant([0.0, 1.0]))):
        with pytest.raises(tf.errors.InvalidArgumentError):
            bad()


def test_gather_nd_of_indices_of_unknown_rank():
    # Traced with an unknown rank: the rank is checked as the graph runs (TF 2.21's texts).
    v = tf.Variable(tf.ones([4, 3]))

    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)])
    def rows_gradient(idx):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather_nd(v, idx))
        return tf.convert_to_tensor(tape.gradient(y, v))

    assert rows_gradient(tf.constant([[1], [1]])).numpy().tolist() == [
        [0, 0, 0], [2, 2, 2], [0, 0, 0], [0, 0, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="indices must be at least a vector"):
        rows_gradient(tf.constant(1))
