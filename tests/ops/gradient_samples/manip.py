"""Gradient-check cases for the primitives of ops/manip_ops.py (cumprod away from zero)."""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(707)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


SAMPLES = {
    "PadV2": [(lambda x: tf.pad(x * x, [[1, 0], [2, 1]]), [_u(-1, 1, 2, 3)]),
              (lambda x: tf.pad(x, [[0, 2]], constant_values=1.5), [_u(-1, 1, 3)])],
    "ReverseV2": [(lambda x: tf.reverse(x * x, [1]), [_u(-1, 1, 2, 3)]),
                  (lambda x: tf.pad(tf.sin(x), [[1, 1], [2, 2]], "REFLECT"), [_u(-1, 1, 3, 3)]),
                  (lambda x: tf.pad(x, [[2, 1]], "SYMMETRIC"), [_u(-1, 1, 3)])],
    "ReverseSequence": [
        (lambda x: tf.reverse_sequence(x * x, np.array([2, 3, 0]), seq_axis=1), [_u(-1, 1, 3, 4)]),
        (lambda x: tf.reverse_sequence(x, np.array([1, 2]), seq_axis=0, batch_axis=2),
         [_u(-1, 1, 2, 3, 2)])],
    "Roll": [(lambda x: tf.roll(x * x, shift=[1, -2], axis=[0, 1]), [_u(-1, 1, 2, 3)])],
    "Cumsum": [(lambda x: tf.cumsum(x * x, axis=1), [_u(-1, 1, 2, 3)]),
               (lambda x: tf.cumsum(x, axis=0, exclusive=True, reverse=True), [_u(-1, 1, 3, 2)])],
    "CumulativeLogsumexp": [
        (lambda x: tf.math.cumulative_logsumexp(x, axis=1), [_u(-1, 1, 2, 3)]),
        (lambda x: tf.math.cumulative_logsumexp(x, reverse=True), [_u(-1, 1, 3, 2)])],
    "Cumprod": [(lambda x: tf.math.cumprod(x, axis=1), [_u(0.5, 1.5, 2, 3)]),
                (lambda x: tf.math.cumprod(x, exclusive=True, reverse=True), [_u(-1.5, -0.5, 4)])],
}
