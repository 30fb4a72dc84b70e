"""The N-D FFTs with fft_length known only when the traced graph runs: the first derivative
is a kernel of its own, so a second one is refused clearly (it came back None)."""

import numpy as np
import pytest

import tapeflow as tf


def _gradients(x, lengths):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            power = tf.reduce_sum(tf.abs(tf.signal.fftnd(x, fft_length=lengths)) ** 2)
        grad = inner.gradient(power, x)
        curvature = tf.reduce_sum(tf.math.real(grad * tf.math.conj(grad)))
    return grad, outer.gradient(curvature, x)


def test_second_derivative_with_run_time_lengths_is_refused_not_none():
    traced = tf.function(_gradients, autograph=False, input_signature=[
        tf.TensorSpec([None, None], tf.complex64), tf.TensorSpec([2], tf.int32)])
    rng = np.random.default_rng(0)
    x = tf.constant((rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)))
                    .astype(np.complex64))
    with pytest.raises(NotImplementedError, match="second derivative of an N-D FFT"):
        traced(x, tf.constant([3, 4]))


def test_first_derivative_with_run_time_lengths_equals_eager():
    first = tf.function(lambda x, n: tf.gradients(
        tf.reduce_sum(tf.abs(tf.signal.fftnd(x, fft_length=n)) ** 2), x)[0],
        autograph=False, input_signature=[tf.TensorSpec([None, None], tf.complex64),
                                          tf.TensorSpec([2], tf.int32)])
    x = tf.constant(np.arange(12, dtype=np.complex64).reshape(3, 4) / 7)
    with tf.GradientTape() as tape:
        tape.watch(x)
        power = tf.reduce_sum(tf.abs(tf.signal.fftnd(x, fft_length=[3, 4])) ** 2)
    np.testing.assert_allclose(first(x, tf.constant([3, 4])).numpy(),
                               tape.gradient(power, x).numpy(), rtol=1e-5, atol=1e-5)
