"""Reductions over axes (sum, mean, max, min, prod, std, variance, logsumexp, all, any,
argmax, argmin, norm) and their rules."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops._static import reads_static, static_value
from tapeflow.ops.array_ops import (broadcast_to_shape, fill_shape, ones, reshape,
                                    reshape_to, slice_tensor, stack, transpose)
from tapeflow.ops.math_ops import abs as abs_, cast, equal, exp, ones_like, pow as pow_, sqrt, square, where, zeros_like


def _axes(axis: Any, rank: int, op_name: str) -> Optional[tuple]:
    """`axis` (None, an int, a list or an int tensor) as a sorted tuple of non-negative axes;
    None means all axes."""
    if axis is None:
        return None
    if isinstance(axis, (TensorLike, np.ndarray)):
        axis = np.asarray(getattr(axis, "_value", axis)).tolist()
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    result = set()
    for a in axis:
        a = int(a)
        if not -max(rank, 1) <= a < max(rank, 1):
            raise InvalidArgumentError(f"Invalid reduction dimension ({a} for input with {rank} "
                                       f"dimension(s) [Op:{op_name}]")
        result.add(a % max(rank, 1))
    return tuple(sorted(result))


def _kept_shape(x: Tensor, axis: Optional[tuple]) -> tuple:
    """x's shape with the reduced axes set to 1: the cotangent's broadcastable shape."""
    shape = x._value.shape
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def _reduction(prim: Primitive, allowed: str):
    @reads_static
    def op(input_tensor: Any, axis: Any = None, keepdims: bool = False,
           name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input_tensor)
        require(x, allowed, prim.name)
        axes = _axes(static_value(axis, f"{prim.name}: axis"), x._value.ndim, prim.name)
        if axes == ():
            return x
        return bind(prim, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    return op


def _sum_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    if axis is None and g._value.size == 1:  # a sum of everything (a loss): one fill
        return fill_shape(reshape_to(g, ()), x._value.shape)
    return broadcast_to_shape(reshape_to(g, _kept_shape(x, axis)), x._value.shape)


def _mean_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    count = x._value.size // max(ans._value.size, 1) if x._value.size else 1
    return _sum_vjp(g / count, ans, x, axis, keepdims)  # scale the small side


def sum_over(x: Tensor, axes: tuple, keepdims: bool = False) -> Tensor:
    """The sum over `axes` (non-negative, sorted), unchecked: for derivative rules."""
    return bind(_sum, (x,), {"axis": axes, "keepdims": keepdims}) if axes else x


def _extremum_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    # Ties share the gradient equally, as TensorFlow's Max/Min gradient does.
    kept = _kept_shape(x, axis)
    mask = cast(equal(x, reshape_to(ans, kept)), x.dtype)
    count = reduce_sum(mask, axis=axis, keepdims=True)
    return mask * reshape_to(g, kept) / count


def _prod_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    # Products of all other elements, computed without dividing (exact with zeros):
    # exclusive cumulative products from both ends, over the reduced axes flattened.
    if x._value.size == 0:  # nothing to differentiate (and reshape(-1) would be ambiguous)
        return zeros_like(x)
    rank = x._value.ndim
    axes = tuple(range(rank)) if axis is None else axis
    kept = [i for i in range(rank) if i not in axes]
    perm = list(axes) + kept
    moved = transpose(x, perm) if rank else x
    moved_shape = moved._value.shape
    n = int(np.prod([x._value.shape[i] for i in axes]))
    flat = reshape(moved, (n, -1))
    others = _exclusive_cumprod(flat) * _exclusive_cumprod(flat, reverse=True)
    grad = reshape(others, moved_shape)
    grad = transpose(grad, tuple(np.argsort(perm))) if rank else grad
    return grad * reshape_to(g, _kept_shape(x, axis))


def _exclusive_cumprod(x: Tensor, reverse: bool = False) -> Tensor:
    n = x._value.shape[0]
    if reverse:
        x = slice_tensor(x, (slice(None, None, -1),))
    rows = [ones(x._value.shape[1:], x.dtype)]
    for i in range(n - 1):
        rows.append(rows[-1] * slice_tensor(x, (i,)))
    out = stack(rows)
    return slice_tensor(out, (slice(None, None, -1),)) if reverse else out


def _logsumexp_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # empty: log(0) = -inf
    peak = np.where(np.isfinite(peak), peak, 0)
    out = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    kept = _kept_shape(x, axis)
    return reshape_to(g, kept) * exp(x - reshape_to(ans, kept))


def _sum_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if x.dtype.kind in "fc":  # the ufunc's reduce skips np.sum's Python wrapper
        return np.add.reduce(x, axis=axis, keepdims=keepdims)
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)  # ints stay in their type


def _mean_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if x.dtype.kind in "fc" and x.dtype.itemsize >= 4:
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        return np.add.reduce(x, axis=axis, keepdims=keepdims) / count
    if x.size == 0 and x.dtype.kind not in "fc":  # TF's integer mean of nothing is 0
        return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    # float16 accumulates in float32; integer means truncate, as TensorFlow's.
    return np.mean(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)


_sum = Primitive("Sum", _sum_kernel).defvjp(_sum_vjp)
_sum.lowering = lambda axis, keepdims: (
    f"np.add.reduce({{0}}, {axis!r}, {{0}}.dtype, None, {keepdims!r})")
_mean = Primitive("Mean", _mean_kernel).defvjp(_mean_vjp)
def _extreme_kernel(reduce: Any, lowest: bool) -> Any:
    """np.max / np.min, but an empty reduction gives the identity (the dtype's lowest value
    for max, highest for min), as TensorFlow does, instead of NumPy's ValueError."""
    def kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        if x.size:
            return reduce(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "b":
            start = not lowest
        elif x.dtype.kind in "iu":
            start = np.iinfo(x.dtype).min if lowest else np.iinfo(x.dtype).max
        else:
            start = -np.inf if lowest else np.inf
        return reduce(x, axis=axis, keepdims=keepdims, initial=start)
    return kernel


_max = Primitive("Max", _extreme_kernel(np.max, lowest=True)).defvjp(_extremum_vjp)
_min = Primitive("Min", _extreme_kernel(np.min, lowest=False)).defvjp(_extremum_vjp)
_prod = Primitive("Prod", lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims,
                                                            dtype=x.dtype)).defvjp(_prod_vjp)
