"""`tf.sparse`: the ops on `tf.SparseTensor` (framework/sparse_tensor.py).

The index bookkeeping (merging, sorting, slicing, reshaping coordinates) runs in small
non-differentiable primitives, so that it works under tf.function where the number of values
is known only at run time. The values then go through differentiable ops that already exist
(gather, scatter_nd, unsorted segment sums, where), which gives every op TF's gradients with
respect to the values, to any order, with no rule of its own. The one new differentiable
primitive is `SparseTensorDenseMatMul`, computed with scipy.sparse (imported on first use);
its rules are written with tapeflow ops (the dense operand's is the op itself, transposed).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.convert import mismatch_error
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import read_at_run_time
from tapeflow.ops import array_ops, index_ops, manip_ops, math_ops, reduce_ops
from tapeflow.ops.control_deps import get_static_value

_INT64 = np.dtype(np.int64)


def _int64(x: Any) -> Tensor:
    return math_ops.cast(convert_to_tensor(x), _dtypes.int64)


def _const(value: Any) -> Tensor:
    return wrap(np.asarray(value, _INT64))


def _sparse(x: Any, op: str = "sparse op") -> SparseTensor:
    if isinstance(x, SparseTensor):
        return x
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):  # a SparseTensorValue
        return SparseTensor.from_value(x)
    raise TypeError(f"{op}: expected a SparseTensor, got {type(x).__name__}: {x!r}")


def _static_shape(sp: SparseTensor, op: str) -> list:
    """The dense shape as Python ints (the trace's spec or the value); ops that size their
    outputs by it need it while tracing."""
    if sp._dims.is_fully_defined():
        return sp._dims.as_list()
    value = get_static_value(sp.dense_shape)
    if value is None:
        raise NotImplementedError(f"{op}: the SparseTensor's dense shape {sp.shape} is known "
                                  f"only when the traced graph runs; tapeflow needs it while "
                                  f"tracing (pass a SparseTensor of known shape).")
    return [int(d) for d in value]


def _make(indices: Tensor, values: Tensor, dense_shape: Any,
          shape: Optional[Sequence] = None) -> SparseTensor:
    result = SparseTensor(indices, values, dense_shape)
    if shape is not None and not result.shape.is_fully_defined():
        from tapeflow.framework.tensor_shape import TensorShape
        result._shape = result._dims = TensorShape(list(shape))
    return result


def _known(sp: SparseTensor) -> Optional[list]:
    return sp._dims.as_list() if sp._dims.rank is not None else None


def _index_prim(name: str, kernel: Callable, rule: Callable, multiple: bool = True) -> Primitive:
    return Primitive(name, kernel, multiple_results=multiple, differentiable=False,
                     shape_rule=rule)


def _rows(a: ShapedArray) -> Any:
    return None if a.shape is None else a.shape[0]


def _rank_of(a: ShapedArray) -> Any:
    return None if a.shape is None or len(a.shape) < 2 else a.shape[1]


def _index_text(row: np.ndarray) -> str:
    return "[" + ",".join(str(int(i)) for i in row) + "]"


# -- validation (to_dense) ------------------------------------------------------------------------

def _validate_kernel(indices: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """TF's SparseToDense checks: in bounds, in row-major order, not repeated."""
    shape_text = _index_text(shape)
    for i, row in enumerate(indices):
        if np.any(row < 0) or np.any(row >= shape):
            raise InvalidArgumentError(f"indices[{i}] = {_index_text(row)} is out of bounds: "
                                       f"need 0 <= index < {shape_text} [Op:SparseToDense]")
        if i:
            prev = tuple(indices[i - 1])
            if tuple(row) == prev:
                raise InvalidArgumentError(f"indices[{i}] = {_index_text(row)} is repeated "
                                           f"[Op:SparseToDense]")
            if tuple(row) < prev:
                raise InvalidArgumentError(
                    f"indices[{i}] = {_index_text(row)} is out of order. Many sparse ops "
                    f"require sorted indices.\n    Use `tf.sparse.reorder` to create a "
                    f"correctly ordered copy.\n\n [Op:SparseToDense]")
    return indices


_validate = _index_prim("SparseToDense", _validate_kernel,
                        lambda indices, shape: ShapedArray(indices.shape, indices.dtype), False)


@tf_export("sparse.to_dense")
def to_dense(sp_input: Any, default_value: Any = None, validate_indices: bool = True,
             name: Optional[str] = None) -> Tensor:
    """The dense tensor of `sp_input`, `default_value` (0) where it has no value. With
    `validate_indices`, indices must be in bounds, sorted and unique (InvalidArgumentError)."""
    sp = _sparse(sp_input, "to_dense")
    indices = sp.indices
    if validate_indices:
        indices = bind(_validate, (indices, sp.dense_shape))
    shape = sp._dims.as_list() if sp._dims.is_fully_defined() else sp.dense_shape
    dense = index_ops.scatter_nd(indices, sp.values, shape)
    if default_value is None:
        return dense
    # A Python default converts to the values' dtype (TypeError where it cannot), a tensor
    # must have it.
    default = default_value if isinstance(default_value, TensorLike) else \
        convert_to_tensor(default_value, dtype=sp.dtype)
    if default.dtype != sp.dtype:
        raise mismatch_error("SparseToDense", 3, sp.dtype, default.dtype)
    mask = index_ops.scatter_nd(indices, math_ops.ones_like(sp.values, dtype=_dtypes.bool),
                                sp.dense_shape) if sp.dtype != _dtypes.bool else \
        index_ops.scatter_nd(indices, math_ops.ones_like(sp.values, dtype=_dtypes.int32),
                             sp.dense_shape) > 0
    return math_ops.where(mask, dense, default)


@tf_export("sparse.from_dense")
def from_dense(tensor: Any, name: Optional[str] = None) -> SparseTensor:
    """The SparseTensor of the nonzero (non-empty for strings) elements of `tensor`, in
    row-major order."""
    tensor = convert_to_tensor(tensor)
    zero = b"" if tensor.dtype == _dtypes.string else 0
    indices = math_ops.where(math_ops.not_equal(tensor, math_ops.zeros_like(tensor)
                                                if zero == 0 else zero))
    values = index_ops.gather_nd(tensor, indices)
    return _make(indices, values, array_ops.shape(tensor, out_type=_dtypes.int64),
                 tensor.shape.as_list() if tensor.shape.rank is not None else None)


# -- matmul ----------------------------------------------------------------------------------------

def _scipy_sparse():
    import scipy.sparse  # first use only: keeps `import tapeflow` fast
    return scipy.sparse


def _matmul_kernel(indices: np.ndarray, values: np.ndarray, b: np.ndarray,
                   num_rows: int, num_cols: int) -> np.ndarray:
    k = num_cols
    for i, (r, c) in enumerate(indices):
        if not 0 <= c < k:
            raise InvalidArgumentError(f"k ({k}) from index[{i},1] out of bounds (>={k}) "
                                       f"[Op:SparseTensorDenseMatMul]")
        if not 0 <= r < num_rows:
            raise InvalidArgumentError(f"row {r} from index[{i},0] out of bounds "
                                       f"(>={num_rows}) [Op:SparseTensorDenseMatMul]")
    if values.dtype.kind in "iub" or values.size == 0:  # exact integer sums, as TF
        out = np.zeros((num_rows, b.shape[1]), np.result_type(values, b))
        np.add.at(out, indices[:, 0], values[:, None] * b[indices[:, 1]])
        return out
    a = _scipy_sparse().csr_matrix((values, (indices[:, 0], indices[:, 1])),
                                   shape=(num_rows, k))
    return np.asarray(a @ b, dtype=values.dtype)


def _matmul_rule(indices: ShapedArray, values: ShapedArray, b: ShapedArray,
                 num_rows: int, num_cols: int) -> ShapedArray:
    cols = None if b.shape is None else b.shape[1]
    return ShapedArray((num_rows, cols), values.dtype)


def _matmul_values_vjp(g: Tensor, ans: Tensor, indices: Tensor, values: Tensor, b: Tensor,
                       num_rows: int, num_cols: int) -> Tensor:
    rows, cols = indices[:, 0], indices[:, 1]
    return reduce_ops.reduce_sum(array_ops.gather(g, rows) * array_ops.gather(b, cols), axis=1)


def _matmul_b_vjp(g: Tensor, ans: Tensor, indices: Tensor, values: Tensor, b: Tensor,
                  num_rows: int, num_cols: int) -> Tensor:
    swapped = manip_ops.reverse(indices, [1])   # A's transpose: its (col, row) pairs
    return bind(_MATMUL, (swapped, values, g), {"num_rows": num_cols, "num_cols": num_rows})


_MATMUL = Primitive("SparseTensorDenseMatMul", _matmul_kernel,
                    shape_rule=_matmul_rule).defvjp(lambda *a, **k: None, _matmul_values_vjp,
                                          _matmul_b_vjp)


def _adjoint(x: Tensor) -> Tensor:
    x = array_ops.transpose(x)
    return math_ops.conj(x) if x.dtype.is_complex else x


@tf_export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: Optional[str] = None) -> Tensor:
    """`op(sp_a) @ op(b)` for a rank-2 SparseTensor and a dense matrix (or a dense matrix and
    a SparseTensor), op being the adjoint where asked."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # a @ B = (B^H a^H)^H
        return _adjoint(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b,
                                            adjoint_b=not adjoint_a))
    sp = _sparse(sp_a, "sparse_dense_matmul")
    b = convert_to_tensor(b)
    if b.dtype != sp.dtype:
        raise TypeError(f"sparse_dense_matmul: the sparse values are {sp.dtype.name} and the "
                        f"dense matrix {b.dtype.name}; they must have one dtype")
    if sp.shape.rank not in (None, 2) or b.shape.rank not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank "
                         f"{sp.shape.rank if sp.shape.rank != 2 else b.shape.rank} for "
                         f"'{{{{node SparseTensorDenseMatMul}}}}'")
    rows, cols = _static_shape(sp, "sparse_dense_matmul")
    indices, values = sp.indices, sp.values
    if adjoint_a:
        indices = manip_ops.reverse(indices, [1])
        values = math_ops.conj(values) if values.dtype.is_complex else values
        rows, cols = cols, rows
    if adjoint_b:
        b = _adjoint(b)
    inner = b.shape.as_list()[0] if b.shape.rank else None
    if inner is not None and inner != cols:
        raise InvalidArgumentError(
            f"Cannot multiply A and B because inner dimension does not match: {cols} vs. "
            f"{inner}.  Did you forget a transpose?  Dimensions of A: [{rows}, {cols}).  "
            f"Dimensions of B: {b.shape} [Op:SparseTensorDenseMatMul]")
    return bind(_MATMUL, (indices, values, b), {"num_rows": rows, "num_cols": cols})


# -- reductions -----------------------------------------------------------------------------

def _axes(axis: Any, rank: int) -> list:
    if axis is None:
        return list(range(rank))
    axis = get_static_value(axis) if isinstance(axis, Tensor) else axis
    axes = [int(a) for a in np.atleast_1d(axis)]
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Invalid reduction dimension {a}, for input with "
                                       f"{rank} dimensions.")
    return sorted({a % rank for a in axes})


def _reduced(sp: SparseTensor, axis: Any, keepdims: bool, op: str) -> tuple:
    """(kept-column indices [N, r'], output shape, the rank r' columns kept)."""
    shape = _static_shape(sp, op)
    axes = _axes(axis, len(shape))
    if keepdims:
        out_shape = [1 if i in axes else d for i, d in enumerate(shape)]
        mask = np.array([0 if i in axes else 1 for i in range(len(shape))], _INT64)
        kept = sp.indices * _const(mask)
    else:
        keep = [i for i in range(len(shape)) if i not in axes]
        out_shape = [shape[i] for i in keep]
        kept = array_ops.gather(sp.indices, _const(keep), axis=1)
    return kept, out_shape


def _linear(indices: Tensor, shape: list) -> Tensor:
    strides = np.cumprod([1] + shape[::-1])[:-1][::-1].astype(_INT64)
    return reduce_ops.reduce_sum(indices * _const(strides), axis=1)


@tf_export("sparse.reduce_sum")
def reduce_sum(sp_input: Any, axis: Any = None, keepdims: Any = None,
               output_is_sparse: bool = False, name: Optional[str] = None) -> Any:
    """The sum of the values over `axis` (all axes for None), dense (a SparseTensor with
    `output_is_sparse`)."""
    sp = _sparse(sp_input, "reduce_sum")
    if axis is None and not keepdims and not output_is_sparse:
        return reduce_ops.reduce_sum(sp.values)
    if read_at_run_time(axis) and not output_is_sparse:   # TF's run-time reduction axes
        return _run_time_reduction(sp, axis, bool(keepdims), "sum")
    kept, out_shape = _reduced(sp, axis, bool(keepdims), "reduce_sum")
    if not out_shape and not output_is_sparse:   # every axis: a scalar (scatter_nd has none)
        return reduce_ops.reduce_sum(sp.values)
    dense = index_ops.scatter_nd(kept, sp.values, _const(out_shape))
    return _to_sparse_at(dense, kept, out_shape) if output_is_sparse else dense


@tf_export("sparse.reduce_max")
def reduce_max(sp_input: Any, axis: Any = None, keepdims: Any = None,
               output_is_sparse: bool = False, name: Optional[str] = None) -> Any:
    """The maximum of the explicit values over `axis` (missing values are not zeros, as
    in TF); dense, or a SparseTensor with `output_is_sparse`."""
    sp = _sparse(sp_input, "reduce_max")
    if read_at_run_time(axis) and not output_is_sparse:   # TF's run-time reduction axes
        return _run_time_reduction(sp, axis, bool(keepdims), "max")
    kept, out_shape = _reduced(sp, axis, bool(keepdims), "reduce_max")
    size = int(np.prod(out_shape, dtype=np.int64))
    groups = _linear(kept, out_shape)
    flat = index_ops.unsorted_segment_max(sp.values, groups, size)
    # As TF: an output no value reaches is 0 (not the dtype's lowest).
    hits = index_ops.unsorted_segment_sum(math_ops.ones_like(groups, dtype=_dtypes.int32),
                                          groups, size)
    flat = math_ops.where(math_ops.greater(hits, 0), flat, math_ops.zeros_like(flat))
    dense = array_ops.reshape(flat, out_shape)
    return _to_sparse_at(dense, kept, out_shape) if output_is_sparse else dense


def _check_axes(axes: np.ndarray, rank: np.ndarray) -> None:
    for a in np.ravel(axes).tolist():
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Invalid reduction dimension {a}, for input with "
                                       f"{int(rank)} dimensions.")


def _check_expand_axis(axis: np.ndarray, rank: np.ndarray) -> None:
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(f"Axis {int(axis)} out of range [{int(-rank - 1)}, "
                                   f"{int(rank)}]")


def _check_reset_shape(new: np.ndarray, old: np.ndarray) -> None:
    if new.shape != old.shape:
        raise InvalidArgumentError(f"Dimensions {len(new)} and {len(old)} are not compatible")
    if not np.all(old <= new):   # (TF's text names the two shapes the other way round)
        raise InvalidArgumentError(f"Requested new_shape should have dimension sizes >= "
                                   f"sp_input.shape.  Found new_shape ({old}), sp_input.shape "
                                   f"({new}).")


# The run-time checks of the paths below (index_ops.checked runs them as the graph runs).
index_ops._RUN_CHECKS.update({"sparse_axes": _check_axes,
                              "sparse_expand_axis": _check_expand_axis,
                              "sparse_reset_shape": _check_reset_shape})


def _run_time_reduction(sp: SparseTensor, axis: Any, keepdims: bool, kind: str) -> Tensor:
    """A dense reduction over axes read when the graph runs: each value's output position
    (its indices with the reduced columns zeroed, in the keepdims shape) and a segment sum or
    max over them, as the static path does with known axes. TF's range check is an Assert."""
    rank = array_ops.size(sp.dense_shape, out_type=_dtypes.int64)
    axes = index_ops.checked(array_ops.reshape(_int64(axis), [-1]), (rank,), "sparse_axes")
    axes = math_ops.floormod(axes, rank)
    columns = array_ops.range(rank)
    kept_mask = reduce_ops.reduce_all(math_ops.not_equal(
        array_ops.expand_dims(columns, 1), array_ops.expand_dims(axes, 0)), axis=1)
    out_shape = math_ops.where(kept_mask, sp.dense_shape, math_ops.ones_like(sp.dense_shape))
    kept = sp.indices * math_ops.cast(kept_mask, _dtypes.int64)
    strides = manip_ops.cumprod(out_shape, exclusive=True, reverse=True)
    groups = reduce_ops.reduce_sum(kept * strides, axis=1)
    size = reduce_ops.reduce_prod(out_shape)
    if kind == "sum":
        flat = index_ops.unsorted_segment_sum(sp.values, groups, size)
    else:   # as TF: an output no value reaches is 0 (not the dtype's lowest)
        flat = index_ops.unsorted_segment_max(sp.values, groups, size)
        hits = index_ops.unsorted_segment_sum(math_ops.ones_like(groups, dtype=_dtypes.int32),
                                              groups, size)
        flat = math_ops.where(math_ops.greater(hits, 0), flat, math_ops.zeros_like(flat))
    if not keepdims:
        out_shape = index_ops.boolean_mask(sp.dense_shape, kept_mask)
    return array_ops.reshape(flat, out_shape)


def _unique_rows_kernel(indices: np.ndarray) -> np.ndarray:
    if indices.shape[0] == 0:
        return indices
    return np.unique(indices, axis=0)


_unique_rows = _index_prim("SparseReduceSumSparse", _unique_rows_kernel,
                           lambda x: ShapedArray((None, _rank_of(x)), x.dtype), False)


def _to_sparse_at(dense: Tensor, kept: Tensor, out_shape: list) -> SparseTensor:
    """The SparseTensor of `dense` at the distinct rows of `kept`, sorted."""
    indices = bind(_unique_rows, (kept,))
    return _make(indices, index_ops.gather_nd(dense, indices), _const(out_shape), out_shape)


def reduce_sum_sparse(sp_input: Any, axis: Any = None, keepdims: Any = None,
                      name: Optional[str] = None) -> SparseTensor:
    """`reduce_sum(..., output_is_sparse=True)` (TF 1's tf.sparse.reduce_sum_sparse)."""
    return reduce_sum(sp_input, axis, keepdims, output_is_sparse=True)


def reduce_max_sparse(sp_input: Any, axis: Any = None, keepdims: Any = None,
                      name: Optional[str] = None) -> SparseTensor:
    """`reduce_max(..., output_is_sparse=True)` (TF 1's tf.sparse.reduce_max_sparse)."""
    return reduce_max(sp_input, axis, keepdims, output_is_sparse=True)


# -- add, maximum, minimum ----------------------------------------------------------------------

def _union_kernel(a: np.ndarray, b: np.ndarray) -> tuple:
    both = np.concatenate([a, b])
    if both.shape[0] == 0:
        return both, np.zeros(0, _INT64), np.zeros(0, _INT64)
    union, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(_INT64)
    return union, inverse[:a.shape[0]], inverse[a.shape[0]:]


_union = _index_prim("SparseAdd", _union_kernel, lambda a, b: (
    ShapedArray((None, _rank_of(a)), a.dtype), ShapedArray((_rows(a),), _INT64),
    ShapedArray((_rows(b),), _INT64)))


def _check_same_shape(a: SparseTensor, b: SparseTensor, op: str) -> None:
    sa, sb = get_static_value(a.dense_shape), get_static_value(b.dense_shape)
    if sa is not None and sb is not None and (len(sa) != len(sb) or np.any(sa != sb)):
        raise InvalidArgumentError(f"Operands' shapes do not match: A.shape={_index_text(sa)} "
                                   f"and B.shape={_index_text(sb)} [Op:{op}]")
    if a.dtype != b.dtype:
        raise TypeError(f"{op}: the operands' values are {a.dtype.name} and {b.dtype.name}")


def _union_map(a: SparseTensor, b: SparseTensor) -> tuple:
    """(a's positions in the union, b's)."""
    return bind(_union, (a.indices, b.indices))[1:]


def _on_union(a: SparseTensor, b: SparseTensor) -> tuple:
    """(union indices, a's values there, b's values there), 0 where one has none."""
    indices, a_map, b_map = bind(_union, (a.indices, b.indices))
    n = array_ops.shape(indices, out_type=_dtypes.int64)[0]
    return (indices, index_ops.unsorted_segment_sum(a.values, a_map, n),
            index_ops.unsorted_segment_sum(b.values, b_map, n))


@tf_export("sparse.add")
def add(a: Any, b: Any, threshold: Any = 0) -> Any:
    """`a + b`: a SparseTensor for two SparseTensors (entries whose sum has magnitude below
    `threshold` dropped), a dense Tensor when one of them is dense."""
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("add: at least one of the operands must be a SparseTensor")
    if not isinstance(a, SparseTensor) or not isinstance(b, SparseTensor):
        sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
        dense = convert_to_tensor(dense, dtype=sp.dtype)
        return index_ops.tensor_scatter_nd_add(dense, sp.indices, sp.values)
    _check_same_shape(a, b, "SparseAdd")
    indices, va, vb = _on_union(a, b)
    values = va + vb
    threshold = get_static_value(threshold) if isinstance(threshold, Tensor) else threshold
    if threshold is not None and np.any(np.asarray(threshold) != 0):
        # As TF's SparseAdd: only a sum of two entries is dropped for its magnitude; an
        # entry of one operand alone is kept as it is.
        n = array_ops.shape(indices, out_type=_dtypes.int64)[0]
        both = index_ops.unsorted_segment_sum(
            math_ops.ones_like(a.values, dtype=_dtypes.int32), _union_map(a, b)[0], n) + \
            index_ops.unsorted_segment_sum(
                math_ops.ones_like(b.values, dtype=_dtypes.int32), _union_map(a, b)[1], n)
        keep = math_ops.logical_or(math_ops.less(both, 2), math_ops.greater_equal(
            math_ops.abs(values), math_ops.cast(threshold, values.dtype)))
        indices = index_ops.boolean_mask(indices, keep)
        values = index_ops.boolean_mask(values, keep)
    return _make(indices, values, a.dense_shape, _known(a))


def _elementwise(a: Any, b: Any, fn: Callable, op: str) -> SparseTensor:
    a, b = _sparse(a, op), _sparse(b, op)
    _check_same_shape(a, b, op)
    indices, va, vb = _on_union(a, b)
    return _make(indices, fn(va, vb), a.dense_shape, _known(a))


@tf_export("sparse.maximum")
def maximum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """The elementwise maximum of two SparseTensors of one shape (missing values are 0)."""
    return _elementwise(sp_a, sp_b, math_ops.maximum, "SparseSparseMaximum")


@tf_export("sparse.minimum")
def minimum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """The elementwise minimum of two SparseTensors of one shape (missing values are 0)."""
    return _elementwise(sp_a, sp_b, math_ops.minimum, "SparseSparseMinimum")


# -- reordering and reshaping ---------------------------------------------------------------------

def _order_kernel(indices: np.ndarray) -> np.ndarray:
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0], dtype=_INT64)
    return np.lexsort(indices.T[::-1]).astype(_INT64)


