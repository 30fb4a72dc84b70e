"""Convolution and pooling: conv1d, conv2d (NHWC), conv2d_transpose, depthwise_conv2d,
max_pool2d, avg_pool2d, with their backward ops as primitives.

Every kernel works on a strided view of the padded input, `(N, OH, OW, KH, KW, C)` (no copy).
A convolution copies it once into a matrix (im2col) and does one matrix product (BLAS, on
every core); its filter gradient is one product with that matrix, its input gradient one
product and a scatter-add back (col2im). Pools reduce tap by tap. Every loop in Python runs
over the *kernel* positions (KH*KW slices), never over pixels.

The derivative rules pair the ops up as transposes of each other, written with these same
tapeflow ops, so higher derivatives work:
  Conv2D(x, w)                    linear in x and in w
  Conv2DBackpropInput(g, w)       = J_x^T g     (also `conv2d_transpose`)
  Conv2DBackpropFilter(x, g)      = J_w^T g
  AvgPool(x) / AvgPoolGrad(g)     transposes of each other
  MaxPool(x) / MaxPoolGrad(x, g) / MaxPoolGradGrad(x, c)   route through the argmax of x
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tapeflow.framework.abstract import ShapedArray, has_static_shape, shape_error
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.errors import (AbortedError, InvalidArgumentError, NotFoundError,
                                        OperatorNotAllowedInGraphError, UnimplementedError)
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.convert import enum_name, mismatch_error
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor, is_bfloat16, require
from tapeflow.ops._static import is_traced, reads_variables
from tapeflow.ops.array_ops import (concat, expand_dims, gather, reshape, shape, squeeze,
                                    transpose)
from tapeflow.ops.manip_ops import pad
from tapeflow.ops.math_ops import zeros_like

# -- geometry ----------------------------------------------------------------------------------


def _pair(value: Any, name: str, op_name: str, rank: int = 4) -> tuple:
    """TF's `strides`/`dilations`/`ksize` argument (int, 1, 2 or `rank` ints) as (h, w)."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    value = [int(v) for v in value]
    if len(value) == 1:
        return value[0], value[0]
    if len(value) == 2:
        return value[0], value[1]
    if len(value) == rank:
        if value[0] != 1 or value[-1] != 1:
            raise InvalidArgumentError(f"{name} in the batch and depth dimensions must be 1 "
                                       f"[Op:{op_name}]")
        return value[1], value[2]
    raise ValueError(f"{name} should be of length 1, 2 or {rank}. Received: {name}={value} "
                     f"of length {len(value)}")


# The kernels whose `padding` attr also allows "EXPLICIT" (TF 2.21's op definitions).
_EXPLICIT_PADDING_OPS = ("Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "MaxPool")


def _check_padding_name(padding: str, op_name: str) -> str:
    """A string `padding` as TF's op attr takes it: exactly 'SAME' or 'VALID' ('valid', as
    Keras spells it, is TF's InvalidArgumentError, measured with TF 2.21)."""
    if padding not in ("SAME", "VALID"):
        allowed = '"SAME", "VALID", "EXPLICIT"' if op_name in _EXPLICIT_PADDING_OPS \
            else '"SAME", "VALID"'
        raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in the "
                                   f"list of allowed values: {allowed} [Op:{op_name}]")
    return padding


def _padding_mode(padding: Any, op_name: str) -> Any:
    if isinstance(padding, str):
        return _check_padding_name(padding, op_name)
    pads = [tuple(int(p) for p in pair) for pair in padding]  # explicit, NHWC: 4 pairs
    if len(pads) != 4 or pads[0] != (0, 0) or pads[3] != (0, 0):
        raise InvalidArgumentError(f"explicit padding must be 4 pairs with zero batch and depth "
                                   f"padding, got {padding} [Op:{op_name}]")
    return pads[1], pads[2]


def _out_and_pads(size: int, k: int, stride: int, dilation: int, mode: Any,
                  op_name: str) -> tuple:
    """Output length and (before, after) padding along one spatial axis, as TensorFlow."""
    eff = (k - 1) * dilation + 1
    if mode == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, (total // 2, total - total // 2)
    before, after = (0, 0) if mode == "VALID" else mode
    out = _explicit_out(size + before + after, eff, stride)
    if out < 0:
        raise InvalidArgumentError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {eff}, stride: {stride}] [Op:{op_name}]")
    return out, (before, after)


def _explicit_out(padded: int, eff: int, stride: int) -> int:
    """TensorFlow's output length for a padded length and an effective filter length (its
    kernels' formula: C++'s division truncates, so it goes negative only below -stride)."""
    span = padded - eff + stride
    return span // stride if span >= 0 else -(-span // stride)


def _geometry(in_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple, mode: Any,
              op_name: str) -> tuple:
    """(out_hw, pads) for the op's attributes. Where a size is unknown while tracing, out_hw is
    None and pads hold the padding as far as it is known ("SAME" depends on the sizes): the
    kernel works the rest out when it runs (`_run_time_geometry`)."""
    if None in in_hw or None in k_hw:
        if mode == "SAME":
            return None, mode
        return None, ((0, 0),) * len(in_hw) if mode == "VALID" else mode  # explicit pairs
    modes = (mode,) * len(in_hw) if isinstance(mode, str) else mode
    geometry = [_out_and_pads(in_hw[i], k_hw[i], strides[i], dilations[i], modes[i], op_name)
                for i in range(len(in_hw))]
    return tuple(g[0] for g in geometry), tuple(g[1] for g in geometry)


def _run_time_geometry(in_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple,
                       pads: Any, op_name: str) -> tuple:
    """A kernel's (pads, out_hw) where the trace left them to run time (out_hw None), with the
    errors the wrapper raises eagerly."""
    out_hw, pads = _geometry(in_hw, k_hw, strides, dilations, pads, op_name)
    return pads, out_hw


# -- shape rules -------------------------------------------------------------------------------
# The ops are NHWC and their attributes hold the resolved geometry: explicit `pads` for every
# padding mode, so each output length is the explicit formula (`_explicit_out`), which gives
# SAME's ceil(size / stride) too. A length whose size (or pads) is unknown is None. The errors
# are TF's shape-function errors (ValueError).


def _rank4(op_name: str, avals: tuple, i: int, rank: int = 4) -> tuple:
    """The dims of input `i`, which must be rank `rank` (all unknown where the rank is)."""
    shape = avals[i].shape
    if shape is None:
        return (None,) * rank
    if len(shape) != rank:
        raise shape_error(op_name, avals, f"Shape must be rank 4 but is rank {len(shape)}")
    return shape


def _windowed(op_name: str, avals: tuple, in_hw: tuple, k_hw: tuple, strides: tuple,
              dilations: tuple, pads: tuple) -> tuple:
    """The (OH, OW) of a window op (convolution or pool) over the padded input."""
    if pads == "SAME":  # pads known only as the graph runs: SAME gives ceil(size / stride)
        return tuple(None if size is None else -(-size // stride)
                     for size, stride in zip(in_hw, strides))
    out = []
    for size, k, stride, dilation, (before, after) in zip(in_hw, k_hw, strides, dilations,
                                                          pads):
        if None in (size, k, before, after):
            out.append(None)
            continue
        eff, padded = (k - 1) * dilation + 1, size + before + after
        length = _explicit_out(padded, eff, stride)
        if length < 0:
            raise shape_error(op_name, avals, f"Negative dimension size caused by subtracting "
                                               f"{eff} from {padded}")
        out.append(length)
    return tuple(out)


def _conv_rule(op_name: str = "Conv2D", rank: int = 4):
    """[N, O..., C_out]; a grouped convolution's depths must divide as in TF."""
    def rule(x: ShapedArray, w: ShapedArray, strides: tuple, dilations: tuple,
             pads: tuple, out_hw: Any = None) -> ShapedArray:
        avals = (x, w)
        dims = _rank4(op_name, avals, 0, rank)
        filter_dims = _rank4(op_name, avals, 1, rank)
        depth, (filter_depth, out_depth) = dims[-1], filter_dims[-2:]
        if depth is not None and filter_depth:
            if depth % filter_depth:
                raise shape_error(op_name, avals, f"Depth of input ({depth}) is not a multiple "
                                                  f"of input depth of filter ({filter_depth})")
            groups = depth // filter_depth
            if out_depth is not None and groups and out_depth % groups:
                raise shape_error(op_name, avals, f"Depth of output ({out_depth}) is not a "
                                                  f"multiple of the number of groups ({groups})")
        out = _windowed(op_name, avals, dims[1:-1], filter_dims[:-2], strides, dilations, pads)
        return ShapedArray((dims[0],) + out + (out_depth,), x.dtype)
    return rule


def _backprop_input_rule(op_name: str = "Conv2DBackpropInput", rank: int = 4):
    """The input's shape (an attribute, its unknown dims read from `sizes` as the graph
    runs); the cotangent's depth is the filter's output depth."""
    def rule(g: ShapedArray, w: ShapedArray, *sizes: ShapedArray, input_shape: tuple,
             **geometry: Any) -> ShapedArray:
        avals = (g, w)
        depth = _rank4(op_name, avals, 0, rank)[-1]
        filter_out = _rank4(op_name, avals, 1, rank)[-1]
        if depth is not None and filter_out is not None and depth != filter_out:
            raise shape_error(op_name, avals,
                              f"Dimensions must be equal, but are {depth} and {filter_out}")
        return ShapedArray(input_shape, g.dtype)
    return rule


def _backprop_filter_rule(op_name: str = "Conv2DBackpropFilter", rank: int = 4):
    """The filter's shape (an attribute, its unknown dims read from `sizes` as the graph
    runs)."""
    def rule(x: ShapedArray, g: ShapedArray, *sizes: ShapedArray, filter_shape: tuple,
             **geometry: Any) -> ShapedArray:
        for i in (0, 1):
            _rank4(op_name, (x, g), i, rank)
        return ShapedArray(filter_shape, x.dtype)
    return rule


def _pool_rule(op_name: str, dtype_of: int = 0, rank: int = 4):
    """MaxPool, AvgPool and MaxPoolGradGrad (and their 3-D kin): [N, O..., C] of input 0, in
    input `dtype_of`'s dtype."""
    def rule(*avals: ShapedArray, ksize: tuple, strides: tuple, pads: tuple,
             out_hw: Any = None) -> ShapedArray:
        dims = _rank4(op_name, avals, 0, rank)
        out = _windowed(op_name, avals, dims[1:-1], ksize, strides, (1,) * len(ksize), pads)
        return ShapedArray((dims[0],) + out + (dims[-1],), avals[dtype_of].dtype)
    return rule


def _max_pool_grad_rule(op_name: str = "MaxPoolGrad", rank: int = 4):
    """The cotangent of MaxPool's input: x's shape, g's dtype."""
    def rule(x: ShapedArray, g: ShapedArray, **geometry: Any) -> ShapedArray:
        return ShapedArray(_rank4(op_name, (x, g), 0, rank), g.dtype)
    return rule


def _avg_pool_grad_rule(op_name: str = "AvgPoolGrad", rank: int = 4):
    """The cotangent of AvgPool's input: its shape (an attribute, its unknown dims read from
    `sizes` as the graph runs), g's dtype."""
    def rule(g: ShapedArray, *sizes: ShapedArray, input_shape: tuple,
             **geometry: Any) -> ShapedArray:
        _rank4(op_name, (g,), 0, rank)
        return ShapedArray(input_shape, g.dtype)
    return rule


# -- NumPy kernels -------------------------------------------------------------------------------


def _pad(x: np.ndarray, pads: tuple, value: float = 0) -> np.ndarray:
    if not _padded(pads):
        return x
    return np.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),), constant_values=value)


