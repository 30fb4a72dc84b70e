"""Convolution and pooling: conv1d, conv2d (NHWC), conv2d_transpose, depthwise_conv2d,
max_pool2d, avg_pool2d, with their backward ops as primitives.

Every kernel works on a strided view of the padded input, `(N, OH, OW, KH, KW, C)` (no copy),
and then does one `tensordot` (convolution) or one reduction (pooling), so the cost is NumPy's,
not Python's. The backward ops scatter-add with a loop over the *kernel* positions (KH*KW
slices), never over pixels.

The derivative rules pair the ops up as transposes of each other, written with these same
tapeflow ops, so higher derivatives work:
  Conv2D(x, w)                    linear in x and in w
  Conv2DBackpropInput(g, w)       = J_x^T g     (also `conv2d_transpose`)
  Conv2DBackpropFilter(x, g)      = J_w^T g
  AvgPool(x) / AvgPoolGrad(g)     transposes of each other
  MaxPool(x) / MaxPoolGrad(x, g) / MaxPoolGradGrad(x, c)   route through the argmax of x
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops.array_ops import reshape, squeeze
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
    span = size + before + after - eff + stride
    out = span // stride if span >= 0 else -(-span // stride)  # C++'s division truncates
    if out < 0:
        raise InvalidArgumentError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {eff}, stride: {stride}] [Op:{op_name}]")
    return out, (before, after)


def _geometry(in_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple, mode: Any,
              op_name: str) -> tuple:
    modes = (mode, mode) if isinstance(mode, str) else mode
    (oh, ph), (ow, pw) = (_out_and_pads(in_hw[i], k_hw[i], strides[i], dilations[i], modes[i],
                                        op_name) for i in range(2))
    return (oh, ow), (ph, pw)


# -- NumPy kernels -------------------------------------------------------------------------------


def _pad(x: np.ndarray, pads: tuple, value: float = 0) -> np.ndarray:
    (t, b), (l, r) = pads
    if not (t or b or l or r):
        return x
    return np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=value)


def _patches(xp: np.ndarray, k_hw: tuple, out_hw: tuple, strides: tuple,
             dilations: tuple) -> np.ndarray:
    """A read-only view `(N, OH, OW, KH, KW, C)` of the padded input's windows."""
    xp = np.ascontiguousarray(xp)
    sn, sh, sw, sc = xp.strides
    shape = (xp.shape[0],) + tuple(out_hw) + tuple(k_hw) + (xp.shape[3],)
    steps = (sn, sh * strides[0], sw * strides[1], sh * dilations[0], sw * dilations[1], sc)
    return as_strided(xp, shape, steps, writeable=False)


def _scatter(cols: np.ndarray, padded_shape: tuple, pads: tuple, strides: tuple,
             dilations: tuple) -> np.ndarray:
    """Adds window values `cols` `(N, OH, OW, KH, KW, C)` back to their input positions and
    crops the padding: the transpose of `_patches`."""
    out = np.zeros(padded_shape, cols.dtype)
    _, oh, ow, kh, kw, _ = cols.shape
    sh, sw = strides
    for i in range(kh if oh and ow else 0):  # no windows (an empty output): zeros
        top = i * dilations[0]
        for j in range(kw):
            left = j * dilations[1]
            out[:, top:top + sh * (oh - 1) + 1:sh, left:left + sw * (ow - 1) + 1:sw, :] += \
                cols[:, :, :, i, j, :]
    (t, b), (l, r) = pads
    return out[:, t:out.shape[1] - b, l:out.shape[2] - r, :]


def _conv_kernel(x, w, strides, dilations, pads, out_hw):
    if 0 in out_hw or x.shape[0] == 0:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (w.shape[3],), np.result_type(x, w))
    cols = _patches(_pad(x, pads), w.shape[:2], out_hw, strides, dilations)
    return np.tensordot(cols, w, axes=([3, 4, 5], [0, 1, 2])).astype(x.dtype, copy=False)


def _backprop_input_kernel(g, w, input_shape, strides, dilations, pads, out_hw):
    cols = np.tensordot(g, w, axes=([3], [3]))  # (N, OH, OW, KH, KW, C)
    padded = (input_shape[0], input_shape[1] + sum(pads[0]), input_shape[2] + sum(pads[1]),
              input_shape[3])
    return _scatter(cols, padded, pads, strides, dilations).astype(g.dtype, copy=False)


def _backprop_filter_kernel(x, g, filter_shape, strides, dilations, pads, out_hw):
    if 0 in out_hw or x.shape[0] == 0:
        return np.zeros(filter_shape, x.dtype)
    cols = _patches(_pad(x, pads), filter_shape[:2], out_hw, strides, dilations)
    return np.tensordot(cols, g, axes=([0, 1, 2], [0, 1, 2])).astype(x.dtype, copy=False)


