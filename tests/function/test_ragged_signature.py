"""tf.function with a RaggedTensorSpec in its input_signature (the "Ragged tensors" guide's
max_and_min). The values and error classes are TF 2.21's."""

import pytest

import tapeflow as tf


@tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
def max_and_min(rt):
    return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1)


def test_signature_of_ragged_spec_runs_each_partition():
    high, low = max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert high.numpy().tolist() == [2, 3, 6] and low.numpy().tolist() == [1, 3, 4]
    high, low = max_and_min(tf.ragged.constant([[7], [3, 9]]))   # another partition
    assert high.numpy().tolist() == [7, 9] and low.numpy().tolist() == [7, 3]
    high, low = max_and_min(tf.ragged.constant([[0, 5], [8], [1, 1, 1]]))  # the first again
    assert high.numpy().tolist() == [5, 8, 1] and low.numpy().tolist() == [0, 8, 1]


@pytest.mark.parametrize("bad", [
    lambda: tf.ragged.constant([[1.0]]),          # dtype
    lambda: tf.constant([[1, 2]]),                # not ragged
    lambda: tf.ragged.constant([[[1]]]),          # rank
])
def test_signature_of_ragged_spec_refuses_other_values(bad):
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        max_and_min(bad())


def test_gradient_through_signature_of_ragged_spec():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)])
    def row_sums(rt):
        return tf.reduce_sum(rt * rt, axis=1)

    x = tf.ragged.constant([[1.0, 2.0], [3.0]])
    with tf.GradientTape() as tape:
        tape.watch(x.flat_values)
        y = tf.reduce_sum(row_sums(x) * tf.constant([1.0, 10.0]))
    assert tape.gradient(y, x.flat_values).numpy().tolist() == [2.0, 4.0, 60.0]


def test_signature_of_ragged_spec_traces_once():
    # TF 2.21 traces a RaggedTensorSpec signature once: the row splits are graph inputs.
    max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    max_and_min(tf.ragged.constant([[7], [3, 9]]))
    assert max_and_min.experimental_get_tracing_count() == 1


def test_concrete_function_of_a_bare_ragged_spec_serves_every_partition():
    # TF 2.21: get_concrete_function of a bare spec traces; its output's row splits have
    # shape (None,).
    @tf.function
    def grow(x):
        return x * 2.0

    concrete = grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None],
                                                              dtype=tf.float32))
    assert concrete.structured_outputs.row_splits.shape.as_list() == [None]
    assert concrete(tf.ragged.constant([[1.0], [2.0, 3.0]])).to_list() == [[2.0], [4.0, 6.0]]
    assert concrete(tf.ragged.constant([[], [1.0, 2.0], [3.0]])).to_list() == \
        [[], [2.0, 4.0], [6.0]]


def test_reduce_retracing_relaxes_ragged_specs_as_tf():
    """TF 2.21's second trace relaxes a RaggedTensorSpec's differing dims to None (its printed
    signatures recorded from TF 2.21); later calls run that trace."""
    f = tf.function(lambda rt: rt * 2, reduce_retracing=True)
    f(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    f(tf.ragged.constant([[1.0], [2.0, 3.0], [4.0]]))
    assert f(tf.ragged.constant([[1.0], [2.0, 3.0], [4.0], [5.0]])).to_list() == \
        [[2.0], [4.0, 6.0], [8.0], [10.0]]
    assert f.experimental_get_tracing_count() == 2
    signatures = f.pretty_printed_concrete_signatures()
    assert "RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64)" in signatures
    assert "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)" in signatures

    g = tf.function(lambda rt: rt * 2, reduce_retracing=True)
    for rows in (2, 3, 1):
        g(tf.RaggedTensor.from_row_lengths(tf.ones([rows, 2]), [1] * rows))
    assert g.experimental_get_tracing_count() == 2
    assert "TensorShape([None, None, 2])" in g.pretty_printed_concrete_signatures()
