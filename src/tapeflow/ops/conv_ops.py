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
from tapeflow.framework.errors import AbortedError, InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops._static import is_traced
from tapeflow.ops.array_ops import expand_dims, reshape, shape, squeeze, transpose
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


def _padding_mode(padding: Any, op_name: str) -> Any:
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise InvalidArgumentError(
                f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                f"values: \"SAME\", \"VALID\", \"EXPLICIT\" [Op:{op_name}]")
        return mode
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
        return None, ((0, 0), (0, 0)) if mode == "VALID" else mode  # explicit: ((t, b), (l, r))
    modes = (mode, mode) if isinstance(mode, str) else mode
    (oh, ph), (ow, pw) = (_out_and_pads(in_hw[i], k_hw[i], strides[i], dilations[i], modes[i],
                                        op_name) for i in range(2))
    return (oh, ow), (ph, pw)


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


def _rank4(op_name: str, avals: tuple, i: int) -> tuple:
    """The dims of input `i`, which must be rank 4 (all unknown where the rank is)."""
    shape = avals[i].shape
    if shape is None:
        return (None,) * 4
    if len(shape) != 4:
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


def _conv2d_rule(x: ShapedArray, w: ShapedArray, strides: tuple, dilations: tuple,
                 pads: tuple, out_hw: Any = None) -> ShapedArray:
    """[N, OH, OW, C_out]; a grouped convolution's depths must divide as in TF."""
    avals = (x, w)
    n, h, width, depth = _rank4("Conv2D", avals, 0)
    kh, kw, filter_depth, out_depth = _rank4("Conv2D", avals, 1)
    if depth is not None and filter_depth:
        if depth % filter_depth:
            raise shape_error("Conv2D", avals, f"Depth of input ({depth}) is not a multiple of "
                                                f"input depth of filter ({filter_depth})")
        groups = depth // filter_depth
        if out_depth is not None and groups and out_depth % groups:
            raise shape_error("Conv2D", avals, f"Depth of output ({out_depth}) is not a "
                                                f"multiple of the number of groups ({groups})")
    oh, ow = _windowed("Conv2D", avals, (h, width), (kh, kw), strides, dilations, pads)
    return ShapedArray((n, oh, ow, out_depth), x.dtype)


def _backprop_input_rule(g: ShapedArray, w: ShapedArray, *sizes: ShapedArray,
                         input_shape: tuple, **geometry: Any) -> ShapedArray:
    """The input's shape (an attribute, its unknown dims read from `sizes` as the graph
    runs); the cotangent's depth is the filter's output depth."""
    avals = (g, w)
    depth = _rank4("Conv2DBackpropInput", avals, 0)[3]
    filter_out = _rank4("Conv2DBackpropInput", avals, 1)[3]
    if depth is not None and filter_out is not None and depth != filter_out:
        raise shape_error("Conv2DBackpropInput", avals,
                           f"Dimensions must be equal, but are {depth} and {filter_out}")
    return ShapedArray(input_shape, g.dtype)


def _backprop_filter_rule(x: ShapedArray, g: ShapedArray, *sizes: ShapedArray,
                          filter_shape: tuple, **geometry: Any) -> ShapedArray:
    """The filter's shape (an attribute, its unknown dims read from `sizes` as the graph
    runs)."""
    for i in (0, 1):
        _rank4("Conv2DBackpropFilter", (x, g), i)
    return ShapedArray(filter_shape, x.dtype)


def _pool_rule(op_name: str, dtype_of: int = 0):
    """MaxPool, AvgPool and MaxPoolGradGrad: [N, OH, OW, C] of input 0, in input
    `dtype_of`'s dtype."""
    def rule(*avals: ShapedArray, ksize: tuple, strides: tuple, pads: tuple,
             out_hw: Any = None) -> ShapedArray:
        n, h, w, c = _rank4(op_name, avals, 0)
        oh, ow = _windowed(op_name, avals, (h, w), ksize, strides, (1, 1), pads)
        return ShapedArray((n, oh, ow, c), avals[dtype_of].dtype)
    return rule


def _max_pool_grad_rule(x: ShapedArray, g: ShapedArray, **geometry: Any) -> ShapedArray:
    """The cotangent of MaxPool's input: x's shape, g's dtype."""
    return ShapedArray(_rank4("MaxPoolGrad", (x, g), 0), g.dtype)


def _avg_pool_grad_rule(g: ShapedArray, *sizes: ShapedArray, input_shape: tuple,
                        **geometry: Any) -> ShapedArray:
    """The cotangent of AvgPool's input: its shape (an attribute, its unknown dims read from
    `sizes` as the graph runs), g's dtype."""
    _rank4("AvgPoolGrad", (g,), 0)
    return ShapedArray(input_shape, g.dtype)


