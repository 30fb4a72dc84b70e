"""Index and manipulation ops traced with unknown dims (a signature of None dims) and with
run-time arguments (a tensor k, num_segments, shape): one trace runs for every size, equal to
eager, and bad inputs raise TF's error class and message when the graph runs, as eagerly."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

_X = np.array([[0.3, -1.2, 2.5, 0.7], [1.1, 0.2, -0.4, -2.0], [-0.6, 1.9, 0.8, 0.1]])


def _spec(x):
    x = np.asarray(x)
    return tf.TensorSpec([None] * x.ndim, tf.as_dtype(x.dtype))


def _flat(result) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _same(actual, expected) -> None:
    for a, e in zip(_flat(actual), _flat(expected), strict=True):
        a, e = tf.convert_to_tensor(a), tf.convert_to_tensor(e)
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a.numpy(), e.numpy())


# name -> (function, input sets of DIFFERENT sizes; traced once from None dims)
SIZES = {
    "unique": (lambda x: tuple(tf.unique(x)),
               [[np.array([3, 1, 3, 2])], [np.array([5, 5])], [np.array([1, 2, 3, 4, 5, 1])]]),
    "unique_with_counts": (lambda x: tuple(tf.unique_with_counts(x)),
                           [[np.array([3., 1., 3.])], [np.array([7., 7., 7., 7., 2.])]]),
    "where_one_arg": (lambda x: tf.where(x > 0.5), [[_X], [_X[:2, :1]], [np.ones((5, 2))]]),
    "repeat": (lambda x, r: tf.repeat(x, r, axis=0),
               [[_X, np.array([2, 0, 1])], [_X[:2], np.array([3, 1])], [_X, np.array([4])]]),
    "repeat_python_counts": (lambda x: tf.repeat(x, 2, axis=1), [[_X], [_X[:1, :3]]]),
    "top_k_tensor_k": (lambda x, k: tuple(tf.math.top_k(x, k)),
                       [[_X, np.array(2)], [_X[:2, :3], np.array(3)], [_X, np.array(0)]]),
    "top_k_python_k": (lambda x: tuple(tf.math.top_k(x, 2)), [[_X], [_X[:1, :2]]]),
    "sort": (lambda x: tf.sort(x, axis=0), [[_X], [_X[:2, :3]]]),
    "segment_sum": (lambda x, i: tf.math.segment_sum(x, i),
                    [[_X, np.array([0, 0, 2])], [_X[:2], np.array([1, 4])]]),
    "segment_max": (lambda x, i: tf.math.segment_max(x, i),
                    [[_X, np.array([0, 1, 3])], [_X[:2], np.array([0, 0])]]),
    "unsorted_segment_mean": (lambda x, i, n: tf.math.unsorted_segment_mean(x, i, n),
                              [[_X, np.array([0, 2, 0]), np.array(3)],
                               [_X[:2], np.array([-1, 4]), np.array(6)]]),
    "bincount": (lambda a: tf.math.bincount(a, minlength=2),
                 [[np.array([0, 3, 3], np.int32)], [np.array([1], np.int32)],
                  [np.array([], np.int32)]]),
    "scatter_nd_tensor_shape": (lambda i, u, s: tf.scatter_nd(i, u, s),
                                [[np.array([[0], [2]]), np.array([1., 2.]), np.array([3])],
                                 [np.array([[4]]), np.array([5.]), np.array([6])]]),
    "gather_nd_batch_dims": (lambda x, i: tf.gather_nd(x, i, batch_dims=1),
                             [[_X, np.array([[1], [3], [0]])], [_X[:2], np.array([[2], [2]])]]),
    "mirror_pad": (lambda x: tf.pad(x, [[1, 1], [2, 0]], "REFLECT"), [[_X], [_X[:2, :3]]]),
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_one_trace_for_every_size(name):
    f, input_sets = SIZES[name]
    traced = tf.function(f, input_signature=[_spec(x) for x in input_sets[0]])
    for inputs in input_sets:
        args = [tf.constant(x) for x in inputs]
        _same(traced(*args), f(*args))
    assert traced.experimental_get_tracing_count() == 1


def test_top_k_tensor_k_gradient_follows_k():
    def value_and_grad(x, k):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.math.top_k(x, k).values * 2.0)
        return y, tape.gradient(y, x)

    traced = tf.function(value_and_grad)
    for k in (1, 3, 0):
        args = (tf.constant(_X), tf.constant(k))
        _same(traced(*args), value_and_grad(*args))
    assert traced.experimental_get_tracing_count() == 1


# name -> (function, valid inputs, invalid inputs): the traced graph (None dims) raises the
# eager error (class and message, which are TF 2.21's) when it runs on the invalid inputs.
BAD = {
    "top_k_k_too_large": (lambda x, k: tf.math.top_k(x, k).values,
                          [_X, np.array(2)], [_X, np.array(5)]),
    "top_k_negative_k": (lambda x, k: tf.math.top_k(x, k).values,
                         [_X, np.array(2)], [_X, np.array(-1)]),
    "top_k_python_k_too_large": (lambda x: tf.math.top_k(x, 3).values, [_X], [_X[:, :2]]),
    "segment_ids_not_increasing": (lambda x, i: tf.math.segment_sum(x, i),
                                   [_X, np.array([0, 0, 1])], [_X, np.array([1, 0, 1])]),
    "segment_ids_out_of_range": (lambda x, i: tf.math.unsorted_segment_sum(x, i, 2),
                                 [_X, np.array([0, 1, 1])], [_X, np.array([0, 2, 1])]),
    "segment_shapes": (lambda x, i: tf.math.unsorted_segment_sum(x, i, 2),
                       [_X, np.array([0, 1, 1])], [_X, np.array([0, 1])]),
    "num_segments_negative": (lambda x, n: tf.math.unsorted_segment_sum(x, [0, 1, 0], n),
                              [_X, np.array(2)], [_X, np.array(-1)]),
    "scatter_nd_updates_shape": (lambda i, u: tf.scatter_nd(i, u, [4]),
                                 [np.array([[0], [1]]), np.array([1., 2.])],
                                 [np.array([[0], [1]]), np.array([1., 2., 3.])]),
    "tensor_scatter_bounds": (lambda t, i, u: tf.tensor_scatter_nd_update(t, i, u),
                              [_X, np.array([[0]]), _X[:1]], [_X, np.array([[3]]), _X[:1]]),
    "gather_nd_bounds": (lambda x, i: tf.gather_nd(x, i), [_X, np.array([[0, 1]])],
                         [_X, np.array([[0, 4]])]),
    "gather_nd_empty_params": (lambda x, i: tf.gather_nd(x, i), [_X, np.array([[0, 1]])],
                               [np.zeros((0, 4)), np.array([[0, 1]])]),
    "mirror_pad_too_wide": (lambda x: tf.pad(x, [[2, 0], [0, 0]], "REFLECT"), [_X],
                            [_X[:2]]),
    "repeat_negative_count": (lambda x, r: tf.repeat(x, r, axis=0), [_X, np.array(1)],
                              [_X, np.array(-2)]),
    "bincount_weights_shape": (lambda a, w: tf.math.bincount(a, w),
                               [np.array([0, 1], np.int32), np.array([1., 2.])],
                               [np.array([0, 1], np.int32), np.array([1., 2., 3.])]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_inputs_raise_the_eager_error_when_the_graph_runs(name):
    f, good, bad = BAD[name]
    traced = tf.function(f, input_signature=[_spec(x) for x in good])
    _same(traced(*[tf.constant(x) for x in good]), f(*[tf.constant(x) for x in good]))
    with pytest.raises(tf.errors.InvalidArgumentError) as eager:
        f(*[tf.constant(x) for x in bad])
    with pytest.raises(tf.errors.InvalidArgumentError) as graph:
        traced(*[tf.constant(x) for x in bad])
    message = eager.value.message.split(" [Op:")[0]
    assert message in str(graph.value)


def test_eager_top_k_errors_are_tfs():
    # TF 2.21's messages for a k tensor out of range.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must have at least k columns. Had 3, needed 4"):
        tf.math.top_k(tf.ones([2, 3]), k=tf.constant(4))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Need k >= 0, got -1"):
        tf.math.top_k(tf.ones([2, 3]), k=tf.constant(-1))


def test_traced_num_segments_errors_are_tfs():
    # TF 2.21: "Input num_segments == -1 must not be negative.", eagerly and when the graph
    # runs (tapeflow's eager check used to report an id out of range [0, -1) instead).
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input num_segments == -1 must not be negative."):
        tf.math.unsorted_segment_sum(tf.ones([3]), [0, 1, 1], -1)
    traced = tf.function(lambda x, n: tf.math.unsorted_segment_sum(x, [0, 1, 1], n))
    assert traced(tf.ones([3]), tf.constant(2)).shape == (2,)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input num_segments == -1 must not be negative."):
        traced(tf.ones([3]), tf.constant(-1))
