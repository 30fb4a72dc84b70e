"""tnp's conversion, array creation and shape manipulation, as TF's `np_array_ops`.

Every function returns tapeflow tensors built with tapeflow ops (so they differentiate and
trace); only values known while building (Python shapes, constant index tables) use NumPy.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional, Sequence

import numpy as np

import tapeflow as tf
from tapeflow.experimental.numpy import _dtypes
from tapeflow.framework.tensor import TensorLike

ndarray = tf.Tensor
newaxis = None
pi, e, inf = np.pi, np.e, np.inf


# --- conversion --------------------------------------------------------------------------

def _np_dtype(dtype: Any) -> Optional[np.dtype]:
    # A requested dtype as tnp reads it (np_utils.result_type(dtype); `float` is float64).
    return None if dtype is None else _dtypes.result_numpy_type(dtype)


def _has_tensor(value: Any) -> bool:
    if isinstance(value, TensorLike):
        return True
    return isinstance(value, (list, tuple)) and builtins.any(_has_tensor(v) for v in value)


def _array_internal(val: Any, dtype: Optional[np.dtype] = None) -> tf.Tensor:
    """`val` as a tensor of `dtype` (NumPy's inference over its values when None)."""
    if isinstance(val, TensorLike):
        t = tf.convert_to_tensor(val)
        return t if dtype is None or t._value.dtype == dtype else tf.cast(t, dtype)
    if isinstance(val, (str, bytes)):
        return tf.constant(val)
    if dtype is None:
        dtype = _dtypes.result_numpy_type(val)
    if _has_tensor(val):  # a nest holding tensors: packed differentiably, as TF
        return tf.cast(tf.stack([_array_internal(v, dtype) for v in val]), dtype)
    try:
        value = np.asarray(val).astype(dtype)
    except OverflowError:
        value = np.asarray(val, dtype=dtype)
    return tf.constant(value)


def array(val: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> tf.Tensor:
    """`tnp.array`: `val` as a tensor (`ndmin` leading axes of length 1 added as needed)."""
    result = _array_internal(val, _np_dtype(dtype))
    if ndmin > 32:
        raise ValueError("ndmin bigger than allowable number of dimensions: 32.")
    if result.shape.rank is not None and result.shape.rank < ndmin:
        result = tf.reshape(result, [1] * (ndmin - result.shape.rank) + _dims(result))
    return result


def asarray(a: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.asarray`: `a` unchanged if it is a tensor of `dtype` already, else converted."""
    dtype = _np_dtype(dtype)
    if type(a) is tf.Tensor and (dtype is None or a._value.dtype == dtype):
        return a
    return _array_internal(a, dtype)


def asanyarray(a: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.asanyarray`: as `asarray`."""
    return asarray(a, dtype)


def ascontiguousarray(a: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.ascontiguousarray`: `a` as a tensor of rank at least 1."""
    return array(a, dtype, ndmin=1)


def copy(a: Any) -> tf.Tensor:
    """`tnp.copy`: a new tensor with `a`'s values."""
    return tf.identity(asarray(a))


def promote(*arrays: Any) -> list:
    """The operands as tensors of the dtype NumPy's promotion gives them together."""
    dtype = _dtypes.result_numpy_type(*arrays)
    return [_array_internal(a, dtype) for a in arrays]


def _dims(t: tf.Tensor) -> list:
    # The static shape as a list, or the dynamic shape tensor where unknown.
    dims = t.shape.as_list() if t.shape.rank is not None else None
    return dims if dims is not None and None not in dims else tf.shape(t)


def _shape_arg(shape: Any) -> Any:
    if isinstance(shape, TensorLike):
        return shape
    return [int(shape)] if np.ndim(shape) == 0 else [int(s) for s in shape]


# --- creation ----------------------------------------------------------------------------

def _creation_dtype(dtype: Any) -> np.dtype:
    # `float` (the default) is float64; None is the default float (float32 under
    # prefer_float32), as TF's.
    return _np_dtype(dtype) if dtype else np.dtype(_dtypes.default_float_type())


def zeros(shape: Any, dtype: Any = float) -> tf.Tensor:
    """`tnp.zeros`: float64 zeros unless `dtype` says otherwise."""
    return tf.zeros(_shape_arg(shape), _creation_dtype(dtype))


def ones(shape: Any, dtype: Any = float) -> tf.Tensor:
    """`tnp.ones`: float64 ones unless `dtype` says otherwise."""
    return tf.ones(_shape_arg(shape), _creation_dtype(dtype))


empty = zeros


def _like_dtype(a: Any, dtype: Any) -> np.dtype:
    if dtype is not None:
        return _np_dtype(dtype)
    if isinstance(a, str):
        return np.dtype(np.str_)
    return _dtypes.result_numpy_type(a)


def zeros_like(a: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.zeros_like`: zeros of `a`'s shape and dtype (or `dtype`)."""
    return tf.zeros_like(asarray(a), dtype=_like_dtype(a, dtype))


def ones_like(a: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.ones_like`: ones of `a`'s shape and dtype (or `dtype`)."""
    return tf.ones_like(asarray(a), dtype=_like_dtype(a, dtype))


empty_like = zeros_like


def full(shape: Any, fill_value: Any, dtype: Any = None) -> tf.Tensor:
    """`tnp.full`: `fill_value` broadcast to `shape`."""
    return tf.broadcast_to(asarray(fill_value, dtype), _shape_arg(shape))


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True,
              shape: Any = None) -> tf.Tensor:
    """`tnp.full_like`: `fill_value` broadcast to `a`'s shape, in `a`'s dtype by default."""
    if order != "K" or not subok:
        raise ValueError("Non-default values for `order` and `subok` are not supported.")
    a = asarray(a)
    dtype = _np_dtype(dtype) or a._value.dtype
    return tf.broadcast_to(asarray(fill_value, dtype), _dims(a) if shape is None
                           else _shape_arg(shape))


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = float) -> tf.Tensor:
    """`tnp.eye`: ones on the `k`-th diagonal of an N x M matrix."""
    M = N if M is None else M
    return tf.constant(np.eye(N, M, k, dtype=_np_dtype(dtype)))


def identity(n: int, dtype: Any = float) -> tf.Tensor:
    """`tnp.identity`: the n x n identity matrix."""
    return eye(n, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> tf.Tensor:
    """`tnp.arange`: evenly spaced values in [start, stop), dtype from the bounds."""
    if not isinstance(step, TensorLike) and not step:
        raise ValueError("step must be non-zero.")
    if dtype is not None:
        dtype = _np_dtype(dtype)
    else:
        dtype = _dtypes.result_numpy_type(*[v for v in (start, step, stop) if v is not None])
    bounds = (start, stop, step)
    if not builtins.any(isinstance(v, TensorLike) for v in bounds):
        values = np.arange(start, stop, step) if stop is not None else np.arange(start, step=step)
        return tf.constant(values.astype(dtype))
    return tf.cast(tf.range(start, stop, step), dtype)


def tri(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = None) -> tf.Tensor:
    """`tnp.tri`: ones at and below the `k`-th diagonal (float64 by default)."""
    return tf.constant(np.tri(N, M, k, dtype=_np_dtype(dtype) or np.float64))


def _band(m: Any, k: int, lower: bool) -> tf.Tensor:
    m = asarray(m)
    name = "tril" if lower else "triu"
    if m.shape.rank is None:
        raise ValueError(f"Argument to {name} should have known rank")
    if m.shape.rank < 2:
        raise ValueError(f"Argument to {name} must have rank at least 2")
    rows, cols = m.shape.as_list()[-2:]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return tf.where(tf.constant(mask), m, tf.zeros_like(m))


def tril(m: Any, k: int = 0) -> tf.Tensor:
    """`tnp.tril`: `m` with the elements above the `k`-th diagonal zeroed."""
    return _band(m, k, lower=True)


def triu(m: Any, k: int = 0) -> tf.Tensor:
    """`tnp.triu`: `m` with the elements below the `k`-th diagonal zeroed."""
    return _band(m, k, lower=False)


def diag(v: Any, k: int = 0) -> tf.Tensor:
    """`tnp.diag`: a diagonal matrix from a vector, or a matrix's `k`-th diagonal."""
    v = asarray(v)
    if v.shape.rank == 1:
        n = v.shape[0] + builtins.abs(k)
        return tf.linalg.diag(v, k=k, num_rows=n, num_cols=n) if v.shape[0] else \
            tf.zeros([builtins.abs(k)] * 2, v.dtype)
    if v.shape.rank == 2:
        return diagonal(v, k)
    raise ValueError(f"Input must be 1- or 2-d; got rank {v.shape.rank}.")


def diagflat(v: Any, k: int = 0) -> tf.Tensor:
    """`tnp.diagflat`: the flattened input on the `k`-th diagonal of a matrix."""
    return diag(ravel(v), k)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> tf.Tensor:
    """`tnp.diagonal`: the `offset` diagonal over `axis1` and `axis2`, as the last axis."""
    a = asarray(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    rows, cols = a.shape.as_list()[-2:]
    if offset >= 0:
        n = builtins.max(0, builtins.min(rows, cols - offset))
        rows_idx, cols_idx = np.arange(n), np.arange(n) + offset
    else:
        n = builtins.max(0, builtins.min(rows + offset, cols))
        rows_idx, cols_idx = np.arange(n) - offset, np.arange(n)
    flat = tf.reshape(a, tf.concat([tf.shape(a)[:-2], [rows * cols]], 0))
    return tf.gather(flat, tf.constant((rows_idx * cols + cols_idx).astype(np.int64)), axis=-1)


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """`tnp.diag_indices`: `ndim` int32 vectors 0..n-1 indexing the main diagonal."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (tf.range(n),) * ndim


def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> tf.Tensor:
    """`tnp.vander`: the Vandermonde matrix of a vector (powers of its columns)."""
    x = asarray(x)
    if x.shape.rank != 1:
        raise ValueError(f"x must be a one-dimensional array; got rank {x.shape.rank}.")
    N = x.shape[0] if N is None else N
    powers = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    x = _maybe_promote_to_int(x)
    if N == 0:
        return tf.zeros([x.shape[0], 0], x.dtype)
    return tf.stack([x ** tf.constant(p, x.dtype) if p else tf.ones_like(x)
                     for p in powers], axis=1)


def meshgrid(*xi: Any, **kwargs: Any) -> list:
    """`tnp.meshgrid`: coordinate arrays from coordinate vectors (`indexing`, `sparse`)."""
    sparse, copy_ = kwargs.get("sparse", False), kwargs.get("copy", True)
    if sparse or not copy_:
        raise ValueError("`sparse` and `copy` other than their defaults are not supported.")
    return tf.meshgrid(*[asarray(x) for x in xi], indexing=kwargs.get("indexing", "xy"))


def ix_(*args: Any) -> list:
    """`tnp.ix_`: open-mesh index arrays (bool vectors become their nonzero indices)."""
    out, n = [], len(args)
    for i, a in enumerate(args):
        a = asarray(a)
        if a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        if a.dtype == tf.bool:
            a = tf.reshape(tf.where(a), [-1])
        out.append(tf.reshape(a, [1] * i + [-1] + [1] * (n - i - 1)))
    return out


# --- shape and axes ----------------------------------------------------------------------

def shape(a: Any) -> tf.TensorShape:
    """`tnp.shape`: the static `TensorShape` (as TF's)."""
    return asarray(a).shape


def ndim(a: Any) -> int:
    """`tnp.ndim`: the rank."""
    return asarray(a).shape.rank


def size(x: Any, axis: Any = None) -> Any:
    """`tnp.size`: the number of elements (a Python int where the shape is known)."""
    if axis is not None:
        raise NotImplementedError(
            "axis argument is not supported in the current `np.size` implementation")
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = asarray(x)
    if x.shape.is_fully_defined():
        return np.prod(x.shape.as_list(), dtype=int)
    return tf.size(x)


def isscalar(num: Any) -> bool:
    """`tnp.isscalar`: whether `num` is a scalar (a rank-0 tensor counts)."""
    if isinstance(num, TensorLike):
        return num.shape.rank == 0
    return bool(np.isscalar(num))


def reshape(a: Any, newshape: Any, order: str = "C") -> tf.Tensor:
    """`tnp.reshape`: C order only, as TF's."""
    if order not in ("C", "F"):
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    newshape = _shape_arg(newshape)
    if order == "F":
        r = a.shape.rank
        a = tf.transpose(a, list(range(r - 1, -1, -1)))
        out = tf.reshape(a, newshape[::-1] if isinstance(newshape, list) else newshape)
        return tf.transpose(out, list(range(out.shape.rank - 1, -1, -1)))
    return tf.reshape(a, newshape)


def _reshape_method(a: Any, *newshape: Any, **kwargs: Any) -> tf.Tensor:
    """`Tensor.reshape` under NumPy behaviour: `t.reshape(2, 3)` or `t.reshape((2, 3))`."""
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


def ravel(a: Any) -> tf.Tensor:
    """`tnp.ravel`: `a` flattened to a vector."""
    return tf.reshape(asarray(a), [-1])


def flatten(a: Any, order: str = "C") -> tf.Tensor:
    """`tnp.flatten` (the `ndarray.flatten` method)."""
    if order not in ("C", "F"):
        raise ValueError(f"Unsupported order argument {order}")
    return reshape(a, [-1], order)


def expand_dims(a: Any, axis: Any) -> tf.Tensor:
    """`tnp.expand_dims`: a length-1 axis inserted at `axis`."""
    return tf.expand_dims(asarray(a), axis)


def squeeze(a: Any, axis: Any = None) -> tf.Tensor:
    """`tnp.squeeze`: length-1 axes removed."""
    return tf.squeeze(asarray(a), axis)


def transpose(a: Any, axes: Any = None) -> tf.Tensor:
    """`tnp.transpose`: axes reversed, or permuted as `axes`."""
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return tf.transpose(a, perm=axes)


def _axis(axis: int, rank: int) -> int:
    if not -rank <= axis < builtins.max(rank, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {rank}")
    return axis + rank if axis < 0 else axis


def swapaxes(a: Any, axis1: int, axis2: int) -> tf.Tensor:
    """`tnp.swapaxes`: two axes exchanged."""
    a = asarray(a)
    r = a.shape.rank
    perm = list(range(r))
    i, j = _axis(axis1, r), _axis(axis2, r)
    perm[i], perm[j] = perm[j], perm[i]
    return tf.transpose(a, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> tf.Tensor:
    """`tnp.moveaxis`: axes moved to new positions, the others keeping their order."""
    a = asarray(a)
    r = a.shape.rank
    source = [_axis(s, r) for s in np.atleast_1d(source)]
    destination = [_axis(d, r) for d in np.atleast_1d(destination)]
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    perm = [i for i in range(r) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return a if perm == list(range(r)) else tf.transpose(a, perm)


def broadcast_to(array: Any, shape: Any) -> tf.Tensor:  # noqa: F811 - NumPy's argument name
    """`tnp.broadcast_to`."""
    return full(shape, array)


def broadcast_arrays(*args: Any, **kwargs: Any) -> list:
    """`tnp.broadcast_arrays`: the arguments broadcast to their common shape."""
    if kwargs.get("subok"):
        raise ValueError("subok=True is not supported.")
    args = [asarray(a) for a in args]
    shp = np.broadcast_shapes(*[tuple(a.shape.as_list()) for a in args])
    return [tf.broadcast_to(a, shp) for a in args]


def atleast_1d(*arys: Any) -> Any:
    """`tnp.atleast_1d`."""
    return _atleast(arys, 1)


def atleast_2d(*arys: Any) -> Any:
    """`tnp.atleast_2d`."""
    return _atleast(arys, 2)


def atleast_3d(*arys: Any) -> Any:
    """`tnp.atleast_3d`: a vector becomes (1, n, 1), a matrix (m, n, 1), as NumPy."""
    return _atleast(arys, 3)


def _atleast(arys: Sequence, n: int) -> Any:
    out = []
    for a in arys:
        a = asarray(a)
        r = a.shape.rank
        if r < n:
            dims = a.shape.as_list()
            if n == 3:
                new = {0: [1, 1, 1], 1: [1] + dims + [1], 2: dims + [1]}[r]
            else:
                new = [1] * (n - r) + dims
            a = tf.reshape(a, new)
        out.append(a)
    return out[0] if len(out) == 1 else out


# --- joining and splitting ---------------------------------------------------------------

def concatenate(arys: Sequence, axis: Optional[int] = 0) -> tf.Tensor:
    """`tnp.concatenate`: the arrays, promoted together, joined along `axis`."""
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        raise ValueError("concatenate with axis=None is not supported (TF's tnp takes an int).")
    return tf.concat(promote(*arys), axis)


def stack(arrays: Sequence, axis: int = 0) -> tf.Tensor:
    """`tnp.stack`: the arrays, promoted together, stacked along a new axis."""
    if isinstance(arrays, TensorLike):
        arrays = asarray(arrays)
        return arrays if axis == 0 else moveaxis(arrays, 0, axis)
    arrays = promote(*arrays)
    shapes = {tuple(a.shape.as_list()) for a in arrays}
    if len(shapes) > 1:
        raise ValueError("all input arrays must have the same shape")
    return tf.stack(arrays, axis)


def hstack(tup: Sequence) -> tf.Tensor:
    """`tnp.hstack`: along axis 1 (axis 0 for vectors)."""
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, 0 if arrays[0].shape.rank == 1 else 1)


def vstack(tup: Sequence) -> tf.Tensor:
    """`tnp.vstack`: along axis 0, vectors as rows."""
    return concatenate([atleast_2d(a) for a in tup], 0)


def dstack(tup: Sequence) -> tf.Tensor:
    """`tnp.dstack`: along axis 2."""
    return concatenate([atleast_3d(a) for a in tup], 2)


def append(arr: Any, values: Any, axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.append`: `values` appended to `arr` (both flattened when `axis` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """`tnp.split`: equal sections, or pieces cut at the given indices."""
    ary = asarray(ary)
    if not isinstance(indices_or_sections, (int, np.integer)):
        n = ary.shape[axis]
        cuts = [0] + [builtins.min(int(i), n) for i in indices_or_sections] + [n]
        sizes = [builtins.max(0, b - a) for a, b in zip(cuts[:-1], cuts[1:])]
        return list(tf.split(ary, sizes, axis))
    if ary.shape[axis] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return list(tf.split(ary, indices_or_sections, axis))


def _split_on(axis: int, name: str, min_rank: int):
    def fn(ary: Any, indices_or_sections: Any) -> list:
        ary = asarray(ary)
        if ary.shape.rank < min_rank:
            raise ValueError(f"{name} only works on arrays of {min_rank} or more dimensions")
        return split(ary, indices_or_sections, 0 if (axis == 1 and ary.shape.rank == 1) else axis)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`tnp.{name}`: `split` along axis {axis}."
    return fn


hsplit = _split_on(1, "hsplit", 1)
vsplit = _split_on(0, "vsplit", 2)
dsplit = _split_on(2, "dsplit", 3)


# --- rearranging ---------------------------------------------------------------------------

def flip(m: Any, axis: Any = None) -> tf.Tensor:
    """`tnp.flip`: the order of elements reversed along `axis` (all axes when None)."""
    m = asarray(m)
    axes = list(range(m.shape.rank)) if axis is None else [
        _axis(a, m.shape.rank) for a in np.atleast_1d(axis)]
    return tf.reverse(m, axes) if axes else m


def flipud(m: Any) -> tf.Tensor:
    """`tnp.flipud`."""
    return flip(m, 0)


def fliplr(m: Any) -> tf.Tensor:
    """`tnp.fliplr`."""
    return flip(m, 1)


def roll(a: Any, shift: Any, axis: Any = None) -> tf.Tensor:
    """`tnp.roll`: elements shifted cyclically (over the flattened array when no axis)."""
    a = asarray(a)
    if axis is None:
        return tf.reshape(tf.roll(ravel(a), shift, 0), _dims(a))
    return tf.roll(a, shift, axis)


def rot90(m: Any, k: int = 1, axes: tuple = (0, 1)) -> tf.Tensor:
    """`tnp.rot90`: rotated by 90 degrees `k` times in the plane of `axes`."""
    m = asarray(m)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = list(range(m.shape.rank))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return tf.transpose(flip(m, axes[1]), perm)
    return flip(tf.transpose(m, perm), axes[1])


def repeat(a: Any, repeats: Any, axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.repeat`: each element repeated (over the flattened array when no axis)."""
    a = asarray(a)
    repeats = asarray(repeats)
    if axis is None:
        a, axis = ravel(a), 0
    if repeats.shape.rank == 0 or repeats.shape == [1]:
        repeats = tf.broadcast_to(tf.reshape(repeats, []), [a.shape[axis]])
    return tf.repeat(a, repeats, axis)


def tile(a: Any, reps: Any) -> tf.Tensor:
    """`tnp.tile`: `a` repeated `reps` times along each axis (ranks padded with 1s)."""
    a = asarray(a)
    reps = [int(r) for r in np.atleast_1d(np.asarray(reps))]
    r = builtins.max(a.shape.rank, len(reps))
    a = tf.reshape(a, [1] * (r - a.shape.rank) + a.shape.as_list())
    return tf.tile(a, [1] * (r - len(reps)) + reps)


def pad(array: Any, pad_width: Any, mode: str, **kwargs: Any) -> tf.Tensor:  # noqa: F811
    """`tnp.pad`: modes constant (`constant_values`), reflect and symmetric, as TF's."""
    array = asarray(array)
    pad_width = np.asarray(pad_width, dtype=np.int64)
    if pad_width.shape != (array.shape.rank, 2):
        raise tf.errors.InvalidArgumentError(
            None, None, f"The first dimension of paddings must be the rank of inputs"
            f"[{array.shape.rank},2], got shape {list(pad_width.shape)} (tnp.pad takes one "
            f"[before, after] pair per axis)")
    mode = mode.upper()
    if mode == "CONSTANT":
        constant_values = kwargs.get("constant_values", 0)
        if np.ndim(constant_values) != 0:
            raise ValueError("Unsupported padding constant_values: only a scalar is supported.")
        return tf.pad(array, pad_width, mode, constant_values=tf.cast(constant_values, array.dtype))
    if mode in ("REFLECT", "SYMMETRIC"):
        return tf.pad(array, pad_width, mode)
    raise ValueError(f"Unsupported padding mode: {mode}")


# --- indexing helpers ----------------------------------------------------------------------

def take(a: Any, indices: Any, axis: Optional[int] = None, out: Any = None,
         mode: str = "clip") -> tf.Tensor:
    """`tnp.take`: elements at `indices` along `axis` (`mode` clip or wrap, as TF's)."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = asarray(a)
    indices = tf.cast(asarray(indices), tf.int64)
    if axis is None:
        a, axis = ravel(a), 0
    n = tf.cast(tf.shape(a)[axis], tf.int64)
    if mode == "clip":
        indices = tf.clip_by_value(indices, 0, n - 1)
    elif mode == "wrap":
        indices = tf.math.floormod(indices, n)
    else:
        raise ValueError("The `raise` mode to take is not supported.")
    return tf.gather(a, indices, axis=axis)


def take_along_axis(arr: Any, indices: Any, axis: Optional[int]) -> tf.Tensor:
    """`tnp.take_along_axis`: elements picked along `axis` by an index array of `arr`'s rank."""
    arr, indices = asarray(arr), asarray(indices)
    if axis is None:
        if indices.shape.rank != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = ravel(arr), 0
    rank = arr.shape.rank
    if indices.shape.rank != rank:
        raise ValueError("`indices` and `arr` must have the same number of dimensions.")
    axis = _axis(axis, rank)
    indices = tf.cast(indices, tf.int64)
    def others(t: tf.Tensor) -> tuple:  # the shape with `axis` set to 1
        dims = t.shape.as_list()
        return tuple(dims[:axis] + [1] + dims[axis + 1:])
    shp = np.broadcast_shapes(others(arr), others(indices))
    out_shape = list(shp[:axis]) + [indices.shape[axis]] + list(shp[axis + 1:])
    arr = tf.broadcast_to(arr, list(shp[:axis]) + [arr.shape[axis]] + list(shp[axis + 1:]))
    indices = tf.broadcast_to(indices, out_shape)
    grids = np.indices(out_shape, dtype=np.int64)
    coords = [tf.constant(g) for g in grids]
    coords[axis] = tf.where(indices < 0, indices + arr.shape[axis], indices)
    return tf.gather_nd(arr, tf.stack(coords, axis=-1))


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """`tnp.where`: elements of x or y by condition; with neither, `nonzero(condition)`."""
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = promote(x, y)
        return tf.where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


def nonzero(a: Any) -> list:
    """`tnp.nonzero`: one int64 index vector per axis of the nonzero elements."""
    a = asarray(a)
    if a.shape.rank == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed.")
    idx = tf.where(tf.cast(a, tf.bool))
    return list(tf.unstack(idx, num=a.shape.rank, axis=1))


def select(condlist: Sequence, choicelist: Sequence, default: Any = 0) -> tf.Tensor:
    """`tnp.select`: from the first choice whose condition holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(condlist[::-1], choices[:0:-1]):
        output = where(cond, choice, output)
    return output


def compress(condition: Any, a: Any, axis: Optional[int] = None) -> tf.Tensor:
    """`tnp.compress`: the slices along `axis` where the 1-d `condition` holds."""
    condition = asarray(condition, dtype=np.bool_)
    a = asarray(a)
    if condition.shape.rank != 1:
        raise ValueError("condition must be a 1-d array.")
    if a.shape.rank == 0:
        a = ravel(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.shape.rank)
    n = builtins.min(condition.shape[0], a.shape[axis])
    condition, a = condition[:n], tf.gather(a, tf.range(n), axis=axis)
    return tf.boolean_mask(a, condition, axis=axis)


def _maybe_promote_to_int(a: tf.Tensor) -> tf.Tensor:
    # TF's cumsum/cumprod rule: integers and bools promoted with Python's int (uint64 -> float64).
    np_type = a._value.dtype
    if np_type.kind in "iub":
        out = np.promote_types(np_type, int)
        if out != np_type:
            return tf.cast(a, out)
    return a
