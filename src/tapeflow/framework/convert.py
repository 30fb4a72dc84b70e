"""Turning Python and NumPy values into tensors with TensorFlow's dtype rules.

Python floats become float32, Python ints int32 (int64 when they do not fit), bools bool;
NumPy arrays keep their dtype. A `dtype_hint` (what a binary op gives a Python operand) is used
when the value fits it losslessly, and ignored otherwise.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context, run_kernel
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike, wrap

_INT32 = np.iinfo(np.int32)
_conversion_functions: list = []  # (type, fn) pairs from register_tensor_conversion_function


def register_tensor_conversion_function(base_type: Any, conversion_func: Any,
                                        priority: int = 100) -> None:
    """Lets objects of `base_type` be passed wherever a tensor is expected."""
    _conversion_functions.append((base_type, conversion_func))


def _leaves(value: Any):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _leaf_kind(leaf: Any) -> str:
    """The class of a list element TensorFlow's sequence converter sees: 'S' text, 'b' a
    Python bool, 'B' a NumPy bool, 'i' an integer, 'f' a float, 'c' a complex, 'T' a
    tensor, '' anything else. NumPy arrays count as their elements."""
    if isinstance(leaf, bool):
        return "b"
    if isinstance(leaf, (np.generic, np.ndarray)):
        kind = _dtypes.kind_of(leaf.dtype)
        return {"b": "B", "u": "i", "U": "S"}.get(kind, kind if kind in "ifcS" else "")
    if isinstance(leaf, numbers.Integral):
        return "i"
    if isinstance(leaf, numbers.Real):
        return "f"
    if isinstance(leaf, numbers.Complex):
        return "c"
    return "S" if isinstance(leaf, (str, bytes)) else ""


# What TensorFlow's converter for the first element's class accepts in the rest of a list.
_ACCEPTS = {"S": "S", "b": "bB", "B": "bB", "i": "ibf", "f": "ibf", "c": "ibfc"}
_FIRST_FLOATS = {np.dtype(np.float64): np.dtype(np.float64),
                 np.dtype(np.float16): np.dtype(np.float16)}
_INT64 = np.iinfo(np.int64)
_FLOAT32 = np.dtype(np.float32)
# The least magnitudes that round to inf (2**128 - 2**103, 2**16 - 2**4): TF refuses a
# finite Python float beyond them where it infers the dtype.
_OVERFLOW = {_FLOAT32: 3.4028235677973366e38, np.dtype(np.float16): 65520.0}
_F32_LIMIT = _OVERFLOW[_FLOAT32]
_OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
_DOUBLE_RANGE = ("Can't convert Python sequence with a value out of range for a "
                 "double-precision float.")
_MIXED = "Can't convert Python sequence with mixed types to Tensor."


def _python_default_dtype(value: Any) -> np.dtype:
    """TensorFlow's inferred dtype for a Python scalar or nested list (its converters in
    py_seq_tensor.cc): the first element decides the class (a NumPy float64 or float16
    keeps its dtype, other floats give float32, integers int32 or int64 by range, and
    float32 once a float comes before an integer beyond int64); an element of another
    class raises TensorFlow's ValueError, as does a finite float that overflows the float
    dtype (1e40 as float32), both at the first element in the list's order."""
    leaves = list(_leaves(value))
    if not leaves:
        return np.dtype(np.float32)  # empty list: TensorFlow gives float32
    first = leaves[0]
    kind = _leaf_kind(first)
    if not kind:
        raise ValueError(f"{_UNSUPPORTED} ({first!r}) with an unsupported type "
                         f"({type(first)}) to a Tensor.")
    if kind == "i":
        dtype = _integer_list_dtype(leaves)
        if dtype is not None:
            return dtype
        kind = "f"  # a float came first: TF's integer converters hand the list to the float one
    accepts = _ACCEPTS[kind]
    if kind == "f":
        target = _FIRST_FLOATS.get(getattr(first, "dtype", None), _FLOAT32)
        limit = _OVERFLOW.get(target)
        for leaf in leaves:
            leaf_kind = _leaf_kind(leaf)
            if not leaf_kind or leaf_kind not in accepts:
                raise ValueError(_MIXED)
            if (leaf_kind == "f" and limit is not None and _overflows(leaf, limit)) or \
                    (leaf_kind == "i" and not _fits_double(leaf)):
                raise ValueError(_DOUBLE_RANGE)
        return target
    for leaf in leaves:
        leaf_kind = _leaf_kind(leaf)
        if not leaf_kind or leaf_kind not in accepts:
            raise ValueError(_MIXED)
        if leaf_kind == "i" and not isinstance(leaf, (np.generic, np.ndarray)) and \
                not _INT64.min <= leaf <= _INT64.max:
            raise ValueError(_OUT_OF_RANGE)
    if kind == "S":
        return np.dtype(object)
    if kind in "bB":
        return np.dtype(np.bool_)
    return np.dtype(np.complex128)


