"""Element structures of tf.data: nests of tuples, dicts and namedtuples (lists are values,
converted to one tensor, as TensorFlow's tf.data nest treats them), their TensorSpecs, and the
internal element form (the same nest with NumPy arrays as leaves)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tapeflow.framework.sparse_tensor import SparseTensor, SparseTensorSpec, sparse_rows
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.function import TensorSpec


def is_structure(value: Any) -> bool:
    """Whether tf.data looks into `value`: a tuple (or namedtuple) or a dict, not a list."""
    return isinstance(value, (tuple, dict))


def flatten(structure: Any) -> list:
    """The leaves of an element or spec (dict values by sorted key); a leaf gives [leaf]."""
    if not is_structure(structure):
        return [structure]
    return nest.flatten(structure)


def pack(structure: Any, flat: list) -> Any:
    """`flat` rebuilt in `structure`'s nesting."""
    if not is_structure(structure):
        return flat[0]
    return nest.pack_sequence_as(structure, flat)


def map_leaves(func: Callable, structure: Any) -> Any:
    """`func` of each leaf of a tf.data structure (lists are leaves)."""
    if not is_structure(structure):
        return func(structure)
    if isinstance(structure, dict):
        return type(structure)((k, map_leaves(func, v)) for k, v in structure.items())
    items = [map_leaves(func, v) for v in structure]
    if hasattr(structure, "_fields"):
        return type(structure)(*items)
    return tuple(items)


def normalize(value: Any) -> Any:
    """A user's element as tensors: each leaf (a list, array, scalar) converted by TF's rules;
    lists become tensors, tuples/dicts/namedtuples stay structures."""
    return map_leaves(_as_tensor, value)


def _as_tensor(leaf: Any) -> Any:
    if isinstance(leaf, (DatasetSpecLike, RaggedTensor, SparseTensor)):
        return leaf
    if isinstance(leaf, TensorLike):
        return convert_to_tensor(leaf)
    if leaf is None:
        raise TypeError("Attempt to convert a value (None) with an unsupported type "
                        "(<class 'NoneType'>) to a Tensor.")
    return convert_to_tensor(leaf)


class DatasetSpecLike:
    """Marker base for specs that are not TensorSpecs (DatasetSpec)."""


def spec_of(tensor: Any) -> TensorSpec:
    """The TensorSpec of a tensor (or of a dataset: its DatasetSpec)."""
    if hasattr(tensor, "_dataset_spec"):
        return tensor._dataset_spec()
    if type(tensor) is RaggedTensor:
        return ragged_spec(tensor.shape, tensor.dtype, tensor.ragged_rank,
                           tensor.row_splits.dtype)
    if type(tensor) is SparseTensor:
        return SparseTensorSpec(tensor.shape, tensor.dtype)
    return TensorSpec(tensor.shape, tensor.dtype)


def ragged_spec(shape: Any, dtype: Any, ragged_rank: int, splits_dtype: Any) -> Any:
    """A RaggedTensorSpec as tf.data keeps it: the ragged dims (below the rows) unknown."""
    dims = None if TensorShape(shape).rank is None else TensorShape(shape).as_list()
    if dims is not None:
        dims = dims[:1] + [None] * ragged_rank + dims[1 + ragged_rank:]
    return RaggedTensorSpec(dims, dtype, ragged_rank, splits_dtype)


def is_ragged_spec(spec: Any) -> bool:
    return type(spec) is RaggedTensorSpec


def is_sparse_spec(spec: Any) -> bool:
    return type(spec) is SparseTensorSpec


def is_composite_spec(spec: Any) -> bool:
    """Whether elements of `spec` are kept as RaggedTensors or SparseTensors (not arrays)."""
    return type(spec) is RaggedTensorSpec or type(spec) is SparseTensorSpec


# -- ragged components: tf.data keeps a RaggedTensor (ragged_rank >= 1) or, for a spec of
# ragged_rank 0 (a slice of a ragged batch), its dense rows as an array ---------------------

