"""Gradient-check cases for the primitives of ops/special_ops.py (points away from poles of
lgamma/digamma and from x = 0 for xlogy-type ops)."""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(505)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


SAMPLES = {
    "Lgamma": [(lambda x: tf.math.lgamma(x), [_u(0.5, 4.0, 2, 3)])],
    "Digamma": [(lambda x: tf.math.digamma(x), [_u(0.5, 4.0, 5)])],
    "Polygamma": [(lambda x: tf.math.polygamma(tf.constant(np.array([1.0, 2.0, 1.0, 3.0])), x),
                   [_u(0.5, 3.0, 4)])],
    "Erfc": [(lambda x: tf.math.erfc(x), [_u(-1.5, 1.5, 2, 3)])],
    "Xlogy": [(lambda x, y: tf.math.xlogy(x, y), [_u(-1, 1, 2, 3), _u(0.5, 2.0, 2, 3)]),
              (lambda x, y: tf.math.xlogy(x, y), [_u(-1, 1, 3), _u(0.5, 2.0, 2, 3)])],
    "Xlog1py": [(lambda x, y: tf.math.xlog1py(x, y), [_u(-1, 1, 2, 3), _u(-0.5, 2.0, 2, 3)])],
    "Xdivy": [(lambda x, y: tf.math.xdivy(x, y), [_u(-1, 1, 2, 3), _u(0.5, 2.0, 2, 3)])],
    "BesselI0e": [(lambda x: tf.math.bessel_i0e(x), [np.array([-2.0, -0.7, 0.3, 1.1, 3.0])])],
    "BesselI1e": [(lambda x: tf.math.bessel_i1e(x), [np.array([-2.0, -0.7, 0.3, 1.1, 3.0])])],
}