_order = _index_prim("SparseReorder", _order_kernel,
                     lambda x: ShapedArray((_rows(x),), _INT64), False)


def _permuted(sp: SparseTensor, perm: Tensor, shape: Any = None) -> SparseTensor:
    return _make(array_ops.gather(sp.indices, perm), array_ops.gather(sp.values, perm),
                 sp.dense_shape, shape if shape is not None else
                 _known(sp))


@tf_export("sparse.reorder")
def reorder(sp_input: Any, name: Optional[str] = None) -> SparseTensor:
    """The same SparseTensor with its entries in row-major (lexicographic) order."""
    sp = _sparse(sp_input, "reorder")
    return _permuted(sp, bind(_order, (sp.indices,)))


def _reshape_kernel(indices: np.ndarray, old: np.ndarray, new: np.ndarray) -> tuple:
    size = int(np.prod(old))
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(f"only one output dimension may be -1, not both "
                                   f"{unknown[0]} and {unknown[1]} [Op:SparseReshape]")
    shape = new.copy()
    if unknown:
        known = int(np.prod([d for d in new if d != -1]))
        if known == 0 or size % known:
            raise InvalidArgumentError(
                f"Input to reshape is a SparseTensor with {size} dense values, but the "
                f"requested shape requires a multiple of {known}. inputShape="
                f"{_index_text(old)} outputShape={_index_text(new)} [Op:SparseReshape]")
        shape[unknown[0]] = size // known
    if int(np.prod(shape)) != size:
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {size} dense values, but the requested shape "
            f"has {int(np.prod(shape))}. inputShape={_index_text(old)} outputShape="
            f"{_index_text(new)} [Op:SparseReshape]")
    if indices.shape[0] == 0:
        return np.zeros((0, len(shape)), _INT64), shape.astype(_INT64)
    linear = np.ravel_multi_index(tuple(indices.T), tuple(old))
    return np.stack(np.unravel_index(linear, tuple(shape)), axis=1).astype(_INT64), \
        shape.astype(_INT64)


