"""Gradient-check cases for the primitives of ops/debugging_ops.py (finite values: the check
passes, and the gradient is the cotangent itself)."""

import numpy as np

import tapeflow as tf

SAMPLES = {
    "CheckNumerics": [(lambda x: tf.debugging.check_numerics(x * x, "m"),
                       [np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]])])],
}
