"""Element-wise math found differing from TensorFlow 2.21 by differential fuzzing."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("fn, op", [
    (lambda: tf.constant([1, 0]) // 0, "FloorDiv"),
    (lambda: tf.math.floordiv(tf.constant([4, 5], tf.int64), [2, 0]), "FloorDiv"),
    (lambda: tf.math.floormod(tf.constant([3]), [0]), "FloorMod"),
    (lambda: tf.constant([-7, 7]) % 0, "FloorMod"),
])
def test_integer_division_by_zero_raises(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Integer division by zero.*{op}"):
        fn()


def test_float_division_by_zero_and_nonzero_integers_still_compute():
    np.testing.assert_array_equal((tf.constant([7.0, -7.0]) // 0.0).numpy(), [np.inf, -np.inf])
    np.testing.assert_array_equal((tf.constant([-7, 7]) // 2).numpy(), [-4, 3])
    np.testing.assert_array_equal((tf.constant([-7, 7]) % 3).numpy(), [2, 1])


# -- asinh/acosh/atanh, truncatediv/truncatemod, polyval (values from TensorFlow 2.21) -----------

def test_inverse_hyperbolics_match_tensorflow():
    np.testing.assert_allclose(tf.asinh(tf.constant([-1.0, 0.0, 2.0])).numpy(),
                               [-0.8813736, 0.0, 1.4436355], rtol=1e-6)
    acosh = tf.math.acosh(tf.constant([0.5, 1.0, 2.0])).numpy()
    assert np.isnan(acosh[0]) and np.allclose(acosh[1:], [0.0, 1.316958])
    atanh = tf.atanh(tf.constant([-1.0, 0.5, 2.0])).numpy()
    assert atanh[0] == -np.inf and np.isclose(atanh[1], 0.54930615) and np.isnan(atanh[2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:Asinh\]"):
        tf.math.asinh(tf.constant([1]))


def test_inverse_hyperbolic_gradients():
    x = tf.constant([1.2, 1.5], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        ys = [tf.asinh(x), tf.acosh(x), tf.atanh(x / 2)]
    np.testing.assert_allclose(tape.gradient(ys[0], x).numpy(), 1 / np.sqrt(x.numpy() ** 2 + 1))
    np.testing.assert_allclose(tape.gradient(ys[1], x).numpy(), 1 / np.sqrt(x.numpy() ** 2 - 1))
    np.testing.assert_allclose(tape.gradient(ys[2], x).numpy(), 0.5 / (1 - x.numpy() ** 2 / 4))


def test_truncatediv_truncatemod_round_toward_zero():
    a, b = tf.constant([-7, 7, -7, 7, 6]), tf.constant([2, -2, -2, 2, 3])
    assert tf.truncatediv(a, b).numpy().tolist() == [-3, -3, 3, 3, 2]
    assert tf.truncatemod(a, b).numpy().tolist() == [-1, 1, -1, 1, 0]
    assert tf.truncatediv(a, b).dtype == tf.int32
    assert tf.truncatediv(tf.constant([-7.5, 7.]), tf.constant([2., -2.])).numpy().tolist() == [-3, -3]
    assert tf.truncatemod(tf.constant([-7.5, 7.]), tf.constant([2., -2.])).numpy().tolist() == [-1.5, 1]
    assert tf.truncatediv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8)).numpy().tolist() == [3]
    with pytest.raises(tf.errors.InternalError, match=r"\[Op:TruncateDiv\]"):
        tf.truncatediv(tf.constant([1]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"bool.*\[Op:TruncateMod\]"):
        tf.truncatemod(tf.constant([True]), tf.constant([True]))


def test_polyval_horner():
    out = tf.math.polyval([1.0, 2.0, 3.0], tf.constant([1.5, 2.0]))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [8.25, 11.0]
    assert tf.math.polyval([2, 3], tf.constant([1, 2])).numpy().tolist() == [5, 7]
    assert tf.math.polyval([], tf.constant([1.5, 2.0])).numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="must be list type"):
        tf.math.polyval(tf.constant([2, 3]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Mul\]"):
        tf.math.polyval([1.0, 2.0], tf.constant([0.5, 2.0], tf.float64))
    assert not hasattr(tf, "polyval") and not hasattr(tf.math, "truncatediv")  # as TensorFlow
