"""tf.data.experimental.TFRecordWriter: a dataset of scalar strings to a TFRecord file, as TF 2.21."""

import pytest

import tapeflow as tf


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_experimental_tfrecord_writer_writes_a_dataset_of_strings(tmp_path, compression):
    path = str(tmp_path / "records")
    writer = tf.data.experimental.TFRecordWriter(path, compression)
    assert writer.write(tf.data.Dataset.from_tensor_slices([b"a", b"bc"])) is None
    read = tf.data.TFRecordDataset(path, compression or "")
    assert list(read.as_numpy_iterator()) == [b"a", b"bc"]


def test_experimental_tfrecord_writer_refuses_other_elements_as_tf(tmp_path):
    writer = tf.data.experimental.TFRecordWriter(str(tmp_path / "records"))
    # TF 2.21's message, word for word (its missing space included).
    with pytest.raises(TypeError, match=r"Expected a`dataset` that produces scalar `tf.string` "
                       r"elements, but got a dataset which produces elements with shapes "
                       r"\(\) and types <dtype: 'int64'>\."):
        writer.write(tf.data.Dataset.range(3))
    with pytest.raises(TypeError, match=r"shapes \(1,\) and types <dtype: 'string'>"):
        writer.write(tf.data.Dataset.from_tensor_slices([[b"a"]]))