def _crop(x: np.ndarray, pads: tuple) -> np.ndarray:
    """`x` without the padding `pads` (one (before, after) pair per spatial axis)."""
    return x[(slice(None),) + tuple(slice(a, x.shape[i + 1] - b) for i, (a, b) in
                                    enumerate(pads))]


def _padded_shape(shape: tuple, pads: tuple) -> tuple:
    return (shape[0],) + tuple(d + a + b for d, (a, b) in zip(shape[1:-1], pads)) + shape[-1:]


def _patches(xp: np.ndarray, k_hw: tuple, out_hw: tuple, strides: tuple,
             dilations: tuple, writeable: bool = False) -> np.ndarray:
    """A view `(N, OH, OW, KH, KW, C)` of the padded input's windows (read-only unless
    `writeable`, for windows that do not overlap); `(N, O..., K..., C)` for any number of
    spatial axes."""
    xp = np.ascontiguousarray(xp)
    spatial = xp.strides[1:-1]
    shape = (xp.shape[0],) + tuple(out_hw) + tuple(k_hw) + (xp.shape[-1],)
    steps = ((xp.strides[0],) + tuple(s * t for s, t in zip(spatial, strides)) +
             tuple(s * d for s, d in zip(spatial, dilations)) + (xp.strides[-1],))
    return as_strided(xp, shape, steps, writeable=writeable)


def _scatter(taps: np.ndarray, padded_shape: tuple, pads: tuple, strides: tuple,
             dilations: tuple) -> np.ndarray:
    """Adds window values `taps` `(KH, KW, N, OH, OW, C)` back to their input positions and
    crops the padding: the transpose of `_patches`. Tap-major, each add reads one contiguous
    block (window-major rows would make every add stride through all KH*KW taps)."""
    out = np.zeros(padded_shape, taps.dtype)
    rank = len(strides)
    k, o = taps.shape[:rank], taps.shape[rank + 1:2 * rank + 1]
    for tap in (np.ndindex(*k) if 0 not in o else ()):  # no windows (an empty output): zeros
        view = out[_tap_index(tap, o, strides, dilations)]
        np.add(view, taps[tap], out=view)
    return _crop(out, pads)


def _tap_index(tap: tuple, out: tuple, strides: tuple, dilations: tuple) -> tuple:
    """The index of the (padded) positions that filter tap `tap` of every window reads."""
    return (slice(None),) + tuple(slice(t * d, t * d + s * (n - 1) + 1, s) for t, n, s, d in
                                  zip(tap, out, strides, dilations))


def _groups(in_depth: int, filter_depth: int) -> int:
    """Grouped convolution: the input channels split into in_depth / filter_depth groups,
    each convolved with its own slice of the output channels (TF's Conv2D)."""
    return in_depth // filter_depth


