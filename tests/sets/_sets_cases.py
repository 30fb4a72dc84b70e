"""tf.sets cases run both by TensorFlow (tools/record_sets_audio_fixtures.py records its
answers in fixtures/sets.json) and by tapeflow (test_sets_against_tensorflow.py).

Each case is `fn(tf) -> result`; `describe(tf, fn)` turns what it returns or raises into JSON
(SparseTensor parts, a tensor's value/dtype/shape, or the error's class and message).
"""

from __future__ import annotations

import re

import numpy as np


def _plain(value: np.ndarray) -> list:
    if value.dtype.kind in "OS":
        return [v.hex() for v in value.reshape(-1)] if value.size else []
    return value.tolist()


def describe(tf, fn) -> dict:
    """What `fn(tf)` gives, in JSON (the same text for TF and tapeflow where they agree)."""
    try:
        result = fn(tf)
    except Exception as exc:  # noqa: BLE001 - the error is the answer
        message = re.sub(r"\{\{function_node [^}]*\}\} ", "", str(exc))
        return {"error": type(exc).__name__, "message": re.sub(r" name: $", "", message)}
    if isinstance(result, tf.SparseTensor):
        return {"indices": result.indices.numpy().tolist(),
                "values": _plain(result.values.numpy()), "dtype": result.dtype.name,
                "dense_shape": result.dense_shape.numpy().tolist(),
                "shape": str(result.shape)}
    value = result.numpy()  # a bytes scalar stays bytes (np.asarray drops trailing NULs)
    return {"value": value.hex() if isinstance(value, bytes) else _plain(np.asarray(value)),
            "dtype": result.dtype.name, "shape": str(result.shape)}


def _a(tf):
    return tf.constant([[1, 2, 2, 3], [4, 5, 6, 6]])


def _b(tf):
    return tf.constant([[2, 7], [6, 4]])


def _sa(tf):
    return tf.sparse.from_dense(tf.constant([[1, 0, 3], [0, 0, 0], [9, 1, 1]]))


def _sb(tf):
    return tf.SparseTensor([[0, 0], [2, 1], [2, 3]], [3, 5, 9], [3, 4])


def _dense3(tf):
    return tf.constant([[1, 3, 3, 0], [5, 5, 5, 5], [1, 2, 3, 9]])


def _unsorted(tf):
    return tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2])


def _traced_union(tf):
    @tf.function
    def union(x, y):
        return tf.sets.union(x, y).values
    return union(_a(tf), _b(tf))


def _traced_size(tf):
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def size(x):
        return tf.sets.size(tf.sparse.from_dense(x))
    return size(_a(tf))


def _traced_static_shape(tf):
    @tf.function
    def static(x, y):
        r = tf.sets.difference(x, y)
        return tf.constant(str((r.indices.shape, r.values.shape, r.dense_shape.shape)))
    return static(_a(tf), _b(tf))


