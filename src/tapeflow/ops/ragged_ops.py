"""The ops of `tf.ragged` and the ragged versions of TensorFlow's ops (its ragged dispatch).

Values move with differentiable tapeflow ops (`gather`, elementwise ops, segment
reductions), so a GradientTape sees through them to `flat_values`; row partitions are
computed with NumPy, eagerly as an op is called, and in a trace where the partition is known
only when the graph runs by the primitives of "row partitions known only when a traced graph
runs" below, whose kernels run the same NumPy as the graph runs. The dense ops call the
ragged versions here only after converting an argument failed (`ragged_tensor.fallback`), so
the dense path does no extra work.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.convert import mismatch_error
from tapeflow.framework.errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.ragged_tensor import (RaggedTensor, RaggedTensorSpec, _index_tensor,
                                              _symbolic_tensor, _values_of, concrete,
                                              is_symbolic, register_fallback, register_traced,
                                              uniform_row_splits)
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops import array_ops, index_ops, manip_ops, math_ops, reduce_ops

tf_export("RaggedTensor")(RaggedTensor)
tf_export("RaggedTensorSpec")(RaggedTensorSpec)

# -- row helpers (NumPy on partitions) -----------------------------------------------------------

def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of `arange(start, start + length)` for each pair."""
    lengths = np.asarray(lengths, np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(np.asarray(starts, np.int64) - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total, dtype=np.int64)


def _splits_from_lengths(lengths: np.ndarray, dtype: Any) -> Tensor:
    return wrap(np.concatenate([[0], np.cumsum(lengths)]).astype(dtype))


def _gather_rows(values: Any, rows: np.ndarray) -> Any:
    """`values[rows]` along the first axis, for a Tensor or a RaggedTensor."""
    rows = np.asarray(rows, np.int64)
    if not isinstance(values, RaggedTensor):
        return array_ops.gather(values, wrap(rows))
    s = values._splits
    lengths = s[rows + 1] - s[rows]
    inner = _gather_rows(values._values, _ranges(s[rows], lengths))
    return RaggedTensor(inner, _splits_from_lengths(lengths, s.dtype), internal=True)


def _flat_rowids(rt: RaggedTensor) -> np.ndarray:
    """For each flat value, the index of its outermost row."""
    ids = rt._rowids().astype(np.int64)
    values = rt._values
    while isinstance(values, RaggedTensor):
        ids = ids[values._rowids()]
        values = values._values
    return ids


def _flat_coords(rt: RaggedTensor) -> np.ndarray:
    """The dense coordinates (over the ragged_rank + 1 leading axes) of each flat value."""
    return _coords_of([np.asarray(s._value) for s in rt.nested_row_splits])


def _coords_of(nested_splits: list) -> np.ndarray:
    """`_flat_coords` of the row splits of every ragged dimension, outermost first."""
    coords = np.arange(len(nested_splits[0]) - 1, dtype=np.int64)[:, None]
    for s in nested_splits:
        s = s.astype(np.int64)
        ids = np.repeat(np.arange(len(s) - 1, dtype=np.int64), np.diff(s))
        position = np.arange(len(ids), dtype=np.int64) - s[ids]
        coords = np.concatenate([coords[ids], position[:, None]], axis=1)
    return coords


def _same_partitions(a: RaggedTensor, b: RaggedTensor) -> bool:
    sa, sb = a.nested_row_splits, b.nested_row_splits
    return len(sa) == len(sb) and all(
        np.array_equal(np.asarray(x._value), np.asarray(y._value)) for x, y in zip(sa, sb))


def _assert_equal(x: np.ndarray, y: np.ndarray, message: Optional[str] = None) -> None:
    """Raises tf.debugging.assert_equal's InvalidArgumentError for `x` and `y` (the text
    TF's ragged ops give when row partitions disagree)."""
    from tapeflow.ops.debugging_ops import assert_equal
    assert_equal(wrap(x), wrap(y), message=message)
    raise AssertionError("assert_equal passed for unequal row partitions")  # not reached


def _incompatible(message: Optional[str] = None) -> None:
    """TF's failure where two ragged shapes cannot broadcast (a False/True assertion)."""
    _assert_equal(np.asarray(False), np.asarray(True), message)


def _check_same_partitions(a: RaggedTensor, b: RaggedTensor,
                           message: Optional[str] = None) -> None:
    """Raises TF's errors unless `a` and `b` have the same row partitions: level by level,
    a different row count fails TF's shape assertion, different splits its assert_equal of
    the splits (a uniform partition, as from_tensor's, on the x side)."""
    if a._row_splits.dtype != b._row_splits.dtype:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible "
                         "dtypes.")
    if a.ragged_rank != b.ragged_rank:
        raise InvalidArgumentError(f"tapeflow broadcasts RaggedTensors of one ragged_rank "
                                   f"only; got ragged_rank {a.ragged_rank} (shape {a.shape}) "
                                   f"and {b.ragged_rank} (shape {b.shape})")
    x, y = a, b
    while isinstance(x, RaggedTensor):
        sx, sy = x._splits, y._splits
        if len(sx) != len(sy):
            _incompatible(message)
        if not np.array_equal(sx, sy):
            uniform_y = y._uniform is not None and x._uniform is None
            _assert_equal(*((sy, sx) if uniform_y else (sx, sy)), message)
        x, y = x._values, y._values


# -- construction ------------------------------------------------------------------------------

def _depths(pylist: Any, depth: int, scalars: set, lists: list) -> None:
    if isinstance(pylist, (list, tuple)):
        lists[0] = max(lists[0], depth + 1)
        for item in pylist:
            _depths(item, depth + 1, scalars, lists)
    elif isinstance(pylist, np.ndarray) and pylist.ndim:
        _depths(pylist.tolist(), depth, scalars, lists)
    else:
        scalars.add(depth)


@tf_export("ragged.constant")
def constant(pylist: Any, dtype: Any = None, ragged_rank: Optional[int] = None,
             inner_shape: Any = None, name: Optional[str] = None,
             row_splits_dtype: Any = _dtypes.int64) -> Any:
    """A RaggedTensor from a nested Python list (a Tensor when ragged_rank is 0)."""
    if isinstance(pylist, (RaggedTensor, TensorLike)):
        raise TypeError("pylist may not be a Tensor or RaggedTensor")
    splits_dtype = _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    scalars: set = set()
    lists = [0]
    _depths(pylist, 0, scalars, lists)
    if len(scalars) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    depth = scalars.pop() if scalars else lists[0]
    inner = None if inner_shape is None else tuple(int(d) for d in inner_shape)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (0 if inner is None else len(inner)))
    if ragged_rank < 0:
        raise ValueError(f"Invalid pylist={pylist!r}: ragged_rank must be non-negative")
    if scalars and ragged_rank >= depth:
        raise ValueError(f"Invalid pylist={pylist!r}: ragged_rank={ragged_rank} must be less "
                         f"than the nesting depth {depth}")
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    rows, partitions = list(pylist), []
    for _ in range(ragged_rank):
        if any(not isinstance(r, (list, tuple, np.ndarray)) for r in rows):
            raise ValueError("pylist has scalar values at a ragged dimension")
        partitions.append(np.asarray([len(r) for r in rows], splits_dtype))
        rows = [item for r in rows for item in r]
    if rows:
        values = convert_to_tensor(list(rows), dtype=dtype)
        if inner is not None and tuple(values.shape[1:]) != inner:
            raise ValueError(f"inner values have shape {values.shape[1:]}, expected "
                             f"inner_shape {list(inner)}")
    else:
        shape = (0,) + (inner or (0,) * max(0, depth - ragged_rank - 1))
        values = convert_to_tensor(np.zeros(shape, _dtypes.as_dtype(
            dtype or _dtypes.float32).as_numpy_dtype))
    result: Any = values
    for lengths in reversed(partitions[1:]):
        result = RaggedTensor(result, _splits_from_lengths(lengths, splits_dtype), internal=True)
    return RaggedTensor(result, _splits_from_lengths(partitions[0], splits_dtype),
                        internal=True)


def _from_tensor(tensor: Any, lengths: Any = None, padding: Any = None, ragged_rank: int = 1,
                 name: Optional[str] = None,
                 row_splits_dtype: Any = _dtypes.int64) -> RaggedTensor:
    """A RaggedTensor from a dense tensor, with rows cut to `lengths`, or with their trailing
    `padding` removed."""
    t = convert_to_tensor(tensor)
    splits_dtype = _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    if ragged_rank == 1 and (is_symbolic(t) or is_symbolic(lengths)) and t.shape.rank and \
            t.shape.rank > 1 and (lengths is None or padding is None):
        return _traced_from_tensor(t, lengths, padding, splits_dtype)
    if isinstance(ragged_rank, int) and 1 < ragged_rank < (t.shape.rank or 0) and (
            lengths is None or padding is None) and (is_symbolic(lengths) or is_symbolic(t) and (
                padding is not None or not t.shape.is_fully_defined())):
        return _traced_from_tensor_nested(t, lengths, padding, ragged_rank, splits_dtype)
    shape = t.shape.as_list()
    if None in shape:
        raise ValueError(f"from_tensor needs a tensor of known shape, got {t.shape}")
    if not isinstance(ragged_rank, int) or not 0 < ragged_rank < len(shape):
        raise ValueError(f"ragged_rank must be greater than 0 and less than tensor.shape.rank"
                         f" ({len(shape)}); got {ragged_rank}")
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    outer = shape[:ragged_rank]
    rows, cols = int(np.prod(outer)), shape[ragged_rank]
    inner = shape[ragged_rank + 1:]
    flat = array_ops.reshape(t, [rows * cols] + inner)
    if lengths is not None:
        row_lengths = np.minimum(concrete(lengths, "lengths").reshape(-1), cols)
    elif padding is not None:
        pad = concrete(convert_to_tensor(padding, dtype=t.dtype), "padding")
        same = concrete(t, "from_tensor's tensor (with padding)").reshape(
            [rows, cols] + inner) == pad
        same = same.reshape(rows, cols, int(np.prod(inner))).all(axis=2)
        kept = ~same[:, ::-1]
        row_lengths = _unpadded_lengths(kept, cols)
    else:
        row_lengths = np.full(rows, cols)
    row_lengths = row_lengths.astype(splits_dtype)
    values = _gather_rows(flat, _ranges(np.arange(rows) * cols, row_lengths))
    uniform = cols if lengths is None and padding is None else None
    result = RaggedTensor(values, _splits_from_lengths(row_lengths, splits_dtype), internal=True,
                          uniform_row_length=uniform)
    for level in range(ragged_rank - 1, 0, -1):  # the outer ragged dims are uniform
        n = int(np.prod(outer[:level]))
        result = RaggedTensor(result, _splits_from_lengths(
            np.full(n, outer[level], splits_dtype), splits_dtype), internal=True,
            uniform_row_length=outer[level])
    return result


def _unpadded_lengths(kept: np.ndarray, cols: int) -> np.ndarray:
    """Each row's length without its trailing padding, for `kept` (rows x cols, reversed:
    True where an item is not padding)."""
    if cols == 0:   # argmax has nothing to look at: every row is empty
        return np.zeros(len(kept), np.int64)
    return np.where(kept.any(axis=1), cols - np.argmax(kept, axis=1), 0)


def _to_tensor(self: RaggedTensor, default_value: Any = None, name: Optional[str] = None,
               shape: Any = None) -> Tensor:
    """The dense tensor, rows padded with `default_value` (zero) to the bounding shape, or
    padded and cut to `shape`."""
    if is_symbolic(self):
        return _traced_to_tensor(self, default_value, shape)
    flat = self.flat_values
    dims = [int(d) for d in self.bounding_shape()._value]
    if shape is not None:
        given = shape.as_list() if hasattr(shape, "as_list") else list(
            concrete(shape, "shape") if isinstance(shape, TensorLike) else shape)
        if len(given) != len(dims):
            raise ValueError(f"shape {given} must have rank {len(dims)}")
        _check_inner_dims(given, dims, self.ragged_rank + 1, InvalidArgumentError)
        dims = [d if g is None or g == -1 else int(g) for d, g in zip(dims, given)]
    lead = self.ragged_rank + 1
    inner = dims[lead:]
    n = int(flat.shape[0])
    coords = _flat_coords(self)
    keep = np.all(coords < np.asarray(dims[:lead]), axis=1)
    index = np.full(dims[:lead], n, np.int64)   # n: the default row
    index[tuple(coords[keep].T)] = np.nonzero(keep)[0]
    table = array_ops.concat([flat, _default_row(flat, default_value, [1] + inner)], axis=0)
    return array_ops.gather(table, wrap(index))


def _default_row(flat: Tensor, default_value: Any, shape: Any) -> Tensor:
    """to_tensor's padding: one row of `shape` ([1] + the inner dims), `default_value`
    broadcast (zero where None; there even when `flat` has no values)."""
    if default_value is None:
        return array_ops.zeros(shape, flat.dtype)
    return array_ops.broadcast_to(convert_to_tensor(default_value, dtype=flat.dtype), shape)


# -- indexing ------------------------------------------------------------------------------------

def _getitem(self: RaggedTensor, key: Any) -> Any:
    """`rt[i]`, `rt[a:b]`, `rt[:, j]`, `rt[:, a:b]`, ... as TensorFlow's."""
    key = key if isinstance(key, tuple) else (key,)
    if not key:
        return self
    first, rest = key[0], key[1:]
    if first is Ellipsis or first is None:
        raise ValueError("Ellipsis and tf.newaxis are not supported in RaggedTensor indexing")
    if isinstance(first, slice):
        rows = self._slice_rows(first)
        return rows if not rest else _index_inner(rows, rest)
    if is_symbolic(self) or is_symbolic(first):
        row = _traced_row(self, first)
        return row[rest] if rest else row
    i = int(concrete(first, "a row index"))
    n = self._nrows_int()
    if not -n <= i < n:
        raise IndexError(f"Row key {i} out of bounds")
    i %= n
    s = self._splits
    row = _slice_first(self._values, int(s[i]), int(s[i + 1]))
    return row[rest] if rest else row


def _slice_first(values: Any, start: int, stop: int) -> Any:
    return values._slice_rows(slice(start, stop)) if isinstance(values, RaggedTensor) else \
        values[start:stop]


def _slice_rows(self: RaggedTensor, key: slice) -> RaggedTensor:
    if is_symbolic(self) or _traced_bounds(key):
        return _traced_slice_rows(self, key)
    rows = np.arange(self._nrows_int())[key]
    if key.step in (None, 1) and (len(rows) == 0 or rows[-1] - rows[0] + 1 == len(rows)):
        s = self._splits
        start = int(rows[0]) if len(rows) else 0
        stop = int(rows[-1]) + 1 if len(rows) else 0
        values = _slice_first(self._values, int(s[start]), int(s[stop]))
        return RaggedTensor(values, wrap(s[start:stop + 1] - s[start]), internal=True,
                            uniform_row_length=self._uniform)
    return _gather_rows(self, rows)