def _check_groups(depth: int, filter_depth: int, out_depth: int) -> None:
    """TensorFlow's Conv2D errors for depths that do not split into groups."""
    if depth % filter_depth:
        raise InvalidArgumentError(f"input depth must be evenly divisible by filter depth: "
                                   f"{depth} vs {filter_depth} [Op:Conv2D]")
    if out_depth % (depth // filter_depth):  # a grouped convolution splits the outputs too
        raise InvalidArgumentError(f"output depth must be evenly divisible by number of "
                                   f"groups: {out_depth} vs {depth // filter_depth} "
                                   f"[Op:Conv2D]")


_FEW_CHANNELS = 4  # below this depth, im2col copies fastest in (KH, KW, C, N, OH, OW) order


def _im2col(cols: np.ndarray) -> np.ndarray:
    """Windows `(N, OH, OW, KH, KW, C)` as one `(N*OH*OW, KH*KW*C)` matrix, copied once. With
    few channels the copy runs in long rows along OW, so the matrix comes back as the
    transpose of a contiguous one, which BLAS reads as fast."""
    rank = (cols.ndim - 2) // 2
    windows, taps = int(np.prod(cols.shape[:rank + 1])), int(np.prod(cols.shape[rank + 1:]))
    if cols.shape[-1] < _FEW_CHANNELS:
        order = tuple(range(rank + 1, cols.ndim)) + tuple(range(rank + 1))
        return np.ascontiguousarray(cols.transpose(order)).reshape(taps, windows).T
    return cols.reshape(windows, taps)


def _grouped_dot(cols: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """Contracts the trailing (K..., C) of `cols` with a `[K..., C / groups, O]` filter,
    group by group (groups == 1 is one matrix product)."""
    rank, (cg, o) = w.ndim - 2, w.shape[-2:]
    if groups == 1:
        return np.dot(_im2col(cols), w.reshape(-1, o)).reshape(cols.shape[:rank + 1] + (o,))
    lead = cols.shape[:-rank - 1]
    c = cols.reshape(lead + (-1, groups, cg))
    out = np.einsum("...kgc,kcgo->...go", c, w.reshape(-1, cg, groups, o // groups),
                    optimize=True)
    return out.reshape(lead + (o,))


def _padded(pads: tuple) -> bool:
    return any(a or b for a, b in pads)


def _tap_slices(tap: int, size: int, out: int, stride: int, dilation: int,
                before: int) -> tuple:
    """For one filter tap along one axis: the outputs whose input lies inside x (not in the
    padding), as (output slice, input slice)."""
    offset = tap * dilation - before  # output o reads input o * stride + offset
    first = max(0, -(offset // stride))  # ceil(-offset / stride)
    last = min(out - 1, (size - 1 - offset) // stride)
    if last < first:
        return None
    start = first * stride + offset
    return slice(first, last + 1), slice(start, start + (last - first) * stride + 1, stride)


def _taps(x_hw: tuple, k_hw: tuple, out_hw: tuple, strides, dilations, pads):
    """(tap, output index, input index) for each filter tap with any real input."""
    for tap in np.ndindex(*k_hw):
        spans = [_tap_slices(t, *args) for t, args in
                 zip(tap, zip(x_hw, out_hw, strides, dilations, (p[0] for p in pads)))]
        if None not in spans:
            yield (tap, (slice(None),) + tuple(s[0] for s in spans),
                   (slice(None),) + tuple(s[1] for s in spans))


def _tap_filter(w: np.ndarray, tap: tuple) -> np.ndarray:
    """Filter tap `tap` of `w` as a `[1, ..., 1, C, O]` filter."""
    return w[tuple(slice(t, t + 1) for t in tap)]


def _conv_by_taps(x, w, strides, dilations, pads, out_hw, groups):
    """Conv2D over the real terms only, one filter tap at a time: padding contributes no
    term (as in TF's kernels), so an inf or nan weight never meets a padding zero."""
    out = np.zeros((x.shape[0],) + tuple(out_hw) + (w.shape[-1],), np.result_type(x, w))
    ones = (None,) * (w.ndim - 2)
    for tap, out_index, in_index in _taps(x.shape[1:-1], w.shape[:-2], out_hw, strides,
                                          dilations, pads):
        xs = x[in_index][(Ellipsis,) + ones + (slice(None),)]
        out[out_index] += _grouped_dot(xs, _tap_filter(w, tap), groups)
    return out


def _widened_if_nonfinite(kernel):
    """Runs a float16/float32 kernel again in float64 when its result is not finite (one
    cheap check on the output): TF's kernels accumulate with fused multiply-adds, so
    inf + (-1e30 * 1e30) is inf there, where a float32 product would overflow to -inf and
    make nan."""
    @functools.wraps(kernel)
    def run(a, b, *args, **attrs):
        out = kernel(a, b, *args, **attrs)
        if out.dtype in (np.float16, np.float32) and not np.isfinite(out).all():
            wide = kernel(a.astype(np.float64), b.astype(np.float64), *args, **attrs)
            out = wide.astype(out.dtype)
        return out
    return run


@_widened_if_nonfinite
def _conv_kernel(x, w, strides, dilations, pads, out_hw):
    if out_hw is None:  # traced with unknown sizes: the wrapper's checks run here
        if w.shape[-2]:
            _check_groups(x.shape[-1], w.shape[-2], w.shape[-1])
        pads, out_hw = _run_time_geometry(x.shape[1:-1], w.shape[:-2], strides, dilations,
                                          pads, _CONV_NAMES[x.ndim])
    if 0 in out_hw or x.size == 0 or w.size == 0:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (w.shape[-1],), np.result_type(x, w))
    groups = _groups(x.shape[-1], w.shape[-2])
    if _padded(pads) and not np.isfinite(w).all():  # the rare case: a check on the filter
        return _conv_by_taps(x, w, strides, dilations, pads, out_hw, groups).astype(x.dtype)
    cols = _patches(_pad(x, pads), w.shape[:-2], out_hw, strides, dilations)
    return _grouped_dot(cols, w, groups).astype(x.dtype, copy=False)


@_widened_if_nonfinite
def _backprop_input_kernel(g, w, *sizes, input_shape, strides, dilations, pads, out_hw):
    if sizes:
        input_shape = _run_time_shape(g.shape, w.shape, sizes[0], input_shape)
    if out_hw is None:
        pads, out_hw = _run_time_geometry(input_shape[1:-1], w.shape[:-2], strides, dilations,
                                          pads, _INPUT_NAMES[g.ndim])
        if tuple(g.shape[1:-1]) != out_hw or g.shape[-1] != w.shape[-1] or \
                input_shape[-1] % w.shape[-2]:
            _transposeshape_error(g.shape, w.shape, input_shape)
    if g.size == 0 or w.size == 0:
        return np.zeros(input_shape, g.dtype)
    groups = _groups(input_shape[-1], w.shape[-2])
    return _scatter(_input_taps(g, w, groups), _padded_shape(input_shape, pads), pads, strides,
                    dilations).astype(g.dtype, copy=False)


def _input_taps(g: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """Each filter tap's share of the input gradient, `(KH, KW, N, OH, OW, C)` (`(K..., N,
    O..., C)`): one matrix product per tap (groups == 1) into its own contiguous block."""
    k, (cg, o) = w.shape[:-2], w.shape[-2:]
    if groups > 1:
        gg = g.reshape(-1, groups, o // groups)
        return np.einsum("mgo,kcgo->kmgc", gg, w.reshape(-1, cg, groups, o // groups),
                         optimize=True).reshape(k + g.shape[:-1] + (cg * groups,))
    rows = g.reshape(-1, o)
    taps = np.empty(k + (rows.shape[0], cg), np.result_type(g, w))
    for tap in np.ndindex(*k):
        np.dot(rows, w[tap].T, out=taps[tap])
    return taps.reshape(k + g.shape[:-1] + (cg,))


def _run_time_shape(g: tuple, w: tuple, sizes: np.ndarray, pattern: tuple) -> tuple:
    """The input's shape read as the graph runs; it must have the dims the trace knew."""
    shape = tuple(int(d) for d in sizes)
    if len(shape) != len(pattern) or any(p is not None and p != d for p, d in zip(pattern, shape)):
        _transposeshape_error(g, w, shape)
    return shape


def _filter_dot(xs: np.ndarray, g: np.ndarray, groups: int) -> np.ndarray:
    """sum over (N, O...) of x-window (..., K..., C) times g (..., O), per group:
    `[K..., C / groups, O]`."""
    rank, o = g.ndim - 2, g.shape[-1]
    if groups == 1:
        return np.dot(_im2col(xs).T, g.reshape(-1, o)).reshape(xs.shape[rank + 1:] + (o,))
    k, c = xs.shape[rank + 1:-1], xs.shape[-1]
    windows = int(np.prod(xs.shape[:rank + 1]))
    out = np.einsum("mkgc,mgo->kcgo", xs.reshape(windows, -1, groups, c // groups),
                    g.reshape(windows, groups, o // groups), optimize=True)
    return out.reshape(k + (c // groups, o))


@_widened_if_nonfinite
def _backprop_filter_kernel(x, g, *sizes, filter_shape, strides, dilations, pads, out_hw):
    if sizes:
        filter_shape = tuple(int(d) for d in sizes[0])
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:-1], filter_shape[:-2], strides, dilations,
                                          pads, _FILTER_NAMES[x.ndim])
    if 0 in out_hw or x.size == 0 or 0 in filter_shape:
        return np.zeros(filter_shape, x.dtype)
    groups = _groups(x.shape[-1], filter_shape[-2])
    if _padded(pads) and not np.isfinite(g).all():  # real terms only: no 0 * inf at padding
        out = np.zeros(filter_shape, np.result_type(x, g))
        ones = (None,) * (x.ndim - 2)
        for tap, out_index, in_index in _taps(x.shape[1:-1], filter_shape[:-2], out_hw,
                                              strides, dilations, pads):
            xs = x[in_index][(Ellipsis,) + ones + (slice(None),)]
            out[tuple(slice(t, t + 1) for t in tap)] = _filter_dot(xs, g[out_index], groups)
        return out.astype(x.dtype, copy=False)
    cols = _patches(_pad(x, pads), filter_shape[:-2], out_hw, strides, dilations)
    return _filter_dot(cols, g, groups).astype(x.dtype, copy=False)


# The same kernels run 2-D (NHWC) and 3-D (NDHWC) convolutions; the op names follow the rank.
_CONV_NAMES = {4: "Conv2D", 5: "Conv3D"}
_INPUT_NAMES = {4: "Conv2DBackpropInput", 5: "Conv3DBackpropInputV2"}
_FILTER_NAMES = {4: "Conv2DBackpropFilter", 5: "Conv3DBackpropFilterV2"}


def _conv_primitives(rank: int) -> tuple:
    """The convolution, its input gradient and its filter gradient for rank-`rank` operands,
    their VJPs pairing them up as transposes of each other."""
    names = _CONV_NAMES[rank], _INPUT_NAMES[rank], _FILTER_NAMES[rank]
    conv = Primitive(names[0], _conv_kernel, shape_rule=_conv_rule(names[0], rank))
    backprop_input = Primitive(names[1], _backprop_input_kernel,
                               shape_rule=_backprop_input_rule(names[1], rank))
    backprop_filter = Primitive(names[2], _backprop_filter_kernel,
                                shape_rule=_backprop_filter_rule(names[2], rank))
    # <c, conv(x, w)> is bilinear: each rule is one of the three ops with the roles swapped.
    conv.defvjp(lambda g, ans, x, w, **a: (
        _shaped_as(backprop_input, (g, w), x, "input_shape", a),
        _shaped_as(backprop_filter, (x, g), w, "filter_shape", a)))
    backprop_input.defvjp(lambda c, ans, g, w, *sizes, input_shape, **a: (
        bind(conv, (c, w), a),
        _shaped_as(backprop_filter, (c, g), w, "filter_shape", a)) + _no_sizes(sizes))
    backprop_filter.defvjp(lambda c, ans, x, g, *sizes, filter_shape, **a: (
        _shaped_as(backprop_input, (g, c), x, "input_shape", a),
        bind(conv, (x, c), a)) + _no_sizes(sizes))
    return conv, backprop_input, backprop_filter


def _geom_attrs(attrs: dict) -> dict:
    return {k: attrs[k] for k in ("strides", "dilations", "pads", "out_hw")}


def _shaped_as(prim: Primitive, inputs: tuple, like: Tensor, name: str, attrs: dict) -> Tensor:
    """`prim` (a backprop op) whose output has `like`'s shape: an attribute `name`, and where
    the trace does not know it all, also `like`'s run-time shape as a last input."""
    if has_static_shape(like._value):
        return bind(prim, inputs, {name: like._value.shape, **attrs})
    return bind(prim, inputs + (shape(like),), {name: like._value.shape, **attrs})


def _no_sizes(sizes: tuple) -> tuple:
    return (None,) * len(sizes)  # the run-time shape input has no cotangent


_conv2d, _conv2d_backprop_input, _conv2d_backprop_filter = _conv_primitives(4)
_conv3d, _conv3d_backprop_input, _conv3d_backprop_filter = _conv_primitives(5)


def _check_rank(t: Tensor, rank: int, what: str, op_name: str) -> None:
    if t._value.ndim != rank:
        raise InvalidArgumentError(f"{what} must be {rank}-dimensional: {list(t._value.shape)} "
                                   f"[Op:{op_name}]")


_CONV_TYPES = "half, bfloat16, float, double, int32"  # Conv2D's and its backprop's T


def _conv_operands(x: Any, w: Any, op_name: str, int32: bool = True) -> tuple:
    """Both operands as tensors of one dtype; Conv2D and Conv2DBackpropInput also take int32
    (TF's CPU kernels), DepthwiseConv2dNative floats only."""
    x, w = convert_to_tensor(x), convert_to_tensor(w)
    if not isinstance(x, Tensor) or x._value.dtype != w._value.dtype:
        w = convert_to_tensor(w, dtype_hint=x.dtype)
    if not int32:
        require(x, "f", op_name)
    elif x._value.dtype.kind != "f" and x._value.dtype != np.int32 and \
            not is_bfloat16(x._value.dtype):
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                   f"allowed values: {_CONV_TYPES} [Op:{op_name}]")
    if x._value.dtype != w._value.dtype:
        raise mismatch_error(op_name, 1, x.dtype, w.dtype)
    return x, w


@tf_export("nn.conv2d")
def conv2d(input: Any, filters: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
           data_format: str = "NHWC", dilations: Any = None,
           name: Optional[str] = None) -> Tensor:
    """2-D convolution of NHWC `input` with `filters` of shape `[KH, KW, C_in, C_out]`.

    Args:
      strides, dilations: an int, or 1, 2 or 4 ints (batch and depth entries must be 1).
      padding: 'SAME', 'VALID', or explicit `[[0, 0], [t, b], [l, r], [0, 0]]`.
    """
    if data_format != "NHWC":
        raise InvalidArgumentError(f"Conv2D supports only data_format NHWC here, got "
                                   f"{data_format} [Op:Conv2D]")
    x, w = _conv_operands(input, filters, "Conv2D")
    _check_rank(x, 4, "input", "Conv2D")
    _check_rank(w, 4, "filter", "Conv2D")
    if 0 in w._value.shape:
        _empty_filter_error(w, "Conv2D")
    depth, (filter_depth, out_depth) = x._value.shape[3], w._value.shape[2:]
    if None not in (depth, filter_depth, out_depth):  # else the kernel checks (`_groups`)
        _check_groups(depth, filter_depth, out_depth)
    return _bind_conv2d(x, w, strides, padding, dilations, "Conv2D")


def _bind_conv2d(x: Tensor, w: Tensor, strides: Any, padding: Any, dilations: Any,
                 op_name: str) -> Tensor:
    """Conv2D of checked NHWC operands; `op_name` (Conv2D, DepthwiseConv2dNative) names the
    op in geometry errors."""
    if 0 in w._value.shape:
        _empty_filter_error(w, op_name)
    strides = _pair(strides, "strides", op_name)
    dilations = _pair(1 if dilations is None else dilations, "dilations", op_name)
    out_hw, pads = _geometry(x._value.shape[1:3], w._value.shape[:2], strides, dilations,
                             _padding_mode(padding, op_name), op_name)
    return bind(_conv2d, (x, w), {"strides": strides, "dilations": dilations, "pads": pads,
                                  "out_hw": out_hw})


def _empty_filter_error(w: Tensor, op_name: str) -> None:
    """TensorFlow's CPU errors for a filter with a zero dimension: float32 runs oneDNN, which
    refuses any; the Eigen kernels refuse a zero input depth only."""
    if w._value.dtype == np.float32:
        raise InvalidArgumentError(f"filter must not have zero elements (i.e. all dimensions "
                                   f"must be non-zero) [Op:{op_name}]")
    if w._value.shape[2] == 0:
        raise InvalidArgumentError(f"filter depth must be stricly positive, got 0 "
                                   f"[Op:{op_name}]")


@tf_export("nn.conv1d")
def conv1d(input: Any, filters: Any, stride: Any, padding: Any,  # noqa: A002 - TF's name
           data_format: str = "NWC", dilations: Any = None,
           name: Optional[str] = None) -> Tensor:
    """1-D convolution of NWC `input` with `filters` `[K, C_in, C_out]` (via conv2d, as TF)."""
    if not isinstance(padding, str):  # TF's conv1d hands it to the Conv2D op wrapper as is
        _explicit_padding_type_error(padding)
    x, w = _conv_operands(input, filters, "Conv2D")
    _check_rank(x, 3, "input", "Conv2D")
    _check_rank(w, 3, "filter", "Conv2D")
    stride = stride if isinstance(stride, (int, np.integer)) else list(stride)[-2 if len(
        list(stride)) == 3 else 0]
    dil = 1 if dilations is None else (dilations if isinstance(dilations, (int, np.integer))
                                       else list(dilations)[-2 if len(list(dilations)) == 3
                                                            else 0])
    if has_static_shape(x._value) and has_static_shape(w._value):
        n, width, c = x._value.shape
        x, w = reshape(x, (n, 1, width, c)), reshape(w, (1,) + w._value.shape)
    else:
        x, w = expand_dims(x, 1), expand_dims(w, 0)
    y = conv2d(x, w, (1, stride), padding, dilations=(1, dil))
    return squeeze(y, axis=1)


@tf_export("nn.conv2d_transpose")
@reads_variables
def conv2d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002 - TF's name
                     strides: Any, padding: Any = "SAME", data_format: str = "NHWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """The transpose (gradient) of conv2d: `filters` is `[KH, KW, C_out, C_in]` and the result
    has `output_shape`."""
    g, w = _conv_operands(input, filters, "Conv2DBackpropInput")
    _check_rank(g, 4, "input", "Conv2DBackpropInput")
    _check_rank(w, 4, "filter", "Conv2DBackpropInput")
    if is_traced(output_shape):  # read as the graph runs, as TF's input_sizes
        sizes = (convert_to_tensor(output_shape),)
        out_shape = (None, None, None, w._value.shape[2])  # the depth the filter gives
    else:
        sizes = ()
        out_shape = tuple(int(d) for d in np.asarray(
            output_shape._value if hasattr(output_shape, "_value") else output_shape
        ).reshape(-1))
    strides = _pair(strides, "strides", "Conv2DBackpropInput")
    dilations = _pair(1 if dilations is None else dilations, "dilations",
                      "Conv2DBackpropInput")
    onednn = g._value.dtype == np.float32 and isinstance(padding, str)  # dilates; Eigen not
    if dilations != (1, 1) and not onednn:
        raise InvalidArgumentError("Current CPU implementations do not yet support dilation "
                                   "rates larger than 1. [Op:Conv2DBackpropInput]")
    out_hw, pads = _geometry(out_shape[1:3], w._value.shape[:2], strides, dilations,
                             _padding_mode(padding, "Conv2DBackpropInput"),
                             "Conv2DBackpropInput")
    _check_transpose_shapes(g._value.shape, w._value.shape, out_shape, out_hw or (None, None))
    return bind(_conv2d_backprop_input, (g, w) + sizes, {
        "input_shape": out_shape, "strides": strides, "dilations": dilations, "pads": pads,
        "out_hw": out_hw})


def _check_transpose_shapes(g: tuple, w: tuple, out_shape: tuple, out_hw: tuple) -> None:
    """conv2d_transpose's operands must be what a conv2d to `out_shape` would give (dims
    unknown while tracing are checked by the kernel, or by NumPy, when the graph runs)."""
    def differ(a: Optional[int], b: Optional[int]) -> bool:
        return a is not None and b is not None and a != b

    if differ(g[1], out_hw[0]) or differ(g[2], out_hw[1]) or differ(g[3], w[3]) or \
            differ(out_shape[3], w[2]):
        _transposeshape_error(g, w, out_shape)


def _transposeshape_error(g: tuple, w: tuple, out_shape: tuple) -> None:
    raise InvalidArgumentError(
        f"Conv2DBackpropInput: input shape {list(g)} does not match filter {list(w)} and "
        f"output_shape {list(out_shape)} [Op:Conv2DBackpropInput]")


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                     data_format: Optional[str] = None, dilations: Any = None,
                     name: Optional[str] = None) -> Tensor:
    """Depthwise conv: `filter` `[KH, KW, C, M]` gives `C * M` output channels, each input
    channel convolved with its own M filters: the grouped Conv2D with C groups of filter
    `[KH, KW, 1, C * M]` (only real terms: an inf input meets no other channel's weights)."""
    x, w = _conv_operands(input, filter, "DepthwiseConv2dNative", int32=False)
    _check_rank(x, 4, "input", "DepthwiseConv2dNative")
    _check_rank(w, 4, "filter", "DepthwiseConv2dNative")
    kh, kw, c, m = w._value.shape
    if x._value.shape[3] != c and None not in (x._value.shape[3], c):
        raise InvalidArgumentError(f"input and filter must have the same depth: "
                                   f"{x._value.shape[3]} vs {c} [Op:DepthwiseConv2dNative]")
    if 0 in w._value.shape:
        _empty_filter_error(w, "DepthwiseConv2dNative")
    strides = _pair(strides, "strides", "DepthwiseConv2dNative")
    rate = _pair(1 if dilations is None else dilations, "dilations", "DepthwiseConv2dNative")
    if None in w._value.shape:  # the trace does not know the filter: its shape as it runs
        sizes = shape(w)
        grouped = reshape(w, [sizes[0], sizes[1], 1, -1])
    else:
        grouped = reshape(w, (kh, kw, 1, c * m))
    if rate != (1, 1):
        return _depthwise_with_space_to_batch(x, grouped, strides, padding, rate)
    return _bind_conv2d(x, grouped, strides, padding, None, "DepthwiseConv2dNative")


def _depthwise_with_space_to_batch(x: Tensor, w: Tensor, strides: tuple, padding: Any,
                                   rate: tuple) -> Tensor:
    """TF's dilated depthwise_conv2d (`with_space_to_batch`): the input, padded for the
    dilated filter (SAME ignores the strides), is split into rate[0] * rate[1] phases, each
    convolved VALID with the undilated filter and `strides`, and the phases interleaved back.
    With strides 1 this is the dilated convolution; with strides > 1 it is TF's own result."""
    mode = _padding_mode(padding, "DepthwiseConv2dNative")
    (n, h, wd, c), k_hw = x._value.shape, w._value.shape[:2]
    base = [_base_padding(k, r, mode, i) for i, (k, r) in enumerate(zip(k_hw, rate))]
    extra = [(-(size + a + b)) % r for size, (a, b), r in zip((h, wd), base, rate)]
    padded = pad(x, [[0, 0], [base[0][0], base[0][1] + extra[0]],
                     [base[1][0], base[1][1] + extra[1]], [0, 0]])
    (rh, rw), (ph, pw) = rate, padded._value.shape[1:3]
    phases = transpose(reshape(padded, (n, ph // rh, rh, pw // rw, rw, c)), (2, 4, 0, 1, 3, 5))
    y = _bind_conv2d(reshape(phases, (rh * rw * n, ph // rh, pw // rw, c)), w, strides,
                     "VALID", None, "DepthwiseConv2dNative")
    oh, ow, o = y._value.shape[1:]
    y = transpose(reshape(y, (rh, rw, n, oh, ow, o)), (2, 3, 0, 4, 1, 5))
    y = reshape(y, (n, oh * rh, ow * rw, o))
    for axis, e in ((1, extra[0]), (2, extra[1])):
        if y._value.shape[axis] - e < 0:
            raise InvalidArgumentError(f"cropped_shape[{axis - 1}]={y._value.shape[axis] - e} "
                                       f"must be non-negative [Op:BatchToSpaceND]")
    return y[:, :oh * rh - extra[0], :ow * rw - extra[1], :]


def _base_padding(k: int, rate: int, mode: Any, axis: int) -> tuple:
    """with_space_to_batch's padding along one axis: SAME pads for the dilated filter."""
    if mode == "VALID":
        return 0, 0
    if mode == "SAME":
        total = (k - 1) * rate
        return total // 2, total - total // 2
    return mode[axis]


# -- pooling -------------------------------------------------------------------------------------


def _pool_counts(shape: tuple, k_hw, strides, pads, out_hw) -> np.ndarray:
    """How many real (non-padding) inputs each window covers: AvgPool divides by it, as TF."""
    rank = len(k_hw)
    ones = np.ones((1,) + tuple(shape[1:-1]) + (1,), np.float64)
    counts = _patches(_pad(ones, pads), k_hw, out_hw, strides, (1,) * rank).sum(
        axis=_tap_axes(rank))
    return np.maximum(counts, 1)


def _tap_axes(rank: int) -> tuple:
    """The window axes of a `_patches` view."""
    return tuple(range(rank + 1, 2 * rank + 1))


def _avg_pool_kernel(x, ksize, strides, pads, out_hw):
    ones = (1,) * len(ksize)
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:-1], ksize, strides, ones, pads,
                                          _AVG_POOL_NAMES[x.ndim])
    if 0 in out_hw:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[-1],), x.dtype)
    sums = _window_sum(x, ksize, strides, pads, out_hw)
    return (sums / _pool_counts(x.shape, ksize, strides, pads, out_hw)).astype(x.dtype)


def _window_sum(x, ksize, strides, pads, out_hw) -> np.ndarray:
    """Each window's sum, added tap by tap in row-major order as TF's kernels add (so huge
    values of opposite signs cancel where they cancel in TF; a reduction over the window
    axes pairs them differently)."""
    taps = _window_taps(x, 0, ksize, strides, pads, out_hw)
    out = next(taps).copy()
    for tap in taps:
        np.add(out, tap, out=out)
    return out


def _avg_pool_grad_kernel(g, *sizes, input_shape, ksize, strides, pads, out_hw):
    if sizes:
        input_shape = tuple(int(d) for d in sizes[0])
    ones = (1,) * len(ksize)
    if out_hw is None:
        pads, out_hw = _run_time_geometry(input_shape[1:-1], ksize, strides, ones, pads,
                                          _AVG_POOL_NAMES[g.ndim] + "Grad")
    # The counts are float64: cast back, or a float32 gradient would come out float64.
    g = (g / _pool_counts(input_shape, ksize, strides, pads, out_hw)).astype(g.dtype, copy=False)
    taps = np.broadcast_to(g, tuple(ksize) + g.shape)
    return _scatter(taps, _padded_shape(input_shape, pads), pads, strides,
                    ones).astype(g.dtype, copy=False)


_AVG_POOL_NAMES = {4: "AvgPool", 5: "AvgPool3D"}


def _avg_pool_primitives(rank: int) -> tuple:
    """AvgPool and its gradient (the transpose of each other) for rank-`rank` inputs."""
    name = _AVG_POOL_NAMES[rank]
    pool = Primitive(name, _avg_pool_kernel, shape_rule=_pool_rule(name, rank=rank))
    grad = Primitive(name + "Grad", _avg_pool_grad_kernel,
                     shape_rule=_avg_pool_grad_rule(name + "Grad", rank))
    pool.defvjp(lambda g, ans, x, **a: _shaped_as(grad, (g,), x, "input_shape", a))
    grad.defvjp(lambda c, ans, g, *sizes, input_shape, **a: (
        (bind(pool, (c,), a),) + _no_sizes(sizes)))
    return pool, grad


_avg_pool, _avg_pool_grad = _avg_pool_primitives(4)
_avg_pool3d, _avg_pool3d_grad = _avg_pool_primitives(5)


def _window_max(cols: np.ndarray) -> np.ndarray:
    """Each window's max, one `np.maximum` per tap (NumPy's max over two strided axes is
    several times slower); nan propagates as in `max`."""
    out = cols[:, :, :, 0, 0, :].copy()
    for i, j in np.ndindex(*cols.shape[3:5]):
        if i or j:
            np.maximum(out, cols[:, :, :, i, j, :], out=out)
    return out


def _first_max_masks(x, ksize, strides, pads, out_hw):
    """Per tap (i, j), the mask `(N, OH, OW, C)` of windows whose TensorFlow argmax is that
    tap: their first maximum; padding never wins. Inputs with nan or -inf take TensorFlow's
    scan (`_argmax_scan`)."""
    cols = _patches(_pad(x, pads, -np.inf), ksize, out_hw, strides, (1, 1))
    if x.size and not x.min() > -np.inf:  # one cheap pass: nan or -inf somewhere
        arg = _argmax_scan(cols, x.shape, ksize, strides, pads)
        return [(i, j, arg == i * ksize[1] + j) for i, j in np.ndindex(*ksize)]
    return _first_hits(cols, _window_max(cols))


def _first_hits(cols: np.ndarray, best: np.ndarray):
    """(i, j, mask) per tap in scan order: the windows whose first tap equal to `best` is
    (i, j)."""
    free = None  # windows whose maximum no earlier tap held
    for i, j in np.ndindex(*cols.shape[3:5]):
        hit = cols[:, :, :, i, j, :] == best
        if free is None:
            free = ~hit
        else:
            hit &= free
            free ^= hit
        yield i, j, hit


def _tap_view(out: np.ndarray, i: int, j: int, out_hw: tuple, strides: tuple) -> np.ndarray:
    """The positions of padded `out` that tap (i, j) of each window reads: (N, OH, OW, C)."""
    (oh, ow), (sh, sw) = out_hw, strides
    return out[:, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw, :]


def _argmax_scan(cols, shape, ksize, strides, pads) -> np.ndarray:
    """TensorFlow's MaxPoolGrad argmax: a window's first real (non-padding) input, replaced by
    each later input strictly greater. So a leading nan keeps the gradient, a later nan never
    takes it, and an all -inf window routes it to its first input."""
    n, oh, ow, kh, kw, c = cols.shape
    real = [(np.arange(o)[:, None] * s + np.arange(k) - p[0] >= 0) &
            (np.arange(o)[:, None] * s + np.arange(k) - p[0] < size)
            for o, s, k, p, size in zip((oh, ow), strides, ksize, pads, shape[1:3])]
    best = np.zeros((n, oh, ow, c), cols.dtype)
    arg = np.full((n, oh, ow, c), -1, np.intp)
    for i in range(kh):
        for j in range(kw):
            v = cols[:, :, :, i, j, :]
            is_real = (real[0][:, i, None] & real[1][None, :, j])[None, :, :, None]
            take = is_real & ((arg < 0) | (best < v))
            np.copyto(best, v, where=take)
            arg[take] = i * kw + j
    return arg


def _max_pool_kernel(x, ksize, strides, pads, out_hw):
    """TensorFlow's MaxPool: the max of each window's non-nan inputs, starting from the
    lowest finite value (so -inf and all-nan windows give it, never -inf or nan)."""
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:3], ksize, strides, (1, 1), pads,
                                          "MaxPool")
        if 0 in out_hw and x.size and x.dtype == np.float32 and \
                _onednn_refuses(x.shape[1:3], ksize, strides, pads, out_hw):
            raise _onednn_empty_pool_error()
    if 0 in out_hw:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[3],), x.dtype)
    if x.dtype.kind in "iu":  # TF's integer MaxPool: padding is the dtype's least value
        cols = _patches(_pad(x, pads, np.iinfo(x.dtype).min), ksize, out_hw, strides, (1, 1))
        return _window_max(cols)
    cols = _patches(_pad(x, pads, -np.inf), ksize, out_hw, strides, (1, 1))
    out = _window_max(cols)
    if out.size and not out.min() > -np.inf:  # nan or -inf came out: the rare, slower way
        out = np.fmax.reduce(cols, axis=(3, 4))
        np.fmax(out, np.finfo(x.dtype).min, out=out)
    return out


def _masked(g: np.ndarray, hit: np.ndarray, bits: np.dtype) -> np.ndarray:
    """The bits of `g` where `hit`, else zero bits (+0.0): one pass with no 0 * inf = nan
    (np.where and np.add's where= run several times slower)."""
    return np.bitwise_and(g.view(bits), np.negative(hit, dtype=bits))


def _max_pool_grad_kernel(x, g, ksize, strides, pads, out_hw):
    """Adds each output's cotangent to its window's argmax, and nothing elsewhere (so an inf
    or nan cotangent reaches that input only, as in TF)."""
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:3], ksize, strides, (1, 1), pads,
                                          "MaxPoolGrad")
    bits = np.dtype(f"u{g.dtype.itemsize}")
    if ksize == strides and not _padded(pads) and 0 not in out_hw:
        out = _tiled_max_pool_grad(x, g, ksize, out_hw, bits)
        if out is not None:
            return out
    padded = (x.shape[0], x.shape[1] + sum(pads[0]), x.shape[2] + sum(pads[1]), x.shape[3])
    out = np.zeros(padded, g.dtype)
    if 0 not in out_hw:
        for i, j, hit in _first_max_masks(x, ksize, strides, pads, out_hw):
            view = _tap_view(out, i, j, out_hw, strides)
            view += _masked(g, hit, bits).view(g.dtype)  # added to zeros: -0.0 gives 0, as TF
    (t, b), (l, r) = pads
    return out[:, t:out.shape[1] - b, l:out.shape[2] - r, :]


def _tiled_max_pool_grad(x, g, ksize, out_hw, bits):
    """MaxPoolGrad where the windows tile x (ksize == strides, no padding; rows and columns
    past the last window get zeros): each input is in at most one window, so it gets `g`
    where it is its window's first maximum, else +0.0. The work runs on a tap-major copy of
    the windows, `(KH, KW, N, OH, OW, C)`: every pass contiguous (NumPy runs passes over
    NHWC taps, 32-float runs apart, several times slower). None where a window holds nan
    (TensorFlow's scan then decides, `_argmax_scan`)."""
    (oh, ow), (kh, kw) = out_hw, ksize
    taps = np.empty((kh, kw, x.shape[0], oh, ow, x.shape[3]), x.dtype)
    np.copyto(taps, _patches(x, ksize, out_hw, ksize, (1, 1)).transpose(3, 4, 0, 1, 2, 5))
    best = np.maximum.reduce(taps.reshape((kh * kw,) + taps.shape[2:]), axis=0)
    if np.isnan(best.min()):
        return None
    g_bits = (g + g.dtype.type(0)).view(bits)  # + 0: a -0.0 cotangent gives +0.0, as TF
    routed = taps if x.dtype == g.dtype else np.empty(taps.shape, g.dtype)
    routed_bits = routed.view(bits)
    # Tap (i, j) is overwritten only after its mask is taken (the scan reads it first).
    for i, j, hit in _first_hits(taps.transpose(2, 3, 4, 0, 1, 5), best):
        np.multiply(g_bits, hit, out=routed_bits[i, j])  # the bits of g or zero: no 0 * inf
    out = np.empty(x.shape, g.dtype)
    out[:, oh * kh:] = 0
    out[:, :, ow * kw:] = 0
    np.copyto(_patches(out, ksize, out_hw, ksize, (1, 1), writeable=True),
              routed.transpose(2, 3, 4, 0, 1, 5))
    return out


def _max_pool_grad_grad_kernel(x, c, ksize, strides, pads, out_hw):
    """Gathers `c` (shaped like x) at each window's argmax: the transpose of MaxPoolGrad."""
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:3], ksize, strides, (1, 1), pads,
                                          "MaxPoolGradGrad")
    out = np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[3],), c.dtype)
    if 0 not in out_hw:
        c_cols = _patches(_pad(c, pads), ksize, out_hw, strides, (1, 1))
        for i, j, hit in _first_max_masks(x, ksize, strides, pads, out_hw):
            np.copyto(out, c_cols[:, :, :, i, j, :], where=hit)
    return out


# Compiled programs may write into these kernels' results (graph/compiler.py): each returns
# an array of its own (or a view of one), never an input or a view of one.
for _kernel in (_conv_kernel, _backprop_input_kernel, _backprop_filter_kernel,
                _max_pool_kernel, _max_pool_grad_kernel):
    _kernel.fresh_result = True

_max_pool = Primitive("MaxPool", _max_pool_kernel, shape_rule=_pool_rule("MaxPool"))
_max_pool_grad = Primitive("MaxPoolGrad", _max_pool_grad_kernel,
                           shape_rule=_max_pool_grad_rule())
_max_pool_grad_grad = Primitive("MaxPoolGradGrad", _max_pool_grad_grad_kernel,
                                shape_rule=_pool_rule("MaxPoolGradGrad", dtype_of=1))
# The routing is piecewise constant in x, so x's cotangent through the grad ops is zeros (not
# None, as TensorFlow's: nested tapes give a zero second derivative).
_max_pool.defvjp(lambda g, ans, x, **a: bind(_max_pool_grad, (x, g), a))
_max_pool_grad.defvjp(lambda c, ans, x, g, **a: (zeros_like(x),
                                                 bind(_max_pool_grad_grad, (x, c), a)))
_max_pool_grad_grad.defvjp(lambda c, ans, x, cc, **a: (zeros_like(x),
                                                       bind(_max_pool_grad, (x, c), a)))


def _pool(prim: Primitive, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
          data_format: str, op_name: str) -> Tensor:
    if op_name == "AvgPool" and not isinstance(padding, str):  # AvgPool: SAME/VALID only
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    x = convert_to_tensor(input)
    _require_pool_dtype(x, op_name)
    if data_format not in ("NHWC", None):
        raise InvalidArgumentError(f"{op_name} supports only data_format NHWC here, got "
                                   f"{data_format} [Op:{op_name}]")
    _check_rank(x, 4, "input", op_name)
    ksize = _pair(ksize, "ksize", op_name)
    strides = _pair(strides, "strides", op_name)
    out_hw, pads = _geometry(x._value.shape[1:3], ksize, strides, (1, 1),
                             _padding_mode(padding, op_name), op_name)
    if op_name == "MaxPool" and out_hw is not None and 0 in out_hw and x._value.size and \
            x._value.dtype == np.float32 and _onednn_refuses(x._value.shape[1:3], ksize,
                                                              strides, pads, out_hw):
        raise _onednn_empty_pool_error()
    return bind(prim, (x,), {"ksize": ksize, "strides": strides, "pads": pads,
                             "out_hw": out_hw})


# TF's CPU MaxPool kernels: floats and the integers below (qint8 aside); AvgPool floats only.
_MAX_POOL_TYPES = ("half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, "
                   "qint8")
_MAX_POOL_DTYPES = frozenset(np.dtype(t) for t in (
    np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16, np.int8,
    np.uint16))


def _require_pool_dtype(x: Tensor, op_name: str) -> None:
    if op_name != "MaxPool":
        require(x, "f", op_name)
    elif x._value.dtype not in _MAX_POOL_DTYPES:
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                   f"of allowed values: {_MAX_POOL_TYPES} [Op:MaxPool]")


