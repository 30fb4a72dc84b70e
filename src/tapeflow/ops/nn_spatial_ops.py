"""Layout ops that move space into depth or batch and back (`tf.nn.space_to_depth`,
`tf.space_to_batch_nd`, ...), and the morphological and argmax pools.

The layout ops are permutations: each is a pad or crop and a reshape-transpose-reshape, so
they are composites of differentiable array ops and need no rule of their own. TensorFlow's
kernels check their arguments first; the wrappers here raise its errors before permuting.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.convert import enum_name
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import read_at_run_time, reads_static, reads_variables, static_value
from tapeflow.ops.array_ops import reshape, shape as shape_op, slice_tensor, stack, transpose
from tapeflow.ops.conv_ops import _check_padding_name
from tapeflow.ops.manip_ops import pad
from tapeflow.ops.math_ops import zeros_like


def _static_shape(x: Tensor, op_name: str, first: int = 1) -> tuple:
    """x's dims; those from `first` on must be known (a trace may leave the batch unknown)."""
    shape = x._value.shape
    if shape is None or any(d is None for d in shape[first:]):
        raise NotImplementedError(f"{op_name}: tapeflow needs the dims of the input known "
                                  f"when tracing (after the batch); got shape {x.shape}")
    return tuple(shape)


def _batch(d: Optional[int]) -> int:
    return -1 if d is None else d


# -- space_to_depth / depth_to_space -------------------------------------------------------------

def _check_depth_args(x: Tensor, block_size: Any, data_format: str, op_name: str) -> int:
    block = int(block_size)
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise InvalidArgumentError(f"Value for attr 'data_format' of \"{data_format}\" is not "
                                   f"in the list of allowed values: \"NHWC\", \"NCHW\", "
                                   f"\"NCHW_VECT_C\" [Op:{op_name}]")
    if block < 2:
        raise InvalidArgumentError(f"Value for attr 'block_size' of {block} must be at least "
                                   f"minimum 2 [Op:{op_name}]")
    if data_format != "NHWC":  # TensorFlow's CPU kernels are NHWC only
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(x.dtype)}, block_size={block}, "
                            f"data_format=\"{data_format}\"] [Op:{op_name}]")
    if x._value.ndim != 4:
        raise InvalidArgumentError(f"Input rank should be 4 instead of {x._value.ndim} "
                                   f"[Op:{op_name}]")
    return block


