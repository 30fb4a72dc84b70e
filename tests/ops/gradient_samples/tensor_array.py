"""Gradient-check cases for the buffer primitives of ops/tensor_array_ops.py.

A TensorArray uses them only inside `tf.function` (eagerly it is a list of tensors), so each
case calls a `tf.function`; under a tape it replays its graph, binding the primitives.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(11)


@tf.function
def _read(x):
    ta = tf.TensorArray(tf.float64, size=3).unstack(x)
    return ta.read(1) * ta.read(2) + tf.sin(ta.read(0))


@tf.function
def _write(x, y):
    ta = tf.TensorArray(tf.float64, size=3).unstack(x).write(1, tf.sin(y) * y)
    return ta.stack() * x


SAMPLES = {
    "TensorArrayReadV3": [(_read, [_rng.uniform(-1, 1, (3, 2))])],
    # A dynamic-size write grows the buffer with a Fill of run-time shape first, which the
    # shape-rule check cannot sample; tests/ops/test_tensor_array.py differentiates it.
    "TensorArrayWriteV3": [(_write, [_rng.uniform(-1, 1, (3, 2)), _rng.uniform(-1, 1, (2,))])],
}