def _onednn_refuses(in_hw, ksize, strides, pads, out_hw) -> bool:
    """Whether oneDNN (TF's float32 CPU MaxPool) refuses an empty output: it recomputes
    each size as (in + pads - k) / s + 1 with C's truncating division, which gives 1, not
    TF's 0, where in + pads - k lies strictly between -s and 0."""
    return any(o == 0 and size + a + b - k + s > 0
               for size, k, s, (a, b), o in zip(in_hw, ksize, strides, pads, out_hw))


def _onednn_empty_pool_error() -> AbortedError:
    """TF's error where oneDNN refuses a float32 MaxPool's geometry (float16/float64 and
    AvgPool return the empty result)."""
    return AbortedError(
        "{{function_node __wrapped__MaxPool_device_/job:localhost/replica:0/task:0/device:"
        "CPU:0}} Compute received an exception:Status: 2, message: could not create a "
        "descriptor for a pooling forward propagation primitive, in file "
        "tensorflow/core/kernels/mkl/mkl_maxpooling_op.cc:211 [Op:MaxPool]")


@tf_export("nn.max_pool2d")
def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """Max over `ksize` windows of NHWC `input`; SAME padding never wins the max."""
    return _pool(_max_pool, input, ksize, strides, padding, data_format, "MaxPool")


