"""Array manipulation: pad, reverse, roll, meshgrid, repeat, cumsum, cumprod, sort, argsort,
top_k and unique, with their rules.

Mirror padding, meshgrid, repeat and the sorts are composites of primitives that already have
rules (slices, concat, reverse, GatherNd), so they need no rule of their own.
"""

from __future__ import annotations

import builtins
import collections
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import ShapedArray, dims_text, has_static_shape, same_as_input
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.convert import check_dtype, cpp_name, enum_name, mismatch_error
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.framework.ragged_tensor import fallback as ragged_fallback
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops.array_ops import (broadcast_to, concat, range as range_, reshape,
                                    run_time_int, shape as shape_of, slice_tensor, stack,
                                    transpose)
from tapeflow.ops._static import (ensure_shape_prim, is_traced, read_at_run_time,
                                  reads_static, static_value)
from tapeflow.ops.index_ops import (_RUN_CHECKS, EIGEN_PACKET, checked, gather_axis, linear_jvp,
                                    searchsorted, take_along_axis)
from tapeflow.ops.math_ops import cast, divide_no_nan, maximum, where

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _int_list(value: Any) -> list:
    if isinstance(value, Tensor):
        value = value._value
    return [int(v) for v in np.asarray(value).reshape(-1)]


# -- shape rules ---------------------------------------------------------------------------------

def _pad_rule(x: ShapedArray, value: ShapedArray, *pads_input: ShapedArray,
              paddings: Optional[tuple]) -> ShapedArray:
    # Each dim grows by its paddings; an unknown rank is the paddings' (dims unknown, as TF).
    # Traced paddings (`pads_input`) leave None where their value decides (`paddings`: the
    # static (before, after) pairs, None in place of a run-time one; None: unknown rows).
    if paddings is None:
        rows = pads_input[0].shape[0] if pads_input[0].shape is not None and \
            len(pads_input[0].shape) == 2 else None
        rank = rows if x.shape is None else len(x.shape)
        return ShapedArray(None if rank is None else (None,) * rank, x.dtype)
    if x.shape is None:
        return ShapedArray((None,) * len(paddings), x.dtype)
    if len(x.shape) != len(paddings):
        raise ValueError(f"The first dimension of paddings must be the rank of inputs"
                         f"[{len(paddings)},2] {dims_text(x.shape)} for '{{{{node PadV2}}}}'")
    return ShapedArray(tuple(None if None in (d, a, b) else d + a + b
                             for d, (a, b) in zip(x.shape, paddings)), x.dtype)


def _top_k_rule(x: ShapedArray, *k_input: ShapedArray, descending: bool, dtype: np.dtype,
                k: Optional[int] = None, sorted: bool = True) -> ShapedArray:  # noqa: A002
    # x.shape[:-1] + [k]; k None (a full sort) keeps the last dim, a k input (known at run
    # time) makes it unknown. Indices only: the values are gathered by them.
    if x.shape is None:
        return ShapedArray(None, dtype)
    if not x.shape:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for "
                         "'{{node TopKV2}}' with input shapes: [], [].")
    n = x.shape[-1]
    if k is not None and n is not None and n < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {n} for "
                         f"'{{{{node TopKV2}}}}' with input shapes: {dims_text(x.shape)}, [].")
    return ShapedArray(x.shape[:-1] + (None if k_input else n if k is None else k,), dtype)


def _unique_rule(x: ShapedArray, dtype: np.dtype) -> tuple:
    # The distinct values and their counts are as many as the values say (None). The kernel
    # flattens x for idx and takes y's rows from x's first axis (the wrapper passes 1-D x).
    if x.shape is None:
        return (ShapedArray(None, x.dtype), ShapedArray((None,), dtype),
                ShapedArray((None,), dtype))
    size = None if None in x.shape else int(np.prod(x.shape))
    return (ShapedArray((None,) + x.shape[1:], x.dtype), ShapedArray((size,), dtype),
            ShapedArray((None,), dtype))


def _in_top_k_rule(predictions: ShapedArray, targets: ShapedArray, *k_input: ShapedArray,
                   k: Optional[int]) -> ShapedArray:
    rows = None if predictions.shape is None else predictions.shape[0]
    if targets.shape is not None:
        t = targets.shape[0]
        if rows is not None and t is not None and rows != t:
            raise ValueError(f"Dimensions must be equal, but are {rows} and {t} for "
                             f"'{{{{node InTopKV2}}}}' with input shapes: "
                             f"{dims_text(predictions.shape)}, {dims_text(targets.shape)}, [].")
        rows = t if rows is None else rows
    return ShapedArray((rows,), np.bool_)


# -- pad -----------------------------------------------------------------------------------------

def _pad_kernel(x: np.ndarray, value: np.ndarray, *pads_input: np.ndarray,
                paddings: Optional[tuple]) -> np.ndarray:
    """`x` padded with `value`: by `paddings`, or by `pads_input[0]` (traced paddings, read
    and checked as the graph runs)."""
    if pads_input:
        paddings = _checked_paddings(pads_input[0], x.shape, mirror=None)
    return np.pad(x, paddings, constant_values=value)


def _checked_paddings(pads: np.ndarray, shape: tuple, mirror: Optional[str]) -> tuple:
    """`pads` as ((before, after), ...) after the checks of TF's Pad kernel, or of its
    MirrorPad kernel (`mirror`: "REFLECT" or "SYMMETRIC"), in their order and words."""
    op = "MirrorPad" if mirror else "Pad"
    pads = np.asarray(pads)
    if pads.ndim != 2 or pads.shape[1] != 2:
        raise InvalidArgumentError(f"paddings must be a matrix with 2 columns: "
                                   f"{dims_text(pads.shape)} [Op:{op}]")
    if pads.shape[0] != len(shape):
        raise InvalidArgumentError(f"The first dimension of paddings must be the rank of "
                                   f"inputs{dims_text(pads.shape)}{', ' if mirror else ' '}"
                                   f"{dims_text(shape)} [Op:{op}]")
    pairs = tuple((int(a), int(b)) for a, b in pads.tolist())
    for dim, (before, after) in zip(shape, pairs):
        if before < 0 or after < 0:
            raise InvalidArgumentError(f"{'p' if mirror else 'P'}addings must be non-negative: "
                                       f"{before} {after} [Op:{op}]")
        if mirror:
            _check_mirror_axis(dim, before, after, mirror == "REFLECT")
    return pairs


def _pad_vjp(g: Tensor, ans: Tensor, x: Tensor, value: Tensor, *pads_input: Tensor,
             paddings: Optional[tuple]) -> tuple:
    if pads_input:   # the block of x's shape at the run-time `before`s
        return (_unpadded(g, x, pads_input[0]), None, None)
    if not has_static_shape(x._value):  # the same slices, counted from the ends
        return slice_tensor(g, tuple(builtins.slice(before, -after or None)
                                     for before, after in paddings)), None
    key = tuple(builtins.slice(before, before + d)
                for (before, _), d in zip(paddings, x._value.shape))
    return slice_tensor(g, key), None


