"""TFRecordDataset (and the TFRecord writer), CsvDataset and make_csv_dataset as TensorFlow
2.21: values, specs, reprs, cardinality, and the errors for bad or corrupt files.

fixtures/tf_written.tfrecord(.gz) were written by TF 2.21's tf.io.TFRecordWriter with the
records in `TF_RECORDS`; every expected error text below is TF 2.21's.
"""

import pathlib

import numpy as np
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


# -- CSV (every value, order and text below is TF 2.21's, measured on the same files) -------

CSV = 'abcdefg,4.28E10,5.55E6,12\nhijklmn,-5.3E14,,2\n"q,""x""",1, 2 ,3\n'


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text(CSV)
    return str(path)


def _csv(path, defaults, **kwargs):
    return tf.data.experimental.CsvDataset(path, defaults, **kwargs)


def test_csv_values_spec_repr(csv_file):
    ds = _csv(csv_file, [tf.string, tf.float32, tf.constant([7.5]), tf.constant([9], tf.int64)],
              na_value="12")
    assert repr(ds) == (
        "<CsvDatasetV2 element_spec=(TensorSpec(shape=(), dtype=tf.string, name=None), "
        "TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(), "
        "dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>")
    assert int(ds.cardinality()) == -2
    rows = list(ds.as_numpy_iterator())
    assert rows == [(b"abcdefg", np.float32(4.28e10), np.float32(5.55e6), 9),
                    (b"hijklmn", np.float32(-5.3e14), np.float32(7.5), 2),
                    (b'q,"x"', np.float32(1.0), np.float32(2.0), 3)]
    assert rows[0][3].dtype == np.int64
    picked = _csv(csv_file, [tf.float32, tf.constant([0.0]), tf.int32], select_cols=[1, 2, 3])
    assert list(picked.as_numpy_iterator())[1] == (np.float32(-5.3e14), 0.0, 2)


