"""tf.bitwise: values, dtypes, broadcasting and errors as TensorFlow 2.21 gives them (the
expected values below are TF 2.21's answers)."""

import numpy as np
import pytest

import tapeflow as tf


def test_namespace_has_tensorflows_names():
    assert sorted(tf.bitwise.__all__) == [
        "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def test_shifts_clamp_counts_out_of_range():
    x = tf.constant([1, -8, 5, 127], tf.int8)
    cases = [
        (tf.bitwise.left_shift, [1, 2, 7, 8], [2, -32, -128, -128]),
        (tf.bitwise.left_shift, [-1, 9, 100, -100], [1, 0, -128, 127]),
        (tf.bitwise.right_shift, [1, 2, 7, 8], [0, -2, 0, 0]),
        (tf.bitwise.right_shift, [-1, 9, 100, -100], [1, -1, 0, 127]),
    ]
    for op, counts, want in cases:
        out = op(x, tf.constant(counts, tf.int8))
        assert out.dtype == tf.int8
        np.testing.assert_array_equal(out.numpy(), want)


def test_shifts_of_wider_and_unsigned_types():
    u = tf.constant([1, 200, 255], tf.uint8)
    counts = tf.constant([1, 8, 9], tf.uint8)
    np.testing.assert_array_equal(tf.bitwise.right_shift(u, counts).numpy(), [0, 1, 1])
    np.testing.assert_array_equal(tf.bitwise.left_shift(u, counts).numpy(), [2, 0, 128])
    np.testing.assert_array_equal(
        tf.bitwise.left_shift(tf.constant([1, -1]), tf.constant([31, 32])).numpy(),
        [-2147483648, -2147483648])
    np.testing.assert_array_equal(
        tf.bitwise.right_shift(tf.constant([-5, 5], tf.int64),
                               tf.constant([64, 63], tf.int64)).numpy(), [-1, 0])


def test_broadcasting_and_python_operands():
    out = tf.bitwise.left_shift(tf.constant([[1], [2]]), tf.constant([1, 2, 3]))
    np.testing.assert_array_equal(out.numpy(), [[2, 4, 8], [4, 8, 16]])
    assert tf.bitwise.bitwise_and(5, 3).numpy() == 1
    assert tf.bitwise.bitwise_and(5, 3).dtype == tf.int32
    np.testing.assert_array_equal(
        tf.bitwise.invert(tf.constant([0, 5], tf.uint16)).numpy(), [65535, 65530])
    np.testing.assert_array_equal(tf.bitwise.bitwise_or(tf.constant([12]), 3).numpy(), [15])
    np.testing.assert_array_equal(tf.bitwise.bitwise_xor(tf.constant([12]), 10).numpy(), [6])


@pytest.mark.parametrize("op", ["left_shift", "right_shift", "bitwise_and", "bitwise_or",
                                "bitwise_xor"])
def test_errors(op):
    fn = getattr(tf.bitwise, op)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed"):
        fn(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed"):
        fn(tf.constant([True]), tf.constant([True]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 tensor but is a int64"):
        fn(tf.constant([1]), tf.constant([1], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        fn(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_invert_refuses_floats_and_bools():
    for x in (tf.constant([0.0]), tf.constant([True])):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invert"):
            tf.bitwise.invert(x)


def test_shifts_trace():
    f = tf.function(lambda x, y: tf.bitwise.right_shift(x, y))
    np.testing.assert_array_equal(f(tf.constant([-8, 8]), tf.constant([1, 40])).numpy(), [-4, 0])
