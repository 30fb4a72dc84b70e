"""Elementwise arithmetic, comparisons, logic, `where`, `cast` and `matmul`, with their rules.

Each primitive sits beside its derivative rule; rules use the public functions of this
package (never raw NumPy), so backward passes are themselves differentiable.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import (Dims, ShapedArray, broadcast_dims, same_as_input,
                                        same_shape, shape_error)
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.convert import cpp_name, enum_name, is_dtype_mismatch, mismatch_error
from tapeflow.framework.errors import (InternalError, InvalidArgumentError, NotFoundError,
                                       UnimplementedError)
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.ragged_tensor import fallback as ragged_fallback
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import (binary_operands, convert_input, convert_to_tensor, is_bfloat16,
                                   require)

_FLOAT = "fc"            # NumPy dtype kinds: floating and complex
_NUMERIC = "fciu"
_SIGNED = "fci"          # TF's Neg, Sign, Pow: no unsigned integers
_REAL = "fiu"            # TF's Maximum, Less, FloorMod, ...: no complex
_ANY = "fciub"
_STRING = "O"            # tapeflow's string tensors hold bytes objects


# -- shape rules ---------------------------------------------------------------------------------

def _unequal_dims(shapes: tuple) -> tuple:
    """The first two known dims that cannot broadcast, scanning the aligned axes from the
    outermost, as TensorFlow's broadcasting shape function does."""
    rank = max(len(s) for s in shapes)
    for axis in range(rank):
        known = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]
        known = [d for d in known if d is not None and d != 1]
        for d in known[1:]:
            if d != known[0]:
                return known[0], d
    raise AssertionError("the shapes broadcast")


def _broadcast(op_name: str, avals: tuple, *shapes: Dims) -> Dims:
    """`broadcast_dims(*shapes)`, failing with TF's shape-function error, which names the op
    and the shapes of all its inputs (`avals`)."""
    try:
        return broadcast_dims(*shapes)
    except ValueError:
        a, b = _unequal_dims(shapes)
        raise shape_error(op_name, avals, f"Dimensions must be equal, but are {a} and {b}") \
            from None


def _broadcasting(op_name: str, dtype: Any = None):
    """The rule of the broadcasting op `op_name`: the broadcast shape, and `dtype` (the first
    input's if None)."""
    def rule(*avals: ShapedArray, **attrs: Any) -> ShapedArray:
        shape = _broadcast(op_name, avals, *(x.shape for x in avals))
        return ShapedArray(shape, avals[0].dtype if dtype is None else dtype)
    return rule


def _real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of a complex dtype's parts (Abs, Real, Imag); other dtypes stay."""
    return np.finfo(dtype).dtype if dtype.kind == "c" else dtype


_BOOL_SAME = same_shape(np.bool_)


def _with_dtype_attr(x: ShapedArray, dtype: Any) -> ShapedArray:
    """Cast, ZerosLike, OnesLike: the input's shape, in the `dtype` attribute."""
    return ShapedArray(x.shape, dtype)


def _select_rule(c: ShapedArray, x: ShapedArray, y: ShapedArray) -> ShapedArray:
    # TF broadcasts the branches first, then the condition against them.
    avals = (c, x, y)
    branches = _broadcast("SelectV2", avals, x.shape, y.shape)
    return ShapedArray(_broadcast("SelectV2", avals, c.shape, branches), x.dtype)


def _where_rule(c: ShapedArray) -> ShapedArray:
    # One row per true element: a count known only at run time.
    return ShapedArray((None, c.ndim), np.int64)


def _matmul_rule(a: ShapedArray, b: ShapedArray, transpose_a: bool,
                 transpose_b: bool, unranked: bool = False) -> ShapedArray:
    if a.shape is None or b.shape is None:
        return ShapedArray(None, a.dtype)
    batched = a.ndim > 2 or b.ndim > 2  # tf.matmul's choice of op
    op = "BatchMatMulV2" if batched else "MatMul"
    shapes = f"with input shapes: {dims_text(a.shape)}, {dims_text(b.shape)}."
    for x in (a, b):
        if x.ndim < 2:
            rank = "at least rank 2" if batched else "rank 2"
            raise ValueError(f"Shape must be {rank} but is rank {x.ndim} for "
                             f"'{{{{node MatMul}}}} = {op}' {shapes}")
    rows, inner_a = (a.shape[-1], a.shape[-2]) if transpose_a else a.shape[-2:]
    inner_b, cols = (b.shape[-1], b.shape[-2]) if transpose_b else b.shape[-2:]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b} for "
                         f"'{{{{node MatMul}}}} = {op}' {shapes}")
    batch = _broadcast(op, (a, b), a.shape[:-2], b.shape[:-2])
    return ShapedArray(batch + (rows, cols), a.dtype)


def _refuse(x: Tensor, allowed: str, no_kernel: str, op_name: str) -> None:
    """Raises TF's error for an operand whose dtype kind is not `allowed`: NotFoundError for
    the kinds in `no_kernel` (TF declares the dtype but registers no CPU kernel for it),
    InvalidArgumentError otherwise."""
    if x._value.dtype.kind in no_kernel:
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(x.dtype)}] [Op:{op_name}]")
    require(x, allowed, op_name)


def _unary_op(prim: Primitive, allowed: str, no_kernel: str = ""):
    # Chosen once: the eager path of every unary op runs `convert`.
    convert = (lambda v: convert_input(v, "b")) if allowed == "b" else convert_to_tensor

    def op(x: Any, name: Optional[str] = None) -> Tensor:
        try:
            x = convert(x)
        except (TypeError, ValueError) as exc:  # a RaggedTensor: on its values
            return ragged_fallback(exc, "unary", op, x)
        if x._value.dtype.kind not in allowed:
            _refuse(x, allowed, no_kernel, prim.name)
        return bind(prim, (x,))
    return op


