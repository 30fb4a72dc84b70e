"""Reductions over axes (sum, mean, max, min, prod, std, variance, logsumexp, all, any,
argmax, argmin, norm) and their rules."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import ShapedArray, has_static_shape
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.ragged_tensor import fallback as ragged_fallback
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_input, convert_to_tensor, is_bfloat16, require
from tapeflow.ops._static import read_at_run_time, reads_static, static_value
from tapeflow.ops.array_ops import (broadcast_to_shape, fill_shape, invert_permutation,
                                    reshape, reshape_to, run_time_int, transpose)
from tapeflow.ops.array_ops import shape as shape_of
from tapeflow.ops.math_ops import (zeros_of, abs as abs_, cast, conj, equal, exp, is_finite,
                                   maximum, not_equal, pow as pow_, real, reciprocal, sqrt, square,
                                   stop_gradient, where, ones_like, zeros_like)


def _axes(axis: Any, rank: Optional[int], op_name: str) -> Optional[tuple]:
    """`axis` (None, an int, a list or an int tensor) as a sorted tuple of non-negative axes;
    None means all axes. With `rank` None (traced, unknown rank) the axes stay as given,
    negative ones too: the kernel, seeing the rank, checks them as the graph runs."""
    if axis is None:
        return None
    if isinstance(axis, (TensorLike, np.ndarray)):
        axis = np.asarray(getattr(axis, "_value", axis)).tolist()
    if not isinstance(axis, (list, tuple)):
        axis = [axis]
    result = []
    for a in axis:
        if isinstance(a, float):
            raise TypeError(f"Cannot convert {a!r} to EagerTensor of dtype int32")
        a = int(a)
        if rank is not None:
            if not -rank <= a < rank:  # a scalar has no axis at all
                raise InvalidArgumentError(f"Invalid reduction dimension ({a} for input with "
                                           f"{rank} dimension(s) [Op:{op_name}]")
            a %= rank
        if a in result:
            raise InvalidArgumentError(f"Invalid reduction arguments: Axes contains duplicate "
                                       f"dimension: {a} [Op:{op_name}]")
        result.append(a)
    return tuple(sorted(result))


def _reduced(op_name: str, dtype: Any = None) -> Any:
    """The shape rule of a reduction: the input's dtype (or `dtype`), the reduced axes
    dropped (kept as 1 with keepdims). An unknown rank stays unknown unless every axis goes."""
    def rule(x: ShapedArray, axis: Optional[tuple], keepdims: bool) -> ShapedArray:
        out_dtype = x.dtype if dtype is None else dtype
        if x.shape is None:
            return ShapedArray(() if axis is None and not keepdims else None, out_dtype)
        rank = len(x.shape)
        if axis is None:
            axis = range(rank)
        for a in axis:
            if not -rank <= a < rank:
                raise ValueError(f"Invalid reduction dimension {a} for input with {rank} "
                                 f"dimensions. for '{op_name}' with input shapes: "
                                 f"{dims_text(x.shape)}")
        gone = {a % rank for a in axis}
        if keepdims:
            return ShapedArray(tuple(1 if i in gone else d for i, d in enumerate(x.shape)),
                               out_dtype)
        return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in gone), out_dtype)
    return rule


def _kept_shape(x: Tensor, axis: Optional[tuple]) -> tuple:
    """x's shape with the reduced axes set to 1: the cotangent's broadcastable shape."""
    shape = x._value.shape
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def _reduction(prim: Primitive, allowed: str, no_axes_is_identity: bool = True):
    """The public op of a reduction. With `axis=[]`, linear reductions return their input
    (as TF's, whose gradients then have no second order); the others still run their
    kernel, so their second derivatives are TF's zeros rather than None."""
    # Chosen once, off the eager path: bool inputs convert Python values to bool.
    convert = (lambda v: convert_input(v, "b")) if allowed == "b" else convert_to_tensor

    @reads_static
    def op(input_tensor: Any, axis: Any = None, keepdims: bool = False,
           name: Optional[str] = None) -> Tensor:
        try:
            x = convert(input_tensor)
        except (TypeError, ValueError) as exc:  # a RaggedTensor: over its present values
            return ragged_fallback(exc, "reduce", op, input_tensor, axis, keepdims)
        require(x, allowed, prim.name)
        shape = x._value.shape
        if context.state.graph is not None and read_at_run_time(axis):   # as TF's input
            axis = run_time_int(axis, "reduction_indices", prim.name, 1, (shape,), at_most=True)
            return bind(_AT_RUN_TIME[prim], (x, axis), {"keepdims": bool(keepdims)})
        axes = _axes(static_value(axis, f"{prim.name}: axis"),
                     None if shape is None else len(shape), prim.name)
        if axes == () and no_axes_is_identity:
            return x
        return bind(prim, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    return op


def _sum_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    if not has_static_shape(x._value):
        return spread_like(g, x, axis, keepdims)
    if axis is None and g._value.size == 1:  # a sum of everything (a loss): one fill
        return fill_shape(reshape_to(g, ()), x._value.shape)
    return broadcast_to_shape(reshape_to(g, _kept_shape(x, axis)), x._value.shape)


def _mean_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    if not has_static_shape(x._value):
        return bind(_mean_grad, (g, x), {"axis": axis, "keepdims": keepdims})
    count = x._value.size // max(ans._value.size, 1) if x._value.size else 1
    return _sum_vjp(g / count, ans, x, axis, keepdims)  # scale the small side


# -- reductions' adjoints over shapes known only at run time (traces with unknown dims) ----------
# A reduction's gradient spreads the cotangent back over the reduced axes. With x's shape known
# when tracing, that is a reshape and a broadcast with the shape baked in; otherwise these ops
# take x itself as an input and read its shape when they run. No TensorFlow op has these
# names: TF builds the same from Shape, Reshape and BroadcastTo on shape tensors.

def _spread_kernel(g: np.ndarray, x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if not keepdims:
        g = np.reshape(g, (1,) * x.ndim) if axis is None else np.expand_dims(g, axis)
    return np.broadcast_to(g, x.shape)


def _mean_grad_kernel(g: np.ndarray, x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    count = x.size // max(g.size, 1) if x.size else 1
    return _spread_kernel(g, x, axis, keepdims) / np.asarray(count, g.dtype)


def _like_x(g: ShapedArray, x: ShapedArray, **attrs: Any) -> ShapedArray:
    return ShapedArray(x.shape, g.dtype)


_spread = Primitive("SumGrad", _spread_kernel, shape_rule=_like_x)
_spread.defvjp(lambda gg, ans, g, x, axis, keepdims: (
    bind(_sum, (gg,), {"axis": axis, "keepdims": keepdims}), None))
_mean_grad = Primitive("MeanGrad", _mean_grad_kernel, shape_rule=_like_x)
_mean_grad.defvjp(lambda gg, ans, g, x, axis, keepdims: (
    bind(_mean, (gg,), {"axis": axis, "keepdims": keepdims}), None))


def spread_like(g: Tensor, x: Tensor, axis: Optional[tuple], keepdims: bool) -> Tensor:
    """`g`, the result of reducing `x` over `axis` (non-negative axes, or None for all),
    broadcast back to `x`'s shape as the graph runs."""
    return bind(_spread, (g, x), {"axis": axis, "keepdims": keepdims})


def _unbroadcast_kernel(g: np.ndarray, like: np.ndarray) -> np.ndarray:
    if g.shape == like.shape:
        return g
    lead = g.ndim - like.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(like.shape)
                                      if d == 1 and g.shape[lead + i] != 1)
    return _sum_kernel(g, axes, False).reshape(like.shape)


# The cotangent of a broadcast input, summed back to that input's run-time shape (the
# central unbroadcast, `fit_to_input`, where shapes are unknown when tracing), and its adjoint.
_unbroadcast_like = Primitive("UnbroadcastLike", _unbroadcast_kernel,
                              shape_rule=lambda g, like: ShapedArray(like.shape, g.dtype))
_broadcast_like = Primitive("BroadcastLike", lambda x, like: np.broadcast_to(x, like.shape),
                            shape_rule=lambda x, like: ShapedArray(like.shape, x.dtype))
_unbroadcast_like.defvjp(lambda g, ans, x, like: (bind(_broadcast_like, (g, x)), None))
_broadcast_like.defvjp(lambda g, ans, x, like: (bind(_unbroadcast_like, (g, x)), None))
_unbroadcast_like.defjvp(lambda tangents, ans, x, like: bind(_unbroadcast_like,
                                                             (tangents[0], like)))
_broadcast_like.defjvp(lambda tangents, ans, x, like: bind(_broadcast_like, (tangents[0], like)))


def broadcast_like(x: Tensor, like: Any) -> Tensor:
    """`x` broadcast to `like`'s shape, as the graph runs."""
    return bind(_broadcast_like, (x, like))


def unbroadcast_like(g: Tensor, like: Any) -> Tensor:
    """`g` summed over the axes broadcasting added to `like`'s shape, as the graph runs."""
    return bind(_unbroadcast_like, (g, like))


def sum_over(x: Tensor, axes: tuple, keepdims: bool = False) -> Tensor:
    """The sum over `axes` (non-negative, sorted), unchecked: for derivative rules."""
    return bind(_sum, (x,), {"axis": axes, "keepdims": keepdims}) if axes else x


def _extremum_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    # Ties share the gradient equally, as TensorFlow's Max/Min gradient does.
    if not has_static_shape(x._value):
        mask = cast(equal(x, spread_like(ans, x, axis, keepdims)), x.dtype)
        count = reduce_sum(mask, axis=axis, keepdims=True)
        return mask * spread_like(g, x, axis, keepdims) / spread_like(count, x, axis, True)
    kept = _kept_shape(x, axis)
    mask = cast(equal(x, reshape_to(ans, kept)), x.dtype)
    count = reduce_sum(mask, axis=axis, keepdims=True)
    return mask * reshape_to(g, kept) / count


def _prod_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    # TF's rule: the product of all other elements, as exclusive cumulative products from
    # both ends (exact with zeros), over the reduced axes moved first and flattened. Built
    # from Cumprod, so its derivatives are TF's too (zeros, not None, for one element).
    from tapeflow.ops.manip_ops import cumprod
    if not has_static_shape(x._value):
        if axis is None and x._value.shape is None:   # unknown rank: over the flattened x
            others = _product_of_others(reshape(x, [-1]), (0,), cumprod)
            return spread_like(g, x, axis, keepdims) * reshape(others, shape_of(x))
        return _prod_vjp_unknown_shape(g, x, axis, keepdims, cumprod)
    shape = x._value.shape
    rank = len(shape)
    axes = tuple(range(rank)) if axis is None else axis
    kept = [i for i in range(rank) if i not in axes]
    perm = list(axes) + kept
    moved = transpose(x, perm) if rank else x
    reduced = int(np.prod([shape[i] for i in axes]))
    flat = reshape(moved, (reduced, int(np.prod([shape[i] for i in kept]))))
    others = cumprod(flat, 0, exclusive=True) * cumprod(flat, 0, exclusive=True, reverse=True)
    grad = reshape(others, moved._value.shape)
    grad = transpose(grad, tuple(np.argsort(perm))) if rank else grad
    return reshape_to(g, _kept_shape(x, axis)) * grad


def _prod_vjp_unknown_shape(g: Tensor, x: Tensor, axis: Any, keepdims: bool,
                            cumprod: Any) -> Tensor:
    axes = tuple(range(x._value.ndim)) if axis is None else axis
    return spread_like(g, x, axis, keepdims) * _product_of_others(x, axes, cumprod)


def _product_of_others(x: Tensor, axes: tuple, cumprod: Any) -> Tensor:
    """For each element, the product of the other elements of its block over `axes`, with
    no division (exact with zeros): along the first axis, the exclusive products from both
    ends; times, recursively, the product of the other lines of the block."""
    first, rest = axes[0], axes[1:]
    along = cumprod(x, first, exclusive=True) * cumprod(x, first, exclusive=True, reverse=True)
    if not rest:
        return along
    lines = bind(_prod, (x,), {"axis": (first,), "keepdims": True})
    return along * _product_of_others(lines, rest, cumprod)


def _logsumexp_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # empty: log(0) = -inf
    peak = np.where(np.isfinite(peak), peak, 0)
    out = np.log(_sum_kernel(np.exp(x - peak), axis, True)) + peak
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    # TF's gradient of its composite log(sum(exp(x - m))) + m, with m the max (0 if not
    # finite) held constant: g / sum * exp(x - m). exp(x - ans) would inherit ans's rounding
    # (in float32 at |x| = 1e6, a 3% error).
    peak = bind(_max, (x,), {"axis": axis, "keepdims": True})
    peak = stop_gradient(where(is_finite(peak), peak, zeros_like(peak)))
    shifted = exp(x - peak)
    if not has_static_shape(x._value):
        total = bind(_sum, (shifted,), {"axis": axis, "keepdims": True})
        return spread_like(g, x, axis, keepdims) * reciprocal(total) * shifted
    total = sum_over(shifted, tuple(range(x._value.ndim)) if axis is None else axis, True)
    return reshape_to(g, _kept_shape(x, axis)) * reciprocal(total) * shifted


def _sum_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if x.dtype.kind in "fc":  # the ufunc's reduce skips np.sum's Python wrapper
        return np.add.reduce(x, axis=axis, keepdims=keepdims)
    if is_bfloat16(x.dtype):
        return _bfloat16_sum(x, axis, keepdims)
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)  # ints stay in their type


def _bfloat16_sum(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    # TF's CPU kernels sum bfloat16 in float32 and round once; NumPy's bfloat16 reduce
    # rounds every partial sum (1000 values near 0.5 sum to 256, not 496).
    return np.add.reduce(x, axis=axis, dtype=np.float32, keepdims=keepdims).astype(x.dtype)


def _mean_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if x.dtype.kind in "fc" and x.dtype.itemsize >= 4:
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        return np.add.reduce(x, axis=axis, keepdims=keepdims) / count
    if is_bfloat16(x.dtype):  # in float32, rounded once, as the sum
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        total = np.add.reduce(x, axis=axis, dtype=np.float32, keepdims=keepdims)
        with np.errstate(invalid="ignore"):  # an empty mean is NaN, as TF's
            return (total / np.float32(count)).astype(x.dtype)
    if x.size == 0 and x.dtype.kind not in "fc":  # TF's integer mean of nothing is 0
        return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    # float16 accumulates in float32; integer means truncate, as TensorFlow's.
    return np.mean(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)


_sum = Primitive("Sum", _sum_kernel, linear=True,
                 shape_rule=_reduced("Sum")).defvjp(_sum_vjp)
# bfloat16 (kind 'V') sums in float32, as the kernel: the lowering sees no dtypes.
_sum.lowering = lambda axis, keepdims: (
    f"(np.add.reduce({{0}}, {axis!r}, {{0}}.dtype, None, {keepdims!r}) "
    f"if {{0}}.dtype.kind != 'V' else "
    f"np.add.reduce({{0}}, {axis!r}, 'f4', None, {keepdims!r}).astype({{0}}.dtype))")
_mean = Primitive("Mean", _mean_kernel, linear=True,
                  shape_rule=_reduced("Mean")).defvjp(_mean_vjp)
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


_max = Primitive("Max", _extreme_kernel(np.max, lowest=True),
                 shape_rule=_reduced("Max")).defvjp(_extremum_vjp)
_min = Primitive("Min", _extreme_kernel(np.min, lowest=False),
                 shape_rule=_reduced("Min")).defvjp(_extremum_vjp)
def _prod_kernel(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if is_bfloat16(x.dtype):  # in float32, rounded once, as TF's CPU kernel
        return np.prod(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(x.dtype)
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


_prod = Primitive("Prod", _prod_kernel, shape_rule=_reduced("Prod")).defvjp(_prod_vjp)
# log-sum-exp is a primitive for numerical stability (the max is subtracted before exp).
_logsumexp = Primitive("ReduceLogSumExp", _logsumexp_kernel,
                       shape_rule=_reduced("ReduceLogSumExp")).defvjp(_logsumexp_vjp)
_all = Primitive("All", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
                 differentiable=False, shape_rule=_reduced("All", np.bool_))
_any = Primitive("Any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
                 differentiable=False, shape_rule=_reduced("Any", np.bool_))


# -- reductions over axes read when the graph runs ------------------------------------------------
# Each reduction has a twin that takes its axes as a second input (TF's reduction_indices):
# the kernel checks them as TF's and runs the reduction's kernel. TF's shape function then
# knows x's rank with keepdims, and not even the rank without. The adjoints are the static
# ones written with the axes as the graph runs: `_restored` puts back the reduced axes as 1s.

def _run_time_axes(x: np.ndarray, axis: np.ndarray, op_name: str) -> tuple:
    if np.ndim(axis) > 1:
        raise InvalidArgumentError(f"Invalid reduction arguments: Axes must be a scalar or "
                                   f"vector, got shape {dims_text(np.shape(axis))} "
                                   f"[Op:{op_name}]")
    return _axes(np.asarray(axis).tolist(), x.ndim, op_name)


def _reduce_at_run_time(prim: Primitive) -> Primitive:
    """`prim`'s twin over the axes given as its second input."""
    def kernel(x: np.ndarray, axis: np.ndarray, keepdims: bool) -> np.ndarray:
        return prim.impl(x, _run_time_axes(x, axis, prim.name), keepdims)

    def rule(x: ShapedArray, axis: ShapedArray, keepdims: bool) -> ShapedArray:
        like = prim.shape_rule(x, axis=(), keepdims=True)   # the dtype (and rank) as prim's
        return ShapedArray(like.shape and (None,) * len(like.shape) if keepdims else None,
                           like.dtype)
    return Primitive(prim.name, kernel, register=False, differentiable=prim.differentiable,
                     shape_rule=rule)


def _reduced_layout_kernel(x: np.ndarray, axis: np.ndarray, op_name: str) -> tuple:
    """For x reduced over the run-time `axis`: the reduced shape with the axes kept as 1, the
    count of elements reduced into each output, and the perm moving the reduced axes first
    with its [reduced, kept] element counts (a product's adjoint)."""
    axes = _run_time_axes(x, axis, op_name)
    axes = tuple(range(x.ndim)) if axes is None else axes
    kept = [i for i in range(x.ndim) if i not in axes]
    reduced = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return (np.array([1 if i in axes else d for i, d in enumerate(x.shape)], np.int32),
            np.array(reduced, np.int64), np.array(list(axes) + kept, np.int32),
            np.array([reduced, np.prod([x.shape[i] for i in kept], dtype=np.int64)], np.int32))


_reduced_layout = Primitive(
    "ReducedLayout", _reduced_layout_kernel, multiple_results=True, differentiable=False,
    register=False, shape_rule=lambda x, axis, op_name: (
        ShapedArray((x.ndim,), np.int32), ShapedArray((), np.int64),
        ShapedArray((x.ndim,), np.int32), ShapedArray((2,), np.int32)))


def _layout(x: Tensor, axis: Tensor, op_name: str) -> tuple:
    return bind(_reduced_layout, (x, axis), {"op_name": op_name})


def _restored(g: Tensor, x: Tensor, axis: Tensor, keepdims: bool, op_name: str) -> Tensor:
    """`g` (x reduced over the run-time `axis`) broadcast back over x's shape."""
    if not keepdims:
        g = reshape(g, _layout(x, axis, op_name)[0])
    return broadcast_like(g, x)


def _sum_at_run_time_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor,
                         keepdims: bool) -> tuple:
    return _restored(g, x, axis, keepdims, "Sum"), None


def _mean_at_run_time_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor,
                          keepdims: bool) -> tuple:
    count = _layout(x, axis, "Mean")[1]   # 1 for an empty mean: there is nothing to divide
    return _restored(g, x, axis, keepdims, "Mean") / cast(maximum(count, 1), g.dtype), None


def _extremum_at_run_time_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor,
                              keepdims: bool) -> tuple:
    # Ties share the gradient equally, as the static rule.
    mask = cast(equal(x, _restored(ans, x, axis, keepdims, "Max")), x.dtype)
    count = bind(_AT_RUN_TIME[_sum], (mask, axis), {"keepdims": True})
    return mask * _restored(g, x, axis, keepdims, "Max") / count, None


def _logsumexp_at_run_time_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor,
                               keepdims: bool) -> tuple:
    peak = bind(_AT_RUN_TIME[_max], (x, axis), {"keepdims": True})
    peak = stop_gradient(where(is_finite(peak), peak, zeros_like(peak)))
    shifted = exp(x - peak)
    total = bind(_AT_RUN_TIME[_sum], (shifted, axis), {"keepdims": True})
    return _restored(g, x, axis, keepdims, "ReduceLogSumExp") * reciprocal(total) * shifted, None


def _prod_at_run_time_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor,
                          keepdims: bool) -> tuple:
    # The static rule's: the reduced axes moved first and flattened, the product of the
    # others as exclusive cumulative products from both ends, moved back.
    from tapeflow.ops.manip_ops import cumprod
    _, _, perm, flat_shape = _layout(x, axis, "Prod")
    moved = transpose(x, perm)
    flat = reshape(moved, flat_shape)
    others = cumprod(flat, 0, exclusive=True) * cumprod(flat, 0, exclusive=True, reverse=True)
    grad = transpose(reshape(others, shape_of(moved)), invert_permutation(perm))
    return _restored(g, x, axis, keepdims, "Prod") * grad, None