def _index_inner(rows: RaggedTensor, key: tuple) -> Any:
    """Indexes the ragged axis 1 (and the axes after it) of every row."""
    inner, rest = key[0], key[1:]
    if isinstance(inner, slice):
        bounds = {"start": inner.start, "stop": inner.stop, "step": inner.step}
        traced = _traced_bounds(inner)
        if is_symbolic(rows) or traced:
            given = {k: v for k, v in bounds.items() if v is not None}
            splits, picked = _planned(_items_plan, [rows._row_splits, *_bound_tensors(given)], [
                (tuple(rows._row_splits.shape.as_list()), _np_dtype(rows._row_splits)),
                _INDEX_OUT], tuple(given))
            values = _take(rows._values, picked)
        else:
            splits, picked = _sliced_items(rows._splits, **bounds)
            values, splits = _gather_rows(rows._values, picked), wrap(splits)
        if rest:
            values = values[(slice(None),) + rest]
        uniform = None if rows._uniform is None or traced else \
            len(range(rows._uniform)[inner])
        return RaggedTensor(values, splits, internal=True, uniform_row_length=uniform)
    if inner is Ellipsis or inner is None:
        raise ValueError("Ellipsis and tf.newaxis are not supported in RaggedTensor indexing")
    raise ValueError("Cannot index into an inner ragged dimension.")


# -- elementwise ops -----------------------------------------------------------------------------

def _dense_like(other: Any, rt: RaggedTensor) -> tuple:
    """(`rt`, the non-ragged operand of a binary op shaped to broadcast with its flat
    values). Python values take `rt`'s dtype where they can, as TF's ragged dispatch converts
    them. Along a ragged axis the dense operand broadcasts from size 1, or has a uniform row
    partition that must be the ragged one (TF's assertions otherwise); its extra leading
    axes repeat `rt` (which then has them as uniform outer axes)."""
    t = convert_to_tensor(other, dtype_hint=rt.dtype)
    rank, inner_rank = t.shape.rank, rt.flat_values.shape.rank - 1
    if rank <= inner_rank:
        return rt, t
    if is_symbolic(rt) or not t.shape.is_fully_defined():
        return _traced_dense_like(t, rt)
    dims = [int(d) for d in t.shape]
    rt = _repeated(rt, dims[:max(rank - rt.shape.rank, 0)])
    rr = rt.ragged_rank
    dims = [1] * (rr + 1 + inner_rank - rank) + dims
    outer, inner = dims[:rr + 1], dims[rr + 1:]
    if outer[0] not in (1, rt._nrows_int()):
        _incompatible()
    # TF's broadcast fails where a broadcast axis lies above a partitioned one.
    broadcast, nested = rt._nrows_int() != 1 and outer[0] == 1, False
    level: Any = rt
    for d in outer[1:]:
        splits = level._splits
        if d != 1:
            nested = nested or broadcast
            if level._uniform is not None and level._uniform != d:
                _incompatible()
            _check_uniform(np.arange(len(splits), dtype=splits.dtype) * d, splits)
        else:
            broadcast = broadcast or np.any(np.diff(splits) != 1)
        level = level._values
    size, nvals = int(np.prod(outer)), int(rt.flat_values.shape[0])
    t = array_ops.reshape(t, [size] + inner)
    if size == 1:
        return rt, t[0]
    if nested:
        raise InvalidArgumentError(f"Last row partition does not match flat_values.\n"
                                   f"Condition x == y did not hold.\nFirst 1 elements of x:\n"
                                   f"[{size}]\nFirst 1 elements of y:\n[{nvals}]")
    # Each flat value's element of the dense operand: its coordinates, 0 where broadcast.
    strides = np.cumprod([1] + outer[:0:-1])[::-1]
    index = (_flat_coords(rt) * (np.asarray(outer) != 1) * strides).sum(axis=1)
    return rt, array_ops.gather(t, wrap(index))


def _repeated(rt: RaggedTensor, lead: list) -> RaggedTensor:
    """`rt` under new uniform outer axes of sizes `lead` (copies of it)."""
    for size in reversed(lead):
        n = rt._nrows_int()
        rt = RaggedTensor(_gather_rows(rt, np.tile(np.arange(n), size)),
                          wrap(np.arange(size + 1, dtype=rt._splits.dtype) * n), internal=True,
                          uniform_row_length=n)
    return rt


def _check_uniform(uniform: np.ndarray, splits: np.ndarray) -> None:
    if not np.array_equal(uniform, splits):
        if len(uniform) != len(splits):
            _incompatible()
        _assert_equal(uniform, splits)


def elementwise_binary(op: Callable, x: Any, y: Any, name: Optional[str] = None) -> Any:
    """A binary elementwise op with a ragged operand: on the flat values."""
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        if is_symbolic(x) or is_symbolic(y):
            x = _checked_partitions(x, y)
        else:
            _check_same_partitions(x, y)
        return x.with_flat_values(op(x.flat_values, y.flat_values))
    if isinstance(x, RaggedTensor):
        x, y = _dense_like(y, x)
        return x.with_flat_values(op(x.flat_values, y))
    y, x = _dense_like(x, y)
    return y.with_flat_values(op(x, y.flat_values))


def elementwise_unary(op: Callable, x: Any, *args: Any, **kwargs: Any) -> RaggedTensor:
    """A unary elementwise op on a RaggedTensor: on its flat values."""
    return x.with_flat_values(op(x.flat_values, *args, **kwargs))


@tf_export("ragged.map_flat_values")
def map_flat_values(op: Callable, *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the RaggedTensors among the arguments (which must
    share their row partitions); the result has their partitions."""
    ragged = [x for x in nest.flatten([args, kwargs]) if isinstance(x, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    for other in ragged[1:]:
        if is_symbolic(first) or is_symbolic(other):
            first = _checked_partitions(first, other, "RowPartition._merge_precomputed_"
                                        "encodings: partitions have incompatible row_splits")
        elif not _same_partitions(first, other):
            raise ValueError("Inputs must have identical ragged splits.")

    def flat(x: Any) -> Any:
        return x.flat_values if isinstance(x, RaggedTensor) else x

    out = op(*nest.map_structure(flat, list(args)), **nest.map_structure(flat, kwargs))
    got, want = convert_to_tensor(out).shape[0], first.flat_values.shape[0]
    if got is not None and want is not None and got != want:
        raise ValueError("tf.ragged.map_flat_values requires that the output of `op` have "
                         "the same outer-dimension size as flat_values of any ragged inputs.")
    return first.with_flat_values(out)


# -- reductions ----------------------------------------------------------------------------------

def _segment_logsumexp(data: Tensor, ids: Tensor, n: int) -> Tensor:
    """log(sum(exp(x))) per segment, shifted by the segment's max (-inf for an empty one)."""
    top = math_ops.stop_gradient(index_ops.unsorted_segment_max(data, ids, n))
    total = index_ops.unsorted_segment_sum(
        math_ops.exp(math_ops.subtract(data, array_ops.gather(top, ids))), ids, n)
    return math_ops.add(math_ops.log(total), top)


def _segment_op(op: Callable) -> Callable:
    table = {reduce_ops.reduce_sum: index_ops.unsorted_segment_sum,
             reduce_ops.reduce_max: index_ops.unsorted_segment_max,
             reduce_ops.reduce_min: index_ops.unsorted_segment_min,
             reduce_ops.reduce_prod: index_ops.unsorted_segment_prod,
             reduce_ops.reduce_logsumexp: _segment_logsumexp}
    if op in table:
        return table[op]
    if op in (reduce_ops.reduce_any, reduce_ops.reduce_all):
        # Counts of True (any) or of False (all): an empty row is False for any, True for all.
        def boolean(data: Tensor, ids: Tensor, n: int) -> Tensor:
            flags = data if op is reduce_ops.reduce_any else math_ops.logical_not(data)
            count = index_ops.unsorted_segment_sum(math_ops.cast(flags, _dtypes.int32), ids, n)
            return math_ops.greater(count, 0) if op is reduce_ops.reduce_any else \
                math_ops.equal(count, 0)
        return boolean
    raise TypeError(f"{getattr(op, '__name__', op)} does not support RaggedTensor arguments "
                    f"in tapeflow")


def _merged_nodes(owner: np.ndarray, splits: np.ndarray) -> tuple:
    """One level below a reduced axis: the items `splits` partitions, keyed by (the output
    node their parent merges into, their position in the parent), merge where keys are
    equal. Returns each item's output node and each output node's output parent."""
    parent = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
    position = np.arange(len(parent)) - splits[parent]
    keys = np.stack([owner[parent], position], axis=1)
    nodes, inverse = np.unique(keys, axis=0, return_inverse=True)  # row-major order
    return inverse.reshape(-1), nodes[:, 0]


def _reduce_axis(op: Callable, rt: RaggedTensor, axis: int, keepdims: bool) -> Any:
    """One reduction over `axis` (non-negative) of a RaggedTensor, as TF's: the items of
    a ragged axis reduce elementwise, a shorter one counting as missing (so the result
    along the next axis is as long as the longest)."""
    rr = rt.ragged_rank
    if axis > rr:  # a dense axis of the flat values
        return rt.with_flat_values(op(rt.flat_values, axis=axis - rr, keepdims=keepdims))
    if is_symbolic(rt):
        result = _traced_reduce_axis(op, rt, axis)
    else:
        owner, n, *new_splits = _reduce_plan(
            *[np.asarray(s._value) for s in rt.nested_row_splits], axis=axis)
        result = _segment_op(op)(rt.flat_values, wrap(owner), int(n))
        for splits in reversed(new_splits):
            result = RaggedTensor(result, wrap(splits), internal=True)
    return _expand_dims(result, axis) if keepdims else result


def _reduce_plan(*nested_splits: np.ndarray, axis: int) -> tuple:
    """How a reduction over the ragged `axis` (at most the ragged_rank) moves the flat
    values: (each value's output segment, the number of segments, the result's row splits
    for each of its ragged_rank - 1 ragged dimensions)."""
    dtype = nested_splits[0].dtype
    splits = [s.astype(np.int64) for s in nested_splits]
    # owner: for each item of the current axis, its output node; n: the output nodes there.
    if axis == 0:
        owner, n = np.zeros(len(splits[0]) - 1, np.int64), 1
    else:
        owner = np.repeat(np.arange(len(splits[axis - 1]) - 1), np.diff(splits[axis - 1]))
        n = len(splits[axis - 1]) - 1
    lengths = []
    for level in splits[axis:]:
        owner, parents = _merged_nodes(owner, level)
        lengths.append(np.bincount(parents, minlength=n))
        n = len(parents)
    if axis == 0:   # the one root's children are the result's rows
        lengths = lengths[1:]
    row_lengths = [np.diff(s) for s in splits[:max(axis - 1, 0)]] + lengths
    new_splits = [np.concatenate([[0], np.cumsum(l)]).astype(dtype) for l in row_lengths]
    return (owner.astype(np.int64), np.asarray(n, np.int64), *new_splits)


def _expand_dims(x: Any, axis: int) -> Any:
    """`x` with a new axis of length 1 at `axis` (a uniform row partition in a ragged one):
    each item of axis `axis - 1` becomes a list of one."""
    if not isinstance(x, RaggedTensor):
        return array_ops.expand_dims(x, axis)
    if axis > 1:
        return x.with_values(_expand_dims(x._values, axis - 1))
    if type(x._row_splits) is not Tensor:
        return _traced_expand_dims(x, axis)
    n = x._nrows_int()
    splits = np.arange(n + 1) if axis == 1 else np.asarray([0, n])
    return RaggedTensor(x, wrap(splits.astype(x._splits.dtype)), internal=True,
                        uniform_row_length=1 if axis == 1 else n)


def expand_dims(op: Callable, input: Any, axis: Any,  # noqa: A002 - TF's name
                name: Optional[str] = None) -> RaggedTensor:
    """tf.expand_dims of a RaggedTensor: a new axis of length 1 (a uniform row partition
    where it is not the last axis)."""
    rank = input.shape.rank
    axis = int(concrete(axis, "axis"))
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank - 1}<=axis<{rank + 1}")
    return _expand_dims(input, axis % (rank + 1))


def broadcast_to_ragged_shape(x: Any, shape: Any) -> RaggedTensor:
    """tf.broadcast_to of a dense `x` to a DynamicRaggedShape, as TF's ragged dispatch: `x`
    broadcast against a RaggedTensor of that shape (checked as binary ops check it)."""
    if isinstance(x, RaggedTensor):
        if x._row_splits.dtype != shape.dtype:
            raise ValueError("Cannot coerce row_splits.dtype")
        raise NotImplementedError("tapeflow broadcasts a dense tensor to a DynamicRaggedShape "
                                  "only, not a RaggedTensor")
    x = convert_to_tensor(x)
    template = shape._add_row_partitions(array_ops.zeros(shape._inner, x.dtype))
    if not isinstance(template, RaggedTensor):
        return array_ops.broadcast_to(x, shape._inner)
    rt, t = _dense_like(x, template)
    return rt.with_flat_values(array_ops.broadcast_to(
        t, array_ops.shape(rt.flat_values, out_type=_dtypes.int64)))


def _axes(axis: Any, rank: int) -> list:
    values = concrete(axis, "axis").reshape(-1)
    axes = []
    for a in values.tolist():
        if not -rank <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
        axes.append(a % rank)
    return sorted(set(axes), reverse=True)


def reduce(op: Callable, input_tensor: Any, axis: Any = None, keepdims: bool = False,
           name: Optional[str] = None) -> Any:
    """A reduction (tf.reduce_sum, ...) of a RaggedTensor, as TF's ragged reductions: over
    the present values only; reduce_mean is the sum over the count (so a float for
    integers, NaN for an empty row)."""
    rt = input_tensor
    if op is reduce_ops.reduce_mean:
        total = reduce(reduce_ops.reduce_sum, rt, axis, keepdims)
        ones = rt.with_flat_values(math_ops.ones_like(rt.flat_values))
        return math_ops.divide(total, reduce(reduce_ops.reduce_sum, ones, axis, keepdims))
    if axis is None:
        return op(rt.flat_values, keepdims=keepdims) if not keepdims else \
            array_ops.reshape(op(rt.flat_values), [1] * rt.shape.rank)
    result: Any = rt
    for a in _axes(axis, rt.shape.rank):
        result = _reduce_axis(op, result, a, keepdims) if isinstance(result, RaggedTensor) \
            else op(result, axis=a, keepdims=keepdims)
    return result


