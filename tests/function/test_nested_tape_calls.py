"""Nested GradientTapes over a tf.function call: TensorFlow's higher-order call path gives
zeros, not None, for float inputs connected to the outputs once a backward pass reaches the
call. Expected values are TF 2.21's answers (checked in TF)."""

import numpy as np

import tapeflow as tf


def _nested(f, *xs):
    """(first gradients, second gradients of their sum), as numpy or None."""
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            out = f(*xs)
        g1 = inner.gradient(out, xs)
        total = tf.add_n([tf.reduce_sum(g) for g in g1 if g is not None])
    g2 = outer.gradient(total, xs)
    as_np = lambda gs: [None if g is None else np.asarray(g) for g in gs]  # noqa: E731
    return as_np(g1), as_np(g2)


x = tf.constant([1.5, 2.0])
y = tf.constant(3.0)


def test_second_gradient_of_a_linear_call_is_zeros():
    g1, g2 = _nested(tf.function(lambda x: 2. * x), x)
    np.testing.assert_array_equal(g1[0], [2., 2.])
    np.testing.assert_array_equal(g2[0], [0., 0.])          # TF: zeros (eager: None)


def test_first_gradient_of_an_input_without_a_rule_is_zero_under_nested_tapes():
    g1, g2 = _nested(tf.function(lambda n, x: tf.math.polygamma(n, x)), y, x)
    assert g1[0] == 0.0 and g2[0] == 0.0                     # TF: 0.0 (eager: None)
    np.testing.assert_allclose(g2[1], [11.113549, 2.0811675], rtol=1e-6)


def test_linspace_second_gradients_are_zeros():
    start, stop = tf.constant(1.0, tf.float64), tf.constant(-2.0, tf.float64)
    g1, g2 = _nested(tf.function(lambda a, b: tf.linspace(a, b, 3)), start, stop)
    np.testing.assert_array_equal(g1, [1.5, 1.5])
    assert g2[0] == 0.0 and g2[1] == 0.0                     # TF: zeros


def test_unconnected_inputs_stay_none():
    # TF: an unused input, one behind stop_gradient or an integer cast, and pass-through
    # gradients (whose backward captures nothing) stay None.
    g1, g2 = _nested(tf.function(lambda x, y: x * 2.), x, y)
    assert g1[1] is None and g2[1] is None
    np.testing.assert_array_equal(g2[0], [0., 0.])
    g1, g2 = _nested(tf.function(lambda x, y: x * 2. + tf.stop_gradient(y)), x, y)
    assert g1[1] is None and g2[1] is None
    g1, g2 = _nested(tf.function(
        lambda x, y: x + tf.cast(tf.cast(y, tf.int32), tf.float32)), x, y)
    assert g1[1] is None and g2 == [None, None]
    assert _nested(tf.function(lambda x: x + 0.), x)[1] == [None]


def test_single_tape_keeps_none():
    with tf.GradientTape() as tape:
        tape.watch(y)
        out = tf.function(lambda n, x: tf.math.polygamma(n, x))(y, x)
    assert tape.gradient(out, y) is None                     # TF: None with one tape
