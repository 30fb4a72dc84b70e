"""Gradient-check cases for the primitives of ops/functional_ops.py and ops/script_ops.py.

`Scan` exists only in traced graphs, so each case calls a `tf.function` (under a tape it
replays its graph, binding the op eagerly). The stateful `Scan` is one whose body assigns a
variable; the counter it bumps does not enter the result. `EagerPyFunc` is a py_function in a
tf.function.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(11)
_counter = tf.Variable(0.0, dtype=tf.float64, trainable=False)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


@tf.function
def _stateless_scan(x, w):
    return tf.scan(lambda a, r: a * tf.sin(r) + w, x) + tf.map_fn(lambda r: r * w, x)


@tf.function
def _stateful_scan(x):
    def step(a, r):
        _counter.assign_add(tf.constant(1.0, tf.float64))
        return a * r
    return tf.foldl(step, x, initializer=tf.ones([2], tf.float64))


@tf.function
def _py_func(x, y):
    return tf.py_function(lambda a, b: tf.sin(a) * b, [x, y], tf.float64)


SAMPLES = {
    "StatelessScan": [(_stateless_scan, [_u(-1, 1, 3, 2), _u(-1, 1, 2)])],
    "Scan": [(_stateful_scan, [_u(0.5, 1.5, 3, 2)])],
    # As in TF 2.21, the gradient of a py_function has no gradient itself.
    "EagerPyFunc": [(_py_func, [_u(-1, 1, 3), _u(-1, 1, 3)], {"second_order": False})],
}