def _unpadded(g: Tensor, x: Tensor, pads: Tensor) -> Tensor:
    """The block of `g` that `x` padded by the run-time `pads` came from (TF's PadGrad)."""
    sizes = x._value.shape
    if sizes is None:
        raise NotImplementedError("the gradient of tf.pad by paddings known only when the "
                                  "graph runs needs the input's rank while tracing")
    dims = shape_of(x, out_type=pads.dtype) if None in sizes else None
    key = []
    for axis, size in enumerate(sizes):
        before = pads[axis, 0]
        key.append(builtins.slice(before, before + (dims[axis] if size is None else size)))
    return slice_tensor(g, tuple(key))


_pad = Primitive("PadV2", _pad_kernel, shape_rule=_pad_rule).defvjp(_pad_vjp)


def _traced_paddings(paddings: Any) -> tuple:
    """Paddings holding a tensor read when the graph runs (see `read_at_run_time`), as
    (pattern, tensor): the static (before, after) pairs, None in place of the values read then
    (the pattern is None where the rows are unknown), and the int [rank, 2] tensor to read."""
    if isinstance(paddings, Tensor):
        _check_paddings_dtype(paddings)
        static = paddings._value.shape
        rows = static[0] if static is not None and len(static) == 2 else None
        return (None if rows is None else ((None, None),) * rows), paddings
    dtype = next(t.dtype for t in _flat(paddings) if read_at_run_time(t))
    pattern, rows = [], []
    for row in paddings:
        if read_at_run_time(row) and isinstance(row, Tensor):
            _check_paddings_dtype(row)
            pattern.append((None, None))
            rows.append(cast(row, dtype))
            continue
        items = tuple(row) if isinstance(row, (list, tuple)) else \
            tuple(np.asarray(row._value).tolist())
        pattern.append(tuple(None if read_at_run_time(v) else
                             int(np.asarray(getattr(v, "_value", v))) for v in items))
        rows.append(stack([cast(v, dtype) if p is None else convert_to_tensor(p, dtype=dtype)
                           for v, p in zip(items, pattern[-1])]))
    return tuple(pattern), stack(rows)


def _flat(paddings: Any) -> list:
    """The items of a list of paddings rows (a row may be one tensor)."""
    return [t for row in paddings for t in (row if isinstance(row, (list, tuple)) else (row,))]


def _check_paddings_dtype(t: Tensor) -> None:
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"Value for attr 'Tpaddings' of {t.dtype.name} is not in the list of "
                        f"allowed values: int32, int64")


@tf_export("pad")
@reads_static
def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: Optional[str] = None) -> Tensor:
    """`tensor` padded by `paddings` ([rank, 2]: before and after each axis) with
    `constant_values` ('CONSTANT') or its mirror image ('REFLECT' leaves the edge out,
    'SYMMETRIC' repeats it). `mode` is case-insensitive."""
    x = convert_to_tensor(tensor)
    upper = mode.upper() if isinstance(mode, str) else mode
    if upper != "CONSTANT":   # TF's Python checks the mode before any kernel runs
        _check_mode(upper, mode)
    if read_at_run_time(paddings):   # read when the graph runs, as TF's paddings input
        return _pad_traced(x, _traced_paddings(paddings), upper, constant_values)
    pads = static_value(paddings, "Pad: paddings", np.asarray)
    rank = x._value.ndim
    if pads.ndim != 2 or pads.shape != (rank, 2):
        raise InvalidArgumentError(f"The first dimension of paddings must be the rank of "
                                   f"inputs{list(pads.shape)} {list(x._value.shape)} "
                                   f"[Op:Pad]".replace(", ", ","))
    pads = tuple((int(a), int(b)) for a, b in pads)
    for a, b in pads:
        if a < 0 or b < 0:   # TF's words: the kernel's (MirrorPad's in lower case)
            raise InvalidArgumentError(
                f"Paddings must be non-negative: {a} {b} [Op:Pad]" if upper == "CONSTANT"
                else f"paddings must be non-negative: {a} {b} [Op:MirrorPad]")
    if upper == "CONSTANT":
        return bind(_pad, (x, _pad_value(x, constant_values)), {"paddings": pads})
    return _mirror_pad(x, pads, upper == "REFLECT")


def _pad_value(x: Tensor, constant_values: Any) -> Tensor:
    if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 \
            and constant_values == 0:  # TF pads with the dtype's zero (False for bool)
        constant_values = np.zeros((), x._value.dtype)
    return convert_to_tensor(constant_values, dtype=x.dtype)


def _check_mode(upper: Any, mode: Any) -> None:
    if upper not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')


def _pad_traced(x: Tensor, traced: tuple, upper: str, constant_values: Any) -> Tensor:
    """pad by traced paddings: `traced` is _traced_paddings' (pattern, tensor)."""
    pattern, pads = traced
    if upper == "CONSTANT":
        return bind(_pad, (x, _pad_value(x, constant_values), pads), {"paddings": pattern})
    return _mirror_pad_traced(x, pattern, pads, upper)


def _mirror_pad_traced(x: Tensor, pattern: Optional[tuple], pads: Tensor, mode: str) -> Tensor:
    """Mirror padding by run-time paddings: one gather per axis, of the positions
    -before .. dim + after - 1 folded back into the axis (checked as TF's MirrorPad kernel
    when the graph runs). Its gradient is the gathers'."""
    rank = x._value.ndim if x._value.shape is not None else \
        (None if pattern is None else len(pattern))
    if rank is None:
        raise NotImplementedError("tf.pad in REFLECT or SYMMETRIC mode with paddings known "
                                  "only when the graph runs needs the input's rank while "
                                  "tracing")
    if pattern is not None and len(pattern) != rank:
        raise ValueError(f"The first dimension of paddings must be the rank of inputs"
                         f"[{len(pattern)},2] {dims_text(x._value.shape)} for "
                         f"'{{{{node MirrorPad}}}}'")
    pads = checked(pads, (shape_of(x, out_type=pads.dtype),), "mirror_paddings", mode=mode)
    dims = shape_of(x, out_type=pads.dtype)
    edge = 1 if mode == "SYMMETRIC" else 0   # a SYMMETRIC position -1 reads 0, REFLECT's 1
    out = x
    for axis in builtins.range(rank):
        dim = dims[axis]
        positions = range_(-pads[axis, 0], dim + pads[axis, 1])
        folded = where(positions < 0, -positions - edge,
                       where(positions >= dim, 2 * dim - 2 + edge - positions, positions))
        out = gather_axis(out, folded, axis)
    static = x._value.shape
    if static is not None and pattern is not None:   # the dims the static parts decide
        out = bind(ensure_shape_prim, (out,), {
            "shape": tuple(None if None in (d, a, b) else d + a + b
                           for d, (a, b) in zip(static, pattern)), "note": ""})
    return out


