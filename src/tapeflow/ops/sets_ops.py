"""`tf.sets`: set operations along the last dimension of dense tensors or SparseTensors.

Each group (one index into all but the last dimension) holds a set: a dense row's elements,
or a SparseTensor's values at that group (duplicates count once). The results are
SparseTensors whose group holds the sorted result set at positions 0, 1, ... and whose
dense_shape is the group shape plus the largest set's size, as TF's set kernels.

The kernels walk the groups as TF's do (a SparseTensor's groups are its runs of equal group
index, in the order of its indices), so even `validate_indices=False` with unsorted indices
gives TF's result. None of the ops has a gradient (TF declares them NotDifferentiable).
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.sparse_ops import _validate_kernel

_INT64 = np.dtype(np.int64)
_VALID = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "string"])
# TF 2.21 prints its frozenset of valid dtypes in this order in the TypeError.
_VALID_TEXT = ("frozenset({tf.int32, tf.uint8, tf.int16, tf.int8, tf.string, tf.int64, "
               "tf.uint16})")


# -- groups ---------------------------------------------------------------------------------------

def _dims(shape: Any) -> list:
    return [int(d) for d in shape]


def _group_shape(shape: list, op: str) -> list:
    if len(shape) < 2:
        raise InvalidArgumentError(f"Shape [{','.join(map(str, shape))}] has rank {len(shape)} "
                                   f"< 2 [Op:{op}]")
    return shape[:-1]


def _matching_groups(shape1: list, shape2: list, op: str) -> list:
    group1, group2 = _group_shape(shape1, op), _group_shape(shape2, op)
    if group1 != group2:
        raise InvalidArgumentError(f"Mismatched shapes [{','.join(map(str, group1))}] vs "
                                   f"[{','.join(map(str, group2))}] [Op:{op}]")
    return group1


def _checked_sparse(indices: np.ndarray, shape: np.ndarray, validate: bool, op: str) -> list:
    """The dense shape as ints, after TF's checks of a set op's SparseTensor input."""
    if shape.ndim != 1:
        raise InvalidArgumentError(f"Shape must be a 1D tensor. [Op:{op}]")
    if shape.size < 2:
        raise InvalidArgumentError(f"Invalid rank {shape.size}. [Op:{op}]")
    if validate:
        try:
            _validate_kernel(indices, shape)
        except InvalidArgumentError as exc:  # its checks and texts, under this op's name
            raise InvalidArgumentError(
                exc.message.replace("[Op:SparseToDense]", f"[Op:{op}]")) from None
    return _dims(shape)


def _dense_groups(values: np.ndarray) -> Iterator[tuple]:
    """(group index, set) of every group of a dense tensor, in row-major order."""
    rows = values.reshape(int(np.prod(values.shape[:-1])), values.shape[-1])
    for flat, key in enumerate(np.ndindex(*values.shape[:-1])):
        yield key, set(rows[flat].tolist())


def _sparse_groups(indices: np.ndarray, values: np.ndarray) -> list:
    """(group index, set) of each run of equal group index of a SparseTensor."""
    groups = []
    keys = [tuple(row) for row in indices[:, :-1].tolist()]
    items = values.tolist()
    for key, item in zip(keys, items):
        if groups and groups[-1][0] == key:
            groups[-1][1].add(item)
        else:
            groups.append((key, {item}))
    return groups


def _apply(operation: str, set1: set, set2: set) -> list:
    if operation == "a-b":
        result = set1 - set2
    elif operation == "b-a":
        result = set2 - set1
    elif operation == "intersection":
        result = set1 & set2
    else:
        result = set1 | set2
    return sorted(result)


def _output(results: list, group_shape: list, dtype: np.dtype) -> tuple:
    """TF's result SparseTensor (indices, values, dense_shape) of (group index, sorted set)
    pairs: group index plus the position in the set; the last dim is the largest set."""
    results = [(key, items) for key, items in results if items]
    count = sum(len(items) for _, items in results)
    rank = len(group_shape) + 1
    indices = np.zeros((count, rank), _INT64)
    values = np.empty(count, dtype)
    at = 0
    for key, items in results:
        n = len(items)
        indices[at:at + n, :-1] = key
        indices[at:at + n, -1] = np.arange(n)
        values[at:at + n] = items
        at += n
    width = max((len(items) for _, items in results), default=0)
    return indices, values, np.asarray(group_shape + [width], _INT64)


# -- kernels --------------------------------------------------------------------------------------

def _dense_dense_kernel(set1: np.ndarray, set2: np.ndarray, set_operation: str,
                        validate_indices: bool) -> tuple:
    op = "DenseToDenseSetOperation"
    groups = _matching_groups(list(set1.shape), list(set2.shape), op)
    results = [(key, _apply(set_operation, a, b)) for (key, a), (_, b) in
               zip(_dense_groups(set1), _dense_groups(set2))]
    return _output(results, groups, set1.dtype)


def _dense_sparse_kernel(set1: np.ndarray, indices2: np.ndarray, values2: np.ndarray,
                         shape2: np.ndarray, set_operation: str, validate_indices: bool) -> tuple:
    op = "DenseToSparseSetOperation"
    shape2 = _checked_sparse(indices2, shape2, validate_indices, op)
    groups = _matching_groups(list(set1.shape), shape2, op)
    sparse = _sparse_groups(indices2, values2)
    results, next_sparse = [], 0
    for key, a in _dense_groups(set1):
        # As TF's: the SparseTensor's next run is this group's set if its index matches.
        b = set()
        if next_sparse < len(sparse) and sparse[next_sparse][0] == key:
            b = sparse[next_sparse][1]
            next_sparse += 1
        results.append((key, _apply(set_operation, a, b)))
    return _output(results, groups, set1.dtype)


def _sparse_sparse_kernel(indices1: np.ndarray, values1: np.ndarray, shape1: np.ndarray,
                          indices2: np.ndarray, values2: np.ndarray, shape2: np.ndarray,
                          set_operation: str, validate_indices: bool) -> tuple:
    op = "SparseToSparseSetOperation"
    shape1 = _checked_sparse(indices1, shape1, validate_indices, op)
    shape2 = _checked_sparse(indices2, shape2, validate_indices, op)
    groups = _matching_groups(shape1, shape2, op)
    runs1, runs2 = _sparse_groups(indices1, values1), _sparse_groups(indices2, values2)
    results, i, j = [], 0, 0
    while i < len(runs1) or j < len(runs2):  # merge the two runs of groups, as TF's
        key1 = runs1[i][0] if i < len(runs1) else None
        key2 = runs2[j][0] if j < len(runs2) else None
        take1 = key2 is None or (key1 is not None and key1 <= key2)
        take2 = key1 is None or (key2 is not None and key2 <= key1)
        a, b = (runs1[i][1] if take1 else set()), (runs2[j][1] if take2 else set())
        results.append((key1 if take1 else key2, _apply(set_operation, a, b)))
        i, j = i + take1, j + take2
    return _output(results, groups, values1.dtype)


def _size_kernel(indices: np.ndarray, values: np.ndarray, shape: np.ndarray,
                 validate_indices: bool) -> np.ndarray:
    shape = _checked_sparse(indices, shape, validate_indices, "SetSize")
    out = np.zeros(shape[:-1], np.int32)
    for key, items in _sparse_groups(indices, values):
        out[key] = len(items)
    return out


def _result_rule(*avals: ShapedArray, **attrs: Any) -> tuple:
    """Indices [N, rank], values [N], dense_shape [rank]: N is known when the kernel runs."""
    first = avals[0]
    if len(avals) == 2:  # dense, dense
        rank, dtype = (None if first.shape is None else len(first.shape)), first.dtype
    else:  # the last three are a SparseTensor's components
        shape = avals[-1].shape
        rank = None if shape is None else shape[0]
        dtype = first.dtype if len(avals) == 4 else avals[1].dtype
    return (ShapedArray((None, rank), _INT64), ShapedArray((None,), dtype),
            ShapedArray((rank,), _INT64))


def _size_rule(indices: ShapedArray, values: ShapedArray, shape: ShapedArray,
               **attrs: Any) -> ShapedArray:
    return ShapedArray(None, np.dtype(np.int32))  # unknown rank while traced, as TF's


def _prim(name: str, kernel: Any, rule: Any, multiple: bool = True) -> Primitive:
    return Primitive(name, kernel, multiple_results=multiple, differentiable=False,
                     shape_rule=rule)


_DENSE_DENSE = _prim("DenseToDenseSetOperation", _dense_dense_kernel, _result_rule)
_DENSE_SPARSE = _prim("DenseToSparseSetOperation", _dense_sparse_kernel, _result_rule)
_SPARSE_SPARSE = _prim("SparseToSparseSetOperation", _sparse_sparse_kernel, _result_rule)
_SET_SIZE = _prim("SetSize", _size_kernel, _size_rule, multiple=False)


# -- public ops -----------------------------------------------------------------------------------

def _convert(x: Any) -> Any:
    """A SparseTensor (or SparseTensorValue) as it is, anything else as a Tensor."""
    if isinstance(x, SparseTensor):
        return x
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return SparseTensor.from_value(x)
    return convert_to_tensor(x)


def _operands(a: Any, b: Any) -> tuple:
    """(a, b, flipped): TF's dtype checks, and a sparse `a` with a dense `b` swapped (the
    kernels take dense-sparse, not sparse-dense)."""
    a = _convert(a)
    if a.dtype.name not in _VALID:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_VALID_TEXT}`.")
    b = _convert(b)
    if b.dtype != a.dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool) -> SparseTensor:
    attrs = {"set_operation": operation, "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. "
                             "Please flip the order of your inputs.")
        parts = bind(_SPARSE_SPARSE, (a.indices, a.values, a.dense_shape,
                                      b.indices, b.values, b.dense_shape), attrs)
    elif isinstance(b, SparseTensor):
        parts = bind(_DENSE_SPARSE, (a, b.indices, b.values, b.dense_shape), attrs)
    else:
        parts = bind(_DENSE_DENSE, (a, b), attrs)
    return SparseTensor(*parts)


@tf_export("sets.intersection")
def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The intersection of the sets in the last dimension of `a` and `b` (Tensors or
    SparseTensors of one integer or string dtype; all but the last dimension equal), as a
    SparseTensor holding each group's sorted result.

    Args:
      a: `Tensor` or `SparseTensor` (indices sorted in row-major order).
      b: `Tensor` or `SparseTensor` of `a`'s dtype.
      validate_indices: check that the sparse inputs' indices are sorted, unique and in
        bounds (InvalidArgumentError).
    """
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


