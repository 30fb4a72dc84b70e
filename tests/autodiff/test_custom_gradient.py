"""tf.custom_gradient: replaced derivatives, the `variables` argument, and a differentiable
grad_fn giving correct second derivatives."""

import numpy as np
import pytest

import tapeflow as tf


def test_custom_gradient_replaces_the_derivative():
    @tf.custom_gradient
    def custom_op(x):
        def grad(dy):
            return dy * 2
        return x ** 2, grad

    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = custom_op(x)
    assert float(tape.gradient(y, x)) == 2.0  # as TensorFlow prints for seed s13


def test_numerically_stable_log1pexp():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_several_inputs():
    @tf.custom_gradient
    def mul(a, b):
        def grad(dy):
            return dy * b * 10.0, dy * a
        return a * b, grad

    a, b = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = mul(a, b)
    assert [float(g) for g in tape.gradient(y, [a, b])] == [30.0, 2.0]


def test_variables_argument():
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        y = x * w

        def grad(dy, variables=None):
            assert len(variables) == 1 and variables[0] is w
            return dy * w, [dy * x * 100.0]
        return y, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    gx, gw = tape.gradient(y, [x, w])
    assert float(gx) == 2.0 and float(gw) == 300.0


def test_reading_variables_without_variables_argument_raises():
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy * w
        return x * w, grad

    x = tf.constant(3.0)
    with pytest.raises(TypeError, match="variables"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            scale(x)


def test_differentiable_grad_fn_gives_second_derivative():
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x  # written with ops: an outer tape differentiates it
        return x * x * x, grad

    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = cube(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert float(dy) == 12.0 and float(d2y) == 12.0


def test_custom_gradient_checked_numerically():
    @tf.custom_gradient
    def softsign(x):
        def grad(dy):
            return dy / tf.square(1.0 + tf.abs(x))
        return x / (1.0 + tf.abs(x)), grad

    theoretical, numerical = tf.test.compute_gradient(
        softsign, [np.array([-1.5, 0.5, 2.0])], delta=1e-6)
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)


def test_custom_gradient_inside_tf_function_computes_each_call():
    # The outputs used to be fresh eager tensors holding the trace's values: every later call
    # of the function returned the first call's numbers.
    @tf.custom_gradient
    def double(x):
        return x * 2.0, lambda dy: dy * 3.0

    @tf.function
    def value_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = double(x)
        return y, tape.gradient(y, x)

    for x in (1.0, 5.0, -2.0):
        y, g = value_and_grad(tf.constant(x))
        assert float(y) == 2.0 * x
        assert float(g) == 3.0
