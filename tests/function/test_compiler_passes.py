"""Graph passes that shorten what a compiled step runs: selects on constant conditions."""

import numpy as np

import tapeflow as tf


def _folded(fn, *args):
    return tf.function(fn).get_concrete_function(*args).pass_stats["selects_folded"]


def test_select_on_a_constant_condition_is_its_picked_operand():
    x = tf.constant([1.0, -2.0, 4.0])

    def f(x):
        # Keras's loss reduction guards a division by a count known when tracing this way.
        total = tf.reduce_sum(x) / 3.0
        return tf.where(tf.constant(False), tf.zeros_like(total), total), \
            tf.where(tf.constant(True), x * 2.0, x)
    got = tf.function(f)(x)
    assert np.float32(got[0].numpy()) == np.float32(1.0)
    np.testing.assert_array_equal(got[1].numpy(), [2.0, -4.0, 8.0])
    assert _folded(f, x) == 2


def test_select_that_broadcasts_or_mixes_stays():
    x = tf.constant([1.0, -2.0, 4.0])

    def broadcasting(x):
        # The picked operand is a scalar: the select's result has x's shape.
        return tf.where(tf.constant([False, False, False]), x, tf.constant(5.0))

    def mixed(x):
        return tf.where(tf.constant([True, False, True]), x, -x)
    np.testing.assert_array_equal(tf.function(broadcasting)(x).numpy(), [5.0, 5.0, 5.0])
    np.testing.assert_array_equal(tf.function(mixed)(x).numpy(), [1.0, 2.0, 4.0])
    assert _folded(broadcasting, x) == 0
    assert _folded(mixed, x) == 0


def test_selects_of_folded_selects():
    x = tf.constant([1.0, -2.0, 4.0])

    def f(x):
        a = tf.where(tf.constant(False), -x, x * 3.0)
        b = tf.where(tf.constant(True), a, x)
        return tf.where(tf.constant(False), x, b) + 1.0
    np.testing.assert_array_equal(tf.function(f)(x).numpy(), [4.0, -5.0, 13.0])
    assert _folded(f, x) == 3


def test_an_op_on_constants_whose_trace_left_no_value_is_not_folded():
    # edit_distance of SparseTensors captured from outside: its outputs are abstract at
    # trace, so folding it made a constant with no value (an AttributeError when run).
    hypothesis = tf.SparseTensor([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
    truth = tf.SparseTensor([[0, 0]], [b"a"], [1, 1])

    @tf.function
    def distance():
        return tf.edit_distance(hypothesis, truth)
    assert distance().numpy().tolist() == tf.edit_distance(hypothesis, truth).numpy().tolist() \
        == [1.0]