@pytest.mark.parametrize("defaults,kwargs,message", [
    ([tf.string, tf.float32, tf.float32, tf.int32], {},
     "Field 2 is required but missing in record!"),
    ([tf.float32] * 3 + [tf.int32], {}, "Field 0 in record is not a valid float: abcdefg"),
    ([tf.string, tf.float32, tf.float32], {}, "Expect 3 fields but have more in record"),
    ([tf.string] + [tf.constant([0.0])] * 3 + [tf.int32], {},
     "Expect 5 fields but have 4 in record"),
    ([tf.string] * 4, {"field_delim": ";"}, "Expect 4 fields but have 1 in record"),
    ([tf.string] * 4, {"na_value": "12"}, "Field 3 is required but missing in record!"),
])
def test_csv_record_errors_are_tensorflows(csv_file, defaults, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        list(_csv(csv_file, defaults, **kwargs))
    assert str(info.value) == message + " [Op:IteratorGetNext]"


@pytest.mark.parametrize("kwargs,message", [
    ({"select_cols": [1, 0]}, "select_cols should be strictly increasing indices"),
    ({"select_cols": [1]}, "select_cols should match output size"),
    ({"select_cols": [0, 1], "exclude_cols": [2]},
     "Either select_cols or exclude_cols should be empty"),
])
def test_csv_argument_errors_are_tensorflows(csv_file, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _csv(csv_file, [tf.string, tf.float32], **kwargs)
    assert str(info.value) == message + " [Op:CSVDatasetV2]"


@pytest.mark.parametrize("text,dtype,want", [
    ("+5", tf.int32, 5), (" 7 ", tf.int64, 7), ("2147483648", tf.int64, 2147483648),
    ("2147483648", tf.int32, None), ("1_0", tf.int64, None), ("1.0", tf.int32, None),
    ("0x1A.8", tf.float32, 26.5), ("Infinity", tf.float64, np.inf), ("1e40", tf.float32, np.inf),
    ("1.4e-45", tf.float32, 1e-45), ("1.5abc", tf.float64, None), ("1_0.5", tf.float32, None),
    # Correctly rounded to float32: the nearest double is a tie that would round down.
    ("1.0000000596046447753906250000001", tf.float32, 1.0000001192092896),
])
def test_csv_numbers_parse_as_tensorflow(tmp_path, text, dtype, want):
    path = tmp_path / "n.csv"
    path.write_text(text + "\n")
    ds = _csv(str(path), [dtype])
    if want is None:
        kind = {"int32": "int32", "int64": "int64", "float32": "float",
                "float64": "double"}[dtype.name]
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"not a valid {kind}: "):
            list(ds)
        return
    (value,), = list(ds.as_numpy_iterator())
    assert value.dtype == dtype.as_numpy_dtype and value == want


@pytest.mark.parametrize("text,want", [
    ('"a""b",x\r\n"c\nd",y\r"e",z', [(b'a"b', b"x"), (b"c\nd", b"y"), (b"e", b"z")]),
    ('"ab"c,x\n', "Reached end of file without closing quoted field in record"),
    ('a"b,x\n', "Unquoted fields cannot have quotes inside"),
    ("a,b,\n\nc,d,e", "Expect 2 fields but have more in record"),
    ('"",x\n', "Field 0 is required but missing in record!"),
])
def test_csv_quotes_and_line_ends_as_tensorflow(tmp_path, text, want):
    path = tmp_path / "q.csv"
    path.write_bytes(text.encode())
    ds = _csv(str(path), [tf.string, tf.constant(["D"])])
    if isinstance(want, str):
        with pytest.raises(tf.errors.InvalidArgumentError, match=want):
            list(ds)
    else:
        assert list(ds.as_numpy_iterator()) == want


MADE = "a,b,c,label\n1,2.5,x,0\n2,,y,1\n3,4.5,z,0\n4,1e3,w,1\n5,2,\"q,r\",0\n"


def test_make_csv_dataset_infers_types_and_splits_the_label(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(MADE)
    ds = tf.data.experimental.make_csv_dataset(str(path), 2, label_name="label", num_epochs=1,
                                               shuffle=False)
    assert repr(ds.element_spec) == (
        "(OrderedDict([('a', TensorSpec(shape=(None,), dtype=tf.int32, name=None)), ('b', "
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None)), ('c', "
        "TensorSpec(shape=(None,), dtype=tf.string, name=None))]), TensorSpec(shape=(None,), "
        "dtype=tf.int32, name=None))")
    batches = list(ds.as_numpy_iterator())
    assert [f["a"].tolist() for f, _ in batches] == [[1, 2], [3, 4], [5]]
    assert batches[0][0]["b"].tolist() == [2.5, 0.0] and batches[2][0]["c"].tolist() == [b"q,r"]
    assert [label.tolist() for _, label in batches] == [[0, 1], [0, 1], [0]]


def test_make_csv_dataset_shuffles_in_tensorflows_order(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(MADE)
    ds = tf.data.experimental.make_csv_dataset(str(path), 2, shuffle_seed=3,
                                               select_columns=["a", "c"])
    assert repr(ds.element_spec) == (
        "OrderedDict([('a', TensorSpec(shape=(2,), dtype=tf.int32, name=None)), ('c', "
        "TensorSpec(shape=(2,), dtype=tf.string, name=None))])")
    assert [f["a"].tolist() for f in ds.take(3).as_numpy_iterator()] == \
        [[5, 4], [3, 2], [1, 4]]


def test_make_csv_dataset_errors_are_tensorflows(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(MADE)
    with pytest.raises(ValueError, match=r"must be one of the columns: \['a', 'b', 'c', "
                       r"'label'\]. Received: zz.$"):
        tf.data.experimental.make_csv_dataset(str(path), 2, label_name="zz")
    with pytest.raises(ValueError, match=r"contains duplicate columns: set\(\).$"):
        tf.data.experimental.make_csv_dataset(str(path), 2, select_columns=["a", "a"])
    with pytest.raises(ValueError, match="^Expected `column_names` or `header` arguments"):
        tf.data.experimental.make_csv_dataset(str(path), 2, header=False)


def test_parallel_reads_interleave_uneven_files_as_tf(tmp_path):
    # Files of 2, 3 and 4 records read 2 at a time: an exhausted file frees its slot and the
    # turn moves on (TF 2.21's order, the same for TextLineDataset and TFRecordDataset).
    from tapeflow.data.readers import TFRecordWriter
    lines, records = [], []
    for k in range(3):
        text = tmp_path / f"f{k}.txt"
        text.write_text("".join(f"{k}-{i}\n" for i in range(k + 2)))
        lines.append(str(text))
        rec = str(tmp_path / f"f{k}.rec")
        with TFRecordWriter(rec) as writer:
            for i in range(k + 2):
                writer.write(f"{k}-{i}".encode())
        records.append(rec)
    want = ["0-0", "1-0", "0-1", "1-1", "1-2", "2-0", "2-1", "2-2", "2-3"]
    for ds in (tf.data.TextLineDataset(lines, num_parallel_reads=2),
               tf.data.TFRecordDataset(records, num_parallel_reads=2)):
        assert [x.decode() for x in ds.as_numpy_iterator()] == want


def test_text_line_dataset_checks_its_filenames_as_tf():
    # TF 2.21 validates TextLineDataset's filenames as TFRecordDataset's (same messages).
    with pytest.raises(TypeError, match="Got `tf.int32` elements.$"):
        tf.data.TextLineDataset([1, 2])
    with pytest.raises(TypeError, match="Got a dataset of `tf.int32` elements.$"):
        tf.data.TextLineDataset(tf.data.Dataset.from_tensor_slices([1]))
