"""Crafted TensorFlow-format checkpoints: each raises DataLossError (TF's text where TF has
one) before anything is assigned, without allocating what the file cannot hold, and a saved
object graph with cycles, shared nodes or bad ids neither loops nor restores wrong values."""

import struct
import time
import tracemalloc

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.io import _wire
from tapeflow.train import _object_graph as og
from tapeflow.train import _tensor_bundle as tb


def _write(prefix, entries, data=b""):
    """A bundle at `prefix` whose index holds `entries` ({name: BundleEntryProto bytes})."""
    header = _wire.varint_field(1, 1) + _wire.length_delimited(3, _wire.varint_field(1, 1))
    table = [(b"", header)] + sorted((k.encode(), v) for k, v in entries.items())
    with open(prefix + ".index", "wb") as f:
        f.write(tb.build_table(table))
    with open(tb.data_filename(prefix), "wb") as f:
        f.write(data)


def _entry(dtype, shape, offset, size, crc=0):
    return tb._entry_bytes(tb.Entry(dtype, tuple(shape), 0, offset, size, crc))


def _graph_entry(nodes, offset=0):
    """(entry, data) of a `_CHECKPOINTABLE_OBJECT_GRAPH` string tensor holding `nodes`."""
    data, crc = tb._tensor_bytes(np.array(og.encode(nodes), dtype=object), tf.string)
    return _entry(7, (), offset, len(data), crc), data


def _node(children=(), attributes=()):
    return og.Node(list(children), list(attributes), [], True)


def test_a_huge_declared_shape_is_refused_before_allocating(tmp_path):
    graph, data = _graph_entry([_node([(1, "v")]), _node(attributes=[og.Attribute(
        "VARIABLE_VALUE", "v", "v/.ATTRIBUTES/VARIABLE_VALUE")])])
    prefix = str(tmp_path / "c")
    _write(prefix, {"_CHECKPOINTABLE_OBJECT_GRAPH": graph,
                    "v/.ATTRIBUTES/VARIABLE_VALUE": _entry(1, (10 ** 6, 10 ** 6), len(data),
                                                           4 * 10 ** 12)}, data)
    v = tf.Variable(1.0)
    tracemalloc.start()
    with pytest.raises(tf.errors.DataLossError):
        tf.train.Checkpoint(v=v).restore(prefix)
    assert tracemalloc.get_traced_memory()[1] < 50 * 2 ** 20
    tracemalloc.stop()
    assert float(v.numpy()) == 1.0
    assert tf.train.list_variables(prefix)[1] == ("v/.ATTRIBUTES/VARIABLE_VALUE",
                                                  [10 ** 6, 10 ** 6])


def test_a_string_tensor_declaring_more_strings_than_bytes_is_data_loss(tmp_path):
    prefix = str(tmp_path / "c")
    _write(prefix, {"_CHECKPOINTABLE_OBJECT_GRAPH": _entry(7, (10 ** 9,), 0, 8)}, b"\1" * 8)
    with pytest.raises(tf.errors.DataLossError, match="declares 1000000000 strings"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(prefix)


def test_keys_whose_prefix_compression_would_explode_are_data_loss(tmp_path):
    # Each entry shares the whole previous key and adds a byte: n entries, n**2 / 2 bytes.
    parts, n = [], 60000
    for i in range(n):
        parts.append(_wire.encode_varint(i) + b"\x01\x00a")
    block = b"".join(parts) + struct.pack("<II", 0, 1)
    trailer = b"\0" + struct.pack("<I", tb.masked_crc32c(block + b"\0"))
    index = tb._BlockBuilder()
    index.add(b"b", _wire.encode_varint(0) + _wire.encode_varint(len(block)))
    index_block = index.finish()
    index_at = len(block) + 5
    meta = tb._BlockBuilder().finish()
    meta_at = index_at + len(index_block) + 5
    body = (block + trailer + index_block + b"\0" +
            struct.pack("<I", tb.masked_crc32c(index_block + b"\0")) + meta + b"\0" +
            struct.pack("<I", tb.masked_crc32c(meta + b"\0")))
    handles = (_wire.encode_varint(meta_at) + _wire.encode_varint(len(meta)) +
               _wire.encode_varint(index_at) + _wire.encode_varint(len(index_block)))
    path = tmp_path / "c.index"
    path.write_bytes(body + handles + b"\0" * (40 - len(handles)) +
                     struct.pack("<Q", tb.TABLE_MAGIC))
    start = time.perf_counter()
    with pytest.raises(tf.errors.DataLossError, match="keys longer in total"):
        tf.train.list_variables(str(tmp_path / "c"))
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("nodes", [
    [_node([(5, "v")])],                                        # a child id past the end
    [_node([(-1, "v")])],                                       # a negative id
])
def test_an_object_graph_naming_missing_nodes_is_data_loss(tmp_path, nodes):
    graph, data = _graph_entry(nodes)
    prefix = str(tmp_path / "c")
    _write(prefix, {"_CHECKPOINTABLE_OBJECT_GRAPH": graph}, data)
    with pytest.raises(tf.errors.DataLossError, match="names a node it does not hold"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(prefix)


def test_a_garbage_object_graph_is_data_loss(tmp_path):
    data, crc = tb._tensor_bytes(np.array(b"\x0a\xff\xff\xff\xff\x0f", dtype=object),
                                 tf.string)
    prefix = str(tmp_path / "c")
    _write(prefix, {"_CHECKPOINTABLE_OBJECT_GRAPH": _entry(7, (), 0, len(data), crc)}, data)
    with pytest.raises(tf.errors.DataLossError, match="not a valid TrackableObjectGraph"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(prefix)


def test_a_cyclic_object_graph_restores_once_and_ends(tmp_path):
    value, crc = tb._tensor_bytes(np.float32(5.0), tf.float32)
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"
    nodes = [_node([(1, "v"), (0, "self")]),
             _node([(0, "back")], [og.Attribute("VARIABLE_VALUE", "v", key)])]
    graph, data = _graph_entry(nodes, len(value))
    prefix = str(tmp_path / "c")
    _write(prefix, {key: _entry(1, (), 0, 4, crc), "_CHECKPOINTABLE_OBJECT_GRAPH": graph},
           value + data)
    v = tf.Variable(0.0)
    tf.train.Checkpoint(v=v).read(prefix).assert_consumed()   # read: no save_counter made
    assert float(v.numpy()) == 5.0


def test_a_value_under_a_key_of_another_dtype_is_refused(tmp_path):
    value, crc = tb._tensor_bytes(np.int32(7), tf.int32)
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"
    graph, data = _graph_entry([_node([(1, "v")]), _node(
        attributes=[og.Attribute("VARIABLE_VALUE", "v", key)])], len(value))
    prefix = str(tmp_path / "c")
    _write(prefix, {key: _entry(3, (), 0, 4, crc), "_CHECKPOINTABLE_OBJECT_GRAPH": graph},
           value + data)
    v = tf.Variable(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype float does not "
                                                             "equal original dtype int32"):
        tf.train.Checkpoint(v=v).restore(prefix)
    assert float(v.numpy()) == 1.0


def test_a_graph_key_missing_from_the_bundle_is_not_found(tmp_path):
    graph, data = _graph_entry([_node([(1, "v")]), _node(attributes=[og.Attribute(
        "VARIABLE_VALUE", "v", "nowhere")])])
    prefix = str(tmp_path / "c")
    _write(prefix, {"_CHECKPOINTABLE_OBJECT_GRAPH": graph}, data)
    with pytest.raises(tf.errors.NotFoundError, match="Key nowhere not found in checkpoint"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(prefix)
