"""`tf.io.serialize_tensor` / `parse_tensor`: a tensor as the bytes of its TensorProto, exactly
as TensorFlow writes them (numbers in `tensor_content`, strings in `string_val`)."""

from __future__ import annotations

import base64
import os
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray, dims_text
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.io import _wire
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.string_ops import _strings

_OBJECT = np.dtype(object)
# TF's DataTypeString names, as its messages print them.
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}

# TensorProto fields (tensorflow/core/framework/tensor.proto).
_DTYPE, _SHAPE, _CONTENT, _FLOAT, _DOUBLE, _INT, _STRING, _SCOMPLEX, _INT64, _BOOL, \
    _DCOMPLEX, _HALF, _UINT32, _UINT64 = 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17


def tf_type_name(name: str) -> str:
    """A dtype's name as TF's error messages spell it ('float' for float32)."""
    return _TF_NAMES.get(name, name)


def _shape_proto(shape: tuple) -> bytes:
    return b"".join(_wire.length_delimited(2, _wire.varint_field(1, d) if d else b"")
                    for d in shape)


def tensor_proto_bytes(value: np.ndarray, dtype: _dtypes.DType) -> bytes:
    """The TensorProto wire bytes of `value` (fields written only when not default, in field
    order, as protobuf's serializer does)."""
    out = _wire.varint_field(_DTYPE, dtype.as_datatype_enum) + \
        _wire.length_delimited(_SHAPE, _shape_proto(value.shape))
    if dtype == _dtypes.string:
        out += b"".join(_wire.length_delimited(_STRING, s) for s in value.reshape(-1).tolist())
    elif value.size:
        little = value.astype(value.dtype.newbyteorder("<"), copy=False)
        out += _wire.length_delimited(_CONTENT, np.ascontiguousarray(little).tobytes())
    return out


def _serialize_impl(x: np.ndarray, dtype: str) -> np.ndarray:
    return np.array(tensor_proto_bytes(np.asarray(x), _dtypes.as_dtype(dtype)), dtype=object)


_SERIALIZE = Primitive("SerializeTensor", _serialize_impl, differentiable=False,
                       shape_rule=lambda x, dtype: ShapedArray((), _OBJECT))


def serialize_tensor(tensor: Any, name: Optional[str] = None) -> Tensor:
    """The scalar string holding `tensor`'s TensorProto (any dtype and shape)."""
    t = convert_to_tensor(tensor)
    return bind(_SERIALIZE, (t,), {"dtype": t.dtype.name})


# -- parsing: protobuf's reader, then TF's Tensor::FromProto ---------------------------------------

# The messages' fields: number -> (name, kind, repeated); a dict kind is a sub-message's fields.
# resource_handle_val / variant_val are read as well-formed messages whose fields are unknown.
_DIM_FIELDS = {1: ("size", "int64", False), 2: ("name", "string", False)}
_SHAPE_FIELDS = {2: ("dim", _DIM_FIELDS, True), 3: ("unknown_rank", "bool", False)}
_TENSOR_FIELDS = {
    1: ("dtype", "enum", False), 2: ("tensor_shape", _SHAPE_FIELDS, False),
    3: ("version_number", "int32", False), 4: ("tensor_content", "bytes", False),
    5: ("float_val", "float", True), 6: ("double_val", "double", True),
    7: ("int_val", "int32", True), 8: ("string_val", "bytes", True),
    9: ("scomplex_val", "float", True), 10: ("int64_val", "int64", True),
    11: ("bool_val", "bool", True), 12: ("dcomplex_val", "double", True),
    13: ("half_val", "int32", True), 14: ("resource_handle_val", {}, True),
    15: ("variant_val", {}, True), 16: ("uint32_val", "uint32", True),
    17: ("uint64_val", "uint64", True), 18: ("float8_val", "bytes", False)}
_WIRETYPE_OF = {"enum": _wire.VARINT, "int32": _wire.VARINT, "int64": _wire.VARINT,
                "uint32": _wire.VARINT, "uint64": _wire.VARINT, "bool": _wire.VARINT,
                "float": _wire.FIXED32, "double": _wire.FIXED64,
                "bytes": _wire.LENGTH_DELIMITED, "string": _wire.LENGTH_DELIMITED}