def _binary_op(prim: Primitive, allowed: str = _NUMERIC, no_kernel: str = "",
               reflected: Optional[str] = None):
    """The public op; given the name of the reflected method (`"__radd__"`), the Python
    operator instead, which falls back as TF's (`operator_error`). The try costs nothing
    until something raises."""
    op_name = prim.name

    def op(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        try:
            a, b = binary_operands(x, y, op_name)
            kind = a._value.dtype.kind
            if kind not in allowed:
                _refuse(a, allowed, no_kernel, op_name)  # raises TF's dtype error
            if kind == _STRING and prim is _add:
                return bind(_string_add, (a, b))      # string concatenation
            return bind(prim, (a, b))
        except (TypeError, ValueError, InvalidArgumentError) as exc:
            if reflected is None:
                return ragged_fallback(exc, "binary", op, x, y)
            return operator_error(exc, x, y, reflected)
    return op


def operator_error(exc: Exception, x: Any, y: Any, reflected: str) -> Any:
    """What TF's Python operator `x <op> y` does where its op raised `exc`: `*` with a bool
    tensor multiplies in int32 and casts back; else, for a TypeError or ValueError, a
    non-tensor `y` with the reflected method gets a try (`x + Foo()` calls Foo.__radd__, a
    NumPy array computes `bool_tensor / array`); its failure or NotImplemented re-raises
    `exc`."""
    if reflected == "__rmul__" and (_is_bool_tensor(x) or _is_bool_tensor(y)):
        return _bool_product(x, y)
    if isinstance(exc, (TypeError, ValueError)) and not isinstance(y, TensorLike) \
            and hasattr(type(y), reflected):
        try:
            out = getattr(y, reflected)(x)
        except (TypeError, ValueError):
            out = NotImplemented
        if out is not NotImplemented:
            return out
    raise exc


def _is_bool_tensor(x: Any) -> bool:
    return isinstance(x, TensorLike) and x.dtype == _dtypes.bool


def _bool_product(x: Any, y: Any) -> Tensor:
    """TF's `*` where an operand is a bool tensor: both cast to int32, multiplied, and the
    product cast to bool (so `b * 0.5` is False: 0.5 casts to 0)."""
    product = multiply(cast(x, _dtypes.int32), cast(y, _dtypes.int32))
    return cast(product, _dtypes.bool)


# -- binary arithmetic ---------------------------------------------------------------------------

# Binary rules are given per input, so the backward pass skips a constant operand's. The
# hottest rules bind their primitives directly: the operands fit by construction, so the
# wrappers' conversions and checks would be wasted on every backward pass.
_add = Primitive("AddV2", np.add, shape_rule=_broadcasting("AddV2"), linear=True,
                 batch_safe=True).defvjp(lambda g, ans, x, y: g, lambda g, ans, x, y: g)
# NumPy's add of two 0-d object arrays gives a bare `bytes`: strings keep their array.
_string_add = Primitive("StringAdd", lambda x, y: np.asarray(np.add(x, y), dtype=object),
                        shape_rule=_broadcasting("AddV2"), differentiable=False)
_sub = Primitive("Sub", np.subtract, shape_rule=_broadcasting("Sub"), linear=True,
                 batch_safe=True).defvjp(lambda g, ans, x, y: g,
                                         lambda g, ans, x, y: bind(_neg, (g,)))
_mul = Primitive("Mul", np.multiply, shape_rule=_broadcasting("Mul"), bilinear=True,
                 batch_safe=True).defvjp(lambda g, ans, x, y: bind(_mul, (g, y)),
                                         lambda g, ans, x, y: bind(_mul, (g, x)))
_div = Primitive("RealDiv", np.true_divide, shape_rule=_broadcasting("RealDiv"), elementwise=True,
                 batch_safe=True).defvjp(
    lambda g, ans, x, y: bind(_div, (g, y)),
    lambda g, ans, x, y: bind(_div, (bind(_mul, (bind(_neg, (g,)), ans)), y)))
def _divides_by_zero(x: np.ndarray, y: np.ndarray, op_name: str) -> bool:
    """Whether an integer op divides by zero, as TF's kernels find out: after checking that
    the shapes broadcast, and only where there is an output element to compute."""
    if np.all(y):
        return False
    try:
        shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(x.shape)} vs. "
                                   f"{dims_text(y.shape)} [Op:{op_name}]") from None
    return 0 not in shape


def _check_integer_divisor(x: np.ndarray, y: np.ndarray, op_name: str) -> None:
    """TF's integer FloorDiv/FloorMod kernels refuse a zero divisor (NumPy returns 0)."""
    if _divides_by_zero(x, y, op_name):
        raise InvalidArgumentError(f"Integer division by zero [Op:{op_name}]")


def _floordiv_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        _check_integer_divisor(x, y, "FloorDiv")
        return np.floor_divide(x, y)
    # TF floors the rounded quotient (NumPy's floor_divide differs): inf // 3 is inf,
    # -5 // inf is -0 and 1 // 0.1 is 10.
    return np.floor(x / y)


def _floormod_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        _check_integer_divisor(x, y, "FloorMod")
        return np.mod(x, y)
    # TF's rule: fmod, moved by y where its sign differs from y's (so -0 % 3 is -0).
    rem = np.fmod(x, y)
    return np.where((rem != 0) & ((y < 0) != (rem < 0)), rem + y, rem)


_floordiv = Primitive("FloorDiv", _floordiv_kernel, shape_rule=_broadcasting("FloorDiv"),
                      differentiable=False)
_floormod = Primitive("FloorMod", _floormod_kernel, shape_rule=_broadcasting("FloorMod"),
                      elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x, y: g, lambda g, ans, x, y: negative(g) * floor(x / y))


# TensorFlow's text for an integer zero divisor here (an InternalError, unlike FloorDiv's).
_TRUNCATE_ZERO = "Unexpected error in binary operator (only integer div and mod should have errors)"


