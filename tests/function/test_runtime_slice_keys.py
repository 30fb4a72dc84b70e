"""Slicing keys whose length, or the sliced tensor's rank, is known only when the traced graph
runs (TF 2.21 then gives a result of unknown rank and computes it as the graph runs): the
values and gradients equal the eager op's, one trace serves keys of every length, and TF's
run-time errors are InvalidArgumentError."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
VECTOR = tf.TensorSpec([None], tf.int32)

# (begin, end, strides, masks): keys of two lengths, with every mask kind.
KEYS = [
    ([1], [2], [1], {}),
    ([0, 1], [2, 3], [1, 1], {"shrink_axis_mask": 2}),
    ([0, 2, 3], [0, 0, 0], [1, -1, -2], {"begin_mask": 1, "end_mask": 7}),
    ([0, 0], [0, 2], [1, 1], {"ellipsis_mask": 1}),
    ([0, 0, 1], [0, 0, 3], [1, 1, 1], {"new_axis_mask": 1, "begin_mask": 2, "end_mask": 2}),
]


def _sliced(masks):
    def sliced(x, begin, end, strides):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.strided_slice(x, begin, end, strides, **masks)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, x)
    return sliced


@pytest.mark.parametrize("mask_kind", ["begin_mask", "shrink_axis_mask", "ellipsis_mask",
                                       "new_axis_mask", "end_mask"])
def test_strided_slice_vectors_of_unknown_length_trace_once(mask_kind):
    keys = [k for k in KEYS if mask_kind in k[3]] + [KEYS[0]]
    masks = keys[0][3]
    traced = tf.function(_sliced(masks), input_signature=[
        tf.TensorSpec([None, None, None]), VECTOR, VECTOR, VECTOR])
    assert traced.get_concrete_function().structured_outputs[0].shape.rank is None
    for begin, end, strides, _ in keys:   # keys of two lengths, sliced with one key's masks
        args = [tf.constant(X)] + [tf.constant(v, tf.int32) for v in (begin, end, strides)]
        ours, expected = traced(*args), _sliced(masks)(*args)
        for a, e in zip(ours, expected):
            np.testing.assert_array_equal(a.numpy(), e.numpy())
    assert traced.experimental_get_tracing_count() == 1


def test_strided_slice_vectors_of_unknown_length_check_as_tf_when_run():
    traced = tf.function(lambda x, b, e: tf.strided_slice(x, b, e),
                         input_signature=[tf.TensorSpec(None), VECTOR, VECTOR])
    x = tf.constant(X)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Expected begin, end, and strides to be 1D equal size tensors"):
        traced(x, tf.constant([0, 1]), tf.constant([1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides\\[0\\] must be non-zero"):
        tf.function(lambda x, s: tf.strided_slice(x, [0], [1], s),
                    input_signature=[tf.TensorSpec(None), VECTOR])(x, tf.constant([0]))


def test_indexing_a_tensor_of_unknown_rank_reads_the_key_as_the_graph_runs():
    @tf.function(input_signature=[tf.TensorSpec(None), tf.TensorSpec([], tf.int32)])
    def index(x, i):
        return x[0], x[1:, tf.newaxis], x[..., i], x[i], x[::-1]

    for value, i in ((X, 1), (X[0, 0], -1), (X[:, 0], 0)):
        x, i = tf.constant(value), tf.constant(i)
        eager = (x[0], x[1:, tf.newaxis], x[..., i], x[i], x[::-1])
        for a, e in zip(index(x, i), eager):
            np.testing.assert_array_equal(a.numpy(), e.numpy())
    assert index.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        index(tf.constant(X[0, 0]), tf.constant(7))