@tf_export("nn.avg_pool2d")
def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """Mean over `ksize` windows of NHWC `input`; with SAME padding, the mean of the real
    inputs only (as TensorFlow)."""
    return _pool(_avg_pool, input, ksize, strides, padding, data_format, "AvgPool")


@tf_export("nn.max_pool")
def max_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.max_pool`: the input's rank picks the pool (3: 1-D NWC, 4: 2-D NHWC)."""
    pool = _pool_by_rank(input, max_pool1d, max_pool2d, "max_pool3d")
    return pool(input, ksize, strides, padding, data_format, name)


@tf_export("nn.avg_pool")
def avg_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.avg_pool`: the input's rank picks the pool (3: 1-D NWC, 4: 2-D NHWC)."""
    pool = _pool_by_rank(input, avg_pool1d, avg_pool2d, "avg_pool3d")
    return pool(input, ksize, strides, padding, data_format, name)


def _pool_by_rank(input: Any, pool1d: Any, pool2d: Any, name3d: str) -> Any:  # noqa: A002
    shape = tuple(convert_to_tensor(input)._value.shape)
    if not 3 <= len(shape) <= 5:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={shape} of rank {len(shape)}.")
    if len(shape) == 5:
        return globals()[name3d]
    return pool1d if len(shape) == 3 else pool2d