_reshape = _index_prim("SparseReshape", _reshape_kernel, lambda i, old, new: (
    ShapedArray((_rows(i), _rows(new)), _INT64), ShapedArray(new.shape, _INT64)))


@tf_export("sparse.reshape")
def reshape(sp_input: Any, shape: Any, name: Optional[str] = None) -> SparseTensor:
    """The same values with indices for the dense shape `shape` (one dim may be -1)."""
    sp = _sparse(sp_input, "reshape")
    new = _int64(shape)
    indices, dense_shape = bind(_reshape, (sp.indices, sp.dense_shape, new))
    static = get_static_value(new)
    if static is not None and sp._dims.is_fully_defined():
        size = int(np.prod(sp._dims.as_list()))
        static = [int(d) for d in static]
        if -1 in static:
            known = int(np.prod([d for d in static if d != -1]))
            if known and size % known == 0:
                static[static.index(-1)] = size // known
        if -1 not in static and int(np.prod(static)) != size:
            raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                             f"{static} ({int(np.prod(static))} elements) for "
                             f"'{{{{node SparseReshape}}}} = SparseReshape[]'")
    return _make(indices, sp.values, dense_shape, static)


@tf_export("sparse.transpose")
def transpose(sp_input: Any, perm: Any = None, name: Optional[str] = None) -> SparseTensor:
    """The SparseTensor with its axes permuted by `perm` (reversed by default), reordered."""
    sp = _sparse(sp_input, "transpose")
    if read_at_run_time(perm):   # TF's: gathers of the index columns and the shape, reordered
        perm = _int64(perm)
        return reorder(_make(array_ops.gather(sp.indices, perm, axis=1), sp.values,
                             array_ops.gather(sp.dense_shape, perm)))
    rank = sp._dims.rank if sp._dims.rank is not None else int(sp.dense_shape.shape[0])
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.asarray(
        get_static_value(perm) if isinstance(perm, Tensor) else perm)]
    indices = array_ops.gather(sp.indices, _const(perm), axis=1)
    dense_shape = array_ops.gather(sp.dense_shape, _const(perm))
    static = None if sp._dims.rank is None else [sp._dims.as_list()[p] for p in perm]
    moved = _make(indices, sp.values, dense_shape, static)
    return reorder(moved)


