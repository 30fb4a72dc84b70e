"""tnp's dtype names and NumPy-style type inference, as TF's `np_dtypes`/`np_utils`.

TF's tnp infers dtypes with `np.result_type` over the operands' dtypes (Python scalars stay
weak, as NumPy 2's rules), reading Python floats as float32 when
`experimental_enable_numpy_behavior(prefer_float32=True)` was called.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import TensorLike

# The scalar types tnp exports: NumPy's own, as TF's.
bool_ = np.bool_
complex64, complex128, complex_ = np.complex64, np.complex128, np.complex128
float16, float32, float64, float_ = np.float16, np.float32, np.float64, np.float64
inexact = np.inexact
int_, int8, int16, int32, int64 = np.int_, np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
object_, string_, unicode_ = np.object_, np.bytes_, np.str_
iinfo, finfo, issubdtype = np.iinfo, np.finfo, np.issubdtype

_state = {"prefer_float32": False}


def is_prefer_float32() -> bool:
    """Whether Python floats are read as float32 (`prefer_float32=True`)."""
    return _state["prefer_float32"]


def set_prefer_float32(value: bool) -> None:
    _state["prefer_float32"] = bool(value)


def default_float_type() -> type:
    """float64, or float32 under `prefer_float32`."""
    return np.float32 if _state["prefer_float32"] else np.float64


def to_numpy_dtype(dtype: Any) -> np.dtype:
    """A NumPy dtype from a tapeflow DType, a NumPy type or a Python type."""
    if isinstance(dtype, _dtypes.DType):
        return dtype._np
    return np.dtype(dtype)


def _operand_type(x: Any) -> Any:
    # What np.result_type should see: a tensor's dtype, not its values; Python scalars weak.
    if isinstance(x, TensorLike):
        return x._value.dtype
    if isinstance(x, _dtypes.DType):
        return x._np
    if isinstance(x, bool):
        return x
    if isinstance(x, float) and _state["prefer_float32"]:
        return np.float32
    if isinstance(x, complex) and _state["prefer_float32"]:
        return np.complex64
    if isinstance(x, (numbers.Number, np.ndarray, np.generic, np.dtype, type, str)):
        return x
    if hasattr(x, "dtype"):  # IndexedSlices and other dtype-carrying values
        return to_numpy_dtype(x.dtype)
    return x


def _flatten(values: Any, out: list) -> list:
    for v in values:
        if isinstance(v, (list, tuple)):
            _flatten(v, out)
        else:
            out.append(v)
    return out


def result_numpy_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The NumPy dtype tnp gives the result of an op over these operands."""
    items = [_operand_type(x) for x in _flatten(arrays_and_dtypes, [])]
    if not items:
        items = [np.asarray([])]
    return np.result_type(*items)


def result_type(*arrays_and_dtypes: Any) -> _dtypes.DType:
    """`tnp.result_type`: the tapeflow DType NumPy's promotion gives these operands."""
    return _dtypes.from_numpy(result_numpy_type(*arrays_and_dtypes))


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """`tnp.promote_types`: NumPy's `promote_types` of two dtypes (a NumPy dtype, as TF)."""
    return np.promote_types(to_numpy_dtype(type1), to_numpy_dtype(type2))