# -- concat and stack ----------------------------------------------------------------------------

def _as_ragged(value: Any, ragged_rank: int) -> RaggedTensor:
    if isinstance(value, RaggedTensor):
        return value
    return _from_tensor(convert_to_tensor(value), ragged_rank=ragged_rank)


def _ragged_inputs(values: Any) -> list:
    rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    inputs = [_as_ragged(v, rank) for v in values]
    for index, v in enumerate(inputs[1:], start=1):
        if v.dtype != inputs[0].dtype:
            raise mismatch_error("ConcatV2", index, inputs[0].dtype, v.dtype)
    if len({v.ragged_rank for v in inputs}) > 1:
        raise ValueError("RaggedTensors to concatenate must have the same ragged_rank")
    return inputs


def _concat_rows(inputs: list) -> Any:
    """The rows of every input, one after another (axis 0)."""
    if any(is_symbolic(v) for v in inputs):
        return _traced_concat_rows(inputs)
    if not isinstance(inputs[0], RaggedTensor):
        return array_ops.concat(inputs, axis=0)
    values = _concat_rows([v._values for v in inputs])
    lengths = np.concatenate([np.diff(v._splits) for v in inputs])
    return RaggedTensor(values, _splits_from_lengths(lengths, inputs[0]._splits.dtype),
                        internal=True)


def concat(op: Callable, values: Any, axis: Any, name: str = "concat") -> Any:
    """tf.concat of RaggedTensors (and tensors): along the rows (axis 0), within each row
    (axis 1), or deeper within rows of identical partitions."""
    inputs = _ragged_inputs(list(values))
    return _concat(inputs, _axes(axis, inputs[0].shape.rank)[0])


def _concat(inputs: list, axis: int) -> Any:
    if axis == 0:
        return _concat_rows(inputs)
    if not isinstance(inputs[0], RaggedTensor):
        return array_ops.concat(inputs, axis=axis)
    if any(is_symbolic(v) for v in inputs):
        return _traced_concat_within_rows(inputs, axis)
    n = inputs[0]._nrows_int()
    for index, v in enumerate(inputs[1:], start=1):
        if v._nrows_int() != n:
            raise InvalidArgumentError(f"Input tensors at index 0 (=x) and {index} (=y) have "
                                       f"incompatible shapes.\nCondition x == y did not hold."
                                       f"\nFirst 1 elements of x:\n[{n}]\nFirst 1 elements "
                                       f"of y:\n[{v._nrows_int()}]")
    if axis > 1:   # each row's items join pairwise: the rows must hold as many items
        for v in inputs[1:]:
            if not np.array_equal(inputs[0]._splits, v._splits):
                _assert_equal(inputs[0]._splits, v._splits,
                              "Inputs must have identical ragged splits")
        return RaggedTensor(_concat([v._values for v in inputs], axis - 1),
                            inputs[0]._row_splits, internal=True)
    joined = _concat_rows(inputs)
    lengths = [np.diff(v._splits).astype(np.int64) for v in inputs]
    offsets = np.cumsum([0] + [int(v._splits[-1]) for v in inputs])
    starts = [v._splits[:-1].astype(np.int64) + o for v, o in zip(inputs, offsets)]
    picked = _ranges(np.stack(starts, 1).reshape(-1), np.stack(lengths, 1).reshape(-1))
    total = np.sum(lengths, axis=0)
    return RaggedTensor(_gather_rows(joined._values, picked),
                        _splits_from_lengths(total, inputs[0]._splits.dtype), internal=True)


def stack(op: Callable, values: Any, axis: Any = 0, name: str = "stack") -> Any:
    """tf.stack of RaggedTensors (and tensors): each given a new axis of length 1 at `axis`,
    then concatenated along it."""
    inputs = _ragged_inputs(list(values))
    axis = int(concrete(axis, "axis"))
    rank = inputs[0].shape.rank + 1
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    if axis == 0 and any(is_symbolic(v) for v in inputs):
        return _traced_stack_rows(inputs)
    return _concat([_expand_dims(v, axis) for v in inputs], axis)


# -- tf.ragged ops -------------------------------------------------------------------------------

_RANGE_ORDER = (_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64)


@tf_export("ragged.range")
def ragged_range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None,
                 name: Optional[str] = None, row_splits_dtype: Any = _dtypes.int64) -> RaggedTensor:
    """Row `i` is `range(starts[i], limits[i], deltas[i])` (scalars broadcast); bounds known
    only when a traced graph runs are read then (the rows' lengths too)."""
    if limits is None:
        starts, limits = 0, starts
    parts = [convert_to_tensor(v, dtype=dtype) for v in (starts, limits, deltas)]
    if dtype is None:
        dtype = max((p.dtype for p in parts), key=_RANGE_ORDER.index)
    splits, values = bind(_ragged_range_prim, parts, {
        "dtype": _dtypes.as_dtype(dtype).as_numpy_dtype,
        "splits_dtype": _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype})
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _ragged_range_kernel(starts: np.ndarray, limits: np.ndarray, deltas: np.ndarray, *,
                         dtype: Any, splits_dtype: Any) -> tuple:
    try:
        s, l, d = np.broadcast_arrays(*(np.asarray(v).astype(dtype)
                                        for v in (starts, limits, deltas)))
    except ValueError:
        raise InvalidArgumentError("starts, limits, and deltas must have the same shape "
                                   "[Op:RaggedRange]") from None
    if s.ndim > 1:
        raise InvalidArgumentError("starts, limits and deltas must be scalars or vectors")
    if np.any(d == 0):
        raise InvalidArgumentError("Requires delta != 0 [Op:RaggedRange]")
    rows = [np.arange(a, b, c, dtype=dtype) for a, b, c in
            zip(np.atleast_1d(s), np.atleast_1d(l), np.atleast_1d(d))]
    lengths = np.asarray([len(r) for r in rows], np.int64)
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(splits_dtype)
    return splits, (np.concatenate(rows) if rows else np.zeros(0, dtype)).astype(dtype)


def _ragged_range_rule(*bounds: ShapedArray, dtype: Any, splits_dtype: Any) -> tuple:
    """Rows: 1 for scalar bounds, else the bounds' vector length where one is known."""
    if any(b.shape is None for b in bounds):
        rows = None
    elif all(len(b.shape) == 0 for b in bounds):
        rows = 1
    else:
        known = [b.shape[0] for b in bounds if len(b.shape) == 1 and b.shape[0] is not None]
        rows = known[0] if known else None
    return (_vector(np.dtype(splits_dtype), None if rows is None else rows + 1),
            _vector(np.dtype(dtype)))


@tf_export("ragged.boolean_mask")
def boolean_mask(data: Any, mask: Any, name: Optional[str] = None) -> Any:
    """The elements of `data` where `mask` (of `data`'s leading shape) is True; a 2-D mask
    keeps each row's own elements, giving a RaggedTensor."""
    if is_symbolic(data) or is_symbolic(mask):
        return _traced_boolean_mask(data, mask)
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask)
        if mask.dtype != _dtypes.bool:
            raise TypeError(f"mask must have dtype bool, got {mask.dtype!r}")
        if mask.shape.rank == 1:
            if not isinstance(data, RaggedTensor):
                return index_ops.boolean_mask(data, mask)
            return _gather_rows(data, np.nonzero(concrete(mask, "mask"))[0])
        if mask.shape.rank != 2:   # the general form (its plans run eagerly too)
            return _traced_boolean_mask(data, mask)
        mask = _from_tensor(mask)
    if mask.ragged_rank != 1 or mask.flat_values.shape.rank != 1:
        return _traced_boolean_mask(data, mask)
    if not isinstance(data, RaggedTensor):
        data = _from_tensor(convert_to_tensor(data))
    if not np.array_equal(data._splits, mask._splits):
        raise InvalidArgumentError("mask and data must have the same row partitions")
    keep = concrete(mask._values, "mask")
    splits = _mask_splits_kernel(mask._splits, keep).astype(data._splits.dtype)
    return RaggedTensor(_gather_rows(data._values, np.nonzero(keep)[0]), wrap(splits),
                        internal=True)


@tf_export("ragged.stack")
def ragged_stack(values: Any, axis: int = 0, name: Optional[str] = None) -> RaggedTensor:
    """Stacks tensors and RaggedTensors of one rank (row lengths may differ) into a
    RaggedTensor."""
    values = list(values)
    if not any(isinstance(v, RaggedTensor) for v in values):
        tensors = [convert_to_tensor(v) for v in values]
        if tensors and tensors[0].shape.rank == 1 and axis == 0:
            lengths = np.asarray([int(t.shape[0]) for t in tensors], np.int64)
            return RaggedTensor(array_ops.concat(tensors, axis=0),
                                _splits_from_lengths(lengths, np.int64), internal=True)
        values = [_from_tensor(t) for t in tensors]
    return stack(None, values, axis)


@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits: Any, name: Optional[str] = None,
                              out_type: Any = None) -> Tensor:
    """The row of each value of a row partition given by `splits` ([0, 2, 2, 5] gives
    [0, 0, 2, 2, 2]); `out_type` defaults to the splits' dtype (int64 for Python lists)."""
    splits = _partition_vector(splits, "splits")
    dtype = splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
    return bind(_segment_ids_prim, (splits,), {"dtype": dtype.as_numpy_dtype})


def _segment_ids_kernel(splits: np.ndarray, *, dtype: Any) -> np.ndarray:
    lengths = np.diff(splits) if splits.size else np.zeros(0, splits.dtype)
    return np.repeat(np.arange(len(lengths)), np.maximum(lengths, 0)).astype(dtype)


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None, out_type: Any = None,
                              name: Optional[str] = None) -> Tensor:
    """The row splits of `segment_ids` (`num_segments` rows, default max + 1; ids beyond
    the last row are not counted, as TF's bincount with its maxlength)."""
    ids = _partition_vector(segment_ids, "segment_ids")
    dtype = ids.dtype if out_type is None else _dtypes.as_dtype(out_type)
    inputs = (ids,) if num_segments is None else \
        (ids, convert_to_tensor(num_segments, dtype_hint=_dtypes.int64))
    return bind(_row_splits_prim, inputs, {"dtype": dtype.as_numpy_dtype})


def _row_splits_kernel(ids: np.ndarray, *num_segments: np.ndarray, dtype: Any) -> np.ndarray:
    n = int(num_segments[0]) if num_segments else None
    counts = np.bincount(ids.astype(np.int64), minlength=n or 0) if ids.size else \
        np.zeros(n or 0, np.int64)
    if n is not None:
        counts = counts[:n]
    return np.concatenate([[0], np.cumsum(counts)]).astype(dtype)


def _partition_vector(value: Any, what: str) -> Tensor:
    """`value` as a vector of integers (checked on its static shape, so a traced one works)."""
    tensor = convert_to_tensor(value, dtype_hint=_dtypes.int64)
    shape = tensor.shape
    if shape.rank is not None and shape.rank != 1:
        raise ValueError(f"Shape {tuple(shape.as_list())} must have rank 1")
    if not tensor.dtype.is_integer:
        raise TypeError(f"{what} must be an integer tensor, got {tensor.dtype.name}")
    return tensor


@tf_export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data: Any, partitions: Any, num_partitions: Any,
                             name: Optional[str] = None) -> RaggedTensor:
    """The rows of `data` grouped by partition: row p of the result holds, in order, the
    rows i of `data` with partitions[i] == p (`num_partitions` rows)."""
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    if is_symbolic(data) or _symbolic_tensor(partitions) or _symbolic_tensor(num_partitions):
        return _traced_stack_partitions(data, partitions, num_partitions)
    given = convert_to_tensor(partitions)
    parts = concrete(given, "partitions").astype(np.int64)
    n = int(concrete(num_partitions, "num_partitions"))
    if parts.ndim != 1:
        raise ValueError(f"partitions must be a vector; got shape {parts.shape}")
    if parts.size and (parts.max() >= n or parts.min() < 0):
        bad = parts[(parts >= n) | (parts < 0)][:1]
        raise InvalidArgumentError(f"partitions must be less than num_partitions\n"
                                   f"Condition x < y did not hold.\nFirst 1 elements of x:\n"
                                   f"{bad}\nFirst 1 elements of y:\n[{n}]")
    rows = data._nrows_int() if isinstance(data, RaggedTensor) else int(data.shape[0])
    if rows != len(parts):
        raise InvalidArgumentError(f"data and partitions must have the same number of rows: "
                                   f"{rows} vs {len(parts)}")
    order = np.argsort(parts, kind="stable")
    lengths = np.bincount(parts, minlength=n)
    values = _gather_rows(data, order) if isinstance(data, RaggedTensor) else \
        array_ops.gather(data, wrap(order.astype(np.int32)))   # TF's int32 gradient indices
    dtype = data._splits.dtype if isinstance(data, RaggedTensor) else \
        given.dtype.as_numpy_dtype   # TF's: data's row splits, else the partitions'
    return RaggedTensor(values, _splits_from_lengths(lengths, dtype), internal=True)


def _partitions_plan(dtype: Any, parts: np.ndarray, n: np.ndarray) -> tuple:
    """stack_dynamic_partitions' plan: the rows of data in partition order, and the row
    splits of the partitions (TF's assertions on `parts`)."""
    parts, n = parts.astype(np.int64).reshape(-1), int(n)
    if parts.size and parts.max() >= n:
        raise InvalidArgumentError(f"partitions must be less than num_partitions\n"
                                   f"Condition x < y did not hold.\nFirst 1 elements of x:\n"
                                   f"[{parts.max()}]\nFirst 1 elements of y:\n[{n}]")
    if parts.size and parts.min() < 0:
        raise InvalidArgumentError(f"partitions must be non-negative.\nCondition x >= 0 did "
                                   f"not hold.\nFirst 1 elements of x:\n[{parts.min()}]")
    lengths = np.bincount(parts, minlength=max(n, 0))
    return (np.argsort(parts, kind="stable").astype(np.int64),
            np.concatenate([[0], np.cumsum(lengths)]).astype(dtype))


def _traced_stack_partitions(data: Any, partitions: Any, num_partitions: Any) -> RaggedTensor:
    """stack_dynamic_partitions where the partitions or data's partition are known as the
    graph runs (TF's row splits dtype: data's, else the partitions')."""
    parts = _partition_vector(partitions if isinstance(data, RaggedTensor) else
                              convert_to_tensor(partitions), "partitions")
    n = convert_to_tensor(num_partitions, dtype_hint=parts.dtype)
    if n.shape.rank not in (None, 0):
        raise ValueError(f"Shape {n.shape} must have rank 0")
    dtype = data._row_splits.dtype if isinstance(data, RaggedTensor) else parts.dtype
    static = None if _symbolic_tensor(n) else int(concrete(n, "num_partitions")) + 1
    order, splits = _planned(_partitions_plan, [parts, n], [
        _INDEX_OUT, ((static,), np.dtype(dtype.as_numpy_dtype))], np.dtype(dtype.as_numpy_dtype))
    return RaggedTensor(_take(data, order), splits, internal=True)


