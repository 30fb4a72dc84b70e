"""Index-driven ops: gather_nd, scatter_nd, tensor_scatter_nd_update/add, boolean_mask, the
segment reductions and searchsorted, with their rules.

GatherNd and ScatterNd are each other's adjoints, so most rules here are one of the two.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import AbstractArray, ShapedArray, has_static_shape, same_as_input
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.convert import cpp_name, enum_name, mismatch_error
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops._static import (ensure_shape_prim, is_traced, read_at_run_time,
                                  reads_static, static_value)
from tapeflow.ops.array_ops import (_shape_tuple, _traced_dims, concat, reshape, stack,
                                    transpose)
from tapeflow.ops.array_ops import gather as _gather_op, shape as _shape_of, slice as _slice_op
from tapeflow.ops.math_ops import (_where_indices, cast, equal, greater, greater_equal,
                                   logical_and, maximum, minimum, ones_like, where, zeros_like)


def linear_jvp(prim: Primitive):
    """The forward rule of an op that is linear in its float inputs (integer inputs are
    indices): the op itself applied to the tangents, zeros standing in for missing ones."""
    def rule(tangents: list, ans: Any, *inputs: Tensor, **attrs: Any) -> Tensor:
        args = tuple(x if x._value.dtype.kind not in "fc" else
                     (zeros_like(x) if t is None else t) for t, x in zip(tangents, inputs))
        return bind(prim, args, attrs)
    return rule


def _int_tensor(indices: Any, op_name: str,
                allowed: tuple = ("int16", "int32", "int64")) -> Tensor:
    """Index operands as TF's kernels take them (`allowed`: their Tindices dtypes)."""
    t = convert_to_tensor(indices)
    if t.dtype.name not in allowed:
        raise InvalidArgumentError(f"Value for attr 'Tindices' of {cpp_name(t.dtype)} is not in "
                                   f"the list of allowed values: {', '.join(allowed)} "
                                   f"[Op:{op_name}]")
    return t


