"""tapeflow's kernels are silent on floating-point exceptions, as TensorFlow's are, whatever
warning filters the caller installs (pytest's `-W error`, `warnings.simplefilter("error")`),
while the user's own NumPy code keeps NumPy's behaviour."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import tapeflow as tf


@pytest.fixture
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_eager_kernels_do_not_warn(warnings_are_errors):
    assert tf.math.log(0.0).numpy() == -np.inf
    assert np.isnan(tf.math.sqrt(-1.0).numpy())
    assert (tf.constant(1.0) / 0.0).numpy() == np.inf
    assert tf.exp(tf.constant(1000.0)).numpy() == np.inf


def test_traced_and_compiled_kernels_do_not_warn(warnings_are_errors):
    @tf.function
    def f(x):
        return tf.math.log(x) - 1.0 / x

    assert f(tf.constant(0.0)).numpy() == -np.inf    # traced (examples) and compiled
    assert f(tf.constant(0.0)).numpy() == -np.inf


def test_gradients_and_compiled_backward_passes_do_not_warn(warnings_are_errors):
    x = tf.Variable([0.0, 1.0])
    for _ in range(3):                              # the later passes run compiled
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.sqrt(x))
        grad = tape.gradient(y, x).numpy()
    assert grad[0] == np.inf and grad[1] == 0.5


def test_ops_nested_in_a_kernel_do_not_warn(warnings_are_errors):
    # An eager while loop runs its body's ops from inside its own kernel.
    _, total = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + tf.math.log(0.0)),
                             (tf.constant(0), tf.constant(0.0)))
    assert total.numpy() == -np.inf


def test_kernels_in_a_new_thread_do_not_warn():
    results = []

    def work():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            results.append(tf.math.log(0.0).numpy())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert results == [-np.inf]


def test_user_numpy_code_still_warns(warnings_are_errors):
    tf.math.log(0.0)
    with pytest.raises(RuntimeWarning):
        np.log(np.zeros(1))


def test_kernel_errors_still_raise_tensorflow_classes(warnings_are_errors):
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])


def test_conversions_that_overflow_do_not_warn(warnings_are_errors):
    # TF 2.21 converts silently to inf where a dtype is requested.
    assert tf.constant(1e40, tf.float32).numpy() == np.inf
    assert tf.constant([1e5], tf.float16).numpy()[0] == np.inf
    assert (tf.constant([1.0], tf.float16) * 1e5).numpy()[0] == np.inf
    with pytest.raises(ValueError):          # with no dtype TF refuses the value
        tf.constant(1e40)


def test_conversions_inside_a_kernel_do_not_warn(warnings_are_errors):
    # float16 QR runs tapeflow code inside its kernel (nested in the quiet context).
    q, r = tf.linalg.qr(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16))
    np.testing.assert_allclose((q.numpy() @ r.numpy()).astype(np.float32), [[1, 2], [3, 4]],
                               atol=0.02)
