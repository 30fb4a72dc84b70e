"""tf.signal.fftnd / ifftnd / rfftnd / irfftnd and the raw tf.fftnd ops.

TensorFlow 2.21 registers no CPU kernel for FFTND, IFFTND, RFFTND or IRFFTND (every call on
CPU raises NotFoundError: "no registered kernels"), so there is nothing to record here; the
GPU kernels compute numpy.fft.fftn's transform over `axes`, and the Python wrapper (its
defaults, its zero-padding of the innermost len(axes) dims to fft_length, its `norm`
scaling) is read from TF 2.21's source (python/ops/signal/fft_ops.py). The values are
checked against NumPy's float64 transforms within float32 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

_rng = np.random.default_rng(7)
X = _rng.standard_normal((2, 3, 4)).astype(np.float32)
Z = (X + 1j * _rng.standard_normal((2, 3, 4))).astype(np.complex64)
H = np.fft.rfftn(X).astype(np.complex64)


def _close(got, want, dtype):
    assert got.dtype == dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


@pytest.mark.parametrize("kwargs,want", [
    ({}, np.fft.fftn(Z)),
    ({"fft_length": [3, 4], "axes": [1, 2]}, np.fft.fftn(Z, axes=[1, 2])),
    ({"fft_length": [5, 6], "axes": [1, 2]}, np.fft.fftn(Z, s=[5, 6], axes=[1, 2])),
    ({"fft_length": [2, 2], "axes": [-2, -1]}, np.fft.fftn(Z, s=[2, 2], axes=[1, 2])),
    ({"norm": "ortho"}, np.fft.fftn(Z, norm="ortho")),
    ({"norm": "forward"}, np.fft.fftn(Z, norm="forward")),
])
def test_fftnd(kwargs, want):
    _close(tf.signal.fftnd(Z, **kwargs), want, tf.complex64)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_ifftnd_inverts_fftnd(norm):
    _close(tf.signal.ifftnd(Z, norm=norm), np.fft.ifftn(Z, norm=norm or "backward"),
           tf.complex64)
    back = tf.signal.ifftnd(tf.signal.fftnd(Z, norm=norm), norm=norm)
    np.testing.assert_allclose(back.numpy(), Z, atol=1e-5)


def test_rfftnd_and_irfftnd():
    _close(tf.signal.rfftnd(X), np.fft.rfftn(X), tf.complex64)
    _close(tf.signal.rfftnd(X, [3, 6], [1, 2]), np.fft.rfftn(X, s=[3, 6], axes=[1, 2]),
           tf.complex64)
    _close(tf.signal.rfftnd(tf.constant(X.astype(np.float64)), norm="ortho"),
           np.fft.rfftn(X, norm="ortho"), tf.complex128)
    _close(tf.signal.irfftnd(H), np.fft.irfftn(H, s=[2, 3, 4], axes=[0, 1, 2]), tf.float32)
    _close(tf.signal.irfftnd(H, [3, 4], [1, 2], norm="ortho"),
           np.fft.irfftn(H, s=[3, 4], axes=[1, 2], norm="ortho"), tf.float32)


def test_the_wrapper_pads_the_innermost_dims_whatever_the_axes():
    # TF's _maybe_pad_for_rfft pads the innermost len(axes) dims (here axes 1 and 2) up to
    # fft_length [4, 2]: axis 1 grows from 3 to 4 although it is not transformed.
    got = tf.signal.rfftnd(X, fft_length=[4, 2], axes=[2, 0])
    _close(got, np.fft.rfftn(np.pad(X, [[0, 0], [0, 1], [0, 0]]), axes=[2, 0]), tf.complex64)


def test_more_than_three_axes_and_the_raw_ops():
    ones = np.ones((2, 2, 2, 2, 2), np.complex64)
    _close(tf.signal.fftnd(ones), np.fft.fftn(ones), tf.complex64)
    _close(tf.fftnd(Z, [2, 3, 4], [0, 1, 2]), np.fft.fftn(Z), tf.complex64)
    _close(tf.ifftnd(Z, [3], [1]), np.fft.ifftn(Z, axes=[1]), tf.complex64)
    _close(tf.rfftnd(X, [4], [2], Tcomplex=tf.complex64), np.fft.rfft(X), tf.complex64)
    _close(tf.irfftnd(H, [4], [2]), np.fft.irfft(H, 4), tf.float32)


def test_errors():
    with pytest.raises(ValueError, match="must have rank at least 4"):   # TF's text
        tf.signal.fftnd(Z, fft_length=[2, 2, 2, 2], axes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64"):
        tf.signal.rfftnd(tf.constant(Z))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128"):
        tf.signal.irfftnd(tf.constant(X))
    # The default fft_length is the whole shape (TF's wrapper): with fewer axes it cannot
    # pair them up, and tapeflow says so rather than guess.
    with pytest.raises(tf.errors.InvalidArgumentError, match="same length"):
        tf.signal.fftnd(Z, axes=[1, 2])
    with pytest.raises(ValueError, match="Invalid norm"):
        tf.signal.fftnd(Z, norm="xx")


def test_gradients_match_finite_differences():
    x = tf.Variable(X.astype(np.float64))
    w = _rng.standard_normal((2, 3, 3))

    def loss(v):
        return tf.reduce_sum(tf.math.real(tf.signal.rfftnd(v, [3, 4], [1, 2])) * w)

    with tf.GradientTape() as tape:
        y = loss(x)
    grad = tape.gradient(y, x).numpy()
    # rfftnd is linear: its gradient is the transform's adjoint applied to w.
    basis = np.eye(X.size).reshape((X.size,) + X.shape)
    want = np.array([np.sum(np.real(np.fft.rfftn(b, axes=[1, 2])) * w) for b in basis])
    np.testing.assert_allclose(grad.reshape(-1), want, atol=1e-10)
