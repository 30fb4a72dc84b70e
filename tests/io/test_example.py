"""tf.train.Example & co. and the TFRecord tutorial: tapeflow prints what TF 2.21 printed.

The programs and TF's output are recorded by tools/record_example_fixtures.py."""

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def _run(name: str) -> tuple:
    record = json.loads((FIXTURES / f"example_{name}.json").read_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(record["program"], f"<{name}>", "exec"), {"tf": tf, "__name__": "p"})
    return out.getvalue(), record["output"]


@pytest.mark.parametrize("name", ["messages", "tutorial"])
def test_program_prints_what_tf_printed(name):
    got, want = _run(name)
    assert got.splitlines() == want.splitlines()


def test_serialized_bytes_are_tfs_deterministic_order():
    # TF 2.21 (upb): SerializeToString(deterministic=True) of these keys writes this order
    ex = tf.train.Example()
    for key in ["b", "a", "c", "zz", "aa", "d", "e", "ab", "B"]:
        ex.features.feature[key].int64_list.value.append(1)
    data = ex.SerializeToString()
    keys = [e.features.feature for e in [tf.train.Example.FromString(data)]][0]
    assert set(keys) == {"b", "a", "c", "zz", "aa", "d", "e", "ab", "B"}
    order, pos = [], 0
    body = data[2:]                       # the Features message's payload
    while pos < len(body):
        size = body[pos + 1]
        entry = body[pos + 2:pos + 2 + size]
        order.append(entry[2:2 + entry[1]].decode())
        pos += 2 + size
    assert order == ["B", "aa", "ab", "a", "b", "c", "d", "e", "zz"]
    text_keys = [line.split('"')[1] for line in str(ex).splitlines() if "key:" in line]
    assert text_keys == ["zz", "e", "d", "c", "b", "a", "ab", "aa", "B"]


def test_oneof_presence_and_float32_values():
    f = tf.train.Feature()
    _ = f.int64_list                       # reading does not set the oneof
    assert f.WhichOneof("kind") is None
    f.float_list.value.append(0.1)
    assert f.WhichOneof("kind") == "float_list" and not f.HasField("int64_list")
    assert f.float_list.value[0] == 0.10000000149011612
    assert np.array(f.float_list.value).dtype == np.float32
    with pytest.raises(TypeError, match="Expected an int, got a boolean"):
        tf.train.Int64List(value=[True])
    with pytest.raises(ValueError, match="Message objects may not be assigned"):
        tf.train.Features().feature["a"] = tf.train.Feature()


def test_tfrecord_writer_options(tmp_path):
    for kind in ["", "GZIP", "ZLIB"]:
        path = str(tmp_path / f"r{kind}")
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=kind,
                                                             compression_level=1)) as w:
            w.write(b"abc")
            w.write(b"")
        got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=kind)]
        assert got == [b"abc", b""]
    with pytest.raises(ValueError, match="Unsupported compression type"):
        tf.io.TFRecordWriter(str(tmp_path / "x"), "BZ2")
