"""Complex inputs of existing math ops: Abs's forward mode and the sign of zero in Real's
gradient (TensorFlow 2.21's answers, checked in TF)."""

import numpy as np

import tapeflow as tf


def test_abs_of_complex_forward_mode_is_the_derivative_of_the_modulus():
    z = tf.constant(np.array([1 + 2j, -0.5 + 0.3j]))
    t = tf.constant(np.array([0.3 - 0.7j, 1.0 + 0.5j]))
    with tf.autodiff.ForwardAccumulator(z, t) as acc:
        y = tf.abs(z)
    jvp = acc.jvp(y)
    assert jvp.dtype == tf.float64
    expected = np.real(np.conj(z.numpy()) * t.numpy()) / np.abs(z.numpy())
    np.testing.assert_allclose(jvp.numpy(), expected, rtol=1e-12)


def test_gradient_of_real_prints_as_tensorflow():
    z = tf.Variable(np.array([1 + 2j, -0.5 + 0.3j], np.complex64))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.math.real(z))
    # TF 2.21 prints: tf.Tensor([1.+0.j 1.+0.j], shape=(2,), dtype=complex64)
    assert str(tape.gradient(y, z)) == "tf.Tensor([1.+0.j 1.+0.j], shape=(2,), dtype=complex64)"