def _pool1d(pool2d: Any, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str, op_name: str) -> Tensor:
    """A 1-D pool as the 2-D pool of an NWC input viewed as N1WC (as TensorFlow does)."""
    from tapeflow.ops.array_ops import expand_dims, squeeze
    if data_format not in ("NWC", "NHWC", None):
        raise InvalidArgumentError(f"{op_name} supports only data_format NWC here, got "
                                   f"{data_format} [Op:{op_name}]")
    x = convert_to_tensor(input)
    if x._value.ndim != 3:  # TF's text: the 2-D kernel sees the expanded input
        raise InvalidArgumentError(f"Input must be 4 or 5-dimensional [Op:{op_name}]")
    k, s = _single(ksize, "ksize", op_name), _single(strides, "strides", op_name)
    if op_name == "AvgPool" and not isinstance(padding, str):  # AvgPool: SAME/VALID only
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if isinstance(padding, (list, tuple)) and len(padding) == 3:  # NWC pairs: add H's
        padding = [padding[0], [0, 0], padding[1], padding[2]]
    out = pool2d(expand_dims(x, 1), [1, 1, k, 1], [1, 1, s, 1], padding, "NHWC")
    return squeeze(out, [1])


def _single(value: Any, name: str, op_name: str) -> int:
    """A 1-D window size or stride: an int, [n] or [1, n, 1]. An attribute of TF's op: a
    tensor of the traced graph is refused as TF refuses it (never its trace-time example)."""
    if is_traced(value):
        raise OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic `tf.Tensor` is not allowed: {name} of {op_name} is an "
            f"attribute of the op, a Python int or list.")
    values = [int(v) for v in np.atleast_1d(np.asarray(getattr(value, "_value", value)))]
    if len(values) == 1:
        return values[0]
    if len(values) == 3:
        return values[1]
    raise ValueError(f"{name} should be of length 1, 1 or 3. Received: {name}={value} of length "
                     f"{len(values)}")


@tf_export("nn.max_pool1d")
def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Max over `ksize` windows along the W axis of NWC `input`."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "MaxPool")


@tf_export("nn.avg_pool1d")
def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Mean over `ksize` windows along the W axis of NWC `input` (SAME: of the real inputs)."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "AvgPool")