def _batched_reduction_vjp(prim: Primitive) -> Any:
    # Reduction rules are `weights(x) * reshape(g, kept_shape)`: elementwise in g after the
    # reshape, so the plain rule at a cotangent of ones gives the weights.
    def rule(g: Tensor, ans: Tensor, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
        weights = prim.vjp(ones_like(ans), ans, x, axis=axis, keepdims=keepdims)
        rows = g._value.shape[0]
        return weights * reshape(g, (rows,) + _kept_shape(x, axis))
    return rule


for _prim in (_sum, _mean, _max, _min, _prod, _logsumexp):
    _prim.defbatch(_batched_reduction_vjp(_prim))

_AT_RUN_TIME = {prim: _reduce_at_run_time(prim)
                for prim in (_sum, _mean, _max, _min, _prod, _logsumexp, _all, _any)}
for _prim, _rule in ((_sum, _sum_at_run_time_vjp), (_mean, _mean_at_run_time_vjp),
                     (_max, _extremum_at_run_time_vjp), (_min, _extremum_at_run_time_vjp),
                     (_prod, _prod_at_run_time_vjp), (_logsumexp, _logsumexp_at_run_time_vjp)):
    _AT_RUN_TIME[_prim].defvjp(_rule)

reduce_sum = tf_export("math.reduce_sum", "reduce_sum")(_reduction(_sum, "fciu"))
reduce_mean = tf_export("math.reduce_mean", "reduce_mean")(_reduction(_mean, "fciu"))
reduce_max = tf_export("math.reduce_max", "reduce_max")(_reduction(_max, "fiu"))
reduce_min = tf_export("math.reduce_min", "reduce_min")(_reduction(_min, "fiu"))
reduce_prod = tf_export("math.reduce_prod", "reduce_prod")(
    _reduction(_prod, "fciu", no_axes_is_identity=False))
reduce_logsumexp = tf_export("math.reduce_logsumexp", "reduce_logsumexp")(
    _reduction(_logsumexp, "f", no_axes_is_identity=False))
reduce_all = tf_export("math.reduce_all", "reduce_all")(_reduction(_all, "b"))
reduce_any = tf_export("math.reduce_any", "reduce_any")(_reduction(_any, "b"))
reduce_sum.__doc__ = "The sum over `axis` (all axes when None)."
reduce_mean.__doc__ = "The mean over `axis` (integer inputs give an integer mean)."
reduce_max.__doc__ = "The maximum over `axis`; ties share the gradient."
reduce_min.__doc__ = "The minimum over `axis`; ties share the gradient."
reduce_prod.__doc__ = "The product over `axis`."
reduce_logsumexp.__doc__ = "log(sum(exp(x))) over `axis`, computed stably."
reduce_all.__doc__ = "Logical AND over `axis`."
reduce_any.__doc__ = "Logical OR over `axis`."


@tf_export("math.reduce_variance", "reduce_variance")
def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: Optional[str] = None) -> Tensor:
    """The population variance over `axis`."""
    x = convert_to_tensor(input_tensor)
    means = reduce_mean(x, axis=axis, keepdims=True)  # bools and strings: Mean's error
    if means.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"{means.dtype}.")
    diff = x - means
    # A complex deviation counts by |d|^2 (a real variance), as in TF.
    squared = real(conj(diff) * diff) if diff.dtype.is_complex else square(diff)
    return reduce_mean(squared, axis=axis, keepdims=keepdims)