# log-sum-exp is a primitive for numerical stability (the max is subtracted before exp).
_logsumexp = Primitive("ReduceLogSumExp", _logsumexp_kernel).defvjp(_logsumexp_vjp)
_all = Primitive("All", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
                 differentiable=False)
_any = Primitive("Any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
                 differentiable=False)

reduce_sum = _reduction(_sum, "fciub")
reduce_mean = _reduction(_mean, "fciu")
reduce_max = _reduction(_max, "fiu")
reduce_min = _reduction(_min, "fiu")
reduce_prod = _reduction(_prod, "fciu")
reduce_logsumexp = _reduction(_logsumexp, "f")
reduce_all = _reduction(_all, "b")
reduce_any = _reduction(_any, "b")
reduce_sum.__doc__ = "The sum over `axis` (all axes when None)."
reduce_mean.__doc__ = "The mean over `axis` (integer inputs give an integer mean)."
reduce_max.__doc__ = "The maximum over `axis`; ties share the gradient."
reduce_min.__doc__ = "The minimum over `axis`; ties share the gradient."
reduce_prod.__doc__ = "The product over `axis`."
reduce_logsumexp.__doc__ = "log(sum(exp(x))) over `axis`, computed stably."
reduce_all.__doc__ = "Logical AND over `axis`."
reduce_any.__doc__ = "Logical OR over `axis`."


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: Optional[str] = None) -> Tensor:
    """The population variance over `axis`."""
    x = convert_to_tensor(input_tensor)
    require(x, "fc", "reduce_variance")
    mean = reduce_mean(x, axis=axis, keepdims=True)
    return reduce_mean(square(x - mean), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> Tensor:
    """The population standard deviation over `axis`."""
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def count_nonzero(input: Any, axis: Any = None, keepdims: Any = None,  # noqa: A002 - TF's name
                  dtype: Any = _dtypes.int64, name: Optional[str] = None) -> Tensor:
    """The number of nonzero elements over `axis` (all axes when None), as `dtype`; strings
    count when non-empty."""
    from tapeflow.ops.math_ops import not_equal
    x = convert_to_tensor(input)
    zero = convert_to_tensor(np.zeros((), x._value.dtype))
    # Counted in int64, then cast, as TensorFlow does (a float dtype sums no fractions).
    flags = cast(not_equal(x, zero), _dtypes.int64)
    counts = reduce_sum(flags, axis=axis, keepdims=bool(keepdims))
    return cast(counts, dtype)


def _arg_reduction(tf_name: str, kernel: Any):
    prim = Primitive(tf_name, kernel, differentiable=False)

    @reads_static
    def op(input: Any, axis: Any = None, output_type: Any = _dtypes.int64,  # noqa: A002
           name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input)
        require(x, "fiu", tf_name)
        a = int(np.asarray(0 if axis is None else static_value(axis, f"{tf_name}: axis")))
        rank = x._value.ndim
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Expected dimension in the range [{-rank}, {rank}), "
                                       f"but got {a} [Op:{tf_name}]")
        a %= rank
        return bind(prim, (x,), {"axis": a, "dtype": _dtypes.as_dtype(output_type)._np})
    return op


argmax = _arg_reduction("ArgMax", lambda x, axis, dtype: np.argmax(x, axis=axis).astype(dtype))
argmin = _arg_reduction("ArgMin", lambda x, axis, dtype: np.argmin(x, axis=axis).astype(dtype))
argmax.__doc__ = "The index of the largest value along `axis` (default 0)."
argmin.__doc__ = "The index of the smallest value along `axis` (default 0)."


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Optional[bool] = None,  # noqa: A002
         name: Optional[str] = None) -> Tensor:
    """The vector norm over `axis` (all elements when None): 'euclidean', 1, 2, np.inf or any
    p > 0; with two axes and 'fro' or 'euclidean', the Frobenius norm."""
    x = convert_to_tensor(tensor)
    keepdims = bool(keepdims)
    if ord in ("euclidean", "fro", 2, 2.0):
        # sqrt(sum(x^2)) with a safe gradient at zero: d/dx = x / norm, 0 where norm is 0.
        return _safe_sqrt(reduce_sum(x * x, axis=axis, keepdims=keepdims))
    if ord in (1, 1.0):
        return reduce_sum(abs_(x), axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(abs_(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, (int, float)) and ord > 0:
        p = float(ord)
        return pow_(reduce_sum(pow_(abs_(x), p), axis=axis, keepdims=keepdims), 1.0 / p)
    raise ValueError(f"'ord' must be a supported vector norm, got {ord}")


def _safe_sqrt(s: Tensor) -> Tensor:
    zero = equal(s, zeros_like(s))
    root = sqrt(where(zero, ones_like(s), s))
    return where(zero, zeros_like(s), root)


__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_logsumexp", "reduce_all", "reduce_any", "reduce_variance", "reduce_std",
           "argmax", "argmin", "norm"]
