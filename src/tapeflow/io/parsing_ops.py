"""`tf.io.decode_raw`, `encode_base64` / `decode_base64`, `decode_compressed` and
`decode_csv`: ops on string tensors with TensorFlow's kernels' rules and errors."""

from __future__ import annotations

import re
import zlib
from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.errors import DataLossError, InvalidArgumentError, UnimplementedError
from tapeflow.framework.tensor import Tensor
from tapeflow.io.serialization import tf_type_name
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.string_ops import _elementwise, _strings

_OBJECT = np.dtype(object)


# -- decode_raw ------------------------------------------------------------------------------------

_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8",
              "int64", "complex64", "complex128", "bool", "bfloat16")


def _raw_dtype(name: str, little_endian: bool) -> np.dtype:
    dtype = np.dtype(_dtypes.as_dtype(name).as_numpy_dtype)
    return dtype.newbyteorder("<" if little_endian else ">") if dtype.itemsize > 1 else dtype


def _decode_raw_impl(x: np.ndarray, out_type: str, little_endian: bool) -> np.ndarray:
    dtype = _raw_dtype(out_type, little_endian)
    items = x.reshape(-1).tolist()
    if not items:
        return np.zeros(x.shape + (0,), dtype.newbyteorder("="))
    size = len(items[0])
    if size % dtype.itemsize:
        raise InvalidArgumentError(f"Input to DecodeRaw has length {size} that is not a "
                                   f"multiple of {dtype.itemsize}, the size of "
                                   f"{tf_type_name(out_type)} [Op:DecodeRaw]")
    for i, item in enumerate(items):
        if len(item) != size:
            raise InvalidArgumentError(f"DecodeRaw requires input strings to all be the same "
                                       f"size, but element {i} has size {size} != {len(item)} "
                                       f"[Op:DecodeRaw]")
    out = np.frombuffer(b"".join(items), dtype).astype(dtype.newbyteorder("="))
    return out.reshape(x.shape + (size // dtype.itemsize,))


def _decode_padded_impl(x: np.ndarray, out_type: str, little_endian: bool,
                        fixed_length: int) -> np.ndarray:
    dtype = _raw_dtype(out_type, little_endian)
    if fixed_length % dtype.itemsize:
        raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be a multiple of the "
                                   f"size of out_type ({dtype.itemsize}) [Op:DecodePaddedRaw]")
    padded = b"".join(item[:fixed_length].ljust(fixed_length, b"\0")
                      for item in x.reshape(-1).tolist())
    out = np.frombuffer(padded, dtype).astype(dtype.newbyteorder("="))
    return out.reshape(x.shape + (fixed_length // dtype.itemsize,))


def _raw_rule(x: ShapedArray, out_type: str, little_endian: bool,
              fixed_length: Optional[int] = None) -> ShapedArray:
    dtype = _dtypes.as_dtype(out_type).as_numpy_dtype
    itemsize = np.dtype(dtype).itemsize
    last = None if fixed_length is None or fixed_length % itemsize else fixed_length // itemsize
    return ShapedArray(None if x.shape is None else x.shape + (last,), dtype)


_DECODE_RAW = Primitive("DecodeRaw", _decode_raw_impl, differentiable=False,
                        shape_rule=_raw_rule)
_DECODE_PADDED_RAW = Primitive("DecodePaddedRaw", _decode_padded_impl, differentiable=False,
                               shape_rule=_raw_rule)


def decode_raw(input_bytes: Any, out_type: Any, little_endian: bool = True,
               fixed_length: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Each string's bytes read as an array of `out_type` (a new last axis): all strings of
    one length, or each cut/zero-padded to `fixed_length` bytes."""
    x = _strings(input_bytes, "DecodeRaw")
    out = _dtypes.as_dtype(out_type)
    if out.name not in _RAW_TYPES:
        allowed = ", ".join(tf_type_name(n) for n in _RAW_TYPES)
        raise InvalidArgumentError(f"Value for attr 'out_type' of {tf_type_name(out.name)} is "
                                   f"not in the list of allowed values: {allowed} "
                                   f"[Op:DecodeRaw]")
    attrs = {"out_type": out.name, "little_endian": bool(little_endian)}
    if fixed_length is None:
        return bind(_DECODE_RAW, (x,), attrs)
    return bind(_DECODE_PADDED_RAW, (x,), dict(attrs, fixed_length=int(fixed_length)))


# -- base64 ----------------------------------------------------------------------------------------

_WEB_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DECODE_TABLE = {c: i for i, c in enumerate(_WEB_SAFE)}


def _encode64(s: bytes, pad: bool) -> bytes:
    import base64
    out = base64.urlsafe_b64encode(s)
    return out if pad else out.rstrip(b"=")


def _decode_chunk(chunk: bytes) -> int:
    """Four web-safe characters as their 24 bits."""
    bits = 0
    for c in chunk:
        value = _DECODE_TABLE.get(c)
        if value is None:
            raise InvalidArgumentError("Invalid character found in base64. [Op:DecodeBase64]")
        bits = bits << 6 | value
    return bits


def _decode64(s: bytes) -> bytes:
    """TF's Base64Decode: web-safe alphabet, padding optional (only on the last 4 chars),
    stray bits of a last partial group ignored."""
    if not s:
        return b""
    out = bytearray()
    end, pos = len(s), 0
    while end - pos > 4:
        out += _decode_chunk(s[pos:pos + 4]).to_bytes(3, "big")
        pos += 4
    if end - pos == 4:
        if s[pos + 2:pos + 4] == b"==":
            end -= 2
        elif s[pos + 3:pos + 4] == b"=":
            end -= 1
    remain = end - pos
    if remain == 1:
        raise InvalidArgumentError("Base64 string length cannot be 1 modulo 4. "
                                   "[Op:DecodeBase64]")
    if remain:
        tail = _decode_chunk(s[pos:end] + b"A" * (4 - remain)).to_bytes(3, "big")
        out += tail[:remain - 1]
    return bytes(out)


_ENCODE64 = _elementwise("EncodeBase64", _encode64)
_DECODE64 = _elementwise("DecodeBase64", lambda s: _decode64(s))


def encode_base64(input: Any, pad: bool = False, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each string in web-safe base64 (`-` and `_` for `+` and `/`), '='-padded if `pad`."""
    return bind(_ENCODE64, (_strings(input, "EncodeBase64"),), {"pad": bool(pad)})


def decode_base64(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each web-safe base64 string decoded (padding optional)."""
    return bind(_DECODE64, (_strings(input, "DecodeBase64"),))


# -- decode_compressed ----------------------------------------------------------------------------

_ZLIB_ERROR = re.compile(r"Error (-?\d+) while (?:decompressing data|preparing to decompress "
                         r"data): (.*)")


def _inflate(data: bytes, gzip: bool) -> bytes:
    if not data:
        return b""
    out, rest = [], data
    while True:
        inflater = zlib.decompressobj(31 if gzip else 15)
        try:
            out.append(inflater.decompress(rest))
        except zlib.error as exc:
            match = _ZLIB_ERROR.match(str(exc))
            detail = f"error {match.group(1)}: {match.group(2)}" if match else str(exc)
            raise DataLossError(f"inflate() failed with {detail} [Op:DecodeCompressed]") \
                from None
        rest = inflater.unused_data
        if not (gzip and inflater.eof and rest):
            return b"".join(out)   # GZIP reads every member; ZLIB one stream


def _decompress(s: bytes, compression_type: str) -> bytes:
    return s if compression_type == "" else _inflate(s, compression_type == "GZIP")


_DECOMPRESS = _elementwise("DecodeCompressed", _decompress)


def decode_compressed(bytes: Any, compression_type: str = "",  # noqa: A002 - TF's name
                      name: Optional[str] = None) -> Tensor:
    """Each string decompressed: `compression_type` "ZLIB", "GZIP" or "" (unchanged)."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        if compression_type == "ZSTD":
            raise UnimplementedError("DecodeCompressed: tapeflow has no ZSTD decoder "
                                     "(ZLIB, GZIP and '' are supported)")
        raise InvalidArgumentError("Only ZLIB, ZSTD, GZIP or NONE are supported compressions "
                                   "[Op:DecodeCompressed]")
    return bind(_DECOMPRESS, (_strings(bytes, "DecodeCompressed"),),
                {"compression_type": compression_type})


# -- decode_csv ------------------------------------------------------------------------------------

_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")
_INT_TEXT = re.compile(rb"\s*[+-]?\d+\s*")
_FLOAT_TEXT = re.compile(rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)\s*",
                         re.IGNORECASE)
_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def _csv_fields(record: bytes, delim: int, quotes: bool, select: tuple) -> list:
    """The fields of one record (only the `select`ed columns when given), as TF's DecodeCSV
    splits them: RFC 4180 quoting with "" for a quote, a trailing delimiter giving an empty
    last field, an empty record giving no field."""
    fields: list = []
    pos, n, parsed, want = 0, len(record), 0, 0

    def included() -> bool:
        return not select or select[want] == parsed

    while pos < n:
        if record[pos] in b"\n\r":
            pos += 1
            continue
        include = included()
        field = bytearray()
        if quotes and record[pos] == 0x22:
            pos += 1
            while pos < n - 1 and (record[pos] != 0x22 or record[pos + 1] != delim):
                if record[pos] != 0x22:
                    field.append(record[pos])
                    pos += 1
                else:
                    if record[pos + 1] != 0x22:
                        raise InvalidArgumentError("Quote inside a string has to be escaped by "
                                                   "another quote [Op:DecodeCSV]")
                    field.append(0x22)
                    pos += 2
            if not (pos < n and record[pos] == 0x22 and (pos == n - 1 or record[pos + 1] == delim)):
                raise InvalidArgumentError("Quoted field has to end with quote followed by "
                                           "delim or end [Op:DecodeCSV]")
            pos += 2
        else:
            while pos < n and record[pos] != delim:
                c = record[pos]
                if (quotes and c == 0x22) or c in (10, 13):
                    raise InvalidArgumentError("Unquoted fields cannot have quotes/CRLFs inside "
                                               "[Op:DecodeCSV]")
                field.append(c)
                pos += 1
            pos += 1
        parsed += 1
        if include:
            fields.append(bytes(field))
            want += 1
            if select and want == len(select):
                return fields
    if n and included() and record[-1] == delim:
        fields.append(b"")
    return fields


def _csv_value(text: bytes, dtype: str, column: int, row: int) -> Any:
    if dtype == "string":
        return text
    kind = "int" if dtype.startswith("int") else "float"
    ok = (_INT_TEXT if kind == "int" else _FLOAT_TEXT).fullmatch(text)
    if ok and kind == "int":
        value = int(text)
        low, high = _INT_RANGE[dtype]
        ok = low <= value <= high
    if not ok:
        raise InvalidArgumentError(f"Field {column} in record {row} is not a valid "
                                   f"{tf_type_name(dtype)}: {text.decode('utf-8', 'replace')} "
                                   f"[Op:DecodeCSV]")
    return value if kind == "int" else float(text)


def _decode_csv_impl(records: np.ndarray, *defaults: np.ndarray, out_types: tuple,
                     field_delim: bytes, use_quote_delim: bool, na_value: bytes,
                     select_cols: tuple) -> tuple:
    for i, default in enumerate(defaults):
        if default.ndim > 1:
            raise InvalidArgumentError("Each record default should be at most rank 1 "
                                       "[Op:DecodeCSV]")
        if default.size > 1:
            raise InvalidArgumentError(f"There should only be 1 default per field but field "
                                       f"{i} has {default.size} [Op:DecodeCSV]")
    if len(field_delim) != 1:
        raise InvalidArgumentError("field_delim should be only 1 char [Op:DecodeCSV]")
    columns = [[] for _ in out_types]
    for row, record in enumerate(records.reshape(-1).tolist()):
        fields = _csv_fields(record, field_delim[0], use_quote_delim, select_cols)
        if len(fields) != len(out_types):
            raise InvalidArgumentError(f"Expect {len(out_types)} fields but have {len(fields)} "
                                       f"in record {row} [Op:DecodeCSV]")
        for f, (text, dtype) in enumerate(zip(fields, out_types)):
            if not text or text == na_value:
                if defaults[f].size != 1:
                    raise InvalidArgumentError(f"Field {f} is required but missing in record "
                                               f"{row}! [Op:DecodeCSV]")
                columns[f].append(defaults[f].reshape(-1)[0])
            else:
                columns[f].append(_csv_value(text, dtype, f, row))
    out = []
    for values, dtype in zip(columns, out_types):
        column = np.empty(len(values), _numpy_dtype(dtype))
        column[:] = values
        out.append(column.reshape(records.shape))
    return tuple(out)


def _numpy_dtype(name: str) -> np.dtype:
    return _OBJECT if name == "string" else np.dtype(_dtypes.as_dtype(name).as_numpy_dtype)


def _decode_csv_rule(records: ShapedArray, *defaults: ShapedArray, out_types: tuple,
                     **attrs: Any) -> tuple:
    return tuple(ShapedArray(records.shape, _numpy_dtype(d)) for d in out_types)


_DECODE_CSV = Primitive("DecodeCSV", _decode_csv_impl, multiple_results=True,
                        differentiable=False, shape_rule=_decode_csv_rule)


def decode_csv(records: Any, record_defaults: Sequence[Any], field_delim: str = ",",
               use_quote_delim: bool = True, name: Optional[str] = None, na_value: str = "",
               select_cols: Optional[Sequence[int]] = None) -> list:
    """Splits each CSV record into one tensor per column (of the records' shape), typed by
    `record_defaults` (one default per column, or an empty tensor for a required column);
    `select_cols` picks columns (strictly increasing)."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(a >= b for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    x = _strings(records, "DecodeCSV")
    defaults = tuple(convert_to_tensor(d) for d in record_defaults)
    out_types = tuple(d.dtype.name for d in defaults)
    for dtype in out_types:
        if dtype not in _CSV_TYPES:
            raise InvalidArgumentError(
                f"Value for attr 'OUT_TYPE' of {tf_type_name(dtype)} is not in the list of "
                f"allowed values: float, double, int32, int64, string [Op:DecodeCSV]")
    attrs = {"out_types": out_types, "field_delim": _as_bytes(field_delim),
             "use_quote_delim": bool(use_quote_delim), "na_value": _as_bytes(na_value),
             "select_cols": tuple(select_cols or ())}
    return list(bind(_DECODE_CSV, (x,) + defaults, attrs))


def _as_bytes(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


__all__ = ["decode_base64", "decode_compressed", "decode_csv", "decode_raw", "encode_base64"]
