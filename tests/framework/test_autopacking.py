"""A Python list holding tensors converts by packing them (TensorFlow's autopacking), never
by reading their values: gradients flow through it and a traced tensor stays symbolic.
Expected values are TF 2.21's answers."""

import numpy as np

import tapeflow as tf


def test_a_list_of_watched_tensors_keeps_their_gradients():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.convert_to_tensor([x, x * 3]))
    assert float(tape.gradient(y, x)) == 4.0


def test_a_variable_inside_a_list_is_read_differentiably():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.concat([[v], [1.0]], 0))
    assert float(tape.gradient(y, v)) == 1.0


def test_a_traced_tensor_in_a_list_is_not_baked_into_the_graph():
    @tf.function
    def pair(x):
        return tf.convert_to_tensor([x, 2 * x])

    np.testing.assert_array_equal(pair(tf.constant(4.0)).numpy(), [4.0, 8.0])
    np.testing.assert_array_equal(pair(tf.constant(5.0)).numpy(), [5.0, 10.0])   # same trace
    assert pair.experimental_get_tracing_count() == 1


def test_a_loop_counter_appended_in_a_list():
    @tf.function
    def counts(n):
        y = tf.zeros([1])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(y, tf.TensorShape([None]))])
            y = tf.concat([y, [tf.cast(i, tf.float32)]], 0)
        return y

    np.testing.assert_array_equal(counts(tf.constant(4)).numpy(), [0.0, 0.0, 1.0, 2.0, 3.0])


def test_mixed_lists_take_the_tensors_dtype_and_check_it():
    assert tf.convert_to_tensor([tf.constant(1), 2]).dtype == tf.int32
    packed = tf.convert_to_tensor([[tf.constant(1.0), 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(packed.numpy(), [[1.0, 2.0], [3.0, 4.0]])