@tf_export("sparse.expand_dims")
def expand_dims(sp_input: Any, axis: Any = None, name: Optional[str] = None) -> SparseTensor:
    """The SparseTensor with a dimension of size 1 inserted at `axis`."""
    sp = _sparse(sp_input, "expand_dims")
    if read_at_run_time(axis):   # TF's run-time axis
        return _run_time_expand_dims(sp, axis)
    shape = _static_shape(sp, "expand_dims")
    axis = -1 if axis is None else int(get_static_value(axis) if isinstance(axis, Tensor)
                                       else axis)
    rank = len(shape)
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(f"Axis {axis} out of range [{-rank - 1}, {rank}]")
    axis = axis % (rank + 1)
    zeros = math_ops.zeros_like(sp.indices[:, :1])
    indices = array_ops.concat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], axis=1)
    new_shape = shape[:axis] + [1] + shape[axis:]
    return _make(indices, sp.values, _const(new_shape), new_shape)


def _run_time_expand_dims(sp: SparseTensor, axis: Any) -> SparseTensor:
    """expand_dims at an axis read when the graph runs: a zero column (and a dim of 1) moved
    into place by a gather, checked in range by an Assert (TF's checks it in its kernel)."""
    rank = array_ops.size(sp.dense_shape, out_type=_dtypes.int64)
    axis = index_ops.checked(_int64(axis), (rank,), "sparse_expand_axis")
    axis = math_ops.where(math_ops.less(axis, 0), axis + rank + 1, axis)
    columns = array_ops.range(rank + 1)
    # Column c of the result: the input's c (before axis), the new one (at it), c - 1 after.
    order = math_ops.where(math_ops.less(columns, axis), columns,
                           math_ops.where(math_ops.equal(columns, axis), rank, columns - 1))
    zeros = math_ops.zeros_like(sp.indices[:, :1])
    indices = array_ops.gather(array_ops.concat([sp.indices, zeros], axis=1), order, axis=1)
    shape = array_ops.gather(array_ops.concat([sp.dense_shape, _const([1])], axis=0), order)
    return _make(indices, sp.values, shape)


