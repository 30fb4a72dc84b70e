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
    "Erfinv": [(lambda x: tf.math.erfinv(x), [_u(-0.8, 0.8, 2, 3)])],
    "Ndtri": [(lambda x: tf.math.ndtri(x), [_u(0.1, 0.9, 5)])],
    "BesselI0": [(lambda x: tf.math.bessel_i0(x), [np.array([-2.0, -0.7, 0.3, 1.1, 3.0])])],
    "BesselI1": [(lambda x: tf.math.bessel_i1(x), [np.array([-2.0, -0.7, 0.3, 1.1, 3.0])])],
    # Only in x: the gradient in a is TF's IgammaGradA kernel, which tapeflow refuses.
    "Igamma": [(lambda x: tf.math.igamma(tf.constant(np.array([0.5, 1.5, 3.0])), x),
                [_u(0.3, 3.0, 3)])],
    "Igammac": [(lambda x: tf.math.igammac(tf.constant(np.array([[0.5], [2.5]])), x),
                 [_u(0.3, 3.0, 2, 3)])],
    "Betainc": [(lambda x: tf.math.betainc(tf.constant(np.array([0.5, 2.0, 3.0])),
                                           tf.constant(np.array([1.5, 2.0, 0.7])), x),
                 [_u(0.2, 0.8, 3)])],
    "Zeta": [(lambda q: tf.math.zeta(tf.constant(np.array([2.0, 3.5, 1.5])), q),
              [_u(0.5, 3.0, 3)])],
    "Dawsn": [(lambda x: tf.math.special.dawsn(x), [_u(-2.0, 2.0, 5)])],
    "Expint": [(lambda x: tf.math.special.expint(x), [_u(0.3, 3.0, 5)])],
    "FresnelCos": [(lambda x: tf.math.special.fresnel_cos(x), [_u(-2.0, 2.0, 5)])],
    "FresnelSin": [(lambda x: tf.math.special.fresnel_sin(x), [_u(-2.0, 2.0, 5)])],
    "Spence": [(lambda x: tf.math.special.spence(x), [_u(0.2, 3.0, 5)])],
    "BesselJ0": [(lambda x: tf.math.special.bessel_j0(x), [_u(-4.0, 4.0, 5)])],
    "BesselJ1": [(lambda x: tf.math.special.bessel_j1(x), [_u(0.3, 4.0, 5)])],
    "BesselY0": [(lambda x: tf.math.special.bessel_y0(x), [_u(0.3, 4.0, 5)])],
    "BesselY1": [(lambda x: tf.math.special.bessel_y1(x), [_u(0.3, 4.0, 5)])],
    "BesselK0": [(lambda x: tf.math.special.bessel_k0(x), [_u(0.3, 4.0, 5)])],
    "BesselK0e": [(lambda x: tf.math.special.bessel_k0e(x), [_u(0.3, 4.0, 5)])],
    "BesselK1": [(lambda x: tf.math.special.bessel_k1(x), [_u(0.3, 4.0, 5)])],
    "BesselK1e": [(lambda x: tf.math.special.bessel_k1e(x), [_u(0.3, 4.0, 5)])],
}