def take_rows(leaf: Any, indices: np.ndarray) -> Any:
    """`leaf[indices]` along axis 0 (an array, or a RaggedTensor's or SparseTensor's rows)."""
    if type(leaf) is SparseTensor:
        return sparse_rows(leaf, indices)
    if type(leaf) is RaggedTensor:
        from tapeflow.ops.ragged_ops import _gather_rows
        return _gather_rows(leaf, indices)
    return leaf[indices]


def take_row(leaf: Any, i: int) -> Any:
    """Row `i` of an array or a RaggedTensor (a RaggedTensor row is an array when it is a
    dense row; a SparseTensor row is a SparseTensor of one rank less)."""
    if type(leaf) is SparseTensor:
        return sparse_row(leaf, i)
    if type(leaf) is RaggedTensor:
        row = leaf[i]
        return row if type(row) is RaggedTensor else np.asarray(row._value)
    return leaf[i, ...]


def stack_ragged(rows: list, spec: Any) -> RaggedTensor:
    """The elements `rows` (arrays of one inner shape, or RaggedTensors) as the rows of a
    RaggedTensor of `spec` (a batched RaggedTensorSpec)."""
    from tapeflow.framework.errors import InvalidArgumentError
    from tapeflow.framework.tensor import wrap
    splits_dtype = spec.row_splits_dtype.as_numpy_dtype
    if type(rows[0]) is RaggedTensor:
        from tapeflow.ops.ragged_ops import _concat_rows
        values = _concat_rows([r.with_row_splits_dtype(spec.row_splits_dtype) for r in rows])
        lengths = [r._nrows_int() for r in rows]
    else:
        arrays = [np.asarray(r) for r in rows]
        inner = {a.shape[1:] for a in arrays}
        if len(inner) > 1 or any(a.ndim == 0 for a in arrays):
            raise InvalidArgumentError(None, None, f"Cannot batch ragged elements of shapes "
                                       f"{sorted(a.shape for a in arrays)}: they differ in "
                                       f"a uniform dimension [Op:IteratorGetNext]")
        values = wrap(np.concatenate(arrays))
        lengths = [a.shape[0] for a in arrays]
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(splits_dtype)
    return RaggedTensor(values, wrap(splits), internal=True)


# -- sparse components: tf.data keeps an eager SparseTensor; its rows are taken and stacked
# with NumPy on its component arrays ---------------------------------------------------------

def _sparse_parts(sp: SparseTensor) -> tuple:
    return (np.asarray(sp.indices._value), np.asarray(sp.values._value),
            [int(d) for d in np.asarray(sp.dense_shape._value)])


def _make_sparse(indices: np.ndarray, values: np.ndarray, dims: list) -> SparseTensor:
    from tapeflow.framework.tensor import wrap
    return SparseTensor(wrap(np.asarray(indices, np.int64).reshape(-1, len(dims))),
                        wrap(values), wrap(np.asarray(dims, np.int64)))


def sparse_row(sp: SparseTensor, i: int) -> SparseTensor:
    """Row `i` of `sp`: a SparseTensor of one rank less (TF's error for a rank-1 one)."""
    if sp.shape.rank == 1:
        from tapeflow.framework.errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Rank of input SparseTensor should be > 1, "
                                   "but saw rank: 1 [Op:IteratorGetNext]")
    indices, values, dims = _sparse_parts(sparse_rows(sp, [i]))
    return _make_sparse(indices[:, 1:], values, dims[1:])


def stack_sparse(rows: list) -> SparseTensor:
    """SparseTensors of one rank as the rows of a SparseTensor one rank higher; its dense
    shape is each dim's largest over the rows, as TF batches SparseTensors."""
    parts = [_sparse_parts(r) for r in rows]
    dims = [len(parts)] + [max(d) for d in zip(*[p[2] for p in parts])]
    indices = [np.concatenate([np.full((len(p[0]), 1), k, np.int64), p[0]], axis=1)
               for k, p in enumerate(parts)]
    return _make_sparse(np.concatenate(indices), np.concatenate([p[1] for p in parts]), dims)