def _mirror_pad(x: Tensor, pads: tuple, reflect: bool) -> Tensor:
    offset = 1 if reflect else 0
    if not has_static_shape(x._value):  # sizes known only when the graph runs: checked then
        x = checked(x, (), "mirror_pad", paddings=pads, reflect=reflect)
    for axis, (before, after) in enumerate(pads):
        dim = x._value.shape[axis]
        if dim is not None:
            _check_mirror_axis(dim, before, after, reflect)
        if not before and not after:
            continue
        lead = (builtins.slice(None),) * axis
        parts = []
        if before:
            parts.append(reverse(slice_tensor(x, lead + (builtins.slice(offset, offset + before),)),
                                 [axis]))
        parts.append(x)
        if after:  # (counted from the end where the dim is unknown)
            end = builtins.slice(dim - offset - after, dim - offset) if dim is not None else \
                builtins.slice(-offset - after, -offset or None)
            parts.append(reverse(slice_tensor(x, lead + (end,)), [axis]))
        x = concat(parts, axis=axis)
    return x


def _check_mirror_axis(dim: int, before: int, after: int, reflect: bool) -> None:
    offset = 1 if reflect else 0
    if before > dim - offset or after > dim - offset:
        bound, broken = ("less than", "not less than") if reflect else \
            ("no greater than", "greater than")
        raise InvalidArgumentError(
            f"paddings must be {bound} the dimension size: {before}, {after} {broken} "
            f"{dim} [Op:MirrorPad]")


def _check_mirror_pad(x: np.ndarray, paddings: tuple, reflect: bool) -> None:
    for dim, (before, after) in zip(x.shape, paddings):
        _check_mirror_axis(dim, before, after, reflect)


_RUN_CHECKS["mirror_pad"] = _check_mirror_pad
_RUN_CHECKS["mirror_paddings"] = lambda pads, dims, mode: _checked_paddings(
    pads, tuple(dims.tolist()), mirror=mode)


# -- reverse / roll ------------------------------------------------------------------------------

def _reverse_kernel(x: np.ndarray, *run_time_axis: np.ndarray, axis: Optional[tuple]
                    ) -> np.ndarray:
    """`x` flipped along `axis`, or along the run-time `axis` input (checked as TF's kernel)."""
    if run_time_axis:
        axis = _axes(run_time_axis[0], x.ndim, "ReverseV2") if x.ndim else ()
    return np.flip(x, axis)


_reverse = Primitive("ReverseV2", _reverse_kernel, shape_rule=same_as_input).defvjp(
    lambda g, ans, x, *run_time_axis, axis: (
        (bind(_reverse, (g,) + run_time_axis, {"axis": None}), None) if run_time_axis
        else reverse(g, axis)))
def _roll_kernel(x: np.ndarray, *shift_axis: np.ndarray, shift: Optional[tuple],
                 axis: Optional[tuple]) -> np.ndarray:
    """`x` rolled by `shift` along `axis`, or by the run-time `shift_axis` (traced shift
    and axis, read and checked as the graph runs)."""
    if shift_axis:
        shift, axis = _checked_roll(x.ndim, *shift_axis)
    return np.roll(x, shift, axis)


def _checked_roll(rank: int, shift: np.ndarray, axis: np.ndarray) -> tuple:
    """(shifts, axes) of a run-time roll, after the checks of TF's Roll kernel."""
    if not rank:
        raise InvalidArgumentError("input must be 1-D or higher [Op:Roll]")
    for what, v in (("shift", shift), ("axis", axis)):
        if np.ndim(v) > 1:
            raise InvalidArgumentError(f"{what} must be a scalar or a 1-D vector. Found: "
                                       f"{dims_text(np.shape(v))} [Op:Roll]")
    shifts, axes = np.reshape(shift, -1).tolist(), np.reshape(axis, -1).tolist()
    if len(shifts) != len(axes):
        raise InvalidArgumentError("shift and axis must have the same size [Op:Roll]")
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"axis {a} is out of range [Op:Roll]")
    return tuple(shifts), tuple(a % rank for a in axes)


def _roll_vjp(g: Tensor, ans: Tensor, x: Tensor, *shift_axis: Tensor, shift: Optional[tuple],
              axis: Optional[tuple]) -> Any:
    if shift_axis:   # rolled back by the run-time shifts
        back = bind(_roll, (g, -shift_axis[0], shift_axis[1]), {"shift": None, "axis": None})
        return back, None, None
    return bind(_roll, (g,), {"shift": tuple(-s for s in shift), "axis": axis})


_roll = Primitive("Roll", _roll_kernel, shape_rule=same_as_input).defvjp(_roll_vjp)


for _prim in (_pad, _reverse, _roll):
    _prim.defjvp(linear_jvp(_prim))


def _check_reverse_sequence(shape: tuple, lengths: np.ndarray, seq_axis: int,
                            batch_axis: int) -> None:
    """TF's ReverseSequence checks, in its order (also run when a traced graph runs)."""
    rank = len(shape)
    if batch_axis == seq_axis:
        raise InvalidArgumentError(f"batch_dim == seq_dim == {seq_axis} [Op:ReverseSequence]")
    if not 0 <= seq_axis < rank:
        raise InvalidArgumentError(f"Invalid seq_dim {seq_axis} [Op:ReverseSequence]")
    if not 0 <= batch_axis < rank:
        raise InvalidArgumentError(f"Invalid batch_dim {batch_axis} [Op:ReverseSequence]")
    if lengths.ndim != 1:
        raise InvalidArgumentError(f"seq_lengths must be 1-dim, not {lengths.ndim} "
                                   f"[Op:ReverseSequence]")
    if len(lengths) != shape[batch_axis]:
        raise InvalidArgumentError(f"Length of seq_lengths != input.dims({batch_axis}), "
                                   f"({len(lengths)} vs. {shape[batch_axis]}) "
                                   f"[Op:ReverseSequence]")
    for i, n in enumerate(lengths.tolist()):
        if n < 0:
            raise InvalidArgumentError(f"seq_lens({i}) < 0 [Op:ReverseSequence]")
        if n > shape[seq_axis]:
            raise InvalidArgumentError(f"seq_lens({i}) > input.dims({seq_axis}) "
                                       f"[Op:ReverseSequence]")


def _reverse_sequence_kernel(x: np.ndarray, lengths: np.ndarray, seq_axis: int,
                             batch_axis: int) -> np.ndarray:
    _check_reverse_sequence(x.shape, lengths, seq_axis, batch_axis)
    # Position j of batch b reads position lengths[b] - 1 - j when j < lengths[b].
    j = np.arange(x.shape[seq_axis])
    n = lengths.astype(np.int64)[:, None]
    source = np.where(j < n, n - 1 - j, j)           # [batch, seq]
    if batch_axis > seq_axis:
        source = source.T
    shape = [1] * x.ndim
    shape[batch_axis], shape[seq_axis] = x.shape[batch_axis], x.shape[seq_axis]
    index = np.broadcast_to(source.reshape(shape), x.shape)
    return np.take_along_axis(x, index, seq_axis)


