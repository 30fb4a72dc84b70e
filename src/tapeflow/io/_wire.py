"""A small protocol-buffer wire-format codec (encode and read fields), enough for TensorProto,
tf.train.Example and friends without depending on the protobuf package.

Reading follows protobuf's own parsers (C++ and upb), which are what TensorFlow runs: varints
of at most 10 bytes, tags below 2**32 with a field number above 0, wire types 0-5 (groups are
skipped whole, with their nesting bounded as protobuf bounds recursion), length-delimited
fields inside their message. Anything else raises WireError. Positions are offsets into the
one buffer, so nothing is copied per byte and nothing grows quadratically.
"""

from __future__ import annotations

import struct
from typing import Iterator

import numpy as np

VARINT, FIXED64, LENGTH_DELIMITED, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5

_MASK64 = (1 << 64) - 1
MAX_DEPTH = 100   # protobuf's default recursion limit (groups and nested messages)


class WireError(ValueError):
    """Raised on bytes that are not a well-formed protocol-buffer message."""


# -- encoding -------------------------------------------------------------------------------------

def encode_varint(value: int) -> bytes:
    """Base-128 varint of `value`; a negative value is written as its 64-bit two's complement
    (10 bytes), as protobuf does for int32/int64 fields."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_key(field: int, wiretype: int) -> bytes:
    """The tag that starts a field: varint of (field number << 3) | wire type."""
    return encode_varint((field << 3) | wiretype)


def varint_field(field: int, value: int) -> bytes:
    """A varint field (int32/int64/uint64/bool/enum)."""
    return field_key(field, VARINT) + encode_varint(value)


def length_delimited(field: int, payload: bytes) -> bytes:
    """A length-delimited field: bytes, string, embedded message or packed repeated values."""
    return field_key(field, LENGTH_DELIMITED) + encode_varint(len(payload)) + bytes(payload)


def packed_varints(field: int, values) -> bytes:
    """A packed repeated varint field (repeated int32/int64/bool)."""
    return length_delimited(field, b"".join(encode_varint(int(v)) for v in values))


def packed_fixed(field: int, values, fmt: str) -> bytes:
    """A packed repeated fixed-width field; `fmt` is a struct code ('f' float, 'd' double)."""
    values = list(values)
    return length_delimited(field, struct.pack(f"<{len(values)}{fmt}", *values))


# -- decoding -------------------------------------------------------------------------------------

def decode_varint(buf: bytes, pos: int = 0, end: int = -1) -> tuple[int, int]:
    """Reads the unsigned varint at `buf[pos:end]` (at most 10 bytes; a 10th byte's bits past
    the 64th are dropped, as protobuf does); returns (value, position after it)."""
    if end < 0:
        end = len(buf)
    if pos < end and buf[pos] < 0x80:       # the common one-byte case
        return buf[pos], pos + 1
    result = shift = 0
    start, stop = pos, min(end, pos + 10)
    while pos < stop:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & _MASK64, pos
        shift += 7
    raise WireError("varint longer than 10 bytes" if pos - start == 10 else "truncated varint")


def to_signed64(value: int) -> int:
    """An unsigned 64-bit varint value read back as the int64 it encodes."""
    return value - (1 << 64) if value >= 1 << 63 else value


def to_signed32(value: int) -> int:
    """An unsigned varint value read back as the int32 it encodes (protobuf truncates)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def read_tag(buf: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """(field number, wire type, position after the tag) of the tag at `pos`."""
    if buf[pos] < 0x80:
        key, pos = buf[pos], pos + 1
    else:
        start = pos
        key, pos = decode_varint(buf, pos, end)
        if pos - start > 5 or key >> 32:
            raise WireError("tag out of range")
    field, wiretype = key >> 3, key & 7
    if field == 0:
        raise WireError("field number 0")
    if wiretype > FIXED32:
        raise WireError(f"invalid wire type {wiretype}")
    return field, wiretype, pos


def read_length(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """(start, stop) of the length-delimited payload whose length varint is at `pos`."""
    size, pos = decode_varint(buf, pos, end)
    if size > end - pos:
        raise WireError("truncated length-delimited field")
    return pos, pos + size


def skip_group(buf: bytes, pos: int, end: int, field: int, depth: int) -> int:
    """The position after the END_GROUP tag that closes the group `field` opened before
    `pos` (nested groups skipped too, `depth` levels deep at most)."""
    if depth >= MAX_DEPTH:
        raise WireError("groups nested too deeply")
    while pos < end:
        number, wiretype, pos = read_tag(buf, pos, end)
        if wiretype == END_GROUP:
            if number != field:
                raise WireError("mismatched end-group tag")
            return pos
        pos = skip_value(buf, pos, end, number, wiretype, depth + 1)
    raise WireError("unterminated group")


def skip_value(buf: bytes, pos: int, end: int, field: int, wiretype: int,
               depth: int = 0) -> int:
    """The position after the value (of `wiretype`) that starts at `pos`."""
    if wiretype == VARINT:
        return decode_varint(buf, pos, end)[1]
    if wiretype == LENGTH_DELIMITED:
        return read_length(buf, pos, end)[1]
    if wiretype == START_GROUP:
        return skip_group(buf, pos, end, field, depth)
    if wiretype == END_GROUP:
        raise WireError("unexpected end-group tag")
    width = 8 if wiretype == FIXED64 else 4
    if pos + width > end:
        raise WireError("truncated fixed-width field")
    return pos + width


def iter_fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yields (field number, wire type, value) for each field of the message in `buf`: an int
    for a varint, bytes for the others (a length-delimited payload, the 8/4 raw bytes of
    fixed64/fixed32, or a group's raw bytes through its END_GROUP tag)."""
    buf = bytes(buf)
    pos, end = 0, len(buf)
    while pos < end:
        field, wiretype, pos = read_tag(buf, pos, end)
        if wiretype == VARINT:
            value, pos = decode_varint(buf, pos, end)
        elif wiretype == LENGTH_DELIMITED:
            start, pos = read_length(buf, pos, end)
            value = buf[start:pos]
        else:
            start, pos = pos, skip_value(buf, pos, end, field, wiretype)
            value = buf[start:pos]
        yield field, wiretype, value


# -- packed repeated values, decoded with NumPy ---------------------------------------------------

def varint_runs(payload: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(values as uint64, byte lengths) of a run of varints filling `payload` exactly, decoded
    with NumPy; WireError when the last one is cut off or one is longer than 10 bytes."""
    data = np.frombuffer(payload, np.uint8)
    if data.size == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    ends = np.flatnonzero(data < 0x80)
    if ends.size == 0 or ends[-1] != data.size - 1:
        raise WireError("truncated varint")
    starts = np.empty_like(ends)
    starts[0], starts[1:] = 0, ends[:-1] + 1
    lengths = ends - starts + 1
    longest = int(lengths.max())
    if longest > 10:
        raise WireError("varint longer than 10 bytes")
    values = (data[starts] & 0x7F).astype(np.uint64)
    for k in range(1, longest):
        rows = np.flatnonzero(lengths > k)
        values[rows] |= (data[starts[rows] + k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
    return values, lengths


def varint_array(payload: bytes) -> np.ndarray:
    """The values (uint64) of a run of varints filling `payload` exactly (see varint_runs)."""
    return varint_runs(payload)[0]


def unpack_varints(payload: bytes) -> np.ndarray:
    """The unsigned values (uint64) of a packed repeated varint field's payload."""
    return varint_array(payload)


def fixed_array(payload: bytes, dtype: str) -> np.ndarray:
    """A packed repeated fixed-width field's values (`dtype` '<f4', '<f8', ...); WireError when
    the payload is not a whole number of them, as protobuf rejects it."""
    width = np.dtype(dtype).itemsize
    if len(payload) % width:
        raise WireError("packed fixed-width payload is not a whole number of values")
    return np.frombuffer(payload, dtype)


def fixed_run(buf: bytes, start: int, end: int, width: int, dtype: str) -> tuple:
    """(values, position after them) of the run of unpacked fixed-width values that starts with
    the one-byte tag at `start`: each record is that tag byte and `width` bytes. It is scanned
    with NumPy in windows that double, so that the work stays linear in what is read; WireError
    when not even the first value is whole."""
    tag, pos, window, chunks = buf[start], start, 64, []
    step = width + 1
    while True:
        rows = min(window, (end - pos) // step)
        block = np.frombuffer(buf, np.uint8, rows * step, pos).reshape(rows, step)
        bad = np.flatnonzero(block[:, 0] != tag)
        run = int(bad[0]) if bad.size else rows
        chunks.append(np.ascontiguousarray(block[:run, 1:]).view(dtype).reshape(-1))
        pos += run * step
        if bad.size or rows < window:
            break
        window *= 2
    if pos == start:
        raise WireError("truncated fixed-width field")
    return np.concatenate(chunks), pos
