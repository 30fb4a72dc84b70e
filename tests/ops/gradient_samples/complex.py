"""Gradient-check cases for the primitives of ops/complex_ops.py. Inputs are the real and
imaginary parts (float64); each case returns a real function of them, so the check compares
TensorFlow's convention (the gradient of a real loss w.r.t. the parts) with finite
differences. Points stay away from 0 and from angle's branch cut (the negative real axis)."""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(2020)
_W = tf.constant(np.array([0.3 - 1.2j, 0.8 + 0.4j, -0.5 + 0.9j]))


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


SAMPLES = {
    "Complex": [
        (lambda x, y: tf.math.real(tf.complex(x, y) * tf.complex(x, y) * _W),
         [_u(-1, 1, 3), _u(-1, 1, 3)]),
        (lambda x, y: tf.abs(tf.complex(x, y)), [_u(0.5, 2, 2, 3), _u(0.5, 2, 3)]),
    ],
    "Angle": [(lambda x, y: tf.math.angle(tf.complex(x, y)),
               [np.array([0.5, 1.2, -0.4, 2.0]), np.array([0.8, -0.6, 1.1, 0.3])])],
}