def _check_nd_indices(indices: np.ndarray, shape: tuple, op_name: str, what: str) -> None:
    """TensorFlow's bounds check: every index row must address `shape` (no negatives)."""
    depth = indices.shape[-1]
    if depth > len(shape):
        raise InvalidArgumentError(f"index innermost dimension length must be <= params rank; "
                                   f"saw: {depth} vs. {len(shape)} [Op:{op_name}]")
    if not indices.size:  # no rows (or rows of depth 0): nothing to check
        return
    rows = indices.reshape(-1, depth)
    bad = np.nonzero(np.any((rows < 0) | (rows >= np.array(shape[:depth], np.int64)), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        row = ", ".join(str(int(v)) for v in rows[i])
        node = ", node name: GatherNd" if op_name == "GatherNd" else ""
        raise InvalidArgumentError(f"indices[{i}] = [{row}] does not index into {what} "
                                   f"{dims_text(shape)}{node} [Op:{op_name}]")


# -- ensure_shape, and the guard of ops whose output shape depends on values ---------------------

@tf_export("ensure_shape")
def ensure_shape(x: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """`x` itself, after checking that its shape is compatible with `shape` (None dims match
    anything); raises InvalidArgumentError otherwise, also when a traced graph runs."""
    x = convert_to_tensor(x)
    dims = tuple(None if d is None else int(d) for d in (
        shape.as_list() if hasattr(shape, "as_list") else shape))
    try:
        return bind(ensure_shape_prim, (x,), {"shape": dims, "note": ""})
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{exc.message} [Op:EnsureShape] name: ") from None


def _coords(indices: np.ndarray) -> tuple:
    return tuple(np.moveaxis(indices, -1, 0))


# -- checks that a traced graph runs where its trace cannot ---------------------------------------
#
# Eagerly (and where a trace knows the shapes) an op wrapper checks its operands before it binds
# the op. Where the shapes or values are known only when the graph runs, the wrapper binds
# RuntimeCheck instead: `x` passed through after `check(x, *operands, **params)` (one of
# _RUN_CHECKS) has raised TF's error, if any, on the real arrays. No TensorFlow op has this name:
# TF's kernels check their inputs as they run, tapeflow's wrappers check them before.

_RUN_CHECKS: dict = {}


def _run_check_kernel(x: np.ndarray, *operands: np.ndarray, check: str, **params: Any
                      ) -> np.ndarray:
    _RUN_CHECKS[check](x, *operands, **params)
    return x


_run_check = Primitive("RuntimeCheck", _run_check_kernel, shape_rule=same_as_input).defvjp(
    lambda g, ans, x, *operands, **attrs: (g,) + (None,) * len(operands))
_run_check.defjvp(lambda tangents, ans, x, *operands, **attrs: tangents[0])


def checked(x: Tensor, operands: tuple, check: str, **params: Any) -> Tensor:
    """`x`, after the run-time check `check` of `x` and `operands` (see _RUN_CHECKS)."""
    return bind(_run_check, (x,) + tuple(operands), dict(params, check=check))


def _known(value: Any) -> bool:
    """Whether a tensor's value is known now (eagerly, or a trace's example)."""
    return type(value) is not AbstractArray


def _expand_trailing(t: Tensor, count: int) -> Tensor:
    """`t` with `count` axes of size 1 appended (shapes known now or only at run time)."""
    if has_static_shape(t._value):
        return reshape(t, t._value.shape + (1,) * count) if count else t
    return t[(Ellipsis,) + (None,) * count] if count else t


# -- shape rules ---------------------------------------------------------------------------------

def _match_dims(a: tuple, b: tuple, what: str, op_name: str) -> None:
    """ValueError, as TF's shape functions, where dims `a` and `b` (of one rank) hold two
    known dims that differ; `what` says which dims of which inputs."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"{what}: Dimension {i} in both shapes must be equal, but are {x} "
                             f"and {y}. Shapes are {dims_text(a)} and {dims_text(b)}. for "
                             f"'{{{{node {op_name}}}}}'")


def _gather_nd_rule(params: ShapedArray, indices: ShapedArray, rows: bool = False) -> ShapedArray:
    # indices.shape[:-1] + params.shape[depth:]; unknown rank without the depth or params rank.
    if params.shape is None or not indices.shape or indices.shape[-1] is None:
        return ShapedArray(None, params.dtype)
    depth = indices.shape[-1]
    if depth > len(params.shape):
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{dims_text(indices.shape)} and params shape: "
                         f"{dims_text(params.shape)} for '{{{{node GatherNd}}}}'")
    return ShapedArray(indices.shape[:-1] + params.shape[depth:], params.dtype)


def _check_scatter_shapes(indices: ShapedArray, updates: ShapedArray, shape: Any,
                          op_name: str) -> None:
    """TF's ScatterNdShapeHelper: updates.shape = indices.shape[:-1] + shape[depth:], where
    the ranks and the depth are known (1-D indices: see _check_updates)."""
    if indices.shape is None or updates.shape is None or shape is None or \
            not indices.shape or indices.shape[-1] is None:
        return
    outer = len(indices.shape) - 1
    inner = tuple(shape)[indices.shape[-1]:]
    if outer + len(inner) != len(updates.shape):
        return  # TF's kernel decides (1-D indices, rank errors)
    _match_dims(indices.shape[:-1], updates.shape[:outer],
                f"Dimensions [0,{outer}) of indices[shape={dims_text(indices.shape)}] must "
                f"match dimensions [0,{outer}) of updates[shape={dims_text(updates.shape)}]",
                op_name)
    _match_dims(inner, updates.shape[outer:],
                f"Dimensions [{indices.shape[-1]},{len(shape)}) of input[shape="
                f"{dims_text(shape)}] must match dimensions [{outer},{len(updates.shape)}) of "
                f"updates[shape={dims_text(updates.shape)}]", op_name)


def _scatter_nd_rule(indices: ShapedArray, updates: ShapedArray, *shape_input: ShapedArray,
                     shape: Optional[tuple]) -> ShapedArray:
    if shape is None:  # given as a 1-D tensor: its length is the rank
        dims = shape_input[0].shape
        rank = None if dims is None or len(dims) != 1 or dims[0] is None else dims[0]
        return ShapedArray(None if rank is None else (None,) * rank, updates.dtype)
    # `shape` (None where a traced shape's value decides) or the static shape
    _check_scatter_shapes(indices, updates, shape, "ScatterNd")
    return ShapedArray(shape, updates.dtype)


def _tensor_scatter_rule(op_name: str):
    def rule(tensor: ShapedArray, indices: ShapedArray, updates: ShapedArray) -> ShapedArray:
        _check_scatter_shapes(indices, updates, tensor.shape, op_name)
        return ShapedArray(tensor.shape, tensor.dtype)
    return rule


def _segment_rule(op_name: str):
    # [num_segments] + data.shape[ids.rank:]; num_segments None when only known at run time.
    def rule(data: ShapedArray, ids: ShapedArray, *count: ShapedArray,
             num_segments: Optional[int], sorted_ids: bool = False) -> ShapedArray:
        if data.shape is None or ids.shape is None:
            return ShapedArray(None, data.dtype)
        lead = data.shape[:len(ids.shape)]
        if len(lead) == len(ids.shape):
            for d, i in zip(lead, ids.shape):
                if d is not None and i is not None and d != i:
                    raise ValueError(f"Dimensions must be equal, but are {d} and {i} for "
                                     f"'{{{{node {op_name}}}}}' with input shapes: "
                                     f"{dims_text(data.shape)}, {dims_text(ids.shape)}, [].")
        return ShapedArray((num_segments,) + data.shape[len(ids.shape):], data.dtype)
    return rule


def _lower_bound_rule(sorted_sequence: ShapedArray, values: ShapedArray, side: str,
                      dtype: np.dtype) -> ShapedArray:
    return ShapedArray(values.shape, dtype)   # as TF's shape function: no check of the rows


def _bincount_rule(arr: ShapedArray, weights: ShapedArray, *size_input: ShapedArray,
                   size: Optional[int], binary_output: bool, dtype: Any) -> ShapedArray:
    if arr.shape is None:
        return ShapedArray(None, dtype)
    return ShapedArray((arr.shape[0], size) if len(arr.shape) == 2 else (size,), dtype)


def _histogram_rule(values: ShapedArray, value_range: ShapedArray, *nbins_input: ShapedArray,
                    nbins: Optional[int], dtype: np.dtype) -> ShapedArray:
    return ShapedArray((None if nbins_input else nbins,), dtype)


# -- gather_nd / scatter_nd ----------------------------------------------------------------------

# The kernels check the index bounds themselves: a traced graph runs them on indices its
# trace never saw (negative ones would otherwise wrap around silently).

def _check_gather_nd(params: np.ndarray, indices: np.ndarray) -> None:
    """gather_nd's checks of its operands' shapes, in TF's order (the kernel checks bounds)."""
    if indices.ndim == 0:   # reached when the rank was known only as the graph ran
        raise InvalidArgumentError("indices must be at least a vector [Op:GatherNd]")
    if params.ndim == 0:
        raise InvalidArgumentError("params must be at least a vector [Op:GatherNd]")
    _check_depth(indices, 0, "GatherNd")
    if not params.size and np.prod(indices.shape[:-1]):
        raise InvalidArgumentError(
            f"Requested more than 0 entries, but params is empty.  Params shape: "
            f"{dims_text(params.shape)} [Op:GatherNd]")


def _gather_nd_kernel(params: np.ndarray, indices: np.ndarray, rows: bool = False) -> np.ndarray:
    _check_nd_indices(indices, params.shape, "GatherNd", "param shape")
    if not indices.shape[-1]:  # empty index rows address the whole of params
        return np.broadcast_to(params, indices.shape[:-1] + params.shape).copy()
    return params[_coords(indices)]


def _scatter_kernel(indices: np.ndarray, updates: np.ndarray, *shape_input: np.ndarray,
                    shape: Optional[tuple]) -> np.ndarray:
    if shape_input:  # the shape is an input: a tensor known when the graph runs
        shape = tuple(int(d) for d in shape_input[0])
    _check_nd_indices(indices, shape, "ScatterNd", "shape")
    if not indices.shape[-1]:  # the gradient of a gather by empty rows: every row adds up
        rows = int(np.prod(indices.shape[:-1]))
        return updates.reshape((rows,) + tuple(shape)).sum(0).astype(updates.dtype)
    # Strings start empty (duplicates concatenate, as TF's ScatterNd adds them).
    out = np.full(shape, b"", object) if updates.dtype == object else \
        np.zeros(shape, updates.dtype)
    np.add.at(out, _coords(indices), updates)
    return out


# The gradient of a gather binds ScatterNd itself: TF's ScatterNd refuses 1-D indices (see
# _check_updates), which would leave gathers by 1-D indices without a gradient.
# `rows`: tf.gather_nd by a matrix of single indices (whole rows of params), whose gradient is
# IndexedSlices as TF's _GatherNdGrad (dense_shape in the indices' dtype). The gathers inside
# other ops' rules and helpers keep a dense one (TF's own helpers differ there).
def _gather_nd_vjp(g: Tensor, ans: Tensor, params: Tensor, indices: Tensor,
                   rows: bool = False) -> tuple:
    if rows:
        return IndexedSlices(g, reshape(indices, [-1]),
                             _shape_of(params, out_type=indices.dtype)), None
    if has_static_shape(params._value):
        return bind(_scatter_nd, (indices, g), {"shape": params._value.shape}), None
    # params' shape is known only when the graph runs: ScatterNd takes it as an input.
    return bind(_scatter_nd, (indices, g, _shape_of(params, out_type=_dtypes.int64)),
                {"shape": None}), None


_gather_nd = Primitive("GatherNd", _gather_nd_kernel,
                       shape_rule=_gather_nd_rule).defvjp(_gather_nd_vjp)
_scatter_nd = Primitive("ScatterNd", _scatter_kernel, shape_rule=_scatter_nd_rule).defvjp(
    lambda g, ans, indices, updates, *shape_input, shape: (None, _gather_rows(g, indices)))


def _gather_rows(params: Tensor, indices: Tensor) -> Tensor:
    # GatherNd without the wrapper's checks, for rules and helpers (whose empty params with
    # index rows are fine: TF's own helpers use GatherV2 there).
    return bind(_gather_nd, (params, indices))


@tf_export("gather_nd")
def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: Optional[str] = None) -> Tensor:
    """Slices of `params` addressed by the last axis of `indices`: the result has shape
    `indices.shape[:-1] + params.shape[indices.shape[-1]:]`. With `batch_dims`, the leading
    axes of both are matched one to one."""
    params = convert_to_tensor(params)
    indices = _int_tensor(indices, "GatherNd")
    if batch_dims:
        return _batched_gather_nd(params, indices, int(batch_dims))
    # Static shapes: None where a rank is known only when the graph runs (checked then).
    if indices._value.shape == ():
        raise InvalidArgumentError("indices must be at least a vector [Op:GatherNd]")
    if params._value.shape == ():
        raise InvalidArgumentError("params must be at least a vector [Op:GatherNd]")
    if has_static_shape(params._value) and has_static_shape(indices._value):
        _check_gather_nd(params._value, indices._value)
    else:  # shapes known only when the graph runs
        params = checked(params, (indices,), "gather_nd")
    dims = indices._value.shape
    rows = dims is not None and len(dims) == 2 and dims[-1] == 1
    # The kernel checks the bounds.
    return bind(_gather_nd, (params, indices), {"rows": True} if rows else {})


def _check_depth(indices: np.ndarray, low: int, op_name: str) -> None:
    """TF's kernels take index rows of `low` to 7 elements (the scatters' message says 5)."""
    depth = indices.shape[-1]
    if not low <= depth <= 7:
        said = 7 if op_name == "GatherNd" else 5
        raise InvalidArgumentError(f"Only indices.shape[-1] values between 1 and {said} are "
                                   f"currently supported.  Requested rank: {depth} "
                                   f"[Op:{op_name}]")


def _batched_gather_nd(params: Tensor, indices: Tensor, batch_dims: int) -> Tensor:
    # Prefix each index row with its batch coordinates, then gather without batch axes.
    idx = indices._value
    if not has_static_shape(idx):
        return gather_nd(params, concat([_batch_coords(indices, batch_dims), indices], axis=-1))
    batch_shape = idx.shape[:batch_dims]
    grids = np.meshgrid(*[np.arange(d) for d in batch_shape], indexing="ij")
    prefix = np.stack([np.broadcast_to(
        grid.reshape(grid.shape + (1,) * (idx.ndim - 1 - batch_dims)), idx.shape[:-1])
        for grid in grids], axis=-1).astype(idx.dtype)
    # The prefix depends on shapes only; the index values stay a tensor (read at run time).
    return gather_nd(params, concat([wrap(prefix), indices], axis=-1))


def _batch_coords(indices: Tensor, batch_dims: int) -> Tensor:
    """[..., batch_dims]: each index row's coordinates in the batch axes, from the run-time
    shape of `indices` (rank known)."""
    from tapeflow.ops.array_ops import range as range_
    rank = indices._value.ndim
    sizes = _shape_of(indices, out_type=_dtypes.int64)
    rows = zeros_like(cast(indices[..., :1], _dtypes.int64))   # [..., 1]
    grids = [rows + _along(range_(sizes[b]), b, rank) for b in range(batch_dims)]
    return cast(concat(grids, axis=-1), indices.dtype)


@tf_export("scatter_nd")
@reads_static
def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """A zero tensor of `shape` with `updates` added at `indices` (duplicates add up)."""
    indices = _int_tensor(indices, "ScatterNd")
    updates = convert_to_tensor(updates)
    if indices.dtype == _dtypes.int16:
        raise _no_scatter_kernel("ScatterNd", updates.dtype, indices.dtype)
    traced = _traced_dims(shape) if read_at_run_time(shape) else None
    if traced is not None:  # a run-time input, as in TF: the graph reads it when it runs
        pattern, dims = traced
        updates = checked(updates, (indices, dims), "scatter_nd")
        return bind(_scatter_nd, (indices, updates, cast(dims, _dtypes.int64)),
                    {"shape": pattern})
    shape = static_value(shape, "ScatterNd: shape", _shape_dims)
    if _known(indices._value) and has_static_shape(updates._value):
        _check_scatter_nd(updates._value, indices._value, shape)
    else:
        updates = checked(updates, (indices, np.asarray(shape, np.int64)), "scatter_nd")
    if type(shape) is not tuple:
        shape = tuple(int(d) for d in shape.reshape(-1))
    return bind(_scatter_nd, (indices, updates), {"shape": shape})


def _shape_dims(shape: Any) -> Any:
    """A static shape argument as a tuple of ints; a nested list as an int64 array (TF's
    kernel refuses it after its other checks)."""
    if isinstance(shape, (list, tuple)) and any(isinstance(d, (list, tuple)) for d in shape):
        return np.asarray(shape, np.int64)
    return _shape_tuple(shape)


def _check_scatter_nd(updates: np.ndarray, indices: np.ndarray, shape: Any) -> None:
    """TF's ScatterNd kernel's checks, in its order (also run when a traced graph runs)."""
    for what, dims in (("Indices", indices.shape), ("Updates", updates.shape)):
        if not len(dims):
            raise InvalidArgumentError(f"{what} shape must have rank at least one. Found:[] "
                                       f"[Op:ScatterNd]")
    dims = shape if type(shape) is tuple else tuple(int(d) for d in np.reshape(shape, -1))
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:ScatterNd]")
    if (indices.size or updates.size) and not (len(dims) and indices.size and updates.size):
        raise InvalidArgumentError("Indices and updates specified for empty output shape "
                                   "[Op:ScatterNd]")
    outer, depth = indices.ndim - 1, indices.shape[-1]
    if updates.ndim < outer or updates.shape[:outer] != indices.shape[:outer]:
        raise InvalidArgumentError(
            f"Dimensions [0,{outer}) of indices[shape={dims_text(indices.shape)}] must match "
            f"dimensions [0,{outer}) of updates[shape={dims_text(updates.shape)}] "
            f"[Op:ScatterNd]")
    if updates.shape[outer:] != dims[depth:] or depth > len(dims):
        raise InvalidArgumentError(
            f"Dimensions [{depth},{len(dims)}) of input[shape={dims_text(dims)}] must match "
            f"dimensions [{outer},{updates.ndim}) of updates[shape={dims_text(updates.shape)}]"
            f" [Op:ScatterNd]")
    if type(shape) is not tuple and np.ndim(shape) != 1:   # (TF reads its values first)
        raise InvalidArgumentError("Shape must be a vector [Op:ScatterNd]")
    _check_depth(indices, 1, "ScatterNd")
    if indices.ndim == 1:   # refused by TF's next checks
        _check_updates(indices, updates.shape, dims, "ScatterNd")
    if indices.size and not np.prod(dims):
        raise InvalidArgumentError(f"Indices and updates specified for empty output.  indices "
                                   f"shape: {dims_text(indices.shape)} [Op:ScatterNd]")
    _check_nd_indices(indices, dims, "ScatterNd", "shape")


def _check_scatter(indices: np.ndarray, updates_shape: tuple, shape: tuple,
                   op_name: str) -> None:
    """TensorFlow's checks of a scatter's operands, in its order: ranks, empty output, then
    `updates.shape == indices.shape[:-1] + shape[indices.shape[-1]:]`, then the bounds."""
    for what, dims in (("Indices", indices.shape), ("Updates", updates_shape)):
        if not len(dims):
            raise InvalidArgumentError(f"{what} shape must have rank at least one. Found:[] "
                                       f"[Op:{op_name}]")
    n_updates = int(np.prod(updates_shape))
    if (indices.size or n_updates) and not (np.prod(shape) and indices.size and n_updates):
        raise InvalidArgumentError(f"Indices and updates specified for empty output shape "
                                   f"[Op:{op_name}]")
    _check_depth(indices, 1, op_name)
    _check_updates(indices, updates_shape, shape, op_name)
    _check_nd_indices(indices, shape, op_name, "shape")


def _check_updates(indices: np.ndarray, updates_shape: tuple, shape: tuple, op_name: str) -> None:
    expected = indices.shape[:-1] + tuple(shape[indices.shape[-1]:])
    if tuple(updates_shape) != expected:
        raise InvalidArgumentError(
            f"Dimensions [0,{indices.ndim - 1}) of indices[shape={dims_text(indices.shape)}] = "
            f"{dims_text(indices.shape[:-1])} must match dimensions [0,{indices.ndim - 1}) of "
            f"updates[shape={dims_text(updates_shape)}] [Op:{op_name}]"
            if tuple(updates_shape[:indices.ndim - 1]) != indices.shape[:-1] else
            f"Must have updates.shape = indices.shape[:batch_dim] + params_shape[slice_dim:], "
            f"got updates.shape: {dims_text(updates_shape)}, indices.shape: "
            f"{dims_text(indices.shape)}, params_shape: {dims_text(shape)} [Op:{op_name}]")
    if indices.ndim == 1:
        # TF's kernels also read 1-D indices as a batch of one-element index rows, which
        # contradicts the rule above unless both are empty: any such call fails in TF.
        n = indices.shape[0]
        if updates_shape[0] != n:
            raise InvalidArgumentError(
                f"Dimensions [0,1) of indices[shape=[{n}]] = {n} must match dimensions [0,1) "
                f"of updates[shape={dims_text(updates_shape)}] = {updates_shape[0]} "
                f"[Op:{op_name}]")
        if tuple(updates_shape[1:]) != tuple(shape[1:]):
            raise InvalidArgumentError(
                f"Inner dimensions of output shape must match inner dimensions of updates "
                f"shape. Output: {dims_text(shape)} updates: {dims_text(updates_shape)} "
                f"[Op:{op_name}]")


def _update_kernel(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    _check_nd_indices(indices, tensor.shape, "TensorScatterUpdate", "shape")
    out = tensor.copy()
    out[_coords(indices)] = updates
    return out


def _add_kernel(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    _check_nd_indices(indices, tensor.shape, "TensorScatterAdd", "shape")
    out = tensor.copy()
    np.add.at(out, _coords(indices), updates)
    return out


_scatter_update = Primitive("TensorScatterUpdate", _update_kernel,
                            shape_rule=_tensor_scatter_rule("TensorScatterUpdate")).defvjp(
    lambda g, ans, tensor, indices, updates: (
        tensor_scatter_nd_update(g, indices, zeros_like(updates)), None,
        _gather_rows(g, indices)))
_scatter_add = Primitive("TensorScatterAdd", _add_kernel,
                         shape_rule=_tensor_scatter_rule("TensorScatterAdd")).defvjp(
    lambda g, ans, tensor, indices, updates: (g, None, _gather_rows(g, indices)))


def _ufunc_at_kernel(ufunc: Any, op_name: str):
    def kernel(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
        _check_nd_indices(indices, tensor.shape, op_name, "shape")
        out = tensor.copy()
        ufunc.at(out, _coords(indices), updates)
        return out
    return kernel


def _scatter_extremum_vjp(g: Tensor, ans: Tensor, tensor: Tensor, indices: Tensor,
                          updates: Tensor) -> tuple:
    # TF's _TensorScatterMinOrMaxGrad: the cotangent is shared equally by the tensor's
    # element and the updates that tie for the result.
    x_hits = cast(equal(tensor, ans), g.dtype)
    y_hits = cast(equal(updates, _gather_rows(ans, indices)), g.dtype)
    shape = _shape_of(tensor, out_type=indices.dtype)
    hits = x_hits + scatter_nd(indices, y_hits, shape)
    return g * x_hits / hits, None, _gather_rows(g / hits, indices) * y_hits


_scatter_sub = Primitive("TensorScatterSub", _ufunc_at_kernel(np.subtract, "TensorScatterSub"),
                         shape_rule=_tensor_scatter_rule("TensorScatterSub")).defvjp(
    lambda g, ans, tensor, indices, updates: (g, None, -_gather_rows(g, indices)))
_scatter_max = Primitive("TensorScatterMax", _ufunc_at_kernel(np.maximum, "TensorScatterMax"),
                         shape_rule=_tensor_scatter_rule("TensorScatterMax")).defvjp(
    _scatter_extremum_vjp)
_scatter_min = Primitive("TensorScatterMin", _ufunc_at_kernel(np.minimum, "TensorScatterMin"),
                         shape_rule=_tensor_scatter_rule("TensorScatterMin")).defvjp(
    _scatter_extremum_vjp)


for _prim in (_gather_nd, _scatter_nd, _scatter_update, _scatter_add, _scatter_sub):
    _prim.defjvp(linear_jvp(_prim))


def _no_scatter_kernel(op_name: str, dtype: Any, index_dtype: Any) -> NotFoundError:
    """TF's error where no kernel of a scatter takes these dtypes (int16 indices; adding
    bools or strings): the first line of its message."""
    return NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
                         f"[T={enum_name(dtype)}, Tindices={enum_name(index_dtype)}, "
                         f"bad_indices_policy=\"\"] [Op:{op_name}]")


def _tensor_scatter(prim: Primitive, doc: str):
    def op(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None) -> Tensor:
        tensor = convert_to_tensor(tensor)
        indices = _int_tensor(indices, prim.name)
        if prim is not _scatter_update and tensor.dtype in (_dtypes.bool, _dtypes.string) or \
                indices.dtype == _dtypes.int16:
            raise _no_scatter_kernel(prim.name, tensor.dtype, indices.dtype)
        if isinstance(updates, TensorLike) and updates.dtype != tensor.dtype:
            raise mismatch_error(prim.name, 2, tensor.dtype, updates.dtype)
        updates = convert_to_tensor(updates, dtype=tensor.dtype)
        if has_static_shape(tensor._value) and _known(indices._value) and \
                has_static_shape(updates._value):
            _check_scatter(indices._value, updates._value.shape, tensor._value.shape, prim.name)
        else:  # shapes known only when the graph runs
            updates = checked(updates, (indices, tensor), "tensor_scatter", op_name=prim.name)
        return bind(prim, (tensor, indices, updates))
    op.__doc__ = doc
    return op


tensor_scatter_nd_update = tf_export("tensor_scatter_nd_update")(_tensor_scatter(
    _scatter_update, "A copy of `tensor` with the slices at `indices` replaced by `updates`."))
tensor_scatter_nd_add = tf_export("tensor_scatter_nd_add")(_tensor_scatter(
    _scatter_add, "A copy of `tensor` with `updates` added at `indices` (duplicates add up)."))
tensor_scatter_nd_sub = tf_export("tensor_scatter_nd_sub")(_tensor_scatter(
    _scatter_sub, "A copy of `tensor` with `updates` subtracted at `indices` (duplicates "
    "add up)."))
tensor_scatter_nd_max = tf_export("tensor_scatter_nd_max")(_tensor_scatter(
    _scatter_max, "A copy of `tensor` holding the maximum of it and the `updates` at each "
    "of `indices`."))
tensor_scatter_nd_min = tf_export("tensor_scatter_nd_min")(_tensor_scatter(
    _scatter_min, "A copy of `tensor` holding the minimum of it and the `updates` at each "
    "of `indices`."))


def gather_axis(x: Tensor, indices: Any, axis: int) -> Tensor:
    """`x` indexed along `axis` by 1-D (or N-D) integer `indices` (an array, or a tensor whose
    values may change from call to call of a traced graph); differentiable in `x` through
    GatherNd. (The shared helper for boolean_mask, repeat, sort, ...)"""
    if isinstance(indices, Tensor):
        coords = _expand_trailing(cast(indices, _dtypes.int64), 1)
    else:
        coords = wrap(np.asarray(indices)[..., None].astype(np.int64))
    return _gather_coords(x, coords, axis)


def _gather_coords(x: Tensor, coords: Tensor, axis: int) -> Tensor:
    # `coords`: int64 [..., 1], positions along `axis`.
    if axis == 0:
        return _gather_rows(x, coords)
    rank = x._value.ndim
    perm = (axis,) + tuple(i for i in range(rank) if i != axis)
    moved = _gather_rows(transpose(x, perm), coords)
    k = coords._value.ndim - 1
    back = tuple(range(k, k + axis)) + tuple(range(k)) + tuple(range(k + axis, moved._value.ndim))
    return transpose(moved, back)


def take_along_axis(x: Tensor, indices: Any, axis: int) -> Tensor:
    """NumPy's take_along_axis, differentiable in `x` (a GatherNd with full coordinates).
    `indices` may be an array or a tensor (its values are read at run time, not at trace)."""
    if isinstance(indices, Tensor) and not has_static_shape(indices._value):
        return _gather_rows(x, _full_coords(indices, axis))
    grids = list(np.meshgrid(*[np.arange(d) for d in np.shape(indices._value if isinstance(
        indices, Tensor) else indices)], indexing="ij"))
    if not isinstance(indices, Tensor):
        grids[axis] = indices
        return _gather_rows(x, wrap(np.stack(grids, axis=-1).astype(np.int64)))
    parts = [wrap(g.astype(np.int64)) for g in grids]
    parts[axis] = cast(indices, _dtypes.int64)
    return _gather_rows(x, stack(parts, axis=-1))


def _full_coords(indices: Tensor, axis: int) -> Tensor:
    """[..., rank] int64 coordinates: `indices` along `axis`, each position's own index along
    the other axes, from the run-time shape of `indices` (rank known)."""
    from tapeflow.ops.array_ops import range as range_
    rank = indices._value.ndim
    sizes = _shape_of(indices, out_type=_dtypes.int64)
    zeros = zeros_like(cast(indices, _dtypes.int64))
    parts = [cast(indices, _dtypes.int64) if i == axis else
             zeros + _along(range_(sizes[i]), i, rank) for i in range(rank)]
    return stack(parts, axis=-1)


def _along(v: Tensor, axis: int, rank: int) -> Tensor:
    """A vector `v` as a rank-`rank` tensor whose only axis of size > 1 is `axis`."""
    return v[(None,) * axis + (slice(None),) + (None,) * (rank - 1 - axis)]


# -- boolean_mask --------------------------------------------------------------------------------

@tf_export("boolean_mask")
@reads_static
def boolean_mask(tensor: Any, mask: Any, axis: Optional[int] = None,
                 name: str = "boolean_mask") -> Tensor:
    """The elements (or slices) of `tensor` where `mask` is true; `mask` covers the axes
    `axis .. axis + mask.ndim` of `tensor`, which collapse into one."""
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    m = mask._value
    if m.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    if read_at_run_time(axis):   # read when the graph runs, as TF's
        return _boolean_mask_at_run_time(tensor, mask, axis)
    axis = 0 if axis is None else static_value(axis, "boolean_mask: axis", int)
    shape = tensor._value.shape
    covered = shape[axis:axis + m.ndim]  # Python's slice, as TF's: an axis out of range
    if tuple(covered) != m.shape and not _compatible(covered, m.shape):  # (or -1 for a 1-D
        raise ValueError(f"Shapes {tuple(covered)} and {m.shape} are incompatible")  # mask)
    start = axis % len(shape)
    # (A 1-D mask collapses nothing: reshape would return the tensor itself.)
    flat = tensor if m.ndim == 1 else reshape(tensor, _collapsed(shape, start, m.shape))
    # TF then gathers along `axis` of the collapsed tensor: a negative axis counts from its
    # end, which (for a mask of rank 2 or more) is not the collapsed axis.
    if axis + flat._value.ndim < 0:
        raise InvalidArgumentError(f"Shape must be at least rank {-axis} but is rank "
                                   f"{flat._value.ndim} [Op:GatherV2]")
    axis %= flat._value.ndim
    if context.graph is None:
        positions = np.flatnonzero(m.astype(bool))
        if positions.size and positions[-1] >= flat._value.shape[axis]:
            i = int(np.argmax(positions >= flat._value.shape[axis]))
            raise InvalidArgumentError(f"indices[{i}] = {positions[i]} is not in [0, "
                                       f"{flat._value.shape[axis]}) [Op:GatherV2]")
        return gather_axis(flat, positions, axis)
    # Traced: the positions are computed when the graph runs (Where), not read at trace.
    flat_mask = reshape(cast(mask, _dtypes.bool), (-1,))
    return _gather_coords(flat, bind(_where_indices, (flat_mask,)), axis)


def _boolean_mask_at_run_time(tensor: Tensor, mask: Tensor, axis: Tensor) -> Tensor:
    """boolean_mask with `axis` read when the graph runs, by TF's ops: the dims the mask
    covers collapsed (a reshape to a run-time shape), then a gather along `axis` of the
    positions where the mask is true. Its shape checks are the reshape's and gather's."""
    from tapeflow.ops.reduce_ops import reduce_prod   # reduce_ops is beside index_ops
    axis = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
    dims = _shape_of(tensor)
    n = mask._value.ndim
    covered = _slice_op(dims, reshape(axis, [1]), [n])
    after = _slice_op(dims, reshape(axis + n, [1]), [-1])
    collapsed = concat([_slice_op(dims, [0], reshape(axis, [1])),
                        reshape(reduce_prod(covered), [1]), after], 0)
    positions = bind(_where_indices, (reshape(cast(mask, _dtypes.bool), (-1,)),))
    return _gather_op(reshape(tensor, collapsed), reshape(positions, [-1]), axis=axis)


def _compatible(dims: tuple, other: tuple) -> bool:
    """Whether two static shapes (None dims unknown) of one rank can be equal."""
    return len(dims) == len(other) and all(a is None or b is None or a == b
                                           for a, b in zip(dims, other))


def _collapsed(shape: tuple, start: int, mask_shape: tuple) -> tuple:
    """A reshape target that collapses the dims `start ..` a mask of `mask_shape` covers
    into one; an unknown dim is the one inferred (-1)."""
    n = len(mask_shape)
    if None not in shape and None not in mask_shape:
        return shape[:start] + (-1,) + shape[start + n:]
    size = -1 if None in mask_shape else int(np.prod(mask_shape))
    target = tuple(-1 if d is None else d for d in shape[:start]) + (size,) + \
        tuple(-1 if d is None else d for d in shape[start + n:])
    if target.count(-1) > 1:
        raise NotImplementedError(
            f"boolean_mask of a tensor of shape {dims_text(shape)} by a mask of shape "
            f"{dims_text(mask_shape)}: tapeflow needs all but one of the collapsed tensor's "
            f"dims known while tracing")
    return target


# -- segment reductions --------------------------------------------------------------------------

def _check_segment_ids(ids: np.ndarray, n: int, op_name: str) -> None:
    too_big = np.flatnonzero(ids.reshape(-1) >= n)
    if too_big.size:
        i = int(too_big[0])
        raise InvalidArgumentError(f"segment_ids[{i}] = {int(ids.reshape(-1)[i])} is out "
                                   f"of range [0, {n}) [Op:{op_name}]")


def _segment_kernel(combine: Any, fill: Any, op_name: str):
    def kernel(data: np.ndarray, ids: np.ndarray, *count: np.ndarray,
               num_segments: Optional[int], sorted_ids: bool = False) -> np.ndarray:
        if num_segments is None:  # an input: a tensor known when the graph runs
            num_segments = _segment_count(count[0], op_name)
        out = np.full((num_segments,) + data.shape[ids.ndim:], fill(data.dtype, sorted_ids),
                      data.dtype)
        if not data.size:  # TF checks the ids only when there is data to reduce
            return out
        _check_segment_ids(ids, num_segments, op_name)  # also when a traced graph runs
        keep = ids >= 0
        combine(out, ids[keep], data[keep], sorted_ids)
        return out
    return kernel


# Eigen's packet length (elements) in TF's AVX build, for float16/32/64: where TF's kernels
# reduce whole packets, NaNs are skipped, in the scalar tail they are not.
EIGEN_PACKET = {2: 8, 4: 8, 8: 4}


def _lowest(dtype: np.dtype, sorted_ids: bool) -> Any:
    # TF starts the unsorted reductions from the lowest finite value, the sorted from -inf.
    if dtype.kind == "f":
        return -np.inf if sorted_ids else np.finfo(dtype).min
    return np.iinfo(dtype).min


def _highest(dtype: np.dtype, sorted_ids: bool) -> Any:
    if dtype.kind == "f":
        return np.inf if sorted_ids else np.finfo(dtype).max
    return np.iinfo(dtype).max


def _extremum_at(ufunc: Any, skip_nan: Any, identity: float):
    """`ufunc.at` with the NaN rules of TF's segment max/min (`skip_nan`: np.fmax/fmin)."""
    def combine(out: np.ndarray, ids: np.ndarray, data: np.ndarray, sorted_ids: bool) -> None:
        if data.dtype.kind != "f" or not np.isnan(data).any():
            ufunc.at(out, ids, data)
        elif not sorted_ids:
            _take_nans(out, ids, data)
        else:
            # SegmentMax/Min copy a segment of one row; for more rows Eigen reduces the
            # columns in whole packets (skipping NaNs), then the rest one by one.
            rows, columns = data.reshape(len(ids), -1), out.reshape(len(out), -1)
            width = columns.shape[1] - columns.shape[1] % EIGEN_PACKET[data.dtype.itemsize]
            skip_nan.at(columns[:, :width], ids, rows[:, :width])
            _take_nans(columns[:, width:], ids, rows[:, width:])
            first = np.full(len(out), -1)
            first[ids[::-1]] = np.arange(len(ids))[::-1]
            single = np.bincount(ids, minlength=len(out)) == 1
            columns[single] = rows[first[single]]

    def _take_nans(out: np.ndarray, ids: np.ndarray, data: np.ndarray) -> None:
        # One step at a time TF computes `acc = std::max(x, acc)`, which takes a NaN x and
        # replaces a NaN acc by the next x: a segment is NaN if its last element is, else the
        # extremum of its elements after its last NaN (without the initial value).
        nan = np.isnan(data)
        pos = np.arange(len(ids)).reshape((-1,) + (1,) * (data.ndim - 1))
        last_nan = np.full(out.shape, -1)
        np.maximum.at(last_nan, ids, np.where(nan, pos, -1))
        after = pos > last_nan[ids]
        had_nan = last_nan >= 0
        count = np.zeros(out.shape, np.int64)
        np.add.at(count, ids, after)
        out[had_nan] = identity
        ufunc.at(out, ids, np.where(after, data, identity))
        out[had_nan & (count == 0)] = np.nan
    return combine


def _gather_drop_negatives(g: Tensor, ids: Tensor) -> Tensor:
    # Rows of g by segment id; ids below zero (dropped by the forward op) get zeros.
    valid = greater_equal(ids, zeros_like(ids))
    gathered = _gather_rows(g, _expand_trailing(maximum(ids, zeros_like(ids)), 1))
    valid = _expand_trailing(valid, gathered._value.ndim - ids._value.ndim)
    # Eagerly the select is skipped when no id is negative; a traced graph cannot know.
    if context.graph is None and np.all(ids._value >= 0):
        return gathered
    return where(valid, gathered, zeros_like(gathered))


def _segment_extremum_vjp(g: Tensor, ans: Tensor, data: Tensor, ids: Tensor, *count: Tensor,
                          num_segments: Optional[int], **_: Any) -> tuple:
    # Ties share the gradient equally, as in TensorFlow's _UnsortedSegmentMinOrMaxGrad.
    selected = logical_and(equal(data, _gather_drop_negatives(ans, ids)),
                           _expand_trailing(greater_equal(ids, zeros_like(ids)),
                                            data._value.ndim - ids._value.ndim))
    n = count[0] if num_segments is None else num_segments
    count = unsorted_segment_sum(cast(selected, g.dtype), ids, n)
    share = _gather_drop_negatives(g / maximum(count, count * 0 + 1), ids)
    return where(selected, share, zeros_like(share)), None


_segment_sum = Primitive("UnsortedSegmentSum", _segment_kernel(
    lambda out, ids, data, _: np.add.at(out, ids, data), lambda t, s: 0,
    "UnsortedSegmentSum"), shape_rule=_segment_rule("UnsortedSegmentSum")).defvjp(
    lambda g, ans, data, ids, *_, **__: (_gather_drop_negatives(g, ids), None))
_segment_max = Primitive("UnsortedSegmentMax", _segment_kernel(
    _extremum_at(np.maximum, np.fmax, -np.inf), _lowest, "UnsortedSegmentMax"),
    shape_rule=_segment_rule("UnsortedSegmentMax")).defvjp(
    _segment_extremum_vjp)
_segment_min = Primitive("UnsortedSegmentMin", _segment_kernel(
    _extremum_at(np.minimum, np.fmin, np.inf), _highest, "UnsortedSegmentMin"),
    shape_rule=_segment_rule("UnsortedSegmentMin")).defvjp(
    _segment_extremum_vjp)


_segment_sum.defjvp(linear_jvp(_segment_sum))


def _segment_prod_vjp(g: Tensor, ans: Tensor, data: Tensor, ids: Tensor, *count: Tensor,
                      num_segments: Optional[int], **_: Any) -> tuple:
    # TF's _UnsortedSegmentProdGrad: divide the product by each element where that is
    # exact; a segment with one zero sends the product of its other elements to the zero,
    # one with more zeros sends nothing.
    n = count[0] if num_segments is None else num_segments
    is_zero = equal(data, zeros_like(data))
    zeros = unsorted_segment_sum(cast(is_zero, _dtypes.int32), ids, n)
    g = where(greater(zeros, ones_like(zeros)), zeros_like(g), g)
    non_zero_data = where(is_zero, ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero_data, ids, n)
    partial = where(is_zero, _gather_drop_negatives(non_zero_prod, ids),
                    _gather_drop_negatives(ans, ids) / non_zero_data)
    return _gather_drop_negatives(g, ids) * partial, None


_segment_prod = Primitive("UnsortedSegmentProd", _segment_kernel(
    lambda out, ids, data, _: np.multiply.at(out, ids, data), lambda t, s: 1,
    "UnsortedSegmentProd"), shape_rule=_segment_rule("UnsortedSegmentProd")).defvjp(
    _segment_prod_vjp)


def _segment_count(n: np.ndarray, op_name: str) -> int:
    """A num_segments tensor's value, with the checks of TF's kernels."""
    if np.ndim(n):
        raise InvalidArgumentError(f"num_segments should be a scalar, not shape "
                                   f"{dims_text(np.shape(n))} [Op:{op_name}]")
    if n < 0:
        raise InvalidArgumentError(f"Input num_segments == {int(n)} must not be negative. "
                                   f"[Op:{op_name}]")
    return int(n)


def _check_segment_shapes(data: np.ndarray, ids: np.ndarray, op_name: str) -> None:
    if data.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(f"data.shape = {dims_text(data.shape)} does not start with "
                                   f"segment_ids.shape = {dims_text(ids.shape)} [Op:{op_name}]")


def _segment_operands(data: Any, segment_ids: Any, num_segments: Any, op_name: str) -> tuple:
    """(data, ids, n): n is an int, or a traced scalar tensor that the graph reads when it
    runs (TF's num_segments is a run-time input)."""
    data = convert_to_tensor(data)
    ids = _int_tensor(segment_ids, op_name)
    n = num_segments if read_at_run_time(num_segments) else \
        static_value(num_segments, f"{op_name}: num_segments", int)
    if type(n) is int and n < 0:
        _segment_count(n, op_name)  # raises TF's error
    if type(n) is not int or not (has_static_shape(data._value) and _known(ids._value)):
        # The kernel checks the ids against n when the graph runs; the shapes, here.
        return checked(data, (ids,), "segment_shapes", op_name=op_name), ids, n
    shape, ids_shape = data._value.shape, ids._value.shape
    if shape[:len(ids_shape)] != ids_shape:
        raise InvalidArgumentError(f"data.shape = {dims_text(shape)} does not start with "
                                   f"segment_ids.shape = {dims_text(ids_shape)} [Op:{op_name}]")
    if data._value.size:  # as the kernel: TF checks the ids only when there is data
        _check_segment_ids(ids._value, n, op_name)
    return data, ids, n


def _reduce_segments(prim: Primitive, allowed: str, data: Any, segment_ids: Any,
                     num_segments: Any, sorted_ids: bool = False) -> Tensor:
    data, ids, n = _segment_operands(data, segment_ids, num_segments, prim.name)
    require(data, allowed, prim.name)
    if type(n) is int:
        attrs = {"num_segments": n, "sorted_ids": True} if sorted_ids else {"num_segments": n}
        return bind(prim, (data, ids), attrs)
    attrs = {"num_segments": None, "sorted_ids": True} if sorted_ids else {"num_segments": None}
    return bind(prim, (data, ids, n), attrs)


def _unsorted(prim: Primitive, allowed: str, doc: str):
    @reads_static
    def op(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Tensor:
        return _reduce_segments(prim, allowed, data, segment_ids, num_segments)
    op.__doc__ = doc
    return op


unsorted_segment_sum = tf_export("math.unsorted_segment_sum")(_unsorted(
    _segment_sum, "fciu", "Sums of the rows of `data` by `segment_ids` into `num_segments` "
    "rows; negative ids are dropped and empty segments are 0."))
unsorted_segment_max = tf_export("math.unsorted_segment_max")(_unsorted(
    _segment_max, "fiu", "Maxima of the rows of `data` by `segment_ids`; empty segments hold "
    "the dtype's lowest value."))
unsorted_segment_min = tf_export("math.unsorted_segment_min")(_unsorted(
    _segment_min, "fiu", "Minima of the rows of `data` by `segment_ids`; empty segments hold "
    "the dtype's highest value."))

unsorted_segment_prod = tf_export("math.unsorted_segment_prod")(_unsorted(
    _segment_prod, "fciu", "Products of the rows of `data` by `segment_ids` into "
    "`num_segments` rows; negative ids are dropped and empty segments are 1."))


@tf_export("math.unsorted_segment_sqrt_n")
@reads_static
def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: Optional[str] = None) -> Tensor:
    """Sums of the rows of `data` by `segment_ids`, each divided by the square root of its
    number of rows (floats and complex only, as TF); empty segments are 0."""
    from tapeflow.ops.math_ops import sqrt
    data, ids, n = _segment_operands(data, segment_ids, num_segments, "UnsortedSegmentSum")
    return unsorted_segment_sum(data, ids, n) / sqrt(_segment_counts(data, ids, n, data.dtype))


@tf_export("math.unsorted_segment_mean")
@reads_static
def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None) -> Tensor:
    """Means of the rows of `data` by `segment_ids`; empty segments are 0."""
    data, ids, n = _segment_operands(data, segment_ids, num_segments, "UnsortedSegmentSum")
    return unsorted_segment_sum(data, ids, n) / _segment_counts(data, ids, n, data.dtype)


def _segment_counts(data: Tensor, ids: Tensor, n: Any, dtype: Any) -> Tensor:
    """Rows per segment (at least 1), in `dtype`, shaped to divide the segment sums (`n` an
    int, or a tensor read at run time)."""
    if type(n) is int and has_static_shape(ids._value):
        ones = wrap(np.ones(ids._value.shape, dtype._np))
        count = unsorted_segment_sum(ones, ids, n)
        return reshape(maximum(count, count * 0 + 1),
                       (n,) + (1,) * (data._value.ndim - ids._value.ndim))
    count = unsorted_segment_sum(ones_like(ids, dtype=dtype), ids, n)
    return _expand_trailing(maximum(count, count * 0 + 1), data._value.ndim - ids._value.ndim)


def _sorted_segments(segment_ids: Any, op_name: str) -> tuple:
    """(ids, n): the number of segments, ids[-1] + 1, is an int, or for ids a traced graph
    reads when it runs, a tensor computed then (TF's Segment* kernels size their outputs so)."""
    ids = _int_tensor(segment_ids, op_name, allowed=("int32", "int64"))
    v = ids._value
    if v.ndim != 1:
        raise InvalidArgumentError(f"segment_ids should be a vector [Op:{op_name}]")
    if is_traced(ids):
        from tapeflow.ops.reduce_ops import reduce_max
        ids = checked(ids, (), "increasing_ids")
        last = reduce_max(concat([cast(wrap(np.array([-1])), ids.dtype), ids], axis=0))
        return ids, last + cast(wrap(np.array(1)), ids.dtype)
    if v.size and (np.any(np.diff(v) < 0) or v[0] < 0):
        raise InvalidArgumentError(f"segment ids are not increasing [Op:{op_name}]")
    return ids, int(v[-1]) + 1 if v.size else 0


def _check_increasing(ids: np.ndarray) -> None:
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise InvalidArgumentError("segment ids are not increasing")


@tf_export("math.segment_sum")
def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Sums of the rows of `data` by sorted `segment_ids` (ids[-1] + 1 segments)."""
    ids, n = _sorted_segments(segment_ids, "SegmentSum")
    return unsorted_segment_sum(data, ids, n)


@tf_export("math.segment_mean")
def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Means of the rows of `data` by sorted `segment_ids`."""
    ids, n = _sorted_segments(segment_ids, "SegmentMean")
    data = convert_to_tensor(data)
    if data.dtype.is_complex:  # TF's SegmentMean takes complex (the unsorted mean does not)
        count = _segment_counts(data, ids, n, data.dtype.real_dtype)
        return unsorted_segment_sum(data, ids, n) / cast(count, data.dtype)
    out = unsorted_segment_mean(data, ids, n)
    # Unlike unsorted_segment_mean, TF's SegmentMean keeps an integer dtype (truncating).
    return cast(out, data.dtype) if data.dtype != out.dtype else out


@tf_export("math.segment_prod")
def segment_prod(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Products of the rows of `data` by sorted `segment_ids`; empty segments are 1."""
    ids, n = _sorted_segments(segment_ids, "SegmentProd")
    return _reduce_segments(_segment_prod, "fciu", data, ids, n)


@tf_export("math.segment_max")
def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Maxima of the rows of `data` by sorted `segment_ids`; empty segments are 0."""
    ids, n = _sorted_segments(segment_ids, "SegmentMax")
    out = _reduce_segments(_segment_max, "fiu", data, ids, n, sorted_ids=True)
    return _zero_empty(out, ids, n)


@tf_export("math.segment_min")
def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Minima of the rows of `data` by sorted `segment_ids`; empty segments are 0."""
    ids, n = _sorted_segments(segment_ids, "SegmentMin")
    out = _reduce_segments(_segment_min, "fiu", data, ids, n, sorted_ids=True)
    return _zero_empty(out, ids, n)


def _zero_empty(out: Tensor, ids: Tensor, n: Any) -> Tensor:
    if context.graph is not None:  # which segments are empty is known only at run time
        count = unsorted_segment_sum(ones_like(ids, dtype=_dtypes.int32), ids, n)
        mask = _expand_trailing(greater(count, zeros_like(count)), out._value.ndim - 1)
        return where(mask, out, zeros_like(out))
    present = np.zeros(n, bool)
    present[ids._value] = True
    if present.all():
        return out
    mask = wrap(present.reshape((n,) + (1,) * (out._value.ndim - 1)))
    return where(mask, out, zeros_like(out))


# -- dynamic_partition / dynamic_stitch ---------------------------------------------------------

def _check_partitions(partitions: np.ndarray, num_partitions: int) -> None:
    bad = np.flatnonzero((partitions.reshape(-1) < 0) | (partitions.reshape(-1) >= num_partitions))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(f"partitions[{i}] = {int(partitions.reshape(-1)[i])} is not "
                                   f"in [0, {num_partitions}) [Op:DynamicPartition]")


def _int32_input(value: Any, op_name: str, position: int) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.dtype != _dtypes.int32:
        raise InvalidArgumentError(f"cannot compute {op_name} as input #{position}(zero-based) "
                                   f"was expected to be a int32 tensor but is a "
                                   f"{cpp_name(t.dtype)} tensor [Op:{op_name}] name: ")
    return t


@tf_export("dynamic_partition")
def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: Optional[str] = None) -> list:
    """`num_partitions` tensors: the i-th holds the slices of `data` (in order) whose entry
    of `partitions` (int32, a prefix of data's shape) is i."""
    data = convert_to_tensor(data)
    parts = _int32_input(partitions, "DynamicPartition", 1)
    n = int(num_partitions)
    if n < 1:
        raise InvalidArgumentError(f"Value for attr 'num_partitions' of {n} must be at least "
                                   f"minimum 1 [Op:DynamicPartition]")
    shape, p_shape = data._value.shape, parts._value.shape
    if not parts._value.ndim:  # a scalar partition takes all of data as one slice
        data, parts = reshape(data, [1] + list(shape)), reshape(parts, [1])
    elif has_static_shape(data._value) and _known(parts._value):
        if shape[:len(p_shape)] != p_shape:
            raise InvalidArgumentError(
                f"data.shape must start with partitions.shape, got data.shape = "
                f"{dims_text(shape)}, partitions.shape = {dims_text(p_shape)} "
                f"[Op:DynamicPartition]")
    if is_traced(parts):
        parts = checked(parts, (), "partitions", num_partitions=n)
    else:
        _check_partitions(parts._value, n)
    return [boolean_mask(data, equal(parts, i)) for i in range(n)]


def _stitch_kernel(*operands: np.ndarray, n: int, size: Optional[int]) -> np.ndarray:
    indices, data = operands[:n], operands[n:2 * n]
    _check_stitch(indices, data)
    if size is None:  # a traced graph's: max(indices) + 1, computed as it runs
        size = int(operands[-1])
    out = np.zeros((size,) + data[0].shape[indices[0].ndim:], data[0].dtype)
    for idx, values in zip(indices, data):
        flat = idx.reshape(-1)
        rows = values.reshape((len(flat),) + out.shape[1:])
        # The last of equal indices wins, as in TF: keep each index's last occurrence.
        last = len(flat) - 1 - np.unique(flat[::-1], return_index=True)[1]
        out[flat[last]] = rows[last]
    return out


def _check_stitch(indices: tuple, data: tuple) -> None:
    """TF's DynamicStitch checks, in its order."""
    for k, (idx, values) in enumerate(zip(indices, data)):
        if values.shape[:idx.ndim] != idx.shape:
            raise InvalidArgumentError(f"data[{k}].shape = {dims_text(values.shape)} does not "
                                       f"start with indices[{k}].shape = "
                                       f"{dims_text(idx.shape)} [Op:DynamicStitch]")
        tail0, tail = data[0].shape[indices[0].ndim:], values.shape[idx.ndim:]
        if k and tail != tail0:
            raise InvalidArgumentError(
                f"Need data[0].shape[{indices[0].ndim}:] = data[{k}].shape[{idx.ndim}:], got "
                f"data[0].shape = {dims_text(data[0].shape)}, data[{k}].shape = "
                f"{dims_text(values.shape)}, indices[0].shape = {dims_text(indices[0].shape)}, "
                f"indices[{k}].shape = {dims_text(idx.shape)} [Op:DynamicStitch]")
    for idx in indices:
        negative = np.flatnonzero(idx.reshape(-1) < 0)
        if negative.size:
            raise InvalidArgumentError(f"indices[{int(negative[0])}] is out of range "
                                       f"[Op:DynamicStitch]")


def _stitch_rule(*avals: ShapedArray, n: int, size: Optional[int]) -> ShapedArray:
    indices, data = avals[:n], avals[n:2 * n]
    if indices[0].shape is None or data[0].shape is None:
        return ShapedArray(None, data[0].dtype)
    return ShapedArray((size,) + tuple(data[0].shape[len(indices[0].shape):]), data[0].dtype)


def _stitch_vjp(g: Tensor, ans: Tensor, *operands: Tensor, n: int, size: Optional[int]
                ) -> tuple:
    # TF's _DynamicStitchGrads: every data slice gets the rows of g at its indices, also the
    # slices that a later equal index overwrote.
    from tapeflow.ops.array_ops import gather
    grads = (None,) * n + tuple(gather(g, idx) for idx in operands[:n])
    return grads if size is not None else grads + (None,)


_dynamic_stitch = Primitive("DynamicStitch", _stitch_kernel, shape_rule=_stitch_rule,
                            linear=True).defvjp(_stitch_vjp)
_dynamic_stitch.defjvp(linear_jvp(_dynamic_stitch))


@tf_export("dynamic_stitch")
def dynamic_stitch(indices: Any, data: Any, name: Optional[str] = None) -> Tensor:
    """Interleaves the slices of the tensors in `data` into one tensor: slice j of data[i]
    goes to row indices[i][j] (int32); of equal indices the last one wins."""
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'dynamic_stitch' Op with length "
                         f"{len(data)} must match length {len(indices)} of argument "
                         f"'indices'.")
    if not len(indices):
        raise InvalidArgumentError("Value for attr 'N' of 0 must be at least minimum 1 "
                                   "[Op:DynamicStitch]")
    idx = [_int32_input(i, "DynamicStitch", k) for k, i in enumerate(indices)]
    # One dtype for the list, as TF's op converter: a tensor's, else the first entry's.
    hint = next((d.dtype for d in data if isinstance(d, Tensor)), None) or \
        convert_to_tensor(data[0]).dtype if len(data) else None
    values = [convert_to_tensor(d, dtype_hint=hint) for d in data]
    for k, v in enumerate(values[1:], 1):
        if v.dtype != values[0].dtype:
            raise InvalidArgumentError(
                f"cannot compute DynamicStitch as input #{len(idx) + k}(zero-based) was "
                f"expected to be a {cpp_name(values[0].dtype)} tensor but is a "
                f"{cpp_name(v.dtype)} tensor [Op:DynamicStitch]")
    operands = tuple(idx) + tuple(values)
    if not any(is_traced(i) for i in idx):  # the output's length: max(indices) + 1
        size = max((int(i._value.max()) + 1 for i in idx if i._value.size), default=0)
        return bind(_dynamic_stitch, operands, {"n": len(idx), "size": size})
    from tapeflow.ops.reduce_ops import reduce_max
    flat = concat([wrap(np.array([-1], np.int32))] + [reshape(i, [-1]) for i in idx], axis=0)
    size = reduce_max(flat) + 1
    return bind(_dynamic_stitch, operands + (size,), {"n": len(idx), "size": None})


# -- histogram_fixed_width_bins, confusion_matrix ------------------------------------------------

@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: Any = 100,
                               dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """The bin (int32, whatever `dtype`, as TF) of each of `values` among `nbins` equal bins
    spanning `value_range`; values outside go to the first or last bin (NaN to int32's
    lowest). Floats only, as TF's composite."""
    from tapeflow.ops.clip_ops import clip_by_value
    from tapeflow.ops.math_ops import floor
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range)
    nbins = convert_to_tensor(nbins, dtype=_dtypes.int32)
    if not is_traced(nbins) and not nbins._value > 0:
        raise InvalidArgumentError(
            f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            f"b'nbins {nbins!s} must > 0'")
    nbins_float = cast(nbins, values.dtype)
    scaled = (values - value_range[0]) / (value_range[1] - value_range[0])
    bins = clip_by_value(floor(nbins_float * scaled), 0, nbins_float - 1)
    return cast(bins, _dtypes.int32)


def _class_ids(x: Tensor, what: str, num_classes: Any) -> Tensor:
    """`x` as int64 class ids, after TF's checks (also when a traced graph runs)."""
    from tapeflow.ops.debugging_ops import assert_less, assert_non_negative
    from tapeflow.ops.control_deps import control_dependencies
    from tapeflow.ops.math_ops import identity
    x = cast(x, _dtypes.int64)
    checks = [assert_non_negative(x, message=f"`{what}` contains negative values")]
    if num_classes is not None:
        checks.append(assert_less(x, cast(num_classes, _dtypes.int64),
                                  message=f"`{what}` out of bound"))
    if context.graph is None:
        return x
    with control_dependencies([c for c in checks if c is not None]):
        return identity(x)


@tf_export("math.confusion_matrix")
def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None, weights: Any = None,
                     dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """The `[n, n]` matrix counting (or summing `weights` of) each (label, prediction) pair:
    rows are labels, columns predictions; n is `num_classes`, else the largest id + 1."""
    from tapeflow.ops.array_ops import squeeze
    from tapeflow.ops.reduce_ops import reduce_max
    labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
    rank_diff = predictions._value.ndim - labels._value.ndim  # TF's squeezable dimensions
    if rank_diff == 1 and predictions._value.shape[-1] == 1:
        predictions = squeeze(predictions, [-1])
    elif rank_diff == -1 and labels._value.shape[-1] == 1:
        labels = squeeze(labels, [-1])
    dtype = _dtypes.as_dtype(dtype)
    labels = _class_ids(labels, "labels", num_classes)
    predictions = _class_ids(predictions, "predictions", num_classes)
    if num_classes is None:
        n = maximum(reduce_max(predictions), reduce_max(labels)) + 1
    else:
        n = cast(num_classes, _dtypes.int64)
    updates = ones_like(predictions, dtype=dtype) if weights is None else \
        cast(convert_to_tensor(weights), dtype)
    return scatter_nd(stack([labels, predictions], axis=1), updates, stack([n, n]))


# -- searchsorted --------------------------------------------------------------------------------

def _searchsorted_kernel(sorted_sequence: np.ndarray, values: np.ndarray, side: str,
                         dtype: np.dtype) -> np.ndarray:
    # std::lower_bound / upper_bound on each row, step by step for all values at once, so
    # that NaNs land where TF's binary search puts them (NumPy sorts NaN last instead).
    batch = int(np.prod(values.shape[:-1]))
    seq = sorted_sequence.reshape(batch, sorted_sequence.shape[-1])
    vals = values.reshape(batch, values.shape[-1])
    first = np.zeros(vals.shape, np.int64)
    length = np.full(vals.shape, seq.shape[-1], np.int64)
    rows = np.arange(len(seq))[:, None]
    while seq.shape[-1] and length.any():
        half = length >> 1
        middle = first + half
        element = seq[rows, np.minimum(middle, seq.shape[-1] - 1)]
        right = element < vals if side == "left" else ~(vals < element)
        moving = right & (length > 0)
        first = np.where(moving, middle + 1, first)
        length = np.where(moving, length - half - 1, half)
    return first.reshape(values.shape).astype(dtype)


_lower_bound = Primitive("LowerBound", _searchsorted_kernel, differentiable=False,
                         shape_rule=_lower_bound_rule)


@tf_export("searchsorted")
def searchsorted(sorted_sequence: Any, values: Any, side: str = "left",
                 out_type: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """For each of `values` (last axis), the index in the matching row of `sorted_sequence`
    where it would be inserted to keep the row sorted (`side` 'left' or 'right')."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    seq = convert_to_tensor(sorted_sequence)
    vals = convert_to_tensor(values, dtype=seq.dtype)
    op_name = "LowerBound" if side == "left" else "UpperBound"
    if seq._value.dtype.kind not in "fiu":  # declared by the op, no CPU kernel
        raise NotFoundError(f"Could not find device for node: {{{{node {op_name}}}}} = "
                            f"{op_name}[T={enum_name(seq.dtype)}, out_type="
                            f"{enum_name(_dtypes.as_dtype(out_type))}] [Op:{op_name}]")
    if seq._value.ndim == 0 or vals._value.ndim == 0 or \
            seq._value.shape[:-1] != vals._value.shape[:-1]:
        raise InvalidArgumentError(f"Leading dim_size of both tensors must match. "
                                   f"[Op:{op_name}]")
    return bind(_lower_bound, (seq, vals), {"side": side,
                                            "dtype": _dtypes.as_dtype(out_type)._np})


# Top-level names (the segment ops are in tf.math only).
def _bincount_kernel(arr: np.ndarray, weights: np.ndarray, *size_input: np.ndarray,
                     size: Optional[int], binary_output: bool, dtype: Any) -> np.ndarray:
    if size is None:  # an input: computed from arr's values when the graph runs
        size = max(int(size_input[0]), 0)
    if arr.size and arr.min() < 0:
        raise InvalidArgumentError("Input arr must be non-negative! [Op:DenseBincount]")
    rows = arr if arr.ndim == 2 else arr.reshape(1, -1)
    out = np.zeros((rows.shape[0], size), dtype)
    w = weights.reshape(rows.shape) if weights.size else None
    for i, row in enumerate(rows):
        keep = row < size  # values at or past maxlength are dropped
        counts = np.bincount(row[keep], None if w is None else w[i][keep], minlength=size)
        out[i] = (counts > 0) if binary_output else counts
    return out if arr.ndim == 2 else out[0]


# TensorFlow registers no gradient for DenseBincount.
_bincount = Primitive("DenseBincount", _bincount_kernel, differentiable=False,
                      shape_rule=_bincount_rule)


@tf_export("math.bincount")
def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = _dtypes.int32, name: Optional[str] = None, axis: Any = None,
             binary_output: bool = False) -> Tensor:
    """Counts of each value in the non-negative integer `arr` (summed `weights` instead when
    given): length max(arr) + 1, at least `minlength`, at most `maxlength` (larger values are
    dropped). With axis=-1, one row of counts per row of a 2-D `arr`."""
    arr = convert_to_tensor(arr)
    if weights is not None:
        weights = convert_to_tensor(weights)
        if binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                             "Please specify only one.")
    if not arr.dtype.is_integer:
        arr = cast(arr, _dtypes.int32)
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         f"currently supported.")
    traced = is_traced(arr)  # the length is then computed from arr when the graph runs
    if not traced:
        values = arr._value
        size = int(values.max()) + 1 if values.size else 0
        if minlength is not None:
            size = max(size, int(np.asarray(getattr(minlength, "_value", minlength))))
        if maxlength is not None:
            size = min(size, int(np.asarray(getattr(maxlength, "_value", maxlength))))
    if axis == 0:  # flattened (a vector is one already)
        arr = arr if arr._value.ndim == 1 else reshape(arr, [-1])
        if weights is not None and weights._value.ndim != 1:
            weights = reshape(weights, [-1])
    out_type = _dtypes.as_dtype(dtype) if weights is None else weights.dtype
    if weights is None:
        weights = wrap(np.zeros((0,), out_type._np))
    elif not (has_static_shape(weights._value) and has_static_shape(arr._value)):
        weights = checked(weights, (arr,), "bincount_weights")
    else:
        _check_bincount_weights(weights._value, arr._value)
    require(weights, "fi", "DenseBincount")
    attrs = {"binary_output": bool(binary_output), "dtype": out_type._np}
    if traced:
        return bind(_bincount, (arr, weights, _bincount_size(arr, minlength, maxlength)),
                    dict(attrs, size=None))
    return bind(_bincount, (arr, weights), dict(attrs, size=max(size, 0)))


def _check_bincount_weights(weights: np.ndarray, arr: np.ndarray) -> None:
    if weights.size and weights.shape != arr.shape:
        raise InvalidArgumentError(
            "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case "
            "it acts as all weights equal to 1. Received arr.shape "
            f"{list(arr.shape)} and weights.shape {list(weights.shape)} "
            "[Op:DenseBincount]")


def _bincount_size(arr: Tensor, minlength: Any, maxlength: Any) -> Tensor:
    """max(arr) + 1 (0 for an empty arr), at least minlength, at most maxlength, as ops."""
    from tapeflow.ops.reduce_ops import reduce_max
    flat = arr if arr._value.ndim == 1 else reshape(arr, (-1,))
    size = reduce_max(concat([cast(wrap(np.array([-1])), arr.dtype), flat], axis=0)) + \
        cast(wrap(np.array(1)), arr.dtype)
    if minlength is not None:
        size = maximum(size, cast(convert_to_tensor(minlength), arr.dtype))
    if maxlength is not None:
        size = minimum(size, cast(convert_to_tensor(maxlength), arr.dtype))
    return size


def _histogram_kernel(values: np.ndarray, value_range: np.ndarray, *nbins_input: np.ndarray,
                      nbins: Optional[int], dtype: np.dtype) -> np.ndarray:
    """TF's HistogramFixedWidth: bin floor((max(v, lo) - lo) / step), at most nbins - 1, where
    step = (hi - lo) / nbins in float64 (NaN is refused first, as TF's kernel does). `nbins`,
    or `nbins_input` (read as the graph runs, or a static non-scalar: refused then)."""
    nbins = _checked_histogram(values, value_range, nbins_input[0] if nbins_input else nbins)
    lo, hi = value_range
    if values.dtype.kind in "iu":   # in float64: x - lo may overflow the integer type
        values, lo, hi = values.astype(np.float64), float(lo), float(hi)
    step = float(hi - lo) / nbins
    shifted = (np.where(values < lo, lo, values) - lo).astype(np.float64) / step
    bins = np.where(shifted < nbins - 1, shifted, nbins - 1).astype(np.int64)
    return np.bincount(bins.ravel(), minlength=nbins).astype(dtype)


def _checked_histogram(values: np.ndarray, value_range: np.ndarray, nbins: Any) -> int:
    """`nbins` as an int, after the checks of TF's HistogramFixedWidth kernel, in its order."""
    if np.ndim(value_range) != 1:
        raise InvalidArgumentError("value_range should be a vector. [Op:HistogramFixedWidth]")
    if np.size(value_range) != 2:
        raise InvalidArgumentError("value_range should be a vector of 2 elements. "
                                   "[Op:HistogramFixedWidth]")
    if np.ndim(nbins):
        raise InvalidArgumentError("nbins should be a scalar. [Op:HistogramFixedWidth]")
    lo, hi = value_range.tolist()
    if not lo < hi:
        raise InvalidArgumentError(f"value_range should satisfy value_range[0] < "
                                   f"value_range[1], but got '[{lo:g}, {hi:g}]' "
                                   f"[Op:HistogramFixedWidth]")
    if nbins <= 0:
        raise InvalidArgumentError(f"nbins should be a positive number, but got '{int(nbins)}' "
                                   f"[Op:HistogramFixedWidth]")
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise InvalidArgumentError("Histogram values must not contain NaN "
                                   "[Op:HistogramFixedWidth]")
    return int(nbins)


_histogram = Primitive("HistogramFixedWidth", _histogram_kernel, differentiable=False,
                       shape_rule=_histogram_rule)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values: Any, value_range: Any, nbins: Any = 100,
                          dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """Counts of `values` in `nbins` equal bins spanning `value_range` ([lo, hi]); values
    below lo count in the first bin, those at or above hi in the last."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, dtype_hint=values.dtype)
    if value_range.dtype != values.dtype:
        raise InvalidArgumentError(
            f"cannot compute HistogramFixedWidth as input #1(zero-based) was expected to be a "
            f"{values.dtype.name} tensor but is a {value_range.dtype.name} tensor "
            f"[Op:HistogramFixedWidth]")
    if values._value.dtype not in (np.int32, np.int64, np.float32, np.float64):
        raise InvalidArgumentError(
            f"Value for attr 'T' of {cpp_name(values.dtype)} is not in the list of allowed "
            f"values: int32, int64, float, double [Op:HistogramFixedWidth]")
    attrs = {"nbins": None, "dtype": _dtypes.as_dtype(dtype)._np}
    if read_at_run_time(nbins):   # read when the graph runs, as TF's nbins input
        return bind(_histogram, (values, value_range, nbins), attrs)
    bins = np.asarray(static_value(nbins, "HistogramFixedWidth: nbins"))
    if bins.ndim:   # refused by the kernel, after its checks of value_range
        return bind(_histogram, (values, value_range, convert_to_tensor(bins)), attrs)
    return bind(_histogram, (values, value_range), dict(attrs, nbins=int(bins)))


_RUN_CHECKS.update({
    "gather_nd": _check_gather_nd,
    "scatter_nd": _check_scatter_nd,
    "tensor_scatter": lambda updates, indices, tensor, op_name: _check_scatter(
        indices, updates.shape, tensor.shape, op_name),
    "segment_shapes": _check_segment_shapes,
    "increasing_ids": _check_increasing,
    "bincount_weights": _check_bincount_weights,
    "partitions": _check_partitions,
})