@tf_export("math.reduce_std", "reduce_std")
def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> Tensor:
    """The population standard deviation over `axis`."""
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


@tf_export("math.count_nonzero")
def count_nonzero(input: Any, axis: Any = None, keepdims: Any = None,  # noqa: A002 - TF's name
                  dtype: Any = _dtypes.int64, name: Optional[str] = None) -> Tensor:
    """The number of nonzero elements over `axis` (all axes when None), as `dtype`; strings
    count when non-empty."""
    x = convert_to_tensor(input)
    if x._value.dtype.kind != "b":  # bools count as they are
        x = not_equal(x, convert_to_tensor(zeros_of((), x._value.dtype)))
    # Counted in int64, then cast, as TensorFlow does (a float dtype sums no fractions).
    flags = cast(x, _dtypes.int64)
    counts = reduce_sum(flags, axis=axis, keepdims=bool(keepdims))
    return cast(counts, dtype)


def _arg_kernel(reduce: Any, is_max: bool) -> Any:
    """np.argmax / np.argmin with TF's (Eigen's) rule for floats: NaN never wins, nor does a
    value at or beyond the dtype's extreme (lowest for argmax, highest for argmin); a slice
    with no winner gives index 0. The check runs on the picked values only."""
    def kernel(x: np.ndarray, axis: int, dtype: np.dtype) -> np.ndarray:
        out = reduce(x, axis=axis)
        if x.dtype.kind == "f":
            info = np.finfo(x.dtype)
            bound = info.min if is_max else info.max
            picked = np.take_along_axis(x, np.expand_dims(out, axis), axis)
            if not np.all(picked > bound if is_max else picked < bound):
                filled = np.where(np.isnan(x), -np.inf if is_max else np.inf, x)
                out = reduce(filled, axis=axis)
                best = np.take_along_axis(filled, np.expand_dims(out, axis), axis)
                wins = np.squeeze(best > bound if is_max else best < bound, axis)
                out = np.where(wins, out, 0)
        return np.asarray(out).astype(dtype)
    return kernel


