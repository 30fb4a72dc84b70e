"""Creation and gather ops of ops/array_ops.py: eye, range, linspace, one_hot, gather.

Expected values and error messages were printed by TensorFlow 2.21 for the same calls.
"""

import numpy as np
import pytest

import tapeflow as tf


def _check(t, dtype, values):
    assert t.dtype == dtype
    np.testing.assert_allclose(t.numpy(), values, rtol=1e-7)
    assert t.shape == np.shape(values)


# -- range ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, dtype, values", [
    ((5,), {}, tf.int32, [0, 1, 2, 3, 4]),
    ((1, 5, 2), {}, tf.int32, [1, 3]),
    ((1.0, 5), {}, tf.float32, [1, 2, 3, 4]),
    ((0, 1, 0.3), {}, tf.float32, np.array([0, 0.3, 0.6, 0.90000004], np.float32)),
    ((5,), {"dtype": tf.float32}, tf.float32, [0, 1, 2, 3, 4]),
    ((5, 1, -2), {}, tf.int32, [5, 3]),
    ((np.int64(3),), {}, tf.int64, [0, 1, 2]),
    ((2, 10, 3), {"dtype": tf.int64}, tf.int64, [2, 5, 8]),
    ((0.0, 1.0, 0.1), {}, tf.float32, np.array([0, .1, .2, .3, .4, .5, .6, .7, .8, .90000004],
                                                np.float32)),
])
def test_range_values_and_dtype_inference(args, kwargs, dtype, values):
    _check(tf.range(*args, **kwargs), dtype, values)


def test_range_with_tensor_arguments_promotes_to_the_widest():
    _check(tf.range(tf.constant(5, tf.int64)), tf.int64, [0, 1, 2, 3, 4])
    _check(tf.range(tf.constant(1.5, tf.float64), 3), tf.float64, [1.5, 2.5])
    _check(tf.range(tf.constant(1), 3.5), tf.float32, [1, 2, 3])


@pytest.mark.parametrize("args, message", [
    ((5, 1), "Requires start <= limit when delta > 0: 5/1 [Op:Range]"),
    ((0, 5, 0), "Requires delta != 0: 0 [Op:Range]"),
    ((0, 5, -1), "Requires start >= limit when delta < 0: 0/5 [Op:Range]"),
])
def test_range_errors(args, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.range(*args)
    assert str(info.value) == message


# -- linspace ------------------------------------------------------------------------------------

def test_linspace():
    _check(tf.linspace(0.0, 1.0, 5), tf.float32, [0, 0.25, 0.5, 0.75, 1])
    _check(tf.linspace(0, 1, 5), tf.float64, [0, 0.25, 0.5, 0.75, 1])  # ints give float64
    _check(tf.linspace(1.0, 10.0, 1), tf.float32, [1])
    _check(tf.linspace(0.0, 1.0, 0), tf.float32, np.zeros(0))
    _check(tf.linspace([0.0, 1.0], [1.0, 3.0], 3), tf.float32, [[0, 1], [0.5, 2], [1, 3]])
    _check(tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1), tf.float32,
           [[0, 0.5, 1], [1, 2, 3]])


def test_linspace_is_differentiable_in_start_and_stop():
    start, stop = tf.constant(0.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([start, stop])
        y = tf.reduce_sum(tf.linspace(start, stop, 5) * tf.constant([1.0, 2, 3, 4, 5]))
    d_start, d_stop = tape.gradient(y, [start, stop])
    # d/dstart sum_i w_i (1 - i/4) and d/dstop sum_i w_i i/4, w = 1..5
    np.testing.assert_allclose([d_start.numpy(), d_stop.numpy()], [5.0, 10.0])


def test_linspace_negative_num():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Range\]"):
        tf.linspace(0.0, 1.0, -1)


# -- eye -----------------------------------------------------------------------------------------

def test_eye():
    _check(tf.eye(2), tf.float32, [[1, 0], [0, 1]])
    _check(tf.eye(2, 3, dtype=tf.int32), tf.int32, [[1, 0, 0], [0, 1, 0]])
    _check(tf.eye(2, batch_shape=[2]), tf.float32, [np.eye(2)] * 2)
    _check(tf.eye(tf.constant(2)), tf.float32, np.eye(2))
    assert tf.eye is tf.linalg.eye  # one function, as in TensorFlow


