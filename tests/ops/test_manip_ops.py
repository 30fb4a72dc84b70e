"""pad, reverse, roll, meshgrid, repeat, cumsum/cumprod, sort, argsort, top_k and unique,
checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tapeflow as tf
from _support import grad

X = [[1., 2., 3.], [4., 5., 6.]]


def test_pad_modes():
    assert tf.pad(X, [[1, 0], [2, 1]]).numpy().tolist() == [
        [0., 0., 0., 0., 0., 0.], [0., 0., 1., 2., 3., 0.], [0., 0., 4., 5., 6., 0.]]
    assert tf.pad(X, [[1, 1], [2, 2]], "REFLECT").numpy().tolist() == [
        [6., 5., 4., 5., 6., 5., 4.], [3., 2., 1., 2., 3., 2., 1.],
        [6., 5., 4., 5., 6., 5., 4.], [3., 2., 1., 2., 3., 2., 1.]]
    assert tf.pad(X, [[1, 1], [2, 2]], "symmetric").numpy().tolist() == [
        [2., 1., 1., 2., 3., 3., 2.], [2., 1., 1., 2., 3., 3., 2.],
        [5., 4., 4., 5., 6., 6., 5.], [5., 4., 4., 5., 6., 6., 5.]]
    assert tf.pad(X, [[1, 1], [0, 0]], constant_values=7).numpy()[0].tolist() == [7., 7., 7.]


def test_pad_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"paddings must be less than the dimension size: 2, 1 not less than 2 \[Op:MirrorPad\]"):
        tf.pad(X, [[2, 1], [2, 2]], "REFLECT")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,3\] \[Op:Pad\]"):
        tf.pad(X, [[1, 1]])
    with pytest.raises(ValueError, match="Received `mode` = FOO"):
        tf.pad(X, [[1, 1], [1, 1]], "FOO")


def test_pad_gradients_fold_mirrored_entries_back():
    np.testing.assert_allclose(grad(lambda x: tf.pad(x, [[2, 1]], "REFLECT"), [1., 2., 3.]), [1., 3., 2.])
    np.testing.assert_allclose(grad(lambda x: tf.pad(x, [[1, 1]]), [1., 2.]), [1., 1.])


def test_reverse_and_roll():
    assert tf.reverse(X, [1]).numpy().tolist() == [[3., 2., 1.], [6., 5., 4.]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'axis'\[0\] = 2 is out of valid range"):
        tf.reverse(X, [2])
    assert tf.roll(X, shift=[1, -1], axis=[0, 1]).numpy().tolist() == [[5., 6., 4.], [2., 3., 1.]]
    np.testing.assert_allclose(grad(lambda x: tf.roll(x, 1, 0) * tf.constant([1., 2., 3.], tf.float64),
                                     [1., 2., 3.]), [2., 3., 1.])


def test_meshgrid_indexing():
    gx, gy = tf.meshgrid([1, 2, 3], [4, 5])
    assert gx.numpy().tolist() == [[1, 2, 3], [1, 2, 3]] and gy.numpy().tolist() == [[4, 4, 4], [5, 5, 5]]
    ix, iy = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert ix.shape == (3, 2) and iy.numpy().tolist() == [[4, 5], [4, 5], [4, 5]]


def test_repeat():
    assert tf.repeat(X, 2).numpy().tolist() == [1., 1., 2., 2., 3., 3., 4., 4., 5., 5., 6., 6.]
    assert tf.repeat(X, [1, 2], axis=0).numpy().tolist() == [[1., 2., 3.], [4., 5., 6.], [4., 5., 6.]]
    assert tf.repeat(X, [1, 2, 0], axis=1).numpy().tolist() == [[1., 2., 2.], [4., 5., 5.]]


def test_cumsum_cumprod():
    assert tf.math.cumsum(X, axis=1, exclusive=True, reverse=True).numpy().tolist() == [[5., 3., 0.], [11., 6., 0.]]
    assert tf.math.cumprod(X, axis=1, exclusive=True).numpy().tolist() == [[1., 1., 2.], [1., 4., 20.]]
    ints = tf.cumsum([1, 2, 3])
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [1, 3, 6]
    np.testing.assert_allclose(grad(lambda x: tf.math.cumprod(x, exclusive=True, reverse=True), [2., 3., 4.]),
                               [0., 4., 4.])


def test_sort_argsort_top_k():
    assert tf.sort([3., 1., 2.], direction="DESCENDING").numpy().tolist() == [3., 2., 1.]
    assert tf.argsort([3., 1., 2., 1.]).numpy().tolist() == [1, 3, 2, 0]
    assert tf.argsort([3., 1., 2., 1.], direction="DESCENDING").numpy().tolist() == [0, 2, 1, 3]
    assert tf.sort([[3, 1], [0, 2]], axis=0).numpy().tolist() == [[0, 1], [3, 2]]
    values, indices = tf.math.top_k([3., 1., 2., 3.], k=2)
    assert values.numpy().tolist() == [3., 3.] and indices.numpy().tolist() == [0, 3]
    assert indices.dtype == tf.int32
    with pytest.raises(ValueError, match="Argument `direction` should be one of ASCENDING, DESCENDING"):
        tf.sort([1.], direction="X")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must have at least k columns. Had 4, needed 7 \[Op:TopKV2\]"):
        tf.math.top_k([3., 1., 2., 3.], k=7)


def test_sort_and_top_k_gradients_go_to_the_original_positions():
    np.testing.assert_allclose(grad(lambda x: tf.sort(x) * tf.constant([1., 2., 3.], tf.float64), [3., 1., 2.]),
                               [3., 1., 2.])
    np.testing.assert_allclose(grad(lambda x: tf.math.top_k(x, 2).values * tf.constant([1., 2.], tf.float64),
                                     [3., 1., 2.]), [1., 0., 2.])


def test_unique():
    y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert y.numpy().tolist() == [1, 2, 4, 7, 8] and idx.numpy().tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    y, idx, count = tf.unique_with_counts([3, 1, 3])
    assert y.numpy().tolist() == [3, 1] and idx.numpy().tolist() == [0, 1, 0]
    assert count.numpy().tolist() == [2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"unique expects a 1D vector. \[Op:Unique\]"):
        tf.unique([[1, 1]])


def test_top_k_is_also_tf_nn_top_k():
    # TF exports the same function as tf.nn.top_k; tutorials use that spelling.
    assert tf.nn.top_k is tf.math.top_k
    values, indices = tf.nn.top_k(tf.constant([[1., 3., 2.]]), k=2)
    assert values.numpy().tolist() == [[3., 2.]] and indices.numpy().tolist() == [[1, 2]]


def test_in_top_k_counts_ties_at_the_boundary_as_tensorflow():
    # Outputs of TF 2.21's tf.math.in_top_k on the same inputs.
    predictions = tf.constant([[0.1, 0.3, 0.3], [0.5, 0.2, 0.3]])
    np.testing.assert_array_equal(
        tf.math.in_top_k(tf.constant([2, 0]), predictions, 1).numpy(), [True, True])
    np.testing.assert_array_equal(
        tf.nn.in_top_k(tf.constant([1, 2]), predictions, 2).numpy(), [True, True])
    np.testing.assert_array_equal(
        tf.math.in_top_k(tf.constant([5]), tf.constant([[0.1, 0.3]]), 1).numpy(), [False])


def test_pad_bool_with_default_zero_pads_false():
    # TF 2.21: the default constant_values=0 means the dtype's zero, False for bool.
    out = tf.pad(tf.constant([[True]]), [[0, 1], [1, 0]])
    assert out.dtype == tf.bool
    np.testing.assert_array_equal(out.numpy(), [[False, True], [False, False]])


def test_exclusive_cumulative_over_empty_axis():
    out = tf.math.cumsum(tf.zeros([2, 0], tf.int32), axis=1, exclusive=True, reverse=True)
    assert out.shape == (2, 0) and out.dtype == tf.int32
    assert tf.math.cumprod(tf.zeros([0]), exclusive=True).shape == (0,)


def test_sequence_mask_matches_tensorflow():
    assert tf.sequence_mask([1, 3, 2], 5).numpy().tolist() == [
        [True, False, False, False, False], [True, True, True, False, False],
        [True, True, False, False, False]]
    assert tf.sequence_mask([[1, 3], [2, 0]]).shape == (2, 2, 3)
    out = tf.sequence_mask(tf.constant([1, 3]), dtype=tf.float32)
    assert out.dtype == tf.float32 and out.numpy().tolist() == [[1, 0, 0], [1, 1, 1]]
    assert tf.sequence_mask(tf.constant([1., 3.])).shape == (2, 3)
    assert tf.sequence_mask(2, 3).numpy().tolist() == [True, True, False]
    with pytest.raises(ValueError, match="must be scalar"):
        tf.sequence_mask(tf.constant([1, 3]), maxlen=[2])


def test_shape_n():
    shapes = tf.shape_n([tf.zeros([2, 3]), tf.constant(1.0), [1, 2]])
    assert [s.numpy().tolist() for s in shapes] == [[2, 3], [], [2]]
    assert shapes[0].dtype == tf.int32
    assert tf.shape_n([tf.zeros([2, 3])], out_type=tf.int64)[0].dtype == tf.int64


def test_cumulative_logsumexp_values_and_gradient():
    # Values and gradients from TensorFlow 2.21.
    x = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], tf.float64)
    w = tf.constant([[1., -2., 3.], [0.5, 1., -1.]], tf.float64)
    expected = {(): np.log(np.cumsum(np.exp(x.numpy()), axis=0)),
                ("exclusive",): np.concatenate([np.full((1, 3), -np.inf), x.numpy()[:1]]),
                ("reverse",): np.log(np.cumsum(np.exp(x.numpy())[::-1], axis=0)[::-1])}
    for flags, value in expected.items():
        kw = {f: True for f in flags}
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.cumulative_logsumexp(x, **kw)
            loss = tf.reduce_sum(y * w)
        np.testing.assert_allclose(y.numpy(), value)
        if not flags:
            np.testing.assert_allclose(tape.gradient(loss, x).numpy(),
                                       [[1.13447, -1.73106, 2.07586], [0.36553, 0.73106, -0.07586]],
                                       atol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="CumulativeLogsumexp"):
        tf.math.cumulative_logsumexp(tf.constant([1, 2]))


def test_repeat_checks_its_axis_and_counts_as_tensorflow():
    x = np.arange(24.).reshape(2, 3, 4)
    with pytest.raises(ValueError, match=r"axis=3 out of bounds: expected -3<=axis<3"):
        tf.repeat(x, 3, axis=3)   # used to wrap around to axis 0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected multiples\[1\] >= 0"):
        tf.repeat(x, -1, axis=0)
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.repeat(np.arange(3), [1, 2], axis=0)
    with pytest.raises(TypeError, match="must be of type integer"):
        tf.repeat(np.arange(3), 2.0)
    with pytest.raises(TypeError, match="Argument `axis` must be an int"):
        tf.repeat(np.arange(3), 2, axis=0.0)
    # TF 2.21: a negative count in a vector repeats nothing; a scalar input repeats.
    np.testing.assert_array_equal(tf.repeat(np.arange(3), [1, -1, 2], axis=0).numpy(), [0, 2, 2])
    np.testing.assert_array_equal(tf.repeat(5, 3, axis=0).numpy(), [5, 5, 5])


def test_in_top_k_is_false_for_rows_holding_inf_or_nan():
    # TF 2.21: a row with any non-finite prediction cannot say.
    p = np.array([[1., np.nan, 0.], [np.nan, 0.5, 2.], [np.inf, 1., 0.], [3., 1., 2.]], np.float32)
    np.testing.assert_array_equal(tf.math.in_top_k([0, 1, 1, 0], p, 2).numpy(),
                                  [False, False, False, True])


# -- round 2: answers of TF 2.21 (CPU), recorded by hand --------------------------------------

NAN = np.nan


def _same(got, expected):
    np.testing.assert_array_equal(np.asarray(got.numpy(), np.float64), np.asarray(expected, np.float64))


def test_reverse_of_a_scalar_ignores_the_axes():
    for axis in ([0], [1], [-1], []):
        assert tf.reverse(tf.constant(0), axis).numpy() == 0


def test_repeat_counts_convert_as_int32_first():
    out = tf.repeat(tf.constant([], tf.int64), [], axis=0)
    assert out.dtype == tf.int64 and out.shape == (0,)
    assert tf.repeat(tf.constant([1, 2]), np.array([1., 2.]), axis=0).numpy().tolist() == [1, 2, 2]
    with pytest.raises(TypeError, match="must be of type integer"):
        tf.repeat(tf.constant([1, 2]), [1., 2.], axis=0)


@pytest.mark.parametrize("exclusive", [False, True])
def test_cumprod_gradient_is_zero_at_zeros_as_tensorflow(exclusive):
    x = [2., 0., 3., 4.]
    assert grad(lambda v: tf.math.cumprod(v, exclusive=exclusive), x).tolist() == [1., 0., 0., 0.]
    assert grad(lambda v: tf.math.cumprod(v, exclusive=exclusive, reverse=True), x).tolist() == \
        [0., 0., 4., 4.]


def test_reduce_prod_second_derivative_at_a_zero():
    x = tf.constant([2., 0., 4.])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_prod(x)
        g = inner.gradient(y, x)
    assert g.numpy().tolist() == [0., 8., 0.]
    assert outer.gradient(g, x).numpy().tolist() == [4., 0., 2.]


def test_cumulative_logsumexp_steps_over_nan_as_tensorflow():
    np.testing.assert_allclose(tf.math.cumulative_logsumexp([1., NAN, 2.]).numpy(),
                               [1., 1.6931472, 2.5514448], rtol=1e-6)
    np.testing.assert_allclose(tf.math.cumulative_logsumexp([1., NAN, 2.], reverse=True).numpy(),
                               [2.8619947, 2.6931472, 2.], rtol=1e-6)
    _same(tf.math.cumulative_logsumexp([NAN, NAN, 1.]), [-np.inf, -np.inf, 1.])
    _same(tf.math.cumulative_logsumexp([np.inf, np.inf, 1.]), [np.inf, NAN, NAN])
    # float16 rounds at each step, as TF's kernel does.
    half = tf.math.cumulative_logsumexp(tf.constant([0.1, 0.2, 0.3], tf.float16))
    assert half.numpy().tolist() == [0.0999755859375, 0.8447265625, 1.302734375]
    x = tf.constant([[0.4076987777023342, -np.inf], [NAN, 1.45373018973403]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.cumulative_logsumexp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[1.5, NAN], [NAN, 1.]])


def test_sort_and_argsort_axis_errors_are_tensorflows():
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 2 of dimension 0 out of bounds"):
        tf.sort(tf.constant([[1., 2.]]), axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index -1 of dimension 0 out of bounds"):
        tf.argsort(tf.constant(1.))


def test_sort_top_k_place_nans_where_tensorflows_std_sort_leaves_them():
    x = [1., NAN, 3., 2.]
    _same(tf.sort(x, direction="DESCENDING"), [3., 1., NAN, 2.])
    _same(tf.sort(x), [1., NAN, 2., 3.])
    assert tf.argsort(x, direction="DESCENDING").numpy().tolist() == [2, 0, 1, 3]
    _same(tf.sort([NAN, 1., 3., NAN, 2.]), [NAN, 1., 3., NAN, 2.])
    long = [5., NAN, 3, 8, 1, 9, 2, NAN, 7, 6, 4, 0, 11, 15, 13, 12, 14, 10, NAN, 16]  # introsort
    assert tf.argsort(long, direction="DESCENDING").numpy().tolist() == \
        [19, 10, 18, 13, 16, 14, 15, 12, 17, 5, 3, 8, 9, 0, 11, 7, 2, 6, 4, 1]
    assert tf.argsort(long).numpy().tolist() == \
        [11, 4, 6, 2, 10, 0, 9, 18, 8, 3, 5, 17, 12, 15, 14, 16, 13, 19, 7, 1]
    top = tf.math.top_k([1., NAN, 3., NAN, 2., 5.], 3)
    assert top.indices.numpy().tolist() == [1, 5, 2]
    assert tf.math.top_k([1., NAN, 3., NAN, 2., 5.], 3, sorted=False).indices.numpy().tolist() == [2, 1, 5]


def test_top_k_of_one_takes_eigens_maximum():
    # NaNs in the vector part of the reduction are skipped, in its tail they win (index 0).
    assert tf.math.top_k([1., 3., NAN], 1).indices.numpy().tolist() == [0]
    assert tf.math.top_k([NAN, 1., 3.], 1).indices.numpy().tolist() == [2]
    assert tf.math.top_k([1., 2, 3, 4, 5, 6, 7, NAN], 1).indices.numpy().tolist() == [6]
    assert tf.math.top_k(tf.constant([1., 2, 3, NAN], tf.float64), 1).indices.numpy().tolist() == [2]
    assert tf.math.top_k([NAN, -np.inf], 1).indices.numpy().tolist() == [1]


def test_top_k_unsorted_keeps_tensorflows_heap_order():
    x = [1., 5., 3., 2., 4.]
    assert tf.math.top_k(x, 3, sorted=False).indices.numpy().tolist() == [2, 1, 4]
    assert tf.math.top_k(x, 2, sorted=False).indices.numpy().tolist() == [4, 1]
    assert tf.math.top_k([0., 3, 2, 1, 4, 5, 6], 4, sorted=False).indices.numpy().tolist() == [1, 5, 4, 6]
    assert tf.math.top_k(tf.constant([6, 4, 5, 0, 1, 2, 3]), 5, sorted=False).indices.numpy().tolist() \
        == [5, 6, 0, 2, 1]


def test_unique_keeps_each_nan_and_refuses_complex():
    y, idx, count = tf.unique_with_counts([1., NAN, NAN, 1., 2.])
    _same(y, [1., NAN, NAN, 2.])
    assert idx.numpy().tolist() == [0, 1, 2, 0, 3] and count.numpy().tolist() == [2, 1, 1, 1]
    assert tf.unique([0., -0., 1.]).idx.numpy().tolist() == [0, 0, 1]
    with pytest.raises(tf.errors.NotFoundError, match="Unique"):
        tf.unique(tf.constant([1 + 1j], tf.complex64))


def test_in_top_k_takes_float32_predictions_only():
    p64 = tf.constant([[1., 2.]], tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but is a double"):
        tf.math.in_top_k(tf.constant([0]), p64, 1)
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        tf.math.in_top_k([0], p64, 1)  # TF's slow path, for a Python list of targets
    assert tf.math.in_top_k(tf.constant([1]), np.array([[1., 2.]]), 1).numpy().tolist() == [True]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="uint8 is not in the list of allowed values: int32, int64"):
        tf.math.in_top_k(tf.constant([0], tf.uint8), tf.constant([[1., 2.]]), 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input #2"):
        tf.math.in_top_k(tf.constant([0]), tf.constant([[1., 2.]]), tf.constant(1, tf.int64))


def test_sorts_of_an_empty_axis():
    assert tf.sort(tf.zeros([4, 3, 0], tf.int64)).shape == (4, 3, 0)
    assert tf.math.top_k(tf.zeros([4, 0]), 0).indices.shape == (4, 0)


def test_repeat_keeps_tensorflows_static_shape_error_for_an_empty_first_axis():
    with pytest.raises(ValueError, match=r"Tensor's shape \(0, 4\) is not compatible with supplied shape \(0, 0\)"):
        tf.repeat(tf.zeros([0, 2], tf.int32), [1, 3], axis=1)
    assert tf.repeat(tf.zeros([0, 2], tf.int32), 2, axis=1).shape == (0, 4)


def test_reverse_of_an_empty_tensor_ignores_the_axes():
    assert tf.reverse(tf.zeros([4, 0]), [5]).shape == (4, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of valid range"):
        tf.reverse(tf.zeros([4, 1]), [5])


def test_shape_n_takes_tensors_of_one_dtype():
    # TF 2.21's ShapeN has one type attribute: mixed dtypes raise (tapeflow accepted them).
    assert [s.numpy().tolist() for s in tf.shape_n([tf.constant([1, 2]), tf.constant([[1]])])] \
        == [[2], [1, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="ShapeN as input #1"):
        tf.shape_n([tf.constant([1, 2]), tf.constant([1], tf.int64)])