# -- slicing and concatenation --------------------------------------------------------------------

def _slice_kernel(indices: np.ndarray, shape: np.ndarray, start: np.ndarray,
                  size: np.ndarray) -> tuple:
    end = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < end), axis=1)
    out_shape = np.maximum(end - start, 0)
    if np.any(out_shape == 0) or np.any(start >= shape):
        out_shape = np.where(start >= shape, 0, out_shape)
    return np.flatnonzero(keep).astype(_INT64), (indices[keep] - start).astype(_INT64), \
        out_shape.astype(_INT64)


_slice = _index_prim("SparseSlice", _slice_kernel, lambda i, shape, start, size: (
    ShapedArray((None,), _INT64), ShapedArray((None, _rank_of(i)), _INT64),
    ShapedArray(shape.shape, _INT64)))


@tf_export("sparse.slice")
def slice(sp_input: Any, start: Any, size: Any, name: Optional[str] = None) -> SparseTensor:  # noqa: A001
    """The entries of `sp_input` in the box `[start, start + size)`, re-based to start at 0
    (the dense shape is cut to the input's)."""
    sp = _sparse(sp_input, "slice")
    start, size = _int64(start), _int64(size)
    keep, indices, dense_shape = bind(_slice, (sp.indices, sp.dense_shape, start, size))
    return SparseTensor(indices, array_ops.gather(sp.values, keep), dense_shape)


@tf_export("sparse.concat")
def concat(axis: Any, sp_inputs: Sequence, name: Optional[str] = None,
           expand_nonconcat_dims: bool = False, concat_dim: Any = None,
           expand_nonconcat_dim: Any = None) -> SparseTensor:
    """The SparseTensors joined along `axis`, in row-major order. With
    `expand_nonconcat_dims`, the other dims are the largest of the inputs' (else they must
    match)."""
    if concat_dim is not None:
        axis = concat_dim
    if expand_nonconcat_dim is not None:
        expand_nonconcat_dims = expand_nonconcat_dim
    inputs = [_sparse(s, "concat") for s in sp_inputs]
    if not inputs:
        raise ValueError("concat: sp_inputs must be a non-empty list of SparseTensors")
    shapes = [_static_shape(s, "concat") for s in inputs]
    rank = len(shapes[0])
    axis = int(get_static_value(axis) if isinstance(axis, Tensor) else axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Concat dimension must be in range [{-rank}, {rank}), "
                                   f"got {axis} [Op:SparseConcat]")
    axis %= rank
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise InvalidArgumentError(f"Ranks of all input tensors must match: expected "
                                       f"{rank} but got {len(s)} at position {i} "
                                       f"[Op:SparseConcat]")
        if not expand_nonconcat_dims:
            for d in range(rank):
                if d != axis and s[d] != shapes[0][d]:
                    raise InvalidArgumentError(
                        f"Input shapes must match: expected {shapes[0][d]} for dimension "
                        f"{d} but got {s[d]} at position {i} [Op:SparseConcat]")
    out_shape = [max(s[d] for s in shapes) for d in range(rank)]
    out_shape[axis] = sum(s[axis] for s in shapes)
    parts, offset = [], 0
    for s, shape in zip(inputs, shapes):
        shift = np.zeros(rank, _INT64)
        shift[axis] = offset
        parts.append(s.indices + _const(shift))
        offset += shape[axis]
    joined = _make(array_ops.concat(parts, axis=0),
                   array_ops.concat([s.values for s in inputs], axis=0),
                   _const(out_shape), out_shape)
    return reorder(joined)


# -- retain, fill_empty_rows ----------------------------------------------------------------------

@tf_export("sparse.retain")
def retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """The entries of `sp_input` where the boolean `[N]` vector `to_retain` is True."""
    sp = _sparse(sp_input, "retain")
    to_retain = convert_to_tensor(to_retain)
    if to_retain.shape.rank not in (None, 1):
        raise ValueError(f"Shape {to_retain.shape} must have rank 1")
    n, m = sp.values.shape.as_list()[0], to_retain.shape.as_list()[0]
    if n is not None and m is not None and n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    return _make(index_ops.boolean_mask(sp.indices, to_retain),
                 index_ops.boolean_mask(sp.values, to_retain), sp.dense_shape,
                 _known(sp))


def _fill_kernel(indices: np.ndarray, shape: np.ndarray) -> tuple:
    rows = int(shape[0])
    n = indices.shape[0]
    if n and (np.any(indices[:, 0] < 0) or np.any(indices[:, 0] >= rows)):
        bad = int(np.flatnonzero((indices[:, 0] < 0) | (indices[:, 0] >= rows))[0])
        raise InvalidArgumentError(f"indices({bad}, 0) is invalid: {int(indices[bad, 0])} >= "
                                   f"{rows} [Op:SparseFillEmptyRows]")
    empty = np.ones(rows, bool)
    empty[indices[:, 0]] = False
    filled = np.flatnonzero(empty)
    new = np.zeros((filled.size, indices.shape[1]), _INT64)
    new[:, 0] = filled
    both = np.concatenate([indices, new])
    order = np.argsort(both[:, 0], kind="stable")   # rows in order, each row's entries kept
    source = np.concatenate([np.arange(n), np.full(filled.size, n)])[order]
    position = np.empty(both.shape[0], _INT64)
    position[order] = np.arange(both.shape[0])
    reverse = position[:n].astype(_INT64)
    return both[order].astype(_INT64), source.astype(_INT64), empty, reverse


_fill = _index_prim("SparseFillEmptyRows", _fill_kernel, lambda i, shape: (
    ShapedArray((None, _rank_of(i)), _INT64), ShapedArray((None,), _INT64),
    ShapedArray((None,), np.dtype(bool)), ShapedArray((_rows(i),), _INT64)))


@tf_export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input: Any, default_value: Any, name: Optional[str] = None) -> tuple:
    """(the SparseTensor with `default_value` at `[row, 0, ...]` of each row that has no
    entry, a bool vector marking those rows)."""
    sp = _sparse(sp_input, "fill_empty_rows")
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    indices, source, empty, _ = bind(_fill, (sp.indices, sp.dense_shape))
    values = array_ops.gather(array_ops.concat([sp.values, array_ops.reshape(default, [1])],
                                               axis=0), source)
    result = _make(indices, values, sp.dense_shape,
                   _known(sp))
    return result, empty


