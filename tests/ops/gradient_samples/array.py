"""Gradient-check cases for the primitives of ops/array_ops.py.

Layout ops are linear, so each case multiplies by a smooth function of the input (or squares
the result) to give the second-order check something non-trivial to verify.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(777)


def _u(*shape):
    return _rng.uniform(-1.5, 1.5, size=shape)


def _strided_slice_grad(dy):
    """StridedSliceGrad is reached as the VJP of StridedSlice: the gradient of
    sum(x[key] * dy) with respect to x is StridedSliceGrad(dy), as a function of dy."""
    x = tf.zeros([4, 5], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[1:4:2, ::-2] * dy)
    return tape.gradient(y, x) * tf.sin(tf.reduce_sum(dy))


def _gather_grad(dy):
    """GatherV2Grad (the dense scatter-add) as the VJP of GatherV2, with a repeated index
    (on axis 1: an axis-0 gather's gradient is IndexedSlices instead)."""
    x = tf.zeros([2, 3], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.gather(x, [2, 0, 2], axis=1) * dy)
    g = tape.gradient(y, x)
    return g * g


def _fill_grad(dy):
    """FillGrad (the sum of every element) as the VJP of Fill, as a function of dy."""
    v = tf.constant(0.5, dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = tf.reduce_sum(tf.fill([2, 3], v) * dy)
    g = tape.gradient(y, v)
    return g * g


def _dynamic_slice(x):
    """DynamicStridedSlice (x[i] with a traced index tensor i) bound directly: eagerly,
    `x[i]` reads i's value and uses StridedSlice."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.array_ops import _dynamic_slice as prim
    i, j = tf.constant(1), tf.constant(-2, dtype=tf.int64)
    template = (("input", 0), slice(None, ("input", 1), None))
    y = bind(prim, (x, i, j), {"template": template})
    return y * tf.sin(y)


def _dynamic_slice_grad(dy):
    """DynamicStridedSliceGrad as the VJP of DynamicStridedSlice, as a function of dy."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.array_ops import _dynamic_slice as prim
    x = tf.zeros([3, 4], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(bind(prim, (x, tf.constant(2)), {"template": (("input", 0),)}) * dy)
    g = tape.gradient(y, x)
    return g * tf.cos(g)


def _run_time_slice(x):
    """Slice (tf.slice with a begin/size read as the graph runs) bound directly: eagerly,
    tf.slice reads them and uses StridedSlice. A size of -1 takes the rest."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.array_ops import _slice as prim
    attrs = {"begin_dims": (1, 0), "size_dims": (2, -1)}   # as tracing knows them
    y = bind(prim, (x, tf.constant([1, 0]), tf.constant([2, -1])), attrs)
    return y * tf.sin(y)


def _run_time_slice_grad(dy):
    """SliceGrad as the VJP of Slice, as a function of dy."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.array_ops import _slice as prim
    x = tf.zeros([3, 4], dtype=tf.float64)
    attrs = {"begin_dims": (1, 1), "size_dims": (2, 2)}
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(bind(prim, (x, tf.constant([1, 1]), tf.constant([2, 2])), attrs) * dy)
    g = tape.gradient(y, x)
    return g * tf.cos(g)


SAMPLES = {
    "Slice": [(_run_time_slice, [_u(3, 4)])],
    "SliceGrad": [(_run_time_slice_grad, [_u(2, 2)])],
    "DynamicStridedSlice": [(_dynamic_slice, [_u(3, 4)])],
    "DynamicStridedSliceGrad": [(_dynamic_slice_grad, [_u(4)])],
    "Fill": [(lambda v: tf.fill([2, 3], v) * tf.fill([2, 3], tf.sin(v)), [np.array(0.7)])],
    "FillGrad": [(_fill_grad, [_u(2, 3)])],
    "Reshape": [(lambda x: tf.reshape(x, [3, 2]) * tf.reshape(tf.sin(x), [3, 2]), [_u(2, 3)]),
                (lambda x: tf.square(tf.reshape(x, [-1])), [_u(2, 2, 2)])],
    "Transpose": [(lambda x: tf.square(tf.transpose(x)), [_u(2, 3)]),
                  (lambda x: tf.transpose(x, [1, 2, 0]) * tf.transpose(tf.cos(x), [1, 2, 0]),
                   [_u(2, 3, 2)])],
    "ConcatV2": [(lambda a, b: tf.square(tf.concat([a, b], axis=0)), [_u(2, 3), _u(1, 3)]),
                 (lambda a, b: tf.concat([a * b, tf.sin(b)], axis=-1), [_u(2, 2), _u(2, 2)])],
    "Pack": [(lambda a, b: tf.square(tf.stack([a, b])), [_u(3), _u(3)]),
             (lambda a, b: tf.stack([a * b, b], axis=1), [_u(2, 2), _u(2, 2)])],
    # `num` given, as TF needs it where the axis's size is unknown (a None dim).
    "Unpack": [(lambda x: tf.unstack(x, num=2)[1] * tf.unstack(x, num=2)[0], [_u(2, 3)]),
               (lambda x: tf.square(tf.unstack(x, num=3, axis=1)[2]), [_u(2, 3)])],
    "SplitV": [(lambda x: tf.split(x, 2, axis=1)[0] * tf.split(x, 2, axis=1)[1], [_u(2, 4)]),
               (lambda x: tf.square(tf.split(x, [1, -1])[1]), [_u(3, 2)])],
    "Tile": [(lambda x: tf.square(tf.tile(x, [2, 3])), [_u(2, 2)]),
             (lambda x: tf.tile(x, [1, 2]) * tf.tile(tf.sin(x), [1, 2]), [_u(3, 1)])],
    "BroadcastTo": [(lambda x: tf.square(tf.broadcast_to(x, [2, 3])), [_u(1, 3)]),
                    (lambda x: tf.broadcast_to(x, [2, 2, 3]) * tf.sin(x), [_u(2, 1)])],
    "StridedSlice": [(lambda x: tf.square(x[1:, ::2]), [_u(3, 4)]),
                     (lambda x: x[..., 0, None] * x[:, tf.newaxis, -1], [_u(2, 3)])],
    "StridedSliceGrad": [(_strided_slice_grad, [_u(2, 3)])],
    "GatherV2": [(lambda x: tf.square(tf.gather(x, [2, 0, 2])), [_u(3, 2)]),
                 (lambda x: tf.gather(x, [[1], [0]], axis=1) * tf.gather(x, [[1], [1]], axis=1),
                  [_u(2, 3)]),
                 (lambda x: tf.square(tf.gather(x, [[2, 0], [1, 1]], axis=1, batch_dims=1)),
                  [_u(2, 3)])],
    "GatherV2Grad": [(_gather_grad, [_u(2, 3)])],
}
