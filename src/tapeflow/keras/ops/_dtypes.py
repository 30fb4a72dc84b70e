"""Keras 3's dtype promotion (`keras.backend.result_type`, JAX-like, not NumPy's) and the
input conversion Keras's TensorFlow backend does before every op.

Keras promotes on a lattice where Python `int`/`float` scalars are *weak* (they take the
other operand's kind and width: `int32 tensor + 1.5` is float32, not float64), mixed
int/float gives the float (`int32 + float32` is float32), and 64-bit results are narrowed as
JAX does except int64 and float64 (the TensorFlow backend keeps those; uint64 becomes uint32
and complex128 complex64).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np

from tapeflow.framework.dtypes import DType
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras.utils import standardize_dtype
from tapeflow.ops import math_ops

INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
COMPLEX_TYPES = ("complex64", "complex128")
FLOAT8_TYPES = ("float8_e4m3fn", "float8_e5m2")
_WEAK = ("int", "float")

# Each dtype's immediate successors on Keras's promotion lattice (keras/src/backend/common/
# dtypes.py, adapted from JAX's).
_LATTICE = {
    "bool": ["int"], "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": ["float"], "int": ["uint8", "int8", "complex64"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["float"],
    "float": ["bfloat16", "float16"], "bfloat16": ["float32"], "float16": ["float32"],
    "float32": ["float64", "complex64"], "float64": ["complex128"],
    "complex64": ["complex128"], "complex128": [],
}
# The TensorFlow backend keeps int64 and float64 (JAX would narrow them too).
_NARROWED = {"uint64": "uint32", "complex128": "complex64"}


def _upper_bounds() -> dict:
    bounds = {node: {node} for node in _LATTICE}
    for node in _LATTICE:
        while True:
            grown = bounds[node].union(*(_LATTICE[b] for b in bounds[node]))
            if grown == bounds[node]:
                break
            bounds[node] = grown
    return bounds


_UPPER = _upper_bounds()


@functools.lru_cache(512)
def _least_upper_bound(*nodes: str) -> str:
    nodes_set = set(nodes)
    for node in nodes_set:
        if node not in _UPPER:
            raise ValueError(f"dtype='{node}' is not a valid dtype for Keras type promotion.")
    common = set.intersection(*(_UPPER[n] for n in nodes_set))
    least = (common & nodes_set) or {c for c in common if common.issubset(_UPPER[c])}
    if len(least) != 1:
        raise ValueError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype "
            "promotion path. Try explicitly casting inputs to the desired output type.")
    return least.pop()


def _weak_name(dtype: str) -> str:
    # The weak counterpart of a Python scalar's dtype (bool stays strong).
    if dtype == "bool":
        return dtype
    return "float" if "float" in dtype else "int" if "int" in dtype else "complex"


def _resolve_weak(dtype: str) -> str:
    # A weak result takes floatx's width ('int' + floatx float32 is int32, as Keras).
    from tapeflow.keras.backend import floatx
    precision = floatx()[-2:]
    kind = "f" if dtype == "bfloat16" else dtype[:1]
    if kind == "b":
        return "bool"
    return {"i": "int", "u": "uint"}.get(kind, "float") + precision


def _dtype_and_weak(value: Any) -> tuple:
    return standardize_dtype(value), (value is int or value is float)


def _lattice_result_type(*args: Any) -> str:
    names, weak = zip(*(_dtype_and_weak(a) for a in args))
    if len(names) == 1:
        out, out_weak = names[0], weak[0]
    elif len(set(names)) == 1 and not all(weak):
        out, out_weak = names[0], False
    elif all(weak):
        out, out_weak = _least_upper_bound(*set(names)), True
    else:
        out = _least_upper_bound(*{_weak_name(n) if w else n for n, w in zip(names, weak)})
        out_weak = out in _WEAK
    if out != "bool" and out_weak:
        out = _resolve_weak(out)
    return _NARROWED.get(out, out)


def result_type(*dtypes_or_values: Any) -> str:
    """`keras.backend.result_type`: the dtype (a string) Keras's promotion gives these
    operands. Each is a dtype, Python's `int`/`float` (weak), None (floatx), or a value:
    a tensor, array or list is read as its dtype after conversion, a Python int or float
    scalar as a weak `int`/`float`."""
    from tapeflow.keras.backend import floatx
    if not dtypes_or_values:
        return floatx()
    dtypes = [floatx() if d is None else operand_dtype(d) for d in dtypes_or_values]
    for d in dtypes:
        if d in FLOAT8_TYPES:
            raise ValueError("There is no implicit conversions from float8 dtypes to "
                             f"others. You must cast it internally. Received: {tuple(dtypes)}")
    return _lattice_result_type(*dtypes)


def _is_dtype(value: Any) -> bool:
    # A dtype rather than a value: a name, a NumPy/Python type, a NumPy or tapeflow dtype.
    return isinstance(value, (str, type, np.dtype, DType))


def operand_dtype(x: Any) -> Any:
    """What Keras's TensorFlow backend promotes `x` as (`getattr(x, 'dtype', type(x))`
    after converting non-scalars): Python int/float stay the weak types `int`/`float`."""
    if _is_dtype(x):
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return type(x)
    if isinstance(x, TensorLike) or hasattr(x, "dtype"):
        return standardize_dtype(x.dtype)
    return standardize_dtype(convert_to_tensor(x).dtype)


def is_python_scalar(x: Any) -> bool:
    """A Python int or float (not bool): a weak operand."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def convert(x: Any, dtype: Optional[Any] = None) -> Any:
    """Keras's TensorFlow-backend `convert_to_tensor`: `x` as a tensor, cast to `dtype` where
    given (Python values are converted first and then cast to bool/int dtypes, as Keras)."""
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if not isinstance(x, TensorLike):
        if dtype == "bool" or (dtype is not None and "int" in dtype):
            return math_ops.cast(convert_to_tensor(x), dtype)
        return convert_to_tensor(x, dtype=dtype)
    x = convert_to_tensor(x)
    if dtype is not None and standardize_dtype(x.dtype) != dtype:
        return math_ops.cast(x, dtype)
    return x


def convert_and_promote(*xs: Any, dtype: Optional[Any] = None) -> list:
    """The operands as tensors of one dtype: Keras's `result_type` over them (Python
    scalars weak), plus `dtype` where given (e.g. `float` to make ints float)."""
    xs = [x if is_python_scalar(x) else convert(x) for x in xs]
    extra = () if dtype is None else (dtype,)
    out = result_type(*(operand_dtype(x) for x in xs), *extra)
    return [convert(x, out) for x in xs]


def float_dtype(x: Any) -> str:
    """The float dtype Keras computes a float-only op of `x` in: `x`'s own if float, else
    `result_type(x.dtype, float)` (int32/bool -> float32, int64 -> float32 via floatx)."""
    name = standardize_dtype(x.dtype)
    if name in FLOAT_TYPES or name in COMPLEX_TYPES:
        return name
    return result_type(name, float)


__all__ = ["convert", "convert_and_promote", "float_dtype", "is_python_scalar",
           "operand_dtype", "result_type"]