# -- other constructors and maps ------------------------------------------------------------------

@tf_export("sparse.eye")
def eye(num_rows: Any, num_columns: Any = None, dtype: Any = _dtypes.float32,
        name: Optional[str] = None) -> SparseTensor:
    """A sparse identity matrix `[num_rows, num_columns]` (square by default)."""
    if read_at_run_time([num_rows, num_columns]):   # TF's run-time sizes
        rows = _int64(num_rows)
        cols = rows if num_columns is None else _int64(num_columns)
        diag = array_ops.range(math_ops.minimum(rows, cols))
        return _make(array_ops.stack([diag, diag], axis=1),
                     math_ops.ones_like(diag, dtype=_dtypes.as_dtype(dtype)),
                     array_ops.stack([rows, cols]))
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    n = min(rows, cols)
    diag = np.arange(n, dtype=_INT64)
    dtype = _dtypes.as_dtype(dtype)
    return _make(_const(np.stack([diag, diag], axis=1).reshape(n, 2)),
                 wrap(np.ones(n, dtype._np)), _const([rows, cols]), [rows, cols])


@tf_export("sparse.to_indicator")
def to_indicator(sp_input: Any, vocab_size: Any, name: Optional[str] = None) -> Tensor:
    """A dense bool tensor `dense_shape[:-1] + [vocab_size]`, True at each (row, id) for the
    int ids among the values of each row of `sp_input`."""
    sp = _sparse(sp_input, "to_indicator")
    if not sp.dtype.is_integer:
        raise TypeError(f"to_indicator: the SparseTensor's values must be integers, got "
                        f"{sp.dtype.name}")
    if read_at_run_time(vocab_size):   # TF's run-time size: the dense shape as ops
        outer = sp._dims.as_list()[:-1] if sp._dims.is_fully_defined() else \
            array_ops.unstack(sp.dense_shape[:-1], num=sp._dims.rank - 1)
        shape = array_ops.stack([_int64(d) for d in outer] + [_int64(vocab_size)])
    else:
        shape = _const(_static_shape(sp, "to_indicator")[:-1] + [int(vocab_size)])
    ids = math_ops.cast(sp.values, _dtypes.int64)
    indices = array_ops.concat([sp.indices[:, :-1], array_ops.reshape(ids, [-1, 1])], axis=1)
    hits = index_ops.scatter_nd(indices, math_ops.ones_like(ids, dtype=_dtypes.int32), shape)
    return math_ops.greater(hits, 0)


@tf_export("sparse.map_values")
def map_values(op: Callable, *args: Any, **kwargs: Any) -> SparseTensor:
    """`op` applied to the values of the SparseTensors among the arguments (which must share
    their indices), other arguments passed as they are; a SparseTensor with those indices."""
    found: list = []

    def replace(x: Any) -> Any:
        if isinstance(x, SparseTensor):
            found.append(x)
            return x.values
        return x
    from tapeflow.framework import nest
    new_args = nest.map_structure(replace, list(args))
    new_kwargs = nest.map_structure(replace, dict(kwargs))
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        a, b = get_static_value(first.indices), get_static_value(other.indices)
        if a is not None and b is not None and (a.shape != b.shape or np.any(a != b)):
            raise InvalidArgumentError("Expected all SparseTensors to have the same indices "
                                       "(map_values)")
    return first.with_values(op(*new_args, **new_kwargs))


@tf_export("sparse.softmax")
def softmax(sp_input: Any, name: Optional[str] = None) -> SparseTensor:
    """Softmax over the explicit values of each innermost row (missing entries are not
    zeros: they take no part)."""
    sp = _sparse(sp_input, "softmax")
    shape = _static_shape(sp, "softmax")
    if len(shape) < 2:
        raise InvalidArgumentError(f"Input should have rank >= 2, but received shape: "
                                   f"{_index_text(shape)} [Op:SparseSoftmax]")
    outer = shape[:-1]
    groups = _linear(sp.indices[:, :-1], outer)
    size = int(np.prod(outer, dtype=np.int64))
    peak = math_ops.stop_gradient(index_ops.unsorted_segment_max(sp.values, groups, size))
    e = math_ops.exp(sp.values - array_ops.gather(peak, groups))
    total = index_ops.unsorted_segment_sum(e, groups, size)
    return sp.with_values(e / array_ops.gather(total, groups))


# -- segment ops (tf.sparse.segment_*) ------------------------------------------------------------

def _segment(data: Any, indices: Any, segment_ids: Any, num_segments: Any, scale: str,
             op: str) -> Tensor:
    data = convert_to_tensor(data)
    rows = array_ops.gather(data, indices)
    ids = convert_to_tensor(segment_ids)
    static = get_static_value(ids)
    if static is not None:
        static = np.asarray(static)
        if static.size > 1 and np.any(np.diff(static) < 0):
            raise InvalidArgumentError(f"segment ids are not increasing [Op:{op}"
                                       f"{'' if num_segments is None else 'WithNumSegments'}]")
    if num_segments is None:
        num_segments = reduce_ops.reduce_max(ids) + 1 if static is None else \
            (int(static.max()) + 1 if static.size else 0)
    total = index_ops.unsorted_segment_sum(rows, ids, num_segments)
    if scale == "sum":
        return total
    count = index_ops.unsorted_segment_sum(math_ops.ones_like(ids, dtype=data.dtype), ids,
                                           num_segments)
    count = math_ops.maximum(count, math_ops.ones_like(count))
    if scale == "sqrt_n":   # as TF's kernel: times 1 / sqrt(n)
        return total * array_ops.reshape(math_ops.reciprocal(math_ops.sqrt(count)),
                                         [-1] + [1] * (data.shape.rank - 1))
    return total / array_ops.reshape(count, [-1] + [1] * (data.shape.rank - 1))


@tf_export("sparse.segment_sum")
def segment_sum(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                name: Optional[str] = None, sparse_gradient: bool = False) -> Tensor:
    """`out[s] = sum of data[indices[i]] over i with segment_ids[i] == s`."""
    return _segment(data, indices, segment_ids, num_segments, "sum", "SparseSegmentSum")


@tf_export("sparse.segment_mean")
def segment_mean(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                 name: Optional[str] = None, sparse_gradient: bool = False) -> Tensor:
    """The mean of `data[indices[i]]` per segment (0 for an empty segment)."""
    return _segment(data, indices, segment_ids, num_segments, "mean", "SparseSegmentMean")


@tf_export("sparse.segment_sqrt_n")
def segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                   name: Optional[str] = None, sparse_gradient: bool = False) -> Tensor:
    """The sum of `data[indices[i]]` per segment over the square root of its size."""
    return _segment(data, indices, segment_ids, num_segments, "sqrt_n", "SparseSegmentSqrtN")


# -- split, reset_shape, mask ------------------------------------------------------------------