@pytest.mark.parametrize("args", [(-1,), (2, -1), (2, None, [-1])])
def test_eye_negative_size(args):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Dimension -1 must be >= 0 \[Op:Fill\]$"):
        tf.eye(*args)


def test_eye_float_size():
    with pytest.raises(TypeError, match=r"^Arguments `num_rows` and `num_columns` must be "
                                        r"positive integer values. Received: num_rows=2.0, "
                                        r"num_columns=2.0$"):
        tf.eye(2.0)


# -- one_hot -------------------------------------------------------------------------------------

def test_one_hot_values():
    # Out-of-range and negative indices give rows of off_value.
    _check(tf.one_hot([0, 2, -1, 5], 3), tf.float32,
           [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    _check(tf.one_hot([0, 2], 3, axis=0), tf.float32, [[1, 0], [0, 0], [0, 1]])
    _check(tf.one_hot([[0, 2]], 3, on_value=5, off_value=-1), tf.int32,
           [[[5, -1, -1], [-1, -1, 5]]])
    _check(tf.one_hot([0, 1], 2, dtype=tf.int64), tf.int64, [[1, 0], [0, 1]])


def test_one_hot_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"attr 'TI' of float is not in the list.*\[Op:OneHot\]"):
        tf.one_hot([0.0, 1.0], 2)
    with pytest.raises(TypeError, match=r"dtype <dtype: 'float32'> of on_value does not match "
                                         r"dtype parameter <dtype: 'int32'>"):
        tf.one_hot([0, 1], 2, on_value=1.0, dtype=tf.int32)
    with pytest.raises(TypeError, match=r"dtype <dtype: 'float32'> of on_value does not match "
                                         r"dtype <dtype: 'int32'> of off_value"):
        tf.one_hot([0, 1], 2, on_value=1.0, off_value=0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected axis to be -1 or between \[0, 2\)\.  But received: 3"):
        tf.one_hot([0, 1], 2, axis=3)


def test_one_hot_has_no_gradient():
    on = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(on)
        y = tf.one_hot([0, 1], 2, on_value=on, off_value=0.0)
    assert tape.gradient(y, on) is None


# -- gather --------------------------------------------------------------------------------------

P = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_gather_values():
    p = tf.constant(P)
    _check(tf.gather(p, [1, 0, 1]), tf.float32, [[4, 5, 6], [1, 2, 3], [4, 5, 6]])
    _check(tf.gather(p, [[2], [0]], axis=1), tf.float32, [[[3], [1]], [[6], [4]]])
    _check(tf.gather(p, [0, 2], axis=1), tf.float32, [[1, 3], [4, 6]])
    _check(tf.gather(p, 1), tf.float32, [4, 5, 6])
    _check(tf.gather(p, [[2, 0], [1, 1]], axis=1, batch_dims=1), tf.float32, [[3, 1], [5, 5]])
    _check(tf.gather(p, [[2, 0], [1, 1]], axis=1, batch_dims=-1), tf.float32, [[3, 1], [5, 5]])
    _check(tf.gather(tf.constant([7, 8, 9]), tf.constant([2, 2], tf.int64)), tf.int32, [9, 9])


@pytest.mark.parametrize("call, message", [
    (lambda p: tf.gather(p, 5), "indices = 5 is not in [0, 2) [Op:GatherV2]"),
    (lambda p: tf.gather(p, [-1]), "indices[0] = -1 is not in [0, 2) [Op:GatherV2]"),
    (lambda p: tf.gather(p, [[0, 1], [3, 0]]), "indices[1,0] = 3 is not in [0, 2) "
                                               "[Op:GatherV2]"),
    (lambda p: tf.gather(p, [0.0]), "Value for attr 'Tindices' of float is not in the list of "
                                    "allowed values: int16, int32, int64 [Op:GatherV2]"),
    (lambda p: tf.gather(p, [0], axis=2), "Shape must be at least rank 3 but is rank 2 "
                                          "[Op:GatherV2]"),
    (lambda p: tf.gather(p, [[2, 0]], axis=1, batch_dims=1),
     "params.shape[0]: 2 should be equal to indices.shape[0]: 1 [Op:GatherV2]"),
])
def test_gather_errors(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call(tf.constant(P))
    assert str(info.value) == message


def test_gather_gradient_sums_to_a_dense_scatter_add():
    p = tf.constant(P)
    with tf.GradientTape() as tape:
        tape.watch(p)
        z = tf.reduce_sum(tf.square(tf.gather(p, [[1, 0], [1, 1]])))
    # TF 2.21 gives IndexedSlices that sum to this dense gradient.
    grad = tape.gradient(z, p)
    assert isinstance(grad, tf.IndexedSlices)
    _check(tf.convert_to_tensor(grad), tf.float32, [[2, 4, 6], [24, 30, 36]])
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.gather(p, [[2, 0], [1, 1]], axis=1, batch_dims=1)
        z = tf.reduce_sum(y * tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    _check(tape.gradient(z, p), tf.float32, [[2, 0, 1], [0, 7, 0]])  # TF 2.21


def test_gather_second_derivative():
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 2, 2]) ** 3)
        # 3 x^2 times the multiplicity, as IndexedSlices: densified to differentiate again
        g = tf.convert_to_tensor(inner.gradient(y, x))
    _check(tf.convert_to_tensor(outer.gradient(g, x)), tf.float64, [6.0, 0.0, 36.0])


# -- indexing as TensorFlow's __getitem__ (values and messages printed by TF 2.21) --------------

_X = [[1., 2., 3.], [4., 5., 6.]]
_BAD_INDEX = (r"^Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and "
              r"scalar tf.int32/tf.int64 tensors are valid indices, got ")


def test_list_index_is_a_tuple_index():
    x = tf.constant(_X)
    _check(x[[0, 1]], tf.float32, 2.)
    _check(x[[0]], tf.float32, [1., 2., 3.])
    _check(x[[0, slice(1, None)]], tf.float32, [2., 3.])
    _check(x[[..., 0]], tf.float32, [1., 4.])
    _check(x[[]], tf.float32, _X)
    _check(x[0, True], tf.float32, 2.)  # a Python bool among ints is an int, as in TF
    _check(tf.Variable(_X)[[1, 2]], tf.float32, 6.)


@pytest.mark.parametrize("key, message", [
    ([0, 5], r"^slice index 5 of dimension 1 out of bounds. \[Op:StridedSlice\]$"),
    ([0, 1, 2], r"^Index out of range using input dim 2; input has only 2 dims "
                r"\[Op:StridedSlice\]$"),
    (-3, r"^slice index -1 of dimension 0 out of bounds. \[Op:StridedSlice\]$"),
    (-4, r"^slice index -2 of dimension 0 out of bounds. \[Op:StridedSlice\]$"),
    ((slice(None), -4), r"^slice index -1 of dimension 1 out of bounds. \[Op:StridedSlice\]$"),
    ([True, False], r"^Value for attr 'Index' of bool is not in the list of allowed values: "
                    r"int16, int32, int64\n"),
])
def test_index_out_of_range(key, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.constant(_X)[key]


@pytest.mark.parametrize("key", [0, slice(None), (Ellipsis, 0), (None, 0)])
def test_indexing_a_scalar(key):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Attempting to slice scalar input. \[Op:StridedSlice\]$"):
        tf.constant(3.)[key]
    _check(tf.constant(3.)[...], tf.float32, 3.)
    _check(tf.constant(3.)[None], tf.float32, [3.])


def test_boolean_index_is_boolean_mask():
    x = tf.constant(_X)
    _check(x[tf.constant([True, False])], tf.float32, [[1., 2., 3.]])
    _check(x[np.array([False, True])], tf.float32, [[4., 5., 6.]])
    _check(x[x > 2.5], tf.float32, [3., 4., 5., 6.])
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        x[tf.constant([True, False, True])]
    with pytest.raises(ValueError, match=r"^mask cannot be scalar.$"):
        x[True]
    # Its gradient flows to the selected rows only.
    v = tf.Variable(_X)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v[tf.constant([False, True])])
    _check(tape.gradient(y, v), tf.float32, [[0., 0., 0.], [1., 1., 1.]])


@pytest.mark.parametrize("key, shown", [
    (1.0, "1.0"), ([1.0], "1.0"), ((slice(None), 1.0), "1.0"), (slice(0.5, None), "0.5"),
    (np.array([0, 1]), r"array\(\[0, 1\]\)"),
])
def test_non_integer_index(key, shown):
    with pytest.raises(TypeError, match=_BAD_INDEX + shown + "$"):
        tf.constant(_X)[key]


def test_float_or_int8_tensor_index():
    x = tf.constant(_X)
    with pytest.raises(TypeError, match=_BAD_INDEX + r"<tf.Tensor: shape=\(\), dtype=float32"):
        x[[tf.constant(1.0)]]
    with pytest.raises(TypeError, match=_BAD_INDEX + r"<tf.Tensor: shape=\(\), dtype=int8"):
        x[tf.constant(1, tf.int8)]
    _check(x[[tf.constant(1), 0]], tf.float32, 4.)
    _check(x[tf.constant(1, tf.int16)], tf.float32, [4., 5., 6.])


# -- reshape / concat / gather messages ----------------------------------------------------------

@pytest.mark.parametrize("shape, message", [
    ([4, -1], "Input to reshape is a tensor with 6 values, but the requested shape requires a "
              "multiple of 4"),
    ([4, -1, 0], "Input to reshape is a tensor with 6 values, but the requested shape requires "
                 "a multiple of 4"),
    ([4, 5], "Input to reshape is a tensor with 6 values, but the requested shape has 20"),
    ([0, -1], "Input to reshape is a tensor with 6 values, but the requested shape has 0"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ([-2, 3], "Size 0 must be non-negative, not -2"),
])
def test_reshape_errors(shape, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"^{message} \\[Op:Reshape\\]$"):
        tf.reshape(tf.range(6), shape)


def test_reshape_infers_next_to_zero_sizes():
    assert tf.reshape(tf.zeros([0, 3]), [-1, 0]).shape == (3, 0)
    assert tf.reshape(tf.zeros([0, 3, 4]), [0, 5, -1]).shape == (0, 5, 2)
    assert tf.reshape(tf.zeros([0, 3]), [2, -1]).shape == (2, 0)


@pytest.mark.parametrize("shapes, axis, message", [
    ([[2, 3], [3, 4]], 0, r"Dimension 1 in both shapes must be equal: shape\[0\] = \[2,3\] vs. "
                          r"shape\[1\] = \[3,4\]"),
    ([[2, 3], [2, 3], [3, 4]], 1, r"Dimension 0 in both shapes must be equal: shape\[0\] = "
                                  r"\[2,3\] vs. shape\[2\] = \[3,4\]"),
    ([[2, 3], [3]], 0, r"Ranks of all input tensors should match: shape\[0\] = \[2,3\] vs. "
                       r"shape\[1\] = \[3\]"),
    ([[], []], 0, r"Can't concatenate scalars \(use tf.stack instead\)"),
    ([[2, 3], [2, 3]], 2, r"Expected concatenating dimensions in the range \[-2, 2\), but got 2"),
])
def test_concat_errors(shapes, axis, message):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"^ConcatOp : {message} \\[Op:ConcatV2\\]$"):
        tf.concat([tf.zeros(s) for s in shapes], axis)


@pytest.mark.parametrize("ind_shape, axis, batch_dims, message", [
    ([2, 3], 1, 2, r"batch_dims \(2\) must be less than or equal to axis \(1\)."),
    ([2, 3], -3, 1, r"batch_dims \(1\) must be less than or equal to axis \(0\)."),
    ([2], 2, 2, r"Expected batch_dims in the range \[-1, 1\], but got 2"),
    ([2, 3, 4, 1], 2, 3, r"batch_dims \(3\) must be less than rank\(params\) \(3\)."),
    ([2, 3], -4, 0, r"Shape must be at least rank 4 but is rank 3"),
])
def test_gather_batch_dims_errors(ind_shape, axis, batch_dims, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"^{message} \\[Op:GatherV2\\]$"):
        tf.gather(tf.zeros([2, 3, 4]), tf.zeros(ind_shape, tf.int32), axis=axis,
                  batch_dims=batch_dims)


def test_gather_axis_0_ignores_batch_dims():
    # TF's tf.gather drops batch_dims when axis is 0: a plain gather.
    params = tf.reshape(tf.range(24.), [2, 3, 4])
    out = tf.gather(params, tf.constant([[1, 0, 1], [0, 0, 1]]), axis=0, batch_dims=1)
    assert out.shape == (2, 3, 3, 4)
    np.testing.assert_array_equal(out.numpy()[0, 0], params.numpy()[1])


# -- argument checks, with TensorFlow 2.21's error classes and messages ---------------------

def test_slice_rejects_blocks_outside_the_tensor():
    x = np.arange(5)
    for begin, size, message in [([2], [4], r"Expected size\[0\] in \[0, 3\], but got 4"),
                                 ([-1], [1], r"Expected begin\[0\] in \[0, 5\], but got -1"),
                                 ([1], [-2], r"Expected size\[0\] in \[0, 4\], but got -2"),
                                 ([6], [-1], r"Expected begin\[0\] in \[0, 5\], but got 6"),
                                 ([0, 0], [1, 1], r"1-D tensors of size 1, but got shapes "
                                                  r"\[2\] and \[2\]")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.slice(x, begin, size)
    assert tf.slice(x, [5], [0]).shape == (0,)
    np.testing.assert_array_equal(tf.slice(x, [1], [-1]).numpy(), [1, 2, 3, 4])


def test_tile_rejects_negative_and_non_vector_multiples():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected multiples\[0\] >= 0, but got -1 \[Op:Tile\]"):
        tf.tile([1, 2], [-1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected multiples to be 1-D, but got shape \[1,1\]"):
        tf.tile([1, 2], [[2]])


def test_stack_and_unstack_error_classes_match_tensorflow():
    with pytest.raises(ValueError, match=r"Argument `axis` = 3 not in range \[-2, 2\)"):
        tf.stack([np.ones(2), np.ones(2)], axis=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.stack([np.ones(2), np.ones(3)])
    with pytest.raises(ValueError, match=r"Argument `axis` = -3 not in range \[-2, 2\)"):
        tf.unstack(np.ones((2, 3)), axis=-3)
    with pytest.raises(ValueError, match=r"Argument `axis` = 0 not in range \[0, 0\)"):
        tf.unstack(5.)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input shape axis 0 must equal 3, got shape \[2,3\] \[Op:Unpack\]"):
        tf.unstack(np.ones((2, 3)), num=3)
    empty = tf.stack([])
    assert empty.dtype == tf.float32 and empty.shape == (0,)


def test_transpose_perm_counts_negative_entries_from_the_end():
    assert tf.transpose(np.ones((2, 3)), [-1, 0]).shape == (3, 2)
    for perm, message in [([-3, 0], r"-1 is out of range \[0 .. 2\)"),
                          ([0, 0], r"1 is missing from \{0,0\}\."),
                          ([[1, 0]], r"perm must be rank 1, got shape \[1,2\]")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.transpose(np.ones((2, 3)), perm)


def test_split_squeeze_and_fill_argument_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Split size at index 0 must be >= 0"):
        tf.split(np.arange(4), [-2, 6])
    with pytest.raises(tf.errors.InvalidArgumentError, match="There can only be one -1"):
        tf.split(np.arange(4), [-1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Tried to squeeze dim index 2 for tensor with 2 dimensions"):
        tf.squeeze(np.ones((1, 2)), 2)
    for make in (lambda: tf.zeros([-1]), lambda: tf.ones([2, -1]), lambda: tf.fill([-1], 1.)):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0"):
            make()


# -- round 2: TF 2.21's answers, recorded by hand ---------------------------------------------

@pytest.mark.parametrize("sizes", [[-1], [2], tf.constant([-1]), [[1, 2]], np.array([[1, 2]]),
                                   [[1], [2]]])
def test_split_refuses_a_wrong_single_size_and_2d_sizes(sizes):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="only one output|must be 1-D"):
        tf.split(tf.constant([[1., 2., 3.]]), sizes, axis=1)


def test_split_refuses_a_scalar_tensor_of_sizes():
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(tf.constant([1, 2]), tf.constant(2))
    assert [t.numpy().tolist() for t in tf.split(tf.constant([[1., 2., 3.]]), [3], axis=1)] == \
        [[[1., 2., 3.]]]


def test_concat_of_nothing_is_an_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="ConcatV2"):
        tf.concat([], 0)


def test_squeeze_with_empty_axis_list_squeezes_all():
    assert tf.squeeze(tf.zeros([3, 1, 1]), axis=[]).shape == (3,)


def test_one_hot_fills_with_converted_0_and_1():
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype bool"):
        tf.one_hot(tf.constant(1), 2, on_value=True, dtype=tf.bool)
    out = tf.one_hot(tf.constant(1), 2, on_value=np.float64(1.), dtype=tf.int32)  # NumPy: a hint
    assert out.dtype == tf.int32 and out.numpy().tolist() == [0, 1]


def test_linspace_incompatible_shapes_are_an_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,2\] vs. \[3\]"):
        tf.linspace(tf.constant([[1., 2.], [3., 4.]]), tf.constant([1., 2., 3.]), 3)


def test_gather_with_batch_dims_over_empty_batches():
    out = tf.gather(tf.zeros([3, 0, 2, 2], tf.float64), tf.zeros([3, 0, 4, 3], tf.int32),
                    axis=3, batch_dims=-2)
    assert out.shape == (3, 0, 2, 4, 3)


def test_gather_checks_no_index_when_the_result_is_empty():
    assert tf.gather(tf.zeros([3, 0]), [5]).shape == (1, 0)
    assert tf.gather(tf.zeros([1, 3, 0]), [[-1]], axis=1, batch_dims=1).shape == (1, 1, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 0 is not in \[0, 0\)"):
        tf.gather(tf.zeros([0, 2]), [0])


def test_strided_slice_reads_its_masks_as_tensorflow():
    # TF 2.21's shapes and values for each mask.
    x = tf.reshape(tf.range(24), [2, 3, 4])
    cases = [(([0, 1], [2, 3], [1, 1]), {}, (2, 2, 4), [4, 5, 6, 7]),
             (([1, 0, 0], [2, 3, 4]), {"shrink_axis_mask": 1}, (3, 4), [12, 13, 14, 15]),
             (([0, 0], [0, 2], [1, 1]), {"ellipsis_mask": 1}, (2, 3, 2), [0, 1, 4, 5]),
             (([0, 0, 3], [0, 0, 0], [1, 1, -2]), {"begin_mask": 3, "end_mask": 7}, (2, 3, 2),
              [3, 1, 7, 5]),
             (([0, 0], [1, 1], [1, 1]), {"new_axis_mask": 1}, (1, 1, 3, 4), [0, 1, 2, 3])]
    for args, masks, shape, head in cases:
        out = tf.strided_slice(x, *args, **masks)
        assert out.shape == shape and out.numpy().ravel()[:4].tolist() == head
    with pytest.raises(tf.errors.InvalidArgumentError, match="only stride 1"):
        tf.strided_slice(x, [0], [-3], [-2], shrink_axis_mask=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-zero"):
        tf.strided_slice(x, [0], [1], [0])
    v = tf.Variable(tf.ones([3, 2]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.strided_slice(v, [1], [3]))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[0, 0], [1, 1], [1, 1]])


def test_slicing_with_tensors_of_two_integer_dtypes_fails_as_tensorflows_pack():
    x = tf.constant([[[5, 2], [4, 1]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pack as input #1"):
        x[tf.constant(0, tf.int32), tf.constant(1, tf.int64)]
    assert x[0, tf.constant(1, tf.int64)].numpy().tolist() == [4, 1]   # ints adapt