_conv2d = Primitive("Conv2D", _conv_kernel)
_conv2d_backprop_input = Primitive("Conv2DBackpropInput", _backprop_input_kernel)
_conv2d_backprop_filter = Primitive("Conv2DBackpropFilter", _backprop_filter_kernel)


def _geom_attrs(attrs: dict) -> dict:
    return {k: attrs[k] for k in ("strides", "dilations", "pads", "out_hw")}


# <c, conv(x, w)> is bilinear: each rule is one of the three ops with the roles swapped.
_conv2d.defvjp(lambda g, ans, x, w, **a: (
    bind(_conv2d_backprop_input, (g, w), {"input_shape": x._value.shape, **a}),
    bind(_conv2d_backprop_filter, (x, g), {"filter_shape": w._value.shape, **a})))
_conv2d_backprop_input.defvjp(lambda c, ans, g, w, input_shape, **a: (
    bind(_conv2d, (c, w), a),
    bind(_conv2d_backprop_filter, (c, g), {"filter_shape": w._value.shape, **a})))
_conv2d_backprop_filter.defvjp(lambda c, ans, x, g, filter_shape, **a: (
    bind(_conv2d_backprop_input, (g, c), {"input_shape": x._value.shape, **a}),
    bind(_conv2d, (x, c), a)))


def _check_rank(t: Tensor, rank: int, what: str, op_name: str) -> None:
    if t._value.ndim != rank:
        raise InvalidArgumentError(f"{what} must be {rank}-dimensional: {list(t._value.shape)} "
                                   f"[Op:{op_name}]")


def _conv_operands(x: Any, w: Any, op_name: str) -> tuple:
    x, w = convert_to_tensor(x), convert_to_tensor(w)
    if not isinstance(x, Tensor) or x._value.dtype != w._value.dtype:
        w = convert_to_tensor(w, dtype_hint=x.dtype)
    require(x, "f", op_name)
    if x._value.dtype != w._value.dtype:
        raise InvalidArgumentError(f"cannot compute {op_name} as input #1(zero-based) was "
                                   f"expected to be a {x.dtype.name} tensor but is a "
                                   f"{w.dtype.name} tensor [Op:{op_name}]")
    return x, w


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
    if x._value.shape[3] != w._value.shape[2]:
        raise InvalidArgumentError(f"input depth must be evenly divisible by filter depth: "
                                   f"{x._value.shape[3]} vs {w._value.shape[2]} [Op:Conv2D]")
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


def conv1d(input: Any, filters: Any, stride: Any, padding: Any,  # noqa: A002 - TF's name
           data_format: str = "NWC", dilations: Any = None,
           name: Optional[str] = None) -> Tensor:
    """1-D convolution of NWC `input` with `filters` `[K, C_in, C_out]` (via conv2d, as TF)."""
    x, w = _conv_operands(input, filters, "Conv2D")
    _check_rank(x, 3, "input", "Conv2D")
    _check_rank(w, 3, "filter", "Conv2D")
    stride = stride if isinstance(stride, (int, np.integer)) else list(stride)[-2 if len(
        list(stride)) == 3 else 0]
    dil = 1 if dilations is None else (dilations if isinstance(dilations, (int, np.integer))
                                       else list(dilations)[-2 if len(list(dilations)) == 3
                                                            else 0])
    n, width, c = x._value.shape
    y = conv2d(reshape(x, (n, 1, width, c)), reshape(w, (1,) + w._value.shape), (1, stride),
               padding, dilations=(1, dil))
    return squeeze(y, axis=1)


