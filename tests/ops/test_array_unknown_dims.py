"""Array ops traced with unknown dims (an input_signature of None dims) run for every size,
traced once; the checks tracing cannot make run in the kernels, with TensorFlow's messages
(verified in TF 2.21, where the same functions raise InvalidArgumentError with these texts)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

F64 = tf.float64


def _spec(*shape, dtype=F64):
    return tf.TensorSpec(shape, dtype)


def _traced_once(f, signature, inputs):
    traced = tf.function(f, input_signature=signature)
    for args in inputs:
        args = [tf.constant(a) for a in args]
        got, want = traced(*args), f(*args)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


def test_reshape_to_another_tensors_run_time_shape():
    _traced_once(lambda x, y: tf.reshape(x, tf.shape(y)) * y, [_spec(None), _spec(None, None)],
                 [[np.arange(6.0), np.ones((2, 3))], [np.arange(4.0), np.ones((4, 1))]])


def test_reshape_by_a_run_time_dim_and_minus_one():
    _traced_once(lambda x: tf.reshape(x, [tf.shape(x)[0], -1]), [_spec(None, None, None)],
                 [[np.arange(24.0).reshape(2, 3, 4)], [np.arange(10.0).reshape(5, 1, 2)]])


def test_fill_zeros_ones_by_run_time_shapes():
    _traced_once(lambda x: tf.fill(tf.shape(x), tf.constant(2.0, F64)) +
                 tf.zeros(tf.shape(x), F64) * tf.ones([tf.shape(x)[0], 1], F64),
                 [_spec(None, None)], [[np.ones((2, 3))], [np.ones((4, 1))]])


def _gradient(f):
    def value_and_gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(f(x) ** 2)
        return tape.gradient(y, x)
    return value_and_gradient


@pytest.mark.parametrize("f", [
    lambda x: tf.reshape(x, [tf.shape(x)[0], -1]),
    lambda x: tf.tile(x, [2, 1]),
    lambda x: tf.concat([x, tf.sin(x)], axis=1),
    lambda x: tf.gather(x, [0, 0], axis=1),
    lambda x: x[1:, -1],
    lambda x: tf.split(x, 2, axis=0)[1],
])
def test_gradients_hold_for_every_size(f):
    _traced_once(lambda x: tf.convert_to_tensor(_gradient(f)(x)), [_spec(None, None)],
                 [[np.arange(8.0).reshape(4, 2)], [np.arange(12.0).reshape(2, 6) / 7]])


def test_axis0_gather_gradient_with_unknown_dims():
    # IndexedSlices densify with the row count read as the graph runs.
    _traced_once(lambda x: tf.convert_to_tensor(_gradient(lambda x: tf.gather(x, [1, 1]))(x)),
                 [_spec(None, None)], [[np.arange(8.0).reshape(4, 2)]])


# name -> (function, signature, inputs that fail, TensorFlow 2.21's message in the graph)
BAD = {
    "reshape": (lambda x: tf.reshape(x, [3, 2]), [_spec(None)], [np.zeros(5)],
                "Input to reshape is a tensor with 5 values, but the requested shape has 6"),
    "reshape_minus_one": (lambda x: tf.reshape(x, [-1, 2]), [_spec(None)], [np.zeros(5)],
                          "Input to reshape is a tensor with 5 values, but the requested "
                          "shape requires a multiple of 2"),
    "unstack": (lambda x: tf.unstack(x, num=2)[0], [_spec(None)], [np.zeros(3)],
                "Input shape axis 0 must equal 2, got shape [3]"),
    "split": (lambda x: tf.split(x, 2)[0], [_spec(None)], [np.zeros(5)],
              "Number of ways to split should evenly divide the split dimension, but got "
              "split_dim 0 (size = 5) and num_split 2"),
    "split_sizes": (lambda x: tf.split(x, [1, 2])[0], [_spec(None)], [np.zeros(5)],
                    "Determined shape must either match input shape along split_dim exactly "
                    "if fully specified, or be less than the size of the input along "
                    "split_dim if not fully specified.  Got: 3"),
    "concat": (lambda a, b: tf.concat([a, b], 0), [_spec(None, None)] * 2,
               [np.zeros((1, 2)), np.zeros((1, 3))],
               "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [1,2] vs. "
               "shape[1] = [1,3]"),
    "stack": (lambda a, b: tf.stack([a, b]), [_spec(None)] * 2, [np.zeros(2), np.zeros(3)],
              "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]"),
    "index": (lambda x: x[3], [_spec(None)], [np.zeros(2)],
              "slice index 3 of dimension 0 out of bounds."),
    "index_negative": (lambda x: x[:, -3], [_spec(None, None)], [np.zeros((2, 2))],
                       "slice index -1 of dimension 1 out of bounds."),
    "fill": (lambda n: tf.fill(n, 1.0), [_spec(None, dtype=tf.int32)],
             [np.array([2, -1], np.int32)], "Dimension -1 must be >= 0"),
    "gather_batch_dims": (lambda x, i: tf.gather(x, i, axis=1, batch_dims=1),
                          [_spec(None, None), _spec(None, None, dtype=tf.int32)],
                          [np.zeros((2, 3)), np.zeros((3, 1), np.int32)],
                          "params.shape[0]: 2 should be equal to indices.shape[0]: 3"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_checks_run_in_the_kernels(name):
    f, signature, inputs, message = BAD[name]
    traced = tf.function(f, input_signature=signature)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        traced(*[tf.constant(a) for a in inputs])
    assert message in str(info.value)


def test_unstack_without_num_of_an_unknown_dim_is_refused_as_in_tf():
    with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape \(None, "
                                         r"None\)"):
        tf.function(lambda x: tf.unstack(x), input_signature=[_spec(None, None)])(
            tf.zeros([2, 2], F64))


def test_broadcast_to_an_incompatible_shape_raises_when_it_runs():
    traced = tf.function(lambda x: tf.broadcast_to(x, [2, 3]), input_signature=[_spec(None)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="BroadcastTo"):
        traced(tf.zeros([2], F64))
    np.testing.assert_array_equal(traced(tf.ones([3], F64)).numpy(), np.ones((2, 3)))


def test_expand_dims_and_squeeze_of_unknown_dims():
    _traced_once(lambda x: tf.squeeze(tf.expand_dims(x, 1), [1]) * tf.expand_dims(x, -1)[..., 0],
                 [_spec(None, None)], [[np.ones((2, 3))], [np.arange(4.0).reshape(4, 1)]])
    squeezed = tf.function(lambda x: tf.squeeze(x, [0]), input_signature=[_spec(None, None)])
    assert squeezed(tf.ones([1, 3], F64)).shape == (3,)
    with pytest.raises(tf.errors.InvalidArgumentError):   # a dim of 2 is not squeezed away
        squeezed(tf.ones([2, 3], F64))


def test_ones_and_zeros_of_a_traced_shape_keep_any_dtype():
    # TF 2.21: tf.ones(shape, tf.bool) inside tf.function is True everywhere (the fill value
    # is the dtype's one, not the Python number 1 converted).
    f = tf.function(lambda s: (tf.ones(s, dtype=tf.bool), tf.zeros(s, dtype=tf.bool)),
                    input_signature=[tf.TensorSpec([None], tf.int32)])
    for shape in ([], [2], [1, 3]):
        ones, zeros = f(tf.constant(shape, tf.int32))
        assert ones.dtype == tf.bool and ones.numpy().tolist() == np.ones(shape, bool).tolist()
        assert zeros.numpy().tolist() == np.zeros(shape, bool).tolist()