def _integer_list_dtype(leaves: list) -> Optional[np.dtype]:
    """int32 or int64 for a list whose first element is an integer, by range; None where a
    float comes before any integer beyond int64 (the list is then a float list)."""
    big = False
    for leaf in leaves:
        leaf_kind = _leaf_kind(leaf)
        if not leaf_kind or leaf_kind not in "ibf":
            raise ValueError(_MIXED)
        if leaf_kind == "f":
            return None
        if leaf_kind != "i":
            continue
        if not isinstance(leaf, (np.generic, np.ndarray)):
            if not _INT32.min <= leaf <= _INT32.max:
                if not _INT64.min <= leaf <= _INT64.max:
                    raise ValueError(_OUT_OF_RANGE)
                big = True
        elif leaf.dtype.itemsize >= 4 and leaf.size:
            big = big or not (_INT32.min <= leaf.min() and leaf.max() <= _INT32.max)
    return np.dtype(np.int64 if big else np.int32)


def _overflows(leaf: Any, limit: float) -> bool:
    """Whether a float element is finite but rounds to inf in a dtype whose overflow
    threshold is `limit` (TF's CheckForOverflow; inf and NaN themselves convert)."""
    if isinstance(leaf, np.ndarray):
        magnitude = np.abs(leaf.real.astype(np.float64))
        return bool(np.any((magnitude >= limit) & np.isfinite(magnitude)))
    return limit <= abs(float(leaf)) < math.inf


def _fits_double(leaf: Any) -> bool:
    """Whether a Python integer converts to a double (PyLong_AsDouble: below 2**1024)."""
    if type(leaf) is not int:
        return True
    try:
        float(leaf)
    except OverflowError:
        return False
    return True


# TensorFlow's ValueError for a value of a type it cannot convert; it passes through the
# non-rectangular-sequence handler below unchanged.
_UNSUPPORTED = "Attempt to convert a value"


def _fits(array: np.ndarray, target: np.dtype, value: Any, native: bool) -> bool:
    """Whether a value may convert to `target` (TensorFlow's rule): NumPy values cast
    between any numeric types; Python values only where no meaning is lost in kind (a
    Python float never becomes an integer, nor a number a bool), and Python bools only to
    the dtypes whose TF converter reads them as numbers (TF refuses to cast a bool list)."""
    src, dst = _dtypes.kind_of(array.dtype), _dtypes.kind_of(target)
    if src == dst or array.size == 0:
        return True
    if not native:
        return src in "biufc" and dst in "biufc"
    if src == "b":
        return target in _BOOL_TARGETS and not any(
            isinstance(leaf, np.bool_) for leaf in _leaves(value))
    if dst in "fc":
        return src in "iuf" or (src == "c" and dst == "c")
    if dst in "iu":
        return src in "iu"
    return False


_BOOL_TARGETS = frozenset(np.dtype(t) for t in (np.int32, np.int64, np.uint64, np.float16,
                                                np.float32, np.float64, np.complex128))