_ARG_OUTPUT_TYPES = (np.int16, np.uint16, np.int32, np.int64)


def _arg_reduced(op_name: str) -> Any:
    """The shape rule of ArgMax / ArgMin: the input's shape without `axis`, in `dtype`."""
    def rule(x: ShapedArray, axis: int, dtype: np.dtype) -> ShapedArray:
        if x.shape is None:
            return ShapedArray(None, dtype)
        rank = len(x.shape)
        if not -rank <= axis < rank:
            raise ValueError(f"Dimension ({axis}) must be in the range [{-rank}, {rank}), where "
                             f"{rank} is the number of dimensions in the input. for "
                             f"'{op_name}' with input shapes: {dims_text(x.shape)}")
        return ShapedArray(x.shape[:axis % rank] + x.shape[axis % rank + 1:], dtype)
    return rule


def _checked_arg_axis(a: int, shape: tuple, tf_name: str) -> int:
    """ArgMax's axis made non-negative, checked as TF's kernel checks it."""
    rank = len(shape)
    if not -rank <= a < rank:
        raise InvalidArgumentError(f"Expected dimension in the range [{-rank}, {rank}), "
                                   f"but got {a} [Op:{tf_name}]")
    a %= rank
    if shape[a] == 0:
        raise InvalidArgumentError(f"Reduction axis {a} is empty in shape "
                                   f"{dims_text(shape)} [Op:{tf_name}]")
    return a