_reverse_sequence = Primitive(
    "ReverseSequence", _reverse_sequence_kernel,
    shape_rule=lambda x, lengths, **_: ShapedArray(x.shape, x.dtype), linear=True).defvjp(
    lambda g, ans, x, lengths, **attrs: (bind(_reverse_sequence, (g, lengths), attrs), None))
_reverse_sequence.defjvp(linear_jvp(_reverse_sequence))


@tf_export("reverse_sequence")
def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,  # noqa: A002
                     batch_axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Reverses the first `seq_lengths[b]` entries along `seq_axis` of each slice `b` along
    `batch_axis` (default 0); the rest stay in place."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths, dtype_hint=_dtypes.int64)
    if lengths._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(
            f"Value for attr 'Tlen' of {cpp_name(lengths.dtype)} is not in the list of allowed "
            f"values: int32, int64 [Op:ReverseSequence]")
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    attrs = {"seq_axis": int(seq_axis), "batch_axis": 0 if batch_axis is None else
             int(batch_axis)}
    if not (is_traced(x) or is_traced(lengths)):
        _check_reverse_sequence(x._value.shape, lengths._value, **attrs)
    return bind(_reverse_sequence, (x, lengths), attrs)


def _axes(axis: Any, rank: int, op_name: str) -> tuple:
    out = []
    for i, a in enumerate(_int_list(axis)):
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1} "
                                       f"[Op:{op_name}]")
        out.append(a % rank)
    return tuple(out)


@tf_export("reverse")
@reads_static
def reverse(tensor: Any, axis: Any, name: Optional[str] = None) -> Tensor:
    """`tensor` with the order of elements along each axis in `axis` reversed."""
    try:
        x = convert_to_tensor(tensor)
    except (TypeError, ValueError) as exc:  # a RaggedTensor: its ragged version
        return ragged_fallback(exc, "reverse", reverse, tensor, axis)
    if read_at_run_time(axis):   # read when the graph runs, as TF's axis input
        axis = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
        if axis._value.ndim not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {axis._value.ndim} for "
                             f"'ReverseV2'")
        return bind(_reverse, (x, axis), {"axis": None})
    axis = static_value(axis, "ReverseV2: axis")
    if not x._value.ndim or has_static_shape(x._value) and not x._value.size:  # TF returns
        return bind(_reverse, (x,), {"axis": ()})  # these as they are, whatever the axes
    return bind(_reverse, (x,), {"axis": _axes(axis, x._value.ndim, "ReverseV2")})


@tf_export("roll")
@reads_static
def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Elements shifted cyclically by `shift` along `axis` (lists shift several axes)."""
    x = convert_to_tensor(input)
    if read_at_run_time(shift) or read_at_run_time(axis):
        # read when the graph runs, as TF's shift and axis inputs
        return bind(_roll, (x, _int_input(shift, "Tshift"), _int_input(axis, "Taxis")),
                    {"shift": None, "axis": None})
    shifts = static_value(shift, "Roll: shift", _int_list)
    axes = static_value(axis, "Roll: axis", _int_list)
    if len(shifts) != len(axes):
        raise InvalidArgumentError("shift and axis must have the same size [Op:Roll]")
    rank = x._value.ndim
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"axis {a} is out of range [Op:Roll]")
    return bind(_roll, (x,), {"shift": tuple(shifts), "axis": tuple(a % rank for a in axes)})


def _int_input(arg: Any, attr: str) -> Tensor:
    """A shift or axis argument as the int32/int64 tensor a traced Roll reads as it runs."""
    if isinstance(arg, (list, tuple)) and any(isinstance(a, Tensor) for a in arg):
        dtype = next(a.dtype for a in arg if isinstance(a, Tensor))
        t = stack([cast(convert_to_tensor(a), dtype) for a in arg])
    else:
        t = convert_to_tensor(arg)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"Value for attr '{attr}' of {t.dtype.name} is not in the list of "
                        f"allowed values: int32, int64")
    return t


# -- meshgrid / repeat ---------------------------------------------------------------------------

@tf_export("meshgrid")
def meshgrid(*args: Any, **kwargs: Any) -> list:
    """Coordinate grids from 1-D tensors; `indexing='xy'` (default) swaps the first two
    output axes, as NumPy's meshgrid does."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Key word arguments {list(kwargs)} not supported at this time.")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    vectors = [reshape(convert_to_tensor(a), (-1,)) for a in args]
    sizes = [v._value.shape[0] for v in vectors]
    n = len(vectors)
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, v in enumerate(vectors):
        position = i
        if indexing == "xy" and n > 1 and i < 2:
            position = 1 - i
        shape = [1] * n
        shape[position] = -1
        grids.append(broadcast_to(reshape(v, shape), sizes))
    return grids


@tf_export("repeat")
def repeat(input: Any, repeats: Any, axis: Optional[int] = None,  # noqa: A002
           name: Optional[str] = None) -> Tensor:
    """Each element (or slice along `axis`) repeated `repeats` times; with `axis` None the
    input is flattened first."""
    x = convert_to_tensor(input)
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type "
                        f"{type(axis).__name__}")
    if axis is None or x._value.ndim == 0:   # a scalar repeats as a vector, as in TF
        axis = 0 if axis is None or axis == -1 else axis
        x = reshape(x, (-1,))
    rank = x._value.ndim
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    counts = convert_to_tensor(repeats, dtype_hint=_dtypes.int32)  # [] is int32, as in TF
    if not counts.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received "
                        f"`tensor` = {counts._value} of dtype: <dtype: '{counts.dtype.name}'>")
    dim = x._value.shape[axis]
    if counts._value.ndim > 1:
        raise ValueError(f"Shape {tuple(counts._value.shape)} must have rank at most 1")
    length = counts._value.shape[0] if counts._value.ndim == 1 else 1
    if length is not None and dim is not None and length not in (1, dim):
        raise ValueError(f"Dimensions {dim} and {length} are not compatible")
    if is_traced(counts) or dim is None:  # the graph reads the counts (and dim) as it runs
        return gather_axis(x, _traced_repeat_positions(counts, x, axis), axis)
    counts = np.asarray(counts._value).reshape(-1)
    if counts.size == 1:
        if counts[0] < 0:   # TensorFlow tiles a scalar count
            raise InvalidArgumentError(f"Expected multiples[1] >= 0, but got {counts[0]} "
                                       f"[Op:Tile]")
        counts = np.full(dim, counts[0])
    elif axis and not x._value.shape[0] and counts.sum():
        # TF's repeat_with_axis gives the repeated axis a static size 0 when the first axis
        # is empty (it broadcasts the counts over it), then fails to set the real size.
        shape = list(x._value.shape)
        result, shape[axis] = shape[:axis] + [int(counts.sum())] + shape[axis + 1:], 0
        raise ValueError(f"Tensor's shape {tuple(result)} is not compatible with supplied "
                         f"shape {tuple(shape)}.")
    counts = np.maximum(counts, 0)   # a negative count in a vector repeats nothing
    return gather_axis(x, np.repeat(np.arange(dim), counts), axis)


