"""tf.cond, tf.case, tf.switch_case, tf.while_loop: eager, traced, and their gradients."""

import numpy as np
import pytest

import tapeflow as tf


def _both(fn):
    """fn run eagerly and as a tf.function."""
    return [fn, tf.function(fn)]


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_cond_values_and_gradients(mode):
    def f(x):
        return tf.cond(x > 0.0, lambda: x * x, lambda: -3.0 * x)
    f = tf.function(f) if mode == "traced" else f
    for value, expected, grad in ((2.0, 4.0, 4.0), (-2.0, 6.0, -3.0)):
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(y) == expected
        assert float(tape.gradient(y, x)) == grad


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(tf.constant(True), 1.0, lambda: 2.0)

    @tf.function
    def mismatched(x):
        return tf.cond(x > 0.0, lambda: x, lambda: tf.cast(x, tf.int32))

    with pytest.raises(TypeError, match="same dtypes"):
        mismatched(tf.constant(1.0))


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_switch_case_and_case(mode):
    def s(i, x):
        return tf.switch_case(i, [lambda: x, lambda: x * 2.0, lambda: x * 3.0])

    def c(x):
        return tf.case([(x > 10.0, lambda: x * 0.0), (x > 1.0, lambda: x * 2.0)],
                       default=lambda: x)
    if mode == "traced":
        s, c = tf.function(s), tf.function(c)
    five = tf.constant(5.0)
    assert float(s(tf.constant(1), five)) == 10.0
    assert float(s(tf.constant(7), five)) == 15.0     # out of range: the last branch
    assert [float(c(tf.constant(v))) for v in (5.0, 50.0, 0.5)] == [10.0, 0.0, 0.5]


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_while_loop_values_first_and_second_derivatives(mode):
    def f(x):
        return tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x),
                             (tf.constant(0), tf.constant(1.0)))[1]
    f = tf.function(f) if mode == "traced" else f
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    assert float(y) == 8.0 and float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_while_loop_gradient_traced_inside_the_function():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) + x),
                              (tf.constant(0), x))[1]
        return tape.gradient(y, x)

    def eager(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            a = x
            for _ in range(4):
                a = tf.sin(a) + x
        return tape.gradient(a, x)

    x = tf.constant(0.7, tf.float64)
    np.testing.assert_allclose(float(grad(x)), float(eager(x)), rtol=1e-12)


def test_while_loop_maximum_iterations_and_data_dependent_trip_count():
    @tf.function
    def collatz_steps(n):
        def body(n, steps):
            return tf.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1
        return tf.while_loop(lambda n, s: n > 1, body, (n, tf.constant(0)))[1]

    assert int(collatz_steps(tf.constant(6))) == 8
    assert int(collatz_steps(tf.constant(27))) == 111
    assert collatz_steps.experimental_get_tracing_count() == 1
    out = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)],
                        maximum_iterations=5)
    assert int(out[0]) == 5


def test_cond_assigning_a_variable_runs_only_the_taken_branch():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        return tf.cond(x > 0.0, lambda: v.assign_add(x).read_value(), lambda: v.read_value())

    f(tf.constant(2.0))
    f(tf.constant(-5.0))
    f(tf.constant(1.0))
    assert float(v.numpy()) == 3.0
    assert "If(" in str(f.get_concrete_function(tf.constant(1.0)).graph)
