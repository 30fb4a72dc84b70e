"""The few ops the backward pass itself needs (seeds, sums, reshapes), in one place, and the
batching rules that let `jacobian` push a whole batch of cotangents through one backward pass.

Batched VJPs. A batched cotangent has one extra leading axis (the batch of N cotangents). For
each primitive the batched backward pass (`autodiff/batching.py`) asks `batched_vjp`, which

1. uses the primitive's batched rule (`Primitive.defbatch`: `rule(g, ans, *inputs, **attrs)`
   where `g` carries the leading batch axis), written beside ops whose plain rule reshapes,
   transposes, reduces, splits or slices;
2. else calls the plain VJP rule directly when the primitive is `batch_safe`: rules made of
   broadcasting elementwise ops and matmul already accept a leading batch axis;
3. else (any other primitive, including custom gradients) falls back to calling the plain
   rule once per batch row and stacking: always correct, just slower. A primitive opts in where
   it is defined (tests/autodiff/test_jacobian_registry.py then checks it against the
   row-by-row loop).
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff import backprop as _backprop
from tapeflow.framework.abstract import has_static_shape
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.ops import array_ops as _array_ops
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.array_ops import broadcast_to, concat, reshape, reshape_to, stack, \
    transpose, zeros
from tapeflow.ops.math_ops import add, conj, ones_like, zeros_like  # noqa: F401 - conj: support().conj
from tapeflow.ops.math_ops import _matmul, _matmul_vjp_a, _matmul_vjp_b, _product
from tapeflow.ops.indexed_slices_ops import aggregate  # noqa: F401 - support().aggregate
from tapeflow.ops.reduce_ops import reduce_sum, sum_over, unbroadcast_like  # noqa: F401


def unbroadcast(g: Tensor, shape: tuple) -> Tensor:
    """Sums a cotangent back to an input's `shape`, undoing NumPy broadcasting."""
    g_shape = g._value.shape
    axes = _BROADCAST_AXES.get((g_shape, shape))
    if axes is None:
        lead = len(g_shape) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(shape) if d == 1 and g_shape[lead + i] != 1)
        if len(_BROADCAST_AXES) < 4096:  # a training loop sees a handful of shape pairs
            _BROADCAST_AXES[(g_shape, shape)] = axes
    return reshape_to(sum_over(g, axes), shape)


_BROADCAST_AXES: dict = {}  # (cotangent shape, input shape) -> the axes to sum


def batch_zeros(n: int, like: Tensor) -> Tensor:
    """Zeros shaped `(n,) + like.shape`; where the trace does not know that shape, an op that
    reads it as the graph runs."""
    if has_static_shape(like._value):
        return zeros((n,) + like._value.shape, like.dtype)
    return _array_ops.tile(stack([zeros_like(like)]), [n] + [1] * like._value.ndim)


def batch_fit(g: Tensor, x: Tensor, n: int) -> Tensor:
    """A batched cotangent `g` summed to `(n,) + x.shape` (undoing broadcasting)."""
    if not (has_static_shape(g._value) and has_static_shape(x._value)):
        return unbroadcast_like(g, batch_zeros(n, x))
    if g._value.shape != (n,) + x._value.shape:
        g = batch_unbroadcast(g, x._value.shape)
    return g


def batch_unbroadcast(g: Tensor, shape: tuple) -> Tensor:
    """Sums a batched cotangent (leading batch axis) back to `(batch,) + shape`."""
    g_shape = g._value.shape
    lead = len(g_shape) - 1 - len(shape)
    if lead < 0:
        raise ValueError(f"batched cotangent of shape {g_shape} has no batch axis for an "
                         f"input of shape {shape}")
    axes = tuple(range(1, 1 + lead)) + tuple(
        1 + lead + i for i, d in enumerate(shape) if d == 1 and g_shape[1 + lead + i] != 1)
    if axes:
        g = reduce_sum(g, axis=axes, keepdims=False)
    target = g_shape[:1] + tuple(shape)
    return g if g._value.shape == target else reshape(g, target)


def one_hot_seed(target: Tensor, index: int) -> Tensor:
    """A cotangent for `target` that is 1 at flat position `index` and 0 elsewhere."""
    seed = np.zeros(target._value.size, target._value.dtype)
    seed[index] = 1
    return wrap(seed.reshape(target._value.shape))