def _arg_output_type(output_type: Any, tf_name: str) -> np.dtype:
    out_type = _dtypes.as_dtype(output_type)
    if out_type._np not in _ARG_OUTPUT_TYPES:
        raise InvalidArgumentError(f"Value for attr 'output_type' of {cpp_name(out_type)} "
                                   f"is not in the list of allowed values: int16, uint16, "
                                   f"int32, int64 [Op:{tf_name}]")
    return out_type._np


def _arg_at_run_time(tf_name: str, kernel: Any) -> Primitive:
    """ArgMax / ArgMin with the axis as a second input, read when the graph runs: TF's
    shape function then knows the output's rank only."""
    def run(x: np.ndarray, axis: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return kernel(x, _checked_arg_axis(int(axis), x.shape, tf_name), dtype)

    def rule(x: ShapedArray, axis: ShapedArray, dtype: np.dtype) -> ShapedArray:
        return ShapedArray(None if x.shape is None else (None,) * (len(x.shape) - 1), dtype)
    return Primitive(tf_name, run, differentiable=False, register=False, shape_rule=rule)


def _arg_reduction(tf_name: str, kernel: Any):
    prim = Primitive(tf_name, kernel, differentiable=False, shape_rule=_arg_reduced(tf_name))
    at_run_time = _arg_at_run_time(tf_name, kernel)

    @reads_static
    def op(input: Any, axis: Any = None, output_type: Any = _dtypes.int64,  # noqa: A002
           name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input)
        require(x, "fiub", tf_name)
        if read_at_run_time(axis):   # read when the graph runs, as TF's dimension input
            if isinstance(axis, Tensor) and axis.dtype not in (_dtypes.int32, _dtypes.int64):
                raise TypeError(f"axis tensor dtypes <dtype: '{axis.dtype.name}'> is not "
                                f"supported")
            axis = run_time_int(axis, "dimension", tf_name, 0, (x._value.shape,))
            return bind(at_run_time, (x, axis),
                        {"dtype": _arg_output_type(output_type, tf_name)})
        a = int(np.asarray(0 if axis is None else static_value(axis, f"{tf_name}: axis")))
        shape = x._value.shape
        rank = len(shape)
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Expected dimension in the range [{-rank}, {rank}), "
                                       f"but got {a} [Op:{tf_name}]")
        out_type = _arg_output_type(output_type, tf_name)
        return bind(prim, (x,), {"axis": _checked_arg_axis(a, shape, tf_name),
                                 "dtype": out_type})
    return op


