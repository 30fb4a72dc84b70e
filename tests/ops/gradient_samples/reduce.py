"""Gradient-check cases for the primitives of ops/reduce_ops.py.

Max/Min points have no ties; Prod includes a zero entry (its gradient must not divide by it).
"""

import numpy as np

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY, bind

_rng = np.random.default_rng(4321)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _distinct(*shape):
    """A permutation of evenly spaced values: no ties anywhere."""
    n = int(np.prod(shape))
    return _rng.permutation(np.linspace(-1.0, 1.0, n)).reshape(shape) + 0.01


SAMPLES = {
    "Sum": [(lambda x: tf.reduce_sum(x), [_u(-1, 1, 2, 3)]),
            (lambda x: tf.reduce_sum(x * x, axis=1), [_u(-1, 1, 2, 3)]),
            (lambda x: tf.reduce_sum(tf.sin(x), axis=[0, 2], keepdims=True), [_u(-1, 1, 2, 3, 2)])],
    "Mean": [(lambda x: tf.reduce_mean(x), [_u(-1, 1, 2, 3)]),
             (lambda x: tf.reduce_mean(x * x, axis=0), [_u(-1, 1, 2, 3)]),
             (lambda x: tf.reduce_mean(tf.sin(x), axis=-1, keepdims=True), [_u(-1, 1, 2, 3, 2)])],
    "Max": [(lambda x: tf.reduce_max(x), [_distinct(2, 3)]),
            (lambda x: tf.reduce_max(x * x * x, axis=1), [_distinct(3, 4)]),
            (lambda x: tf.reduce_max(tf.sin(x), axis=[0, 2], keepdims=True), [_distinct(2, 3, 2)])],
    "Min": [(lambda x: tf.reduce_min(x), [_distinct(2, 3)]),
            (lambda x: tf.reduce_min(x * x * x, axis=0), [_distinct(3, 4)]),
            (lambda x: tf.reduce_min(tf.sin(x), axis=-1, keepdims=True), [_distinct(2, 3, 2)])],
    "Prod": [(lambda x: tf.reduce_prod(x), [_u(0.5, 1.5, 2, 3)]),
             (lambda x: tf.reduce_prod(x, axis=1), [_u(-1.5, 1.5, 3, 4)]),
             (lambda x: tf.reduce_prod(x, axis=[0, 2], keepdims=True), [_u(0.5, 1.5, 2, 3, 2)]),
             # First order only at a zero entry: TF's second derivative there is not the true
             # one (Cumprod's rule divides by x with divide_no_nan, so it gives 0).
             (lambda x: tf.reduce_prod(x, axis=0), [np.array([[0.0, 1.5], [2.0, -0.5], [0.7, 1.2]])],
              {"second_order": False}),
             (lambda x: tf.reduce_prod(x * x), [_u(0.5, 1.5, 1)])],  # one element (Cumprod of one)
    "ReduceLogSumExp": [(lambda x: tf.reduce_logsumexp(x), [_u(-2, 2, 2, 3)]),
                        (lambda x: tf.reduce_logsumexp(x, axis=1), [_u(-2, 2, 3, 4)]),
                        (lambda x: tf.reduce_logsumexp(x * x, axis=0, keepdims=True),
                         [_u(-2, 2, 3, 4)])],
    # The adjoints used where shapes are known only when a traced graph runs: `x` (second
    # input) only gives its shape.
    "SumGrad": [(lambda g: bind(REGISTRY["SumGrad"], (g * g, tf.zeros([2, 3, 2], tf.float64)),
                                {"axis": (0, 2), "keepdims": False}), [_u(-1, 1, 3)]),
                (lambda g: bind(REGISTRY["SumGrad"], (tf.sin(g), tf.zeros([2, 3], tf.float64)),
                                {"axis": None, "keepdims": False}), [_u(-1, 1)])],
    "MeanGrad": [(lambda g: bind(REGISTRY["MeanGrad"], (g * g, tf.zeros([2, 3], tf.float64)),
                                 {"axis": (1,), "keepdims": True}), [_u(-1, 1, 2, 1)])],
    "UnbroadcastLike": [(lambda g: bind(REGISTRY["UnbroadcastLike"],
                                        (g * g, tf.zeros([3, 1], tf.float64))),
                         [_u(-1, 1, 2, 3, 4)])],
    "BroadcastLike": [(lambda x: bind(REGISTRY["BroadcastLike"],
                                      (x * x, tf.zeros([2, 3, 4], tf.float64))),
                       [_u(-1, 1, 3, 1)])],
}