@tf_export("nn.space_to_depth")
def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: Optional[str] = None) -> Tensor:
    """Moves each `block_size` x `block_size` block of height and width into the depth:
    [N, H, W, C] -> [N, H/b, W/b, b*b*C], depth ordered (row offset, column offset, C)."""
    x = convert_to_tensor(input)
    b = _check_depth_args(x, block_size, data_format, "SpaceToDepth")
    n, h, w, c = _static_shape(x, "space_to_depth")
    if h % b or w % b:
        raise InvalidArgumentError(f"Image width {w} and height {h} should be divisible by "
                                   f"block_size: {b} [Op:SpaceToDepth] name: ")
    y = reshape(x, (_batch(n), h // b, b, w // b, b, c))
    y = transpose(y, (0, 1, 3, 2, 4, 5))
    return reshape(y, (_batch(n), h // b, w // b, b * b * c))


@tf_export("nn.depth_to_space")
def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: Optional[str] = None) -> Tensor:
    """The inverse of space_to_depth: [N, H, W, b*b*C] -> [N, H*b, W*b, C]."""
    x = convert_to_tensor(input)
    b = _check_depth_args(x, block_size, data_format, "DepthToSpace")
    n, h, w, c = _static_shape(x, "depth_to_space")
    if c % (b * b):
        raise InvalidArgumentError(f"Input depth dimension {c} should be divisible by: "
                                   f"{b * b} [Op:DepthToSpace] name: ")
    y = reshape(x, (_batch(n), h, w, b, b, c // (b * b)))
    y = transpose(y, (0, 1, 3, 2, 4, 5))
    return reshape(y, (_batch(n), h * b, w * b, c // (b * b)))


# -- space_to_batch / batch_to_space -------------------------------------------------------------

def _block_args(x: Tensor, block_shape: Any, pairs: Any, op_name: str, pair_name: str) -> tuple:
    """(block, pairs) as Python ints, checked as TensorFlow's SpaceToBatchND/BatchToSpaceND."""
    block = static_value(block_shape, f"{op_name}: block_shape", np.asarray)
    pairs = static_value(pairs, f"{op_name}: {pair_name}", np.asarray)
    return _checked_block(block, pairs, x._value.ndim, op_name, pair_name)


def _checked_block(block: np.ndarray, pairs: np.ndarray, rank: int, op_name: str,
                   pair_name: str) -> tuple:
    """The shapes of block_shape and paddings/crops checked as TF's kernels; Python ints."""
    if block.ndim != 1:
        raise InvalidArgumentError(f"block_shape rank should be 1 instead of {block.ndim} "
                                   f"[Op:{op_name}]")
    m = block.shape[0]
    if pairs.shape != (m, 2):
        shown = "[" + ",".join(map(str, pairs.shape)) + "]"
        raise InvalidArgumentError(f"{pair_name} should have shape [{m}, 2] instead of {shown} "
                                   f"[Op:{op_name}]")
    if rank < 1 + m:
        raise InvalidArgumentError(f"input rank should be >= {1 + m} instead of {rank} "
                                   f"[Op:{op_name}]")
    block = tuple(int(v) for v in block)
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    return block, pairs


@tf_export("space_to_batch_nd")
@reads_static
def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any,  # noqa: A002
                      name: Optional[str] = None) -> Tensor:
    """Zero-pads the M spatial dims (1..M) by `paddings`, cuts them into `block_shape` blocks
    and moves each block offset into the batch: [B, *spatial, *rest] ->
    [B * prod(block), *(padded / block), *rest], batch ordered (offsets, then B)."""
    x = convert_to_tensor(input)
    if read_at_run_time(block_shape) or read_at_run_time(paddings):  # TF's run-time inputs
        return _bind_run_time(_space_to_batch, x, block_shape, paddings)
    block, pads = _block_args(x, block_shape, paddings, "SpaceToBatchND", "paddings")
    m = len(block)
    shape = _static_shape(x, "space_to_batch_nd")
    padded = _padded_dims(shape, block, pads)
    rest = shape[1 + m:]
    if any(a or b for a, b in pads):
        x = pad(x, ((0, 0),) + pads + ((0, 0),) * len(rest))
    split = [_batch(shape[0])]
    for p, b in zip(padded, block):
        split += [p // b, b]
    y = reshape(x, tuple(split) + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    y = transpose(y, perm + list(range(1 + 2 * m, 1 + 2 * m + len(rest))))
    batch = -1 if shape[0] is None else shape[0] * int(np.prod(block, dtype=np.int64))
    return reshape(y, (batch,) + tuple(p // b for p, b in zip(padded, block)) + rest)


@tf_export("space_to_batch", "nn.space_to_batch")
def space_to_batch(input: Any, block_shape: Any, paddings: Any,  # noqa: A002
                   name: Optional[str] = None) -> Tensor:
    """`tf.space_to_batch_nd` (TensorFlow 2's space_to_batch is the N-D op)."""
    return space_to_batch_nd(input, block_shape, paddings)


@tf_export("batch_to_space")
@reads_static
def batch_to_space(input: Any, block_shape: Any, crops: Any,  # noqa: A002
                   name: Optional[str] = None) -> Tensor:
    """The inverse of space_to_batch_nd: [B * prod(block), *spatial, *rest] ->
    [B, *(spatial * block), *rest], then `crops` cut from the spatial dims' ends."""
    x = convert_to_tensor(input)
    if read_at_run_time(block_shape) or read_at_run_time(crops):  # TF's run-time inputs
        return _bind_run_time(_batch_to_space, x, block_shape, crops)
    block, crops = _block_args(x, block_shape, crops, "BatchToSpaceND", "crops")
    m = len(block)
    shape = _static_shape(x, "batch_to_space")
    total, full = _full_dims(shape, block, crops)
    spatial, rest = shape[1:1 + m], shape[1 + m:]
    batch = -1 if shape[0] is None else shape[0] // total
    y = reshape(x, block + (batch,) + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    y = transpose(y, perm + list(range(2 * m + 1, 2 * m + 1 + len(rest))))
    y = reshape(y, (batch,) + tuple(full) + rest)
    if any(a or b for a, b in crops):
        y = slice_tensor(y, (builtins.slice(None),) + tuple(
            builtins.slice(a, f - b) for f, (a, b) in zip(full, crops)))
    return y


def _padded_dims(shape: tuple, block: tuple, pads: tuple) -> list:
    """SpaceToBatchND's checks of its values (TF's texts); the padded spatial dims."""
    if any(b < 1 for b in block):
        i = next(i for i, b in enumerate(block) if b < 1)
        raise InvalidArgumentError(f"All values in block_shape must be positive, got value, "
                                   f"{block[i]} at index {i}. [Op:SpaceToBatchND]")
    if any(a < 0 or b < 0 for a, b in pads):
        raise InvalidArgumentError("Paddings must be non-negative [Op:SpaceToBatchND]")
    padded = [d + a + b for d, (a, b) in zip(shape[1:1 + len(block)], pads)]
    for i, (p, b) in enumerate(zip(padded, block)):
        if p % b:
            raise InvalidArgumentError(f"padded_shape[{i}]={p} is not divisible by "
                                       f"block_shape[{i}]={b} [Op:SpaceToBatchND]")
    return padded


def _full_dims(shape: tuple, block: tuple, crops: tuple) -> tuple:
    """BatchToSpaceND's checks of its values (TF's texts); (prod(block), the uncropped
    spatial dims)."""
    if any(a < 0 or b < 0 for a, b in crops):
        raise InvalidArgumentError("Crops must be non-negative [Op:BatchToSpaceND]")
    total = int(np.prod(block, dtype=np.int64))
    if total < 1:
        raise InvalidArgumentError(f"Product of block sizes must be positive, got {total} "
                                   f"[Op:BatchToSpaceND]")
    if shape[0] is not None and shape[0] % total:
        raise InvalidArgumentError(f"Input batch dimension ({shape[0]}) is not divisible by "
                                   f"product of block sizes ({total}) [Op:BatchToSpaceND]")
    full = [d * b for d, b in zip(shape[1:1 + len(block)], block)]
    for i, (f, (a, b)) in enumerate(zip(full, crops)):
        if f - a - b < 0:
            raise InvalidArgumentError(f"cropped_shape[{i}]={f - a - b} must be non-negative "
                                       f"[Op:BatchToSpaceND]")
    return total, full


# -- the same ops with block_shape and paddings/crops read when a traced graph runs ----------------

def _space_to_batch_kernel(x: np.ndarray, block: np.ndarray, pads: np.ndarray) -> np.ndarray:
    block, pads = _checked_block(np.asarray(block), np.asarray(pads), x.ndim, "SpaceToBatchND",
                                 "paddings")
    padded = _padded_dims(x.shape, block, pads)
    m, rest = len(block), x.shape[1 + len(block):]
    x = np.pad(x, ((0, 0),) + pads + ((0, 0),) * len(rest))
    split = [x.shape[0]]
    for p, b in zip(padded, block):
        split += [p // b, b]
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    y = x.reshape(tuple(split) + rest).transpose(
        perm + list(range(1 + 2 * m, 1 + 2 * m + len(rest))))
    return y.reshape((-1,) + tuple(p // b for p, b in zip(padded, block)) + rest)


def _batch_to_space_kernel(x: np.ndarray, block: np.ndarray, crops: np.ndarray) -> np.ndarray:
    block, crops = _checked_block(np.asarray(block), np.asarray(crops), x.ndim,
                                  "BatchToSpaceND", "crops")
    total, full = _full_dims(x.shape, block, crops)
    m, spatial, rest = len(block), x.shape[1:1 + len(block)], x.shape[1 + len(block):]
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    y = x.reshape(block + (x.shape[0] // total,) + spatial + rest).transpose(
        perm + list(range(2 * m + 1, 2 * m + 1 + len(rest))))
    y = y.reshape((x.shape[0] // total,) + tuple(full) + rest)
    return y[(builtins.slice(None),) + tuple(builtins.slice(a, f - b)
                                             for f, (a, b) in zip(full, crops))]


def _run_time_block_rule(x: ShapedArray, block: ShapedArray, pairs: ShapedArray) -> ShapedArray:
    """The batch and the M spatial dims depend on the values; the other dims are x's."""
    m = None if block.shape is None or len(block.shape) != 1 else block.shape[0]
    if x.shape is None or m is None:
        return ShapedArray(x.shape and (None,) * len(x.shape), x.dtype)
    return ShapedArray((None,) * (1 + m) + x.shape[1 + m:], x.dtype)


# Not in the registry: the static path is a composite of registered ops; these run only under a
# trace (tests/function/test_unknown_value_registry.py checks them and their gradients).
_space_to_batch = Primitive("SpaceToBatchND", _space_to_batch_kernel,
                            shape_rule=_run_time_block_rule, register=False)
_batch_to_space = Primitive("BatchToSpaceND", _batch_to_space_kernel,
                            shape_rule=_run_time_block_rule, register=False)
# Each is the other's transpose: the cotangent goes back through the other with the same
# block and pairs (paddings become crops); the block and pairs get no gradient.
_space_to_batch.defvjp(lambda g, ans, x, block, pads: (
    bind(_batch_to_space, (g, block, pads), {}), None, None))
_batch_to_space.defvjp(lambda g, ans, x, block, crops: (
    bind(_space_to_batch, (g, block, crops), {}), None, None))


def _bind_run_time(prim: Primitive, x: Tensor, block_shape: Any, pairs: Any) -> Tensor:
    block, pairs = convert_to_tensor(block_shape), convert_to_tensor(pairs)
    for arg in (block, pairs):
        if not arg.dtype.is_integer:
            raise TypeError(f"{prim.name}: block_shape, paddings and crops must be int32 or "
                            f"int64 tensors, got {arg.dtype.name}")
    return bind(prim, (x, block, pairs), {})


@tf_export("required_space_to_batch_paddings")
@reads_static
def required_space_to_batch_paddings(input_shape: Any, block_shape: Any,
                                     base_paddings: Any = None,
                                     name: Optional[str] = None) -> tuple:
    """(paddings, crops) [M, 2] int32: base_paddings extended at the end so that each padded
    spatial dim divides by its block, and the crops that take the extension off again."""
    if read_at_run_time([input_shape, block_shape, base_paddings]):   # ops, as TF's Python
        return _run_time_required_paddings(input_shape, block_shape, base_paddings)
    shape = static_value(input_shape, "required_space_to_batch_paddings: input_shape", np.asarray)
    block = static_value(block_shape, "required_space_to_batch_paddings: block_shape", np.asarray)
    for arg, what in ((input_shape, "input_shape"), (block_shape, "block_shape")):
        if isinstance(arg, Tensor) and arg.dtype != _dtypes.int32:  # TF converts to int32
            raise ValueError(f"{what}: Tensor conversion requested dtype int32 for Tensor "
                             f"with dtype {arg.dtype.name}: {arg!r}")
    m = block.shape[0]
    if shape.shape != (m,):
        raise ValueError(f"Shapes ({shape.shape[0] if shape.ndim else ''},) and [{m}] are "
                         f"incompatible")
    base = np.zeros((m, 2), np.int64) if base_paddings is None else static_value(
        base_paddings, "required_space_to_batch_paddings: base_paddings", np.asarray)
    start, end = base[:, 0], base[:, 1]
    extra = (block - (shape + start + end) % block) % block
    paddings = np.stack([start, end + extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], axis=1).astype(np.int32)
    return convert_to_tensor(paddings), convert_to_tensor(crops)


def _run_time_required_paddings(input_shape: Any, block_shape: Any, base_paddings: Any) -> tuple:
    """required_space_to_batch_paddings computed by ops that read the values as the graph runs
    (TF's arithmetic; its shape checks on the static shapes)."""
    shape, block = (convert_to_tensor(a, dtype_hint=_dtypes.int32)
                    for a in (input_shape, block_shape))
    for arg, what in ((shape, "input_shape"), (block, "block_shape")):
        if arg.dtype != _dtypes.int32:  # TF converts to int32
            raise ValueError(f"{what}: Tensor conversion requested dtype int32 for Tensor "
                             f"with dtype {arg.dtype.name}: {arg!r}")
    m, n = block._value.shape[0], shape._value.shape[0]
    if None not in (m, n) and m != n:
        raise ValueError(f"Shapes ({n},) and [{m}] are incompatible")
    base = zeros_like(stack([block, block], axis=1)) if base_paddings is None else \
        convert_to_tensor(base_paddings, dtype_hint=_dtypes.int32)
    start, end = base[:, 0], base[:, 1]
    extra = (block - (shape + start + end) % block) % block
    return stack([start, end + extra], axis=1), stack([zeros_like(extra), extra], axis=1)


# -- windows -------------------------------------------------------------------------------------

def _pair(value: Any, what: str) -> tuple:
    """TF's _get_sequence for 2 spatial dims of NHWC: an int, [h, w] or [1, h, w, 1]."""
    values = [int(v) for v in np.ravel(value)]
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return tuple(values)
    if len(values) == 4:
        return values[1], values[2]
    raise ValueError(f"{what} should be of length 1, 2 or 4. Received: {what}={value} of "
                     f"length {len(values)}")


def _window_layout(size: int, k: int, stride: int, rate: int, padding: str) -> tuple:
    """(output size, padding before) of one spatial dim, as TF's GetWindowedOutputSize."""
    eff = (k - 1) * rate + 1
    if padding == "VALID":
        return builtins.max(0, -(-(size - eff + 1) // stride)), 0
    out = -(-size // stride)
    return out, builtins.max(0, (out - 1) * stride + eff - size) // 2


def _padding_name(padding: Any, op_name: str) -> str:
    """`padding` as TF's op attr takes it: exactly 'SAME' or 'VALID' (TF 2.21's
    InvalidArgumentError for 'same', 'valid' or any other string)."""
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return _check_padding_name(padding, op_name)


def _window_taps(shape: tuple, ksize: tuple, strides: tuple, rates: tuple,
                 padding: str) -> tuple:
    """For each window tap (dy, dx) in row-major order, the input rows and columns it reads
    at each output position, and whether they lie inside the input: ([K, oh] rows,
    [K, ow] cols, [K, oh, ow] valid) with K = kh * kw."""
    (h, w), taps = shape, []
    (oh, top), (ow, left) = (_window_layout(n, k, s, r, padding) for n, k, s, r in
                             zip((h, w), ksize, strides, rates))
    rows = np.arange(oh) * strides[0] - top
    cols = np.arange(ow) * strides[1] - left
    for dy in range(ksize[0]):
        for dx in range(ksize[1]):
            taps.append((rows + dy * rates[0], cols + dx * rates[1]))
    r = np.stack([t[0] for t in taps]) if taps else np.zeros((0, oh), np.int64)
    c = np.stack([t[1] for t in taps]) if taps else np.zeros((0, ow), np.int64)
    valid = ((r >= 0) & (r < h))[:, :, None] & ((c >= 0) & (c < w))[:, None, :]
    return r, c, valid


# -- max_pool_with_argmax ------------------------------------------------------------------------

def _argmax_pool_kernel(x: np.ndarray, ksize: tuple, strides: tuple, padding: str,
                        include_batch: bool, dtype: np.dtype) -> tuple:
    """(flat index with batch, TF's argmax) of each window's first maximum in row-major
    window order, as TF's kernel scans (strict >, out-of-bounds taps skipped)."""
    b, h, w, c = x.shape
    rows, cols, valid = _window_taps((h, w), ksize, strides, (1, 1), padding)
    oh, ow = rows.shape[1], cols.shape[1]
    best = np.full((b, oh, ow, c), -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min,
                   dtype=np.float64 if x.dtype.kind == "f" else x.dtype)
    arg = np.full((b, oh, ow, c), -1, np.int64)
    for k in range(rows.shape[0]):
        r, cc = np.clip(rows[k], 0, h - 1), np.clip(cols[k], 0, w - 1)
        v = x[:, r][:, :, cc]
        take = valid[k][None, :, :, None] & ((best < v) | (arg == -1))
        best = np.where(take, v, best)
        index = (rows[k][:, None, None] * w + cols[k][None, :, None]) * c + np.arange(c)
        arg = np.where(take, index[None], arg)
    flat = arg + (np.arange(b) * (h * w * c))[:, None, None, None]
    return flat, (flat if include_batch else arg).astype(dtype)


def _argmax_pool_rule(x: Any, ksize: tuple, strides: tuple, padding: str,
                      include_batch: bool, dtype: np.dtype) -> tuple:
    from tapeflow.framework.abstract import ShapedArray
    b, h, w, c = (None,) * 4 if x.shape is None else x.shape
    (oh, _), (ow, _) = ((None, 0) if n is None else _window_layout(n, k, s, 1, padding)
                        for n, k, s in zip((h, w), ksize, strides))
    shape = (b, oh, ow, c)
    return ShapedArray(shape, np.dtype(np.int64)), ShapedArray(shape, np.dtype(dtype))


def _argmax_pool_prim() -> Any:
    from tapeflow.autodiff.core import Primitive
    return Primitive("MaxPoolWithArgmax", _argmax_pool_kernel, multiple_results=True,
                     differentiable=False, shape_rule=_argmax_pool_rule)


_ARGMAX_POOL = _argmax_pool_prim()


class MaxPoolWithArgmax(tuple):
    """TF's (output, argmax) named result of max_pool_with_argmax."""

    __slots__ = ()

    def __new__(cls, output: Tensor, argmax: Tensor) -> "MaxPoolWithArgmax":
        return super().__new__(cls, (output, argmax))

    output = property(lambda self: self[0])
    argmax = property(lambda self: self[1])

    def __repr__(self) -> str:
        return f"MaxPoolWithArgmax(output={self[0]!r}, argmax={self[1]!r})"


@tf_export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                         data_format: str = "NHWC", output_dtype: Any = _dtypes.int64,
                         include_batch_in_index: bool = False,
                         name: Optional[str] = None) -> MaxPoolWithArgmax:
    """2-D max pooling that also returns where each maximum is: the flat index
    (y * W + x) * C + c, or ((b * H + y) * W + x) * C + c with `include_batch_in_index`.
    The output's gradient goes to those positions, as TF's MaxPoolGradWithArgmax."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.array_ops import gather
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    x = convert_to_tensor(input)
    if x._value.ndim != 4:
        raise InvalidArgumentError(f"tensor_in must be 4-dimensional ({x._value.ndim}) "
                                   f"[Op:MaxPoolWithArgmax] name: ")
    dtype = _dtypes.as_dtype(output_dtype)
    attrs = {"ksize": _pair(ksize, "ksize"), "strides": _pair(strides, "strides"),
             "padding": _padding_name(padding, "MaxPoolWithArgmax"),
             "include_batch": bool(include_batch_in_index),
             "dtype": dtype._np}
    flat, argmax = bind(_ARGMAX_POOL, (x,), attrs)
    return MaxPoolWithArgmax(gather(reshape(x, [-1]), flat), argmax)


# -- dilation2d / erosion2d ----------------------------------------------------------------------

def _spatial_attr(value: Any, what: str, op_name: str) -> tuple:
    values = [int(v) for v in np.ravel(value)]
    if len(values) != 4:
        raise InvalidArgumentError(f"Sliding window {what} field must specify 4 dimensions "
                                   f"[Op:{op_name}]")
    if values[0] != 1 or values[3] != 1:
        from tapeflow.framework.errors import UnimplementedError
        kind = "Stride" if what == "strides" else "Rate"
        raise UnimplementedError(f"{kind} is only supported across spatial dimensions. "
                                 f"[Op:{op_name}] name: ")
    return values[1], values[2]


def _dilation(x: Tensor, w: Tensor, strides: Any, rates: Any, padding: Any) -> Tensor:
    """max over the window of x[y * s + dy * r, ...] + w[dy, dx] (TF's Dilation2D): the first
    maximum in row-major window order is picked with argmax, so the gradient goes to it
    alone, as TF's Dilation2DBackpropInput/Filter route it."""
    from tapeflow.ops.array_ops import constant, expand_dims, gather, stack
    from tapeflow.ops.math_ops import equal, where, zeros_like
    from tapeflow.ops.reduce_ops import argmax, reduce_sum
    op_name = "Dilation2D"
    if x._value.ndim != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional{list(x.shape)} "
                                   f"[Op:{op_name}] name: ")
    if w._value.ndim != 3:
        raise InvalidArgumentError(f"filter must be 3-dimensional: {list(w.shape)} "
                                   f"[Op:{op_name}] name: ")
    if w.dtype != x.dtype:
        raise InvalidArgumentError(f"cannot compute {op_name} as input #1(zero-based) was "
                                   f"expected to be a {x.dtype.name} tensor but is a "
                                   f"{w.dtype.name} tensor [Op:{op_name}] name: ")
    stride, rate = _spatial_attr(strides, "strides", op_name), _spatial_attr(rates, "rates",
                                                                             op_name)
    padding = _padding_name(padding, "Dilation2D")
    b, h, wd, c = _static_shape(x, "dilation2d")
    kh, kw, depth = w._value.shape
    if depth != c:
        raise InvalidArgumentError(f"input and filter must have the same depth: {c} vs "
                                   f"{depth} [Op:{op_name}] name: ")
    rows, cols, valid = _window_taps((h, wd), (kh, kw), stride, rate, padding)
    oh, ow = rows.shape[1], cols.shape[1]
    if oh == 0 or ow == 0 or kh * kw == 0:
        return reshape(x[:, :0, :0, :], (_batch(b), oh, ow, c))
    lowest = np.finfo(x._value.dtype).min if x.dtype.is_floating else \
        np.iinfo(x._value.dtype).min
    taps = []
    for k in range(rows.shape[0]):
        r = constant(np.clip(rows[k], 0, h - 1).astype(np.int32))
        cc = constant(np.clip(cols[k], 0, wd - 1).astype(np.int32))
        taps.append(gather(gather(x, r, axis=1), cc, axis=2) + w[k // kw, k % kw])
    candidates = stack(taps, axis=3)                       # [B, oh, ow, K, C]
    inside = constant(np.transpose(valid, (1, 2, 0))[None, :, :, :, None])
    candidates = where(inside, candidates, constant(lowest, dtype=x.dtype))
    first = argmax(candidates, axis=3, output_type=_dtypes.int32)
    picked = equal(expand_dims(first, 3),
                   constant(np.arange(rows.shape[0], dtype=np.int32)[:, None]))
    return reduce_sum(where(picked, candidates, zeros_like(candidates)), axis=3)


def _morphology_args(data_format: str) -> None:
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")


@tf_export("nn.dilation2d")
def dilation2d(input: Any, filters: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str, dilations: Any, name: Optional[str] = None) -> Tensor:
    """Grayscale morphological dilation of NHWC `input` by `filters` [kh, kw, C]:
    max over each window of input + filter (strides and dilations 4-element, NHWC)."""
    _morphology_args(data_format)
    x = convert_to_tensor(input)
    return _dilation(x, convert_to_tensor(filters, dtype_hint=x.dtype), strides, dilations,
                     padding)


@tf_export("nn.erosion2d")
def erosion2d(value: Any, filters: Any, strides: Any, padding: str, data_format: str,
              dilations: Any, name: Optional[str] = None) -> Tensor:
    """Grayscale morphological erosion: -dilation2d(-value, filters reversed in height and
    width), as TF computes it."""
    from tapeflow.ops.manip_ops import reverse
    from tapeflow.ops.math_ops import negative
    _morphology_args(data_format)
    x = convert_to_tensor(value)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    return negative(_dilation(negative(x), reverse(w, [0, 1]), strides, dilations, padding))


# -- dilated and generic transposed convolutions (over conv_ops) -----------------------------------

@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str,
                  name: Optional[str] = None) -> Tensor:
    """conv2d of NHWC `value` with `filters` dilated by `rate` in height and width."""
    from tapeflow.ops.conv_ops import convolution
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):  # TF 2.21's text
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: "
                         f"padding={padding}")
    rates = np.broadcast_to(np.asarray(rate), (2,))
    if np.any(rates < 1):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: "
                         f"dilation_rate={rates}")
    return convolution(value, filters, padding=padding, dilations=[int(r) for r in rates])


@tf_export("nn.atrous_conv2d_transpose")
@reads_static
def atrous_conv2d_transpose(value: Any, filters: Any, output_shape: Any, rate: int,
                            padding: str, name: Optional[str] = None) -> Tensor:
    """The transpose of atrous_conv2d, computed as TF does: space_to_batch by `rate`, a
    VALID conv2d_transpose, batch_to_space with the SAME padding cropped off."""
    from tapeflow.ops.conv_ops import conv2d_transpose
    value, w = convert_to_tensor(value), convert_to_tensor(filters)
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    if rate == 1:
        return conv2d_transpose(value, w, output_shape, strides=[1, 1, 1, 1], padding=padding)
    shape = _atrous_output_shape(output_shape)
    if len(shape) != 4:
        raise ValueError(f"output_shape must have shape (4,), got ({len(shape)},)")
    if isinstance(shape, list) and w._value.shape[2] is not None and \
            shape[3] != w._value.shape[2]:
        raise ValueError(f"output_shape does not match filter's output channels, {shape[3]} "
                         f"!= {w._value.shape[2]}")
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):  # TF 2.21's text
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: "
                         f"padding={padding}")
    if padding == "SAME":
        kh, kw = w._value.shape[:2]
        if kh is None or kw is None:   # the filter's size as the graph runs
            kh, kw = shape_op(w)[0], shape_op(w)[1]
        pad_h, pad_w = (kh - 1) * rate, (kw - 1) * rate
        top, left = pad_h // 2, pad_w // 2
        bottom, right = pad_h - top, pad_w - left
    else:
        top = bottom = left = right = 0
    in_h, in_w = shape[1] + top + bottom, shape[2] + left + right
    extra_h, extra_w = (rate - in_h % rate) % rate, (rate - in_w % rate) % rate
    value = space_to_batch_nd(value, [rate, rate], [[0, extra_h], [0, extra_w]])
    sizes = [rate * rate * shape[0], (in_h + extra_h) // rate, (in_w + extra_w) // rate,
             shape[3]]
    if any(isinstance(d, Tensor) for d in sizes):
        sizes = stack(sizes)
    value = conv2d_transpose(value, w, sizes, strides=[1, 1, 1, 1], padding="VALID")
    return batch_to_space(value, [rate, rate], [[top, bottom + extra_h],
                                                [left, right + extra_w]])


def _atrous_output_shape(output_shape: Any) -> Any:
    """Python ints, or where it is read when the graph runs (as TF's), the tensor: the
    arithmetic on its items below then builds ops, as TF's Python does."""
    if read_at_run_time(output_shape):
        shape = convert_to_tensor(output_shape)
        if shape._value.shape != (4,):
            raise ValueError(f"output_shape must have shape (4,), got {shape.shape}")
        return shape
    return [int(d) for d in static_value(output_shape, "atrous_conv2d_transpose: output_shape",
                                         np.asarray)]


@tf_export("nn.conv_transpose")
@reads_variables
def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                   padding: str = "SAME", data_format: Optional[str] = None,
                   dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """conv1d_transpose, conv2d_transpose or conv3d_transpose by the length of
    `output_shape` (3, 4 or 5)."""
    from tapeflow.ops import conv_ops
    if isinstance(output_shape, Tensor):
        n = output_shape.shape[0] - 2
    elif hasattr(output_shape, "__len__"):
        n = len(output_shape) - 2
    else:
        raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: "
                         f"output_shape={output_shape}")
    if not 1 <= n <= 3:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: "
                         f"output_shape={output_shape} of length {n + 2}.")
    op = (conv_ops.conv1d_transpose, conv_ops.conv2d_transpose, conv_ops.conv3d_transpose)[n - 1]
    kwargs = {} if data_format is None else {"data_format": data_format}
    return op(input, filters, output_shape, strides, padding=padding, dilations=dilations,
              **kwargs)
