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