# -- NumPy kernels -------------------------------------------------------------------------------


def _pad(x: np.ndarray, pads: tuple, value: float = 0) -> np.ndarray:
    (t, b), (l, r) = pads
    if not (t or b or l or r):
        return x
    return np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=value)


def _patches(xp: np.ndarray, k_hw: tuple, out_hw: tuple, strides: tuple,
             dilations: tuple, writeable: bool = False) -> np.ndarray:
    """A view `(N, OH, OW, KH, KW, C)` of the padded input's windows (read-only unless
    `writeable`, for windows that do not overlap)."""
    xp = np.ascontiguousarray(xp)
    sn, sh, sw, sc = xp.strides
    shape = (xp.shape[0],) + tuple(out_hw) + tuple(k_hw) + (xp.shape[3],)
    steps = (sn, sh * strides[0], sw * strides[1], sh * dilations[0], sw * dilations[1], sc)
    return as_strided(xp, shape, steps, writeable=writeable)


def _scatter(taps: np.ndarray, padded_shape: tuple, pads: tuple, strides: tuple,
             dilations: tuple) -> np.ndarray:
    """Adds window values `taps` `(KH, KW, N, OH, OW, C)` back to their input positions and
    crops the padding: the transpose of `_patches`. Tap-major, each add reads one contiguous
    block (window-major rows would make every add stride through all KH*KW taps)."""
    out = np.zeros(padded_shape, taps.dtype)
    kh, kw, _, oh, ow, _ = taps.shape
    sh, sw = strides
    for i in range(kh if oh and ow else 0):  # no windows (an empty output): zeros
        top = i * dilations[0]
        for j in range(kw):
            left = j * dilations[1]
            view = out[:, top:top + sh * (oh - 1) + 1:sh, left:left + sw * (ow - 1) + 1:sw, :]
            np.add(view, taps[i, j], out=view)
    (t, b), (l, r) = pads
    return out[:, t:out.shape[1] - b, l:out.shape[2] - r, :]


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
    n, oh, ow, kh, kw, c = cols.shape
    if c < _FEW_CHANNELS:
        rows = np.ascontiguousarray(cols.transpose(3, 4, 5, 0, 1, 2))
        return rows.reshape(kh * kw * c, n * oh * ow).T
    return cols.reshape(n * oh * ow, kh * kw * c)