def conv2d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002 - TF's name
                     strides: Any, padding: Any = "SAME", data_format: str = "NHWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """The transpose (gradient) of conv2d: `filters` is `[KH, KW, C_out, C_in]` and the result
    has `output_shape`."""
    g, w = _conv_operands(input, filters, "Conv2DBackpropInput")
    _check_rank(g, 4, "input", "Conv2DBackpropInput")
    _check_rank(w, 4, "filter", "Conv2DBackpropInput")
    out_shape = tuple(int(d) for d in np.asarray(
        output_shape._value if hasattr(output_shape, "_value") else output_shape).reshape(-1))
    strides = _pair(strides, "strides", "Conv2DBackpropInput")
    dilations = _pair(1 if dilations is None else dilations, "dilations",
                      "Conv2DBackpropInput")
    out_hw, pads = _geometry(out_shape[1:3], w._value.shape[:2], strides, dilations,
                             _padding_mode(padding, "Conv2DBackpropInput"),
                             "Conv2DBackpropInput")
    if tuple(g._value.shape[1:3]) != out_hw or g._value.shape[3] != w._value.shape[3] or \
            out_shape[3] != w._value.shape[2]:
        raise InvalidArgumentError(
            f"Conv2DBackpropInput: input shape {list(g._value.shape)} does not match filter "
            f"{list(w._value.shape)} and output_shape {list(out_shape)} "
            f"[Op:Conv2DBackpropInput]")
    return bind(_conv2d_backprop_input, (g, w), {
        "input_shape": out_shape, "strides": strides, "dilations": dilations, "pads": pads,
        "out_hw": out_hw})


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                     data_format: Optional[str] = None, dilations: Any = None,
                     name: Optional[str] = None) -> Tensor:
    """Depthwise conv: `filter` `[KH, KW, C, M]` gives `C * M` output channels, each input
    channel convolved with its own M filters. Composed from conv2d on a block-diagonal filter
    (one matmul, no per-channel Python loop)."""
    x, w = _conv_operands(input, filter, "DepthwiseConv2dNative")
    _check_rank(x, 4, "input", "DepthwiseConv2dNative")
    _check_rank(w, 4, "filter", "DepthwiseConv2dNative")
    kh, kw, c, m = w._value.shape
    if x._value.shape[3] != c:
        raise InvalidArgumentError(f"input and filter must have the same depth: "
                                   f"{x._value.shape[3]} vs {c} [Op:DepthwiseConv2dNative]")
    eye = convert_to_tensor(np.eye(c, dtype=w._value.dtype).reshape(1, 1, c, c, 1))
    if 0 in w._value.shape:
        _empty_filter_error(w, "DepthwiseConv2dNative")
    block = reshape(reshape(w, (kh, kw, 1, c, m)) * eye, (kh, kw, c, c * m))
    strides = _pair(strides, "strides", "DepthwiseConv2dNative")
    return _bind_conv2d(x, block, strides, padding, dilations, "DepthwiseConv2dNative")


# -- pooling -------------------------------------------------------------------------------------


def _pool_counts(shape: tuple, k_hw, strides, pads, out_hw) -> np.ndarray:
    """How many real (non-padding) inputs each window covers: AvgPool divides by it, as TF."""
    ones = np.ones((1, shape[1], shape[2], 1), np.float64)
    counts = _patches(_pad(ones, pads), k_hw, out_hw, strides, (1, 1)).sum(axis=(3, 4))
    return np.maximum(counts, 1)


def _avg_pool_kernel(x, ksize, strides, pads, out_hw):
    if 0 in out_hw:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[3],), x.dtype)
    sums = _patches(_pad(x, pads), ksize, out_hw, strides, (1, 1)).sum(axis=(3, 4))
    return (sums / _pool_counts(x.shape, ksize, strides, pads, out_hw)).astype(x.dtype)


def _avg_pool_grad_kernel(g, input_shape, ksize, strides, pads, out_hw):
    # The counts are float64: cast back, or a float32 gradient would come out float64.
    g = (g / _pool_counts(input_shape, ksize, strides, pads, out_hw)).astype(g.dtype, copy=False)
    cols = np.broadcast_to(g[:, :, :, None, None, :], g.shape[:3] + tuple(ksize) + g.shape[3:])
    padded = (input_shape[0], input_shape[1] + sum(pads[0]), input_shape[2] + sum(pads[1]),
              input_shape[3])
    return _scatter(cols, padded, pads, strides, (1, 1)).astype(g.dtype, copy=False)


_avg_pool = Primitive("AvgPool", _avg_pool_kernel)
_avg_pool_grad = Primitive("AvgPoolGrad", _avg_pool_grad_kernel)
_avg_pool.defvjp(lambda g, ans, x, **a: bind(_avg_pool_grad, (g,),
                                             {"input_shape": x._value.shape, **a}))
_avg_pool_grad.defvjp(lambda c, ans, g, input_shape, **a: bind(_avg_pool, (c,), a))


def _argmax_cols(x, ksize, strides, pads, out_hw) -> np.ndarray:
    """Flat index within each window of TensorFlow's argmax: its first maximum; padding never
    wins. Inputs with nan or -inf take TensorFlow's scan (`_argmax_scan`)."""
    cols = _patches(_pad(x, pads, -np.inf), ksize, out_hw, strides, (1, 1))
    if x.size and not x.min() > -np.inf:  # one cheap pass: nan or -inf somewhere
        return _argmax_scan(cols, x.shape, ksize, strides, pads)
    n, oh, ow, kh, kw, c = cols.shape
    flat = cols.transpose(0, 1, 2, 5, 3, 4).reshape(n, oh, ow, c, kh * kw)
    return flat.argmax(axis=-1)


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
    if 0 in out_hw:
        return np.zeros((x.shape[0],) + tuple(out_hw) + (x.shape[3],), x.dtype)
    cols = _patches(_pad(x, pads, -np.inf), ksize, out_hw, strides, (1, 1))
    out = cols.max(axis=(3, 4))
    if out.size and not out.min() > -np.inf:  # nan or -inf came out: the rare, slower way
        out = np.fmax.reduce(cols, axis=(3, 4))
        np.fmax(out, np.finfo(x.dtype).min, out=out)
    return out