# -- feature crosses (tf.ragged.cross, tf.sparse.cross) -------------------------------------------

_CROSS_SEPARATOR = b"_X_"
_DEFAULT_HASH_KEY = 0xDECAFCAFFE   # TF's sparse_ops._DEFAULT_HASH_KEY
_U64 = (1 << 64) - 1
_CAT_MUL = 0xc6a4a7935bd1e995


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's FingerprintCat64 (tensorflow/core/platform/fingerprint.h)."""
    result = fp1 ^ _CAT_MUL
    result ^= (_shift_mix((fp2 * _CAT_MUL) & _U64) * _CAT_MUL) & _U64
    result = (result * _CAT_MUL) & _U64
    result = (_shift_mix(result) * _CAT_MUL) & _U64
    return _shift_mix(result)


def _feature_hash(value: Any) -> int:
    """A feature's hash as TF's cross kernels take it: Fingerprint64 of a string, the
    two's-complement bits of an integer."""
    if isinstance(value, bytes):
        from tapeflow.ops.string_ops import fingerprint64
        return fingerprint64(value)
    return int(value) & _U64


def cross_rows(inputs: Any, op_name: str) -> list:
    """The features of each batch row of each input (a 2-D Tensor, a RaggedTensor of rank 2
    or a 2-D SparseTensor, of strings or integers): per input, a list of rows."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    columns, batch = [], None
    for i, value in enumerate(inputs):
        if isinstance(value, RaggedTensor):
            if value.shape.rank != 2:
                raise ValueError(f"{op_name} only supports inputs with rank=2")
            flat, splits = concrete(value.flat_values, "inputs"), value._splits
            rows = [flat[splits[r]:splits[r + 1]].tolist() for r in range(len(splits) - 1)]
        elif isinstance(value, SparseTensor):
            index = concrete(value.indices, "inputs")
            flat = concrete(value.values, "inputs")
            n = int(concrete(value.dense_shape, "inputs")[0])
            rows = [[] for _ in range(n)]
            for r in np.argsort(index[:, 0], kind="stable"):
                rows[int(index[r, 0])].append(flat[r].item() if flat.dtype != object
                                              else flat[r])
        else:
            flat = concrete(convert_to_tensor(value), "inputs")
            if flat.dtype.kind not in "iuOS":
                raise ValueError(f"Unexpected dtype for inputs[{i}]: "
                                 f"{_dtypes.from_numpy(flat.dtype)!r}")
            if flat.ndim != 2:
                raise InvalidArgumentError(f"{op_name} only supports inputs with rank=2.")
            rows = flat.tolist()
        dtype = _dtypes.from_numpy(np.asarray(flat).dtype)
        if dtype not in (_dtypes.string, _dtypes.int32, _dtypes.int64):
            raise ValueError(f"Unexpected dtype for inputs[{i}]: {dtype!r}")
        if batch is not None and len(rows) != batch:
            raise InvalidArgumentError("inputs must all have the same batch dimension size.")
        batch = len(rows)
        columns.append(rows)
    return columns


def crossed(columns: list, hashed: bool, num_buckets: int = 0, hash_key: Any = None,
            separator: bytes = _CROSS_SEPARATOR) -> list:
    """For each batch row, every combination of one feature per input (the first input's
    feature varying slowest): joined strings, or their FingerprintCat64 hashes."""
    import itertools
    key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key)
    out = []
    for row in zip(*columns):
        features = []
        for combo in itertools.product(*row):
            if hashed:
                h = key
                for value in combo:
                    h = _fingerprint_cat64(h, _feature_hash(value))
                features.append(h % num_buckets if num_buckets > 0 else h % ((1 << 63) - 1))
            else:
                features.append(separator.join(
                    v if isinstance(v, bytes) else str(int(v)).encode() for v in combo))
        out.append(features)
    return out


def _crossed_ragged(rows: list, dtype: Any) -> RaggedTensor:
    lengths = np.asarray([len(r) for r in rows], np.int64)
    flat = [v for r in rows for v in r]
    values = np.asarray(flat, dtype=object if dtype == _dtypes.string else np.int64)
    if not flat:
        values = np.zeros(0, object if dtype == _dtypes.string else np.int64)
    return RaggedTensor(wrap(values), _splits_from_lengths(lengths, np.int64), internal=True)


def _any_traced(inputs: Any) -> bool:
    """Whether an input of a cross is known only as a traced graph runs."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    return any(is_symbolic(v.flat_values) or is_symbolic(v) if isinstance(v, RaggedTensor)
               else any(is_symbolic(p) for p in (v.indices, v.values, v.dense_shape))
               if isinstance(v, SparseTensor) else is_symbolic(v) for v in inputs)


@tf_export("ragged.cross")
def cross(inputs: Any, name: Optional[str] = None) -> RaggedTensor:
    """The string feature crosses of each row of `inputs` (Tensors, RaggedTensors or
    SparseTensors of rank 2): b'a_X_b' for every combination."""
    if _any_traced(inputs):
        return _traced_cross(list(inputs), False, 0, None)
    return _crossed_ragged(crossed(cross_rows(inputs, "tf.ragged.cross"), False),
                           _dtypes.string)


@tf_export("ragged.cross_hashed")
def cross_hashed(inputs: Any, num_buckets: int = 0, hash_key: Any = None,
                 name: Optional[str] = None) -> RaggedTensor:
    """As `cross`, each combination hashed as TF's (FingerprintCat64 of the features'
    Fingerprint64s, from `hash_key`) into int64, modulo `num_buckets` where positive."""
    if _any_traced(inputs):
        return _traced_cross(list(inputs), True, int(num_buckets), hash_key)
    return _crossed_ragged(crossed(cross_rows(inputs, "tf.ragged.cross"), True,
                                   int(num_buckets), hash_key), _dtypes.int64)


def reverse(op: Callable, tensor: Any, axis: Any, name: Optional[str] = None) -> Any:
    """tf.reverse of a RaggedTensor: the rows (axis 0), each row's items (axis 1), or a
    dense axis of the flat values."""
    rt = tensor
    result = rt
    for a in _axes(axis, rt.shape.rank):
        result = _reverse_axis(result, a)
    return result


def _reverse_axis(rt: RaggedTensor, axis: int) -> RaggedTensor:
    if axis > rt.ragged_rank:
        return rt.with_flat_values(manip_ops.reverse(rt.flat_values, [axis - rt.ragged_rank]))
    if is_symbolic(rt) and axis < 2:
        if axis == 0:
            return _traced_slice_rows(rt, slice(None, None, -1))
        return rt.with_values(_take(rt._values, bind(_reversed_items, (rt._row_splits,))))
    if axis == 0:
        return _gather_rows(rt, np.arange(rt._nrows_int())[::-1])
    if axis > 1:
        return rt.with_values(_reverse_axis(rt._values, axis - 1))
    s = rt._splits.astype(np.int64)
    lengths = np.diff(s)
    picked = _ranges(np.zeros_like(lengths), lengths)        # position in the row
    rows = np.repeat(np.arange(len(lengths)), lengths)
    return rt.with_values(_gather_rows(rt._values, s[rows + 1] - 1 - picked))


def tile(op: Callable, input: Any, multiples: Any,  # noqa: A002 - TF's name
         name: Optional[str] = None) -> RaggedTensor:
    """tf.tile of a RaggedTensor: axis 0 repeats the rows, a ragged axis repeats each row's
    items within the row, the dense axes tile the flat values."""
    given = multiples.shape if isinstance(multiples, TensorLike) else \
        TensorShape(np.shape(multiples))
    if given.rank not in (None, 1):   # TF's shape check of its RaggedTile
        raise ValueError(f"Shape {given} must have rank 1")
    if is_symbolic(input) or is_symbolic(multiples):
        return _traced_tile(input, multiples)
    m = concrete(multiples, "multiples").astype(np.int64).reshape(-1)
    for i, k in enumerate(m.tolist()):
        if k < 0:
            raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {k} [Op:Tile]")
    return _tile(input, m)


def _tile(x: Any, m: np.ndarray) -> Any:
    if not isinstance(x, RaggedTensor):
        return array_ops.tile(x, m)
    # Inner axes first (the rows of `values` stay), then each row's items, then the rows.
    values = _tile(x._values, np.concatenate([[1], m[2:]]))
    s = x._splits
    lengths = np.diff(s)
    k = int(m[1])    # m[1] raises IndexError for too short multiples, as TF
    picked = _ranges(np.repeat(s[:-1], k), np.repeat(lengths, k))
    rows = RaggedTensor(_gather_rows(values, picked),
                        _splits_from_lengths(lengths * k, s.dtype), internal=True)
    n0 = int(m[0])
    return rows if n0 == 1 else _gather_rows(rows, np.tile(np.arange(len(lengths)), n0))


def strings_join(op: Callable, inputs: Any, separator: str = "",
                 name: Optional[str] = None) -> RaggedTensor:
    """tf.strings.join of RaggedTensors (of one row partition; strings broadcast): their
    flat values joined."""
    inputs = list(inputs)
    ragged = [v for v in inputs if isinstance(v, RaggedTensor)]
    sizes = {v.flat_values.shape[0] for v in ragged} - {None}   # None: known as it runs
    if len(sizes) > 1:
        raise ValueError(f"Input RaggedTensors' flat_values must all have the same "
                         f"outer-dimension size.  Got sizes: {sizes}")
    first = ragged[0]
    for other in ragged[1:]:
        if is_symbolic(first) or is_symbolic(other):
            first = _checked_partitions(first, other)
        else:
            _check_same_partitions(first, other)
    flat = [v.flat_values if isinstance(v, RaggedTensor) else v for v in inputs]
    return first.with_flat_values(op(flat, separator=separator))


# -- map_fn's ragged rows (tapeflow.ops.functional_ops.map_fn) -----------------------------------

def row_spec(rt: RaggedTensor) -> RaggedTensorSpec:
    """map_fn's default output spec for a ragged input: its row's, shape unknown, as TF's."""
    return RaggedTensorSpec(None, rt.dtype, rt.ragged_rank - 1, rt._row_splits.dtype)


def check_map_output(value: Any, spec: RaggedTensorSpec) -> None:
    """`fn`'s output for a RaggedTensorSpec must be exactly of that kind: a Tensor for
    ragged_rank 0, a RaggedTensor of that ragged_rank and row-splits dtype otherwise."""
    ragged = isinstance(value, RaggedTensor)
    fits = isinstance(value, (RaggedTensor, TensorLike)) and value.dtype == spec.dtype and \
        spec.shape.is_compatible_with(value.shape) and (
            value.ragged_rank == spec.ragged_rank and
            value._row_splits.dtype == spec.row_splits_dtype if ragged else
            spec.ragged_rank == 0)
    if fits:
        return
    got = repr(RaggedTensorSpec.from_value(value)) if ragged else \
        f"TensorSpec(shape={value.shape}, dtype={value.dtype!r}, name=None)" \
        if isinstance(value, TensorLike) else type(value).__name__
    raise ValueError(f"Error in map_fn:\n  Expected `fn` to return a:\n    {spec!r}\n"
                     f"  But it returned a:\n    {got}\n    (value={str(value)})\n"
                     f"  To fix, update the `fn_output_signature` (or `dtype`) argument to "
                     f"`map_fn`.")


def stack_map_rows(rows: list, spec: RaggedTensorSpec) -> RaggedTensor:
    """The rows map_fn's `fn` returned for `spec`, as the rows of one RaggedTensor."""
    dtype = spec.row_splits_dtype.as_numpy_dtype
    for i, row in enumerate(rows):
        if not isinstance(row, RaggedTensor) and row.shape.rank == 0:
            raise InvalidArgumentError(
                f"Ragged values must have rank >= 1; encoded scalar element at index {i} has "
                f"values Tensor: Tensor<type: {row.dtype.name} shape: [] values: "
                f"{np.asarray(row._value).item()}> [Op:RaggedTensorFromVariant]")
    if rows:
        values = _concat_rows(rows)
    else:   # no rows: empty values, with the spec's known inner dims
        inner = spec.shape[spec.ragged_rank + 1:] if spec.shape.rank is not None else None
        dims = [0] + (inner.as_list() if inner is not None and inner.is_fully_defined() else [])
        values = convert_to_tensor(np.zeros(dims, spec.dtype.as_numpy_dtype))
        for _ in range(spec.ragged_rank):
            values = RaggedTensor(values, wrap(np.zeros(1, dtype)), internal=True)
    lengths = [r._nrows_int() if isinstance(r, RaggedTensor) else int(r.shape[0])
               for r in rows]
    return RaggedTensor(values, _splits_from_lengths(np.asarray(lengths, np.int64), dtype),
                        internal=True)


def map_rows_start(spec: RaggedTensorSpec) -> tuple:
    """The loop variables that gather the rows map_fn's `fn` returns for `spec` as the graph
    runs, and their shape invariants: the rows' flat values (none yet), then the row lengths
    of each ragged dimension of the result, outermost (the rows' own lengths) first."""
    if spec.shape.rank is None:
        raise ValueError("as_list() is not defined on an unknown TensorShape.")   # TF's
    inner = spec.shape[spec.ragged_rank + 1:]
    if not inner.is_fully_defined():
        raise ValueError(f"tapeflow's traced map_fn needs the inner dims of its "
                         f"RaggedTensorSpec output to be known, got {spec!r}")
    values = convert_to_tensor(np.zeros([0] + inner.as_list(), spec.dtype.as_numpy_dtype))
    lengths = [convert_to_tensor(np.zeros(0, spec.row_splits_dtype.as_numpy_dtype))
               for _ in range(spec.ragged_rank + 1)]
    shapes = [values.shape.as_list(), *[[None]] * len(lengths)]
    shapes[0][0] = None
    return [values, *lengths], [TensorShape(s) for s in shapes]


def map_rows_add(acc: list, row: Any) -> list:
    """`acc` (as `map_rows_start` gives it) with one more row."""
    dtype = acc[1].dtype
    if isinstance(row, RaggedTensor):
        lengths = [array_ops.reshape(row.nrows(out_type=dtype), [1]),
                   *row.nested_row_lengths()]
    else:
        lengths = [array_ops.shape(row, out_type=dtype)[:1]]
    flat = row.flat_values if isinstance(row, RaggedTensor) else row
    return [array_ops.concat([a, b], 0) for a, b in zip(acc, [flat, *lengths])]


