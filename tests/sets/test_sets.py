"""tf.sets beyond the recorded cases: random groups against Python's sets, the namespace."""

import numpy as np
import pytest

import tapeflow as tf


def _rows(sp) -> list:
    """Each group's values, in the SparseTensor's order, as lists (checks TF's positions)."""
    rows = [[] for _ in range(int(sp.dense_shape[0]))]
    for (row, position), value in zip(sp.indices.numpy().tolist(), sp.values.numpy().tolist()):
        assert position == len(rows[row])
        rows[row].append(value)
    return rows


@pytest.mark.parametrize("op, reference", [
    (tf.sets.union, lambda a, b: a | b), (tf.sets.intersection, lambda a, b: a & b),
    (tf.sets.difference, lambda a, b: a - b)])
def test_random_dense_and_sparse_sets_match_python_sets(op, reference):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, size=(20, 5)).astype(np.int64)
    b = rng.integers(0, 6, size=(20, 3)).astype(np.int64)
    expected = [sorted(reference(set(x), set(y))) for x, y in zip(a.tolist(), b.tolist())]
    sparse_b = tf.sparse.from_dense(b)  # drops the zeros: compare with b's nonzero sets
    expected_sparse = [sorted(reference(set(x), set(y) - {0}))
                       for x, y in zip(a.tolist(), b.tolist())]
    for result, want in ((op(a, b), expected), (op(a, sparse_b), expected_sparse)):
        assert _rows(result) == want
        assert result.dense_shape.numpy().tolist() == [20, max(map(len, want))]


def test_set_ops_in_a_function_retrace_only_by_shape():
    traces = []

    @tf.function
    def union_size(x, y):
        traces.append(1)
        return tf.sets.size(tf.sets.union(x, y))

    assert union_size(tf.constant([[1, 2]]), tf.constant([[3]])).numpy().tolist() == [3]
    assert union_size(tf.constant([[1, 1]]), tf.constant([[1]])).numpy().tolist() == [1]
    assert len(traces) == 1


def test_namespace_has_tf_names():
    assert sorted(n for n in dir(tf.sets) if not n.startswith("_")) == [
        "difference", "intersection", "size", "union"]