def _truncatediv_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        if _divides_by_zero(x, y, "TruncateDiv"):
            raise InternalError(_TRUNCATE_ZERO + " [Op:TruncateDiv]")
        # Floor division corrected toward zero where the signs differ and it is inexact.
        q = np.floor_divide(x, y)
        return q + ((np.mod(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return np.trunc(x / y)


def _truncatemod_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and _divides_by_zero(x, y, "TruncateMod"):
        raise InternalError(_TRUNCATE_ZERO + " [Op:TruncateMod]")
    return np.fmod(x, y)


# TensorFlow registers no gradient for either truncating op.
_truncatediv = Primitive("TruncateDiv", _truncatediv_kernel,
                         shape_rule=_broadcasting("TruncateDiv"), differentiable=False)
_truncatemod = Primitive("TruncateMod", _truncatemod_kernel,
                         shape_rule=_broadcasting("TruncateMod"), differentiable=False)
_maximum = Primitive("Maximum", np.maximum, shape_rule=_broadcasting("Maximum"), elementwise=True,
                     batch_safe=True).defvjp(
    lambda g, ans, x, y: where(x >= y, g, zeros_like(g)),
    lambda g, ans, x, y: where(x >= y, zeros_like(g), g))
_minimum = Primitive("Minimum", np.minimum, shape_rule=_broadcasting("Minimum"), elementwise=True,
                     batch_safe=True).defvjp(
    lambda g, ans, x, y: where(x <= y, g, zeros_like(g)),
    lambda g, ans, x, y: where(x <= y, zeros_like(g), g))
_atan2 = Primitive("Atan2", np.arctan2, shape_rule=_broadcasting("Atan2"), elementwise=True,
                   batch_safe=True).defvjp(
    lambda g, ans, y, x: g * x / (x * x + y * y),
    lambda g, ans, y, x: negative(g) * y / (x * x + y * y))


def _pow_vjp_y(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # d/dy x**y = x**y log x, TF's way: log x is taken as 0 where x <= 0 (x == 0 if complex),
    # but still multiplies x**y, so where that is inf or NaN (0 ** -1, (-1) ** 0.5) so is
    # the gradient.
    zero = zeros_like(x)
    mask = not_equal(x, zero) if x.dtype.is_complex else greater(x, zero)
    log_x = where(mask, log(where(mask, x, ones_like(x))), zero)
    return g * ans * log_x


_pow = Primitive("Pow", np.power, shape_rule=_broadcasting("Pow"), elementwise=True,
                 batch_safe=True).defvjp(
    lambda g, ans, x, y: g * y * pow(x, y - 1), _pow_vjp_y)

add = tf_export("math.add", "add")(
    _binary_op(_add, _NUMERIC + _STRING))  # strings concatenate; bools are refused
subtract = tf_export("math.subtract", "subtract")(_binary_op(_sub))
multiply = tf_export("math.multiply", "multiply")(_binary_op(_mul))
maximum = tf_export("math.maximum", "maximum")(_binary_op(_maximum, _REAL))
minimum = tf_export("math.minimum", "minimum")(_binary_op(_minimum, _REAL))
floordiv = floor_div = tf_export("math.floordiv", "floor_div", "floordiv")(
    _binary_op(_floordiv, _REAL, no_kernel="c"))
floormod = mod = tf_export("math.floormod", "math.mod", "floormod", "mod")(
    _binary_op(_floormod, _REAL))
# The Python operators of these (operators.py), with TF's fallbacks.
add_operator = _binary_op(_add, _NUMERIC + _STRING, reflected="__radd__")
subtract_operator = _binary_op(_sub, reflected="__rsub__")
multiply_operator = _binary_op(_mul, reflected="__rmul__")
floordiv_operator = _binary_op(_floordiv, _REAL, no_kernel="c", reflected="__rfloordiv__")
floormod_operator = _binary_op(_floormod, _REAL, reflected="__rmod__")
atan2 = tf_export("math.atan2", "atan2")(_binary_op(_atan2, "f"))
truncatediv = tf_export("truncatediv")(_binary_op(_truncatediv, _REAL, no_kernel="c"))
_truncatemod_op = _binary_op(_truncatemod, _REAL)


@tf_export("truncatemod")
def truncatemod(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """The remainder of truncating division, with the sign of x (C's fmod)."""
    x, y = binary_operands(x, y, "TruncateMod")
    if x._value.dtype == np.float16:
        _refuse(x, "", "f", "TruncateMod")  # declared, but no CPU kernel
    if x._value.dtype.kind not in "f" and x._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            f"int32, int64, bfloat16, half, float, double [Op:TruncateMod]")
    return _truncatemod_op(x, y)
add.__doc__ = "x + y elementwise, with broadcasting."
subtract.__doc__ = "x - y elementwise, with broadcasting."
multiply.__doc__ = "x * y elementwise, with broadcasting."
maximum.__doc__ = "The larger of x and y elementwise."
minimum.__doc__ = "The smaller of x and y elementwise."
floordiv.__doc__ = "x // y elementwise, rounding toward negative infinity."
floormod.__doc__ = "The remainder of floor division, with the sign of y."
truncatediv.__doc__ = "x / y elementwise, rounded toward zero (C semantics)."
atan2.__doc__ = "The angle of the point (x, y): arctan(y / x) in the right quadrant."


pow = tf_export("math.pow", "pow")(_binary_op(_pow, _SIGNED))  # noqa: A001 - TensorFlow's name
pow.__doc__ = "x ** y elementwise."
pow_operator = _binary_op(_pow, _SIGNED, reflected="__rpow__")


def _check_divisible(x: Tensor, where_: str) -> None:
    """TF's Python-level TypeError for a bool or string operand of true division."""
    if x._value.dtype.kind not in _NUMERIC and not is_bfloat16(x._value.dtype):
        raise TypeError(f"Invalid dtype {x.dtype!r} in {where_}. Expected one of {{tf.uint8, "
                        f"tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
                        f"tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, "
                        f"tf.complex64, tf.complex128}}.")


def _divide_op(reflected: Optional[str] = None):
    def divide(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        """x / y elementwise; integers are divided as floats (float64, as TensorFlow's
        truediv)."""
        try:
            a, b = binary_operands(x, y, "RealDiv")
            if a._value.dtype.kind not in "fc":
                _check_divisible(a, "__truediv__")
            if a._value.dtype.kind in "iu":
                float_type = _dtypes.float32 if a._value.dtype.itemsize <= 2 else _dtypes.float64
                a, b = cast(a, float_type), cast(b, float_type)
            require(a, _FLOAT, "RealDiv")
            return bind(_div, (a, b))
        except (TypeError, ValueError) as exc:
            if reflected is None:
                return ragged_fallback(exc, "binary", divide, x, y)
            return operator_error(exc, x, y, reflected)
    return divide


divide = tf_export("math.divide", "math.truediv", "divide", "truediv")(_divide_op())
divide_operator = _divide_op("__rtruediv__")


# TF's truediv converts a non-tensor x on its own (truediv(1, float_tensor) raises TypeError);
# this alias takes y's dtype, as tf.divide, because Keras's `1 / keras_tensor` relies on it.
truediv = divide


@tf_export("math.divide_no_nan", "divide_no_nan")
def divide_no_nan(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """x / y, and 0 where y is 0."""
    x, y = binary_operands(x, y, "DivNoNan")
    _check_divisible(x, "tf.math.divide_no_nan")
    safe_y = where(equal(y, zeros_like(y)), ones_like(y), y)
    return where(equal(y, zeros_like(y)), zeros_like(x / safe_y), x / safe_y)


# polyval lives only in tf.math (tapeflow/math.py), so it stays out of this star-exported
# __all__, as count_nonzero, bincount and cumulative_logsumexp stay out of theirs.
@tf_export("math.polyval")
def polyval(coeffs: list, x: Any, name: Optional[str] = None) -> Tensor:
    """The polynomial coeffs[0] * x**(n-1) + ... + coeffs[n-1] at `x`, by Horner's rule."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    # Each coefficient converts on its own (no cast to x's dtype), as in TensorFlow.
    coeffs = [convert_to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


@tf_export("math.squared_difference", "squared_difference")
def squared_difference(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """(x - y) ** 2 elementwise (floats, int32, int64 and complex, as TF's kernel)."""
    x, y = binary_operands(x, y, "SquaredDifference")
    if x._value.dtype.kind not in _FLOAT and x._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            f"bfloat16, half, float, double, int32, int64, complex64, complex128 "
            f"[Op:SquaredDifference]")
    if x._value.dtype.kind == "c":
        return bind(_squared_difference_complex, (x, y))
    return square(subtract(x, y))


def _squared_difference_complex_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d = x - y
    return d * np.conj(d)  # TF's complex SquaredDifference: conj(x - y) (x - y), real-valued


def _squared_difference_complex_vjp(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # TF's rule 2 g (x - y), in the tape's holomorphic form (cotangents are conjugated).
    return bind(_mul, (bind(_add, (g, g)), bind(_conj, (bind(_sub, (x, y)),))))


_squared_difference_complex = Primitive(
    "SquaredDifference", _squared_difference_complex_kernel,
    shape_rule=_broadcasting("SquaredDifference")).defvjp(
    lambda g, ans, x, y: _squared_difference_complex_vjp(g, x, y),
    lambda g, ans, x, y: bind(_neg, (_squared_difference_complex_vjp(g, x, y),)))


@tf_export("math.add_n", "add_n")
def add_n(inputs: list, name: Optional[str] = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting)."""
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape.")
    tensors = [convert_to_tensor(item) for item in inputs]  # each converts on its own
    if len(tensors) == 1:
        return tensors[0]  # TF returns a single input as it is, whatever its dtype
    first = tensors[0]
    _check_add_n(first, tensors)
    total = first
    for item in tensors[1:]:
        total = bind(_add, (total, item))
    return total


def _check_add_n(first: Tensor, tensors: list) -> None:
    """TF's AddN errors: one dtype (numbers only) and one shape for every input."""
    for index, item in enumerate(tensors[1:], 1):
        if item._value.dtype != first._value.dtype:
            raise mismatch_error("AddN", index, first.dtype, item.dtype,
                                 list_dtypes=[t.dtype for t in tensors])
    require(first, _NUMERIC, "AddN")
    for index, item in enumerate(tensors[1:], 1):
        if item._value.shape != first._value.shape:
            raise InvalidArgumentError(
                f"Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {dims_text(first._value.shape)} != input {index}: "
                f"{dims_text(item._value.shape)} [Op:AddN]")


# -- unary ---------------------------------------------------------------------------------------

def _sigmoid_kernel(x: np.ndarray) -> np.ndarray:
    # tanh form: stable for large |x| and one pass over the data.
    if x.dtype.kind == "f":
        return 0.5 * (1.0 + np.tanh(0.5 * x))
    if x.dtype.name == "bfloat16":
        return _bfloat16_sigmoid(x)
    return 1 / (1 + np.exp(-x))


def _bfloat16_sigmoid(x: np.ndarray) -> np.ndarray:
    """TF's bfloat16 sigmoid (Eigen's logistic for half types): e = exp(x), then e / (1 + e),
    each step rounded to bfloat16; 1 where e overflows; results below the smallest normal
    float flushed to 0, as TF's CPU runs with flush-to-zero."""
    bf16 = x.dtype
    e = np.asarray(np.exp(x.astype(np.float32)).astype(bf16), np.float32)
    out = e / (1 + e).astype(bf16).astype(np.float32)
    out = np.where(np.isinf(e), np.float32(1), out)
    out = np.where(np.abs(out) < np.finfo(np.float32).tiny, np.float32(0), out)
    return out.astype(bf16)


def _erf_kernel(x: np.ndarray) -> np.ndarray:
    from scipy import special
    return special.erf(x).astype(x.dtype, copy=False)


def _zero_at_infinity(z: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    # 1 / z is 0 for an infinite complex z, as in TF (its scalar std::complex path); NumPy's
    # complex division gives NaN where both parts are inf or one is NaN.
    return np.where(np.isinf(z), np.zeros((), z.dtype), inverse)


def _rsqrt_kernel(x: np.ndarray) -> np.ndarray:
    root = np.sqrt(x)  # sqrt(nan + inf j) is inf + inf j: its rsqrt is 0
    return _zero_at_infinity(root, 1 / root) if x.dtype.kind == "c" else 1 / root


def _reciprocal_kernel(x: np.ndarray) -> np.ndarray:
    inverse = np.reciprocal(x)
    return _zero_at_infinity(x, inverse) if x.dtype.kind == "c" else inverse


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

_neg = Primitive("Neg", np.negative, shape_rule=same_as_input, linear=True,
                 batch_safe=True).defvjp(lambda g, ans, x: bind(_neg, (g,)))
def _abs_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    if not x.dtype.is_complex:
        return g * bind(_sign, (x,))
    # TF's ComplexAbs rule g x / |x| (0 at 0), in the tape's holomorphic form: conjugated.
    return divide_no_nan(cast(g, x.dtype) * conj(x), cast(ans, x.dtype))


def _abs_jvp(tangents: list, ans: Tensor, x: Tensor) -> Optional[Tensor]:
    t = tangents[0]
    if t is None or not x.dtype.is_complex:
        return None if t is None else t * bind(_sign, (x,))
    # |z| is not holomorphic, so its VJP is no JVP: d|z| = Re(conj(z) dz) / |z| (0 at 0).
    return divide_no_nan(real(t * conj(x)), ans)


_abs = Primitive("Abs", np.abs, shape_rule=same_shape(_real_dtype), elementwise=True,
                 batch_safe=True).defvjp(_abs_vjp).defjvp(_abs_jvp)
_sign = Primitive("Sign", np.sign, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: zeros_like(g))
# 2 * g * x, as (g + g) * x: no scalar to convert, exactly g * 2x (doubling is exact), and a
# constant g (a mean's seed, in a compiled backward pass) folds with its doubling.
_square = Primitive("Square", np.square, shape_rule=same_as_input, elementwise=True,
                    batch_safe=True).defvjp(
    lambda g, ans, x: bind(_mul, (bind(_add, (g, g)), x)))
_sqrt = Primitive("Sqrt", np.sqrt, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g * 0.5 / ans)
_rsqrt = Primitive("Rsqrt", _rsqrt_kernel, shape_rule=same_as_input, elementwise=True,
                   batch_safe=True).defvjp(
    lambda g, ans, x: g * -0.5 * ans * ans * ans)
_reciprocal = Primitive("Reciprocal", _reciprocal_kernel, shape_rule=same_as_input,
                        elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x: negative(g) * ans * ans)
_exp = Primitive("Exp", np.exp, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(lambda g, ans, x: g * ans)
_expm1 = Primitive("Expm1", np.expm1, shape_rule=same_as_input, elementwise=True,
                   batch_safe=True).defvjp(lambda g, ans, x: g * (ans + 1))
_log = Primitive("Log", np.log, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(lambda g, ans, x: g / x)
_log1p = Primitive("Log1p", np.log1p, shape_rule=same_as_input, elementwise=True,
                   batch_safe=True).defvjp(lambda g, ans, x: g / (x + 1))
_sin = Primitive("Sin", np.sin, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(lambda g, ans, x: g * cos(x))
_cos = Primitive("Cos", np.cos, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(lambda g, ans, x: negative(g) * sin(x))
_tan = Primitive("Tan", np.tan, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(lambda g, ans, x: g * (ans * ans + 1))
_asin = Primitive("Asin", np.arcsin, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g * rsqrt(1 - x * x))
_acos = Primitive("Acos", np.arccos, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(
    lambda g, ans, x: negative(g) * rsqrt(1 - x * x))
_atan = Primitive("Atan", np.arctan, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g / (x * x + 1))
_sinh = Primitive("Sinh", np.sinh, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g * cosh(x))
_cosh = Primitive("Cosh", np.cosh, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g * sinh(x))
_asinh = Primitive("Asinh", np.arcsinh, shape_rule=same_as_input).defvjp(
    lambda g, ans, x: g * rsqrt(x * x + 1))
_acosh = Primitive("Acosh", np.arccosh, shape_rule=same_as_input).defvjp(
    lambda g, ans, x: g / sinh(ans))  # as TF
_atanh = Primitive("Atanh", np.arctanh, shape_rule=same_as_input).defvjp(
    lambda g, ans, x: g / (1 - x * x))
_tanh = Primitive("Tanh", np.tanh, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: g * (1 - ans * ans))
_sigmoid = Primitive("Sigmoid", _sigmoid_kernel, shape_rule=same_as_input, elementwise=True,
                     batch_safe=True).defvjp(
    lambda g, ans, x: g * ans * (1 - ans))
_softplus = Primitive("Softplus", lambda x: np.logaddexp(np.zeros((), x.dtype), x),
                      shape_rule=same_as_input, elementwise=True, batch_safe=True) \
    .defvjp(lambda g, ans, x: g * sigmoid(x))
_erf = Primitive("Erf", _erf_kernel, shape_rule=same_as_input, elementwise=True,
                 batch_safe=True).defvjp(
    lambda g, ans, x: g * _TWO_OVER_SQRT_PI * exp(negative(x * x)))
# No gradient flows through rounding (TensorFlow registers none).
_floor = Primitive("Floor", np.floor, shape_rule=same_as_input, differentiable=False)
_ceil = Primitive("Ceil", np.ceil, shape_rule=same_as_input, differentiable=False)
_round = Primitive("Round", np.round, shape_rule=same_as_input, differentiable=False)

negative = tf_export("math.negative", "negative")(_unary_op(_neg, _SIGNED))
abs = tf_export("math.abs", "abs")(_unary_op(_abs, _SIGNED))  # noqa: A001 - TensorFlow's name
_real_sign = _unary_op(_sign, _SIGNED)


@tf_export("math.sign", "sign")
def sign(x: Any, name: Optional[str] = None) -> Tensor:
    """-1, 0 or 1 by the sign of x (its gradient is zero); x / |x| for complex x, built as
    TF builds it, so its gradient is TF's."""
    x = convert_to_tensor(x)
    if x._value.dtype.kind == "c":
        return divide_no_nan(x, cast(abs(x), x.dtype))
    return _real_sign(x)
square = tf_export("math.square", "square")(_unary_op(_square, _NUMERIC))
sqrt = tf_export("math.sqrt", "sqrt")(_unary_op(_sqrt, _FLOAT))
rsqrt = tf_export("math.rsqrt", "rsqrt")(_unary_op(_rsqrt, _FLOAT))
reciprocal = tf_export("math.reciprocal", "reciprocal")(
    _unary_op(_reciprocal, _FLOAT, no_kernel="i"))
exp = tf_export("math.exp", "exp")(_unary_op(_exp, _FLOAT))
expm1 = tf_export("math.expm1", "expm1")(_unary_op(_expm1, _FLOAT))
log = tf_export("math.log", "log")(_unary_op(_log, _FLOAT))
log1p = tf_export("math.log1p", "log1p")(_unary_op(_log1p, _FLOAT))
sin = tf_export("math.sin", "sin")(_unary_op(_sin, _FLOAT))
cos = tf_export("math.cos", "cos")(_unary_op(_cos, _FLOAT))
tan = tf_export("math.tan", "tan")(_unary_op(_tan, _FLOAT))
asin = tf_export("math.asin", "asin")(_unary_op(_asin, _FLOAT))
acos = tf_export("math.acos", "acos")(_unary_op(_acos, _FLOAT))
atan = tf_export("math.atan", "atan")(_unary_op(_atan, _FLOAT))
sinh = tf_export("math.sinh", "sinh")(_unary_op(_sinh, _FLOAT))
cosh = tf_export("math.cosh", "cosh")(_unary_op(_cosh, _FLOAT))
tanh = tf_export("math.tanh", "nn.tanh", "tanh")(_unary_op(_tanh, _FLOAT))
asinh = tf_export("math.asinh", "asinh")(_unary_op(_asinh, _FLOAT))
acosh = tf_export("math.acosh", "acosh")(_unary_op(_acosh, _FLOAT))
atanh = tf_export("math.atanh", "atanh")(_unary_op(_atanh, _FLOAT))
sigmoid = tf_export("math.sigmoid", "nn.sigmoid", "sigmoid")(_unary_op(_sigmoid, _FLOAT))
softplus = tf_export("math.softplus", "nn.softplus", "softplus")(_unary_op(_softplus, "f"))
erf = tf_export("math.erf", "erf")(_unary_op(_erf, "f"))
floor = tf_export("math.floor", "floor")(_unary_op(_floor, "f"))
ceil = tf_export("math.ceil", "ceil")(_unary_op(_ceil, "f"))
round = tf_export("math.round", "round")(
    _unary_op(_round, _REAL, no_kernel="c"))  # noqa: A001 - TensorFlow's name

for _fn, _doc in [
        (negative, "-x elementwise."), (abs, "|x| elementwise."),
        (square, "x * x elementwise."), (sqrt, "The square root of x."),
        (rsqrt, "1 / sqrt(x)."), (reciprocal, "1 / x."), (exp, "e ** x."),
        (expm1, "e ** x - 1, accurate near 0."), (log, "The natural logarithm of x."),
        (log1p, "log(1 + x), accurate near 0."), (sin, "The sine of x."),
        (cos, "The cosine of x."), (tan, "The tangent of x."), (asin, "The arcsine of x."),
        (acos, "The arccosine of x."), (atan, "The arctangent of x."),
        (sinh, "The hyperbolic sine of x."), (cosh, "The hyperbolic cosine of x."),
        (tanh, "The hyperbolic tangent of x."), (asinh, "The inverse hyperbolic sine of x."),
        (acosh, "The inverse hyperbolic cosine of x (NaN below 1)."),
        (atanh, "The inverse hyperbolic tangent of x (NaN outside [-1, 1])."),
        (sigmoid, "1 / (1 + exp(-x))."),
        (softplus, "log(1 + exp(x)), computed stably."), (erf, "The Gauss error function."),
        (floor, "The largest integer not above x (no gradient)."),
        (ceil, "The smallest integer not below x (no gradient)."),
        (round, "x rounded to the nearest integer, half to even (no gradient).")]:
    _fn.__doc__ = _doc


# -- comparisons and logic (no gradients) --------------------------------------------------------

def _comparison(tf_name: str, kernel: Any, allowed: str = _ANY, dtype: Any = np.bool_):
    """A broadcasting op without gradient; its output is bool (`dtype`; None: its input's)."""
    prim = Primitive(tf_name, kernel, shape_rule=_broadcasting(tf_name, dtype),
                     differentiable=False)
    return _binary_op(prim, allowed)


equal = tf_export("math.equal", "equal")(_comparison("Equal", np.equal, _ANY + _STRING))
not_equal = tf_export("math.not_equal", "not_equal")(
    _comparison("NotEqual", np.not_equal, _ANY + _STRING))
less = tf_export("math.less", "less")(_comparison("Less", np.less, _REAL))
less_equal = tf_export("math.less_equal", "less_equal")(
    _comparison("LessEqual", np.less_equal, _REAL))
greater = tf_export("math.greater", "greater")(_comparison("Greater", np.greater, _REAL))
greater_equal = tf_export("math.greater_equal", "greater_equal")(
    _comparison("GreaterEqual", np.greater_equal, _REAL))


def _logical(tf_name: str, kernel: Any):
    """A broadcasting op on bool inputs (TF declares them bool, with no dtype attribute):
    values convert to bool (`convert_input`), then each input must be a bool tensor, in
    order."""
    prim = Primitive(tf_name, kernel, shape_rule=_broadcasting(tf_name, np.bool_),
                     differentiable=False)

    def op(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        try:
            a, b = convert_input(x, "b"), convert_input(y, "b")
        except (TypeError, ValueError) as exc:  # RaggedTensors: on their values
            return ragged_fallback(exc, "binary", op, x, y)
        for index, t in enumerate((a, b)):
            if t._value.dtype.kind != "b":
                raise mismatch_error(tf_name, index, _dtypes.bool, t.dtype, fixed=True)
        return bind(prim, (a, b))
    return op


logical_and = tf_export("math.logical_and", "logical_and")(
    _logical("LogicalAnd", np.logical_and))
logical_or = tf_export("math.logical_or", "logical_or")(_logical("LogicalOr", np.logical_or))
logical_xor = tf_export("math.logical_xor", "logical_xor")(
    _logical("LogicalXor", np.logical_xor))
bitwise_and = _comparison("BitwiseAnd", np.bitwise_and, "iu", dtype=None)
bitwise_or = _comparison("BitwiseOr", np.bitwise_or, "iu", dtype=None)
bitwise_xor = _comparison("BitwiseXor", np.bitwise_xor, "iu", dtype=None)
logical_not = tf_export("math.logical_not", "logical_not")(
    _unary_op(Primitive("LogicalNot", np.logical_not, shape_rule=_BOOL_SAME, differentiable=False),
              "b"))
invert = _unary_op(Primitive("Invert", np.invert, shape_rule=same_as_input, differentiable=False),
                   "iu")
is_nan = tf_export("math.is_nan", "is_nan")(
    _unary_op(Primitive("IsNan", np.isnan, shape_rule=_BOOL_SAME, differentiable=False), "f"))
is_finite = tf_export("math.is_finite", "is_finite")(
    _unary_op(Primitive("IsFinite", np.isfinite, shape_rule=_BOOL_SAME, differentiable=False), "f"))
is_inf = tf_export("math.is_inf", "is_inf")(
    _unary_op(Primitive("IsInf", np.isinf, shape_rule=_BOOL_SAME, differentiable=False), "f"))
for _fn, _doc in [
        (equal, "x == y elementwise."), (not_equal, "x != y elementwise."),
        (less, "x < y elementwise."), (less_equal, "x <= y elementwise."),
        (greater, "x > y elementwise."), (greater_equal, "x >= y elementwise."),
        (logical_and, "x AND y for booleans."), (logical_or, "x OR y for booleans."),
        (logical_xor, "x XOR y for booleans."), (logical_not, "NOT x for booleans."),
        (bitwise_and, "Bitwise AND of integers."), (bitwise_or, "Bitwise OR of integers."),
        (bitwise_xor, "Bitwise XOR of integers."), (invert, "Bitwise NOT of integers."),
        (is_nan, "Whether x is NaN."), (is_finite, "Whether x is finite."),
        (is_inf, "Whether x is infinite.")]:
    _fn.__doc__ = _doc


# -- where, cast, identity, stop_gradient --------------------------------------------------------

_select = Primitive("SelectV2", np.where, shape_rule=_select_rule, elementwise=True,
                    batch_safe=True).defvjp(
    lambda g, ans, c, x, y: None,
    lambda g, ans, c, x, y: where(c, g, zeros_like(g)),
    lambda g, ans, c, x, y: where(c, zeros_like(g), g))


@tf_export("where")
def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Tensor:
    """Elements of `x` where `condition` holds and of `y` elsewhere (broadcasting).

    With only `condition`, the coordinates of its true elements (an int64 `[n, rank]` tensor).
    """
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        if not 1 <= condition._value.ndim <= 8:  # TF's Where kernel handles ranks 1 to 8
            raise InvalidArgumentError(f"WhereOp : Unhandled input dimensions: "
                                       f"{condition._value.ndim} [Op:Where]")
        return bind(_where_indices, (condition,))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if condition._value.dtype.kind != "b":
        raise mismatch_error("SelectV2", 0, _dtypes.bool, condition.dtype, fixed=True)
    try:
        x, y = binary_operands(x, y, "SelectV2")
    except (InvalidArgumentError, TypeError) as error:   # y is the kernel's input #2
        if isinstance(error, TypeError) and not is_dtype_mismatch(error):
            raise
        x, y = convert_to_tensor(x), convert_to_tensor(y)
        raise mismatch_error("SelectV2", 2, x.dtype, y.dtype) from None
    return bind(_select, (condition, x, y))


_where_indices = Primitive(
    "Where", lambda c: np.argwhere(c).astype(np.int64), shape_rule=_where_rule,
    differentiable=False)


def _cast_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Any:
    return cast(g, x.dtype) if x.dtype.is_differentiable else None


_cast = Primitive("Cast", lambda x, dtype: x.astype(dtype), shape_rule=_with_dtype_attr,
                  linear=True, batch_safe=True).defvjp(
    lambda g, ans, x, dtype: _cast_vjp(g, ans, x))
_cast.lowering = lambda dtype: (f"{{0}}.astype('{np.dtype(dtype).str}')"
                                if np.dtype(dtype).kind in "biufc" else None)
_cast.impl.fresh_result = True   # astype copies


@tf_export("cast")
def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Tensor:
    """`x` converted to `dtype` (floats to integers truncate toward zero); IndexedSlices stay
    IndexedSlices, their values cast."""
    target = _dtypes.as_dtype(dtype)
    if type(x) is IndexedSlices:
        return IndexedSlices(cast(x.values, target), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    if (x._value.dtype.kind in "OSU") != (target._np.kind in "OSU"):
        # TensorFlow parses no strings here (tf.strings.to_number does).
        raise UnimplementedError(f"Cast {cpp_name(x.dtype)} to {cpp_name(target)} is not "
                                 f"supported [Op:Cast]")
    if x._value.dtype == target._np:
        return x
    if x._value.dtype.kind == "c" and target._np.kind != "c":
        return bind(_cast, (bind(_real, (x,)),), {"dtype": target._np})
    return bind(_cast, (x,), {"dtype": target._np})


# TF's gradient is complex(g, +0); the backward pass holds its conjugate, g - 0j (a bare
# cast's g + 0j would come out of the tape as g - 0j, printed "1.-0.j").
_real = Primitive("Real", np.real, shape_rule=same_shape(_real_dtype), linear=True,
                  batch_safe=True).defvjp(lambda g, ans, x: bind(_conj, (cast(g, x.dtype),)))
_conj = Primitive("Conj", np.conj, shape_rule=same_as_input, linear=True).defvjp(
    lambda g, ans, x: bind(_conj, (g,)))


@tf_export("math.real")
def real(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF's name
    """The real part of a complex tensor (in its real dtype); real tensors come back as
    they are."""
    x = convert_to_tensor(input)
    if x._value.dtype.kind not in "iufc":
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype "
                        f"{x.dtype}")
    return bind(_real, (x,)) if x._value.dtype.kind == "c" else x


# The cotangent of z for y = imag(z) is -1j * g in the holomorphic form the backward pass
# keeps (GradientTape gives TensorFlow's i * g: see tape._in_tf_convention).
_imag = Primitive("Imag", np.imag, shape_rule=same_shape(_real_dtype)).defvjp(
    lambda g, ans, x: multiply(cast(g, x.dtype), np.array(-1j, x._value.dtype)))
_imag.defjvp(lambda tangents, ans, x: None if tangents[0] is None
             else bind(_imag, (tangents[0],)))


@tf_export("math.imag")
def imag(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF's name
    """The imaginary part of a complex tensor (in its real dtype); zeros for real tensors."""
    x = convert_to_tensor(input)
    return bind(_imag, (x,)) if x._value.dtype.kind == "c" else zeros_like(x)


@tf_export("math.conj")
def conj(x: Any, name: Optional[str] = None) -> Tensor:
    """The complex conjugate; real numbers come back as they are (no op, as in TF)."""
    x = convert_to_tensor(x)
    kind = x._value.dtype.kind
    if kind == "c":
        return bind(_conj, (x,))
    if kind not in "fiu":
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")
    return x

_identity = Primitive("Identity", lambda x: x, shape_rule=same_as_input, linear=True,
                      batch_safe=True, sparse_pass_through=True).defvjp(lambda g, ans, x: g)
_stop_gradient = Primitive("StopGradient", lambda x: x, shape_rule=same_as_input,
                           differentiable=False)


@tf_export("identity")
def identity(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF's name
    """The same value as a new tensor; gradients pass through."""
    return bind(_identity, (convert_to_tensor(input),))


@tf_export("stop_gradient")
def stop_gradient(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The same value, but no gradient flows back through it."""
    return bind(_stop_gradient, (convert_to_tensor(input),))


# Traced by tf.function, zeros_like/ones_like are ops, so the zeros take the shape the graph
# sees when it runs (a while_loop's history length varies); eagerly, a plain constant.
def zeros_of(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Zeros of `dtype`; a string's zero is the empty string, as in TF."""
    return np.full(shape, b"", dtype) if dtype.kind == "O" else np.zeros(shape, dtype)


_zeros_like = Primitive("ZerosLike", lambda x, dtype: zeros_of(x.shape, dtype),
                        shape_rule=_with_dtype_attr, differentiable=False, linear=True)
_ones_like = Primitive("OnesLike", lambda x, dtype: np.ones(x.shape, dtype),
                       shape_rule=_with_dtype_attr, differentiable=False)


def _fill_lowering(fill: str):
    # Strings (object arrays) take the kernel: np.zeros would hold the integer 0.
    return lambda dtype: (f"np.{fill}(np.shape({{0}}), '{np.dtype(dtype).str}')"
                          if np.dtype(dtype).kind != "O" else None)


_zeros_like.lowering = _fill_lowering("zeros")
_ones_like.lowering = _fill_lowering("ones")


@tf_export("zeros_like")
def zeros_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Zeros of `input`'s shape (and dtype, unless `dtype` is given); empty strings for
    a string dtype. A RaggedTensor gives one of its partition."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError) as exc:   # a RaggedTensor: on its values
        return ragged_fallback(exc, "unary", zeros_like, input, dtype)
    np_type = x._value.dtype if dtype is None else _dtypes.as_dtype(dtype)._np
    if context.state.graph is not None:
        return bind(_zeros_like, (x,), {"dtype": np_type})
    return wrap(zeros_of(x._value.shape, np_type))  # fresh: no copy


@tf_export("ones_like")
def ones_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Ones of `input`'s shape (and dtype, unless `dtype` is given); strings have no one.
    A RaggedTensor gives one of its partition."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError) as exc:   # a RaggedTensor: on its values
        return ragged_fallback(exc, "unary", ones_like, input, dtype)
    np_type = x._value.dtype if dtype is None else _dtypes.as_dtype(dtype)._np
    if np_type.kind == "O":
        _refuse_string_ones(x, np_type)
    if context.state.graph is not None:
        return bind(_ones_like, (x,), {"dtype": np_type})
    return wrap(np.ones(x._value.shape, np_type))


def _refuse_string_ones(x: Tensor, np_type: np.dtype) -> None:
    if x._value.dtype == np_type:  # TF's OnesLike kernel has no string type
        raise InvalidArgumentError(
            "Value for attr 'T' of string is not in the list of allowed values: bfloat16, "
            "half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
            "complex64, complex128, bool [Op:OnesLike]")
    raise TypeError("Cannot convert 1 to EagerTensor of dtype string")


# -- matmul --------------------------------------------------------------------------------------

def _matmul_kernel(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool,
                   unranked: bool = False):
    if unranked:  # traced with an unknown rank: the checks the wrapper makes, made here
        _check_matmul_shapes(a.shape, b.shape, transpose_a, transpose_b)
    if transpose_a:
        a = a.swapaxes(-1, -2)  # the method: np.swapaxes' wrapper costs more than the view
    if transpose_b:
        b = b.swapaxes(-1, -2)
    # np.dot calls BLAS with less overhead than np.matmul (notably on transposed views);
    # they differ only in how they treat more than two axes. For bfloat16 both sum in
    # float32 (ml_dtypes' dot rounds once; matmul returns float32, rounded here), as TF.
    if a.ndim == 2 == b.ndim:
        return np.dot(a, b)
    out = np.matmul(a, b)
    return out if out.dtype == a.dtype else out.astype(a.dtype)


def _product(a: Tensor, b: Tensor, transpose_a: bool, transpose_b: bool) -> Tensor:
    # The rules' operands fit by construction: bind without matmul's argument checks.
    return bind(_matmul, (a, b), {"transpose_a": transpose_a, "transpose_b": transpose_b})


def _matmul_vjp_a(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, transpose_a: bool,
                  transpose_b: bool, unranked: bool = False) -> Tensor:
    if transpose_a:
        return _product(b, g, transpose_b, True)
    return _product(g, b, False, not transpose_b)


def _matmul_vjp_b(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, transpose_a: bool,
                  transpose_b: bool, unranked: bool = False) -> Tensor:
    if transpose_b:
        return _product(g, a, True, transpose_a)
    return _product(a, g, not transpose_a, False)


_matmul = Primitive("MatMul", _matmul_kernel, shape_rule=_matmul_rule, bilinear=True,
                    batch_safe=True).defvjp(_matmul_vjp_a, _matmul_vjp_b)
# A new array every time: a compiled program's next elementwise op (bias add, ReluGrad, a
# learning rate's product) may write into it (graph/compiler.py).
_matmul_kernel.fresh_result = True


def _matmul_lowering(transpose_a: bool, transpose_b: bool, unranked: bool = False) -> Any:
    if unranked:
        return None   # the kernel, which checks the ranks
    a, b = ("{0}.T" if transpose_a else "{0}"), ("{1}.T" if transpose_b else "{1}")
    batched_a = "{0}.swapaxes(-1, -2)" if transpose_a else "{0}"
    batched_b = "{1}.swapaxes(-1, -2)" if transpose_b else "{1}"
    return (f"(np.dot({a}, {b}) if {{0}}.ndim == 2 == {{1}}.ndim "
            f"else np.matmul({batched_a}, {batched_b}).astype({{0}}.dtype, copy=False))")


_matmul.lowering = _matmul_lowering


@tf_export("linalg.matmul", "matmul")
def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, output_type: Any = None, grad_a: bool = False,
           grad_b: bool = False, name: Optional[str] = None) -> Tensor:
    """The matrix product of the last two axes of `a` and `b`, batched over the leading axes
    (which broadcast). `adjoint_*` transposes and conjugates (for real inputs: transposes)."""
    a, b = binary_operands(a, b, "MatMul")
    if a._value.dtype.kind == "c":  # an adjoint conjugates (a recorded op: it has a gradient)
        a = conj(a) if adjoint_a else a
        b = conj(b) if adjoint_b else b
    transpose_a = bool(transpose_a or adjoint_a)
    transpose_b = bool(transpose_b or adjoint_b)
    if a._value.dtype.kind not in "fc":
        _check_matmul_dtype(a, b, transpose_a, transpose_b)
    sa, sb = a._value.shape, b._value.shape
    if sa is None or sb is None:   # traced with an unknown rank: the kernel checks as it runs
        return bind(_matmul, (a, b), {"transpose_a": transpose_a, "transpose_b": transpose_b,
                                      "unranked": True})
    if len(sa) != 2 or len(sb) != 2 or \
            (sa[0] if transpose_a else sa[1]) != (sb[1] if transpose_b else sb[0]):
        _check_matmul_shapes(sa, sb, transpose_a, transpose_b)  # all but fitting matrices
    return bind(_matmul, (a, b), {"transpose_a": transpose_a, "transpose_b": transpose_b})


def matmul_operator(x: Any, y: Any) -> Tensor:
    """`x @ y`: matmul without transposes, with TF's operator fallback (`operator_error`)."""
    try:
        a, b = binary_operands(x, y, "MatMul")
        if a._value.dtype.kind not in "fc":
            _check_matmul_dtype(a, b, False, False)
        sa, sb = a._value.shape, b._value.shape
        if sa is None or sb is None:   # traced with an unknown rank: checked as it runs
            return bind(_matmul, (a, b), {"transpose_a": False, "transpose_b": False,
                                          "unranked": True})
        if len(sa) != 2 or len(sb) != 2 or sa[1] != sb[0]:
            _check_matmul_shapes(sa, sb, False, False)
        return bind(_matmul, (a, b), {"transpose_a": False, "transpose_b": False})
    except (TypeError, ValueError) as exc:
        return operator_error(exc, x, y, "__rmatmul__")


def _check_matmul_dtype(a: Tensor, b: Tensor, transpose_a: bool, transpose_b: bool) -> None:
    """TF's CPU kernels multiply int32 and int64 matrices (and int16 batched ones) only:
    int8 (and int16 matrices) are not declared, unsigned ones have no kernel."""
    require(a, _NUMERIC, "MatMul")
    batched = a._value.ndim != 2 or b._value.ndim != 2
    dtype = a._value.dtype
    if dtype in (np.int32, np.int64) or (batched and dtype == np.int16) or is_bfloat16(dtype):
        return
    if dtype.kind == "u":
        name = cpp_name(a.dtype).upper()
        node = (f"BatchMatMulV2[T=DT_{name}, adj_x={str(transpose_a).lower()}, "
                f"adj_y={str(transpose_b).lower()}, grad_x=false, grad_y=false]" if batched else
                f"MatMul[T=DT_{name}, grad_a=false, grad_b=false, "
                f"transpose_a={str(transpose_a).lower()}, transpose_b={str(transpose_b).lower()}]")
        op = node.split("[")[0]
        raise NotFoundError(f"Could not find device for node: {{{{node {op}}}}} = {node} "
                            f"[Op:{op}]")
    allowed = ("bfloat16, half, float, double, " + ("int16, " if batched else "") +
               "int32, int64, uint8, uint16, uint32, uint64, complex64, complex128")
    raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(a.dtype)} is not in the list "
                               f"of allowed values: {allowed} "
                               f"[Op:{'BatchMatMulV2' if batched else 'MatMul'}]")


def _check_matmul_shapes(sa: tuple, sb: tuple, transpose_a: bool, transpose_b: bool) -> None:
    if sa is None or sb is None or None in sa or None in sb:
        return  # traced with unknown dims: the shape rule checks the known ones
    for index, shape in enumerate((sa, sb)):
        if len(shape) < 2:
            raise InvalidArgumentError(f"In[{index}] ndims must be >= 2: {len(shape)} "
                                       f"(shapes {dims_text(sa)} and {dims_text(sb)}) [Op:MatMul]")
    inner_a = sa[-2] if transpose_a else sa[-1]
    inner_b = sb[-1] if transpose_b else sb[-2]
    if inner_a != inner_b:
        raise InvalidArgumentError(f"Matrix size-incompatible: In[0]: {dims_text(sa)}, In[1]: "
                                   f"{dims_text(sb)} [Op:MatMul]")
    if len(sa) == 2 and len(sb) == 2:
        return  # plain matrices: nothing to broadcast (and the check is costly)
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise InvalidArgumentError(
            f"In[0] and In[1] must have compatible batch dimensions: {dims_text(sa)} vs. "
            f"{dims_text(sb)} [Op:BatchMatMulV2]") from None


# -- no-NaN products, rint, nextafter, realdiv, scalar_mul, accumulate_n, saturate_cast --------

def _mul_no_nan_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(y == 0, np.zeros((), x.dtype), x * y)  # 0 where y is 0, even x inf


_mul_no_nan = Primitive("MulNoNan", _mul_no_nan_kernel, shape_rule=_broadcasting("MulNoNan"),
                        bilinear=True, batch_safe=True).defvjp(
    lambda g, ans, x, y: bind(_mul_no_nan, (g, y)),
    lambda g, ans, x, y: bind(_mul_no_nan, (x, g)))
_rint = Primitive("Rint", np.rint, shape_rule=same_as_input, differentiable=False)
# TF's rule: the cotangent passes to x1 unchanged, and x2 gets zeros.
_next_after = Primitive("NextAfter", np.nextafter, shape_rule=_broadcasting("NextAfter"),
                        elementwise=True, batch_safe=True).defvjp(
    lambda g, ans, x1, x2: g, lambda g, ans, x1, x2: zeros_like(g))

multiply_no_nan = tf_export("math.multiply_no_nan")(_binary_op(_mul_no_nan, _FLOAT))
multiply_no_nan.__doc__ = "x * y, and 0 where y is 0 even where x is inf or NaN."
rint = tf_export("math.rint")(_unary_op(_rint, "f"))
rint.__doc__ = "x rounded to the nearest integer, half to even, as a float (no gradient)."
realdiv = tf_export("realdiv")(_binary_op(_div, _FLOAT, no_kernel="iu"))
realdiv.__doc__ = "x / y for floats and complex numbers (TF has no integer kernel)."


@tf_export("math.nextafter")
def nextafter(x1: Any, x2: Any, name: Optional[str] = None) -> Tensor:
    """The next representable float after x1 toward x2 (float32 and float64)."""
    x1, x2 = binary_operands(x1, x2, "NextAfter")
    if x1._value.dtype not in (np.float32, np.float64):
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x1.dtype)} is not in the "
                                   f"list of allowed values: double, float [Op:NextAfter]")
    return bind(_next_after, (x1, x2))


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x: Any, name: Optional[str] = None) -> Tensor:
    """1 / x, and 0 where x is 0 (floats and complex numbers)."""
    x = convert_to_tensor(x)
    require(x, _FLOAT, "DivNoNan")
    return divide_no_nan(ones_like(x), x)


@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar: Any, x: Any, name: Optional[str] = None) -> Any:
    """`scalar * x` for a 0-d `scalar` (converted to x's dtype); an IndexedSlices `x` stays
    sparse."""
    if isinstance(x, IndexedSlices):
        scalar = convert_to_tensor(scalar, dtype=x.dtype)
        _check_scalar(scalar)
        return IndexedSlices(multiply(scalar, x.values), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype)
    _check_scalar(scalar)
    return multiply(scalar, x)


def _check_scalar(scalar: Tensor) -> None:
    if scalar.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape "
                         f"{tuple(scalar.shape.as_list())}.")


@tf_export("math.accumulate_n")
def accumulate_n(inputs: list, shape: Any = None, tensor_dtype: Any = None,
                 name: Optional[str] = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype (deprecated in TF
    for tf.math.add_n, which it calls)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    tensors = [convert_to_tensor(item) for item in inputs]
    if not all(t.dtype == tensors[0].dtype for t in tensors):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    if tensor_dtype is not None and _dtypes.as_dtype(tensor_dtype) != tensors[0].dtype:
        raise TypeError(f"tensor_dtype is {tensor_dtype}, but input is of type "
                        f"{tensors[0].dtype}")
    return add_n(tensors)


@tf_export("saturate_cast")
def saturate_cast(value: Any, dtype: Any, name: Optional[str] = None) -> Tensor:
    """`value` cast to `dtype`, clamped first to the range both dtypes can hold (TF's
    limits, nudged inward where the output's bound is not representable in the input's
    dtype); complex to real keeps the real part."""
    from tapeflow.ops.clip_ops import clip_by_value
    value = convert_to_tensor(value)
    dtype = _dtypes.as_dtype(dtype)
    in_dtype = value.dtype
    if in_dtype.is_complex:
        if dtype.is_complex:
            low, high = in_dtype.real_dtype, dtype.real_dtype
            if low.min < high.min or low.max > high.max:
                value = clip_by_value(value, complex(high.min, high.min),
                                      complex(high.max, high.max))
            return cast(value, dtype)
        value = real(value)
        in_dtype = in_dtype.real_dtype
    out = dtype.real_dtype
    np_dtype = in_dtype.as_numpy_dtype
    try:
        promoted = np.promote_types(np_dtype, out.as_numpy_dtype)
    except TypeError:  # bfloat16
        promoted = float
    low = np_dtype(np.maximum(in_dtype.min, out.min))
    if np.array([low, out.min], dtype=promoted)[0] < np.array([low, out.min], promoted)[1]:
        low = np.nextafter(low, np_dtype(0), dtype=np_dtype)
    high = np_dtype(np.minimum(float(in_dtype.max), float(out.max)))
    if np.array([high, out.max], dtype=promoted)[0] > np.array([high, out.max], promoted)[1]:
        high = np.nextafter(high, np_dtype(0), dtype=np_dtype)
    value = clip_by_value(value, convert_to_tensor(low, in_dtype),
                          convert_to_tensor(high, in_dtype))
    return cast(value, dtype)