def _traced_repeat_positions(repeats: Tensor, x: Tensor, axis: int) -> Tensor:
    # np.repeat(arange(dim), repeats) from tensors, so that a traced graph reads the counts
    # when it runs: output position p comes from the first slot whose running count exceeds p.
    from tapeflow.ops.array_ops import range as range_, shape
    from tapeflow.ops.reduce_ops import reduce_sum
    counts = cast(repeats, _dtypes.int64)
    counts = checked(counts if counts._value.ndim else counts[None], (), "repeat_counts")
    slots = range_(shape(x, out_type=_dtypes.int64)[axis])  # broadcasts a single count
    counts = maximum(counts, counts * 0) + slots * 0
    ends = cumsum(counts)
    positions = range_(reduce_sum(counts), dtype=_dtypes.int64)
    return searchsorted(ends[None], positions[None], side="right")[0]


def _check_repeat_counts(counts: np.ndarray) -> None:
    if counts.size == 1 and counts[0] < 0:   # TensorFlow tiles a single count
        raise InvalidArgumentError(f"Expected multiples[1] >= 0, but got {counts[0]} "
                                   f"[Op:Tile]")


_RUN_CHECKS["repeat_counts"] = _check_repeat_counts
_RUN_CHECKS["top_k"] = lambda x, k: _check_k(k, x.shape[-1])


# -- cumulative sums and products ----------------------------------------------------------------

def _cumulative(ufunc: Any):
    def kernel(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
        if reverse:
            x = np.flip(x, axis)
        out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        if exclusive and out.shape[axis]:  # an empty axis has nothing to shift
            identity = np.full_like(np.take(out, [0], axis=axis), ufunc.identity)
            out = np.concatenate([identity, np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    return kernel


def _cumprod_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int, exclusive: bool,
                 reverse: bool) -> Tensor:
    # TensorFlow's rule (exact for nonzero x): reverse cumulative sum of ans * g, over x,
    # with 0 where x is 0 (TF's div_no_nan; the true derivative there is not 0).
    return divide_no_nan(cumsum(ans * g, axis, exclusive=exclusive, reverse=not reverse), x)


_cumsum = Primitive("Cumsum", _cumulative(np.add), shape_rule=same_as_input).defvjp(
    lambda g, ans, x, axis, exclusive, reverse: cumsum(g, axis, exclusive, not reverse))
_cumprod = Primitive("Cumprod", _cumulative(np.multiply),
                     shape_rule=same_as_input).defvjp(_cumprod_vjp)
_cumsum.defjvp(linear_jvp(_cumsum))


def _scan_axis(axis: Any, op_name: str) -> Any:
    """A scan's axis as TF takes it: an int32 or int64 tensor (a Python float raises TF's
    conversion TypeError, a float tensor its attr error)."""
    if isinstance(axis, TensorLike):
        if axis.dtype not in (_dtypes.int32, _dtypes.int64):
            raise InvalidArgumentError(f"Value for attr 'Tidx' of {cpp_name(axis.dtype)} is "
                                       f"not in the list of allowed values: int32, int64 "
                                       f"[Op:{op_name}]")
        return axis
    if isinstance(axis, (float, np.floating)):
        raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    return axis


def _scan_at_run_time(prim: Primitive) -> Primitive:
    """`prim` (a scan) with its axis as a second input, read and checked when the graph runs
    as TF's ScanOp reads it (the output's shape is x's)."""
    def kernel(x: np.ndarray, axis: np.ndarray, exclusive: bool, reverse: bool) -> np.ndarray:
        if np.ndim(axis) != 0:
            raise InvalidArgumentError(f"ScanOp: axis must be a scalar, not "
                                       f"{dims_text(np.shape(axis))} [Op:{prim.name}]")
        a, rank = int(axis), x.ndim
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"ScanOp: Expected scan axis in the range [{-rank}, "
                                       f"{rank}), but got {a} [Op:{prim.name}]")
        return prim.impl(x, a % rank, exclusive, reverse)

    return Primitive(prim.name, kernel, register=False,
                     shape_rule=lambda x, axis, **attrs: ShapedArray(x.shape, x.dtype))


def _scan_at_run_time_vjp(scan: Any) -> Any:
    """The adjoint of a run-time scan whose static adjoint is `rule(g, ans, x, axis, ...)`,
    written with public ops that take a traced axis (`scan`: the static prim's rule)."""
    def rule(g: Tensor, ans: Tensor, x: Tensor, axis: Tensor, exclusive: bool,
             reverse: bool) -> tuple:
        return scan(g, ans, x, axis, exclusive, reverse), None
    return rule


def _scan(prim: Primitive, doc: str):
    at_run_time = _scan_at_run_time(prim).defvjp(_scan_at_run_time_vjp(prim.vjp))

    @reads_static
    def op(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(x)
        require(x, "fciu", prim.name)
        if read_at_run_time(axis):   # read when the graph runs, as TF's axis input
            axis = run_time_int(axis, "axis", prim.name, None, ())   # its kernel checks rank
            return bind(at_run_time, (x, axis), {"exclusive": bool(exclusive),
                                                 "reverse": bool(reverse)})
        a = static_value(_scan_axis(axis, prim.name), f"{prim.name}: axis", int)
        if x._value.shape is None:  # traced with unknown rank: the kernel checks the axis
            return bind(prim, (x,), {"axis": a, "exclusive": bool(exclusive),
                                     "reverse": bool(reverse)})
        rank = x._value.ndim
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Expected scan axis in the range [{-rank}, {rank}), "
                                       f"but got {a} [Op:{prim.name}]")
        return bind(prim, (x,), {"axis": a % rank, "exclusive": bool(exclusive),
                                 "reverse": bool(reverse)})
    op.__doc__ = doc
    return op


cumsum = tf_export("math.cumsum", "cumsum")(_scan(
    _cumsum, "Running sums along `axis`; `exclusive` leaves each element out, `reverse` runs "
             "from the end."))
cumprod = tf_export("math.cumprod")(_scan(
    _cumprod, "Running products along `axis`; `exclusive` leaves each element out, `reverse` "
              "runs from the end."))


def _cumulative_logsumexp_kernel(x: np.ndarray, axis: int, exclusive: bool,
                                 reverse: bool) -> np.ndarray:
    # TF's scan, one step at a time in x's dtype, from log(0) = -inf.
    if reverse:
        x = np.flip(x, axis)
    steps = np.moveaxis(x, axis, 0)
    out = np.empty_like(steps)
    acc = np.full(steps.shape[1:], -np.inf, x.dtype)
    lowest = np.finfo(x.dtype).min
    for i, t in enumerate(steps):
        if exclusive:
            out[i] = acc
        acc = _log_add_exp(acc, t, lowest)
        if not exclusive:
            out[i] = acc
    out = np.moveaxis(out, 0, axis)
    return np.flip(out, axis) if reverse else out


def _log_add_exp(acc: np.ndarray, t: np.ndarray, lowest: Any) -> np.ndarray:
    """TF's LogSumExp(acc, t): log1p(exp(min - max)) + max, by std::min / std::max, which
    pass over a NaN t (so [1, nan] gives 1 + log 2, not NaN); -inf and -inf stay -inf."""
    low = np.where(t < acc, t, acc)
    high = np.where(acc < t, t, acc)
    with np.errstate(all="ignore"):
        summed = np.log1p(np.exp(low - high)) + high
    return np.where(high < lowest, high, summed)


def _cumulative_logsumexp_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int, exclusive: bool,
                              reverse: bool) -> Tensor:
    # TensorFlow's rule: the positive and negative parts of g are scanned in log space (the
    # dtype's lowest value stands for log 0), so large terms never overflow.
    from tapeflow.ops.math_ops import exp, greater, less, log, negative, ones_like, where
    lowest = _dtypes.as_dtype(g.dtype).min
    floor = cast(convert_to_tensor(lowest), g.dtype)
    log_pos = where(greater(g, 0), log(where(greater(g, 0), g, ones_like(g))), floor)
    log_neg = where(less(g, 0), log(where(less(g, 0), negative(g), ones_like(g))), floor)
    # (through the op, whose axis may be a tensor read when the graph runs)
    pos = exp(_cumulative_logsumexp_op(log_pos - ans, axis, exclusive, not reverse) + x)
    neg = exp(_cumulative_logsumexp_op(log_neg - ans, axis, exclusive, not reverse) + x)
    return pos - neg


