"""clip_by_value, clip_by_norm, clip_by_global_norm and tf.linalg.global_norm.

Expected values were printed by TensorFlow 2.21 for the same calls.
"""

import numpy as np
import pytest

import tapeflow as tf

T = [[-2.0, 0.5, 3.0], [1.0, -0.2, 4.0]]
RTOL = 1e-6


def _grad(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


def test_clip_by_value():
    t = tf.constant(T)
    y = tf.clip_by_value(t, -1.0, 2.0)
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), np.float32([[-1.0, 0.5, 2.0], [1.0, -0.2, 2.0]]))
    np.testing.assert_array_equal(
        tf.clip_by_value(t, tf.constant([0.0, -1.0, 0.0]), 2.0).numpy(),
        np.float32([[0.0, 0.5, 2.0], [1.0, -0.2, 2.0]]))
    ints = tf.clip_by_value(tf.constant([1, 5, -3]), 0, 3)
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [1, 3, 0]


def test_clip_by_value_gradient_passes_at_the_bounds():
    # TF 2.21: the value equal to a bound keeps its gradient (min/max tie rules).
    np.testing.assert_array_equal(_grad(lambda x: tf.clip_by_value(x, -1.0, 2.0), T),
                                  [[0, 1, 0], [1, 1, 0]])
    np.testing.assert_array_equal(_grad(lambda x: tf.clip_by_value(x, 0.5, 4.0), T),
                                  [[0, 1, 1], [1, 0, 1]])


def test_clip_by_value_may_not_enlarge():
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(3, 2, 3\) are incompatible"):
        tf.clip_by_value(tf.constant(T), tf.zeros([3, 2, 3]), 2.0)


def test_clip_by_norm():
    t = tf.constant(T)
    np.testing.assert_allclose(tf.clip_by_norm(t, 2.0).numpy(),  # TF 2.21
                               [[-0.72679234, 0.18169808, 1.0901885],
                                [0.36339617, -0.07267924, 1.4535847]], rtol=RTOL)
    np.testing.assert_allclose(tf.clip_by_norm(t, 2.0, axes=[1]).numpy(),  # TF 2.21
                               [[-1.0988845, 0.27472112, 1.6483268],
                                [0.48450157, -0.09690031, 1.9380063]], rtol=RTOL)
    np.testing.assert_array_equal(tf.clip_by_norm(t, 100.0).numpy(), np.float32(T))  # short
    np.testing.assert_array_equal(tf.clip_by_norm(t, -1.0).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(tf.clip_by_norm(tf.zeros([2]), 1.0).numpy(), [0.0, 0.0])


def test_clip_by_norm_gradient_and_zero_input():
    np.testing.assert_allclose(_grad(lambda x: tf.clip_by_norm(x, 2.0), T),  # TF 2.21
                               [[0.5145613, 0.32560492, 0.13664852],
                                [0.2878136, 0.37851268, 0.06106594]], rtol=RTOL)
    # the norm of a zero tensor must not give an inf * 0 = nan gradient
    np.testing.assert_array_equal(_grad(lambda x: tf.clip_by_norm(x, 1.0), [0.0, 0.0]),
                                  [1.0, 1.0])


def test_clip_by_norm_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:Sqrt\]"):
        tf.clip_by_norm(tf.constant([3, 4]), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2,3\] vs. \[2\] \[Op:Mul\]"):
        tf.clip_by_norm(tf.constant(T), tf.constant([1.0, 2.0]))


def test_clip_by_global_norm():
    a, b = tf.constant([3.0, 4.0]), tf.constant([[12.0]])
    clipped, norm = tf.clip_by_global_norm([a, b, None], 5.0)
    assert norm.dtype == tf.float32 and float(norm) == 13.0
    np.testing.assert_allclose(clipped[0].numpy(), [1.1538461, 1.5384616], rtol=RTOL)
    np.testing.assert_allclose(clipped[1].numpy(), [[4.6153846]], rtol=RTOL)
    assert clipped[2] is None
    clipped, norm = tf.clip_by_global_norm([a, b], 20.0)
    np.testing.assert_array_equal(clipped[0].numpy(), [3.0, 4.0])
    clipped, norm = tf.clip_by_global_norm([a], 1.0, use_norm=tf.constant(10.0))
    np.testing.assert_allclose(clipped[0].numpy(), [0.3, 0.4], rtol=RTOL)
    assert float(norm) == 10.0


def test_clip_by_global_norm_infinite_norm_gives_nan():
    with np.errstate(invalid="ignore"):
        clipped, norm = tf.clip_by_global_norm([tf.constant([3.0]), tf.constant([np.inf])], 1.0)
    assert np.isinf(norm.numpy()) and np.all(np.isnan(clipped[0].numpy()))


def test_clip_by_global_norm_gradient():
    np.testing.assert_allclose(_grad(lambda x: tf.clip_by_global_norm([x], 2.0)[0][0], T),
                               [[0.5145613, 0.3256049, 0.1366485],  # TF 2.21
                                [0.2878136, 0.37851268, 0.06106594]], rtol=RTOL)


def test_global_norm_and_errors():
    a, b = tf.constant([3.0, 4.0]), tf.constant([[12.0]])
    assert float(tf.linalg.global_norm([a, b, None])) == 13.0
    with pytest.raises(TypeError, match=r"`t_list` should be a sequence of tensors"):
        tf.clip_by_global_norm(a, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute Pack as input #1\(zero-based\) was expected to be "
                             r"a float tensor but is a double tensor"):
        tf.linalg.global_norm([a, tf.constant([1.0], tf.float64)])


def test_clip_by_value_float_bounds_on_integers():
    # TF converts a Python bound with the values' dtype, and a float never becomes an int.
    with pytest.raises(TypeError, match=r"^Cannot convert 3.0 to EagerTensor of dtype int32$"):
        tf.clip_by_value(tf.constant([1, 5]), 0., 3.)
    with pytest.raises(TypeError, match=r"^Cannot convert 0.5 to EagerTensor of dtype int64$"):
        tf.clip_by_value(tf.constant([1, 5], tf.int64), 0.5, 3)
    out = tf.clip_by_value(tf.constant([1, 5]), 0, 3)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [1, 3]
    out = tf.clip_by_value(tf.constant([1., 5.], tf.float16), 0, 3.5)
    assert out.dtype == tf.float16 and out.numpy().tolist() == [1., 3.5]


def test_clipping_refuses_what_tensorflow_refuses():
    # TF 2.21: Minimum, Greater and L2Loss have no complex / integer kernels.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of complex128 .*\[Op:Minimum\]"):
        tf.clip_by_value(tf.constant([1 + 1j]), 0j, 1j)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of complex128"):
        tf.clip_by_norm(tf.constant([3. + 4j]), 1.)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"of int32 .*: half, bfloat16, float, double \[Op:L2Loss\]"):
        tf.linalg.global_norm([tf.constant([3, 4])])


def test_global_norm_of_nothing_is_zero():
    assert tf.linalg.global_norm([None]).numpy() == 0.0
    clipped, norm = tf.clip_by_global_norm([], 1.)
    assert clipped == [] and norm.dtype == tf.float32 and norm.numpy() == 0.0