_FIXED_DTYPES = {"float": "<f4", "double": "<f8"}


class _Message:
    """A parsed message: known fields by name (a list when repeated; repeated numbers as a list
    of chunks, see `values`) and unknown fields as (number, wire type, raw value)."""

    __slots__ = ("fields", "unknown")

    def __init__(self) -> None:
        self.fields: dict = {}
        self.unknown: list = []

    def merge(self, other: "_Message", schema: dict) -> None:
        """protobuf's merge: repeated fields append, sub-messages merge, scalars replace."""
        for _number, (name, kind, repeated) in schema.items():
            if name not in other.fields:
                continue
            mine, theirs = self.fields.get(name), other.fields[name]
            if repeated:
                self.fields.setdefault(name, []).extend(theirs)
            elif isinstance(kind, dict) and mine is not None:
                mine.merge(theirs, kind)
            else:
                self.fields[name] = theirs
        self.unknown += other.unknown

    def values(self, name: str, kind: str) -> np.ndarray:
        """A repeated numeric field's values as one array (its chunks are arrays, or lists
        of the raw varints read one by one)."""
        chunks = [_numbers(np.array(c, np.uint64), kind) if isinstance(c, list) else c
                  for c in self.fields.get(name, [])]
        return np.concatenate(chunks) if chunks else _numbers(np.zeros(0, np.uint64), kind)