_cumulative_logsumexp = Primitive("CumulativeLogsumexp", _cumulative_logsumexp_kernel,
                                  shape_rule=same_as_input) \
    .defvjp(_cumulative_logsumexp_vjp)


def _cumulative_logsumexp_jvp(tangents: list, ans: Tensor, x: Tensor, axis: int,
                              exclusive: bool, reverse: bool) -> Any:
    # dy = cumsum(exp(x) dx) / exp(y), shifted by the max along the axis to stay finite; the
    # backward rule splits g into log parts, so it cannot be transposed into this one.
    from tapeflow.ops.math_ops import exp, stop_gradient
    from tapeflow.ops.reduce_ops import reduce_max
    if tangents[0] is None:
        return None
    peak = stop_gradient(reduce_max(x, axis=axis, keepdims=True))
    summed = cumsum(exp(x - peak) * tangents[0], axis, exclusive, reverse)
    return summed * exp(peak - ans)


_cumulative_logsumexp.defjvp(_cumulative_logsumexp_jvp)
_cumulative_logsumexp_op = _scan(_cumulative_logsumexp, "")


@tf_export("math.cumulative_logsumexp")
def cumulative_logsumexp(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False,
                         name: Optional[str] = None) -> Tensor:
    """Running log(sum(exp(x))) along `axis`, computed stably; `exclusive` leaves each element
    out (starting from -inf), `reverse` runs from the end."""
    x = convert_to_tensor(x)
    require(x, "f", "CumulativeLogsumexp")
    return _cumulative_logsumexp_op(x, axis, exclusive, reverse)


# -- sequence_mask, shape_n ----------------------------------------------------------------------

@tf_export("sequence_mask")
def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = _dtypes.bool,
                  name: Optional[str] = None) -> Tensor:
    """A mask of shape `lengths.shape + [maxlen]`: True at positions below each length
    (`maxlen` defaults to the largest length)."""
    from tapeflow.ops.array_ops import expand_dims, range as range_
    from tapeflow.ops.math_ops import less, maximum
    from tapeflow.ops.reduce_ops import reduce_max
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = maximum(reduce_max(lengths), cast(convert_to_tensor(0), lengths.dtype))
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen._value.ndim != 0:
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                         f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
    row = range_(cast(convert_to_tensor(0), maxlen.dtype), maxlen)
    result = less(row, cast(expand_dims(lengths, -1), maxlen.dtype))
    target = _dtypes.as_dtype(dtype)
    return result if target == _dtypes.bool else cast(result, target)


@tf_export("shape_n")
def shape_n(input: Any, out_type: Any = _dtypes.int32,  # noqa: A002 - TF's name
            name: Optional[str] = None) -> list:
    """The shapes of a list of tensors (of one dtype, as TF's ShapeN), each a 1-D `out_type`
    tensor."""
    from tapeflow.ops.array_ops import shape
    # As TF's op conversion: the tensors in the list fix the dtype the others convert to.
    hint = next((x.dtype for x in input if isinstance(x, TensorLike)), None)
    tensors = [convert_to_tensor(x, dtype_hint=hint) for x in input]
    for i, x in enumerate(tensors[1:], start=1):
        if x.dtype != tensors[0].dtype:
            raise InvalidArgumentError(
                f"cannot compute ShapeN as input #{i}(zero-based) was expected to be a "
                f"{tensors[0].dtype.name} tensor but is a {x.dtype.name} tensor [Op:ShapeN]")
    return [shape(x, out_type=out_type) for x in tensors]


# -- sort, argsort, top_k, unique ----------------------------------------------------------------

def _order_kernel(x: np.ndarray, *k_input: np.ndarray, descending: bool, dtype: np.dtype,
                  k: Optional[int] = None, sorted: bool = True) -> np.ndarray:  # noqa: A002
    """The indices of TF's TopKV2 along the last axis (`k` of them, all by default, or a
    `k` input read as the graph runs); an ascending order is TF's descending order of -x.
    Ties keep their original order. Rows whose order TF's algorithm leaves to its steps
    (NaNs, an unsorted top k) replay them."""
    n = x.shape[-1]
    if k_input:
        k = _check_k(k_input[0], n)
    k = n if k is None else k
    rows = x.reshape(int(np.prod(x.shape[:-1])), n)
    out = np.argsort(_flipped(rows) if descending else rows, axis=-1, kind="stable")[:, :k]
    replay = np.zeros(len(rows), bool)
    if x.dtype.kind == "f":
        replay = np.isnan(rows).any(axis=1)
    if not sorted and 1 < k < n:
        replay[:] = True
    for r in np.flatnonzero(replay):
        keys = rows[r] if descending else -rows[r]
        out[r] = _tf_top_k(keys.tolist(), k, sorted, EIGEN_PACKET.get(x.dtype.itemsize, 1))
    return out.reshape(x.shape[:-1] + (k,)).astype(dtype)


def _flipped(x: np.ndarray) -> np.ndarray:
    # Keys whose ascending stable order is x's descending one (integers without overflow).
    kind = x.dtype.kind
    return -x if kind == "f" else ~x if kind == "i" else np.iinfo(x.dtype).max - x