def stack_leaf(rows: list, spec: Any) -> Any:
    """The leaves `rows` (of element spec `spec`) stacked along a new axis 0."""
    if is_sparse_spec(spec):
        return stack_sparse(rows)
    if is_ragged_spec(spec):
        return stack_ragged(rows, batched_spec(spec, None))
    return np.stack(rows)


def to_dense_array(sp: SparseTensor) -> np.ndarray:
    """The dense NumPy array of an eager SparseTensor (as_numpy_iterator's form of one)."""
    indices, values, dims = _sparse_parts(sp)
    dense = np.zeros(dims, values.dtype) if values.dtype != object else \
        np.full(dims, b"", object)
    dense[tuple(indices.T)] = values
    return dense


def specs_of(element: Any) -> Any:
    """The element_spec of a structure of tensors."""
    return map_leaves(spec_of, element)


def array_spec(array: np.ndarray) -> TensorSpec:
    if type(array) is RaggedTensor or type(array) is SparseTensor:
        return spec_of(array)
    return TensorSpec(array.shape, _dtypes.from_numpy(array.dtype))


def unbatched_spec(spec: TensorSpec) -> TensorSpec:
    """The spec of one slice along axis 0."""
    shape = spec.shape
    if is_sparse_spec(spec):
        if shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(None if shape.rank is None else shape.as_list()[1:],
                                spec.dtype)
    if is_ragged_spec(spec):
        if spec.ragged_rank == 0:
            return unbatched_spec(TensorSpec(shape, spec.dtype))
        return RaggedTensorSpec(None if shape.rank is None else shape.as_list()[1:],
                                spec.dtype, spec.ragged_rank - 1, spec.row_splits_dtype)
    if shape.rank == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    dims = None if shape.rank is None else shape.as_list()[1:]
    return TensorSpec(dims, spec.dtype)


def batched_spec(spec: TensorSpec, size: Any) -> TensorSpec:
    """The spec of `size` elements stacked (size None when unknown)."""
    if is_sparse_spec(spec):
        return SparseTensorSpec(None if spec.shape.rank is None else
                                [size] + spec.shape.as_list(), spec.dtype)
    if is_ragged_spec(spec):
        dims = None if spec.shape.rank is None else [size] + spec.shape.as_list()
        return RaggedTensorSpec(dims, spec.dtype, spec.ragged_rank + 1, spec.row_splits_dtype)
    if spec.shape.rank is None:
        return TensorSpec(None, spec.dtype)
    return TensorSpec([size] + spec.shape.as_list(), spec.dtype)


def most_specific_common(a: TensorSpec, b: TensorSpec) -> TensorSpec:
    """The spec both `a` and `b` satisfy (dims that differ become None), as TF's
    most_specific_common_supertype; a dtype mismatch is a TypeError."""
    if a.dtype != b.dtype:
        raise TypeError(f"Incompatible dtypes: {a.dtype!r} vs {b.dtype!r}")
    cls = SparseTensorSpec if is_sparse_spec(a) else TensorSpec
    if a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
        return cls(None, a.dtype)
    dims = [x if x == y else None for x, y in zip(a.shape.as_list(), b.shape.as_list())]
    return cls(dims, a.dtype)


def to_numpy(tensor: Any) -> np.ndarray:
    """The NumPy array of an eager tensor (0-d arrays for scalars, never NumPy scalars); a
    RaggedTensor or SparseTensor stays one."""
    if type(tensor) is RaggedTensor or type(tensor) is SparseTensor:
        return tensor
    return np.asarray(tensor._value)


def shape_text(shape: TensorShape) -> str:
    """TF's `[d0,d1]` text of a shape in kernel errors."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]" \
        if shape.rank is not None else "<unknown>"


__all__ = ["is_structure", "flatten", "pack", "map_leaves", "normalize", "spec_of",
           "specs_of", "array_spec", "unbatched_spec", "batched_spec", "most_specific_common",
           "to_numpy", "DatasetSpecLike", "ragged_spec", "is_ragged_spec", "take_rows",
           "take_row", "stack_ragged", "is_sparse_spec", "is_composite_spec", "sparse_rows",
           "sparse_row", "stack_sparse", "stack_leaf", "to_dense_array"]