@tf_export("sparse.split")
def split(sp_input: Any = None, num_split: Any = None, axis: Any = None,
          name: Optional[str] = None) -> list:
    """`sp_input` cut into `num_split` SparseTensors along `axis` (the first
    size % num_split pieces one longer), as TF's SparseSplit."""
    sp = _sparse(sp_input, "split")
    if read_at_run_time(axis):   # TF's run-time split_dim
        return _run_time_split(sp, int(num_split), axis)
    shape = _static_shape(sp, "split")
    rank = len(shape)
    n, axis_ = int(num_split), int(axis)
    if not -rank <= axis_ < rank:
        raise InvalidArgumentError(f"Input axis should be in range [{-rank}, {rank}), got "
                                   f"{axis_} [Op:SparseSplit]")
    axis_ %= rank
    size = shape[axis_]
    if not 1 <= n <= size:
        raise InvalidArgumentError(f"Input num_split should be between 1 and the splitting "
                                   f"dimension size ({size}), got {n} [Op:SparseSplit]")
    sizes = [size // n + (1 if i < size % n else 0) for i in range(n)]
    pieces, begin = [], 0
    for piece in sizes:
        start = [0] * rank
        extent = list(shape)
        start[axis_], extent[axis_] = begin, piece
        pieces.append(slice(sp, start, extent))
        begin += piece
    return pieces


def _run_time_split(sp: SparseTensor, n: int, axis: Any) -> list:
    """split along an axis read when the graph runs: each piece a slice whose start and size
    are ops (TF's kernel's sizes: the first size % n pieces one longer), checked as it runs."""
    rank = sp._dims.rank
    if rank is None:
        raise NotImplementedError("split: tapeflow needs the SparseTensor's rank while "
                                  "tracing to split it along a run-time axis")
    axis = index_ops.checked(_int64(axis), (sp.dense_shape,), "sparse_split", n=n)
    axis = math_ops.floormod(axis, rank)
    on_axis = math_ops.equal(array_ops.range(rank, dtype=_dtypes.int64), axis)
    size = array_ops.gather(sp.dense_shape, axis)
    pieces, begin = [], _const(0)
    for i in range(n):
        piece = size // n + math_ops.cast(math_ops.less(i, size % n), _dtypes.int64)
        start = math_ops.where(on_axis, begin, math_ops.zeros_like(sp.dense_shape))
        extent = math_ops.where(on_axis, piece, sp.dense_shape)
        pieces.append(slice(sp, start, extent))
        begin = begin + piece
    return pieces


def _check_split(axis: np.ndarray, shape: np.ndarray, n: int) -> None:
    rank = len(shape)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Input axis should be in range [{-rank}, {rank}), got "
                                   f"{int(axis)} [Op:SparseSplit]")
    size = int(shape[int(axis) % rank])
    if not 1 <= n <= size:
        raise InvalidArgumentError(f"Input num_split should be between 1 and the splitting "
                                   f"dimension size ({size}), got {n} [Op:SparseSplit]")


index_ops._RUN_CHECKS["sparse_split"] = _check_split


@tf_export("sparse.reset_shape")
def reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """`sp_input` with dense shape `new_shape` (no smaller than the old one), or by default
    the tightest shape that holds its indices."""
    sp = _sparse(sp_input, "reset_shape")
    if new_shape is None:
        index = get_static_value(sp.indices)
        rank = int(sp.indices.shape[1])
        bound = index.max(axis=0) + 1 if index is not None and len(index) else \
            np.zeros(rank, _INT64)
        return SparseTensor(sp.indices, sp.values, _const(np.maximum(bound, 0)))
    shape = convert_to_tensor(new_shape)
    if shape.shape.rank != 1:
        raise ValueError(f"Shape {shape.shape} must have rank 1")
    if read_at_run_time(new_shape):   # TF's run-time shape, checked as the graph runs
        return SparseTensor(sp.indices, sp.values, index_ops.checked(
            _int64(shape), (sp.dense_shape,), "sparse_reset_shape"))
    new = np.asarray(get_static_value(shape), _INT64)
    old = np.asarray(_static_shape(sp, "reset_shape"), _INT64)
    if len(new) != len(old):
        raise ValueError(f"Dimensions {len(new)} and {len(old)} are not compatible")
    if not np.all(old <= new):
        # (TF's text names the two shapes the other way round)
        raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape."
                         f"  Found new_shape ({old}), sp_input.shape ({new}).")
    return SparseTensor(sp.indices, sp.values, _const(new))


@tf_export("sparse.mask")
def mask(a: Any, mask_indices: Any, name: Optional[str] = None) -> Any:
    """The IndexedSlices `a` without the slices whose indices are in `mask_indices`."""
    from tapeflow.framework.indexed_slices import IndexedSlices
    indices = np.asarray(get_static_value(a.indices))
    drop = np.asarray(get_static_value(convert_to_tensor(mask_indices)))
    keep = np.flatnonzero(~np.isin(indices, drop))
    return IndexedSlices(array_ops.gather(a.values, wrap(keep.astype(np.int32))),
                         wrap(indices[keep]), a.dense_shape)


# -- bincount ----------------------------------------------------------------------------------

