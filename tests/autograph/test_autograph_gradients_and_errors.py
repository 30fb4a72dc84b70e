"""Gradients through converted loops and conditions, and AutoGraph's errors: TF's classes and
messages, pointing at the user's line. Expected values and texts are TF 2.21's answers."""

import numpy as np
import pytest

import tapeflow as tf


@tf.function
def _power_then_branch(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x
            i = 0
            while i < 3:
                y = y * x
                i += 1
            if y > 10:
                y = y * 2.0
            else:
                y = y - 1.0
        g = inner.gradient(y, x)
    return y, g, outer.gradient(g, x)


def test_first_and_second_order_gradients_through_a_converted_loop_and_cond():
    assert [float(v) for v in _power_then_branch(tf.constant(2.0))] == [32.0, 64.0, 96.0]
    assert [float(v) for v in _power_then_branch(tf.constant(1.0))] == [0.0, 4.0, 12.0]


def test_a_tape_outside_differentiates_a_converted_function():
    @tf.function
    def f(x, n):
        y = x
        for _ in tf.range(n):
            if tf.reduce_sum(y) > 0:
                y = y * x
            else:
                y = y + x
        return tf.reduce_sum(y)

    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = f(x, tf.constant(2))      # y = x**3
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [3.0, 12.0])


@pytest.mark.parametrize("dynamic", [False, True])
def test_gradient_through_a_tensor_array_written_in_a_converted_loop(dynamic):
    @tf.function
    def rnn(xs):
        state = tf.zeros([2])
        outputs = tf.TensorArray(tf.float32, size=0, dynamic_size=True) if dynamic else \
            tf.TensorArray(tf.float32, size=xs.shape[0])
        for i in tf.range(tf.shape(xs)[0]):
            state = tf.tanh(state + xs[i])
            outputs = outputs.write(i, state)
        return outputs.stack()

    xs = tf.constant([[0.1, 0.2], [0.3, -0.1], [0.5, 0.5]])
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = tf.reduce_sum(rnn(xs) ** 2)
    # TF 2.21's answers (float32; tapeflow's tanh may differ in the last digit). A growing
    # array gives the same: its loop variable's padded history replays each size.
    np.testing.assert_allclose(float(loss), 0.9874321222305298, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, xs).numpy(),
                               [[1.4406672, 1.2912486], [1.2557858, 0.9488402],
                                [0.7079591, 0.7637281]], rtol=1e-6)


def _message(fn, *args, error=Exception):
    with pytest.raises(error) as info:
        fn(*args)
    return str(info.value)


def test_a_name_defined_in_one_branch_only():
    @tf.function
    def f(x):
        if x > 0:
            y = x
        return y

    text = _message(f, tf.constant(1.0), error=ValueError)
    assert "'y' must also be initialized in the else branch" in text
    assert "in user code:" in text and "test_autograph_gradients_and_errors.py" in text
    assert "        if x > 0:\n" in text      # the user's line, not generated code


def test_branches_with_different_dtypes_or_none():
    @tf.function
    def dtypes(x):
        y = 0
        if x > 0:
            y = x
        return y

    @tf.function
    def none(x):
        if x > 0:
            y = None
        else:
            y = x
        return y

    assert "'y' has dtype float32 in the main branch, but dtype int32 in the else branch" in \
        _message(dtypes, tf.constant(2.0), error=TypeError)
    assert "'y' is None at the end of the main branch." in \
        _message(none, tf.constant(1.0), error=ValueError)


def test_a_return_in_one_branch_only_and_inside_a_tensor_loop():
    @tf.function
    def one_branch(x):
        if x > 0:
            return x

    @tf.function
    def in_loop(n):
        i = tf.constant(0)
        while i < n:
            if i == 3:
                return i * 10
            i += 1
        return i

    assert "the else branch must also have a return statement." in \
        _message(one_branch, tf.constant(1.0), error=ValueError)
    assert "a return statement cannot be placed inside this TensorFlow loop" in \
        _message(in_loop, tf.constant(5), error=NotImplementedError)


def test_loop_variables_changing_dtype_or_shape():
    @tf.function
    def dtype_change(n):
        i = 0
        x = tf.constant(1)
        while i < n:
            x = tf.cast(x, tf.float32)
            i += 1
        return x

    @tf.function
    def shape_change(n):
        x = tf.zeros([1])
        i = 0
        while i < n:
            x = tf.concat([x, x], 0)
            i += 1
        return x

    text = _message(dtype_change, tf.constant(3), error=TypeError)
    assert "'x' has dtype int32 before the loop, but dtype float32 after one iteration" in text
    assert "        while i < n:\n" in text
    assert ("'x' has shape (1,) before the loop, but shape (2,) after one iteration. Use "
            "tf.autograph.experimental.set_loop_options to set shape invariants.") in \
        _message(shape_change, tf.constant(3), error=ValueError)


def test_a_tensor_break_inside_a_python_loop():
    @tf.function
    def python_for(x):
        for i in range(3):
            if x > i:
                break
            x = x + 1.0
        return x

    @tf.function
    def python_while(n):
        i = tf.constant(0)
        while True:
            i += 1
            if i >= n:
                break
        return i

    assert "break and return statements which depend on a TF condition are not supported in " \
        "Python for loops" in _message(python_for, tf.constant(1.0), error=NotImplementedError)
    assert "The condition of while loop started as non-Tensor, then changed to Tensor." in \
        _message(python_while, tf.constant(5), error=NotImplementedError)


def test_errors_raised_in_a_converted_callee_name_its_line():
    def helper(x):
        if x > 0:
            return tf.reshape(x, [5])     # a scalar cannot take 5 elements
        return x

    @tf.function
    def f(x):
        return helper(x)

    text = _message(f, tf.constant(1.0))
    assert "return helper(x)" in text and "return tf.reshape(x, [5])" in text


def test_second_derivative_through_a_loop_variable_that_grows():
    x = tf.Variable(1.5)

    @tf.function
    def squares_sum(n):
        y = tf.zeros([1])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(y, tf.TensorShape([None]))])
            y = tf.concat([y, [x * tf.cast(i, tf.float32)]], 0)
        return tf.reduce_sum(y ** 3)      # sum_i (i x)^3 = 36 x^3 for n = 4

    with tf.GradientTape() as outer:
        with tf.GradientTape() as tape:
            value = squares_sum(tf.constant(4))
        first = tape.gradient(value, x)
    np.testing.assert_allclose([float(value), float(first), float(outer.gradient(first, x))],
                               [36 * 1.5 ** 3, 108 * 1.5 ** 2, 216 * 1.5], rtol=1e-6)
