"""tf.py_function and tf.numpy_function as TF 2.21: eagerly and inside tf.function (one
node, unknown output shapes, func runs on every call), gradients, errors."""

import numpy as np
import pytest

import tapeflow as tf


def pyf(a, b):
    return a * b, a + b


def test_py_function_eager():
    r = tf.py_function(pyf, [tf.constant(2.), tf.constant(3.)], [tf.float32, tf.float32])
    assert isinstance(r, list) and [float(t) for t in r] == [6., 5.]
    assert float(tf.py_function(lambda a: a * 2, [tf.constant(2.)], tf.float32)) == 4.
    # TF 2.21's answers: extra results are dropped; a Python result takes Tout's dtype.
    assert len(tf.py_function(pyf, [tf.constant(2.), tf.constant(3.)], [tf.float32])) == 1
    r = tf.py_function(lambda a: 3, [tf.constant(2.)], tf.float32)
    assert r.dtype == tf.float32 and float(r) == 3.


def test_py_function_errors():
    # TF 2.21's error classes and messages.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="returns 1 values, but expects to see 2 values"):
        tf.py_function(lambda x: x, [tf.constant(1.)], [tf.float32, tf.float32])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Tensor conversion requested dtype int32 for Tensor with dtype "
                             "float32"):
        tf.py_function(lambda a: a * 2, [tf.constant(2.)], tf.int32)
    with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError: division by zero"):
        tf.py_function(lambda a: 1 / 0, [tf.constant(2.)], tf.float32)
    with pytest.raises(TypeError, match="Missing required argument: 'Tout'"):
        tf.py_function(lambda a: a, [tf.constant(2.)], None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="requested dtype int32"):
        tf.function(lambda a: tf.py_function(lambda q: q * 2, [a], tf.int32))(tf.constant(2.))


def test_py_function_in_tf_function_runs_every_call():
    calls, shapes = [], []

    @tf.function
    def f(x):
        r = tf.py_function(lambda v: calls.append(float(v)) or v * 2, [x], tf.float32)
        shapes.append(r.shape.rank)
        return r + 1
    assert float(f(tf.constant(1.))) == 3. and float(f(tf.constant(2.))) == 5.
    assert calls == [1., 2.]          # TF 2.21: the Python side effect runs on each call
    assert shapes == [None]           # TF 2.21: the traced output shape is unknown


def test_py_function_gradients():
    a = tf.constant(2.)
    with tf.GradientTape() as t:
        t.watch(a)
        r = tf.py_function(lambda q: q * q * q, [a], tf.float32)
    assert float(t.gradient(r, a)) == 12.   # TF 2.21's answer

    calls = []

    def cube(q):
        calls.append(1)
        return q * q * q
    f = tf.function(lambda x: tf.py_function(cube, [x], tf.float32))
    with tf.GradientTape() as t:   # the traced function replayed under the tape
        t.watch(a)
        r = f(a)
    assert float(t.gradient(r, a)) == 12. and len(calls) == 1   # func is not rerun

    @tf.function
    def g(x):   # the tape inside the traced function
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.py_function(cube, [x], tf.float32)
        return t.gradient(y, x)
    assert float(g(a)) == 12. and float(g(tf.constant(3.))) == 27.


def test_numpy_function():
    seen = []

    def npf(x, y):
        seen.append(type(x))
        return x * y
    r = tf.numpy_function(npf, [tf.constant([1., 2.]), np.float32(3.)], tf.float32)
    assert r.numpy().tolist() == [3., 6.] and seen == [np.ndarray]
    # TF 2.21's answers: eagerly Tout is not checked and one result comes back bare.
    r = tf.numpy_function(lambda x: x.astype(np.float64), [tf.constant([1.])], tf.float32)
    assert r.dtype == tf.float64
    assert isinstance(tf.numpy_function(lambda x: (x, x), [tf.constant(1.)], tf.float32), list)
    f = tf.function(lambda a: tf.numpy_function(npf, [a, a], tf.float32))
    assert f(tf.constant([2.])).numpy().tolist() == [4.]
    assert f(tf.constant([3.])).numpy().tolist() == [9.]
    a = tf.constant(2.)
    with tf.GradientTape() as t:
        t.watch(a)
        r = tf.numpy_function(lambda q: q * q, [a], tf.float32)
    assert t.gradient(r, a) is None   # TF 2.21's answer


def test_numpy_function_errors_in_tf_function():
    # TF 2.21's messages.
    f = tf.function(lambda a: tf.numpy_function(lambda x: x, [a], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="0-th value returned by pyfunc_\\d+ is float, but expects double"):
        f(tf.constant([2.]))
    f = tf.function(lambda a: tf.numpy_function(lambda x: (x, x), [a], [tf.float32]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="returns 2 values, but expects to see 1 values"):
        f(tf.constant([2.]))
    f = tf.function(lambda a: tf.numpy_function(lambda x: 1 / 0, [a], tf.float32))
    with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError"):
        f(tf.constant([2.]))