def _count_rows(values: Any, axis: int) -> tuple:
    """(rows, row ids of each value, the flat values, their weights' positions) of a
    bincount input: a Tensor, a RaggedTensor or a SparseTensor."""
    from tapeflow.framework.ragged_tensor import RaggedTensor
    if isinstance(values, SparseTensor):
        flat = np.asarray(get_static_value(values.values))
        index = np.asarray(get_static_value(values.indices))
        rows = int(_static_shape(values, "bincount")[0]) if index.shape[1] > 1 else 1
        ids = index[:, 0] if index.shape[1] > 1 else np.zeros(len(flat), np.int64)
    elif isinstance(values, RaggedTensor):
        flat = np.asarray(values.flat_values._value)
        rows, ids = values._nrows_int(), values._rowids()
    else:
        array = np.asarray(get_static_value(convert_to_tensor(values)))
        flat = array.reshape(-1)
        rows = array.shape[0] if array.ndim > 1 else 1
        ids = np.repeat(np.arange(rows), array.size // max(rows, 1)) if array.ndim > 1 else \
            np.zeros(flat.size, np.int64)
    if axis == 0:
        rows, ids = 1, np.zeros(len(flat), np.int64)
    if flat.dtype.kind not in "iu":
        from tapeflow.framework.convert import cpp_name
        raise InvalidArgumentError(f"Value for attr 'T' of "
                                   f"{cpp_name(_dtypes.from_numpy(flat.dtype))} is not in the "
                                   f"list of allowed values: int32, int64")
    return rows, np.asarray(ids, np.int64), flat


def _weights_of(weights: Any) -> Optional[Tensor]:
    if weights is None:
        return None
    if isinstance(weights, SparseTensor):
        return weights.values
    from tapeflow.framework.ragged_tensor import RaggedTensor
    if isinstance(weights, RaggedTensor):
        return weights.flat_values
    return array_ops.reshape(convert_to_tensor(weights), [-1])


@tf_export("sparse.bincount")
def bincount(values: Any, weights: Any = None, axis: Any = 0, minlength: Any = None,
             maxlength: Any = None, binary_output: bool = False,
             name: Optional[str] = None) -> SparseTensor:
    """The count (or summed `weights`, or 1 with `binary_output`) of each value, as a
    SparseTensor over [size] (axis=0: all values) or [rows, size] (axis=-1: per row);
    size is maxlength where given (larger values are dropped), else max value + 1, widened
    to minlength."""
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         f"currently supported.")
    rows, ids, flat = _count_rows(values, axis)
    if flat.size and flat.min() < 0:
        raise InvalidArgumentError("Input values must all be non-negative "
                                   "[Op:DenseCountSparseOutput]")
    # TF's DenseCountSparseOutput: maxlength (when given) is the size and drops larger
    # values; minlength only widens it.
    limited = maxlength is not None and int(maxlength) >= 0
    size = int(maxlength) if limited else (int(flat.max()) + 1 if flat.size else 0)
    size = max(size, int(minlength or 0))
    kept = np.flatnonzero(flat < int(maxlength)) if limited else np.arange(len(flat))
    keys = ids[kept] * max(size, 1) + flat[kept].astype(np.int64)
    unique, slot = np.unique(keys, return_inverse=True)
    coords = np.stack([unique // max(size, 1), unique % max(size, 1)], axis=1)
    if axis == 0:
        coords, shape = coords[:, 1:], [size]
    else:
        shape = [rows, size]
    w = _weights_of(weights)
    if binary_output or w is None:
        dtype = flat.dtype if w is None else w.dtype.as_numpy_dtype   # TF's output_type
        counts = wrap(np.ones(len(unique), dtype) if binary_output else
                      np.bincount(slot, minlength=len(unique)).astype(dtype))
    else:
        counts = index_ops.unsorted_segment_sum(
            array_ops.gather(w, wrap(kept)), wrap(slot.astype(np.int64)), len(unique))
    return SparseTensor(wrap(coords.astype(_INT64)), counts, _const(shape))


# -- cross, cross_hashed, sampled_addmm --------------------------------------------------------

def _crossed_sparse(inputs: Any, hashed: bool, num_buckets: int = 0, hash_key: Any = None,
                    separator: Any = None) -> SparseTensor:
    from tapeflow.ops import ragged_ops
    inputs = list(inputs)
    # TF's SparseCross takes its sparse inputs first, then the dense ones.
    ordered = [x for x in inputs if isinstance(x, SparseTensor)] + \
        [x for x in inputs if not isinstance(x, SparseTensor)]
    columns = ragged_ops.cross_rows(ordered, "tf.sparse.cross")
    sep = ragged_ops._CROSS_SEPARATOR if separator is None else (
        separator.encode() if isinstance(separator, str) else bytes(separator))
    rows = ragged_ops.crossed(columns, hashed, num_buckets, hash_key, sep)
    coords = np.asarray([[r, k] for r, row in enumerate(rows) for k in range(len(row))],
                        _INT64).reshape(-1, 2)
    flat = [v for row in rows for v in row]
    values = np.asarray(flat, np.int64 if hashed else object) if flat else \
        np.zeros(0, np.int64 if hashed else object)
    width = max((len(r) for r in rows), default=0)
    return SparseTensor(wrap(coords), wrap(values), _const([len(rows), width]))


@tf_export("sparse.cross")
def cross(inputs: Any, name: Optional[str] = None, separator: Any = None) -> SparseTensor:
    """The string feature crosses of each row of `inputs` (2-D SparseTensors and Tensors),
    joined by `separator` (default '_X_'), as a SparseTensor."""
    return _crossed_sparse(inputs, False, separator=separator)


@tf_export("sparse.cross_hashed")
def cross_hashed(inputs: Any, num_buckets: int = 0, hash_key: Any = None,
                 name: Optional[str] = None) -> SparseTensor:
    """As `cross`, each combination hashed as TF's SparseCrossHashed (modulo
    `num_buckets` where positive)."""
    return _crossed_sparse(inputs, True, int(num_buckets), hash_key)


@tf_export("sparse.sampled_addmm")
def sampled_addmm(indices: Any, values: Any, dense_shape: Any, mat1: Any, mat2: Any,
                  beta: Any = 1.0, alpha: Any = 1.0, output_type: Any = _dtypes.float32
                  ) -> tuple:
    """`(indices, alpha * (mat1 @ mat2)[indices] + beta * values, dense_shape)`: the matrix
    product only at `indices`, as TF's (batched over leading dims)."""
    indices = convert_to_tensor(indices)
    values = convert_to_tensor(values, dtype=output_type)
    dense_shape = convert_to_tensor(dense_shape, dtype=_dtypes.int32)
    mat1 = convert_to_tensor(mat1, dtype=output_type)
    mat2 = convert_to_tensor(mat2, dtype=output_type)
    output_shape = np.asarray([mat1.shape[-2], mat2.shape[-1]], np.int32)
    given = np.asarray(get_static_value(dense_shape))
    if given.shape != output_shape.shape:
        raise InvalidArgumentError(f"Incompatible shapes: [{given.size}] vs. "
                                   f"[{output_shape.size}] [Op:Equal]")
    if not np.all(given == output_shape):
        raise ValueError(f"Dense shape: {given} does not match output shape: {output_shape}")
    rank = mat1.shape.rank
    batch = indices[..., :-2]
    # (an index depth of 1 gathers rows: TF's gradient is then IndexedSlices, as gather's)
    rows = array_ops.gather(mat1, indices[:, 0]) if rank == 2 else \
        index_ops.gather_nd(mat1, indices[..., :-1], batch_dims=rank - 2)
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    cols = index_ops.gather_nd(array_ops.transpose(mat2, perm),
                               array_ops.concat([batch, indices[..., -1:]], axis=-1),
                               batch_dims=rank - 2)
    dot = reduce_ops.reduce_sum(rows * cols, axis=-1)
    return indices, dot * alpha + values * beta, dense_shape


# -- the SparseTensor operators --------------------------------------------------------------------

def _dense_at(sp: SparseTensor, dense: Any) -> Tensor:
    """`dense` broadcast to the SparseTensor's shape, read at its indices."""
    dense = convert_to_tensor(dense, dtype=sp.dtype)
    full = array_ops.broadcast_to(dense, sp.dense_shape)
    return index_ops.gather_nd(full, sp.indices)


def _mul(self: SparseTensor, other: Any) -> SparseTensor:
    if isinstance(other, SparseTensor):
        raise TypeError("SparseTensor * SparseTensor is not supported; use "
                        "tf.sparse.map_values or tf.sparse.to_dense")
    return self.with_values(self.values * _dense_at(self, other))


def _div(self: SparseTensor, other: Any) -> SparseTensor:
    return self.with_values(self.values / _dense_at(self, other))


SparseTensor.__mul__ = _mul
SparseTensor.__truediv__ = _div

__all__ = ["to_dense", "from_dense", "sparse_dense_matmul", "reduce_sum", "reduce_max",
           "add", "maximum", "minimum", "reorder",
           "reshape", "transpose", "expand_dims", "slice", "concat", "retain",
           "fill_empty_rows", "eye", "to_indicator", "map_values", "softmax", "segment_sum",
           "segment_mean", "segment_sqrt_n", "split", "reset_shape", "mask", "bincount",
           "cross", "cross_hashed", "sampled_addmm", "SparseTensor", "SparseTensorSpec"]
