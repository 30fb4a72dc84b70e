"""`tf.io.serialize_tensor` / `parse_tensor`: a tensor as the bytes of its TensorProto, exactly
as TensorFlow writes them (numbers in `tensor_content`, strings in `string_val`)."""

from __future__ import annotations

import base64
import struct
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
_BY_ENUM = {enum: name for name, enum in _dtypes._ENUMS.items()}
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


# -- parsing ---------------------------------------------------------------------------------------

class _Proto:
    """The fields of a parsed TensorProto that tapeflow reads."""

    def __init__(self) -> None:
        self.dtype = 0
        self.dims: list = []
        self.unknown_rank = False
        self.content = b""
        self.values: dict = {}   # field number -> list of raw values


def _read_proto(data: bytes) -> _Proto:
    proto = _Proto()
    for field, wiretype, value in _wire.iter_fields(data):
        if field == _DTYPE and wiretype == _wire.VARINT:
            proto.dtype = value
        elif field == _SHAPE and wiretype == _wire.LENGTH_DELIMITED:
            for sfield, _, svalue in _wire.iter_fields(value):
                if sfield == 2:
                    size = 0
                    for dfield, dwire, dvalue in _wire.iter_fields(svalue):
                        if dfield == 1 and dwire == _wire.VARINT:
                            size = _wire.to_signed64(dvalue)
                    proto.dims.append(size)
                elif sfield == 3:
                    proto.unknown_rank = bool(svalue)
        elif field == _CONTENT and wiretype == _wire.LENGTH_DELIMITED:
            proto.content = value
        else:
            proto.values.setdefault(field, []).append((wiretype, value))
    return proto


# value field and how its items are stored, per dtype: (field, struct code or 'varint')
_VALUE_FIELDS = {"float32": (_FLOAT, "f"), "float64": (_DOUBLE, "d"), "int32": (_INT, "v"),
                 "int16": (_INT, "v"), "int8": (_INT, "v"), "uint8": (_INT, "v"),
                 "uint16": (_INT, "v"), "int64": (_INT64, "v"), "bool": (_BOOL, "v"),
                 "uint32": (_UINT32, "v"), "uint64": (_UINT64, "v"), "float16": (_HALF, "v"),
                 "bfloat16": (_HALF, "v"), "complex64": (_SCOMPLEX, "f"),
                 "complex128": (_DCOMPLEX, "d"), "string": (_STRING, "b")}


def _field_values(entries: list, code: str) -> list:
    """The items of a repeated field, packed or not."""
    items: list = []
    for wiretype, value in entries:
        if code == "b":
            items.append(value)
        elif code == "v":
            items.extend([value] if wiretype == _wire.VARINT else _wire.unpack_varints(value))
        else:
            items.extend(struct.unpack(f"<{len(value) // struct.calcsize(code)}{code}", value))
    return items


def _from_values(proto: _Proto, name: str, np_dtype: np.dtype, count: int) -> np.ndarray:
    field, code = _VALUE_FIELDS[name]
    items = _field_values(proto.values.get(field, []), code)
    if code == "v" and name in ("float16", "bfloat16"):
        items = np.array(items, np.uint16).view(np_dtype)
    elif name.startswith("complex"):
        items = np.array(items[0::2]) + 1j * np.array(items[1::2]) if items else []
    elif code == "v":
        bits = np.array(items, np.uint64)
        items = bits.astype(np.int64).astype(np_dtype) if name != "bool" else bits != 0
    out = np.zeros(count, np_dtype) if name != "string" else np.full(count, b"", object)
    n = min(len(items), count)
    if n:
        out[:n] = items[:n]
        out[n:] = items[n - 1]   # TF repeats the last value to fill the tensor
    return out


def _text_format(proto: _Proto) -> str:
    """The start of the proto's text format, as TF quotes it in a parse error."""
    lines = []
    if proto.dtype:
        lines.append(f"dtype: DT_{tf_type_name(_BY_ENUM.get(proto.dtype, '?')).upper()}")
    if proto.dims:
        lines.append("tensor_shape {")
        for d in proto.dims:
            lines += ["  dim {", f"    size: {d}", "  }"] if d else ["  dim {", "  }"]
        lines.append("}")
    if proto.content:
        lines.append(f'tensor_content: "{_c_escape(proto.content)}"')
    return "".join(line + "\n" for line in lines)


def _c_escape(data: bytes) -> str:
    special = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(special.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                   for b in data)


def _parse_impl(serialized: np.ndarray, out_type: str) -> np.ndarray:
    if serialized.ndim != 0:
        raise InvalidArgumentError(f"Expected `serialized` to be a scalar, got shape: "
                                   f"{dims_text(serialized.shape)} [Op:ParseTensor]")
    data = serialized[()]
    try:
        proto = _read_proto(data)
    except _wire.WireError:
        text = base64.b64encode(data).decode("ascii")
        raise InvalidArgumentError(f"Could not parse `serialized` as TensorProto, base64: "
                                   f"{text} [Op:ParseTensor]") from None
    name = _BY_ENUM.get(proto.dtype)
    count = int(np.prod(proto.dims)) if proto.dims else 1
    if name is None or proto.unknown_rank or any(d < 0 for d in proto.dims) or (
            proto.content and name != "string"
            and len(proto.content) != count * _dtypes.as_dtype(name).size):
        raise InvalidArgumentError(f"Cannot parse tensor from proto: goo.gle/debugproto  \n"
                                   f"{_text_format(proto)} [Op:ParseTensor]")
    if name != out_type:
        raise InvalidArgumentError(f"Type mismatch between parsed tensor ({tf_type_name(name)}) "
                                   f"and dtype ({tf_type_name(out_type)}) [Op:ParseTensor]")
    np_dtype = _dtypes.as_dtype(name).as_numpy_dtype
    np_dtype = _OBJECT if name == "string" else np.dtype(np_dtype)
    if proto.content and name != "string":
        flat = np.frombuffer(proto.content, np_dtype.newbyteorder("<")).astype(np_dtype)
    else:
        flat = _from_values(proto, name, np_dtype, count)
    return flat.reshape(proto.dims)


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