def _as_array(value: Any, dtype: Optional[np.dtype]) -> np.ndarray:
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if array.dtype.kind in "USO" and (dtype is None or dtype.kind == "O"):
            array = numpy_strings(array)
    else:   # (a list holding tensors never gets here: `constant_value` packs it)
        try:
            default = _python_default_dtype(value)
        except ValueError as exc:
            default = _requested_default(value, dtype, str(exc))
        array = quiet_array(value, default)
        if array.dtype == object:
            # TensorFlow strings are bytes: str values are stored UTF-8 encoded.
            array = np.vectorize(_as_bytes, otypes=[object])(array) if array.size else array
    if dtype is not None and array.dtype != dtype:
        native = not isinstance(value, (np.ndarray, np.generic))
        if not _fits(array, dtype, value, native):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                            f"{cpp_name(_dtypes.from_numpy(dtype))}")
        if native and dtype == np.uint64 and array.dtype.kind == "i":
            _check_unsigned(value)
        if native and _dtypes.kind_of(dtype) in "fc":
            # From the Python value itself: tf.constant(0.1, tf.float64) (or complex128)
            # is the nearest 0.1, not a widened float32.
            array = quiet_array(value, dtype)
        else:
            # NumPy's cast wraps out-of-range integers, as TensorFlow's does.
            array = run_kernel(array.astype, dtype)
    if isinstance(value, np.ndarray) and np.may_share_memory(array, value):
        # The caller's array, unconverted: the tensor takes a copy (as TF's), so that the
        # caller's later writes into its buffer never change the tensor.
        array = array.copy()
    return array


def quiet_array(value: Any, dtype: np.dtype) -> np.ndarray:
    """np.array(value, dtype) without NumPy's overflow warning (1e40 to float32 is inf,
    silently, as in TensorFlow)."""
    return run_kernel(np.array, value, dtype)


def _check_unsigned(value: Any) -> None:
    """TF's uint64 converter fails on a negative Python int, and its C code then returns
    with the OverflowError set: Python raises SystemError (TF 2.21's answer, kept: never a
    silently wrapped number)."""
    if any(type(leaf) is int and leaf < 0 for leaf in _leaves(value)):
        raise SystemError("<class 'tensorflow.python.framework.ops.EagerTensor'> returned a "
                          "result with an exception set") from OverflowError(
                              "can't convert negative int to unsigned")


def _requested_default(value: Any, dtype: Optional[np.dtype], error: str) -> np.dtype:
    """Where a requested dtype lets TensorFlow convert a list its inference refuses: its
    own converter for the dtype (float, complex128, uint64), or else a double list cast to
    it (a float beyond float32 then becomes inf), or ints and bools cast to an int dtype."""
    if dtype is not None:
        leaves = list(_leaves(value))
        kinds = {_leaf_kind(leaf) for leaf in leaves}
        if _direct_converts(leaves, kinds, dtype):
            return dtype
        if error == _OUT_OF_RANGE and dtype == np.uint64:
            return dtype
        if error == _DOUBLE_RANGE:  # TF's double converter, then a cast
            if not kinds <= _REALS:
                raise ValueError(_MIXED)
            if all(map(_fits_double, leaves)):
                return np.dtype(np.float64)
        if error == _MIXED and kinds <= set("bBi") and dtype in _BOOL_TARGETS:
            return dtype  # TF's int32/int64/uint64 converters take bools among the ints
    raise ValueError(error)


_REALS = frozenset("bBif")
# Requested dtypes with a TF converter of their own, and the element classes it takes:
# integers as doubles (2**63 as float32), floats that overflow float16/float32 refused.
_DIRECT = {np.dtype(np.float16): _REALS, _FLOAT32: _REALS, np.dtype(np.float64): _REALS,
           np.dtype(np.complex128): _REALS | {"c"}}


def _direct_converts(leaves: list, kinds: set, dtype: np.dtype) -> bool:
    """Whether TF's converter for the requested `dtype` takes every element."""
    accepts = _DIRECT.get(dtype)
    if accepts is None or not kinds <= accepts or not all(map(_fits_double, leaves)):
        return False
    limit = _OVERFLOW.get(dtype)
    return limit is None or not any(_leaf_kind(leaf) == "f" and _overflows(leaf, limit)
                                    for leaf in leaves)


def _as_bytes(item: Any) -> Any:
    return item.encode("utf-8") if isinstance(item, str) else item


_OBJECT_ARRAY = "Failed to convert a NumPy array to a Tensor"


def numpy_strings(array: np.ndarray) -> np.ndarray:
    """A NumPy array of text (`str_`, `bytes_` or objects) as `tf.string` holds it: an object
    array of bytes, str encoded UTF-8 (TF's `.numpy()` gives the same). An object array
    holding anything else raises TF's ValueError."""
    items = array.ravel().tolist()
    for item in items:
        if not isinstance(item, (bytes, str)):
            raise ValueError(f"{_OBJECT_ARRAY} (Unsupported object type "
                             f"{type(item).__name__}).")
    out = np.empty(len(items), dtype=object)
    out[:] = [_as_bytes(item) for item in items]
    return out.reshape(array.shape)