def _tf_top_k(v: list, k: int, sorted: bool, packet: int) -> list:  # noqa: A002
    """One row of TF's CPU TopK (topk_op.cc): k == 1 takes the first position of Eigen's
    maximum; k == n std::sorts by `greater`, then orders runs of equal values by position;
    else a gtl::TopN heap with ties broken by position (sort_heap'd if `sorted`)."""
    n = len(v)
    if k == 1:
        return [_tf_argmax(v, packet)]
    if k == n:
        order = list(range(n))
        _std_sort(order, lambda a, b: v[b] < v[a])
        i = 0
        while i + 1 < n:
            j = i + 1
            if v[order[i]] == v[order[j]]:
                while j < n and v[order[i]] == v[order[j]]:
                    j += 1
                order[i:j] = builtins.sorted(order[i:j])
            i = j
        return order

    def greater(a: int, b: int) -> bool:
        return v[b] < v[a] or (not v[b] > v[a] and a < b)

    # TopN: the first k + 1 pushes become a heap and drop its least; later a greater
    # element drops the least (pop_heap) and takes its place (push_heap).
    heap = list(range(k + 1))
    _make_heap(heap, k + 1, greater)
    _pop_heap(heap, k, greater)
    for c in range(k + 1, n):
        if greater(c, heap[0]):
            _pop_heap(heap, k - 1, greater)
            _sift_up(heap, k - 1, 0, c, greater)
    top = heap[:k]
    if sorted:
        for last in range(k - 1, 0, -1):  # std::sort_heap
            _pop_heap(top, last, greater)
    return top


def _tf_argmax(v: list, packet: int) -> int:
    # Eigen's max (TopK's k == 1): full packets skip NaNs, the tail `acc = std::max(t, acc)`
    # takes them; the index is the first equal to it (0 for NaN).
    body = len(v) - len(v) % packet
    vmax = max((t for t in v[:body] if t == t), default=-np.inf)
    acc = -np.inf
    for t in v[body:]:
        acc = acc if t < acc else t
    top = vmax if acc < vmax else acc
    return next((i for i, t in enumerate(v) if t == top), 0)


# libstdc++'s heap and sort algorithms, step for step, on a list `a` of positions: with a
# comparison that NaNs make inconsistent, their result depends on each step.

def _sift_up(a: list, hole: int, top: int, value: int, less: Any) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _adjust_heap(a: list, hole: int, length: int, value: int, less: Any) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[child], a[child - 1]):
            child -= 1
        a[hole] = a[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    _sift_up(a, hole, top, value, less)


def _make_heap(a: list, length: int, less: Any) -> None:
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, parent, length, a[parent], less)


def _pop_heap(a: list, last: int, less: Any) -> None:
    # std::pop_heap(a, a + last + 1): a[0] goes to a[last], a[:last] stays a heap.
    value = a[last]
    a[last] = a[0]
    _adjust_heap(a, 0, last, value, less)


def _std_sort(a: list, less: Any) -> None:
    """std::sort: introsort (median of three, depth 2 log2 n, heapsort below it) down to
    runs of 16, then one insertion sort. Unguarded loops stop at the ends of `a`."""
    if len(a) > 1:
        _introsort(a, 0, len(a), 2 * (len(a).bit_length() - 1), less)
    _insertion_sort(a, 0, min(len(a), 16), less)
    for i in range(16, len(a)):
        _linear_insert(a, i, less)


def _introsort(a: list, first: int, last: int, depth: int, less: Any) -> None:
    while last - first > 16:
        if depth == 0:
            part = a[first:last]
            _make_heap(part, len(part), less)
            for end in range(len(part) - 1, 0, -1):
                _pop_heap(part, end, less)
            a[first:last] = part
            return
        depth -= 1
        mid = first + (last - first) // 2
        _median_to_first(a, first, first + 1, mid, last - 1, less)
        cut = _partition(a, first + 1, last, first, less)
        _introsort(a, cut, last, depth, less)
        last = cut


def _median_to_first(a: list, result: int, i: int, j: int, m: int, less: Any) -> None:
    if less(a[i], a[j]):
        pick = j if less(a[j], a[m]) else m if less(a[i], a[m]) else i
    else:
        pick = i if less(a[i], a[m]) else m if less(a[j], a[m]) else j
    a[result], a[pick] = a[pick], a[result]


def _partition(a: list, first: int, last: int, pivot: int, less: Any) -> int:
    while True:
        while first < len(a) - 1 and less(a[first], a[pivot]):
            first += 1
        last -= 1
        while last > 0 and less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _insertion_sort(a: list, first: int, last: int, less: Any) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            a[first:i + 1] = [a[i]] + a[first:i]
        else:
            _linear_insert(a, i, less)


def _linear_insert(a: list, i: int, less: Any) -> None:
    value = a[i]
    while i > 0 and less(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


_order = Primitive("TopKV2", _order_kernel, differentiable=False, shape_rule=_top_k_rule)


def _check_k(k: Any, n: int) -> int:
    """TopKV2's checks of `k` against a last dim of `n`; `k` as an int."""
    if np.ndim(k):
        raise InvalidArgumentError(f"k must be scalar, got shape {dims_text(np.shape(k))} "
                                   f"[Op:TopKV2]")
    k = int(k)
    if k < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {k} [Op:TopKV2]")
    if k > n:
        raise InvalidArgumentError(f"input must have at least k columns. Had {n}, needed {k} "
                                   f"[Op:TopKV2]")
    return k


def _direction(direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    return direction == "DESCENDING"


def _move_last(x: Tensor, axis: int) -> int:
    # TF's sort reads shape(values)[axis] first: a StridedSlice error for a bad axis.
    rank = x._value.ndim
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"slice index {axis + rank if axis < 0 else axis} of "
                                   f"dimension 0 out of bounds. [Op:StridedSlice] name: "
                                   f"strided_slice/")
    return axis % rank


@tf_export("argsort")
def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: Optional[str] = None) -> Tensor:
    """The int32 indices that sort `values` along `axis` (ties keep their order)."""
    descending = _direction(direction)
    x = convert_to_tensor(values)
    require(x, "fiu", "TopKV2")
    axis = _move_last(x, axis)
    last = x._value.ndim - 1
    perm = list(range(last + 1))
    perm[axis], perm[last] = last, axis
    if axis != last:
        x = transpose(x, perm)
    order = bind(_order, (x,), {"descending": descending, "dtype": np.dtype(np.int32)})
    return transpose(order, perm) if axis != last else order


@tf_export("sort")
def sort(values: Any, axis: int = -1, direction: str = "ASCENDING",
         name: Optional[str] = None) -> Tensor:
    """`values` sorted along `axis`; gradients flow back to the original positions."""
    descending = _direction(direction)
    x = convert_to_tensor(values)
    require(x, "fiu", "TopKV2")
    axis = _move_last(x, axis)
    order = argsort(x, axis, "DESCENDING" if descending else "ASCENDING")
    return take_along_axis(x, order, axis)