def map_rows_stack(acc: list) -> RaggedTensor:
    """The rows `acc` (as `map_rows_add` leaves it) gathered, as the rows of one
    RaggedTensor."""
    return RaggedTensor.from_nested_row_lengths(acc[0], acc[1:], validate=False)


# -- merge_dims, to_sparse, from_sparse ----------------------------------------------------------

def _merge_dense(t: Tensor, outer: int, inner: int) -> Tensor:
    shape = t.shape.as_list()
    if None not in shape[:outer] + shape[inner + 1:]:
        return array_ops.reshape(t, shape[:outer] + [-1] + shape[inner + 1:])
    dims = array_ops.shape(t, out_type=_dtypes.int64)   # known as the graph runs
    return array_ops.reshape(t, array_ops.concat(
        [dims[:outer], convert_to_tensor([-1], dtype=_dtypes.int64), dims[inner + 1:]], 0))


def _composed_splits(splits: np.ndarray, values: Any, depth: int) -> np.ndarray:
    """`splits` (over `values`' rows) carried down `depth` axes of `values`: the positions
    of each row's elements once those axes are merged into one."""
    level = values
    while depth and isinstance(level, RaggedTensor):
        splits = level._splits.astype(np.int64)[splits]
        level, depth = level._values, depth - 1
    dense = [int(d) for d in level.shape[1:1 + depth]]   # dense axes: a fixed size each
    return splits * int(np.prod(dense))


def _merge_dims(self: RaggedTensor, outer_axis: int, inner_axis: int) -> Any:
    """The tensor with axes `outer_axis` through `inner_axis` merged into one (a Tensor when
    that takes in every ragged axis), as TF's RaggedTensor.merge_dims."""
    rank = self.shape.rank
    outer = _axes(outer_axis, rank)[0]
    inner = _axes(inner_axis, rank)[0]
    if outer > inner:
        raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                         f"inner_axis ({inner_axis}).")
    return _merge(self, outer, inner)


def _merge(x: Any, outer: int, inner: int) -> Any:
    if outer == inner:
        return x
    if not isinstance(x, RaggedTensor):
        return _merge_dense(x, outer, inner)
    if outer == 0:
        while isinstance(x, RaggedTensor) and inner > 0:
            x, inner = x._values, inner - 1
        return _merge(x, 0, inner)
    if outer > 1:
        return x.with_values(_merge(x._values, outer - 1, inner - 1))
    if is_symbolic(x):
        return _traced_merge_rows(x, inner)
    splits = _composed_splits(x._splits.astype(np.int64), x._values, inner - 1)
    values = _merge(x._values, 0, inner - 1)
    return RaggedTensor(values, wrap(splits.astype(x._splits.dtype)), internal=True)


def _to_sparse(self: RaggedTensor, name: Optional[str] = None) -> Any:
    """The SparseTensor of this tensor's present values, in row-major order, with its
    bounding shape."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    flat = self.flat_values
    inner = tuple(flat.shape.as_list()[1:])
    if is_symbolic(self):
        (coords,) = _planned(_sparse_plan, [*_nested(self), array_ops.shape(
            flat, out_type=_dtypes.int64)], [((None, self.ragged_rank + 1 + len(inner)),
                                              np.dtype(np.int64))])
    else:
        coords = wrap(_sparse_coords(_flat_coords(self), inner))
    if inner:
        flat = array_ops.reshape(flat, [-1])
    return SparseTensor(coords, flat, self.bounding_shape(out_type=_dtypes.int64))


def _from_sparse(cls: type, st_input: Any, name: Optional[str] = None,
                 row_splits_dtype: Any = _dtypes.int64) -> RaggedTensor:
    """The RaggedTensor of a 2-D right-ragged SparseTensor (row r's columns are 0, 1, ...,
    in order): its rows hold their values."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    if not isinstance(st_input, SparseTensor):
        kind = "EagerTensor" if type(st_input) is Tensor else type(st_input).__name__
        raise TypeError(f"Argument `st_input` must be of type SparseTensor, but is of type "
                        f"{kind}.")
    dtype = np.dtype(_dtypes.as_dtype(row_splits_dtype).as_numpy_dtype)
    if _symbolic_tensor(st_input.indices) or _symbolic_tensor(st_input.dense_shape):
        if st_input.dense_shape.shape.as_list() != [2]:
            raise ValueError("rank(st_input) must be 2.")
        splits = _planned(_sparse_splits_plan, [st_input.indices, st_input.dense_shape],
                          [((None,), dtype)], dtype)[0]
        return RaggedTensor(st_input.values, splits, internal=True)
    index = concrete(st_input.indices, "st_input.indices")
    shape = concrete(st_input.dense_shape, "st_input.dense_shape")
    if len(shape) != 2:
        raise ValueError("rank(st_input) must be 2.")
    return RaggedTensor(st_input.values, wrap(_sparse_row_splits(dtype, index, shape)),
                        internal=True)


def _sparse_splits_plan(dtype: np.dtype, index: np.ndarray, shape: np.ndarray) -> list:
    return [_sparse_row_splits(dtype, index, shape)]


def _sparse_row_splits(dtype: np.dtype, index: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """The row splits of a right-ragged 2-D SparseTensor's `index` (row r's columns are 0,
    1, ... in order), or TF's error where it is not right-ragged."""
    rows, cols = index[:, 0], index[:, 1]
    lengths = np.bincount(rows, minlength=int(shape[0])) if len(rows) else \
        np.zeros(int(shape[0]), np.int64)
    splits = np.concatenate([[0], np.cumsum(lengths)])
    expected = np.arange(len(rows)) - splits[:-1][rows] if len(rows) else cols
    if np.any(np.diff(rows) < 0) or not np.array_equal(cols, expected):
        raise InvalidArgumentError(f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be "
                                   f"true. Summarized data: b'SparseTensor is not "
                                   f"right-ragged'\nb'SparseTensor.indices ='\n"
                                   f"{index.reshape(-1)[:3].tolist()}")
    return splits.astype(dtype)


# -- row partitions known only when a traced graph runs ------------------------------------------
# Inside tf.function a RaggedTensor's row splits may be traced tensors (`is_symbolic`). The
# ops then bind the primitives below, whose NumPy kernels compute from the splits as the
# graph runs what the eager paths compute while they are called: index arrays and new row
# splits (none of them differentiable). The values still move with tapeflow's
# differentiable ops (gather, segment reductions), so gradients reach `flat_values`.

def _assertion(what: Optional[str], condition: str, x: Any,
               y: Any = None) -> InvalidArgumentError:
    """TF's text for a failed assertion of its ragged ops (assert_equal and kin)."""
    def text(v: Any) -> str:
        return "[" + " ".join(str(i) for i in np.asarray(v).reshape(-1).tolist()) + "]"
    parts = "" if what is None else f"[{what}] "
    parts += f"[Condition {condition} did not hold element-wise:] [x = ] {text(x)}"
    if y is not None:
        parts += f" [y = ] {text(y)}"
    return InvalidArgumentError(f"assertion failed: {parts}")


def _check_nvals(last: Any, nvals: Any) -> None:
    if int(last) != int(nvals):
        raise _assertion("Arguments to _from_row_partition do not form a valid RaggedTensor",
                         "x == y", last, nvals)


def _check_splits_kernel(splits: np.ndarray, nvals: np.ndarray, factory: str) -> np.ndarray:
    if splits.size == 0:
        raise InvalidArgumentError("slice index 0 of dimension 0 out of bounds.")
    if splits[0] != 0:
        raise _assertion(f"Arguments to {factory} do not form a valid RaggedTensor:zero",
                         "x == y", splits[0], 0)
    steps = np.diff(splits)
    if np.any(steps < 0):
        raise _assertion(f"Arguments to {factory} do not form a valid RaggedTensor:"
                         f"monotonic.  ", "x >= 0", steps)
    _check_nvals(splits[-1], nvals)
    return splits


def _splits_from_lengths_kernel(lengths: np.ndarray, nvals: np.ndarray) -> np.ndarray:
    if np.any(lengths < 0):
        raise _assertion("Arguments to from_row_lengths do not form a valid RowPartition.  ",
                         "x >= 0", lengths)
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(lengths.dtype)
    _check_nvals(splits[-1], nvals)
    return splits


def _splits_from_rowids_kernel(rowids: np.ndarray, nvals: np.ndarray,
                               *nrows: np.ndarray) -> np.ndarray:
    what = "Arguments to from_value_rowids do not form a valid RowPartition"
    if rowids.size and rowids[0] < 0:
        raise _assertion(what + ".  ", "x >= 0", rowids[0])
    steps = np.diff(rowids)
    if np.any(steps < 0):
        raise _assertion(what + ".  ", "x >= 0", steps)
    n = int(nrows[0]) if nrows else (int(rowids[-1]) + 1 if rowids.size else 0)
    if rowids.size and rowids[-1] >= n:
        raise _assertion(what, "x < y", rowids[-1], n)
    _check_nvals(rowids.size, nvals)
    lengths = np.bincount(rowids, minlength=max(n, 0))
    return np.concatenate([[0], np.cumsum(lengths)]).astype(rowids.dtype)


def _same_splits_kernel(x: np.ndarray, y: np.ndarray, message: Optional[str]) -> np.ndarray:
    if x.shape != y.shape or not np.array_equal(x, y):
        raise _assertion(message, "x == y", x, y)
    return x


def _rowids_kernel(splits: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(splits) - 1, dtype=splits.dtype), np.diff(splits))


def _gather_plan(*args: np.ndarray, negative: bool) -> tuple:
    """For rows `args[0]` of a tensor with row splits `args[1:]`: the row splits of the
    gathered tensor, then the positions of its flat values among the old ones."""
    rows, nested_splits = np.asarray(args[0], np.int64).reshape(-1), args[1:]
    n = len(nested_splits[0]) - 1
    bad = (rows < -n) | (rows >= n) if negative else (rows < 0) | (rows >= n)
    if np.any(bad):   # TF's errors: of RaggedGather, or of the row index's strided slice
        i = int(np.argmax(bad))
        raise InvalidArgumentError(
            f"slice index {int(rows[i])} of dimension 0 out of bounds." if negative else
            f"indices[{i}] = {int(rows[i])} is not in [0, {n})")
    new, picks = _take_rows(nested_splits, rows % max(n, 1))
    return (*new, picks)


def _bounds(nested_splits: tuple, flat_shape: np.ndarray) -> list:
    dims = [len(nested_splits[0]) - 1]
    for s in nested_splits:
        lengths = np.diff(s)
        dims.append(int(lengths.max()) if lengths.size else 0)
    return dims + [int(d) for d in flat_shape[1:]]


def _bounding_shape_kernel(*args: np.ndarray, dtype: Any) -> np.ndarray:
    return np.asarray(_bounds(args[:-1], args[-1]), dtype)


def _dense_index_kernel(*nested_splits: np.ndarray, dims: tuple) -> np.ndarray:
    """For each position of to_tensor's dense result (over its ragged_rank + 1 leading
    axes), the flat value there, or the number of values (the default's row)."""
    bounds = _bounds(nested_splits, np.zeros(1))
    dims = [b if d is None else d for b, d in zip(bounds, dims)]
    coords = _coords_of(list(nested_splits))
    keep = np.all(coords < np.asarray(dims), axis=1)
    index = np.full(dims, len(coords), np.int64)
    index[tuple(coords[keep].T)] = np.nonzero(keep)[0]
    return index


def _concat_splits_kernel(*splits: np.ndarray) -> np.ndarray:
    offsets = np.cumsum([0] + [int(s[-1]) for s in splits[:-1]])
    return np.concatenate([splits[0][:1]] + [s[1:] + o for s, o in zip(splits, offsets)]
                          ).astype(splits[0].dtype)


def _sliced_items(splits: np.ndarray, start: Any, stop: Any, step: Any) -> tuple:
    """`rt[:, start:stop:step]` for the rows `splits` partitions: the result's row splits and
    the items it keeps."""
    s = splits.astype(np.int64)
    spans = [range(l)[slice(start, stop, step)] for l in np.diff(s).tolist()]
    lengths = np.asarray([len(r) for r in spans], np.int64)
    picked = np.asarray([s[i] + j for i, r in enumerate(spans) for j in r], np.int64)
    return np.concatenate([[0], np.cumsum(lengths)]).astype(splits.dtype), picked


def _dense_rows_kernel(shape: np.ndarray, *given: np.ndarray, mode: str, dtype: Any) -> tuple:
    """from_tensor's partition of a dense tensor of `shape` (ragged_rank 1): the row splits,
    and the positions of the kept items among its rows * cols ones. `mode`: "uniform" (every
    item), "lengths" (`given`: the row lengths, cut to the columns) or "padding" (`given`:
    where items equal the padding; each row's trailing run of those is dropped)."""
    rows, cols = int(shape[0]), int(shape[1])
    if mode == "lengths":
        lengths = np.minimum(given[0].reshape(-1), cols)
    elif mode == "padding":
        same = given[0].reshape(rows, cols, -1) if given[0].size else \
            np.zeros((rows, cols, 1), bool)
        kept = ~same.all(axis=2)[:, ::-1]
        lengths = _unpadded_lengths(kept, cols)
    else:
        lengths = np.full(rows, cols)
    lengths = lengths.astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(dtype)
    return splits, _ranges(np.arange(rows, dtype=np.int64) * cols, lengths)


def _reversed_items_kernel(splits: np.ndarray) -> np.ndarray:
    """For each item of the rows `splits` partitions, the item that replaces it when each
    row is reversed."""
    s = splits.astype(np.int64)
    lengths = np.diff(s)
    position = _ranges(np.zeros_like(lengths), lengths)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    return s[rows + 1] - 1 - position


def _joined_rows_kernel(*splits: np.ndarray) -> tuple:
    """tf.concat of ragged tensors along axis 1 (their rows joined pairwise), for the inputs'
    row splits: the result's row splits and, for each of its items, its place among the
    inputs' items taken one input after another."""
    n = len(splits[0]) - 1
    for index, other in enumerate(splits[1:], start=1):
        if len(other) - 1 != n:   # TF's graph-mode assertion
            raise _assertion(f"Input tensors at index 0 (=x) and {index} (=y) have "
                             f"incompatible shapes.", "x == y", n, len(other) - 1)
    lengths = [np.diff(s).astype(np.int64) for s in splits]
    offsets = np.cumsum([0] + [int(s[-1]) for s in splits])
    starts = [s[:-1].astype(np.int64) + o for s, o in zip(splits, offsets)]
    picked = _ranges(np.stack(starts, 1).reshape(-1), np.stack(lengths, 1).reshape(-1))
    total = np.concatenate([[0], np.cumsum(np.sum(lengths, axis=0))]).astype(splits[0].dtype)
    return total, picked