CASES = {
    "dense_intersection": lambda tf: tf.sets.intersection(_a(tf), _b(tf)),
    "dense_union": lambda tf: tf.sets.union(_a(tf), _b(tf)),
    "dense_difference": lambda tf: tf.sets.difference(_a(tf), _b(tf)),
    "dense_difference_b_minus_a": lambda tf: tf.sets.difference(_a(tf), _b(tf), aminusb=False),
    "sparse_union": lambda tf: tf.sets.union(_sa(tf), _sb(tf)),
    "sparse_intersection": lambda tf: tf.sets.intersection(_sa(tf), _sb(tf)),
    "sparse_difference": lambda tf: tf.sets.difference(_sa(tf), _sb(tf)),
    "sparse_difference_b_minus_a": lambda tf: tf.sets.difference(_sa(tf), _sb(tf), False),
    "dense_sparse_difference": lambda tf: tf.sets.difference(_dense3(tf), _sb(tf)),
    "sparse_dense_difference": lambda tf: tf.sets.difference(_sb(tf), _dense3(tf)),
    "sparse_dense_difference_b_minus_a": lambda tf: tf.sets.difference(_sb(tf), _dense3(tf),
                                                                       aminusb=False),
    "sparse_dense_union": lambda tf: tf.sets.union(_sb(tf), _dense3(tf)),
    "sparse_dense_intersection": lambda tf: tf.sets.intersection(_sb(tf), _dense3(tf)),
    "size_sparse": lambda tf: tf.sets.size(_sa(tf)),
    "size_sparse_empty_rows": lambda tf: tf.sets.size(_sb(tf)),
    "size_repeated_values": lambda tf: tf.sets.size(
        tf.SparseTensor([[0, 0], [0, 1], [1, 2]], [7, 7, 1], [3, 3])),
    "size_rank3": lambda tf: tf.sets.size(
        tf.SparseTensor([[0, 1, 0], [1, 0, 2]], [7, 7], [2, 2, 3])),
    "size_strings": lambda tf: tf.sets.size(tf.SparseTensor([[0, 0], [0, 1]], ["a", "a"],
                                                            [1, 2])),
    "size_of_dense": lambda tf: tf.sets.size(_a(tf)),
    "size_float": lambda tf: tf.sets.size(tf.sparse.from_dense([[1.0, 2.0]])),
    "size_rank1": lambda tf: tf.sets.size(tf.sparse.from_dense([1, 2])),
    "size_unsorted": lambda tf: tf.sets.size(_unsorted(tf)),
    "size_unsorted_unvalidated": lambda tf: tf.sets.size(_unsorted(tf), validate_indices=False),
    "size_out_of_bounds": lambda tf: tf.sets.size(tf.SparseTensor([[0, 0], [0, 5]], [1, 2],
                                                                  [2, 2])),
    "size_repeated_index": lambda tf: tf.sets.size(tf.SparseTensor([[0, 0], [0, 0]], [1, 2],
                                                                   [2, 2])),
    "float_inputs": lambda tf: tf.sets.union(tf.constant([[1.0]]), tf.constant([[2.0]])),
    "bool_inputs": lambda tf: tf.sets.union([[True]], [[False]]),
    "uint32_inputs": lambda tf: tf.sets.union(tf.constant([[1]], tf.uint32),
                                              tf.constant([[2]], tf.uint32)),
    "dtype_mismatch": lambda tf: tf.sets.union(tf.constant([[1]]), tf.constant([[2]], tf.int64)),
    "strings": lambda tf: tf.sets.union(tf.constant([["b", "a"], ["", "c"]]),
                                        tf.constant([["a", "z"], ["c", "c"]])),
    "strings_difference": lambda tf: tf.sets.difference(
        tf.constant([["b", "a", "\xe9"], ["", "c", "B"]]), tf.constant([["a"], ["c"]])),
    "rank1": lambda tf: tf.sets.union(tf.constant([1, 2]), tf.constant([2, 3])),
    "group_mismatch": lambda tf: tf.sets.union(tf.constant([[1, 2]]),
                                               tf.constant([[2, 3], [1, 1]])),
    "rank_mismatch": lambda tf: tf.sets.union(tf.constant([[1, 2]]), tf.constant([[[2, 3]]])),
    "sparse_group_mismatch": lambda tf: tf.sets.union(
        _sa(tf), tf.SparseTensor([[0, 0]], [1], [2, 4])),
    "dense_sparse_group_mismatch": lambda tf: tf.sets.union(_a(tf), _sb(tf)),
    "sparse_rank_mismatch": lambda tf: tf.sets.union(
        tf.SparseTensor([[0, 0]], [1], [2, 2]), tf.SparseTensor([[0, 0, 0]], [1], [2, 2, 2])),
    "unsorted": lambda tf: tf.sets.union(_unsorted(tf), tf.SparseTensor([[0, 0]], [1], [2, 3])),
    "unsorted_unvalidated": lambda tf: tf.sets.union(
        _unsorted(tf), tf.SparseTensor([[0, 0]], [1], [2, 3]), validate_indices=False),
    "dense_unsorted_sparse_unvalidated": lambda tf: tf.sets.union(
        tf.constant([[1], [2]]), _unsorted(tf), validate_indices=False),
    "empty_result": lambda tf: tf.sets.intersection(tf.constant([[1, 2]]),
                                                    tf.constant([[3, 4]])),
    "rank3": lambda tf: tf.sets.union(tf.constant([[[1, 2], [3, 3]], [[5, 1], [0, 0]]]),
                                      tf.constant([[[2], [1]], [[7], [0]]])),
    "uint8": lambda tf: tf.sets.union(tf.constant([[200, 3]], tf.uint8),
                                      tf.constant([[1]], tf.uint8)),
    "int8": lambda tf: tf.sets.difference(tf.constant([[-100, 3, 7]], tf.int8),
                                          tf.constant([[3]], tf.int8)),
    "int16": lambda tf: tf.sets.intersection(tf.constant([[300, -3]], tf.int16),
                                             tf.constant([[-3, 300, 1]], tf.int16)),
    "uint16": lambda tf: tf.sets.union(tf.constant([[60000]], tf.uint16),
                                       tf.constant([[1]], tf.uint16)),
    "int64": lambda tf: tf.sets.union(tf.constant([[2**40, 1]], tf.int64),
                                      tf.constant([[5]], tf.int64)),
    "python_lists": lambda tf: tf.sets.union([[1, 2]], [[2, 3]]),
    "negative": lambda tf: tf.sets.union([[-1, 2]], [[-5, 3]]),
    "zero_groups": lambda tf: tf.sets.union(tf.zeros([0, 3], tf.int32),
                                            tf.zeros([0, 2], tf.int32)),
    "zero_width": lambda tf: tf.sets.union(tf.zeros([2, 0], tf.int32),
                                           tf.constant([[1], [2]])),
    "sparse_empty": lambda tf: tf.sets.union(
        tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [2, 3]),
        tf.SparseTensor([[1, 1]], [4], [2, 2])),
    "traced_union": _traced_union,
    "traced_size": _traced_size,
    "traced_static_shape": _traced_static_shape,
}
