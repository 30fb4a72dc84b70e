"""Data types shaped like TensorFlow's `tf.dtypes`, each backed by a NumPy dtype."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tapeflow.framework.exports import tf_export


class DType:
    """A tensor element type: `tf.float32`, `tf.int32`, `tf.bool`, ..."""

    __slots__ = ("name", "as_numpy_dtype", "_np", "is_floating", "is_integer", "is_complex",
                 "is_bool", "is_unsigned", "is_differentiable")

    def __init__(self, name: str, numpy_type: Any) -> None:
        self.name = name
        self.as_numpy_dtype = numpy_type
        self._np = np.dtype(numpy_type)
        kind = self._np.kind
        self.is_floating = kind == "f"
        self.is_complex = kind == "c"
        self.is_integer = kind in "iu"
        self.is_unsigned = kind == "u"
        self.is_bool = kind == "b"
        # Only these carry gradients; integer and boolean values never do.
        self.is_differentiable = kind in "fc"

    @property
    def base_dtype(self) -> "DType":
        """This DType itself: TF1's non-reference dtype (there are no reference dtypes)."""
        return self

    @property
    def real_dtype(self) -> "DType":
        """The dtype of the real part: float32/float64 for complex64/128, else self."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_numpy_compatible(self) -> bool:
        """Whether this dtype has a matching NumPy dtype (every dtype here, `string`'s being
        NumPy's object dtype, as TF 2.21 answers)."""
        return True

    @property
    def size(self) -> int:
        """The number of bytes one element of this dtype occupies (0 for `string`, as TF)."""
        return 0 if self.name == "string" else self._np.itemsize

    @property
    def as_datatype_enum(self) -> int:
        """TensorFlow's `DataType` enum value of this dtype (types.proto)."""
        return _ENUMS[self.name]

    @property
    def min(self):
        """The minimum representable value of this numeric dtype."""
        self._check_limits("minimum")
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        """The maximum representable value of this numeric dtype."""
        self._check_limits("maximum")
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def _check_limits(self, which: str) -> None:
        if self.name == "string":  # TF's error: only numeric dtypes have limits
            raise TypeError(f"Cannot find {which} value of {self} with type {self}.")

    def is_compatible_with(self, other: Any) -> bool:
        """True if `other` (a DType or a name like 'float32') is this dtype (TF1)."""
        return self == other

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other: Any) -> bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # noqa: A001 - TensorFlow's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# NumPy's object dtype holding Python bytes; its `as_numpy_dtype` is Python's `object`, as TF.
string = DType("string", object)


class _LazyNumpyDType(DType):
    """A DType whose NumPy type lives in a package imported on first use: `bfloat16`'s is
    ml_dtypes' (as TF's own), whose import costs ~5x NumPy's, so `import tapeflow` skips it."""

    __slots__ = ("_module", "_attr", "_loaded")

    def __init__(self, name: str, module: str, attr: str) -> None:
        self.name, self._module, self._attr, self._loaded = name, module, attr, None
        self.is_floating, self.is_complex, self.is_integer = True, False, False
        self.is_unsigned = self.is_bool = False
        self.is_differentiable = True

    @property
    def as_numpy_dtype(self) -> Any:  # type: ignore[override]
        """The NumPy scalar type (ml_dtypes.bfloat16), imported now if it was not yet."""
        return self._np.type

    @property
    def _np(self) -> np.dtype:  # type: ignore[override]
        if self._loaded is None:
            import importlib
            self._loaded = np.dtype(getattr(importlib.import_module(self._module), self._attr))
            _BY_NUMPY[self._loaded] = self
        return self._loaded


# TF's brain floating point: float32's exponent, 8 bits of mantissa. Declared to the package
# as the ops are (the dtypes above are imported by name in tapeflow/__init__.py).
bfloat16 = tf_export("bfloat16")(_LazyNumpyDType("bfloat16", "ml_dtypes", "bfloat16"))

# TensorFlow's DataType enum (tensorflow/core/framework/types.proto).
_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
          "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17,
          "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        bool, complex64, complex128)
_BY_NAME = {d.name: d for d in _ALL + (string, bfloat16)}
_BY_NAME.update(half=float16, double=float64)
# NumPy dtype -> DType; the hot path (Tensor.dtype) is one dict lookup.
_BY_NUMPY = {d._np: d for d in _ALL}
_BY_NUMPY[np.dtype(np.str_)] = string
_BY_NUMPY[np.dtype(np.bytes_)] = string
_BY_NUMPY[np.dtype(np.object_)] = string
_BY_PYTHON = {float: float32, int: int32, builtins.bool: bool, complex: complex128, str: string}


def kind_of(np_dtype: np.dtype) -> str:
    """NumPy's kind letter of a dtype, with ml_dtypes' floats ('V' to NumPy) as 'f'; for the
    conversion paths, not per op."""
    kind = np_dtype.kind
    return "f" if kind == "V" and np_dtype.name == "bfloat16" else kind


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType of a NumPy dtype; string kinds map to `tf.string`."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        kind = np.dtype(np_dtype).kind
        if kind in "USO":
            return string
        if np.dtype(np_dtype).name == "bfloat16" and np_dtype == bfloat16._np:
            return bfloat16  # registered now: the next lookup is the dict's
        raise TypeError(f"Cannot convert NumPy dtype {np_dtype} to a tapeflow dtype.") from None


def as_dtype(type_value: Any) -> DType:
    """Converts a DType, a name ('float32'), a NumPy dtype or a Python type into a DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if type_value in _BY_PYTHON:
        return _BY_PYTHON[type_value]
    try:
        return from_numpy(np.dtype(type_value))
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None


__all__ = ["DType", "as_dtype", "float16", "half", "float32", "float64", "double", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
           "complex128", "string", "bfloat16"]