def _mask_splits_kernel(splits: np.ndarray, keep: np.ndarray) -> np.ndarray:
    kept = np.concatenate([[0], np.cumsum(keep.astype(np.int64))])
    return kept[splits].astype(splits.dtype)


def _vector(dtype: Any, n: Optional[int] = None) -> ShapedArray:
    return ShapedArray((n,), dtype)


def _length(aval: ShapedArray) -> Optional[int]:
    return None if aval.shape is None or aval.shape[0] is None else aval.shape[0]


def _rows_of(aval: ShapedArray) -> Optional[int]:
    n = _length(aval)
    return None if n is None else n - 1


def _reduce_plan_rule(*splits: ShapedArray, axis: int) -> tuple:
    dtype = splits[0].dtype
    return (_vector(np.dtype(np.int64)), ShapedArray((), np.dtype(np.int64)),
            *[_vector(dtype)] * (len(splits) - 1))


def _gather_plan_rule(rows: ShapedArray, *splits: ShapedArray, negative: bool) -> tuple:
    count = None if rows.shape is None or None in rows.shape else int(np.prod(rows.shape))
    outer = _vector(splits[0].dtype, None if count is None else count + 1)
    return (outer, *[_vector(s.dtype) for s in splits[1:]], _vector(np.dtype(np.int64)))


def _concat_splits_rule(*splits: ShapedArray) -> ShapedArray:
    rows = [_rows_of(s) for s in splits]
    return _vector(splits[0].dtype, None if None in rows else sum(rows) + 1)


_RAGGED_PRIMS = dict(differentiable=False)
_ragged_range_prim = Primitive("RaggedRange", _ragged_range_kernel, multiple_results=True,
                               **_RAGGED_PRIMS, shape_rule=_ragged_range_rule)
_segment_ids_prim = Primitive("RaggedRowSplitsToSegmentIds", _segment_ids_kernel,
                              **_RAGGED_PRIMS,
                              shape_rule=lambda splits, dtype: _vector(np.dtype(dtype)))
_row_splits_prim = Primitive(
    "RaggedSegmentIdsToRowSplits", _row_splits_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda ids, *n, dtype: _vector(np.dtype(dtype)))
_check_splits = Primitive(
    "RaggedCheckRowSplits", _check_splits_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda splits, nvals, factory: splits)
_splits_from_lengths_prim = Primitive(
    "RaggedSplitsFromRowLengths", _splits_from_lengths_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda lengths, nvals: _vector(
        lengths.dtype, None if _length(lengths) is None else _length(lengths) + 1))
_splits_from_rowids = Primitive(
    "RaggedSplitsFromValueRowIds", _splits_from_rowids_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda rowids, nvals, *nrows: _vector(rowids.dtype))
_same_splits = Primitive(
    "RaggedSameRowSplits", _same_splits_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda x, y, message: x)
_rowids = Primitive("RaggedValueRowIds", _rowids_kernel, **_RAGGED_PRIMS,
                    shape_rule=lambda splits: _vector(splits.dtype))
_reduce_plan_prim = Primitive("RaggedReducePlan", _reduce_plan, multiple_results=True,
                              **_RAGGED_PRIMS, shape_rule=_reduce_plan_rule)
_gather_plan_prim = Primitive("RaggedGatherPlan", _gather_plan, multiple_results=True,
                              **_RAGGED_PRIMS, shape_rule=_gather_plan_rule)
_bounding_shape_prim = Primitive(
    "RaggedBoundingShape", _bounding_shape_kernel, **_RAGGED_PRIMS,
    shape_rule=lambda *args, dtype: _vector(np.dtype(dtype), None if _length(
        args[-1]) is None else len(args) - 1 + _length(args[-1])))
_concat_splits = Primitive("RaggedConcatRowSplits", _concat_splits_kernel, **_RAGGED_PRIMS,
                           shape_rule=_concat_splits_rule)
_dense_rows = Primitive(
    "RaggedFromDenseRows", _dense_rows_kernel, multiple_results=True, **_RAGGED_PRIMS,
    shape_rule=lambda shape, *given, mode, dtype: (
        _vector(np.dtype(dtype)), _vector(np.dtype(np.int64))))
_reversed_items = Primitive("RaggedReversedItems", _reversed_items_kernel, **_RAGGED_PRIMS,
                            shape_rule=lambda splits: _vector(np.dtype(np.int64)))
_joined_rows = Primitive(
    "RaggedJoinedRows", _joined_rows_kernel, multiple_results=True, **_RAGGED_PRIMS,
    shape_rule=lambda *splits: (_vector(splits[0].dtype, _length(splits[0])),
                                _vector(np.dtype(np.int64))))
_mask_splits = Primitive("RaggedMaskRowSplits", _mask_splits_kernel, **_RAGGED_PRIMS,
                         shape_rule=lambda splits, keep: splits)


def _nested(rt: RaggedTensor) -> list:
    return list(rt.nested_row_splits)


def _rebuilt(flat: Any, nested_splits: Any) -> Any:
    """`flat` under these row splits, outermost first."""
    for splits in reversed(list(nested_splits)):
        flat = RaggedTensor(flat, splits, internal=True)
    return flat


def _row_count(values: Any, dtype: _dtypes.DType) -> Tensor:
    """The number of rows of `values` (a Tensor or RaggedTensor) as the graph runs."""
    if isinstance(values, RaggedTensor):
        return _traced_nrows(values, dtype)
    return array_ops.shape(values, out_type=dtype)[0]


def _traced_nrows(rt: RaggedTensor, out_type: Any = None) -> Tensor:
    dtype = rt._row_splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
    static = rt._static_nrows()
    if static is not None:
        return convert_to_tensor(static, dtype=dtype)
    return array_ops.shape(rt._row_splits, out_type=dtype)[0] - 1


def _traced_from_row_splits(values: Any, row_splits: Any, validate: bool,
                            factory: str = "from_row_splits") -> RaggedTensor:
    values = _values_of(values)
    splits = _index_tensor(row_splits, "row_splits")
    if validate:
        splits = bind(_check_splits, (splits, _row_count(values, splits.dtype)),
                      {"factory": factory})
    return RaggedTensor(values, splits, internal=True)


def _traced_from_row_lengths(values: Any, row_lengths: Any, validate: bool) -> RaggedTensor:
    values = _values_of(values)
    lengths = _index_tensor(row_lengths, "row_lengths")
    splits = bind(_splits_from_lengths_prim, (lengths, _row_count(values, lengths.dtype)))
    return RaggedTensor(values, splits, internal=True)


def _traced_from_uniform_row_length(values: Any, uniform_row_length: Any, nrows: Any,
                                    validate: bool) -> RaggedTensor:
    """from_uniform_row_length where the number of values, the length or `nrows` is known
    only when the graph runs: the splits are made then (TF's divisibility check there)."""
    values = _values_of(values)
    length = convert_to_tensor(uniform_row_length, dtype_hint=_dtypes.int64)
    dtype = _np_dtype(length)
    inputs = [_row_count(values, length.dtype), length] + \
        ([] if nrows is None else [math_ops.cast(convert_to_tensor(nrows), length.dtype)])
    splits = _planned(_row_length_splits_plan, inputs, [((None,), dtype)], validate)[0]
    static = None if _symbolic_tensor(uniform_row_length) else \
        int(concrete(uniform_row_length, "uniform_row_length"))
    return RaggedTensor(values, splits, internal=True, uniform_row_length=static)


def _row_length_splits_plan(validate: bool, nvals: np.ndarray, length: np.ndarray,
                            *nrows: np.ndarray) -> list:
    return [uniform_row_splits(int(nvals), int(length), int(nrows[0]) if nrows else None,
                               validate, length.dtype)]


def _traced_from_value_rowids(values: Any, value_rowids: Any, nrows: Any,
                              validate: bool) -> RaggedTensor:
    values = _values_of(values)
    rowids = _index_tensor(value_rowids, "value_rowids")
    inputs = [rowids, _row_count(values, rowids.dtype)]
    if nrows is not None:
        inputs.append(convert_to_tensor(nrows, dtype=rowids.dtype))
    splits = bind(_splits_from_rowids, inputs)
    return RaggedTensor(values, splits, internal=True)


def _traced_from_row_starts(values: Any, row_starts: Any, validate: bool) -> RaggedTensor:
    values = _values_of(values)
    starts = _index_tensor(row_starts, "row_starts")
    nvals = array_ops.reshape(_row_count(values, starts.dtype), [1])
    return _traced_from_row_splits(values, array_ops.concat([starts, nvals], 0), validate)


def _traced_from_row_limits(values: Any, row_limits: Any, validate: bool) -> RaggedTensor:
    limits = _index_tensor(row_limits, "row_limits")
    zero = convert_to_tensor([0], dtype=limits.dtype)
    return _traced_from_row_splits(values, array_ops.concat([zero, limits], 0), validate)


def _traced_row_lengths(rt: RaggedTensor) -> Tensor:
    return rt._row_splits[1:] - rt._row_splits[:-1]


def _traced_value_rowids(rt: RaggedTensor) -> Tensor:
    return bind(_rowids, (rt._row_splits,))


def _traced_bounding_shape(rt: RaggedTensor, axis: Any, out_type: Any) -> Tensor:
    dtype = rt._row_splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
    flat = rt.flat_values
    shape = bind(_bounding_shape_prim, (*_nested(rt), array_ops.shape(flat, out_type=dtype)),
                 {"dtype": np.dtype(dtype.as_numpy_dtype)})
    return shape if axis is None else shape[axis]


def _traced_reduce_axis(op: Callable, rt: RaggedTensor, axis: int) -> Any:
    owner, n, *new_splits = bind(_reduce_plan_prim, _nested(rt), {"axis": axis})
    return _rebuilt(_segment_op(op)(rt.flat_values, owner, n), new_splits)


def _traced_gather(rt: RaggedTensor, rows: Any, negative: bool = False) -> RaggedTensor:
    """The rows `rows` (a 1-D int tensor) of `rt`, as the graph runs."""
    *new_splits, picks = bind(_gather_plan_prim, (rows, *_nested(rt)),
                              {"negative": negative})
    return _rebuilt(array_ops.gather(rt.flat_values, picks), new_splits)


def _traced_row(rt: RaggedTensor, index: Any) -> Any:
    """`rt[index]` (an int, or a scalar int tensor) as the graph runs."""
    rows = array_ops.reshape(convert_to_tensor(index, dtype_hint=_dtypes.int64), [1])
    return _traced_gather(rt, rows, negative=True)._values


def _traced_bounds(key: slice) -> bool:
    """Whether a slice has a bound known only as a traced graph runs."""
    return any(_symbolic_tensor(b) for b in (key.start, key.stop, key.step))


def _bound_tensors(bounds: dict) -> list:
    """Slice bounds (Python ints or scalar int tensors) as int64 tensors."""
    tensors = []
    for value in bounds.values():
        t = convert_to_tensor(value, dtype_hint=_dtypes.int64)
        if not t.dtype.is_integer or t.shape.rank not in (None, 0):
            raise TypeError(f"slice indices must be integers or None, got {t!r}")
        tensors.append(math_ops.cast(t, _dtypes.int64))
    return tensors


def _given(names: tuple, values: tuple) -> dict:
    """The slice bounds `names` (start, stop, step) with these values, as Python ints."""
    return dict(zip(names, (int(v) for v in values)))


def _rows_plan(names: tuple, step: Optional[int], splits: np.ndarray, *values: np.ndarray
               ) -> tuple:
    """`rt[start:stop:step]`'s rows, for rows `splits` and the bounds `names` given."""
    given = _given(names, values)
    return (np.arange(len(splits) - 1, dtype=np.int64)[
        slice(given.get("start"), given.get("stop"), step)],)


def _items_plan(names: tuple, splits: np.ndarray, *values: np.ndarray) -> tuple:
    """`rt[:, start:stop:step]` (the bounds `names` given): the new row splits and the items
    kept."""
    given = _given(names, values)
    return _sliced_items(splits, given.get("start"), given.get("stop"), given.get("step"))


def _traced_slice_rows(rt: RaggedTensor, key: slice) -> RaggedTensor:
    """`rt[start:stop:step]` as the graph runs (the bounds ints or scalar int tensors; TF
    takes the step as a Python int only)."""
    if _symbolic_tensor(key.step):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt "
            "the following resolutions to the problem: If you are running in Graph mode, use "
            "Eager execution mode or decorate this function with @tf.function. If you are "
            "using AutoGraph, you can try decorating this function with @tf.function. If that "
            "does not work, then you may be using an unsupported feature or your source code "
            "may not be visible to AutoGraph. See https://github.com/tensorflow/tensorflow/"
            "blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md"
            "#access-to-source-code for more information.")
    given = {k: v for k, v in (("start", key.start), ("stop", key.stop)) if v is not None}
    step = None if key.step is None else int(concrete(key.step, "a slice step"))
    (rows,) = _planned(_rows_plan, [rt._row_splits, *_bound_tensors(given)], [_INDEX_OUT],
                       tuple(given), step)
    return _traced_gather(rt, rows)


def _check_inner_dims(given: Any, dims: Any, lead: int, error: type) -> None:
    """to_tensor pads and cuts the ragged dims only: `given`'s inner dims (after `lead`)
    must be unknown (None, -1) or equal the tensor's `dims` (TF's text)."""
    for i in range(lead, len(given)):
        g, d = given[i], dims[i]
        if g not in (None, -1) and d not in (None, -1) and int(g) != int(d):
            text = ",".join("?" if v in (None, -1) else str(int(v)) for v in given)
            raise error(f"rt_input.shape and shape=[{text}] are incompatible: "
                        f"rt_input.shape[{i}] = {int(d)} but shape[{i}] = {int(g)}")


def _dense_plan(lead: int, *arrays: np.ndarray) -> tuple:
    """to_tensor's index (`_dense_index_kernel`) for row splits `arrays[:lead - 1]`, the
    flat values' shape and, if given, the requested shape (-1: the bounding size)."""
    nested, flat_shape, given = arrays[:lead - 1], arrays[lead - 1], arrays[lead:]
    dims: list = [None] * lead
    if given:
        shape = given[0].reshape(-1).tolist()
        if len(shape) != lead + len(flat_shape) - 1:
            raise InvalidArgumentError(f"rt_input.shape and shape={shape} must have the same "
                                       f"rank")
        _check_inner_dims(shape, [None] * lead + flat_shape[1:].tolist(), lead,
                          InvalidArgumentError)
        dims = [None if d == -1 else d for d in shape[:lead]]
    return (_dense_index_kernel(*nested, dims=tuple(dims)),)