def _packed_dtype(value: Any, tensors: list) -> np.dtype:
    """The dtype of a list packing tensors: the first tensor's, which the other tensors
    must share (TF's Pack error) and the Python numbers must fit (TF's TypeError)."""
    dtype = tensors[0]._value.dtype
    for index, t in enumerate(tensors):
        if t._value.dtype != dtype:
            raise InvalidArgumentError(
                f"cannot compute Pack as input #{index}(zero-based) was expected to be a "
                f"{cpp_name(tensors[0].dtype)} tensor but is a {cpp_name(t.dtype)} tensor "
                f"[Op:Pack]")
    numbers_ok = {"f": "bif", "c": "bifc", "i": "bi", "u": "bi", "b": "b"}.get(dtype.kind, "")
    for leaf in _leaves(value):
        if not isinstance(leaf, TensorLike) and _leaf_kind(leaf) not in numbers_ok:
            raise TypeError(f"Cannot convert {leaf!r} to EagerTensor of dtype "
                            f"{cpp_name(tensors[0].dtype)}")
    return dtype


# Set by tapeflow.ops.array_ops: `autopack(value, dtype)` packs a nested list that holds
# tensors with stack ops (TF's autopacking). Reading the tensors' values instead would bake a
# traced tensor's example into the graph and cut a watched tensor's gradient.
hooks: dict = {"autopack": None}


def constant_value(value: Any, dtype: Any = None, dtype_hint: Any = None) -> Tensor:
    """A Tensor from a Python or NumPy value (not a Tensor or Variable)."""
    for base_type, func in _conversion_functions:
        if isinstance(value, base_type):
            return func(value, dtype=dtype)
    if isinstance(value, (list, tuple)):
        tensors = [leaf for leaf in _leaves(value) if isinstance(leaf, TensorLike)]
        if tensors:
            packed = _packed_dtype(value, tensors) if dtype is None else dtype
            return hooks["autopack"](value, packed)
    if type(value) is float and dtype_hint is None:  # the commonest value: a Python float
        if dtype is None:
            if not -_F32_LIMIT < value < _F32_LIMIT and value - value == 0:
                raise ValueError(_DOUBLE_RANGE)  # finite, but inf as float32
            return wrap(np.array(value, dtype=_FLOAT32))
        target = _dtypes.as_dtype(dtype)._np
        if target.kind == "f":
            return wrap(quiet_array(value, target))  # from the Python value, as _as_array
    if hasattr(value, "__tf_tensor__"):
        return value.__tf_tensor__(dtype, None)
    target = None if dtype is None else _dtypes.as_dtype(dtype)._np
    if target is None and dtype_hint is not None:
        hint = _dtypes.as_dtype(dtype_hint)._np
        try:
            return wrap(_as_array(value, hint))
        except (TypeError, ValueError):
            pass
    try:
        return wrap(_as_array(value, target))
    except ValueError as exc:
        if str(exc).startswith((_UNSUPPORTED, _OUT_OF_RANGE, _MIXED, _DOUBLE_RANGE,
                                _OBJECT_ARRAY)):
            raise
        # Ragged nested lists and the like.
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


def check_dtype(tensor: Tensor, dtype: Any) -> Tensor:
    """Raises as TensorFlow does when a tensor is asked to be of another dtype."""
    if dtype is not None and tensor.dtype != _dtypes.as_dtype(dtype):
        raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for "
                         f"Tensor with dtype {tensor.dtype.name}: {tensor!r}")
    return tensor


