"""`keras.ops.linalg`: Keras 3's linear-algebra ops, as its TensorFlow backend computes them
(on tapeflow's `tf.linalg` ops), with Keras's shape checks and error texts."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autodiff.forward import ForwardAccumulator
from tapeflow.framework import nest
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.ops import _dtypes
from tapeflow.keras.ops._node import keras_op
from tapeflow.ops import array_ops, debugging_ops, linalg_ops, math_ops, reduce_ops


# -- Keras's argument checks (keras/src/ops/linalg.py) ---------------------------------------

def _assert_1d(*arrays: Any) -> None:
    for a in arrays:
        if a.shape.rank is not None and a.shape.rank < 1:
            raise ValueError(f"Expected input to have rank >= 1. Received scalar input {a}.")


def _assert_2d(*arrays: Any) -> None:
    for a in arrays:
        if a.shape.rank is not None and a.shape.rank < 2:
            raise ValueError("Expected input to have rank >= 2. "
                             f"Received input with shape {tuple(a.shape.as_list())}.")


def _assert_square(*arrays: Any) -> None:
    for a in arrays:
        m, n = a.shape[-2:]
        if m is not None and n is not None and m != n:
            raise ValueError("Expected a square matrix. "
                             f"Received non-square input with shape {tuple(a.shape.as_list())}")


def _assert_a_b_compat(a: Any, b: Any) -> None:
    if a.shape.rank == b.shape.rank:
        pairs, text = (a.shape[-2], b.shape[-2]), "a.shape[-2] == b.shape[-2]"
    elif a.shape.rank == b.shape.rank - 1:
        pairs, text = (a.shape[-1], b.shape[-1]), "a.shape[-1] == b.shape[-1]"
    else:
        return
    if None not in pairs and pairs[0] != pairs[1]:
        raise ValueError("Incompatible shapes between `a` and `b`. "
                         f"Expected `{text}`. Received: a.shape={tuple(a.shape.as_list())}, "
                         f"b.shape={tuple(b.shape.as_list())}")


def _square_matrices(x: Any) -> Any:
    x = convert_to_tensor(x)
    _assert_2d(x)
    _assert_square(x)
    return x


def _system(a: Any, b: Any) -> tuple:
    """`a` (square matrices) and `b` checked as Keras's solve and solve_triangular do."""
    a, b = _square_matrices(a), convert_to_tensor(b)
    _assert_1d(b)
    _assert_a_b_compat(a, b)
    return a, b


def _vector_rhs(a: Any, b: Any) -> bool:
    """True where `b` is a (batch of) vector(s): TF's solves take matrices, so it gets an axis."""
    return b.shape.rank == a.shape.rank - 1


# -- the ops ----------------------------------------------------------------------------------

def _cholesky(x: Any, upper: bool = False) -> Any:
    """The Cholesky factor of each (symmetric positive definite) matrix: lower, or its
    adjoint for `upper`. Not positive definite: ValueError (Keras's)."""
    x = _square_matrices(x)
    try:
        out = debugging_ops.check_numerics(linalg_ops.cholesky(x), "Cholesky")
    except Exception as e:  # Keras wraps whatever TF raises
        raise ValueError(f"Cholesky decomposition failed: {e}") from e
    return linalg_ops.adjoint(out) if upper else out


def _cholesky_inverse(x: Any, upper: bool = False) -> Any:
    """The inverse of the matrix whose Cholesky factor is `x` (lower, or upper)."""
    x = _square_matrices(x)
    try:
        identity = linalg_ops.eye(array_ops.shape(x)[-1], dtype=x.dtype)
        inv_chol = linalg_ops.triangular_solve(x, identity, lower=not upper)
        if upper:
            return math_ops.matmul(inv_chol, inv_chol, transpose_b=True)
        return math_ops.matmul(inv_chol, inv_chol, transpose_a=True)
    except Exception as e:
        raise ValueError(f"Cholesky inverse failed: {e}") from e


def _det(x: Any) -> Any:
    """The determinant of each square matrix."""
    return linalg_ops.det(_square_matrices(x))


def _eig(x: Any) -> tuple:
    """(eigenvalues, eigenvectors) of each square matrix, complex."""
    return linalg_ops.eig(_square_matrices(x))


def _eigh(x: Any) -> tuple:
    """(eigenvalues ascending, eigenvectors) of each symmetric (Hermitian) matrix."""
    return linalg_ops.eigh(_square_matrices(x))


def _inv(x: Any) -> Any:
    """The inverse of each square matrix."""
    return linalg_ops.inv(_square_matrices(x))