def _traced_to_tensor(rt: RaggedTensor, default_value: Any, shape: Any) -> Tensor:
    """to_tensor as the graph runs: the dense index computed by a plan from the row splits
    (and a traced `shape`), the values gathered with the default appended."""
    flat = rt.flat_values
    lead = rt.ragged_rank + 1
    inner = flat.shape.as_list()[1:]
    static, given = [rt._static_nrows()] + [None] * (lead - 1) + inner, []
    if _symbolic_tensor(shape):
        given = [math_ops.cast(shape, _dtypes.int64)]
    elif shape is not None:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(
            concrete(shape, "shape") if isinstance(shape, TensorLike) else shape)
        if len(dims) != rt.shape.rank:
            raise ValueError(f"shape {dims} must have rank {rt.shape.rank}")
        _check_inner_dims(dims, static, lead, ValueError)
        static = [d if g in (None, -1) else int(g) for d, g in zip(static, dims)]
        given = [convert_to_tensor([-1 if d is None else d for d in static], _dtypes.int64)]
    (index,) = _planned(_dense_plan, [*_nested(rt), array_ops.shape(flat, out_type=_dtypes.int64),
                                      *given], [(tuple(static[:lead]), np.dtype(np.int64))],
                        lead)
    target = [1] + inner if None not in inner else array_ops.concat([
        convert_to_tensor([1], _dtypes.int64), array_ops.shape(flat, out_type=_dtypes.int64)[1:]],
        0)
    dense = array_ops.gather(array_ops.concat([flat, _default_row(flat, default_value, target)],
                                              axis=0), index)
    return index_ops.ensure_shape(dense, static) if static[lead:] != inner else dense


def _checked_partitions(a: RaggedTensor, b: RaggedTensor,
                        message: Optional[str] = None) -> Any:
    """`a`, its row splits checked (as the graph runs) to equal `b`'s level by level."""
    if a._row_splits.dtype != b._row_splits.dtype:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible "
                         "dtypes.")
    if a.ragged_rank != b.ragged_rank:
        raise InvalidArgumentError(f"tapeflow broadcasts RaggedTensors of one ragged_rank "
                                   f"only; got ragged_rank {a.ragged_rank} (shape {a.shape}) "
                                   f"and {b.ragged_rank} (shape {b.shape})")
    checked = [x if x is y else bind(_same_splits, (x, y), {"message": message})
               for x, y in zip(_nested(a), _nested(b))]
    return _rebuilt(a.flat_values, checked)


def _traced_concat_rows(inputs: list) -> Any:
    """The rows of every input, one after another (axis 0), as the graph runs."""
    if not isinstance(inputs[0], RaggedTensor):
        return array_ops.concat(inputs, axis=0)
    splits = [v._row_splits for v in inputs]
    if len({s.dtype for s in splits}) > 1:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible "
                         "dtypes.")
    return RaggedTensor(_traced_concat_rows([v._values for v in inputs]),
                        bind(_concat_splits, splits), internal=True)


def _take(values: Any, items: Tensor) -> Any:
    """The rows `items` (a 1-D int tensor) of `values`, a Tensor or RaggedTensor."""
    if isinstance(values, RaggedTensor):
        return _traced_gather(values, items)
    return array_ops.gather(values, items)


def _traced_concat_within_rows(inputs: list, axis: int) -> RaggedTensor:
    """tf.concat of ragged tensors along `axis` >= 1, as the graph runs: axis 1 joins each
    row's items; deeper axes join items of rows that must be partitioned alike."""
    if len({v._row_splits.dtype for v in inputs}) > 1:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to compatible "
                         "dtypes.")
    if axis > 1:
        splits = inputs[0]._row_splits
        for v in inputs[1:]:
            splits = bind(_same_splits, (splits, v._row_splits),
                          {"message": "Inputs must have identical ragged splits"})
        return RaggedTensor(_concat([v._values for v in inputs], axis - 1), splits,
                            internal=True)
    joined = _traced_concat_rows(inputs)
    splits, items = bind(_joined_rows, [v._row_splits for v in inputs])
    return RaggedTensor(_take(joined._values, items), splits, internal=True)


def _traced_stack_rows(inputs: list) -> RaggedTensor:
    """tf.stack(inputs, axis=0) as the graph runs: each input becomes one row."""
    dtype = inputs[0]._row_splits.dtype
    outer = [array_ops.stack([convert_to_tensor(0, dtype=dtype), _traced_nrows(v, dtype)])
             for v in inputs]
    wrapped = [RaggedTensor(v, s, internal=True) for v, s in zip(inputs, outer)]
    return _traced_concat_rows(wrapped)


def _ragged_mask(data: Any, mask: Any) -> tuple:
    """(data, mask) with a dense `mask` of rank >= 2 made ragged as TF's boolean_mask does
    (a dense `data` too, partitioned like it)."""
    rank = mask.shape.rank
    if isinstance(data, RaggedTensor):
        return data, _from_tensor(mask, ragged_rank=min(data.ragged_rank, rank - 1),
                                  row_splits_dtype=data._row_splits.dtype)
    mask = _from_tensor(mask, ragged_rank=rank - 1)
    return _from_tensor(convert_to_tensor(data), ragged_rank=rank - 1), mask


def _traced_boolean_mask(data: Any, mask: Any) -> Any:
    """ragged.boolean_mask as the graph runs (and eagerly for masks of rank > 2), as TF's: a
    1-D mask picks rows; a ragged mask (a dense one of rank >= 2 made ragged) must share
    data's outer row partitions; the levels above its last ragged one keep their splits,
    that one counts what is kept."""
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask)
        if mask.dtype != _dtypes.bool:
            raise TypeError(f"mask must have dtype bool, got {mask.dtype!r}")
        if mask.shape.rank is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.rank == 0:
            raise ValueError("mask cannot be scalar.")
        if mask.shape.rank == 1:
            if isinstance(data, RaggedTensor):
                return _traced_gather(data, array_ops.reshape(index_ops.where(mask), [-1]))
            return index_ops.boolean_mask(data, mask)
        data, mask = _ragged_mask(data, mask)
    if not isinstance(data, RaggedTensor):
        data = _from_tensor(convert_to_tensor(data), ragged_rank=mask.ragged_rank,
                            row_splits_dtype=mask._row_splits.dtype)
    if data.ragged_rank < mask.ragged_rank:
        raise ValueError("The mask's ragged_rank must not exceed the data's")
    splits = []
    while isinstance(mask, RaggedTensor):
        checked = mask._row_splits if mask._row_splits is data._row_splits else bind(
            _same_splits, (mask._row_splits, data._row_splits),
            {"message": "Inputs must have identical ragged splits"})
        splits.append(checked if mask.shape.rank > 2 else
                      bind(_mask_splits, (checked, mask._values)))
        mask, data = mask._values, data._values
    return _rebuilt(_traced_boolean_mask(data, mask), splits)


def gather(op: Callable, params: Any, indices: Any, axis: Any = None,
           batch_dims: int = 0) -> RaggedTensor:
    """tf.gather of a RaggedTensor's rows (axis 0), as TF's RaggedGather: `indices` must be in
    [0, nrows), checked when the graph runs."""
    if axis not in (None, 0) or batch_dims != 0:
        raise NotImplementedError("tapeflow gathers the rows (axis 0) of a RaggedTensor only")
    ind = convert_to_tensor(indices)
    if ind.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"indices must be int32 or int64, got {ind.dtype!r}")
    if ind.shape.rank != 1:
        raise NotImplementedError("tapeflow gathers the rows of a RaggedTensor with 1-D "
                                  "indices only")
    return _traced_gather(params, ind)


def _traced_from_tensor(t: Tensor, lengths: Any, padding: Any,
                        splits_dtype: Any) -> RaggedTensor:
    """RaggedTensor.from_tensor (ragged_rank 1) of a tensor whose shape, lengths or values
    are known only when the graph runs."""
    inner = t.shape.as_list()[2:]
    if None in inner and padding is not None:   # TF's padding shape check while tracing
        raise ValueError(f"Shapes () and {tuple(inner)} are incompatible")
    given, mode = [], "uniform"
    if lengths is not None:
        given, mode = [convert_to_tensor(lengths)], "lengths"
        if given[0].shape.rank not in (None, 1):
            raise ValueError(f"Shape {given[0].shape} must have rank 1")
    elif padding is not None:
        pad = convert_to_tensor(padding, dtype=t.dtype)
        given, mode = [math_ops.equal(t, pad)], "padding"
    shape = array_ops.shape(t, out_type=_dtypes.int64)
    splits, items = bind(_dense_rows, [shape] + given,
                         {"mode": mode, "dtype": np.dtype(splits_dtype)})
    values = array_ops.gather(array_ops.reshape(t, _dims_after(t, shape, 2)), items)
    cols = t.shape[1]
    return RaggedTensor(values, splits, internal=True,
                        uniform_row_length=cols if mode == "uniform" else None)


def _traced_cast_splits(splits: Tensor, dtype: Any) -> Tensor:
    return math_ops.cast(splits, dtype)


# -- plans: NumPy functions of row partitions, run as the graph runs --------------------------
# A plan is `plan(*args, *arrays) -> tuple of arrays`: from row splits (and other integer
# inputs) it computes new row splits and the positions of the result's flat values among
# the old ones. The eager paths compute the same with NumPy as they are called; a trace binds
# the one primitive RaggedPlan, whose kernel runs the plan when the graph runs (and raises
# TF's run-time errors there), while the values move with a differentiable gather.

def _plan_kernel(*arrays: np.ndarray, plan: Callable, args: tuple, out: tuple) -> tuple:
    return tuple(plan(*args, *arrays))


def _plan_rule(*avals: ShapedArray, plan: Callable, args: tuple, out: tuple) -> tuple:
    return tuple(ShapedArray(shape, np.dtype(dtype)) for shape, dtype in out)


_plan_prim = Primitive("RaggedPlan", _plan_kernel, multiple_results=True, **_RAGGED_PRIMS,
                       shape_rule=_plan_rule)


def _planned(plan: Callable, inputs: list, out: list, *args: Any) -> list:
    """The outputs of `plan(*args, *arrays of inputs)` as the graph runs; `out` gives each
    output's static (shape, NumPy dtype)."""
    return list(bind(_plan_prim, list(inputs), {"plan": plan, "args": tuple(args),
                                               "out": tuple(out)}))


def _np_dtype(tensor: Any) -> np.dtype:
    return np.dtype(tensor.dtype.as_numpy_dtype)


def _split_outs(rt: RaggedTensor) -> list:
    """The static (shape, dtype) of row splits like `rt`'s, one per ragged dimension."""
    return [((None,), _np_dtype(s)) for s in rt.nested_row_splits]


_INDEX_OUT = ((None,), np.dtype(np.int64))


def _take_rows(nested: Any, rows: np.ndarray, index: Optional[np.ndarray] = None) -> tuple:
    """The rows `rows` of a tensor with row splits `nested` (outermost first) over flat rows
    `index` (None: the flat values themselves): the new row splits and flat index."""
    rows = np.asarray(rows, np.int64)
    new = []
    for splits in nested:
        s = splits.astype(np.int64)
        lengths = s[rows + 1] - s[rows]
        new.append(np.concatenate([[0], np.cumsum(lengths)]).astype(splits.dtype))
        rows = _ranges(s[rows], lengths)
    return new, rows if index is None else index[rows]


def _flat_index(index: Optional[np.ndarray], nested: Any) -> np.ndarray:
    return np.arange(int(nested[-1][-1]), dtype=np.int64) if index is None else index


def _tile_plan(rank: int, multiples: np.ndarray, *nested: np.ndarray) -> tuple:
    """tf.tile of a ragged tensor (row splits `nested`, `rank` dims) over its ragged_rank + 1
    leading axes: the new row splits and the flat index (inner axes tile separately)."""
    m = np.asarray(multiples).astype(np.int64).reshape(-1)
    if len(m) != rank:
        raise InvalidArgumentError(f"Expected multiples argument to be a vector of length "
                                   f"{rank} but got length {len(m)}")
    for i, k in enumerate(m.tolist()):
        if k < 0:
            raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {k}")

    def level(j: int) -> tuple:   # axis j + 1 tiled within each row, the axes below too
        if j == len(nested):
            return [], None
        inner, index = level(j + 1)
        s = nested[j].astype(np.int64)
        lengths, k = np.diff(s), int(m[j + 1])
        picked = _ranges(np.repeat(s[:-1], k), np.repeat(lengths, k))
        splits, index = _take_rows(inner, picked, index)
        return [np.concatenate([[0], np.cumsum(lengths * k)]).astype(nested[j].dtype)] + \
            splits, index

    splits, index = level(0)
    if m[0] != 1:
        splits, index = _take_rows(splits, np.tile(np.arange(len(nested[0]) - 1), m[0]),
                                   index)
    return (*splits, _flat_index(index, nested))


def _traced_tile(rt: RaggedTensor, multiples: Any) -> RaggedTensor:
    """tf.tile of a RaggedTensor whose partition (or `multiples`) is known as the graph
    runs."""
    rank, rr = rt.shape.rank, rt.ragged_rank
    if is_symbolic(multiples):
        m = convert_to_tensor(multiples)
        inner = array_ops.concat([convert_to_tensor([1], dtype=m.dtype), m[rr + 1:]], 0)
    else:
        static = concrete(multiples, "multiples").astype(np.int64).reshape(-1)
        if len(static) <= rr:   # as the eager op (TF's IndexError)
            raise IndexError(f"index {len(static)} is out of bounds for axis 0 with size "
                             f"{len(static)}")
        if len(static) != rank:
            raise ValueError(f"Expected multiples argument to be a vector of length {rank} "
                             f"but got length {len(static)}")
        for i, k in enumerate(static.tolist()):
            if k < 0:
                raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {k} "
                                           f"[Op:Tile]")
        m, inner = convert_to_tensor(static), [1] + static[rr + 1:].tolist()
    *splits, index = _planned(_tile_plan, [m, *_nested(rt)], _split_outs(rt) + [_INDEX_OUT],
                              rank)
    values = array_ops.gather(rt.flat_values, index)
    if rank > rr + 1:
        values = array_ops.tile(values, inner)
    return _rebuilt(values, splits)


def _merged_splits_plan(factor: np.ndarray, splits: np.ndarray, *inner: np.ndarray) -> tuple:
    """merge_dims' row splits: `splits` carried down the ragged levels `inner`, times the
    size `factor` of the dense axes merged below them."""
    s = splits.astype(np.int64)
    for level in inner:
        s = level.astype(np.int64)[s]
    return ((s * int(factor)).astype(splits.dtype),)


def _sparse_coords(coords: np.ndarray, inner: tuple) -> np.ndarray:
    """to_sparse's indices: each flat value's coordinates, then those of its `inner` dims."""
    if inner:
        grid = np.indices(inner).reshape(len(inner), -1).T
        coords = np.concatenate([np.repeat(coords, len(grid), axis=0),
                                 np.tile(grid, (len(coords), 1))], axis=1)
    return coords.astype(np.int64)


