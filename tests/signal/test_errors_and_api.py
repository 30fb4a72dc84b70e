"""tf.signal / tf.complex errors, dtypes and printing as TensorFlow 2.21 gives them (each
expected text below was checked in TF 2.21), and the namespace's docstrings."""

import inspect

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("call, error, text", [
    (lambda: tf.signal.fft(tf.constant([1.0, 2.0])), tf.errors.InvalidArgumentError,
     "Value for attr 'Tcomplex' of float is not in the list of allowed values: complex64, "
     "complex128"),
    (lambda: tf.signal.fft(tf.constant(1 + 1j)), tf.errors.InvalidArgumentError,
     "Input must have rank of at least 1 but got: [] [Op:FFT]"),
    (lambda: tf.signal.fft2d(tf.constant([1 + 1j, 2])), tf.errors.InvalidArgumentError,
     "Input must have rank of at least 2 but got: [2] [Op:FFT2D]"),
    (lambda: tf.signal.rfft(tf.constant([1, 2])), ValueError,
     "RFFT requires tf.float32 or tf.float64 inputs, got: tf.Tensor([1 2], shape=(2,), "
     "dtype=int32)"),
    (lambda: tf.signal.irfft(tf.constant([1.0, 2.0])), ValueError,
     "IRFFT requires tf.complex64 or tf.complex128 inputs, got: tf.Tensor([1. 2.], "
     "shape=(2,), dtype=float32)"),
    (lambda: tf.signal.rfft(tf.constant(1.0)), ValueError, "Shape () must have rank at least 1"),
    (lambda: tf.signal.rfft2d([1.0, 2.0]), ValueError, "Shape (2,) must have rank at least 2"),
    (lambda: tf.signal.rfft([1.0, 2.0, 3.0], fft_length=[4, 4]), tf.errors.InvalidArgumentError,
     "fft_length must have shape [1] [Op:RFFT]"),
    (lambda: tf.signal.rfft([1.0, 2.0, 3.0], fft_length=4), TypeError,
     "'numpy.int32' object is not iterable"),
    (lambda: tf.complex(1.0, tf.constant(2.0, tf.float64)), TypeError,
     "The `real` and `imag` components have incorrect types: float32 float64. They must be "
     "consistent, and one of [tf.float32, tf.float64]"),
    (lambda: tf.complex(1, 2), TypeError,
     "The `real` and `imag` components have incorrect types: int32 int32."),
])
def test_errors_as_tensorflow(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value)


def test_empty_transforms_are_refused_not_crashing():
    # TF 2.21 aborts the process here (DUCC: "no zero-sized FFTs"); tapeflow raises.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"fft_length must be positive"):
        tf.signal.irfft(tf.constant([1 + 1j], tf.complex64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:RFFT\]"):
        tf.signal.rfft([1.0, 2.0], fft_length=[0])


def test_dtypes_and_printing_as_tensorflow():
    # TF 2.21's printed results.
    assert str(tf.complex(1.0, 2.0)) == "tf.Tensor((1+2j), shape=(), dtype=complex64)"
    assert str(tf.complex([1.0, 2.0], [3.0, 4.0])) == \
        "tf.Tensor([1.+3.j 2.+4.j], shape=(2,), dtype=complex64)"
    assert str(tf.signal.fft(tf.constant([1 + 2j, 3 - 1j, 0.5], tf.complex64))) == (
        "tf.Tensor([ 4.5       +1.j         -1.6160254 +0.33493662j  0.11602539+4.6650634j ], "
        "shape=(3,), dtype=complex64)")
    assert tf.signal.fft([1.0, 2.0]).dtype == tf.complex64
    assert tf.signal.rfft(tf.constant([1.0, 2.0], tf.float64)).dtype == tf.complex128
    assert tf.signal.irfft([1.0, 2.0, 3.0]).dtype == tf.float32
    assert str(tf.math.angle(tf.constant([-1.0, 2.0]))) == \
        "tf.Tensor([3.1415927 0.       ], shape=(2,), dtype=float32)"
    assert tf.signal.fft(tf.zeros([2, 0], tf.complex64)).shape == (2, 0)


def test_gradient_where_tensorflow_has_none_is_the_exact_adjoint():
    # TF 2.21's RFFT gradient fails when the input is longer than fft_length ("Incompatible
    # shapes: [3] vs. [5]"); tapeflow's is the adjoint: zero for the cropped samples.
    x = tf.Variable(np.arange(1.0, 6.0, dtype=np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.abs(tf.signal.rfft(x, fft_length=[3])))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.1339746, 1.0, 1.8660254, 0, 0],
                               rtol=1e-6, atol=1e-7)


def test_traced_with_unknown_length_matches_eager():
    f = tf.function(lambda x: tf.signal.irfft(tf.signal.rfft(x, [8]) * 2.0, [8]),
                    input_signature=[tf.TensorSpec([None, None], tf.float32)])
    x = np.random.default_rng(0).standard_normal((2, 6)).astype(np.float32)
    np.testing.assert_allclose(f(x).numpy(), 2.0 * np.pad(x, [[0, 0], [0, 2]]), atol=1e-6)


def test_every_public_name_is_documented():
    missing = [name for name in tf.signal.__all__ if not inspect.getdoc(getattr(tf.signal, name))]
    assert missing == []
    assert "complex" in tf.__all__ and "angle" in tf.math.__all__
