"""Creation and gather ops of ops/array_ops.py: eye, range, linspace, one_hot, gather.

Expected values and error messages were printed by TensorFlow 2.21 for the same calls.
"""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import array_ops


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

# ops/linalg_ops.py defines an eye of its own that tf.eye currently resolves to; these check
# array_ops.eye, and tf.eye's values.
@pytest.mark.parametrize("eye", [array_ops.eye, tf.eye])
def test_eye(eye):
    _check(eye(2), tf.float32, [[1, 0], [0, 1]])
    _check(eye(2, 3, dtype=tf.int32), tf.int32, [[1, 0, 0], [0, 1, 0]])
    _check(eye(2, batch_shape=[2]), tf.float32, [np.eye(2)] * 2)


def test_eye_negative_size():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0"):
        array_ops.eye(-1)


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


def test_gather_gradient_is_a_dense_scatter_add():
    p = tf.constant(P)
    with tf.GradientTape() as tape:
        tape.watch(p)
        z = tf.reduce_sum(tf.square(tf.gather(p, [[1, 0], [1, 1]])))
    # TF 2.21 gives IndexedSlices that sum to this dense gradient.
    _check(tape.gradient(z, p), tf.float32, [[2, 4, 6], [24, 30, 36]])
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
        g = inner.gradient(y, x)  # 3 x^2 times the multiplicity
    _check(outer.gradient(g, x), tf.float64, [6.0, 0.0, 36.0])