def _numbers(raw: np.ndarray, kind: str) -> np.ndarray:
    """Varint values (uint64) as the field's type: int32 keeps the low 32 bits, as protobuf."""
    if kind in ("int32", "enum"):
        return (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    if kind == "uint32":
        return (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    if kind == "int64":
        return raw.view(np.int64)
    if kind == "bool":
        return raw != 0
    return raw


def _read_scalar(data: bytes, pos: int, end: int, kind: str) -> tuple:
    if kind in ("float", "double"):
        width = 4 if kind == "float" else 8
        if pos + width > end:
            raise _wire.WireError("truncated fixed-width field")
        return np.frombuffer(data, _FIXED_DTYPES[kind], 1, pos), pos + width
    if kind in ("bytes", "string"):
        first, pos = _wire.read_length(data, pos, end)
        value = data[first:pos]
        if kind == "string":
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                raise _wire.WireError("string field is not UTF-8") from None
        return value, pos
    value, pos = _wire.decode_varint(data, pos, end)
    return _numbers(np.array([value], np.uint64), kind), pos


def _read_message(data: bytes, pos: int, end: int, schema: dict, depth: int = 0) -> _Message:
    """The message in `data[pos:end]`, read by protobuf's (C++) rules: a known field of another
    wire type is unknown, packed and unpacked repeated numbers are both read, a repeated
    sub-message appends, a singular one merges, a scalar's last value wins."""
    if depth >= _wire.MAX_DEPTH:
        raise _wire.WireError("messages nested too deeply")
    message = _Message()
    while pos < end:
        start = pos
        number, wiretype, pos = _wire.read_tag(data, pos, end)
        name, kind, repeated = schema.get(number, (None, None, False))
        if isinstance(kind, dict) and wiretype == _wire.LENGTH_DELIMITED:
            first, pos = _wire.read_length(data, pos, end)
            sub = _read_message(data, first, pos, kind, depth + 1)
            if repeated:
                message.fields.setdefault(name, []).append(sub)
            elif name in message.fields:
                message.fields[name].merge(sub, kind)
            else:
                message.fields[name] = sub
        elif repeated and isinstance(kind, str) and kind in _FIXED_DTYPES \
                and wiretype == _WIRETYPE_OF[kind] and pos == start + 1:   # unpacked values
            chunk, pos = _wire.fixed_run(data, start, end, 4 if kind == "float" else 8,
                                         _FIXED_DTYPES[kind])
            message.fields.setdefault(name, []).append(chunk)
        elif repeated and isinstance(kind, str) and _WIRETYPE_OF[kind] == _wire.VARINT == wiretype:
            raw, pos = _wire.decode_varint(data, pos, end)
            chunks = message.fields.setdefault(name, [])
            if chunks and isinstance(chunks[-1], list):
                chunks[-1].append(raw)
            else:
                chunks.append([raw])
        elif isinstance(kind, str) and wiretype == _WIRETYPE_OF[kind]:
            value, pos = _read_scalar(data, pos, end, kind)
            if repeated:
                message.fields.setdefault(name, []).append(value)
            else:
                message.fields[name] = value if kind in ("bytes", "string") else value[0]
        elif repeated and isinstance(kind, str) and kind not in ("bytes", "string") \
                and wiretype == _wire.LENGTH_DELIMITED:
            first, pos = _wire.read_length(data, pos, end)
            payload = data[first:pos]
            chunk = _wire.fixed_array(payload, _FIXED_DTYPES[kind]) if kind in _FIXED_DTYPES \
                else _numbers(_wire.varint_array(payload), kind)
            message.fields.setdefault(name, []).append(chunk)
        else:
            first = pos
            pos = _wire.skip_value(data, pos, end, number, wiretype, depth)
            message.unknown.append((number, wiretype, data[first:pos]))
    return message


# TF's DataType enum: name (DT_ + this, upper case) and item size where Tensor::FromProto can
# decode it; the _REF types (+100) it cannot.
_TF_TYPES = {1: ("float", 4), 2: ("double", 8), 3: ("int32", 4), 4: ("uint8", 1),
             5: ("int16", 2), 6: ("int8", 1), 7: ("string", None), 8: ("complex64", 8),
             9: ("int64", 8), 10: ("bool", 1), 11: ("qint8", 1), 12: ("quint8", 1),
             13: ("qint32", 4), 14: ("bfloat16", 2), 15: ("qint16", 2), 16: ("quint16", 2),
             17: ("uint16", 2), 18: ("complex128", 16), 19: ("half", 2),
             20: ("resource", None), 21: ("variant", None), 22: ("uint32", 4),
             23: ("uint64", 8), 24: ("float8_e5m2", 1), 25: ("float8_e4m3fn", 1),
             26: ("float8_e4m3fnuz", 1), 27: ("float8_e4m3b11fnuz", 1),
             28: ("float8_e5m2fnuz", 1), 29: ("int4", 1), 30: ("uint4", 1)}
_EXTRA_ENUM_NAMES = {0: "DT_INVALID", 31: "DT_INT2", 32: "DT_UINT2", 33: "DT_FLOAT4_E2M1FN"}
# where Tensor::FromProto reads each type's values from (tensor.cc's ProtoHelper)
_VALUES_FIELD = {"float": ("float_val", "float"), "double": ("double_val", "double"),
                 "int64": ("int64_val", "int64"), "bool": ("bool_val", "bool"),
                 "uint32": ("uint32_val", "uint32"), "uint64": ("uint64_val", "uint64"),
                 "half": ("half_val", "int32"), "bfloat16": ("half_val", "int32"),
                 "complex64": ("scomplex_val", "float"),
                 "complex128": ("dcomplex_val", "double")}
_MAX_DIMS = 254


def _enum_name(value: int) -> str:
    base = value - 100 if value > 100 else value
    name = f"DT_{_TF_TYPES[base][0].upper()}" if base in _TF_TYPES else \
        _EXTRA_ENUM_NAMES.get(base)
    if name is None or value == 100:
        return str(value)
    return name + ("_REF" if value > 100 else "")


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def _element_count(shape: Optional[_Message]) -> Optional[int]:
    """The shape's element count, None where TF's TensorShape is invalid (a negative size,
    more than 254 dimensions, a count past int64)."""
    dims = [] if shape is None else shape.fields.get("dim", [])
    if len(dims) > _MAX_DIMS:
        return None
    count = 1
    for dim in dims:
        size = int(dim.fields.get("size", 0))
        if size < 0:
            return None
        count *= size
        if count >= 1 << 63:
            return None
    return count


def _shape_of(proto: _Message) -> tuple:
    shape = proto.fields.get("tensor_shape")
    return tuple(int(d.fields.get("size", 0)) for d in
                 ([] if shape is None else shape.fields.get("dim", [])))


def _decoded_strings(content: bytes, count: int) -> Optional[list]:
    """tensor_content of a string tensor: `count` varint lengths, then the bytes, exactly."""
    sizes, pos = [], 0
    try:
        for _ in range(count):
            size, pos = _wire.decode_varint(content, pos)
            sizes.append(size & 0xFFFFFFFF)
    except _wire.WireError:
        return None
    if sum(sizes) != len(content) - pos:
        return None
    out = []
    for size in sizes:
        out.append(content[pos:pos + size])
        pos += size
    return out


def _from_proto_ok(proto: _Message) -> bool:
    """Whether TF's Tensor::FromProto accepts the proto (its shape, type and content), decided
    before anything the size of the tensor is allocated: a tensor_content must hold exactly the
    declared elements, and values broadcast from *_val fields must fit in memory (where TF's
    allocation would fail)."""
    count = _element_count(proto.fields.get("tensor_shape"))
    enum = int(proto.fields.get("dtype", 0))
    if count is None or enum not in _TF_TYPES:
        return False
    name, size = _TF_TYPES[enum]
    content = proto.fields.get("tensor_content", b"")
    if count == 0 or not content:
        return count == 0 or count * (size or 8) <= _physical_memory()
    if name == "string":
        return _decoded_strings(content, count) is not None
    if size is None or len(content) != count * size:
        return False
    return name != "bool" or not bytes(content).translate(None, b"\0\1")


def _values_from_fields(proto: _Message, name: str, np_dtype: np.dtype, count: int) -> Any:
    """The tensor from the *_val fields: fewer values than elements repeat the last one (none
    gives zeros), extra values are dropped, as TF's FromProtoField does."""
    if name == "string":
        items = proto.fields.get("string_val", [])
        out = np.full(count, b"", object)
        if items:
            out[:min(count, len(items))] = items[:count]
            out[len(items):] = items[-1]
        return out
    field, kind = _VALUES_FIELD.get(name, ("int_val", "int32"))
    items = proto.values(field, kind)
    if name in ("half", "bfloat16"):
        items = items.astype(np.uint16).view(np_dtype)
    elif name.startswith("complex"):
        items = items[0:len(items) // 2 * 2:2] + 1j * items[1::2][:len(items) // 2]
    out = np.zeros(count, np_dtype)
    n = min(len(items), count)
    if n:
        out[:n] = items[:n].astype(np_dtype)
        out[n:] = out[n - 1]
    return out


def _tensor_from_proto(proto: _Message, name: str) -> np.ndarray:
    np_dtype = _OBJECT if name == "string" else np.dtype(_dtypes.as_dtype(name).as_numpy_dtype)
    shape = _shape_of(proto)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    content = proto.fields.get("tensor_content", b"")
    if count and content and name == "string":
        flat = np.empty(count, object)
        flat[:] = _decoded_strings(content, count)
    elif count and content:
        flat = np.frombuffer(content, np_dtype.newbyteorder("<")).astype(np_dtype)
    else:
        flat = _values_from_fields(proto, _TF_TYPES[_dtypes.as_dtype(name).as_datatype_enum][0],
                                   np_dtype, count)
    return flat.reshape(shape)


# -- the proto's text, as TF prints it in "Cannot parse tensor from proto" ------------------------

_UNKNOWN_KINDS = {_wire.VARINT: "VARINT", _wire.FIXED64: "FIXED64", _wire.FIXED32: "FIXED32",
                  _wire.START_GROUP: "GROUP"}


def _is_message(payload: bytes) -> bool:
    try:
        for _ in _wire.iter_fields(payload):
            pass
    except _wire.WireError:
        return False
    return bool(payload)


def _scalar_text(kind: str, value: Any) -> str:
    if kind == "enum":
        return _enum_name(int(value))
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("bytes", "string"):
        return f'"{_c_escape(value)}"'
    if kind in ("float", "double"):
        return _float_text(float(value), kind == "float")
    return str(int(value))


_FLOAT32_TINY = float(np.finfo(np.float32).tiny)


def _float_text(value: float, single: bool) -> str:
    """protobuf's SimpleFtoa / SimpleDtoa: the shortest of 6 (15) or 9 (17) digits."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if single and abs(value) < _FLOAT32_TINY:
        value *= 0.0          # TF's threads treat float denormals as zero (DAZ) when printing
    short, long_ = ("%.6g", "%.9g") if single else ("%.15g", "%.17g")
    text = short % value
    back = float(np.float32(float(text))) if single else float(text)
    return text if back == value else long_ % value


def _message_text(message: _Message, schema: dict, indent: str) -> list:
    lines: list = []
    for number in sorted(schema):
        name, kind, repeated = schema[number]
        if name not in message.fields:
            continue
        value = message.fields[name]
        if isinstance(kind, dict):
            for sub in (value if repeated else [value]):
                lines += [f"{indent}{name} {{", *_message_text(sub, kind, indent + "  "),
                          f"{indent}}}"]
        elif repeated:
            items = value if kind == "bytes" else message.values(name, kind).tolist()
            lines += [f"{indent}{name}: {_scalar_text(kind, v)}" for v in items]
        elif value:                                   # proto3: defaults are not printed
            lines.append(f"{indent}{name}: {_scalar_text(kind, value)}")
    for number, wiretype, raw in message.unknown:
        what = _UNKNOWN_KINDS.get(wiretype) or ("MESSAGE" if _is_message(
            raw[_wire.read_length(raw, 0, len(raw))[0]:]) else "STRING")
        lines.append(f"{indent}{number}: UNKNOWN_{what} [REDACTED]")
    return lines


def _cannot_parse(proto: _Message) -> InvalidArgumentError:
    # TF's DebugString opens with a marker that protobuf picks at random per process
    # (goo.gle/debugonly, debugstr, debugproto, with 3 or 4 spaces); tapeflow writes one.
    text = "".join(line + "\n" for line in _message_text(proto, _TENSOR_FIELDS, ""))
    return InvalidArgumentError(f"Cannot parse tensor from proto: goo.gle/debugproto    \n"
                                f"{text} [Op:ParseTensor]")


def _c_escape(data: bytes) -> str:
    special = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(special.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                   for b in data)


def _parse_impl(serialized: np.ndarray, out_type: str) -> np.ndarray:
    if serialized.ndim != 0:
        raise InvalidArgumentError(f"Expected `serialized` to be a scalar, got shape: "
                                   f"{dims_text(serialized.shape)} [Op:ParseTensor]")
    data = bytes(serialized[()])
    try:
        proto = _read_message(data, 0, len(data), _TENSOR_FIELDS)
    except _wire.WireError:
        text = base64.b64encode(data).decode("ascii")
        raise InvalidArgumentError(f"Could not parse `serialized` as TensorProto, base64: "
                                   f"{text} [Op:ParseTensor]") from None
    if not _from_proto_ok(proto):
        raise _cannot_parse(proto)
    name = _TF_TYPES[int(proto.fields["dtype"])][0]
    wanted = tf_type_name(out_type)
    if name != wanted:
        raise InvalidArgumentError(f"Type mismatch between parsed tensor ({name}) and dtype "
                                   f"({wanted}) [Op:ParseTensor]")
    return _tensor_from_proto(proto, out_type)


def _parse_rule(serialized: ShapedArray, out_type: str) -> ShapedArray:
    dtype = _OBJECT if out_type == "string" else _dtypes.as_dtype(out_type).as_numpy_dtype
    return ShapedArray(None, dtype)


_PARSE = Primitive("ParseTensor", _parse_impl, differentiable=False, shape_rule=_parse_rule)


def parse_tensor(serialized: Any, out_type: Any, name: Optional[str] = None) -> Tensor:
    """The tensor whose TensorProto bytes are the scalar string `serialized`; its dtype must
    be `out_type` (InvalidArgumentError otherwise, as TF)."""
    return bind(_PARSE, (_strings(serialized, "ParseTensor"),),
                {"out_type": _dtypes.as_dtype(out_type).name})


__all__ = ["parse_tensor", "serialize_tensor"]
