"""Ragged behaviour beyond the printed fixtures: the dense ops' errors are unchanged, traced
tensors cannot shape a row partition (it would be baked into the trace), and tf.function
traces a RaggedTensor argument by its row partition."""

from __future__ import annotations

import pytest

import tapeflow as tf


class _Opaque:
    pass


@pytest.mark.parametrize("call", [lambda: tf.math.square(_Opaque()),
                                  lambda: tf.add(_Opaque(), 1),
                                  lambda: tf.divide(_Opaque(), 1),
                                  lambda: tf.reduce_sum(_Opaque()),
                                  lambda: tf.concat([_Opaque()], 0),
                                  lambda: tf.stack([_Opaque(), _Opaque()])])
def test_dense_ops_keep_their_conversion_error(call):
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        call()


def test_a_traced_tensor_cannot_shape_a_partition():
    @tf.function
    def build(values, lengths):
        return tf.RaggedTensor.from_row_lengths(values, lengths)

    with pytest.raises(TypeError, match="row_lengths must be a Python value"):
        build(tf.constant([1, 2, 3]), tf.constant([1, 2]))


def test_ragged_mean_of_integers_is_float64_with_nan_rows():
    # TF 2.21: tf.reduce_mean(tf.ragged.constant([[1, 2], []]), axis=1) -> [1.5, nan] float64
    out = tf.reduce_mean(tf.ragged.constant([[1, 2], []]), axis=1)
    assert out.dtype == tf.float64
    assert out.numpy()[0] == 1.5 and out.numpy()[1] != out.numpy()[1]


def test_function_traces_once_per_partition():
    @tf.function
    def f(x):
        return x * 2.0

    a = f(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    b = f(tf.ragged.constant([[1.0], [2.0, 3.0]]))   # same shape, other partition
    c = f(tf.ragged.constant([[5.0, 6.0], [7.0]]))   # the first partition again
    assert a.to_list() == [[2.0, 4.0], [6.0]]
    assert b.to_list() == [[2.0], [4.0, 6.0]]
    assert c.to_list() == [[10.0, 12.0], [14.0]]
    assert f.experimental_get_tracing_count() == 2


def test_gradient_through_function_of_ragged():
    x = tf.ragged.constant([[1.0, 2.0], [3.0]])

    @tf.function
    def f(rt):
        return tf.reduce_sum(tf.math.square(rt), axis=1)

    with tf.GradientTape() as tape:
        tape.watch(x.flat_values)
        y = tf.reduce_sum(f(x) * tf.constant([1.0, 10.0]))
    assert tape.gradient(y, x.flat_values).numpy().tolist() == [2.0, 4.0, 60.0]


def test_input_signature_spec_is_refused_clearly():
    spec = tf.RaggedTensorSpec([None, None], tf.float32)
    with pytest.raises(TypeError):
        spec._component_specs()


def test_reverse_of_a_ragged_tensor():
    # TF 2.21's answers for tf.reverse of RaggedTensors (ragged_ops.reverse is the ragged
    # version tf.reverse dispatches to).
    from tapeflow.ops.ragged_ops import reverse
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert tf.reverse(rt, [1]).to_list() == [[2, 1], [3], [6, 5, 4]]   # the public op
    # The Ragged tensors guide's make_palindrome, as TF prints it.
    palindrome = tf.concat([rt, tf.reverse(rt, [1])], 1)
    assert str(palindrome) == "<tf.RaggedTensor [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>"
    assert reverse(None, rt, [1]).to_list() == [[2, 1], [3], [6, 5, 4]]
    assert reverse(None, rt, [0]).to_list() == [[4, 5, 6], [3], [1, 2]]
    assert reverse(None, rt, [0, 1]).to_list() == [[6, 5, 4], [3], [2, 1]]
    r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
    assert reverse(None, r3, [2]).to_list() == [[[2, 1], [3]], [], [[6, 5, 4]]]
    assert reverse(None, r3, [1]).to_list() == [[[3], [1, 2]], [], [[4, 5, 6]]]
    rd = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6), [3, 2]), [2, 1])
    assert reverse(None, rd, [2]).to_list() == [[[1, 0], [3, 2]], [[5, 4]]]
