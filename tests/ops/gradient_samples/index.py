"""Gradient-check cases for the primitives of ops/index_ops.py. Index tensors are constants
inside each case; segment max/min points have no ties within a segment."""

import numpy as np

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY, bind

_rng = np.random.default_rng(606)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


_IDX2 = np.array([[0, 1], [2, 0], [1, 2], [0, 1]])       # a repeated row: gradients add
_ROWS = np.array([[2], [0]])
_IDS = np.array([0, 2, 0, 1, 2])

SAMPLES = {
    "GatherNd": [(lambda p: tf.gather_nd(p, _IDX2), [_u(-1, 1, 3, 3)]),
                 (lambda p: tf.gather_nd(tf.sin(p), _ROWS), [_u(-1, 1, 3, 2)]),
                 (lambda p: tf.boolean_mask(p * p, np.array([True, False, True])), [_u(-1, 1, 3, 2)])],
    "ScatterNd": [(lambda u: tf.scatter_nd(_IDX2, u * u, [3, 3]), [_u(-1, 1, 4)]),
                  (lambda u: tf.scatter_nd(_ROWS, u, [4, 2]), [_u(-1, 1, 2, 2)])],
    "TensorScatterUpdate": [
        (lambda t, u: tf.tensor_scatter_nd_update(t * t, np.array([[0, 1], [2, 2]]), u * u),
         [_u(-1, 1, 3, 3), _u(-1, 1, 2)])],
    "TensorScatterAdd": [
        (lambda t, u: tf.tensor_scatter_nd_add(t, _IDX2, tf.sin(u)), [_u(-1, 1, 3, 3), _u(-1, 1, 4)])],
    "TensorScatterSub": [
        (lambda t, u: tf.tensor_scatter_nd_sub(t, _IDX2, tf.sin(u)), [_u(-1, 1, 3, 3), _u(-1, 1, 4)])],
    # Updates and tensor values apart (no ties), with a duplicate index (0, 1) taking the
    # larger / smaller of two updates.
    "TensorScatterMax": [
        (lambda t, u: tf.tensor_scatter_nd_max(t, np.array([[0, 1], [2, 2], [0, 1]]), u),
         [np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]),
          np.array([0.35, 0.05, 0.65])])],
    "TensorScatterMin": [
        (lambda t, u: tf.tensor_scatter_nd_min(t, np.array([[0, 1], [2, 2], [0, 1]]), u),
         [np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]),
          np.array([0.15, 1.05, 0.12])])],
    "UnsortedSegmentSum": [
        (lambda d: tf.math.unsorted_segment_sum(d * d, _IDS, 4), [_u(-1, 1, 5, 2)]),
        (lambda d: tf.math.unsorted_segment_sum(d, np.array([1, -1, 0]), 2), [_u(-1, 1, 3)]),
        (lambda d: tf.math.unsorted_segment_mean(tf.sin(d), _IDS, 3), [_u(-1, 1, 5)])],
    "UnsortedSegmentMax": [
        (lambda d: tf.math.unsorted_segment_max(d * d * d, _IDS, 3),
         [np.array([[0.1, 0.5], [0.9, -0.3], [0.4, 0.2], [-0.6, 0.7], [0.3, 0.8]])])],
    "UnsortedSegmentMin": [
        (lambda d: tf.math.segment_min(d, np.array([0, 0, 1, 1, 1])),
         [np.array([0.1, -0.5, 0.9, -0.3, 0.4])])],
    "UnsortedSegmentProd": [
        (lambda d: tf.math.unsorted_segment_prod(d, np.array([0, 2, 0, -1, 2]), 3),
         [_u(0.5, 1.5, 5, 2)]),
        (lambda d: tf.math.segment_prod(tf.sin(d), np.array([0, 0, 1, 1, 1])), [_u(-1, 1, 5)])],
    # No index twice: TF's gradient also reaches overwritten slices, which finite
    # differences do not see (tests/ops/test_array_more2.py checks that).
    "DynamicStitch": [
        (lambda a, b: tf.dynamic_stitch([np.array([0, 3], np.int32), np.array([2, 1], np.int32)],
                                        [a * a, tf.sin(b)]), [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3)]),
        (lambda a: tf.dynamic_stitch([np.array([[1], [0]], np.int32)], [a]), [_u(-1, 1, 2, 1, 2)])],
    "EnsureShape": [(lambda x: tf.ensure_shape(tf.sin(x) * x, [None, 3]), [_u(-1, 1, 2, 3)])],
    # Bound directly: eagerly the wrappers skip these run-time checks of traced graphs.
    "RuntimeCheck": [(lambda d: bind(REGISTRY["RuntimeCheck"], (tf.sin(d), tf.constant(_IDS)),
                                     {"check": "segment_shapes",
                                      "op_name": "UnsortedSegmentSum"}), [_u(-1, 1, 5, 2)])],
    "TracedValueCheck": [(lambda x: bind(REGISTRY["TracedValueCheck"], (x * x, tf.constant(2)),
                                         {"expected": 2, "note": "shift"}), [_u(-1, 1, 3)])],
}