def cpp_name(dtype: _dtypes.DType) -> str:
    """The dtype's name as TensorFlow's C++ kernels write it in errors (`float`, `double`)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                             dtype.name)


def enum_name(dtype: _dtypes.DType) -> str:
    """The dtype's DataType enum name, as TensorFlow's NodeDefs show it (`DT_FLOAT`)."""
    return "DT_" + cpp_name(dtype).upper()


# TF's op-def input names, where they are not (x, y): what its graph-mode dtype errors name.
_INPUT_NAMES = {
    "MatMul": ("a", "b"), "Cross": ("a", "b"), "Atan2": ("y", "x"), "NextAfter": ("x1", "x2"),
    "SelectV2": ("condition", "t", "e"), "Polygamma": ("a", "x"), "Igamma": ("a", "x"),
    "Igammac": ("a", "x"), "Zeta": ("x", "q"), "Complex": ("real", "imag"),
    "MatrixSolve": ("matrix", "rhs"), "MatrixTriangularSolve": ("matrix", "rhs"),
    "BandedTriangularSolve": ("matrix", "rhs"), "TridiagonalSolve": ("diagonals", "rhs"),
    "TridiagonalMatMul": ("superdiag", "maindiag", "subdiag", "rhs"),
    "Conv2D": ("input", "filter"), "Conv3D": ("input", "filter"),
    "DepthwiseConv2dNative": ("input", "filter"), "BroadcastArgs": ("s0", "s1"),
    "Substr": ("input", "pos", "len"), "InTopKV2": ("predictions", "targets", "k"),
    "SparseToDense": ("sparse_indices", "output_shape", "sparse_values", "default_value"),
    "TensorScatterUpdate": ("tensor", "indices", "updates"),
    "TensorScatterAdd": ("tensor", "indices", "updates"),
    "TensorScatterSub": ("tensor", "indices", "updates"),
    "TensorScatterMax": ("tensor", "indices", "updates"),
    "TensorScatterMin": ("tensor", "indices", "updates"),
}
# Where the input a mismatch is reported against is not the op's first input.
_FIRST_OF_TYPE = {"SelectV2": "t", "Substr": "pos", "InTopKV2": "targets",
                  "SparseToDense": "sparse_values"}
# List inputs: TF names the list and every dtype in it.
_LIST_INPUTS = {"Pack": "values", "ConcatV2": "values", "AddN": "inputs", "Einsum": "inputs"}


def mismatch_error(op_name: str, index: int, expected: _dtypes.DType, got: _dtypes.DType,
                   fixed: bool = False, list_dtypes: Optional[list] = None) -> Exception:
    """TensorFlow's error when an op's operands disagree in dtype (`fixed`: the op takes only
    `expected` at that input): the kernel's InvalidArgumentError eagerly; while tracing, the
    TypeError TF's op builder raises as it adds the op to the graph (`list_dtypes`: the
    dtypes of a list input, which it names)."""
    if context.graph is not None:
        return _graph_mismatch(op_name, index, expected, got, fixed, list_dtypes)
    kind = cpp_name
    return InvalidArgumentError(
        f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
        f"{kind(expected)} tensor but is a {kind(got)} tensor [Op:{op_name}]")


def is_dtype_mismatch(error: BaseException) -> bool:
    """Whether `error` is the TypeError `mismatch_error` made while tracing (op wrappers tell
    it from conversion errors by this; its class stays TF's plain TypeError)."""
    return getattr(error, "_dtype_mismatch", False)


def _graph_mismatch(op_name: str, index: int, expected: _dtypes.DType, got: _dtypes.DType,
                    fixed: bool, list_dtypes: Optional[list]) -> TypeError:
    error = TypeError(_graph_mismatch_text(op_name, index, expected, got, fixed, list_dtypes))
    error._dtype_mismatch = True   # type: ignore[attr-defined]
    return error


def _graph_mismatch_text(op_name: str, index: int, expected: _dtypes.DType,
                         got: _dtypes.DType, fixed: bool, list_dtypes: Optional[list]) -> str:
    if op_name in _LIST_INPUTS:
        names = ", ".join(_dtypes.as_dtype(d).name for d in list_dtypes or (expected, got))
        return (f"Tensors in list passed to '{_LIST_INPUTS[op_name]}' of '{op_name}' Op have "
                f"types [{names}] that don't all match.")
    inputs = _INPUT_NAMES.get(op_name, ("x", "y"))
    name = inputs[min(index, len(inputs) - 1)]
    if fixed:
        return (f"Input '{name}' of '{op_name}' Op has type {got.name} that does not match "
                f"expected type of {expected.name}.")
    return (f"Input '{name}' of '{op_name}' Op has type {got.name} that does not match type "
            f"{expected.name} of argument '{_FIRST_OF_TYPE.get(op_name, inputs[0])}'.")


__all__ = ["constant_value", "check_dtype", "mismatch_error", "is_dtype_mismatch",
           "cpp_name", "enum_name",
           "register_tensor_conversion_function", "hooks"]