def _grouped_dot(cols: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """Contracts the trailing (KH, KW, C) of `cols` with a `[KH, KW, C / groups, O]` filter,
    group by group (groups == 1 is one matrix product)."""
    if groups == 1:
        return np.dot(_im2col(cols), w.reshape(-1, w.shape[3])).reshape(
            cols.shape[:3] + w.shape[3:])
    kh, kw, cg, o = w.shape
    lead = cols.shape[:-3]
    c = cols.reshape(lead + (kh, kw, groups, cg))
    out = np.einsum("...ijgc,ijcgo->...go", c, w.reshape(kh, kw, cg, groups, o // groups),
                    optimize=True)
    return out.reshape(lead + (o,))


def _padded(pads: tuple) -> bool:
    return any(pads[0]) or any(pads[1])


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
    """(i, j, output slices, input slices) for each filter tap with any real input."""
    for i in range(k_hw[0]):
        rows = _tap_slices(i, x_hw[0], out_hw[0], strides[0], dilations[0], pads[0][0])
        if rows is None:
            continue
        for j in range(k_hw[1]):
            cols = _tap_slices(j, x_hw[1], out_hw[1], strides[1], dilations[1], pads[1][0])
            if cols is not None:
                yield i, j, (rows[0], cols[0]), (rows[1], cols[1])


def _conv_by_taps(x, w, strides, dilations, pads, out_hw, groups):
    """Conv2D over the real terms only, one filter tap at a time: padding contributes no
    term (as in TF's kernels), so an inf or nan weight never meets a padding zero."""
    out = np.zeros((x.shape[0],) + tuple(out_hw) + (w.shape[3],), np.result_type(x, w))
    for i, j, (orow, ocol), (irow, icol) in _taps(x.shape[1:3], w.shape[:2], out_hw, strides,
                                                    dilations, pads):
        xs = x[:, irow, icol, :]
        out[:, orow, ocol, :] += _grouped_dot(xs[..., None, None, :], w[i:i + 1, j:j + 1],
                                              groups)
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
        if w.shape[2]:
            _check_groups(x.shape[3], w.shape[2], w.shape[3])
        pads, out_hw = _run_time_geometry(x.shape[1:3], w.shape[:2], strides, dilations, pads,
                                          "Conv2D")
    if 0 in out_hw or x.size == 0 or w.size == 0:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (w.shape[3],), np.result_type(x, w))
    groups = _groups(x.shape[3], w.shape[2])
    if _padded(pads) and not np.isfinite(w).all():  # the rare case: a check on the filter
        return _conv_by_taps(x, w, strides, dilations, pads, out_hw, groups).astype(x.dtype)
    cols = _patches(_pad(x, pads), w.shape[:2], out_hw, strides, dilations)
    return _grouped_dot(cols, w, groups).astype(x.dtype, copy=False)


@_widened_if_nonfinite
def _backprop_input_kernel(g, w, *sizes, input_shape, strides, dilations, pads, out_hw):
    if sizes:
        input_shape = _run_time_shape(g.shape, w.shape, sizes[0], input_shape)
    if out_hw is None:
        pads, out_hw = _run_time_geometry(input_shape[1:3], w.shape[:2], strides, dilations,
                                          pads, "Conv2DBackpropInput")
        if tuple(g.shape[1:3]) != out_hw or g.shape[3] != w.shape[3] or \
                input_shape[3] % w.shape[2]:
            _transposeshape_error(g.shape, w.shape, input_shape)
    if g.size == 0 or w.size == 0:
        return np.zeros(input_shape, g.dtype)
    groups = _groups(input_shape[3], w.shape[2])
    padded = (input_shape[0], input_shape[1] + sum(pads[0]), input_shape[2] + sum(pads[1]),
              input_shape[3])
    return _scatter(_input_taps(g, w, groups), padded, pads, strides,
                    dilations).astype(g.dtype, copy=False)


def _input_taps(g: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """Each filter tap's share of the input gradient, `(KH, KW, N, OH, OW, C)`: one matrix
    product per tap (groups == 1) into its own contiguous block."""
    kh, kw, cg, o = w.shape
    if groups > 1:
        gg = g.reshape(g.shape[:3] + (groups, o // groups))
        return np.einsum("nhwgo,ijcgo->ijnhwgc", gg, w.reshape(kh, kw, cg, groups, o // groups),
                         optimize=True).reshape((kh, kw) + g.shape[:3] + (cg * groups,))
    rows = g.reshape(-1, o)
    taps = np.empty((kh, kw, rows.shape[0], cg), np.result_type(g, w))
    for i, j in np.ndindex(kh, kw):
        np.dot(rows, w[i, j].T, out=taps[i, j])
    return taps.reshape((kh, kw) + g.shape[:3] + (cg,))


def _run_time_shape(g: tuple, w: tuple, sizes: np.ndarray, pattern: tuple) -> tuple:
    """The input's shape read as the graph runs; it must have the dims the trace knew."""
    shape = tuple(int(d) for d in sizes)
    if len(shape) != 4 or any(p is not None and p != d for p, d in zip(pattern, shape)):
        _transposeshape_error(g, w, shape)
    return shape


def _filter_dot(xs: np.ndarray, g: np.ndarray, groups: int) -> np.ndarray:
    """sum over (N, OH, OW) of x-window (..., KH, KW, C) times g (..., O), per group:
    `[KH, KW, C / groups, O]`."""
    if groups == 1:
        return np.dot(_im2col(xs).T, g.reshape(-1, g.shape[3])).reshape(
            xs.shape[3:] + g.shape[3:])
    kh, kw, c = xs.shape[3:]
    o = g.shape[3]
    out = np.einsum("nhwijgc,nhwgo->ijcgo", xs.reshape(xs.shape[:5] + (groups, c // groups)),
                    g.reshape(g.shape[:3] + (groups, o // groups)), optimize=True)
    return out.reshape(kh, kw, c // groups, o)


@_widened_if_nonfinite
def _backprop_filter_kernel(x, g, *sizes, filter_shape, strides, dilations, pads, out_hw):
    if sizes:
        filter_shape = tuple(int(d) for d in sizes[0])
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:3], filter_shape[:2], strides, dilations,
                                          pads, "Conv2DBackpropFilter")
    if 0 in out_hw or x.size == 0 or 0 in filter_shape:
        return np.zeros(filter_shape, x.dtype)
    groups = _groups(x.shape[3], filter_shape[2])
    if _padded(pads) and not np.isfinite(g).all():  # real terms only: no 0 * inf at padding
        out = np.zeros(filter_shape, np.result_type(x, g))
        for i, j, (orow, ocol), (irow, icol) in _taps(x.shape[1:3], filter_shape[:2], out_hw,
                                                        strides, dilations, pads):
            xs = x[:, irow, icol, :][:, :, :, None, None, :]
            out[i:i + 1, j:j + 1] = _filter_dot(xs, g[:, orow, ocol, :], groups)
        return out.astype(x.dtype, copy=False)
    cols = _patches(_pad(x, pads), filter_shape[:2], out_hw, strides, dilations)
    return _filter_dot(cols, g, groups).astype(x.dtype, copy=False)


_conv2d = Primitive("Conv2D", _conv_kernel, shape_rule=_conv2d_rule)
_conv2d_backprop_input = Primitive("Conv2DBackpropInput", _backprop_input_kernel,
                                   shape_rule=_backprop_input_rule)
_conv2d_backprop_filter = Primitive("Conv2DBackpropFilter", _backprop_filter_kernel,
                                    shape_rule=_backprop_filter_rule)


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


# <c, conv(x, w)> is bilinear: each rule is one of the three ops with the roles swapped.
_conv2d.defvjp(lambda g, ans, x, w, **a: (
    _shaped_as(_conv2d_backprop_input, (g, w), x, "input_shape", a),
    _shaped_as(_conv2d_backprop_filter, (x, g), w, "filter_shape", a)))
_conv2d_backprop_input.defvjp(lambda c, ans, g, w, *sizes, input_shape, **a: (
    bind(_conv2d, (c, w), a),
    _shaped_as(_conv2d_backprop_filter, (c, g), w, "filter_shape", a)) + _no_sizes(sizes))
_conv2d_backprop_filter.defvjp(lambda c, ans, x, g, *sizes, filter_shape, **a: (
    _shaped_as(_conv2d_backprop_input, (g, c), x, "input_shape", a),
    bind(_conv2d, (x, c), a)) + _no_sizes(sizes))


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
    elif x._value.dtype.kind != "f" and x._value.dtype != np.int32:
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                   f"allowed values: {_CONV_TYPES} [Op:{op_name}]")
    if x._value.dtype != w._value.dtype:
        raise InvalidArgumentError(f"cannot compute {op_name} as input #1(zero-based) was "
                                   f"expected to be a {x.dtype.name} tensor but is a "
                                   f"{w.dtype.name} tensor [Op:{op_name}]")
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
    ones = np.ones((1, shape[1], shape[2], 1), np.float64)
    counts = _patches(_pad(ones, pads), k_hw, out_hw, strides, (1, 1)).sum(axis=(3, 4))
    return np.maximum(counts, 1)


def _avg_pool_kernel(x, ksize, strides, pads, out_hw):
    if out_hw is None:
        pads, out_hw = _run_time_geometry(x.shape[1:3], ksize, strides, (1, 1), pads,
                                          "AvgPool")
    if 0 in out_hw:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[3],), x.dtype)
    sums = _patches(_pad(x, pads), ksize, out_hw, strides, (1, 1)).sum(axis=(3, 4))
    return (sums / _pool_counts(x.shape, ksize, strides, pads, out_hw)).astype(x.dtype)


def _avg_pool_grad_kernel(g, *sizes, input_shape, ksize, strides, pads, out_hw):
    if sizes:
        input_shape = tuple(int(d) for d in sizes[0])
    if out_hw is None:
        pads, out_hw = _run_time_geometry(input_shape[1:3], ksize, strides, (1, 1), pads,
                                          "AvgPoolGrad")
    # The counts are float64: cast back, or a float32 gradient would come out float64.
    g = (g / _pool_counts(input_shape, ksize, strides, pads, out_hw)).astype(g.dtype, copy=False)
    taps = np.broadcast_to(g, tuple(ksize) + g.shape)
    padded = (input_shape[0], input_shape[1] + sum(pads[0]), input_shape[2] + sum(pads[1]),
              input_shape[3])
    return _scatter(taps, padded, pads, strides, (1, 1)).astype(g.dtype, copy=False)


_avg_pool = Primitive("AvgPool", _avg_pool_kernel, shape_rule=_pool_rule("AvgPool"))
_avg_pool_grad = Primitive("AvgPoolGrad", _avg_pool_grad_kernel,
                           shape_rule=_avg_pool_grad_rule)
_avg_pool.defvjp(lambda g, ans, x, **a: _shaped_as(_avg_pool_grad, (g,), x, "input_shape", a))
_avg_pool_grad.defvjp(lambda c, ans, g, *sizes, input_shape, **a: (
    (bind(_avg_pool, (c,), a),) + _no_sizes(sizes)))


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


_max_pool = Primitive("MaxPool", _max_pool_kernel, shape_rule=_pool_rule("MaxPool"))
_max_pool_grad = Primitive("MaxPoolGrad", _max_pool_grad_kernel,
                           shape_rule=_max_pool_grad_rule)
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
        raise NotImplementedError(f"tf.nn.{name3d[:-2]}: 3-D pooling (a rank-5 input) is not "
                                  f"supported by tapeflow")
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
    """A 1-D window size or stride: an int, [n] or [1, n, 1]."""
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
    if spatial == 3:
        raise NotImplementedError("tf.nn.convolution: 3-D convolution (a rank-5 filter) is "
                                  "not supported by tapeflow")
    strides = 1 if strides is None else strides
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