@tf_export("math.top_k", "nn.top_k")
@reads_static
def top_k(input: Any, k: int = 1, sorted: bool = True, index_type: Any = _dtypes.int32,  # noqa: A002
          name: Optional[str] = None) -> TopKV2:
    """The `k` largest entries of the last axis and their indices (ties: lower index first;
    with `sorted=False`, in the order TF's heap leaves them)."""
    x = convert_to_tensor(input)
    require(x, "fiu", "TopKV2")
    attrs = {"descending": True, "sorted": bool(sorted),
             "dtype": _dtypes.as_dtype(index_type)._np}
    if read_at_run_time(k):  # a run-time input, as in TF: the graph reads it when it runs
        if x._value.ndim == 0:
            raise InvalidArgumentError("input must be >= 1-D, got shape [] [Op:TopKV2]")
        indices = bind(_order, (x, k), attrs)
        return TopKV2(values=take_along_axis(x, indices, x._value.ndim - 1), indices=indices)
    k = static_value(k, "TopKV2: k", int)
    if x._value.ndim == 0:
        raise InvalidArgumentError("input must be >= 1-D, got shape [] [Op:TopKV2]")
    n = x._value.shape[-1]
    if k < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {k} [Op:TopKV2]")
    if n is None:  # the last dim is known only when the graph runs
        x = checked(x, (), "top_k", k=k)
    elif k > n:
        raise InvalidArgumentError(f"input must have at least k columns. Had {n}, needed {k} "
                                   f"[Op:TopKV2]")
    attrs["k"] = k
    indices = bind(_order, (x,), attrs)
    values = take_along_axis(x, indices, x._value.ndim - 1)
    return TopKV2(values=values, indices=indices)


def _unique_kernel(x: np.ndarray, dtype: np.dtype) -> tuple:
    # np.unique sorts; reorder to first occurrence, as TensorFlow returns. TF's hash map
    # keeps every NaN apart (NaN != NaN).
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return (x[np.sort(first)], rank[inverse.reshape(-1)].astype(dtype),
            counts[order].astype(dtype))


_unique = Primitive("UniqueWithCounts", _unique_kernel, multiple_results=True,
                    differentiable=False, shape_rule=_unique_rule)


def _unique_parts(x: Any, out_idx: Any, op_name: str) -> tuple:
    x = convert_to_tensor(x)
    if x._value.dtype.kind == "c":  # declared by the op, no CPU kernel
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(x.dtype)}, out_idx="
                            f"{enum_name(_dtypes.as_dtype(out_idx))}] [Op:{op_name}]")
    if x._value.ndim != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector. [Op:{op_name}]")
    return bind(_unique, (x,), {"dtype": _dtypes.as_dtype(out_idx)._np})


@tf_export("unique")
def unique(x: Any, out_idx: Any = _dtypes.int32, name: Optional[str] = None) -> Unique:
    """The distinct elements of a 1-D tensor in order of first appearance, and for each
    element the index of its value in that list."""
    y, idx, _ = _unique_parts(x, out_idx, "Unique")
    return Unique(y=y, idx=idx)


@tf_export("unique_with_counts")
def unique_with_counts(x: Any, out_idx: Any = _dtypes.int32,
                       name: Optional[str] = None) -> UniqueWithCounts:
    """`unique`, plus how often each distinct value occurs."""
    return UniqueWithCounts(*_unique_parts(x, out_idx, "UniqueWithCounts"))


# Top-level names (cumprod and top_k are in tf.math only).
def _in_top_k_kernel(predictions: np.ndarray, targets: np.ndarray, *k_input: np.ndarray,
                     k: Optional[int]) -> np.ndarray:
    """Whether each target is among its row's `k` largest predictions (`k_input`: a traced
    k, read as the graph runs)."""
    if k_input:
        if np.ndim(k_input[0]):
            raise InvalidArgumentError(f"k must be 0-D, got shape {dims_text(np.shape(k_input[0]))}"
                                       f" [Op:InTopKV2]")
        k = int(k_input[0])
    _check_in_top_k_shapes(predictions.shape, targets.shape)  # (unknown while tracing)
    rows, classes = predictions.shape
    valid = (targets >= 0) & (targets < classes)
    chosen = predictions[np.arange(rows), np.where(valid, targets, 0)]
    # Ties straddling the k-th place all count as in the top k, as in TensorFlow; a row
    # holding any inf or NaN cannot say (False).
    above = (predictions > chosen[:, None]).sum(axis=1)
    return valid & np.isfinite(predictions).all(axis=1) & (above < k)


def _check_in_top_k_shapes(predictions: tuple, targets: tuple) -> None:
    if len(predictions) != 2 or len(targets) != 1 or predictions[0] != targets[0]:
        raise InvalidArgumentError(
            f"predictions must be 2-dimensional and targets 1-dimensional with the same first "
            f"dimension, got predictions {list(predictions)} and targets {list(targets)} "
            f"[Op:InTopKV2]")


_in_top_k = Primitive("InTopKV2", _in_top_k_kernel, differentiable=False,
                      shape_rule=_in_top_k_rule)


@tf_export("math.in_top_k", "nn.in_top_k")
@reads_static
def in_top_k(targets: Any, predictions: Any, k: Any, name: Optional[str] = None) -> Tensor:
    """Whether each target class is among the `k` largest predictions of its row (ties at the
    boundary count as inside; an out-of-range target is False)."""
    predictions = _float32_predictions(predictions, targets)
    targets = convert_to_tensor(targets)
    if targets._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(f"Value for attr 'T' of {targets.dtype.name} is not in the "
                                   f"list of allowed values: int32, int64 [Op:InTopKV2]")
    if isinstance(k, TensorLike) and k.dtype != targets.dtype:
        raise mismatch_error("InTopKV2", 2, targets.dtype, k.dtype)
    rows = (predictions._value.shape or (None,))[0], (targets._value.shape or (None,))[0]
    if predictions._value.ndim != 2 or targets._value.ndim != 1 or \
            None not in rows and rows[0] != rows[1]:
        _check_in_top_k_shapes(predictions._value.shape, targets._value.shape)
    if read_at_run_time(k):   # read when the graph runs, as TF's k input
        return bind(_in_top_k, (predictions, targets, k), {"k": None})
    k = static_value(k, "InTopKV2: k", int)
    return bind(_in_top_k, (predictions, targets), {"k": k})


def _float32_predictions(predictions: Any, targets: Any) -> Tensor:
    # InTopKV2 takes float32 only: a tensor of another dtype is refused, by TF's slow path
    # (ValueError) when the targets are a Python list, else by its fast path.
    if not isinstance(predictions, TensorLike):
        return convert_to_tensor(predictions, dtype=_dtypes.float32)
    predictions = convert_to_tensor(predictions)
    if predictions.dtype != _dtypes.float32:
        if isinstance(targets, (list, tuple)):
            check_dtype(predictions, _dtypes.float32)
        raise mismatch_error("InTopKV2", 0, _dtypes.float32, predictions.dtype,
                             fixed=True)
    return predictions