@tf_export("sets.difference")
def set_difference(a: Any, b: Any, aminusb: bool = True,
                   validate_indices: bool = True) -> SparseTensor:
    """The difference of the sets in the last dimension of `a` and `b`: `a - b`, or `b - a`
    with `aminusb=False`, as a SparseTensor holding each group's sorted result.

    Args:
      a: `Tensor` or `SparseTensor` (indices sorted in row-major order).
      b: `Tensor` or `SparseTensor` of `a`'s dtype.
      aminusb: subtract `b` from `a` (else `a` from `b`).
      validate_indices: check that the sparse inputs' indices are sorted, unique and in
        bounds (InvalidArgumentError).
    """
    a, b, flipped = _operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@tf_export("sets.union")
def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The union of the sets in the last dimension of `a` and `b`, as a SparseTensor holding
    each group's sorted result.

    Args:
      a: `Tensor` or `SparseTensor` (indices sorted in row-major order).
      b: `Tensor` or `SparseTensor` of `a`'s dtype.
      validate_indices: check that the sparse inputs' indices are sorted, unique and in
        bounds (InvalidArgumentError).
    """
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "union", validate_indices)


@tf_export("sets.size")
def set_size(a: Any, validate_indices: bool = True) -> Tensor:
    """The number of unique values in each last-dimension set of the SparseTensor `a`: an
    int32 Tensor of `a`'s shape without its last dimension.

    Args:
      a: `SparseTensor` of an integer or string dtype, indices sorted in row-major order.
      validate_indices: check that the indices are sorted, unique and in bounds
        (InvalidArgumentError).
    """
    a = _convert(a)
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a!s}.")
    if a.dtype.name not in _VALID:
        raise TypeError(f"Invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_VALID_TEXT}`.")
    return bind(_SET_SIZE, (a.indices, a.values, a.dense_shape),
                {"validate_indices": bool(validate_indices)})
