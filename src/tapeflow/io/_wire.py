"""A tiny protocol-buffer wire-format codec (encode and read fields), enough for TensorProto,
tf.train.Example and friends without depending on the protobuf package.

Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 (3/4, groups, are rejected).
"""

from __future__ import annotations

import struct
from typing import Iterator

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5

_MASK64 = (1 << 64) - 1


class WireError(ValueError):
    """Raised on bytes that are not a well-formed protocol-buffer message."""


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


def decode_varint(buf: bytes, pos: int = 0) -> tuple[int, int]:
    """Reads the unsigned varint at `buf[pos:]`; returns (value, position after it)."""
    result = shift = 0
    n = len(buf)
    while True:
        if pos >= n:
            raise WireError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise WireError("varint longer than 10 bytes")


def to_signed64(value: int) -> int:
    """An unsigned 64-bit varint value read back as the int64 it encodes."""
    return value - (1 << 64) if value >= 1 << 63 else value


def to_signed32(value: int) -> int:
    """An unsigned varint value read back as the int32 it encodes (protobuf truncates)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


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


def iter_fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yields (field number, wire type, value) for each field of the message in `buf`: an int
    for a varint, bytes for the others (length-delimited payload, or the 8/4 raw bytes of
    fixed64/fixed32)."""
    buf = bytes(buf)
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = decode_varint(buf, pos)
        field, wiretype = key >> 3, key & 7
        if field == 0:
            raise WireError("field number 0")
        if wiretype == VARINT:
            value, pos = decode_varint(buf, pos)
        elif wiretype == LENGTH_DELIMITED:
            size, pos = decode_varint(buf, pos)
            if pos + size > n:
                raise WireError("truncated length-delimited field")
            value, pos = buf[pos:pos + size], pos + size
        elif wiretype in (FIXED64, FIXED32):
            width = 8 if wiretype == FIXED64 else 4
            if pos + width > n:
                raise WireError("truncated fixed-width field")
            value, pos = buf[pos:pos + width], pos + width
        else:
            raise WireError(f"unsupported wire type {wiretype}")
        yield field, wiretype, value


def unpack_varints(payload: bytes) -> list[int]:
    """The unsigned values of a packed repeated varint field's payload."""
    out, pos, n = [], 0, len(payload)
    while pos < n:
        value, pos = decode_varint(payload, pos)
        out.append(value)
    return out
