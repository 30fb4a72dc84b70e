"""tf.strings in tf.function graphs, the dtype's NumPy side, and what tapeflow refuses."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def test_string_ops_trace_with_unknown_dims_and_match_eager():
    ops = [lambda x: tf.strings.length(x, unit="UTF8_CHAR"), tf.strings.upper,
           tf.strings.strip, lambda x: tf.strings.substr(x, 0, 2),
           lambda x: tf.strings.regex_replace(x, "[aeiou]", "_"),
           lambda x: tf.strings.regex_full_match(x, ".*o.*"),
           lambda x: tf.strings.join([x, x], separator="+"),
           lambda x: tf.strings.reduce_join(x, separator=","),
           lambda x: tf.strings.to_hash_bucket_fast(x, 7)]
    x = tf.constant(["  h\u00e9llo ", "world", "ab"])
    for op in ops:
        traced = tf.function(op, input_signature=[tf.TensorSpec([None], tf.string)])
        want = op(x)
        got = traced(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_to_number_and_as_string_in_a_function():
    f = tf.function(lambda s: tf.strings.as_string(tf.strings.to_number(s) * 2, precision=1))
    # TF 2.21's answer
    np.testing.assert_array_equal(f(tf.constant(["1.5", "-2"])).numpy(),
                                  np.array([b"3.0", b"-4.0"], dtype=object))


def test_split_of_a_vector_in_a_function_is_ragged():
    # TF 2.21: a RaggedTensor whose row splits the graph computes.
    f = tf.function(lambda s: tf.strings.split(s))
    assert f(tf.constant(["a b"])).to_list() == [[b"a", b"b"]]
    # A scalar's split is a dense tensor, which traces.
    g = tf.function(lambda s: tf.strings.split(s, sep=","))
    np.testing.assert_array_equal(g(tf.constant("a,b")).numpy(),
                                  np.array([b"a", b"b"], dtype=object))


def test_fingerprint64_is_farmhash():
    # FarmHash Fingerprint64 values (TF 2.21's tf.fingerprint / to_hash_bucket_fast(2**63)).
    from tapeflow.ops.string_ops import fingerprint64
    assert fingerprint64(b"") == 0x9ae16a3b2f90404f
    got = tf.strings.to_hash_bucket_fast(tf.constant(["a", "b", "c", "abc"]), 10)
    np.testing.assert_array_equal(got.numpy(), [9, 2, 2, 5])  # TF 2.21's answer


def test_string_dtype_numpy_side():
    assert tf.string.as_numpy_dtype is object and tf.string.is_numpy_compatible  # as TF 2.21
    assert tf.string.size == 0 and tf.string.as_datatype_enum == 7
    t = tf.constant(np.array(["a", "b\u00e9"]))
    assert t.numpy().dtype == object and t.numpy().tolist() == [b"a", b"b\xc3\xa9"]


def test_string_ops_refuse_numbers():
    with pytest.raises(TypeError):
        tf.strings.length(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="StringLength"):
        tf.strings.length(tf.constant([1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 3 out of range"):
        tf.strings.substr(tf.constant(["ab"]), 3, 1)


def test_join_of_ragged_tensors_joins_their_values():
    # The Ragged tensors guide's bigrams (TF 2.21's answer).
    queries = tf.ragged.constant([["Who", "is"], ["Pause"]])
    marker = tf.fill([queries.nrows(), 1], "#")
    padded = tf.concat([marker, queries, marker], axis=1)
    bigrams = tf.strings.join([padded[:, :-1], padded[:, 1:]], separator="+")
    assert bigrams.to_list() == [[b"#+Who", b"Who+is", b"is+#"], [b"#+Pause", b"Pause+#"]]