def batch_one_hot_seed(target: Tensor, index: int) -> Tensor:
    """1 at flat position `index` of every example (axis 0) of `target`, 0 elsewhere."""
    batch = target._value.shape[0]
    seed = np.zeros((batch, target._value.size // max(batch, 1)), target._value.dtype)
    seed[:, index] = 1
    return wrap(seed.reshape(target._value.shape))


def identity_seeds(target: Tensor, start: int, stop: int) -> Tensor:
    """Cotangents `start..stop-1` of the identity: row i is 1 at flat position i of `target`."""
    size = target._value.size
    seeds = np.zeros((stop - start, size), target._value.dtype)
    seeds[np.arange(stop - start), np.arange(start, stop)] = 1
    return wrap(seeds.reshape((stop - start,) + target._value.shape))


def batch_identity_seeds(target: Tensor, start: int, stop: int) -> Tensor:
    """For `batch_jacobian`: row r (of `start..stop-1`) is 1 at flat position r of every
    example of `target` (axis 0 is the example axis)."""
    batch = target._value.shape[0]
    row = target._value.size // max(batch, 1)
    seeds = np.zeros((stop - start, batch, row), target._value.dtype)
    seeds[np.arange(stop - start), :, np.arange(start, stop)] = 1
    return wrap(seeds.reshape((stop - start,) + target._value.shape))


# -- batched VJP rules ---------------------------------------------------------------------------

def batched_vjp(prim: Any, g: Any, ans: Any, inputs: tuple, attrs: dict,
                live: Optional[set] = None) -> tuple:
    """The input cotangents, each with the leading batch axis (None where there is none).
    With `live` (the ids of the values that need one), per-input rules run only for those:
    a constant operand's batched cotangent can be the largest array of the pass."""
    rules = prim.batch_vjps if prim.batch_vjps is not None else \
        prim.vjps if prim.batch_vjp is None and prim.batch_safe else None
    if rules is not None and live is not None:
        return tuple(rule(g, ans, *inputs, **attrs) if id(x) in live else None
                     for rule, x in zip(rules, inputs))
    if prim.batch_vjp is not None:
        grads = prim.batch_vjp(g, ans, *inputs, **attrs)
    elif prim.batch_safe:
        grads = prim.vjp(g, ans, *inputs, **attrs)
    else:
        return _row_by_row(prim, g, ans, inputs, attrs)
    return grads if isinstance(grads, (tuple, list)) else (grads,)


def _row_by_row(prim: Any, g: Any, ans: Any, inputs: tuple, attrs: dict) -> tuple:
    """The safe fallback: the plain rule once per batch row, results stacked."""
    gs = list(g) if prim.multiple_results else None
    n = (gs[0] if gs is not None else g)._value.shape[0]
    rows = []
    for i in range(n):
        gi = tuple(x[i] for x in gs) if gs is not None else g[i]
        out = prim.vjp(gi, ans, *inputs, **attrs)
        rows.append(out if isinstance(out, (tuple, list)) else (out,))
    result = []
    for index, x in enumerate(inputs):
        column = [row[index] if index < len(row) else None for row in rows]
        if all(c is None for c in column):
            result.append(None)
            continue
        column = [zeros_like(x) if c is None else _unbroadcast_row(c, x) for c in column]
        result.append(stack(column))
    return tuple(result)


def _unbroadcast_row(c: Any, x: Tensor) -> Tensor:
    c = c if isinstance(c, Tensor) else convert_to_tensor(c, dtype=x.dtype)
    return c if c._value.shape == x._value.shape else unbroadcast(c, x._value.shape)


# -- MatMul, batched ------------------------------------------------------------------------------
# A batch of N cotangents (N, ..., m, n) through a product with one matrix is N stacked small
# products in the plain rules, which NumPy runs slowly (with a multi-threaded BLAS, up to 15x
# slower than one product; worst with a transposed matrix). Where the other operand is one
# matrix, every row of every cotangent meets that same matrix: the batch folds into the rows of
# one (N*...*m, n) product.

def _swap_last(x: Tensor) -> Tensor:
    rank = x._value.ndim
    return transpose(x, tuple(range(rank - 2)) + (rank - 1, rank - 2))


def _foldable(*xs: Tensor) -> bool:
    return all(has_static_shape(x._value) for x in xs)


def _batch_times(g: Tensor, b: Tensor, transpose_b: bool) -> Tensor:
    """`g @ op(b)` for a batch `g` (..., m, n) and one matrix `b`, as one product (g's rows
    are copied into order first where g is a transposed view: still far cheaper than the
    stacked products)."""
    shape = g._value.shape
    rows = _product(reshape_to(g, (_size(shape[:-1]), shape[-1])), b, False, transpose_b)
    return reshape_to(rows, shape[:-1] + rows._value.shape[-1:])


def _size(dims: tuple) -> int:
    return int(np.prod(dims, dtype=np.int64))


def _matmul_batch_a(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, transpose_a: bool,
                    transpose_b: bool, unranked: bool = False) -> Tensor:
    if unranked or b._value.ndim != 2 or not _foldable(g, b):
        return _matmul_vjp_a(g, ans, a, b, transpose_a, transpose_b)
    grad = _batch_times(g, b, not transpose_b)   # g @ op(b)^T
    return _swap_last(grad) if transpose_a else grad


def _matmul_batch_b(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, transpose_a: bool,
                    transpose_b: bool, unranked: bool = False) -> Tensor:
    if unranked or not _foldable(g, a, b):
        return _matmul_vjp_b(g, ans, a, b, transpose_a, transpose_b)
    if a._value.ndim == 2:
        flat_a, flat_g = a, g
    elif b._value.ndim == 2:
        # A batched `a` and one matrix `b`: b's cotangent sums over a's batch, which folds
        # into the contraction: op(a) as one (batch*m, k) matrix, g as (N, batch*m, n).
        shape_a, shape_g = a._value.shape, g._value.shape
        k = shape_a[-2 if transpose_a else -1]
        flat_a = reshape_to(_swap_last(a) if transpose_a else a, (_size(shape_a) // k, k))
        flat_g = reshape_to(g, (shape_g[0], _size(shape_g[1:-1]), shape_g[-1]))
        transpose_a = False
    else:
        return _matmul_vjp_b(g, ans, a, b, transpose_a, transpose_b)
    grad = _batch_times(_swap_last(flat_g), flat_a, transpose_a)   # g^T @ op(a)
    return grad if transpose_b else _swap_last(grad)


_matmul.defbatch(_matmul_batch_a, _matmul_batch_b)


__all__ = ["unbroadcast", "batch_unbroadcast", "batch_zeros", "batch_fit", "one_hot_seed",
           "batch_one_hot_seed",
           "identity_seeds", "batch_identity_seeds", "batched_vjp",
           "unbroadcast_like", "add", "convert_to_tensor", "ones_like", "zeros_like", "zeros",
           "stack", "reshape", "broadcast_to", "reduce_sum", "concat", "transpose", "Tensor"]

_backprop.install_support(sys.modules[__name__])