def _max_pool_grad_kernel(x, g, ksize, strides, pads, out_hw):
    """Routes each output's cotangent to its window's argmax (scatter-add)."""
    arg = _argmax_cols(x, ksize, strides, pads, out_hw)
    onehot = (arg[..., None] == np.arange(ksize[0] * ksize[1])).astype(g.dtype)
    cols = (onehot * g[..., None]).reshape(g.shape + tuple(ksize)).transpose(0, 1, 2, 4, 5, 3)
    padded = (x.shape[0], x.shape[1] + sum(pads[0]), x.shape[2] + sum(pads[1]), x.shape[3])
    return _scatter(cols, padded, pads, strides, (1, 1))


def _max_pool_grad_grad_kernel(x, c, ksize, strides, pads, out_hw):
    """Gathers `c` (shaped like x) at each window's argmax: the transpose of MaxPoolGrad."""
    arg = _argmax_cols(x, ksize, strides, pads, out_hw)
    cols = _patches(_pad(c, pads), ksize, out_hw, strides, (1, 1))
    n, oh, ow, kh, kw, ch = cols.shape
    flat = cols.transpose(0, 1, 2, 5, 3, 4).reshape(n, oh, ow, ch, kh * kw)
    return np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0].astype(c.dtype,
                                                                             copy=False)


_max_pool = Primitive("MaxPool", _max_pool_kernel)
_max_pool_grad = Primitive("MaxPoolGrad", _max_pool_grad_kernel)
_max_pool_grad_grad = Primitive("MaxPoolGradGrad", _max_pool_grad_grad_kernel)
# The routing is piecewise constant in x, so x's cotangent through the grad ops is zeros (not
# None, as TensorFlow's: nested tapes give a zero second derivative).
_max_pool.defvjp(lambda g, ans, x, **a: bind(_max_pool_grad, (x, g), a))
_max_pool_grad.defvjp(lambda c, ans, x, g, **a: (zeros_like(x),
                                                 bind(_max_pool_grad_grad, (x, c), a)))
_max_pool_grad_grad.defvjp(lambda c, ans, x, cc, **a: (zeros_like(x),
                                                       bind(_max_pool_grad, (x, c), a)))


def _pool(prim: Primitive, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
          data_format: str, op_name: str) -> Tensor:
    x = convert_to_tensor(input)
    require(x, "f", op_name)
    if data_format not in ("NHWC", None):
        raise InvalidArgumentError(f"{op_name} supports only data_format NHWC here, got "
                                   f"{data_format} [Op:{op_name}]")
    _check_rank(x, 4, "input", op_name)
    ksize = _pair(ksize, "ksize", op_name)
    strides = _pair(strides, "strides", op_name)
    out_hw, pads = _geometry(x._value.shape[1:3], ksize, strides, (1, 1),
                             _padding_mode(padding, op_name), op_name)
    return bind(prim, (x,), {"ksize": ksize, "strides": strides, "pads": pads,
                             "out_hw": out_hw})


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """Max over `ksize` windows of NHWC `input`; SAME padding never wins the max."""
    return _pool(_max_pool, input, ksize, strides, padding, data_format, "MaxPool")


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """Mean over `ksize` windows of NHWC `input`; with SAME padding, the mean of the real
    inputs only (as TensorFlow)."""
    return _pool(_avg_pool, input, ksize, strides, padding, data_format, "AvgPool")


def max_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.max_pool` for 4-D (NHWC) input."""
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


def avg_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.avg_pool` for 4-D (NHWC) input."""
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


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


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Max over `ksize` windows along the W axis of NWC `input`."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "MaxPool")


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 - TF's name
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Mean over `ksize` windows along the W axis of NWC `input` (SAME: of the real inputs)."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "AvgPool")


def convolution(input: Any, filters: Any, strides: Any = None,  # noqa: A002 - TF's name
                padding: str = "VALID", data_format: Optional[str] = None,
                dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """`tf.nn.convolution` for 1-D and 2-D convolutions (rank-3 or rank-4 input)."""
    rank = convert_to_tensor(input)._value.ndim
    strides = 1 if strides is None else strides
    if rank == 3:
        return conv1d(input, filters, strides, padding, dilations=dilations)
    return conv2d(input, filters, strides, padding, dilations=dilations)


__all__ = ["conv1d", "conv2d", "conv2d_transpose", "depthwise_conv2d", "convolution",
           "max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d"]