argmax = tf_export("math.argmax", "argmax")(
    _arg_reduction("ArgMax", _arg_kernel(np.argmax, is_max=True)))
argmin = tf_export("math.argmin", "argmin")(
    _arg_reduction("ArgMin", _arg_kernel(np.argmin, is_max=False)))
argmax.__doc__ = "The index of the largest value along `axis` (default 0)."
argmin.__doc__ = "The index of the smallest value along `axis` (default 0)."


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Optional[bool] = None,  # noqa: A002
         name: Optional[str] = None) -> Tensor:
    """The vector norm over `axis` (all elements when None): 'euclidean', 1, 2, np.inf or any
    p > 0; with two axes and 'fro' or 'euclidean', the Frobenius norm."""
    x = convert_to_tensor(tensor)
    keepdims = bool(keepdims)
    if ord in ("euclidean", "fro", 2, 2.0):
        # TF's plain sqrt(sum(x * conj(x))): its gradient at a zero norm is NaN, as in TF.
        return sqrt(reduce_sum(x * conj(x), axis=axis, keepdims=keepdims))
    if ord in (1, 1.0):
        return reduce_sum(abs_(x), axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(abs_(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, (int, float)) and ord > 0:
        p = float(ord)
        return pow_(reduce_sum(pow_(abs_(x), p), axis=axis, keepdims=keepdims), 1.0 / p)
    raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
