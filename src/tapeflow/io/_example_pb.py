"""The ParseExampleV2 kernel: tf.train.Example wire bytes to the arrays parse_example returns.

It reads the wire format directly (no message objects), decoding only the requested features,
and raises TF's InvalidArgumentError texts (the single-example and batched forms differ, as
TF's fast parser's do). Examples are read as TF's fast parser reads them (`parse_record`),
which is not quite protobuf; SequenceExamples by protobuf's rules (`features_of`,
`decode_feature`). Lists are decoded with NumPy over offsets into the record: nothing is done
per byte in Python, and nothing is copied more than once.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework import errors
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.io import _wire

# TF's names for the list kinds (in "data type" messages) and the Feature oneof's field numbers
DTYPE_NAMES = {1: "string", 2: "float", 3: "int64"}
LIST_NAMES = {1: "bytes", 2: "float", 3: "int64"}
KIND_OF_DTYPE = {"string": 1, "float32": 2, "int64": 3}


def _op_error(message: str, op: str = "ParseExampleV2") -> InvalidArgumentError:
    return InvalidArgumentError(f"{message} [Op:{op}]")


def features_of(record: bytes, map_field: int = 1, outer_field: int = 1) -> dict:
    """{key: Feature payload bytes} of an Example (or a SequenceExample's context/lists:
    `outer_field` picks the message, `map_field` its map), read by protobuf's rules; a later
    duplicate key wins."""
    out: dict = {}
    for number, wiretype, value in _wire.iter_fields(record):
        if number != outer_field or wiretype != _wire.LENGTH_DELIMITED:
            continue
        for n2, w2, entry in _wire.iter_fields(value):
            if n2 != map_field or w2 != _wire.LENGTH_DELIMITED:
                continue
            key, parts = b"", []
            for n3, w3, v3 in _wire.iter_fields(entry):
                if w3 == _wire.LENGTH_DELIMITED and n3 == 1:
                    key = v3
                elif w3 == _wire.LENGTH_DELIMITED and n3 == 2:
                    parts.append(v3)             # repeated occurrences of the value merge
            out[key.decode("utf-8", "replace")] = b"".join(parts)
    return out


def decode_feature(payload: bytes) -> tuple:
    """(kind, values) of a Feature read by protobuf's rules (the last list set wins, packed
    and unpacked values both read): kind 1 bytes / 2 float / 3 int64, or (0, None) when no
    list is set; values a list (bytes) or a NumPy array."""
    kind, parts = 0, []
    for number, wiretype, value in _wire.iter_fields(payload):
        if wiretype == _wire.LENGTH_DELIMITED and number in (1, 2, 3):
            if number != kind:
                kind, parts = number, []
            parts.append(value)
    if kind == 0:
        return 0, None
    values = [_list_values(kind, part) for part in parts]   # repeated messages merge
    if kind == 1:
        return 1, [v for part in values for v in part]
    return kind, np.concatenate(values)


def _list_values(kind: int, body: bytes) -> Any:
    if kind == 1:
        return [v for n, w, v in _wire.iter_fields(body) if n == 1 and w == _wire.LENGTH_DELIMITED]
    parts = []
    for n, w, v in _wire.iter_fields(body):
        if n != 1:
            continue
        if kind == 2 and w in (_wire.LENGTH_DELIMITED, _wire.FIXED32):
            parts.append(_wire.fixed_array(v, "<f4"))
        elif kind == 3 and w == _wire.LENGTH_DELIMITED:
            parts.append(_wire.varint_array(v).view(np.int64))
        elif kind == 3 and w == _wire.VARINT:
            parts.append(np.array([_wire.to_signed64(v)], np.int64))
    dtype = np.float32 if kind == 2 else np.int64
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)


# -- TF's fast Example parser (example_proto_fast_parsing.cc), decision for decision ---------------
#
# parse_example / parse_single_example do not run protobuf's parser: TF reads the Example with
# CodedInputStream calls of its own, which accept some bytes protobuf rejects (unknown fields
# of a truncated length, field number 0, a Feature's trailing bytes) and reject some it
# accepts (groups, unknown fields inside Features or a map entry, a FloatList whose packed and
# unpacked values are mixed). These functions reproduce those decisions; WireError stands for
# the parser's `return false`.

_M32 = 0xFFFFFFFF


def _varint32(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """CodedInputStream::ReadVarint32: up to 10 bytes, the low 32 bits kept."""
    value, pos = _wire.decode_varint(buf, pos, end)
    return value & _M32, pos


def example_entries(record: bytes) -> list:
    """The (key, Feature bytes) map entries of an Example, in order (ParseExample)."""
    entries: list = []
    pos, end = 0, len(record)
    while pos < end:
        if record[pos] == 0x0A:                      # ExpectTag(field 1, length-delimited)
            pos = _features(record, pos + 1, end, entries)
        else:
            pos = _skip_extraneous(record, pos, end)
    return entries


def _skip_extraneous(buf: bytes, pos: int, end: int) -> int:
    """SkipExtraneousTag: an unknown field; a length past the end skips to the end (TF
    ignores Skip's result), groups and wire types 6/7 are refused."""
    tag, pos = _varint32(buf, pos, end)
    wiretype = tag & 7
    if wiretype == _wire.VARINT:
        return _varint32(buf, pos, end)[1]
    if wiretype == _wire.LENGTH_DELIMITED:
        size, pos = _varint32(buf, pos, end)
        return pos if size >= 1 << 31 else min(pos + size, end)
    width = {_wire.FIXED64: 8, _wire.FIXED32: 4}.get(wiretype)
    if width is None or pos + width > end:
        raise _wire.WireError("unskippable field")
    return pos + width


def _features(buf: bytes, pos: int, end: int, entries: list) -> int:
    """ParseFeatures: map entries only (anything else is corrupt), up to the declared length
    (a length past the end stops at the end, as PushLimit does)."""
    size, pos = _varint32(buf, pos, end)
    limit = min(pos + size, end)
    while pos < limit:
        if buf[pos] != 0x0A:
            raise _wire.WireError("not a map entry")
        pos = _map_entry(buf, pos + 1, limit, entries)
    return limit


def _map_entry(buf: bytes, pos: int, end: int, entries: list) -> int:
    """ParseFeatureMapEntry: exactly two fields, each the key (1) or the value (2)."""
    size, pos = _varint32(buf, pos, end)
    limit = min(pos + size, end)
    key, feature = b"", b""
    for _ in range(2):
        if pos >= limit:
            raise _wire.WireError("map entry too short")
        tag, pos = _varint32(buf, pos, limit)
        if tag not in (0x0A, 0x12):
            raise _wire.WireError("unexpected field in map entry")
        size, pos = _varint32(buf, pos, limit)
        if size > limit - pos:
            raise _wire.WireError("truncated string")
        if tag == 0x0A:
            key = buf[pos:pos + size]
        else:
            feature = buf[pos:pos + size]
        pos += size
    if pos != limit:
        raise _wire.WireError("map entry too long")
    entries.append((key, feature))
    return limit


def feature_kind(feature: bytes) -> int:
    """ParseDataType: the Feature's first byte names its list (1 bytes, 2 float, 3 int64;
    0 for an empty Feature); None for anything else ("Unsupported datatype.")."""
    if not feature:
        return 0
    return {0x0A: 1, 0x12: 2, 0x1A: 3}.get(feature[0])


def _list_bounds(feature: bytes) -> tuple[int, int]:
    size, pos = _varint32(feature, 1, len(feature))
    return pos, min(pos + size, len(feature))


def feature_values(feature: bytes, kind: int, capacity: Optional[int] = None) -> tuple:
    """(count, values) of a Feature's list as the fast parser reads it; bytes after the list
    (or after a FloatList's/Int64List's first packed run) are ignored, as TF ignores them.
    `capacity` is a fixed-size dense output's size (TF reads at most that many packed floats
    before it compares the count); values is then None when the count differs."""
    pos, limit = _list_bounds(feature)
    if kind == 1:
        values = _bytes_values(feature, pos, limit)
        return len(values), values
    if pos >= limit:
        return 0, np.zeros(0, np.float32 if kind == 2 else np.int64)
    if kind == 2:
        return _float_values(feature, pos, limit, capacity)
    values = _int64_values(feature, pos, limit)
    return len(values), values


def _bytes_values(data: bytes, pos: int, limit: int) -> list:
    out = []
    while pos < limit:
        if data[pos] != 0x0A:
            raise _wire.WireError("not a bytes value")
        pos += 1
        if pos < limit and data[pos] < 0x80:            # a one-byte length, inline
            size, pos = data[pos], pos + 1
        else:
            size, pos = _varint32(data, pos, limit)
        if size > limit - pos:
            raise _wire.WireError("truncated bytes value")
        out.append(data[pos:pos + size])
        pos += size
    return out


def _float_values(data: bytes, pos: int, limit: int, capacity: Optional[int]) -> tuple:
    if data[pos] == 0x0A:                                   # packed: one run, size // 4 values
        size, pos = _varint32(data, pos + 1, limit)
        count = size // 4
        wanted = count if capacity is None else min(count, capacity)
        if wanted * 4 > limit - pos:
            raise _wire.WireError("truncated packed floats")
        if wanted != count:
            return count, None
        return count, np.frombuffer(data, "<f4", count, pos).astype(np.float32)
    if data[pos] == 0x0D:                                   # unpacked: tag + 4 bytes, to the end
        rows = np.frombuffer(data, np.uint8, limit - pos, pos)
        if rows.size % 5:
            raise _wire.WireError("truncated unpacked floats")
        rows = rows.reshape(-1, 5)
        if (rows[:, 0] != 0x0D).any():
            raise _wire.WireError("unexpected field in FloatList")
        return len(rows), np.ascontiguousarray(rows[:, 1:]).view("<f4").reshape(-1).astype(
            np.float32)
    raise _wire.WireError("unexpected field in FloatList")


def _int64_values(data: bytes, pos: int, limit: int) -> np.ndarray:
    if data[pos] == 0x0A:                                   # packed: one run of varints
        size, pos = _varint32(data, pos + 1, limit)
        return _wire.varint_array(data[pos:min(pos + size, limit)]).view(np.int64)
    if data[pos] == 0x08:                                   # unpacked: 0x08 + varint, to the end
        values, lengths = _wire.varint_runs(data[pos:limit])
        tags, tag_lengths = values[0::2], lengths[0::2]
        if values.size % 2 or (tags != 0x08).any() or (tag_lengths != 1).any():
            raise _wire.WireError("unexpected field in Int64List")
        return values[1::2].view(np.int64)
    raise _wire.WireError("unexpected field in Int64List")


def as_array(kind: int, values: Any) -> np.ndarray:
    """Decoded values as the output's NumPy array (strings as an object array of bytes)."""
    if kind == 1:
        out = np.empty(len(values), object)
        out[:] = values
        return out
    return values


class UndecodableMessageError(InvalidArgumentError, UnicodeDecodeError):
    """TF's "Could not parse example input" for a record that is not UTF-8 before its first
    NUL: TF fails to decode its own message and raises UnicodeDecodeError. This is that
    error, and an InvalidArgumentError too, so that handlers of either catch it."""

    def __init__(self, error: UnicodeDecodeError) -> None:
        UnicodeDecodeError.__init__(self, error.encoding, error.object, error.start, error.end,
                                    error.reason)
        self.node_def = self.op = None
        self._error_code, self._payloads = errors.INVALID_ARGUMENT, {}
        self.message = UnicodeDecodeError.__str__(self)

    def __reduce__(self) -> tuple:
        return (_undecodable, (self.encoding, self.object, self.start, self.end, self.reason))


def _undecodable(*args: Any) -> UndecodableMessageError:
    return UndecodableMessageError(UnicodeDecodeError(*args))


class Context:
    """Where an error happened, for the message's prefix: single form or batched."""

    def __init__(self, single: bool, names: Optional[list], op: str = "ParseExampleV2") -> None:
        self.single, self.names, self.op = single, names, op

    def error(self, message: str, index: int = 0) -> InvalidArgumentError:
        return _op_error(message, self.op)

    def at(self, index: int, error: InvalidArgumentError) -> InvalidArgumentError:
        """`error`, noting the example it is about (the first bad example's error wins)."""
        error.example_index = index
        return error

    def name(self, index: int) -> str:
        if self.names is None or index >= len(self.names):
            return "<unknown>"
        name = self.names[index]
        return name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)

    def missing(self, index: int, key: str, dtype: str) -> InvalidArgumentError:
        head = "" if self.single else f"Name: {self.name(index)}, "
        return self.error(f"{head}Feature: {key} (data type: {dtype}) is required but could "
                         f"not be found.")

    def key(self, index: int, key: str) -> str:
        return f"Key: {key}." if self.single else \
            f"Name: {self.name(index)}, Key: {key}, Index: {index}."

    def dense_type(self, index: int, key: str, actual: int, expected: str) -> Exception:
        return self.error(f"{self.key(index, key)}  Data types don't match. Data type: "
                         f"{DTYPE_NAMES[actual]} but expected type: {expected}")

    def list_type(self, index: int, key: str, actual: int, expected: str) -> Exception:
        return self.error(f"{self.key(index, key)}  Data types don't match. Expected type: "
                         f"{expected}, Actual type: {DTYPE_NAMES[actual]}")

    def dense_size(self, index: int, key: str, kind: int, count: int,
                   shape: tuple) -> Exception:
        if self.single:
            what = "Parsing bytes_list failed." if kind == 1 and count > int(np.prod(shape)) \
                else f"Some {LIST_NAMES[kind]}_list slice was not parsed."
            return self.error(f"Key: {key}.  Can't parse serialized Example: {what}")
        return self.error(f"{self.key(index, key)}  Number of {LIST_NAMES[kind]} values != "
                         f"expected.  Values size: {count} but output shape: "
                         f"[{','.join(str(d) for d in shape)}]")

    def stride(self, index: int, key: str, kind: int, count: int, shape: tuple) -> Exception:
        stride = int(np.prod(shape))
        if self.single:
            return self.error(f"Error while parsing feature with key {key}: number of elements "
                             f"should be divisible by {stride}, found {count} instead")
        dims = ",".join(["?"] + [str(d) for d in shape])
        return self.error(f"{self.key(index, key)}  Number of {LIST_NAMES[kind]} values is not "
                         f"a multiple of stride length. Saw {count} values but output shape "
                         f"is: [{dims}]")

    def corrupt(self, record: bytes) -> Exception:
        """TF's error for a record its parser refuses: the raw bytes in the message, which
        ends at the first NUL (TF passes it on as a C string) before " [Op:...]" is added.
        TF decodes that as UTF-8 to raise it, so a record that is not UTF-8 up to its first
        NUL makes that a UnicodeDecodeError (whose position counts TF's op prefix too, so it
        differs)."""
        head = b"Could not parse example input, value: '" + bytes(record) + b"'"
        raw = head.split(b"\0")[0] + f" [Op:{self.op}]".encode()
        try:
            return InvalidArgumentError(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return UndecodableMessageError(exc)

    def parse_failed(self, index: int, key: str, kind: int, role: str) -> Exception:
        """A requested Feature's list that the fast parser could not read."""
        if not self.single:
            return self.error(f"{self.key(index, key)}  Can't parse serialized Example.")
        what = ("Parsing bytes_list failed." if role == "dense" else
                "Could not get num elements in bytes_list.") if kind == 1 else \
            f"Parsing {LIST_NAMES[kind]}_list failed."
        return self.error(f"Key: {key}.  Can't parse serialized Example: {what}")


# -- one Example, as TF's fast parser decides it --------------------------------------------------

def wanted_features(config: tuple) -> dict:
    """{key as bytes: (key, role, dtype, dense shape)} of the features a parse config reads;
    role is "dense", "sequence" (FixedLenSequenceFeature), "sparse" or "ragged"."""
    sparse, dense, ragged = config
    wanted: dict = {}
    for key, dtype in sparse:
        wanted[key.encode("utf-8")] = (key, "sparse", dtype, None)
    for key, dtype, shape, sequence, _default in dense:
        wanted[key.encode("utf-8")] = (key, "sequence" if sequence else "dense", dtype, shape)
    for _key, value_key, dtype, partitions, _splits in ragged:
        wanted[value_key.encode("utf-8")] = (value_key, "ragged", dtype, None)
        for _kind, part_key in partitions:
            wanted[part_key.encode("utf-8")] = (part_key, "ragged", "int64", None)
    return wanted


def parse_record(record: bytes, wanted: dict, ctx: Context, index: int) -> dict:
    """{key: (kind, values)} of the wanted features of one serialized Example, with TF's
    verdicts and its first error: entries are visited last to first (the last duplicate
    wins), and only wanted features' lists are read."""
    try:
        entries = example_entries(record)
    except _wire.WireError:
        raise ctx.at(index, ctx.corrupt(record)) from None
    found: dict = {}
    for raw_key, feature in reversed(entries):
        spec = wanted.get(bytes(raw_key))
        if spec is None:
            continue
        key, role, dtype, shape = spec
        kind = feature_kind(feature)
        if kind is None:
            raise ctx.at(index, ctx.error("Unsupported datatype."))
        # an empty Feature is skipped (an earlier duplicate may count), except that the
        # batched parser lets it stand for sparse and ragged features
        if key in found or (kind == 0 and (ctx.single or role in ("dense", "sequence"))):
            continue
        found[key] = _read_feature(feature, kind, spec, ctx, index)
    return found


def _read_feature(feature: bytes, kind: int, spec: tuple, ctx: Context, index: int) -> tuple:
    key, role, dtype, shape = spec
    if kind == 0:
        return 0, None
    wanted_kind = KIND_OF_DTYPE[dtype]
    if kind != wanted_kind:
        error = ctx.dense_type if role in ("dense", "sequence") else ctx.list_type
        raise ctx.at(index, error(index, key, kind, DTYPE_NAMES[wanted_kind]))
    size = int(np.prod(shape)) if role == "dense" else None
    try:
        count, values = feature_values(feature, kind, size)
    except _wire.WireError:
        raise ctx.at(index, ctx.parse_failed(index, key, kind, role)) from None
    if role == "dense" and count != size:
        raise ctx.at(index, ctx.dense_size(index, key, kind, count, shape))
    return kind, values
