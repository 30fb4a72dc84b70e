"""tf.lookup's tables as TF 2.21 gives them (values hard-coded from TF 2.21; more cases run
from tests/keras/fixtures/text_layers.json in tests/keras/test_text_layers.py)."""

import numpy as np
import pytest

import tapeflow as tf


def _table():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"],
                                               tf.constant([1, 2, 3], tf.int64))
    return tf.lookup.StaticHashTable(init, -1)


def test_static_table_lookup_size_and_dtypes():
    t = _table()
    out = t.lookup(tf.constant(["a", "z", "c"]))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [1, -1, 3]
    assert t.size().numpy() == 3 and t.key_dtype == tf.string and t.value_dtype == tf.int64
    assert t.default_value.numpy() == -1
    keys, values = t.export()
    assert dict(zip(keys.numpy().tolist(), values.numpy().tolist())) == \
        {b"a": 1, b"b": 2, b"c": 3}


def test_wrong_key_dtype_is_tfs_type_error():
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>, "
                                        "received: <dtype: 'int32'>"):
        _table().lookup(tf.constant([1]))


def test_static_table_inside_tf_function_and_dataset_map():
    t = _table()
    f = tf.function(lambda x: t.lookup(x) * 2)
    assert f(tf.constant(["b", "q"])).numpy().tolist() == [4, -2]
    ds = tf.data.Dataset.from_tensor_slices(["c", "a"]).map(t.lookup)
    assert [int(x) for x in ds] == [3, 1]


def test_vocabulary_table_oov_buckets():
    # TF 2.21: [1 4 5 3] and size 6 (Fingerprint64 buckets after the vocabulary).
    init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"],
                                               tf.constant([0, 1, 2], tf.int64))
    t = tf.lookup.StaticVocabularyTable(init, 3)
    assert t.lookup(tf.constant(["b", "zz", "q", "c"])).numpy().tolist() == [1, 4, 5, 2]
    assert t.size().numpy() == 6


def test_mutable_table_changes_inside_tf_function():
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)

    @tf.function
    def step(key, value):
        m.insert(key, value)
        return m.lookup(tf.constant(["a", "b"]))

    assert step(tf.constant(["a"]), tf.constant([5], tf.int64)).numpy().tolist() == [5, -1]
    assert step(tf.constant(["b"]), tf.constant([6], tf.int64)).numpy().tolist() == [5, 6]
    m.remove(tf.constant(["a"]))
    assert m.size().numpy() == 1
    keys, values = m.export()
    assert keys.numpy().tolist() == [b"b"] and values.numpy().tolist() == [6]


def test_dense_hash_table_basics_and_reserved_keys():
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1,
                                              empty_key=0, deleted_key=-1)
    d.insert(tf.constant([3, 5], tf.int64), tf.constant([30, 50], tf.int64))
    d.remove(tf.constant([3], tf.int64))
    assert d.lookup(tf.constant([3, 5, 7], tf.int64)).numpy().tolist() == [-1, 50, -1]
    assert d.size().numpy() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty_key"):
        d.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64))
    with pytest.raises(NotImplementedError, match="bucket array"):
        d.export()


def test_text_file_initializer_whole_line_and_line_number(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("x\ty\n zz\tw\nq\tr\n")
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(path), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
        tf.lookup.TextFileIndex.LINE_NUMBER), -1)
    assert t.lookup(tf.constant(["x\ty", " zz\tw", "q"])).numpy().tolist() == [0, 1, -1]
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(path), tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string, 0), "NA")
    assert t.lookup(tf.constant([0, 2, 5], tf.int64)).numpy().tolist() == [b"x", b"q", b"NA"]


def test_strong_and_legacy_hash_buckets():
    # TF 2.21's values (SipHash-2-4 with key [1, 2]; the legacy Hash64).
    x = ["a", "hello world", "", "x" * 70]
    assert tf.strings.to_hash_bucket_strong(x, 1000, [1, 2]).numpy().tolist() == \
        [646, 446, 435, 729]
    assert tf.strings.to_hash_bucket(x, 1000).numpy().tolist() == [868, 655, 899, 926]
    big = tf.strings.to_hash_bucket_strong(["a", "hello world"], 2 ** 62, [7, 2 ** 40])
    assert big.numpy().tolist() == [856011387551977610, 2221394004829474799]
    np.testing.assert_array_equal(
        tf.function(lambda s: tf.strings.to_hash_bucket_strong(s, 1000, [1, 2]))(
            tf.constant(x)).numpy(), [646, 446, 435, 729])
