"""tf.io's file ops, tf.io.gfile, serialize/parse_tensor, decode_raw, base64,
decode_compressed and decode_csv. Expected values and messages are TensorFlow 2.21's
(checked in TF; serialize_tensor's bytes recorded by tools/record_io_fixtures.py)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import zlib

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.io import _wire

with open(os.path.join(os.path.dirname(__file__), "fixtures", "io_serialize.json")) as _f:
    SERIALIZED = json.load(_f)
SERIALIZED.pop("tf_version")


def _tensor(case: dict):
    dtype = getattr(tf, case["dtype"])
    if case["dtype"] == "string":
        flat = np.array([base64.b64decode(v) for v in case["value"]], dtype=object)
        return tf.constant(flat.reshape(case["shape"]), tf.string)
    if case["dtype"] == "complex64":
        return tf.constant([complex(*v) for v in case["value"]], dtype)
    return tf.constant(np.array(case["value"], dtype=dtype.as_numpy_dtype).reshape(
        case["shape"]), dtype)


# -- wire format -----------------------------------------------------------------------------------

def test_wire_varints_and_fields():
    for value in (0, 1, 127, 128, 300, 2 ** 63 - 1, -1, -300):
        data = _wire.encode_varint(value)
        decoded, end = _wire.decode_varint(data)
        assert end == len(data) and _wire.to_signed64(decoded) == value
    assert _wire.encode_varint(300) == b"\xac\x02"
    assert len(_wire.encode_varint(-1)) == 10
    message = _wire.varint_field(1, 7) + _wire.length_delimited(2, b"ab") + \
        _wire.field_key(3, _wire.FIXED32) + b"\0\0\x80?"
    assert list(_wire.iter_fields(message)) == [(1, 0, 7), (2, 2, b"ab"), (3, 5, b"\0\0\x80?")]
    with pytest.raises(_wire.WireError):
        list(_wire.iter_fields(b"\x12\x05ab"))


# -- serialize_tensor / parse_tensor ---------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SERIALIZED))
def test_serialize_tensor_bytes_equal_tensorflow(name):
    case = SERIALIZED[name]
    t = _tensor(case)
    expected = base64.b64decode(case["serialized"])
    assert tf.io.serialize_tensor(t).numpy() == expected
    back = tf.io.parse_tensor(expected, t.dtype)
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_parse_tensor_errors_and_value_fields():
    data = tf.io.serialize_tensor(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Type mismatch between parsed tensor \(float\) and dtype "
                             r"\(int32\) \[Op:ParseTensor\]"):
        tf.io.parse_tensor(data, tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Could not parse `serialized` as TensorProto, base64: \+//\+ "):
        tf.io.parse_tensor(b"\xfb\xff\xfe", tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Expected `serialized` to be a scalar, got shape: \[2\]"):
        tf.io.parse_tensor([b"", b""], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot parse tensor from proto"):
        tf.io.parse_tensor(b"\x08\x01\x12\x04\x12\x02\x08\x03\x22\x04\x00\x00\x80\x3f",
                           tf.float32)   # 3 elements, 4 bytes of content
    # typed value fields, packed or not: the last value repeats, none gives zeros (as TF)
    packed = tf.io.parse_tensor(b"\x08\x03\x12\x04\x12\x02\x08\x03\x3a\x02\x05\x07", tf.int32)
    unpacked = tf.io.parse_tensor(b"\x08\x03\x12\x04\x12\x02\x08\x03\x38\x05\x38\x07", tf.int32)
    assert packed.numpy().tolist() == unpacked.numpy().tolist() == [5, 7, 7]
    floats = tf.io.parse_tensor(b"\x08\x01\x12\x04\x12\x02\x08\x03\x2a\x04\x00\x00\x80\x3f",
                                tf.float32)
    assert floats.numpy().tolist() == [1.0, 1.0, 1.0]
    assert tf.io.parse_tensor(b"\x08\x01\x12\x04\x12\x02\x08\x03",
                              tf.float32).numpy().tolist() == [0.0, 0.0, 0.0]


def test_serialize_round_trip_in_tf_function():
    @tf.function
    def round_trip(x):
        return tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(round_trip(x).numpy(), x.numpy())


# -- files -----------------------------------------------------------------------------------------

def test_read_write_matching_files(tmp_path):
    path = str(tmp_path / "sub" / "a.txt")
    assert tf.io.write_file(path, "hello\nworld\n") is None   # creates sub/, as TF
    content = tf.io.read_file(path)
    assert content.dtype == tf.string and content.numpy() == b"hello\nworld\n"
    tf.io.write_file(str(tmp_path / "sub" / "b.txt"), b"x")
    found = tf.io.matching_files(str(tmp_path / "sub" / "*.txt"))
    assert found.numpy().tolist() == [os.fsencode(tmp_path / "sub" / n) for n in ("a.txt",
                                                                                  "b.txt")]
    assert tf.io.matching_files(str(tmp_path / "*.zz")).shape == (0,)
    with pytest.raises(tf.errors.NotFoundError,
                       match=rf"^{tmp_path}/nope; No such file or directory \[Op:ReadFile\]$"):
        tf.io.read_file(str(tmp_path / "nope"))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        tf.io.read_file(str(tmp_path))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Contents tensor must be scalar, but had shape: \[2\]"):
        tf.io.write_file(path, ["a", "b"])
    with pytest.raises(tf.errors.UnimplementedError,
                       match=r"^File system scheme 's3' not implemented \(file: 's3://b/x'\)"):
        tf.io.read_file("s3://b/x")


def test_file_ops_run_when_the_graph_runs(tmp_path):
    path = str(tmp_path / "g.txt")

    @tf.function
    def write_then_read(text):
        tf.io.write_file(path, text)
        return tf.io.read_file(path)
    assert not os.path.exists(path)
    assert write_then_read(tf.constant("one")).numpy() == b"one"
    assert write_then_read(tf.constant("two")).numpy() == b"two"


def test_gfile(tmp_path):
    gfile = tf.io.gfile
    p = str(tmp_path / "a.txt")
    with gfile.GFile(p, "w") as f:
        f.write("abc")
        f.write(b"def\nghi\n")
        assert f.tell() == 11
    assert gfile.GFile(p).read() == "abcdef\nghi\n"
    assert gfile.GFile(p, "rb").read() == b"abcdef\nghi\n"
    assert gfile.GFile(p).readlines() == ["abcdef\n", "ghi\n"]
    assert list(gfile.GFile(p)) == ["abcdef\n", "ghi\n"]
    f = gfile.GFile(p)
    f.seek(3)
    assert (f.read(2), f.tell(), f.readline(), f.size()) == ("de", 5, "f\n", 11)
    with gfile.GFile(p, "a") as f:
        f.write("z")
    assert gfile.GFile(p).read().endswith("ghi\nz")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for reading"):
        gfile.GFile(p, "w").read()
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for writing"):
        gfile.GFile(p).write("x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        gfile.GFile(p, "q")
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
        gfile.GFile(str(tmp_path / "nope")).read()
    assert gfile.exists(p) and not gfile.exists(p + "x") and gfile.isdir(str(tmp_path))
    gfile.makedirs(str(tmp_path / "m" / "n"))
    gfile.mkdir(str(tmp_path / "m"))   # exists already: no error, as TF
    with pytest.raises(tf.errors.NotFoundError):
        gfile.mkdir(str(tmp_path / "x" / "y"))
    assert sorted(gfile.listdir(str(tmp_path))) == ["a.txt", "m"]
    with pytest.raises(tf.errors.NotFoundError, match="Could not find directory"):
        gfile.listdir(p)
    gfile.copy(p, p + "2")
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        gfile.copy(p, p + "2")
    gfile.copy(p, p + "2", overwrite=True)
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.rename(p + "2", p)
    gfile.rename(p + "2", p + "3")
    st = gfile.stat(p + "3")
    assert (st.length, st.is_directory, st.mtime_nsec % 10 ** 9) == (12, False, 0)
    assert sorted(gfile.glob(str(tmp_path / "a.*"))) == [p, p + "3"]
    walked = list(gfile.walk(str(tmp_path)))
    assert walked[0][0] == str(tmp_path) and sorted(walked[0][1]) == ["m"]
    assert [w[0] for w in gfile.walk(str(tmp_path), topdown=False)][-1] == str(tmp_path)
    assert list(gfile.walk(str(tmp_path / "nope"))) == []
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        gfile.remove(str(tmp_path / "m"))
    gfile.remove(p + "3")
    with pytest.raises(tf.errors.NotFoundError, match="not found"):
        gfile.rmtree(str(tmp_path / "zz"))
    gfile.rmtree(str(tmp_path / "m"))
    assert not gfile.exists(str(tmp_path / "m"))
    assert gfile.join("gs://a", "b") == "gs://a/b" and gfile.join("a", "/c") == "/c"
    assert gfile.exists("file://" + p)
    assert gfile.isdir("s3://b/x") is False
    with pytest.raises(tf.errors.UnimplementedError, match="scheme 'gs' not implemented"):
        gfile.exists("gs://b/x")


# -- decoding ops ----------------------------------------------------------------------------------

def test_decode_raw():
    out = tf.io.decode_raw(b"\x01\x00\x02\x00\x03\x00", tf.int16)
    assert out.dtype == tf.int16 and out.numpy().tolist() == [1, 2, 3]
    assert tf.io.decode_raw(b"\x01\x00\x02\x00", tf.int16, little_endian=False).numpy() \
        .tolist() == [256, 512]
    assert tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00"], tf.int16,
                            fixed_length=4).numpy().tolist() == [[1, 2], [3, 0]]
    assert tf.io.decode_raw(b"\x00\x00\x80?\x00\x00\x00@", tf.complex64).numpy().tolist() \
        == [1 + 2j]
    assert tf.io.decode_raw(tf.constant([], tf.string), tf.int16).shape == (0, 0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^DecodeRaw requires input strings to all be the same size, but "
                             r"element 1 has size 4 != 2 \[Op:DecodeRaw\]$"):
        tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00"], tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Input to DecodeRaw has length 3 that is not a multiple of 2, "
                             r"the size of int16"):
        tf.io.decode_raw(b"\x01\x00\x02", tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"fixed_length \(3\) must be a "):
        tf.io.decode_raw([b"ab"], tf.int16, fixed_length=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'out_type' of string"):
        tf.io.decode_raw(b"ab", tf.string)


def test_base64():
    assert tf.io.encode_base64(b"hello??>").numpy() == b"aGVsbG8_Pz4"
    assert tf.io.encode_base64([b"a", b"ab"], pad=True).numpy().tolist() == [b"YQ==", b"YWI="]
    for text in (b"aGVsbG8_Pz4", b"aGVsbG8_Pz4="):
        assert tf.io.decode_base64(text).numpy() == b"hello??>"
    assert tf.io.decode_base64(b"YR").numpy() == b"a"   # stray bits ignored, as TF
    assert tf.io.decode_base64(b"").numpy() == b""
    for bad in (b"aGVsbG8/Pz4=", b"YQ=", b"Y Q", b"YQ==YQ=="):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Invalid character found in base64\. \[Op:DecodeBase64\]$"):
            tf.io.decode_base64(bad)
    with pytest.raises(tf.errors.InvalidArgumentError, match="length cannot be 1 modulo 4"):
        tf.io.decode_base64(b"Y")


def test_decode_compressed():
    assert tf.io.decode_compressed(zlib.compress(b"hello"), "ZLIB").numpy() == b"hello"
    assert tf.io.decode_compressed(gzip.compress(b"a") + gzip.compress(b"b"),
                                   "GZIP").numpy() == b"ab"   # every gzip member
    assert tf.io.decode_compressed(zlib.compress(b"a") + b"junk", "ZLIB").numpy() == b"a"
    assert tf.io.decode_compressed(b"raw", "").numpy() == b"raw"
    assert tf.io.decode_compressed(b"", "ZLIB").numpy() == b""
    with pytest.raises(tf.errors.DataLossError,
                       match=r"^inflate\(\) failed with error -3: incorrect header check"):
        tf.io.decode_compressed(b"hello", "GZIP")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Only ZLIB, ZSTD, GZIP or NONE"):
        tf.io.decode_compressed(b"hello", "BZ2")
    with pytest.raises(tf.errors.UnimplementedError, match="no ZSTD decoder"):
        tf.io.decode_compressed(b"hello", "ZSTD")


def test_decode_csv_values():
    a, b, c = tf.io.decode_csv(["1,2.5,a", "3,,b"], [[0], [1.0], ["x"]])
    assert (a.dtype, b.dtype, c.dtype) == (tf.int32, tf.float32, tf.string)
    assert a.numpy().tolist() == [1, 3] and b.numpy().tolist() == [2.5, 1.0]
    assert c.numpy().tolist() == [b"a", b"b"]
    assert tf.io.decode_csv(['1,2,"a,b"'], [[0], [1.0], ["x"]])[2].numpy().tolist() == [b"a,b"]
    assert tf.io.decode_csv(['1,2,"a""b"'], [[0], [1.0], ["x"]])[2].numpy().tolist() == [b'a"b']
    assert tf.io.decode_csv(["1|2|a"], [[0], [1.0], ["x"]], field_delim="|")[0].numpy() == [1]
    assert tf.io.decode_csv(["1,NA,a"], [[0], [1.0], ["x"]], na_value="NA")[1].numpy() == [1.0]
    x, z = tf.io.decode_csv(["1,2,a"], [[0], ["x"]], select_cols=[0, 2])
    assert x.numpy().tolist() == [1] and z.numpy().tolist() == [b"a"]
    big = tf.io.decode_csv(["9999999999, 1e3"], [tf.constant([0], tf.int64),
                                                  tf.constant([0.0], tf.float64)])
    assert big[0].numpy().tolist() == [9999999999] and big[1].numpy().tolist() == [1000.0]
    assert tf.io.decode_csv(["1,"], [[0], [""]])[1].numpy().tolist() == [b""]
    assert tf.io.decode_csv([["1,2", "3,4"]], [[0], [0.0]])[0].shape == (1, 2)


@pytest.mark.parametrize("records,defaults,kwargs,error,message", [
    (["1,2"], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Expect 3 fields but have 2 in record 0 [Op:DecodeCSV]"),
    (["1,,a"], [[0], tf.constant([], tf.float32), ["x"]], {}, "InvalidArgumentError",
     "Field 1 is required but missing in record 0! [Op:DecodeCSV]"),
    (["1.5,2,a"], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Field 0 in record 0 is not a valid int32: 1.5 [Op:DecodeCSV]"),
    (["9999999999,2"], [[0], [0]], {}, "InvalidArgumentError",
     "Field 0 in record 0 is not a valid int32: 9999999999 [Op:DecodeCSV]"),
    (["1,NA,a"], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Field 1 in record 0 is not a valid float: NA [Op:DecodeCSV]"),
    (['1,2,a"b'], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Unquoted fields cannot have quotes/CRLFs inside [Op:DecodeCSV]"),
    (['1,2,"ab'], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Quoted field has to end with quote followed by delim or end [Op:DecodeCSV]"),
    (['1,2,"ab"c'], [[0], [1.0], ["x"]], {}, "InvalidArgumentError",
     "Quote inside a string has to be escaped by another quote [Op:DecodeCSV]"),
    (["1|2"], [[0], [0]], {"field_delim": "||"}, "InvalidArgumentError",
     "field_delim should be only 1 char [Op:DecodeCSV]"),
    (["1,2"], [[0], [0.0, 1.0]], {}, "InvalidArgumentError",
     "There should only be 1 default per field but field 1 has 2 [Op:DecodeCSV]"),
    ([""], [[0]], {}, "InvalidArgumentError", "Expect 1 fields but have 0 in record 0"),
    (["1,2,a"], [[0], ["x"]], {"select_cols": [2, 0]}, "ValueError",
     "select_cols is not strictly increasing."),
    (["1,2,a"], [[0], ["x"]], {"select_cols": [0]}, "ValueError",
     "Length of select_cols and record_defaults do not match."),
    (["1,2,a"], [[0], ["x"]], {"select_cols": [0, 5]}, "InvalidArgumentError",
     "Expect 2 fields but have 1 in record 0 [Op:DecodeCSV]"),
])
def test_decode_csv_errors_as_tensorflow(records, defaults, kwargs, error, message):
    cls = ValueError if error == "ValueError" else getattr(tf.errors, error)
    with pytest.raises(cls) as info:
        tf.io.decode_csv(records, defaults, **kwargs)
    assert str(info.value).startswith(message)


def test_decode_csv_in_tf_function():
    @tf.function
    def parse(lines):
        return tf.io.decode_csv(lines, [[0], [0.0]])
    a, b = parse(tf.constant(["1,2.5", "3,4"]))
    assert a.numpy().tolist() == [1, 3] and b.numpy().tolist() == [2.5, 4.0]
