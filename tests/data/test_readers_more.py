"""TFRecordDataset (and the TFRecord writer), CsvDataset and make_csv_dataset as TensorFlow
2.21: values, specs, reprs, cardinality, and the errors for bad or corrupt files.

fixtures/tf_written.tfrecord(.gz) were written by TF 2.21's tf.io.TFRecordWriter with the
records in `TF_RECORDS`; every expected error text below is TF 2.21's.
"""

import pathlib

import pytest

import tapeflow as tf
from tapeflow.data.readers import TFRecordDatasetV2, TFRecordWriter, crc32c

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
TF_RECORDS = [b"hello", b"", b"\x00\xff" * 150, "h\u00e9llo".encode()]


def _records(ds):
    return [bytes(x) for x in ds.as_numpy_iterator()]


def test_crc32c_known_values():
    assert crc32c(b"123456789") == 0xE3069283              # the CRC-32C check value
    data = bytes(range(256)) * 40                           # the chunked path
    slow = 0xFFFFFFFF
    for byte in data:
        for _ in range(8):
            slow = (slow >> 1) ^ (0x82F63B78 if (slow ^ byte) & 1 else 0)
            byte >>= 1
    assert crc32c(data) == slow ^ 0xFFFFFFFF


@pytest.mark.parametrize("name,compression", [("tf_written.tfrecord", None),
                                              ("tf_written.tfrecord.gz", "GZIP")])
def test_reads_files_tensorflow_wrote(name, compression):
    ds = TFRecordDatasetV2(str(FIXTURES / name), compression_type=compression)
    assert repr(ds) == ("<TFRecordDatasetV2 element_spec=TensorSpec(shape=(), "
                        "dtype=tf.string, name=None)>")
    assert int(ds.cardinality()) == -2
    assert _records(ds) == TF_RECORDS
    first = next(iter(ds))
    assert first.dtype == tf.string and first.shape == ()


def test_writer_writes_tensorflows_bytes(tmp_path):
    path = tmp_path / "w.tfrecord"
    with TFRecordWriter(str(path)) as w:
        for r in TF_RECORDS:
            w.write(r)
    assert path.read_bytes() == (FIXTURES / "tf_written.tfrecord").read_bytes()
    for compression in ("GZIP", "ZLIB"):
        path = tmp_path / f"w.{compression}"
        with TFRecordWriter(str(path), compression) as w:
            for r in TF_RECORDS:
                w.write(r)
        assert _records(TFRecordDatasetV2(str(path), compression_type=compression)) == \
            TF_RECORDS


def test_interleaved_files_and_filename_datasets():
    name = str(FIXTURES / "tf_written.tfrecord")
    ds = TFRecordDatasetV2([name, name], num_parallel_reads=2)
    assert _records(ds) == [r for r in TF_RECORDS for _ in range(2)]
    names = tf.data.Dataset.from_tensor_slices([name])
    assert _records(TFRecordDatasetV2(names)) == TF_RECORDS
    with pytest.raises(TypeError) as info:
        TFRecordDatasetV2(tf.data.Dataset.from_tensor_slices([1]))
    assert str(info.value) == ("The `filenames` argument must contain `tf.string` elements. "
                               "Got a dataset of `tf.int32` elements.")
    with pytest.raises(TypeError, match="Got `tf.int32` elements.$"):
        TFRecordDatasetV2(3)


def _corrupt(tmp_path, edit):
    data = bytearray((FIXTURES / "tf_written.tfrecord").read_bytes())
    data = edit(data)
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(data))
    return TFRecordDatasetV2(str(path))


def _flip(i):
    def edit(data):
        data[i] ^= 1
        return data
    return edit


@pytest.mark.parametrize("edit,message", [
    (_flip(14), "corrupted record at 12 [Op:IteratorGetNext]"),            # data CRC
    (_flip(9), "corrupted record at 0 (Is this even a TFRecord file?) [Op:IteratorGetNext]"),
    (_flip(0), "corrupted record at 0 (Is this even a TFRecord file?) [Op:IteratorGetNext]"),
    (lambda d: d[:-3], "truncated record at 353' failed with Read less bytes than requested "
                       "[Op:IteratorGetNext]"),
    (lambda d: d[:-2], "truncated record at 353' failed with Read less bytes than requested "
                       "[Op:IteratorGetNext]"),
])
def test_corruption_is_tensorflows_data_loss(tmp_path, edit, message):
    with pytest.raises(tf.errors.DataLossError) as info:
        list(_corrupt(tmp_path, edit))
    assert str(info.value) == message


def test_partial_header_ends_the_file_as_tensorflow(tmp_path):
    ds = _corrupt(tmp_path, lambda d: d[:len(d) - len(TF_RECORDS[-1]) - 16 + 5])
    assert _records(ds) == TF_RECORDS[:3]


def test_missing_file_and_wrong_compression():
    with pytest.raises(tf.errors.NotFoundError, match="^/nonexistent/x; No such file or "
                       "directory"):
        list(TFRecordDatasetV2("/nonexistent/x"))
    with pytest.raises(tf.errors.DataLossError) as info:
        list(TFRecordDatasetV2(str(FIXTURES / "tf_written.tfrecord"), compression_type="GZIP"))
    assert str(info.value) == ("inflate() failed with error -3: incorrect header check "
                               "[Op:IteratorGetNext]")
