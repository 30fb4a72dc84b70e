"""The ParseExampleV2 kernel: tf.train.Example wire bytes to the arrays parse_example returns.

It reads the wire format directly (no message objects), decoding only the requested features,
and raises TF's InvalidArgumentError texts (the single-example and batched forms differ, as
TF's fast parser's do).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.io import _wire

# TF's names for the list kinds (in "data type" messages) and the Feature oneof's field numbers
DTYPE_NAMES = {1: "string", 2: "float", 3: "int64"}
LIST_NAMES = {1: "bytes", 2: "float", 3: "int64"}
KIND_OF_DTYPE = {"string": 1, "float32": 2, "int64": 3}


def _op_error(message: str, op: str = "ParseExampleV2") -> InvalidArgumentError:
    return InvalidArgumentError(f"{message} [Op:{op}]")


def escaped(data: bytes) -> str:
    """Bytes as TF's CEscape writes them in messages."""
    out = []
    for b in data:
        if b in (0x0A, 0x0D, 0x09, 0x22, 0x27, 0x5C):
            out.append({0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'",
                        0x5C: "\\\\"}[b])
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    return "".join(out)


def features_of(record: bytes, map_field: int = 1, outer_field: int = 1) -> dict:
    """{key: Feature payload bytes} of an Example (or a SequenceExample's context/lists:
    `outer_field` picks the message, `map_field` its map); a later duplicate key wins."""
    out: dict = {}
    for number, wiretype, value in _wire.iter_fields(record):
        if number != outer_field or wiretype != _wire.LENGTH_DELIMITED:
            continue
        for n2, w2, entry in _wire.iter_fields(value):
            if n2 != map_field or w2 != _wire.LENGTH_DELIMITED:
                continue
            key, payload = b"", b""
            for n3, w3, v3 in _wire.iter_fields(entry):
                if w3 == _wire.LENGTH_DELIMITED and n3 == 1:
                    key = v3
                elif w3 == _wire.LENGTH_DELIMITED and n3 == 2:
                    payload += v3
            out[key.decode("utf-8", "replace")] = payload
    return out


def decode_feature(payload: bytes) -> tuple:
    """(kind, values) of a Feature: kind 1 bytes / 2 float / 3 int64, or (0, None) when no
    list is set; values a list (bytes) or a NumPy array."""
    kind, body = 0, b""
    for number, wiretype, value in _wire.iter_fields(payload):
        if wiretype == _wire.LENGTH_DELIMITED and number in (1, 2, 3):
            if number != kind:
                kind, body = number, b""
            body += value
    if kind == 0:
        return 0, None
    if kind == 1:
        return 1, [v for n, w, v in _wire.iter_fields(body)
                   if n == 1 and w == _wire.LENGTH_DELIMITED]
    if kind == 2:
        parts = []
        for n, w, v in _wire.iter_fields(body):
            if n == 1 and w == _wire.LENGTH_DELIMITED:
                parts.append(np.frombuffer(v, "<f4"))
            elif n == 1 and w == _wire.FIXED32:
                parts.append(np.frombuffer(v, "<f4"))
        return 2, (np.concatenate(parts).astype(np.float32) if parts
                   else np.zeros(0, np.float32))
    ints: list = []
    for n, w, v in _wire.iter_fields(body):
        if n == 1 and w == _wire.LENGTH_DELIMITED:
            ints += _wire.unpack_varints(v)
        elif n == 1 and w == _wire.VARINT:
            ints.append(v)
    return 3, np.array([_wire.to_signed64(v) for v in ints], np.int64)


def as_array(kind: int, values: Any) -> np.ndarray:
    """Decoded values as the output's NumPy array (strings as an object array of bytes)."""
    if kind == 1:
        out = np.empty(len(values), object)
        out[:] = values
        return out
    return values


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
        return self.error(f"Could not parse example input, value: '{escaped(record)}'")