@tf_export("nn.convolution")
def convolution(input: Any, filters: Any, strides: Any = None,  # noqa: A002 - TF's name
                padding: str = "VALID", data_format: Optional[str] = None,
                dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.convolution` for 1-D and 2-D convolutions; as in TF, the filter's rank sets the
    number of spatial dimensions and a 2-D input may have several batch dimensions."""
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    spatial = w._value.ndim - 2
    if spatial not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: "
                         f"num_spatial_dims={spatial}.")
    strides = 1 if strides is None else strides
    if spatial == 3:
        return _convolution3d(x, w, strides, padding, data_format, dilations)
    if dilations is not None and any(int(d) != 1 for d in np.ravel(dilations)):
        _check_dilated_channels(x, w, spatial)
        _check_dilated_strides(strides, dilations, spatial)
    elif not isinstance(padding, str):  # TF passes it straight to the Conv2D op wrapper
        _explicit_padding_type_error(padding)
    if spatial == 1:
        return conv1d(x, w, strides, padding, dilations=dilations)
    batch = x._value.shape[:-3]
    if len(batch) <= 1:
        return conv2d(x, w, strides, padding, dilations=dilations)
    y = conv2d(reshape(x, (-1,) + x._value.shape[-3:]), w, strides, padding,
               dilations=dilations)  # TF's _conv2d_expanded_batch: batch dims flattened
    return reshape(y, batch + y._value.shape[1:])


def _explicit_padding_type_error(padding: Any) -> None:
    raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")


def _spatial_values(value: Any, spatial: int) -> list:
    """TF's `_get_sequence` for channels-last: an int, `spatial` ints or `spatial + 2`."""
    values = [int(v) for v in np.ravel(value)]
    if len(values) == 1:
        return values * spatial
    return values[1:-1] if len(values) == spatial + 2 else values


def _check_dilated_strides(strides: Any, dilations: Any, spatial: int) -> None:
    """TF's dilated convolution (space-to-batch) refuses strides > 1 with a ValueError."""
    s, d = _spatial_values(strides, spatial), _spatial_values(dilations, spatial)
    if any(v > 1 for v in s):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={np.array(s)} and dilation_rate={np.array(d)}")


def _check_dilated_channels(x: Tensor, w: Tensor, spatial: int) -> None:
    """The dilated path of TF's convolution (space-to-batch) checks the channels in Python
    first, with a ValueError (even before the dtype)."""
    depth, filter_depth = x._value.shape[-1] if x._value.ndim else 0, w._value.shape[spatial]
    if filter_depth and x._value.ndim >= spatial + 2 and depth % filter_depth:
        raise ValueError(f"The number of input channels is not divisible by the corresponding "
                         f"number of output filters. Received: input.shape={x.shape} with "
                         f"{depth} channels and filters.shape={w.shape} with {filter_depth} "
                         f"output filters.")


# -- 3-D convolution and pooling (NDHWC), transposed and separable convolutions, tf.nn.pool ----


def _list5(value: Any, name: str, op: str) -> tuple:
    """conv3d's `strides`/`dilations`: a list of 5 ints (the op wrapper takes nothing else)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to '{op}' Op, not {value}.")
    if len(value) != 5:
        raise InvalidArgumentError(f"Length for attr '{name}' of {len(value)} must be at least "
                                   f"minimum 5 [Op:Conv3D]")
    return tuple(int(v) for v in value)


def _triple(value: Any, name: str, op_name: str) -> tuple:
    """A 3-D op's `ksize`/`strides`/`dilations` in Python (TF's `_get_sequence`): an int, 1, 3
    or 5 ints; the batch and channel entries of 5 must be 1."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 3
    value = [int(v) for v in value]
    if len(value) == 1:
        return tuple(value) * 3
    if len(value) == 3:
        return tuple(value)
    if len(value) != 5:
        raise ValueError(f"{name} should be of length 1, 3 or 5. Received: {name}={value} of "
                         f"length {len(value)}")
    _inner_entries(value, name, op_name)
    return tuple(value[1:4])


def _inner_entries(value: tuple, name: str, op_name: str) -> None:
    """TF's 3-D kernels refuse windows or steps across the batch or channels."""
    if value[0] != 1 or value[-1] != 1:
        if op_name.startswith(("MaxPool", "AvgPool")):
            where = "batch" if value[0] != 1 else "depth"
            raise UnimplementedError(f"Pooling is not yet supported on the {where} dimension. "
                                     f"[Op:{op_name}]")
        raise (UnimplementedError if op_name == "Conv3D" else InvalidArgumentError)(
            f"Current implementation does not yet support {name} in the batch and depth "
            f"dimensions. [Op:{op_name}]")


def _padding3d(padding: Any, op_name: str) -> str:
    """The 3-D ops take SAME or VALID only (their wrappers refuse explicit pairs)."""
    if not isinstance(padding, str):
        _explicit_padding_type_error(padding)
    return _check_padding_name(padding, op_name)


def _channels_last(x: Tensor, data_format: Optional[str], first: str) -> Tensor:
    """`x` moved channels-last where `data_format` is the channels-first `first`."""
    if data_format != first:
        return x
    rank = x._value.ndim
    return transpose(x, (0,) + tuple(range(2, rank)) + (1,))


def _channels_back(y: Tensor, data_format: Optional[str], first: str) -> Tensor:
    if data_format != first:
        return y
    rank = y._value.ndim
    return transpose(y, (0, rank - 1) + tuple(range(1, rank - 1)))


def _check_data_format(data_format: Optional[str], formats: tuple, op_name: str) -> None:
    if data_format not in formats:
        raise InvalidArgumentError(f"Invalid data format: {data_format} [Op:{op_name}]")


_CONV3D_TYPES = "half, bfloat16, float, double"


def _conv3d_operands(x: Any, w: Any, op_name: str) -> tuple:
    """Both operands as float tensors of one dtype, rank 5."""
    x, w = convert_to_tensor(x), convert_to_tensor(w)
    if x._value.dtype != w._value.dtype:
        w = convert_to_tensor(w, dtype_hint=x.dtype)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                   f"allowed values: {_CONV3D_TYPES} [Op:{op_name}]")
    if x._value.dtype != w._value.dtype:
        raise mismatch_error(op_name, 1, x.dtype, w.dtype)
    _check_rank(x, 5, "input", op_name)
    _check_rank(w, 5, "filter", op_name)
    return x, w


def _bind_conv_nd(prim: Primitive, x: Tensor, w: Tensor, strides: tuple, padding: str,
                  dilations: tuple, op_name: str) -> Tensor:
    """A convolution primitive over channels-last operands, its geometry resolved."""
    out, pads = _geometry(x._value.shape[1:-1], w._value.shape[:-2], strides, dilations,
                          padding, op_name)
    return bind(prim, (x, w), {"strides": strides, "dilations": dilations, "pads": pads,
                               "out_hw": out})


@tf_export("nn.conv3d")
def conv3d(input: Any, filters: Any, strides: Any, padding: str,  # noqa: A002 - TF's name
           data_format: str = "NDHWC", dilations: Any = (1, 1, 1, 1, 1),
           name: Optional[str] = None) -> Tensor:
    """3-D convolution of NDHWC (or NCDHW) `input` with `filters` `[KD, KH, KW, C_in, C_out]`.

    Args:
      strides, dilations: lists of 5 ints (batch and channel entries 1).
      padding: 'SAME' or 'VALID'.
    """
    x, w = _conv3d_operands(input, filters, "Conv3D")
    _check_data_format(data_format, ("NDHWC", "NCDHW"), "Conv3D")
    mode = _padding3d(padding, "Conv3D")
    strides, dilations = _list5(strides, "strides", "conv3d"), _list5(dilations, "dilations",
                                                                      "conv3d")
    if data_format == "NCDHW":  # the entries follow the layout
        strides, dilations = (tuple(v[i] for i in (0, 2, 3, 4, 1)) for v in (strides, dilations))
    _inner_entries(strides, "strides", "Conv3D")
    x = _channels_last(x, data_format, "NCDHW")
    if x._value.shape[-1] != w._value.shape[3]:
        raise InvalidArgumentError(f"input and filter must have the same depth: "
                                   f"{x._value.shape[-1]} vs {w._value.shape[3]} [Op:Conv3D]")
    if any(d != 1 for d in dilations[1:4]) and x._value.dtype == np.float64:  # Eigen's kernel
        raise InvalidArgumentError("CPU implementation of Conv3D currently only supports "
                                   "dilated rates of 1. [Op:Conv3D]")
    y = _bind_conv_nd(_conv3d, x, w, strides[1:4], mode, dilations[1:4], "Conv3D")
    return _channels_back(y, data_format, "NCDHW")


def _convolution3d(x: Tensor, w: Tensor, strides: Any, padding: Any,
                   data_format: Optional[str], dilations: Any) -> Tensor:
    """`tf.nn.convolution` with a rank-5 filter: several batch dims flattened, dilations
    as TF's space-to-batch gives them (the same numbers as a dilated Conv3D)."""
    batch = x._value.shape[:-4]
    if len(batch) > 1:
        x = reshape(x, (-1,) + x._value.shape[-4:])
    x, w = _conv3d_operands(x, w, "Conv3D")
    mode = _padding3d(padding, "Conv3D")
    dil = (1, 1, 1) if dilations is None else tuple(_spatial_values(dilations, 3))
    y = _bind_conv_nd(_conv3d, x, w, tuple(_spatial_values(strides, 3)), mode, dil, "Conv3D")
    return reshape(y, batch + y._value.shape[1:]) if len(batch) > 1 else y


def conv_nd(x: Any, w: Any, strides: tuple, padding: str, dilations: tuple) -> Tensor:
    """A channels-last convolution of any rank (1, 2 or 3 spatial axes), grouped where the
    input has a multiple of the filter's depth: what Keras's convolution computes (it runs
    grouped and 3-D convolutions through XLA, which the CPU kernels refuse)."""
    x, w = convert_to_tensor(x), convert_to_tensor(w)
    if w._value.ndim == 3:
        y = conv_nd(expand_dims(x, 1), expand_dims(w, 0), (1,) + tuple(strides), padding,
                    (1,) + tuple(dilations))
        return squeeze(y, axis=1)
    prim, name = (_conv2d, "Conv2D") if w._value.ndim == 4 else (_conv3d, "Conv3D")
    depths = (x._value.shape[-1], w._value.shape[-2], w._value.shape[-1])
    if None not in depths:  # else the kernel checks as the graph runs
        _check_groups(*depths)
    return _bind_conv_nd(prim, x, w, tuple(strides), padding.upper(), tuple(dilations), name)


@tf_export("nn.conv3d_transpose")
@reads_variables
def conv3d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002 - TF's name
                     strides: Any, padding: str = "SAME", data_format: str = "NDHWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """The transpose (gradient) of conv3d: `filters` is `[KD, KH, KW, C_out, C_in]` and the
    result has `output_shape`."""
    op = "Conv3DBackpropInputV2"
    g, w = _conv3d_operands(input, filters, op)
    _check_data_format(data_format, ("NDHWC", "NCDHW"), op)
    mode = _padding3d(padding, op)
    first = data_format == "NCDHW"
    sizes, out_shape = _transpose_sizes(output_shape, w._value.shape[3], 5, first)
    spatial = (2, 3, 4) if first else (1, 2, 3)
    strides = _triple_in(strides, "strides", op, first)
    dilations = _triple_in(1 if dilations is None else dilations, "dilations", op, first)
    if dilations != (1, 1, 1) and g._value.dtype == np.float64:
        raise InvalidArgumentError(f"Current CPU implementation does not yet support dilation "
                                   f"rates larger than 1. [Op:{op}]")
    g = _channels_last(g, data_format, "NCDHW")
    if first and not sizes:
        out_shape = (out_shape[0],) + tuple(out_shape[i] for i in spatial) + (out_shape[1],)
    out, pads = _geometry(out_shape[1:4], w._value.shape[:3], strides, dilations, mode, op)
    for axis in range(3 if out is not None else 0):  # unknown sizes: the kernel checks
        if None not in (out[axis], g._value.shape[axis + 1]) and \
                out[axis] != g._value.shape[axis + 1]:
            raise InvalidArgumentError(
                f"Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = "
                f"{g._value.shape[axis + 1]}, computed = {out[axis]} spatial_dim: {axis + 1} "
                f"input: {out_shape[axis + 1]} filter: {w._value.shape[axis]} output: "
                f"{g._value.shape[axis + 1]} stride: {strides[axis]} dilation: "
                f"{dilations[axis]} [Op:{op}]")
    if _differ(g._value.shape[-1], w._value.shape[4]) or _differ(out_shape[-1],
                                                                  w._value.shape[3]):
        raise InvalidArgumentError(f"{op}: input shape {list(g._value.shape)} does not match "
                                   f"filter {list(w._value.shape)} and output_shape "
                                   f"{list(out_shape)} [Op:{op}]")
    y = bind(_conv3d_backprop_input, (g, w) + sizes, {
        "input_shape": out_shape, "strides": strides, "dilations": dilations, "pads": pads,
        "out_hw": out})
    return _channels_back(y, data_format, "NCDHW")


def _transpose_sizes(output_shape: Any, depth: Optional[int], rank: int,
                     channels_first: bool) -> tuple:
    """A transposed convolution's `output_shape`: `(sizes, pattern)`. A traced tensor is read
    when the graph runs, as TF's input_sizes: `sizes` is it (channels moved last), `pattern`
    the dims the trace knows (the depth the filter gives); otherwise `((), its ints)`."""
    if not is_traced(output_shape):
        return (), tuple(int(d) for d in np.asarray(
            getattr(output_shape, "_value", output_shape)).reshape(-1))
    sizes = convert_to_tensor(output_shape)
    if channels_first:
        sizes = gather(sizes, [0] + list(range(2, rank)) + [1])
    return (sizes,), (None,) * (rank - 1) + (depth,)


def _differ(a: Optional[int], b: Optional[int]) -> bool:
    return a is not None and b is not None and a != b


def _triple_in(value: Any, name: str, op_name: str, first: bool) -> tuple:
    """`_triple` for an NCDHW op: a 5-list's spatial entries are its last three."""
    if first and not isinstance(value, (int, np.integer)) and len(value) == 5:
        value = [value[0]] + list(value[2:]) + [value[1]]
    return _triple(value, name, op_name)


@tf_export("nn.conv1d_transpose")
@reads_variables
def conv1d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002 - TF's name
                     strides: Any, padding: str = "SAME", data_format: str = "NWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """The transpose of conv1d: `filters` `[K, C_out, C_in]`, the result `output_shape`
    (as TF: conv2d_transpose of the input viewed as N1WC)."""
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                         f"data_format={data_format}")
    g = _channels_last(convert_to_tensor(input), data_format, "NCW")
    stride, dilation = (_single(v, n, "Conv2DBackpropInput") for v, n in
                        ((strides, "strides"), (1 if dilations is None else dilations,
                                                "dilations")))
    sizes, out_shape = _transpose_sizes(output_shape, None, 3, data_format == "NCW")
    if sizes:   # read when the graph runs: [N, 1, W, C] for the 2-D op
        sizes_2d = concat([sizes[0][:1], [1], sizes[0][1:]], 0)
    else:
        if data_format == "NCW":
            out_shape = (out_shape[0], out_shape[2], out_shape[1])
        sizes_2d = [out_shape[0], 1] + list(out_shape[1:])
    y = conv2d_transpose(expand_dims(g, 1), expand_dims(convert_to_tensor(filters), 0),
                         sizes_2d, (1, stride), padding, dilations=(1, dilation))
    return _channels_back(squeeze(y, axis=1), data_format, "NCW")


@tf_export("nn.separable_conv2d")
def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any,  # noqa: A002
                     strides: Any, padding: Any, data_format: Optional[str] = None,
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """A depthwise convolution (`depthwise_filter` `[KH, KW, C, M]`, with `strides` and
    `dilations`) followed by a 1x1 convolution (`pointwise_filter` `[1, 1, C * M, O]`)."""
    pointwise = convert_to_tensor(pointwise_filter)
    if pointwise._value.ndim == 4 and tuple(pointwise._value.shape[:2]) != (1, 1):
        bad = pointwise._value.shape[0] if pointwise._value.shape[0] != 1 else \
            pointwise._value.shape[1]
        raise ValueError(f"Dimensions {bad} and 1 are not compatible")
    if isinstance(strides, (int, np.integer)) or len(strides) not in (4, 5):
        raise InvalidArgumentError("Sliding window strides field must specify 4 or 5 "
                                   "dimensions [Op:DepthwiseConv2dNative]")
    first = data_format == "NCHW"
    x = _channels_last(convert_to_tensor(input), data_format, "NCHW")
    if first:
        strides = [strides[0], strides[2], strides[3], strides[1]]
    y = depthwise_conv2d(x, depthwise_filter, strides, padding, dilations=dilations)
    y = conv2d(y, pointwise, [1, 1, 1, 1], "VALID")
    return _channels_back(y, data_format, "NCHW")


# MaxPool3D as TensorFlow's CPU kernel: the max of each window's non-nan inputs from the
# lowest finite value; its gradient goes to *every* input equal to its window's max (ties
# included, unlike 2-D MaxPool's first argmax).


def _max_pool3d_kernel(x, ksize, strides, pads, out_hw):
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:-1], ksize, strides, (1, 1, 1), pads,
                                          "MaxPool3D")
    shape = (x.shape[0],) + tuple(out_hw) + (x.shape[-1],)
    if 0 in out_hw:
        return np.zeros(shape, x.dtype)
    out = np.full(shape, np.finfo(x.dtype).min, x.dtype)
    for tap in _window_taps(x, -np.inf, ksize, strides, pads, out_hw):
        np.fmax(out, tap, out=out)
    return out


def _window_taps(x, value, ksize, strides, pads, out_hw):
    """Each window's input at each tap, `(N, O..., C)` views of `x` padded with `value`."""
    cols = _patches(_pad(x, pads, value), ksize, out_hw, strides, (1,) * len(ksize))
    lead = (slice(None),) * (len(ksize) + 1)
    for tap in np.ndindex(*ksize):
        yield cols[lead + tap]


def _max_pool3d_grad_kernel(x, g, ksize, strides, pads, out_hw):
    """Adds each window's cotangent to every input equal to the window's max."""
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:-1], ksize, strides, (1, 1, 1), pads,
                                          "MaxPool3DGrad")
    best = _max_pool3d_kernel(x, ksize, strides, pads, out_hw)
    taps = np.zeros(tuple(ksize) + g.shape, g.dtype)
    if 0 not in out_hw:
        for tap, values in zip(np.ndindex(*ksize),
                               _window_taps(x, -np.inf, ksize, strides, pads, out_hw)):
            np.copyto(taps[tap], g, where=values == best)
    return _scatter(taps, _padded_shape(x.shape, pads), pads, strides, (1, 1, 1))


def _max_pool3d_grad_grad_kernel(x, c, ksize, strides, pads, out_hw):
    """The transpose of MaxPool3DGrad: per window, the sum of `c` over its maxima."""
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:-1], ksize, strides, (1, 1, 1), pads,
                                          "MaxPool3DGradGrad")
    best = _max_pool3d_kernel(x, ksize, strides, pads, out_hw)
    out = np.zeros(best.shape, c.dtype)
    if 0 not in out_hw:
        for values, routed in zip(_window_taps(x, -np.inf, ksize, strides, pads, out_hw),
                                  _window_taps(c, 0, ksize, strides, pads, out_hw)):
            np.add(out, routed, out=out, where=values == best)
    return out


_max_pool3d = Primitive("MaxPool3D", _max_pool3d_kernel,
                        shape_rule=_pool_rule("MaxPool3D", rank=5))
_max_pool3d_grad = Primitive("MaxPool3DGrad", _max_pool3d_grad_kernel,
                             shape_rule=_max_pool_grad_rule("MaxPool3DGrad", 5))
_max_pool3d_grad_grad = Primitive("MaxPool3DGradGrad", _max_pool3d_grad_grad_kernel,
                                  shape_rule=_pool_rule("MaxPool3DGradGrad", 1, 5))
# Piecewise constant routing: x's cotangent through the gradient ops is zeros.
_max_pool3d.defvjp(lambda g, ans, x, **a: bind(_max_pool3d_grad, (x, g), a))
_max_pool3d_grad.defvjp(lambda c, ans, x, g, **a: (zeros_like(x),
                                                   bind(_max_pool3d_grad_grad, (x, c), a)))
_max_pool3d_grad_grad.defvjp(lambda c, ans, x, cc, **a: (zeros_like(x),
                                                         bind(_max_pool3d_grad, (x, c), a)))


def _pool3d(prim: Primitive, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str, op_name: str, dtypes: tuple) -> Tensor:
    x = convert_to_tensor(input)
    mode = _padding3d(padding, op_name)
    data_format = data_format or "NDHWC"  # tf.nn.max_pool/avg_pool pass None
    _check_data_format(data_format, ("NDHWC", "NCDHW"), op_name)
    first = data_format == "NCDHW"
    ksize = _triple_in(ksize, "ksize", op_name, first)
    strides = _triple_in(strides, "strides", op_name, first)
    _require_pool3d_dtype(x, op_name, dtypes)
    if x._value.ndim != 5:
        raise InvalidArgumentError(f"tensor_in must be 5-dimensional: "
                                   f"{list(x._value.shape)} [Op:{op_name}]")
    x = _channels_last(x, data_format, "NCDHW")
    out, pads = _geometry(x._value.shape[1:4], ksize, strides, (1, 1, 1), mode, op_name)
    y = bind(prim, (x,), {"ksize": ksize, "strides": strides, "pads": pads, "out_hw": out})
    return _channels_back(y, data_format, "NCDHW")


_ATTR_NAMES = {"float64": "double", "float32": "float", "float16": "half"}  # TF's attr texts


def _require_pool3d_dtype(x: Tensor, op_name: str, allowed: tuple) -> None:
    """TF's CPU 3-D pools: float32 (float16 and, for AvgPool3D, float64 have no CPU
    kernel: NotFoundError); anything else is not in the op's list."""
    name = x.dtype.name
    if x._value.dtype == np.float32:
        return
    if name in allowed:
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(x.dtype)}]")
    listed = "half, bfloat16, float" + (", double" if op_name == "AvgPool3D" else "")
    name = _ATTR_NAMES.get(name, name)
    raise InvalidArgumentError(f"Value for attr 'T' of {name} is not in the list of allowed "
                               f"values: {listed} [Op:{op_name}]")


@tf_export("nn.max_pool3d")
def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002 - TF's name
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Max over `ksize` windows of NDHWC `input` (the max of the non-nan inputs)."""
    return _pool3d(_max_pool3d, input, ksize, strides, padding, data_format, "MaxPool3D",
                   ("float16",))


@tf_export("nn.avg_pool3d")
def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002 - TF's name
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Mean over `ksize` windows of NDHWC `input` (SAME: of the real inputs only)."""
    return _pool3d(_avg_pool3d, input, ksize, strides, padding, data_format, "AvgPool3D",
                   ("float16", "float64"))


@tf_export("nn.pool")
def pool(input: Any, window_shape: Any, pooling_type: str,  # noqa: A002 - TF's name
         strides: Any = None, padding: str = "VALID", data_format: Optional[str] = None,
         dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """N-D max or average pooling (`tf.nn.pool`): the 1-, 2- or 3-D pool of the rank of
    `window_shape`; dilated windows (VALID, strides 1) through TF's space-to-batch."""
    x = convert_to_tensor(input)
    window = [int(v) for v in window_shape]
    rank = len(window)
    if not 1 <= rank <= 3:
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                         f"window_shape={window_shape} of length {rank}")
    if x._value.ndim != rank + 2:
        raise ValueError(f"Shape {x.shape} must have rank {rank + 2}")
    strides = np.array([1] * rank if strides is None else _spatial_values(strides, rank))
    rate = np.array([1] * rank if dilations is None else _spatial_values(dilations, rank))
    if np.any(rate > 1) and np.any(strides > 1):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={strides} and dilation_rate={rate}")
    if padding == "SAME" and np.any(rate > 1):
        raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` "
                         f"> 1. Received: padding={padding} and dilation_rate={rate}")
    if np.any(strides > window):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency "
                         f"between CPU and GPU implementations. Received: strides={strides} "
                         f"and window_shape={window}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{rank}-D {pooling_type} pooling is not supported.")
    first = data_format is not None and data_format.startswith("NC")
    fmt = "NC" if first else None
    x = _channels_last(x, fmt, "NC")
    ops = {1: (max_pool1d, avg_pool1d), 2: (max_pool2d, avg_pool2d),
           3: (max_pool3d, avg_pool3d)}[rank]
    op = ops[0] if pooling_type == "MAX" else ops[1]
    channels_last = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[rank]

    def run(v: Tensor) -> Tensor:
        return op(v, window, [int(s) for s in strides], padding, channels_last)

    y = run(x) if not np.any(rate > 1) else _with_space_to_batch(x, tuple(int(r) for r in rate),
                                                                  run)
    return _channels_back(y, fmt, "NC")


