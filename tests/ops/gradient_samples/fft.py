"""Gradient-check cases for the primitives of ops/fft_ops.py: real losses of the transforms
of complex(x, y) (or of x, for the real-input ones), squared so that second derivatives do not
vanish, weighted by fixed complex constants so that real and imaginary parts both count. The
rfft and irfft cases crop, keep and zero-pad to fft_length."""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(2021)


def _u(*shape):
    return _rng.uniform(-1.0, 1.0, size=shape)


def _w(*shape):
    return tf.constant(_rng.uniform(-1, 1, size=shape) + 1j * _rng.uniform(-1, 1, size=shape))


def _c2c(transform, shape):
    w = _w(*shape)

    def f(x, y):
        s = transform(tf.complex(x, y))
        return tf.math.real(s * s * w)
    return (f, [_u(*shape), _u(*shape)])


def _r2c(transform, shape, fft_length):
    w = _w(*(shape[:-len(fft_length)] + tuple(fft_length[:-1]) + (fft_length[-1] // 2 + 1,)))

    def f(x):
        s = transform(x, fft_length=fft_length)
        return tf.math.real(s * s * w)
    return (f, [_u(*shape)])


def _c2r(transform, shape, fft_length):
    def f(x, y):
        return tf.square(transform(tf.complex(x, y), fft_length=fft_length))
    return (f, [_u(*shape), _u(*shape)])


SAMPLES = {
    "FFT": [_c2c(tf.signal.fft, (2, 5))],
    "IFFT": [_c2c(tf.signal.ifft, (4,))],
    "FFT2D": [_c2c(tf.signal.fft2d, (3, 4))],
    "IFFT2D": [_c2c(tf.signal.ifft2d, (2, 3, 2))],
    "FFT3D": [_c2c(tf.signal.fft3d, (2, 2, 3))],
    "IFFT3D": [_c2c(tf.signal.ifft3d, (2, 3, 2))],
    "RFFT": [_r2c(tf.signal.rfft, (2, 6), [6]), _r2c(tf.signal.rfft, (5,), [3]),
             _r2c(tf.signal.rfft, (5,), [8])],
    "IRFFT": [_c2r(tf.signal.irfft, (2, 4), [6]), _c2r(tf.signal.irfft, (4,), [7]),
              _c2r(tf.signal.irfft, (5,), [4]), _c2r(tf.signal.irfft, (3,), [8])],
    "RFFT2D": [_r2c(tf.signal.rfft2d, (3, 4), [3, 4]), _r2c(tf.signal.rfft2d, (3, 4), [4, 3])],
    "IRFFT2D": [_c2r(tf.signal.irfft2d, (3, 3), [3, 4]), _c2r(tf.signal.irfft2d, (2, 4), [3, 5])],
    "RFFT3D": [_r2c(tf.signal.rfft3d, (2, 2, 4), [2, 2, 4])],
    "IRFFT3D": [_c2r(tf.signal.irfft3d, (2, 2, 3), [2, 2, 4])],
}
