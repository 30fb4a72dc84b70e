"""Ragged behaviour beyond the printed fixtures: the dense ops' errors are unchanged, traced
tensors shape a row partition as the graph runs, and tf.function traces a RaggedTensor
argument by its spec (rows, dtype, ragged_rank), as TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


class _Opaque:
    pass


@pytest.mark.parametrize("call", [lambda: tf.math.square(_Opaque()),
                                  lambda: tf.add(_Opaque(), 1),
                                  lambda: tf.divide(_Opaque(), 1),
                                  lambda: tf.reduce_sum(_Opaque()),
                                  lambda: tf.concat([_Opaque()], 0),
                                  lambda: tf.tile(_Opaque(), [1]),
                                  lambda: tf.stack([_Opaque(), _Opaque()])])
def test_dense_ops_keep_their_conversion_error(call):
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        call()


def test_a_traced_tensor_shapes_a_partition_when_the_graph_runs():
    @tf.function
    def build(values, lengths):
        return tf.RaggedTensor.from_row_lengths(values, lengths)

    assert build(tf.constant([1, 2, 3]), tf.constant([1, 2])).to_list() == [[1], [2, 3]]
    assert build(tf.constant([4, 5, 6]), tf.constant([2, 1])).to_list() == [[4, 5], [6]]
    assert build.experimental_get_tracing_count() == 1


def test_ragged_mean_of_integers_is_float64_with_nan_rows():
    # TF 2.21: tf.reduce_mean(tf.ragged.constant([[1, 2], []]), axis=1) -> [1.5, nan] float64
    out = tf.reduce_mean(tf.ragged.constant([[1, 2], []]), axis=1)
    assert out.dtype == tf.float64
    assert out.numpy()[0] == 1.5 and out.numpy()[1] != out.numpy()[1]


def test_function_traces_once_per_number_of_rows():
    @tf.function
    def f(x):
        return x * 2.0

    a = f(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    b = f(tf.ragged.constant([[1.0], [2.0, 3.0]]))   # same shape, other partition
    c = f(tf.ragged.constant([[5.0, 6.0], [7.0]]))   # the first partition again
    assert a.to_list() == [[2.0, 4.0], [6.0]]
    assert b.to_list() == [[2.0], [4.0, 6.0]]
    assert c.to_list() == [[10.0, 12.0], [14.0]]
    # TF 2.21: one trace for the three (the spec is RaggedTensorSpec([2, None])); three
    # rows trace again.
    assert f.experimental_get_tracing_count() == 1
    assert f(tf.ragged.constant([[1.0], [], [2.0]])).to_list() == [[2.0], [], [4.0]]
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


def test_a_spec_traces_as_its_component_tensors():
    # As TF's: the flat values, then each ragged dimension's row splits.
    def parts(spec):
        return [(shape.as_list(), dtype) for shape, dtype in spec._component_specs()]

    assert parts(tf.RaggedTensorSpec([4, None, 3], tf.float32, ragged_rank=1)) == \
        [([None, 3], tf.float32), ([5], tf.int64)]
    assert parts(tf.RaggedTensorSpec([None, None, None], tf.int32, ragged_rank=2)) == \
        [([None], tf.int32), ([None], tf.int64), ([None], tf.int64)]


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


def test_embedding_lookup_of_ragged_ids_and_its_gradient():
    # TF 2.21: a RaggedTensor of the rows; the table's gradient is an IndexedSlices over
    # the flat ids (their dtype), dense_shape int32, each row's 1/len weight from the mean.
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))
    ids = tf.ragged.constant([[1, 2, 3], [], [0, 1]])
    rows = tf.nn.embedding_lookup(table, ids)
    assert rows.to_list() == [[[3, 4, 5], [6, 7, 8], [9, 10, 11]], [], [[0, 1, 2], [3, 4, 5]]]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.reduce_mean(tf.nn.embedding_lookup(table, ids), axis=1))
    grad = tape.gradient(loss, table)
    assert isinstance(grad, tf.IndexedSlices)
    assert grad.indices.numpy().tolist() == [1, 2, 3, 0, 1]
    assert grad.indices.dtype == tf.int32 and grad.dense_shape.dtype == tf.int32
    assert grad.dense_shape.numpy().tolist() == [4, 3]
    assert np.allclose(grad.values.numpy()[:, 0], [1 / 3, 1 / 3, 1 / 3, 0.5, 0.5])
    with pytest.raises(ValueError, match="All values should be indices"):
        tf.nn.embedding_lookup(table, tf.ragged.constant([[1.0]]))


def test_map_fn_over_ragged_rows():
    # TF 2.21's answers: rows in, a RaggedTensor out (its spec defaults to the input row's);
    # a dtype signature stacks dense rows; fn must fit a RaggedTensorSpec exactly.
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    out = tf.map_fn(tf.math.square, digits)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]
    sums = tf.map_fn(tf.reduce_sum, digits, fn_output_signature=tf.int32)
    assert sums.numpy().tolist() == [9, 0, 16, 6, 0]
    r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
    assert tf.map_fn(lambda r: r * 2, r3).to_list() == [[[2, 4], [6]], [], [[8, 10, 12]]]
    spec = tf.RaggedTensorSpec([None], tf.int32)
    ranges = tf.map_fn(tf.range, tf.constant([1, 2, 3]), fn_output_signature=spec)
    assert ranges.to_list() == [[0], [0, 1], [0, 1, 2]]
    assert ranges.row_splits.dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match="Ragged values must have rank"):
        tf.map_fn(tf.reduce_sum, digits)
    with pytest.raises(ValueError, match="Expected `fn` to return a:"):
        tf.map_fn(lambda r: tf.cast(r, tf.float32), digits)


def test_map_fn_of_ragged_rows_is_differentiable():
    x = tf.ragged.constant([[1.0, 2.0], [3.0]])
    with tf.GradientTape() as tape:
        tape.watch(x.flat_values)
        total = tf.reduce_sum(tf.map_fn(lambda r: r * r, x))
    assert tape.gradient(total, x.flat_values).numpy().tolist() == [2.0, 4.0, 6.0]


def test_ragged_strings_join():
    # TF 2.21: tf.strings.join of RaggedTensors joins their flat values (the Ragged tensors
    # guide's bigrams); a string broadcasts; flat values of other sizes are TF's ValueError.
    # ragged_ops.strings_join is the ragged version tf.strings.join dispatches to.
    from tapeflow.ops.ragged_ops import strings_join
    from tapeflow.ops.string_ops import join
    padded = tf.ragged.constant([["#", "Who", "is", "#"], ["#", "Pause", "#"]])
    bigrams = strings_join(join, [padded[:, :-1], padded[:, 1:]], separator="+")
    assert bigrams.to_list() == [[b"#+Who", b"Who+is", b"is+#"], [b"#+Pause", b"Pause+#"]]
    assert strings_join(join, [padded[:, :1], "x"]).to_list() == [[b"#x"], [b"#x"]]
    with pytest.raises(ValueError, match="Got sizes: {5, 7}"):
        strings_join(join, [padded[:, :-1], padded])


def test_partition_mismatch_is_tf_assert_equal_text():
    # The Ragged tensors guide's broadcasting errors print this (TF 2.21's text).
    x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    y = tf.ragged.constant([[10, 20], [30, 40], [50]])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        x + y
    assert str(info.value) == ("Condition x == y did not hold.\nIndices of first 2 different "
                               "values:\n[[1]\n [3]]\nCorresponding x values:\n[3 6]\n"
                               "Corresponding y values:\n[2 5]\nFirst 3 elements of x:\n"
                               "[0 3 4]\nFirst 3 elements of y:\n[0 2 4]")


def test_dense_operand_broadcast_index_per_flat_value():
    # A broadcast axis (size 1) above a partitioned one is TF's error; below it, each flat
    # value takes its own element of the dense operand (TF 2.21's answer).
    rt = tf.ragged.constant([[[1, 2], [2, 3]], [[3, 3], [1, 1]]])
    out = rt + tf.constant([[[1], [2]], [[2], [3]]])
    assert out.to_list() == [[[2, 3], [4, 5]], [[5, 5], [4, 4]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Last row partition"):
        rt + tf.constant([[[1, 2]], [[2, 3]]])


def test_embedding_lookup_of_a_partitioned_params_list():
    # TF 2.21 ("div" strategy): id i is row i of the tables' concatenation when the first
    # N % P tables hold one row more; a one-table list is that table (it was stacked).
    a = tf.reshape(tf.range(6.0), [3, 2])
    c = tf.reshape(tf.range(4.0), [2, 2]) + 200
    assert tf.nn.embedding_lookup([a, c], [0, 2, 3, 4]).numpy().tolist() == [
        [0.0, 1.0], [4.0, 5.0], [200.0, 201.0], [202.0, 203.0]]
    assert tf.nn.embedding_lookup([a], [[0, 2]]).numpy().tolist() == [[[0.0, 1.0], [4.0, 5.0]]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup([c, a], [0, 4])