def _with_space_to_batch(x: Tensor, rate: tuple, op: Any) -> Tensor:
    """TF's `with_space_to_batch` for VALID padding, channels last: `x` padded at the end to a
    multiple of `rate` on each axis, split into its prod(rate) phases (stacked in the batch),
    `op` run on them, and the phases interleaved back, less the padding's share."""
    shape, k = x._value.shape, len(rate)
    n, c = shape[0], shape[-1]
    extra = [(-size) % r for size, r in zip(shape[1:-1], rate)]
    padded = pad(x, [[0, 0]] + [[0, e] for e in extra] + [[0, 0]])
    blocks = [(size + e) // r for size, e, r in zip(shape[1:-1], extra, rate)]
    split = [n] + [d for b, r in zip(blocks, rate) for d in (b, r)] + [c]
    order = [2 + 2 * i for i in range(k)] + [0] + [1 + 2 * i for i in range(k)] + [2 * k + 1]
    phases = reshape(transpose(reshape(padded, split), order),
                     [int(np.prod(rate)) * n] + blocks + [c])
    y = op(phases)
    out, depth = list(y._value.shape[1:-1]), y._value.shape[-1]
    y = reshape(y, list(rate) + [n] + out + [depth])
    back = [k] + [d for i in range(k) for d in (k + 1 + i, i)] + [2 * k + 1]
    y = reshape(transpose(y, back), [n] + [o * r for o, r in zip(out, rate)] + [depth])
    return y[(slice(None),) + tuple(slice(0, o * r - e) for o, r, e in
                                    zip(out, rate, extra))]
