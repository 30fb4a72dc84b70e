"""Row partitions known only when a traced graph runs: a RaggedTensorSpec argument, a
partition built from traced tensors, `tf.strings.split` of a traced vector and `Dataset.map`
over ragged elements trace once and serve every partition, as TF 2.21 (its row splits are
graph values). Every value, static shape and error text below was measured with TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

SPEC = tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64)
SPEC2 = tf.RaggedTensorSpec([None, None, None], tf.float32, 2, tf.int64)
A = [[1.0, 2.0], [], [3.0, 4.0, 5.0]]
B = [[7.0], [8.0, 9.0]]
A2 = [[[1.0, 2.0], [3.0]], [], [[4.0], [], [5.0, 6.0, 7.0]]]
B2 = [[[1.0]], [[2.0, 3.0], [4.0]]]


def _static(out):
    """The static shapes of a traced output (a RaggedTensor: its flat values' and splits')."""
    if isinstance(out, tf.RaggedTensor):
        return [_static(out.values), out.row_splits.shape.as_list()]
    return out.shape.as_list()


def _value(out):
    return out.to_list() if isinstance(out, tf.RaggedTensor) else out.numpy().tolist()


# (op, TF 2.21's static shapes of the traced outputs under SPEC)
OPS = {
    "reduce_sum_1": (lambda rt: tf.reduce_sum(rt, axis=1), [None]),
    "reduce_sum_0": (lambda rt: tf.reduce_sum(rt, axis=0), [None]),
    "reduce_sum_all": (lambda rt: tf.reduce_sum(rt), []),
    "reduce_mean_1": (lambda rt: tf.reduce_mean(rt, axis=1), [None]),
    "reduce_max_1": (lambda rt: tf.reduce_max(rt, axis=1), [None]),
    "to_tensor": (lambda rt: rt.to_tensor(), [None, None]),
    "to_tensor_default": (lambda rt: rt.to_tensor(default_value=-1.0), [None, None]),
    "row_lengths": (lambda rt: rt.row_lengths(), [None]),
    "value_rowids": (lambda rt: rt.value_rowids(), [None]),
    "nrows": (lambda rt: rt.nrows(), []),
    "bounding_shape": (lambda rt: rt.bounding_shape(), [2]),
    "row_splits": (lambda rt: rt.row_splits, [None]),
    "flat_values": (lambda rt: rt.flat_values, [None]),
    "multiply": (lambda rt: rt * 2.0, [[None], [None]]),
    "square": (lambda rt: tf.math.square(rt), [[None], [None]]),
    "add_self": (lambda rt: rt + rt, [[None], [None]]),
    "map_flat_values": (lambda rt: tf.ragged.map_flat_values(tf.square, rt), [[None], [None]]),
    "row": (lambda rt: rt[1], [None]),
    "last_row": (lambda rt: rt[-1], [None]),
    "rows": (lambda rt: rt[1:], [[None], [None]]),
    "gather": (lambda rt: tf.gather(rt, [1, 0]), [[None], [3]]),   # TF: splits (None,)
    "concat_0": (lambda rt: tf.concat([rt, rt * 2.0], axis=0), [[None], [None]]),
    "stack_0": (lambda rt: tf.stack([rt, rt], axis=0), [[[None], [None]], [3]]),
    "boolean_mask": (lambda rt: tf.ragged.boolean_mask(rt, rt > 1.5), [[None], [None]]),
    "row_mask": (lambda rt: tf.ragged.boolean_mask(rt, rt.row_lengths() > 0),
                 [[None], [None]]),
    "reverse_1": (lambda rt: tf.reverse(rt, [1]), [[None], [None]]),
    "reverse_0": (lambda rt: tf.reverse(rt, [0]), [[None], [None]]),
    "palindrome": (lambda rt: tf.concat([rt, tf.reverse(rt, [1])], 1), [[None], [None]]),
    "items_from_1": (lambda rt: rt[:, 1:], [[None], [None]]),
    "items_reversed": (lambda rt: rt[:, ::-1], [[None], [None]]),
    "rows_and_items": (lambda rt: rt[1:, :-1], [[None], [None]]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_signature_traces_once_for_every_partition(name):
    op, tf_shape = OPS[name]
    f = tf.function(op, input_signature=[SPEC])
    assert _static(f.get_concrete_function().structured_outputs) == tf_shape
    for rows in (A, B, [[]], A):
        rt = tf.ragged.constant(rows)
        if name in ("gather", "row") and len(rows) < 2:   # rows 1 and 0 needed
            continue
        assert repr(_value(f(rt))) == repr(_value(op(rt)))   # equal, NaN rows too
    assert f.experimental_get_tracing_count() == 1


def test_traced_values_are_tensorflows():
    # TF 2.21's results for A (and B) through the signature.
    expect = {"reduce_sum_1": [3.0, 0.0, 12.0], "reduce_sum_0": [4.0, 6.0, 5.0],
              "to_tensor": [[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [3.0, 4.0, 5.0]],
              "value_rowids": [0, 0, 2, 2, 2], "bounding_shape": [3, 3], "row": [],
              "rows": [[], [3.0, 4.0, 5.0]], "gather": [[], [1.0, 2.0]],
              "boolean_mask": [[2.0], [], [3.0, 4.0, 5.0]],
              "reduce_max_1": [2.0, float(np.finfo(np.float32).min), 5.0]}
    for name, want in expect.items():
        f = tf.function(OPS[name][0], input_signature=[SPEC])
        assert _value(f(tf.ragged.constant(A))) == want, name
    mean = tf.function(OPS["reduce_mean_1"][0], input_signature=[SPEC])
    assert _value(mean(tf.ragged.constant(B))) == [7.0, 8.5]


# ragged_rank 2: (op, TF 2.21's static shapes, its values for A2 and B2)
OPS2 = {
    "reduce_sum_2": (lambda rt: tf.reduce_sum(rt, axis=2), [[None], [None]],
                     [[[3.0, 3.0], [], [4.0, 0.0, 18.0]], [[1.0], [5.0, 4.0]]]),
    "reduce_sum_1": (lambda rt: tf.reduce_sum(rt, axis=1), [[None], [None]],
                     [[[4.0, 2.0], [], [9.0, 6.0, 7.0]], [[1.0], [6.0, 3.0]]]),
    "reduce_sum_0": (lambda rt: tf.reduce_sum(rt, axis=0), [[None], [None]],
                     [[[5.0, 2.0], [3.0], [5.0, 6.0, 7.0]], [[3.0, 3.0], [4.0]]]),
    "row_lengths": (lambda rt: rt.row_lengths(), [None], [[2, 0, 3], [1, 2]]),
    "bounding_shape": (lambda rt: rt.bounding_shape(), [3], [[3, 3, 3], [2, 2, 2]]),
    "gather": (lambda rt: tf.gather(rt, [1, 0]), [[[None], [None]], [3]],
               [[[], [[1.0, 2.0], [3.0]]], [[[2.0, 3.0], [4.0]], [[1.0]]]]),
    "row": (lambda rt: rt[0], [[None], [None]], [[[1.0, 2.0], [3.0]], [[1.0]]]),
    "items_from_1": (lambda rt: rt[:, :, 1:], [[[None], [None]], [None]],
                     [[[[2.0], []], [], [[], [], [6.0, 7.0]]], [[[]], [[3.0], []]]]),
    # tapeflow's answers, equal to its eager ops' (TF's, as tests/ragged/test_ragged.py)
    "reverse_1": (lambda rt: tf.reverse(rt, [1]), [[[None], [None]], [None]],
                  [[[[3.0], [1.0, 2.0]], [], [[5.0, 6.0, 7.0], [], [4.0]]],
                   [[[1.0]], [[4.0], [2.0, 3.0]]]]),
    "concat_2": (lambda rt: tf.concat([rt, rt * 2.0], 2), [[[None], [None]], [None]],
                 [[[[1.0, 2.0, 2.0, 4.0], [3.0, 6.0]], [], [[4.0, 8.0], [], [5.0, 6.0, 7.0,
                                                                             10.0, 12.0, 14.0]]],
                  [[[1.0, 2.0]], [[2.0, 3.0, 4.0, 6.0], [4.0, 8.0]]]]),
}


@pytest.mark.parametrize("name", sorted(OPS2))
def test_nested_partitions_trace_once(name):
    op, tf_shape, want = OPS2[name]
    f = tf.function(op, input_signature=[SPEC2])
    assert _static(f.get_concrete_function().structured_outputs) == tf_shape
    assert [_value(f(tf.ragged.constant(rows))) for rows in (A2, B2)] == want
    assert f.experimental_get_tracing_count() == 1


def test_to_tensor_of_nested_partitions():
    f = tf.function(lambda rt: rt.to_tensor(), input_signature=[SPEC2])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None] * 3
    assert f(tf.ragged.constant(B2)).numpy().tolist() == [[[1.0, 0.0], [0.0, 0.0]],
                                                          [[2.0, 3.0], [4.0, 0.0]]]
    assert f(tf.ragged.constant(A2)).shape == (3, 3, 3)


def test_gradient_reaches_flat_values_for_every_partition():
    @tf.function(input_signature=[SPEC])
    def loss(rt):
        weights = tf.range(1.0, tf.cast(rt.nrows(), tf.float32) + 1.0)
        return tf.reduce_sum(tf.reduce_sum(rt * rt, axis=1) * weights)

    # TF 2.21: 32.0 with gradient [2, 4, 18]; 27.0 with [2, 8, 12].
    for rows, value, grad in (([[1.0, 2.0], [], [3.0]], 32.0, [2.0, 4.0, 18.0]),
                              ([[1.0], [2.0, 3.0]], 27.0, [2.0, 8.0, 12.0])):
        rt = tf.ragged.constant(rows)
        with tf.GradientTape() as tape:
            tape.watch(rt.flat_values)
            y = loss(rt)
        assert y.numpy() == value
        assert tape.gradient(y, rt.flat_values).numpy().tolist() == grad
    assert loss.experimental_get_tracing_count() == 1


def test_gradient_through_to_tensor():
    @tf.function(input_signature=[SPEC])
    def padded(rt):
        return tf.reduce_sum(rt.to_tensor(default_value=-1.0) * 2.0)

    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0]])
    with tf.GradientTape() as tape:
        tape.watch(rt.flat_values)
        y = padded(rt)
    assert y.numpy() == 6.0     # TF 2.21: 6.0, gradient [2, 2, 2]
    assert tf.convert_to_tensor(tape.gradient(y, rt.flat_values)).numpy().tolist() == [2.0] * 3


VALUES = tf.TensorSpec([None], tf.float32)
INDICES = tf.TensorSpec([None], tf.int64)


@tf.function(input_signature=[VALUES, INDICES])
def from_splits(values, splits):
    return tf.RaggedTensor.from_row_splits(values, splits).to_tensor()


@tf.function(input_signature=[VALUES, INDICES])
def from_lengths(values, lengths):
    return tf.RaggedTensor.from_row_lengths(values, lengths).to_tensor()


@tf.function(input_signature=[VALUES, INDICES])
def from_rowids(values, rowids):
    return tf.RaggedTensor.from_value_rowids(values, rowids).to_tensor()


@tf.function(input_signature=[VALUES, INDICES, tf.TensorSpec([], tf.int64)])
def from_rowids_n(values, rowids, nrows):
    return tf.RaggedTensor.from_value_rowids(values, rowids, nrows).to_tensor()


def test_factories_build_partitions_when_the_graph_runs():
    v = tf.constant([1.0, 2.0, 3.0])
    assert from_splits(v, tf.constant([0, 1, 3], tf.int64)).numpy().tolist() == \
        [[1.0, 0.0], [2.0, 3.0]]
    assert from_splits(v, tf.constant([0, 3, 3], tf.int64)).numpy().tolist() == \
        [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    assert from_lengths(v, tf.constant([1, 2], tf.int64)).numpy().tolist() == \
        [[1.0, 0.0], [2.0, 3.0]]
    assert from_rowids(v, tf.constant([0, 0, 2], tf.int64)).numpy().tolist() == \
        [[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]
    assert from_rowids_n(v, tf.constant([0, 0, 2], tf.int64),
                         tf.constant(4, tf.int64)).numpy().tolist() == \
        [[1.0, 2.0], [0.0, 0.0], [3.0, 0.0], [0.0, 0.0]]
    for f in (from_splits, from_lengths, from_rowids, from_rowids_n):
        assert f.experimental_get_tracing_count() == 1
        assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, None]


@pytest.mark.parametrize("f, arg, words", [
    (from_splits, [1, 2, 3], ["from_row_splits", "RaggedTensor:zero", "x == y"]),
    (from_splits, [0, 2, 1, 3], ["from_row_splits", "RaggedTensor:monotonic", "x >= 0",
                                 "[2 -1 2]"]),
    (from_splits, [0, 1, 2], ["_from_row_partition", "x == y", "[2]", "[3]"]),
    (from_splits, [], ["slice index 0 of dimension 0 out of bounds"]),
    (from_lengths, [4, -1], ["from_row_lengths do not form a valid RowPartition", "x >= 0",
                             "[4 -1]"]),
    (from_lengths, [1, 1], ["_from_row_partition", "[2]", "[3]"]),
    (from_rowids, [0, 2, 1], ["from_value_rowids do not form a valid RowPartition",
                              "x >= 0", "[2 -1]"]),
    (from_rowids, [-1, 0, 0], ["from_value_rowids", "x >= 0", "[-1]"]),
    (from_rowids, [0, 0], ["_from_row_partition", "[2]", "[3]"]),
])
def test_invalid_partitions_raise_when_the_graph_runs(f, arg, words):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0, 2.0, 3.0]), tf.constant(arg, tf.int64))
    for word in words:
        assert word in str(info.value)
    assert f.experimental_get_tracing_count() == 1   # the trace is kept
    assert f(tf.constant([1.0]), tf.constant([0, 1] if f is from_splits else [1] if
                                             f is from_lengths else [0],
                                             tf.int64)).numpy().tolist() == [[1.0]]


def test_nrows_smaller_than_the_row_ids_raises():
    with pytest.raises(tf.errors.InvalidArgumentError, match="x < y"):
        from_rowids_n(tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 0, 2], tf.int64),
                      tf.constant(2, tf.int64))


@pytest.mark.parametrize("op, index, text", [
    (lambda rt, i: tf.gather(rt, tf.reshape(i, [1])), 3, "indices[0] = 3 is not in [0, 3)"),
    (lambda rt, i: tf.gather(rt, tf.reshape(i, [1])), -1, "indices[0] = -1 is not in [0, 3)"),
    (lambda rt, i: rt[i], 3, "slice index 3 of dimension 0 out of bounds"),
])
def test_row_indices_out_of_range_raise_when_the_graph_runs(op, index, text):
    f = tf.function(op, input_signature=[SPEC, tf.TensorSpec([], tf.int64)])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.ragged.constant(A), tf.constant(index, tf.int64))
    assert text in str(info.value)


def test_negative_row_index_counts_from_the_end():
    f = tf.function(lambda rt, i: rt[i], input_signature=[SPEC, tf.TensorSpec([], tf.int64)])
    assert f(tf.ragged.constant(A), tf.constant(-1, tf.int64)).numpy().tolist() == \
        [3.0, 4.0, 5.0]


@pytest.mark.parametrize("op, message", [
    (lambda a, b: a + b, None),
    (lambda a, b: tf.ragged.boolean_mask(a, b > 0.0), "Inputs must have identical ragged "
                                                      "splits"),
    (lambda a, b: tf.ragged.map_flat_values(tf.add, a, b),
     "RowPartition._merge_precomputed_encodings: partitions have incompatible row_splits"),
])
def test_partitions_that_differ_raise_when_the_graph_runs(op, message):
    f = tf.function(op, input_signature=[SPEC, SPEC])
    same = f(tf.ragged.constant([[1.0, 2.0], [3.0]]), tf.ragged.constant([[1.0, 1.0], [1.0]]))
    assert isinstance(same, tf.RaggedTensor)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.ragged.constant([[1.0, 2.0], [3.0]]), tf.ragged.constant([[1.0], [2.0, 3.0]]))
    text = str(info.value)
    assert "Condition x == y did not hold element-wise" in text and "[0 2 3]" in text
    if message is not None:
        assert message in text


def test_strings_split_of_a_traced_vector():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def words(x):
        rows = tf.strings.split(x)
        return rows, rows.to_tensor(default_value=b""), tf.reduce_max(rows.row_lengths())

    rows, dense, longest = words.get_concrete_function().structured_outputs
    # TF 2.21: values and splits (None,), the dense (None, None), the max a scalar.
    assert _static(rows) == [[None], [None]]
    assert dense.shape.as_list() == [None, None] and longest.shape.as_list() == []
    rows, dense, longest = words(tf.constant(["a b c", "d"]))
    assert rows.to_list() == [[b"a", b"b", b"c"], [b"d"]]
    assert dense.numpy().tolist() == [[b"a", b"b", b"c"], [b"d", b"", b""]]
    assert longest.numpy() == 3
    rows, dense, longest = words(tf.constant(["x", "y z", ""]))
    assert dense.numpy().tolist() == [[b"x", b""], [b"y", b"z"], [b"", b""]]
    assert words.experimental_get_tracing_count() == 1


def test_dataset_map_over_ragged_batches_traces_once():
    calls = []

    def fn(x):
        calls.append(1)
        return tf.reduce_sum(x, axis=1), x * 2.0

    batches = tf.data.Dataset.from_tensor_slices(
        tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0], [6.0]])).batch(2)
    mapped = batches.map(fn)
    # TF 2.21's element_spec and elements.
    assert repr(mapped.element_spec) == (
        "(TensorSpec(shape=(None,), dtype=tf.float32, name=None), "
        "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64))")
    out = [(s.numpy().tolist(), r.to_list()) for s, r in mapped]
    assert out == [([3.0, 0.0], [[2.0, 4.0], []]), ([12.0, 6.0], [[6.0, 8.0, 10.0], [12.0]])]
    assert len(calls) == 1   # traced once, not run per element


def test_dataset_map_of_strings_split_over_batches():
    lines = tf.data.Dataset.from_tensor_slices(tf.constant(["a b c", "d", ""])).batch(2)
    split = lines.map(tf.strings.split)
    assert repr(split.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.string, 1, tf.int64)"
    assert [r.to_list() for r in split] == [[[b"a", b"b", b"c"], [b"d"]], [[]]]


def test_nested_function_takes_the_traced_partition():
    @tf.function
    def inner(rt):
        return rt * 3.0

    @tf.function(input_signature=[SPEC])
    def outer(rt):
        return tf.reduce_sum(inner(rt), axis=1)

    assert outer(tf.ragged.constant([[1.0, 2.0], [3.0]])).numpy().tolist() == [9.0, 9.0]
    assert outer(tf.ragged.constant([[1.0], [], [2.0, 3.0]])).numpy().tolist() == \
        [3.0, 0.0, 15.0]
    assert outer.experimental_get_tracing_count() == 1


def test_rows_of_different_counts_do_not_join():
    join = tf.function(lambda a, b: tf.concat([a, b], 1), input_signature=[SPEC, SPEC])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        join(tf.ragged.constant([[1.0]]), tf.ragged.constant([[1.0], [2.0]]))
    # TF 2.21's assertion
    assert "Input tensors at index 0 (=x) and 1 (=y) have incompatible shapes." in \
        str(info.value) and "[x = ] [1] [y = ] [2]" in str(info.value)


def test_from_sparse_of_a_traced_sparse_tensor_traces_once():
    # The partition comes from the SparseTensor's indices as the graph runs (TF 2.21's
    # answers: the same lists, one trace, InvalidArgumentError for indices not right-ragged).
    rebuilt = tf.function(lambda rt: tf.RaggedTensor.from_sparse(rt.to_sparse()) * 2.0,
                          input_signature=[SPEC])
    assert rebuilt(tf.ragged.constant([[1.0, 2.0], [3.0]])).to_list() == [[2.0, 4.0], [6.0]]
    assert rebuilt(tf.ragged.constant([[1.0], [2.0, 3.0]])).to_list() == [[2.0], [4.0, 6.0]]
    assert rebuilt(tf.ragged.constant([[], [6.0]])).to_list() == [[], [12.0]]
    assert rebuilt.experimental_get_tracing_count() == 1
    direct = tf.function(tf.RaggedTensor.from_sparse,
                         input_signature=[tf.SparseTensorSpec([None, None], tf.float32)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseTensor is not right-ragged"):
        direct(tf.sparse.SparseTensor([[0, 1]], [5.0], [2, 4]))


def test_random_partitions_match_eager():
    # A seeded sweep: 150 random partitions (empty rows and empty tensors among them), each
    # through one trace of several ops, against the eager ops (TF's, checked above).
    def ops(rt):
        return (tf.reduce_sum(rt, axis=1), tf.reduce_max(rt, axis=0), rt.to_tensor(),
                tf.gather(rt, tf.range(rt.nrows() - 1, -1, -1)), rt[1:],
                tf.ragged.boolean_mask(rt, rt > 0.5), tf.concat([rt, rt * 2.0], axis=0),
                rt.bounding_shape(), rt[:, 1::2], tf.concat([rt, tf.reverse(rt, [1])], 1))

    traced = tf.function(ops, input_signature=[SPEC])
    rng = np.random.default_rng(33)
    for _ in range(150):
        lengths = rng.integers(0, 4, rng.integers(0, 6))
        rt = tf.RaggedTensor.from_row_lengths(
            tf.constant(rng.random(int(lengths.sum())), tf.float32), lengths)
        for got, want in zip(traced(rt), ops(rt)):
            assert repr(_value(got)) == repr(_value(want)), lengths
    assert traced.experimental_get_tracing_count() == 1


def test_eager_boolean_mask_with_trailing_empty_rows():
    # Found by the sweep above (the eager path raised IndexError); TF 2.21's answer.
    rt = tf.ragged.constant([[0.9, 0.1], [], []])
    assert str(tf.ragged.boolean_mask(rt, rt > 0.5)) == "<tf.RaggedTensor [[0.9], [], []]>"


def test_string_join_and_embedding_lookup_trace_once():
    words = tf.function(lambda r: tf.strings.join([r, r], separator="-"),
                        input_signature=[tf.RaggedTensorSpec([None, None], tf.string)])
    assert words(tf.ragged.constant([["a"], ["b", "c"]])).to_list() == \
        [[b"a-a"], [b"b-b", b"c-c"]]
    assert words(tf.ragged.constant([["x", "y"], []])).to_list() == [[b"x-x", b"y-y"], []]
    assert words.experimental_get_tracing_count() == 1
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))
    lookup = tf.function(lambda ids: tf.nn.embedding_lookup(table, ids),
                         input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    # TF 2.21's rows for [[1, 2], [], [3]] (tests/ragged/test_ragged.py)
    assert lookup(tf.ragged.constant([[1, 2], [], [3]])).to_list() == \
        [[[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], [], [[9.0, 10.0, 11.0]]]
    assert lookup(tf.ragged.constant([[0], [0, 0]])).to_list() == \
        [[[0.0, 1.0, 2.0]], [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]]
    assert lookup.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("build, want", [
    # TF 2.21's rows for the three inputs below (values and row splits of static shape (None,))
    (lambda x: tf.RaggedTensor.from_tensor(x),
     [[[1, 2, 0], [0, 0, 0], [3, 0, 4]], [[5, 0]], [[0], [7]]]),
    (lambda x: tf.RaggedTensor.from_tensor(x, padding=0), [[[1, 2], [], [3, 0, 4]], [[5]],
                                                           [[], [7]]]),
    (lambda x: tf.RaggedTensor.from_tensor(
        x, lengths=tf.reduce_sum(tf.cast(x > 1, tf.int64), axis=1)),
     [[[1], [], [3, 0]], [[5]], [[], [7]]]),
])
def test_from_tensor_of_a_traced_tensor(build, want):
    f = tf.function(build, input_signature=[tf.TensorSpec([None, None], tf.int32)])
    assert _static(f.get_concrete_function().structured_outputs) == [[None], [None]]
    got = [f(tf.constant(v)).to_list() for v in ([[1, 2, 0], [0, 0, 0], [3, 0, 4]], [[5, 0]],
                                                  [[0], [7]])]
    assert got == want
    assert f.experimental_get_tracing_count() == 1


# -- partitions built from values known only when the graph runs (TF 2.21's answers) --------

def test_ragged_range_of_run_time_bounds_traces_once():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)] * 2)
    def ranges(starts, limits):
        return tf.reduce_sum(tf.ragged.range(starts, limits), axis=1)

    assert ranges(tf.constant([0, 2]), tf.constant([3, 5])).numpy().tolist() == [3, 9]
    assert ranges(tf.constant([1]), tf.constant([4])).numpy().tolist() == [6]
    assert ranges.experimental_get_tracing_count() == 1
    spec = tf.function(lambda n: tf.ragged.range(n), input_signature=[
        tf.TensorSpec([], tf.int32)]).get_concrete_function().structured_outputs
    assert spec.row_splits.shape.as_list() == [2]      # one row, as TF's static shape


def test_ragged_range_checks_its_deltas_when_the_graph_runs():
    zero_step = tf.function(lambda d: tf.ragged.range([1], [2], d),
                            input_signature=[tf.TensorSpec([None], tf.int32)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires delta != 0"):
        zero_step(tf.constant([0]))


def test_segment_ids_and_row_splits_convert_at_run_time():
    to_splits = tf.function(tf.ragged.segment_ids_to_row_splits, input_signature=[
        tf.TensorSpec([None], tf.int64), tf.TensorSpec([], tf.int64)])
    assert to_splits(tf.constant([0, 0, 2], tf.int64),
                     tf.constant(4, tf.int64)).numpy().tolist() == [0, 2, 2, 3, 3]
    to_ids = tf.function(tf.ragged.row_splits_to_segment_ids,
                         input_signature=[tf.TensorSpec([None], tf.int32)])
    assert to_ids(tf.constant([0, 2, 2, 5])).numpy().tolist() == [0, 0, 2, 2, 2]


def test_segment_ids_beyond_num_segments_are_not_counted():
    """TF's bincount has maxlength num_segments: ids past it drop out (it gave [0, 1, 1, 1, 2])."""
    splits = tf.ragged.segment_ids_to_row_splits([0, 3], 2)
    assert splits.numpy().tolist() == [0, 1, 1]


