"""Gradient-check cases for the primitives of ops/control_flow_ops.py.

The branch and loop ops exist only in traced graphs, so each case calls a `tf.function`: under
a tape the function replays its graph op by op, binding `If`/`Case`/`While` eagerly, which is
what the registry's instrumented kernel sees. The stateful forms (`If`, `Case`, `While`) are
those whose branches assign a variable; the counter they bump does not enter the result.
"""

import numpy as np

import tapeflow as tf
from tapeflow.autodiff.core import bind
from tapeflow.ops import control_flow_ops as _cf

_rng = np.random.default_rng(77)
_counter = tf.Variable(0.0, dtype=tf.float64, trainable=False)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


@tf.function
def _stateless_if(x, y):
    return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.sin(x) * y, lambda: x * x - y)


@tf.function
def _stateful_if(x):
    def yes():
        _counter.assign_add(tf.constant(1.0, tf.float64))
        return tf.exp(x) * x
    return tf.cond(tf.reduce_sum(x) > 0.0, yes, lambda: x)


@tf.function
def _stateless_case(x):
    index = tf.cast(tf.reduce_sum(x) > 0.0, tf.int32)
    return tf.switch_case(index, [lambda: x * 2.0, lambda: tf.sin(x) * x, lambda: x])


@tf.function
def _stateful_case(x):
    def bump():
        _counter.assign_add(tf.constant(1.0, tf.float64))
        return x * x * x
    return tf.switch_case(tf.cast(tf.reduce_sum(x * x) > 0.0, tf.int32), [lambda: x, bump])


@tf.function
def _stateless_while(x, y):
    def body(i, acc):
        return i + 1, tf.sin(acc) * x + y
    return tf.while_loop(lambda i, acc: i < 3, body, (tf.constant(0), x))[1]


@tf.function
def _stateful_while(x):
    def body(i, acc):
        _counter.assign_add(tf.constant(1.0, tf.float64))
        return i + 1, acc * x
    return tf.while_loop(lambda i, acc: i < 2, body, (tf.constant(0), x))[1]


_PADDED_SHAPES = tf.constant([[1, 1], [2, 1], [2, 2]])

SAMPLES = {
    "StatelessIf": [(_stateless_if, [_u(0.2, 1, 3), _u(-1, 1, 3)]),
                    (_stateless_if, [_u(-1, -0.2, 3), _u(-1, 1, 3)])],
    "If": [(_stateful_if, [_u(0.2, 1, 2, 2)])],
    "StatelessCase": [(_stateless_case, [_u(0.2, 1, 3)]),
                      (_stateless_case, [_u(-1, -0.2, 3)])],
    "Case": [(_stateful_case, [_u(-1, 1, 4)])],
    "StatelessWhile": [(_stateless_while, [_u(0.2, 1, 3), _u(-1, 1, 3)])],
    "While": [(_stateful_while, [_u(0.5, 1.5, 2)])],
    "TensorListGetItem": [(lambda s: bind(_cf._HISTORY_GET, (s * s, tf.constant(1))),
                           [_u(-1, 1, 3, 2)])],
    "TensorListSetItem": [(lambda s, g: bind(_cf._HISTORY_SET, (s, tf.constant(2), g * g)),
                           [_u(-1, 1, 3, 2), _u(-1, 1, 2)])],
    # A padded history (a loop variable whose shape changes): entry 1 is 2 x 1 of a 3 x 2.
    "TensorListGetItemPadded": [(lambda s: bind(_cf._PADDED_GET, (s * s, _PADDED_SHAPES,
                                                                  tf.constant(1))),
                                 [_u(-1, 1, 3, 2, 2)])],
    "TensorListSetItemPadded": [(lambda s, g: bind(_cf._PADDED_SET, (s, _PADDED_SHAPES,
                                                                     tf.constant(1), g * g)),
                                 [_u(-1, 1, 3, 2, 2), _u(-1, 1, 2, 1)])],
}