def _sparse_plan(*arrays: np.ndarray) -> tuple:
    """to_sparse's indices for row splits `arrays[:-1]` over flat values of shape
    `arrays[-1]`."""
    inner = tuple(int(d) for d in arrays[-1][1:])
    return (_sparse_coords(_coords_of(list(arrays[:-1])), inner),)


def _uniform_splits_plan(level: int, dtype: Any, shape: np.ndarray) -> tuple:
    """The row splits of the uniform axis `level` of a dense tensor of `shape`."""
    n = int(np.prod(shape[:level]))
    return (np.arange(n + 1, dtype=dtype) * shape[level],)


def _expand_plan(axis: int, splits: np.ndarray) -> tuple:
    """The row splits of a new axis of length 1 at `axis` (0 or 1) over rows `splits`."""
    n = len(splits) - 1
    return ((np.arange(n + 1) if axis == 1 else np.asarray([0, n])).astype(splits.dtype),)


def _traced_expand_dims(x: RaggedTensor, axis: int) -> RaggedTensor:
    n = x._static_nrows()
    (splits,) = _planned(_expand_plan, [x._row_splits],
                         [((None if axis == 1 else 2,), _np_dtype(x._row_splits))], axis)
    return RaggedTensor(x, splits, internal=True, uniform_row_length=1 if axis == 1 else n)


def _repeat_plan(size: np.ndarray, *nested: np.ndarray) -> tuple:
    """`size` copies of a ragged tensor under a new outer axis: its row splits (the new
    one first) and flat index."""
    n = len(nested[0]) - 1
    splits, index = _take_rows(nested, np.tile(np.arange(n), int(size)))
    outer = np.arange(int(size) + 1, dtype=nested[0].dtype) * n
    return (outer, *splits, index)


def _broadcast_plan(rr: int, inner_rank: int, uniforms: tuple, tshape: np.ndarray,
                    *nested: np.ndarray) -> tuple:
    """For each flat value of a ragged tensor (row splits `nested`, uniform row lengths
    `uniforms`), its element of a dense operand of shape `tshape` broadcast against it,
    among the dense operand's elements over the ragged_rank + 1 leading axes (TF's
    assertions where the shapes do not broadcast)."""
    dims = [1] * (rr + 1 + inner_rank - len(tshape)) + [int(d) for d in tshape]
    outer = dims[:rr + 1]
    nrows = len(nested[0]) - 1
    if outer[0] not in (1, nrows):
        raise _assertion(None, "x == y", 0, 1)
    broadcast, deep = nrows != 1 and outer[0] == 1, False
    for d, splits, uniform in zip(outer[1:], nested, uniforms):
        if d != 1:
            deep = deep or broadcast
            want = np.arange(len(splits), dtype=splits.dtype) * d
            if uniform is not None and uniform != d:
                raise _assertion(None, "x == y", 0, 1)
            if not np.array_equal(want, splits):
                raise _assertion(None, "x == y", want, splits)
        else:
            broadcast = broadcast or bool(np.any(np.diff(splits) != 1))
    size, nvals = int(np.prod(outer)), int(nested[-1][-1])
    if deep and size != 1:
        raise _assertion("Last row partition does not match flat_values.", "x == y", size,
                         nvals)
    strides = np.cumprod([1] + outer[:0:-1])[::-1]
    coords = _coords_of(list(nested))
    return ((coords * (np.asarray(outer) != 1) * strides).sum(axis=1).astype(np.int64),)


def _traced_dense_like(t: Tensor, rt: RaggedTensor) -> tuple:
    """`_dense_like` where the partition or the dense operand's shape is known as the graph
    runs."""
    rank, inner_rank = t.shape.rank, rt.flat_values.shape.rank - 1
    shape = array_ops.shape(t, out_type=_dtypes.int64)
    for axis in reversed(range(max(rank - rt.shape.rank, 0))):   # new outer axes: copies
        n, size = rt._static_nrows(), t.shape[axis]
        outer_out = ((None if size is None else size + 1,), _np_dtype(rt._row_splits))
        outer, *splits, index = _planned(_repeat_plan, [shape[axis], *_nested(rt)],
                                         [outer_out] + _split_outs(rt) + [_INDEX_OUT])
        inner = _rebuilt(array_ops.gather(rt.flat_values, index), splits)
        rt = RaggedTensor(inner, outer, internal=True, uniform_row_length=n)
    uniforms, level = [], rt
    while isinstance(level, RaggedTensor):
        uniforms.append(level._uniform)
        level = level._values
    (index,) = _planned(_broadcast_plan, [shape, *_nested(rt)], [_INDEX_OUT],
                        rt.ragged_rank, inner_rank, tuple(uniforms))
    target = _dims_after(t, shape, rank - inner_rank)
    return rt, array_ops.gather(array_ops.reshape(t, target), index)


def _dims_after(t: Tensor, shape: Tensor, axis: int) -> Any:
    """A reshape target for `t` merging its axes before `axis` into one: -1, then its
    dims from `axis` on (static where tracing knows them, else read from `shape`)."""
    dims = t.shape.as_list()[axis:]
    if None not in dims:
        return [-1] + dims
    return array_ops.stack([convert_to_tensor(-1, dtype=_dtypes.int64)] + [
        shape[axis + i] if d is None else convert_to_tensor(d, dtype=_dtypes.int64)
        for i, d in enumerate(dims)])


def _traced_from_tensor_nested(t: Tensor, lengths: Any, padding: Any, ragged_rank: int,
                               splits_dtype: Any) -> RaggedTensor:
    """RaggedTensor.from_tensor with ragged_rank > 1 as the graph runs: the leading
    `ragged_rank` axes merged, cut into rows, then the outer axes as uniform partitions."""
    dims = t.shape.as_list()
    shape = array_ops.shape(t, out_type=_dtypes.int64)
    result = _traced_from_tensor(array_ops.reshape(t, _dims_after(t, shape, ragged_rank)),
                                 lengths, padding, splits_dtype)
    for level in range(ragged_rank - 1, 0, -1):
        (splits,) = _planned(_uniform_splits_plan, [shape], [((None,), np.dtype(splits_dtype))],
                             level, np.dtype(splits_dtype))
        result = RaggedTensor(result, splits, internal=True, uniform_row_length=dims[level])
    return result


def _traced_merge_rows(x: RaggedTensor, inner: int) -> RaggedTensor:
    """merge_dims(1, inner) of a RaggedTensor as the graph runs: each row's items through
    axis `inner` become one row."""
    levels, level, depth = [], x._values, inner - 1
    while depth and isinstance(level, RaggedTensor):
        levels.append(level._row_splits)
        level, depth = level._values, depth - 1
    dense = level.shape.as_list()[1:1 + depth]
    factor = convert_to_tensor(int(np.prod(dense)), _dtypes.int64) if None not in dense else \
        reduce_ops.reduce_prod(array_ops.shape(level, out_type=_dtypes.int64)[1:1 + depth])
    (splits,) = _planned(_merged_splits_plan, [factor, x._row_splits, *levels],
                         [((None,), _np_dtype(x._row_splits))])
    return RaggedTensor(_merge(x._values, 0, inner - 1), splits, internal=True)


def _cross_plan(kinds: tuple, hashed: bool, num_buckets: int, hash_key: Any,
                *arrays: np.ndarray) -> tuple:
    """tf.ragged.cross(_hashed) of inputs given as arrays (`kinds`: "ragged" takes flat
    values and row splits, "sparse" values, indices and dense shape, "dense" one array):
    the result's row splits and values."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    inputs, i = [], 0
    for kind in kinds:
        if kind == "ragged":
            inputs.append(RaggedTensor(wrap(arrays[i]), wrap(arrays[i + 1]), internal=True))
        elif kind == "sparse":   # values, indices, dense shape
            values, indices, shape = (wrap(a) for a in arrays[i:i + 3])
            inputs.append(SparseTensor(indices, values, shape))
        else:
            inputs.append(wrap(arrays[i]))
        i += {"ragged": 2, "sparse": 3}.get(kind, 1)
    rows = crossed(cross_rows(inputs, "tf.ragged.cross"), hashed, num_buckets, hash_key)
    rt = _crossed_ragged(rows, _dtypes.int64 if hashed else _dtypes.string)
    return rt._row_splits._value, rt.flat_values._value


def _traced_cross(inputs: list, hashed: bool, num_buckets: int, hash_key: Any) -> RaggedTensor:
    """tf.ragged.cross(_hashed) of inputs known as the graph runs."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    kinds, parts = [], []
    for i, value in enumerate(inputs):
        if isinstance(value, RaggedTensor):
            if value.shape.rank != 2:
                raise ValueError("tf.ragged.cross only supports inputs with rank=2")
            kinds.append("ragged")
            features = [value.flat_values, value._row_splits]
        elif isinstance(value, SparseTensor):
            kinds.append("sparse")
            features = [value.values, value.indices, value.dense_shape]
        else:
            value = convert_to_tensor(value)
            if value.shape.rank not in (None, 2):
                raise InvalidArgumentError("tf.ragged.cross only supports inputs with rank=2.")
            kinds.append("dense")
            features = [value]
        if features[0].dtype not in (_dtypes.string, _dtypes.int32, _dtypes.int64):
            raise ValueError(f"Unexpected dtype for inputs[{i}]: {features[0].dtype!r}")
        parts += features
    dtype = np.dtype(np.int64) if hashed else np.dtype(object)
    splits, values = _planned(_cross_plan, parts, [_INDEX_OUT, ((None,), dtype)],
                              tuple(kinds), hashed, int(num_buckets), hash_key)
    return RaggedTensor(values, splits, internal=True)


def _offsets_plan(splits: np.ndarray) -> tuple:
    """The position of each value within its row, for rows `splits`."""
    starts = np.repeat(splits[:-1], np.diff(splits))
    return (np.arange(splits[-1], dtype=splits.dtype) - starts,)


def _traced_offsets(splits: Tensor) -> Tensor:
    return _planned(_offsets_plan, [splits], [((None,), _np_dtype(splits))])[0]


def _shape_equal_plan(negate: bool, *arrays: np.ndarray) -> tuple:
    """DynamicRaggedShape `==` over pairs of components (`arrays`: x0, y0, x1, y1, ...), as
    TF's reduce_all of each pair's Equal: a pair of different lengths fails to reduce."""
    pairs = list(zip(arrays[::2], arrays[1::2]))
    if any(x.shape != y.shape for x, y in pairs):
        raise InvalidArgumentError("Invalid reduction dimension (0 for input with 0 "
                                   "dimension(s)")
    same = all(np.array_equal(x, y) for x, y in pairs)
    return (np.asarray(same != negate),)


def _traced_shape_equal(pairs: list, negate: bool) -> Tensor:
    arrays = [convert_to_tensor(v) for pair in pairs for v in pair]
    return _planned(_shape_equal_plan, arrays, [((), np.dtype(bool))], negate)[0]


def _install_traced() -> None:
    """Registers the traced versions of RaggedTensor's methods and factories."""
    for name, handler in {"from_row_splits": _traced_from_row_splits,
                          "from_row_lengths": _traced_from_row_lengths,
                          "from_value_rowids": _traced_from_value_rowids,
                          "from_row_starts": _traced_from_row_starts,
                          "from_row_limits": _traced_from_row_limits,
                          "nrows": _traced_nrows, "row_lengths": _traced_row_lengths,
                          "value_rowids": _traced_value_rowids,
                          "bounding_shape": _traced_bounding_shape,
                          "cast": _traced_cast_splits,
                          "from_uniform_row_length": _traced_from_uniform_row_length,
                          "shape": lambda x, dtype: array_ops.shape(x, out_type=dtype),
                          "stack_dims": lambda dims, dtype: array_ops.stack(
                              [math_ops.cast(d, dtype) for d in dims]),
                          "offsets_in_rows": _traced_offsets,
                          "shape_equal": _traced_shape_equal,
                          "broadcast_to": broadcast_to_ragged_shape}.items():
        register_traced(name, handler)


# -- methods and operators -----------------------------------------------------------------------

def _binary_method(op: Callable, reflected: bool = False) -> Callable:
    if reflected:
        return lambda self, other: elementwise_binary(op, other, self)
    return lambda self, other: elementwise_binary(op, self, other)


def _install() -> None:
    """Attaches the methods that need ops to RaggedTensor."""
    R = RaggedTensor
    R.from_tensor = classmethod(lambda cls, tensor, lengths=None, padding=None, ragged_rank=1,
                                name=None, row_splits_dtype=_dtypes.int64: _from_tensor(
                                    tensor, lengths, padding, ragged_rank, name,
                                    row_splits_dtype))
    R.from_tensor.__func__.__doc__ = _from_tensor.__doc__
    R.to_tensor = _to_tensor
    R.merge_dims = _merge_dims
    R.to_sparse = _to_sparse
    R.from_sparse = classmethod(_from_sparse)
    R.__getitem__ = _getitem
    R._slice_rows = _slice_rows
    pairs = {"add": math_ops.add, "sub": math_ops.subtract, "mul": math_ops.multiply,
             "truediv": math_ops.divide, "floordiv": math_ops.floordiv,
             "mod": math_ops.floormod, "pow": math_ops.pow,
             "and": math_ops.logical_and, "or": math_ops.logical_or,
             "xor": math_ops.logical_xor}
    for name, op in pairs.items():
        setattr(R, f"__{name}__", _binary_method(op))
        setattr(R, f"__r{name}__", _binary_method(op, reflected=True))
    for name, op in {"lt": math_ops.less, "le": math_ops.less_equal,
                     "gt": math_ops.greater, "ge": math_ops.greater_equal}.items():
        setattr(R, f"__{name}__", _binary_method(op))
    R.__neg__ = lambda self: elementwise_unary(math_ops.negative, self)
    R.__abs__ = lambda self: elementwise_unary(math_ops.abs, self)
    R.__invert__ = lambda self: elementwise_unary(math_ops.logical_not, self)
    register_fallback("unary", elementwise_unary)
    register_fallback("binary", elementwise_binary)
    register_fallback("reduce", reduce)
    register_fallback("concat", concat)
    register_fallback("stack", stack)
    register_fallback("reverse", reverse)
    register_fallback("tile", tile)
    register_fallback("join", strings_join)
    register_fallback("gather", gather)
    register_fallback("expand_dims", expand_dims)
    _install_traced()


_install()

__all__ = ["constant", "map_flat_values", "ragged_range", "ragged_stack", "boolean_mask",
           "elementwise_binary", "elementwise_unary", "reduce", "concat", "stack"]