def _lu_factor(x: Any) -> tuple:
    """(lu, pivots): the packed LU factors and the row each row of the result came from."""
    x = convert_to_tensor(x)
    _assert_2d(x)
    try:
        _assert_square(x)
    except ValueError as e:
        raise ValueError(f"LU decomposition failed: {e}. LU decomposition is only supported "
                         "for square matrices in Tensorflow.") from None
    lu, perm = linalg_ops.lu(x)
    return lu, array_ops.invert_permutation(perm)


def _norm_dtype(x: Any) -> str:
    """Keras's norm dtype: int64 gives floatx, other dtypes `result_type(dtype, float)`."""
    if x.dtype.name == "int64":
        return backend.floatx()
    return _dtypes.result_type(x.dtype.name, float)


def _norm_axes(x: Any, axis: Any) -> tuple:
    ndim = x.shape.rank
    axes = tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis
    if any(a < -ndim or a >= ndim for a in axes):
        raise ValueError("All `axis` values must be in the range [-ndim, ndim). "
                         f"Received inputs with ndim={ndim}, while axis={tuple(axes)}")
    return tuple(axes)


def _vector_norm(x: Any, ord: Any, axis: int, keepdims: bool) -> Any:  # noqa: A002
    if ord is None or ord == 2:
        return math_ops.sqrt(reduce_ops.reduce_sum(x * math_ops.conj(x), axis=axis,
                                                   keepdims=keepdims))
    if ord == float("inf"):
        return reduce_ops.reduce_max(math_ops.abs(x), axis=axis, keepdims=keepdims)
    if ord == float("-inf"):
        return reduce_ops.reduce_min(math_ops.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reduce_ops.reduce_sum(math_ops.cast(math_ops.not_equal(x, 0), x.dtype),
                                     axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
    ord = convert_to_tensor(ord, dtype=x.dtype)
    total = reduce_ops.reduce_sum(math_ops.pow(math_ops.abs(x), ord), axis=axis,
                                  keepdims=keepdims)
    return math_ops.pow(total, 1.0 / ord)


def _reduce_twice(x: Any, reduce: Callable, first: int, second: int, keepdims: bool) -> Any:
    """`reduce` over `second` of the absolute sums over `first` (the 1/inf matrix norms)."""
    if not keepdims and second > first:
        second -= 1
    sums = reduce_ops.reduce_sum(math_ops.abs(x), axis=first, keepdims=keepdims)
    return reduce(sums, axis=second, keepdims=keepdims)


def _matrix_norm(x: Any, ord: Any, axis: tuple, keepdims: bool) -> Any:  # noqa: A002
    ndim = x.shape.rank
    row, col = (a + ndim if a < 0 else a for a in axis)
    if ord is None or ord == "fro":
        return math_ops.sqrt(reduce_ops.reduce_sum(x * math_ops.conj(x), axis=axis,
                                                   keepdims=keepdims))
    if ord in (1, -1):
        reduce = reduce_ops.reduce_max if ord == 1 else reduce_ops.reduce_min
        return _reduce_twice(x, reduce, row, col, keepdims)
    if ord in (float("inf"), float("-inf")):
        reduce = reduce_ops.reduce_max if ord > 0 else reduce_ops.reduce_min
        return _reduce_twice(x, reduce, col, row, keepdims)
    if ord in ("nuc", 2, -2):
        rest = [i for i in range(ndim) if i not in (row, col)]
        s = linalg_ops.svd(array_ops.transpose(x, rest + [row, col]), compute_uv=False)
        reduce = {"nuc": reduce_ops.reduce_sum, 2: reduce_ops.reduce_max,
                  -2: reduce_ops.reduce_min}[ord]
        out = reduce(s, axis=-1)
        if keepdims:
            out = array_ops.expand_dims(array_ops.expand_dims(out, axis[0]), axis[1])
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """The vector norm (one axis) or matrix norm (two axes) of `x`, as `numpy.linalg.norm`;
    None: the 2-norm of all of `x` flattened (Frobenius for matrices)."""
    x = convert_to_tensor(x)
    axes = _norm_axes(x, axis)
    x = math_ops.cast(x, _norm_dtype(x))
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values. Received: axis={axes}")


def _qr(x: Any, mode: str = "reduced") -> tuple:
    """(q, r) of each matrix; `mode` 'reduced' (q: m x k) or 'complete' (q: m x m)."""
    if mode not in {"reduced", "complete"}:
        raise ValueError("`mode` argument value not supported. Expected one of {'reduced', "
                         f"'complete'}}. Received: mode={mode}")
    x = convert_to_tensor(x)
    return tuple(linalg_ops.qr(x, full_matrices=mode == "complete"))


def _solve(a: Any, b: Any) -> Any:
    """x with a @ x = b (b: a matrix or a vector per matrix of `a`)."""
    a, b = _system(a, b)
    if _vector_rhs(a, b):
        return array_ops.squeeze(linalg_ops.solve(a, array_ops.expand_dims(b, -1)), axis=-1)
    return linalg_ops.solve(a, b)


def _solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    """x with a @ x = b for triangular `a` (its upper triangle, or lower for `lower`)."""
    a, b = _system(a, b)
    if _vector_rhs(a, b):
        x = linalg_ops.triangular_solve(a, array_ops.expand_dims(b, -1), lower=lower)
        return array_ops.squeeze(x, axis=-1)
    return linalg_ops.triangular_solve(a, b, lower=lower)


def _svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """(u, s, vh) with x = u @ diag(s) @ vh, or only `s` when not `compute_uv`."""
    x = convert_to_tensor(x)
    _assert_2d(x)
    if compute_uv is False:
        return linalg_ops.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = linalg_ops.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    return u, s, linalg_ops.adjoint(v)


def _lstsq(a: Any, b: Any, rcond: Optional[float] = None) -> Any:
    """The least-squares solution x of a @ x = b (`a` one matrix, `b` a vector or matrix),
    through the SVD: singular values below rcond * max(s) count as zero."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.shape.rank == 1
    if vector:
        b = array_ops.expand_dims(b, -1)
    if a.shape.rank != 2:
        raise TypeError(f"{a.shape.rank}-dimensional array given. Array must be "
                        "two-dimensional")
    if b.shape.rank != 2:
        raise TypeError(f"{b.shape.rank}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = a.shape.as_list()
    eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
    if rcond is None:
        rcond = eps * max(n, m)
    else:
        rcond = math_ops.where(math_ops.less(rcond, 0), eps, rcond)
    u, s, vt = _svd(a, full_matrices=False)
    mask = math_ops.greater_equal(s, math_ops.cast(rcond, s.dtype) * s[0])
    safe_s = math_ops.cast(math_ops.where(mask, s, math_ops.ones_like(s)), a.dtype)
    s_inv = array_ops.expand_dims(
        math_ops.where(mask, 1 / safe_s, math_ops.zeros_like(safe_s)), -1)
    u_t_b = math_ops.matmul(array_ops.transpose(math_ops.conj(u)), b)
    x = math_ops.matmul(array_ops.transpose(math_ops.conj(vt)), s_inv * u_t_b)
    return array_ops.reshape(x, [-1]) if vector else x


def _matrix_rank(x: Any, tol: Optional[float] = None) -> Any:
    """The number of singular values of each matrix above `tol` (int32)."""
    return linalg_ops.matrix_rank(convert_to_tensor(x), tol=tol)


def _pinv(x: Any, rcond: Optional[float] = None) -> Any:
    """The Moore-Penrose pseudo-inverse of each matrix."""
    return linalg_ops.pinv(convert_to_tensor(x), rcond=rcond)


def _jvp(fun: Callable, primals: Any, tangents: Any, has_aux: bool = False) -> tuple:
    """(fun(*primals), the Jacobian of `fun` at `primals` times `tangents`) (and `fun`'s aux
    output where `has_aux`), by forward-mode differentiation."""
    primal_flat = [convert_to_tensor(p) for p in nest.flatten(primals)]
    tangent_flat = [math_ops.cast(t, p.dtype)
                    for t, p in zip(nest.flatten(tangents), primal_flat)]
    primals = nest.pack_sequence_as(primals, primal_flat)
    with ForwardAccumulator(primal_flat, tangent_flat) as acc:
        if has_aux:
            primals_out, aux = fun(*primals)
        else:
            primals_out = fun(*primals)
        tangents_out_flat = [acc.jvp(po) for po in nest.flatten(primals_out)]
    tangents_out = nest.pack_sequence_as(primals_out, tangents_out_flat)
    return (primals_out, tangents_out, aux) if has_aux else (primals_out, tangents_out)


cholesky = keras_op("Cholesky", _cholesky)
cholesky_inverse = keras_op("CholeskyInverse", _cholesky_inverse)
det = keras_op("Det", _det)
eig = keras_op("Eig", _eig)
eigh = keras_op("Eigh", _eigh)
inv = keras_op("Inv", _inv)
jvp = keras_op("JVP", _jvp)
lstsq = keras_op("Lstsq", _lstsq)
lu_factor = keras_op("LuFactor", _lu_factor)
matrix_rank = keras_op("MatrixRank", _matrix_rank)
norm = keras_op("Norm", _norm)
pinv = keras_op("Pinv", _pinv)
qr = keras_op("Qr", _qr)
solve = keras_op("Solve", _solve)
solve_triangular = keras_op("SolveTriangular", _solve_triangular)
svd = keras_op("Svd", _svd)

__all__ = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq",
           "lu_factor", "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd"]