def test_from_uniform_row_length_and_uniform_shape_slices_trace_once():
    # TF 2.21's answers for the same programs: the rows and the shape slices as below, one
    # trace, and InvalidArgumentError where the length does not divide the values.
    pairs = tf.function(lambda x: tf.RaggedTensor.from_uniform_row_length(x, 2),
                        input_signature=[tf.TensorSpec([None, 3])])
    assert pairs(tf.ones([2, 3])).to_list() == [[[1.0] * 3] * 2]
    assert pairs(tf.ones([4, 3])).nrows().numpy() == 2
    assert pairs.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="must divide the number of values"):
        pairs(tf.ones([3, 3]))
    rows = tf.function(lambda rt: tf.RaggedTensor.from_uniform_row_length(rt, 2),
                       input_signature=[SPEC])
    assert rows(tf.ragged.constant([[1.0], [2.0, 3.0], [4.0], [5.0]])).to_list() == \
        [[[1.0], [2.0, 3.0]], [[4.0], [5.0]]]

    def dims(x):
        shape = tf.shape(tf.RaggedTensor.from_uniform_row_length(
            tf.RaggedTensor.from_uniform_row_length(x, 2), 1))
        return shape[1:].inner_shape, shape[2:3].inner_shape

    traced = tf.function(dims, input_signature=[tf.TensorSpec([None, 3])])
    for n in (4, 6):
        inner, middle = traced(tf.ones([n, 3]))
        assert inner.numpy().tolist() == [1, 2, 3] and middle.numpy().tolist() == [2]
    assert traced.experimental_get_tracing_count() == 1


def test_a_function_reading_a_partition_in_python_fails_as_tf():
    # No trace per partition hides it: TF 2.21 raises this ValueError for the same program.
    listed = tf.function(lambda rt: tf.constant(len(rt.to_list())), input_signature=[SPEC])
    with pytest.raises(ValueError, match="to_list can only be used in eager mode."):
        listed(tf.ragged.constant([[1.0], [2.0, 3.0]]))
