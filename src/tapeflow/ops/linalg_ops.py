"""Linear algebra (`tf.linalg`): solves, factorizations, determinants, diagonals, norms,
einsum and the matrix exponential, with their rules (after TensorFlow's linalg_grad.py).

Every op is batched over leading axes. Rules are written with tapeflow ops, so second
derivatives work; factorization rules assume distinct eigen/singular values, as TF's do.
"""

from __future__ import annotations

import builtins
import collections
import numbers
import string
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import (ShapedArray, broadcast_dims, has_static_shape,
                                        same_as_input)
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.convert import cpp_name, enum_name, mismatch_error
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import binary_operands, convert_to_tensor, require
from tapeflow.ops.array_ops import range as arange
from tapeflow.ops.array_ops import shape as shape_of
from tapeflow.ops.array_ops import (broadcast_dynamic_shape, broadcast_to, concat, expand_dims,
                                    gather, reshape, run_time_int, slice_tensor, squeeze,
                                    stack, transpose)
from tapeflow.ops.math_ops import (abs, cast, conj, log, matmul, ones_like, sqrt, where,
                                   zeros_like)
from tapeflow.ops.reduce_ops import norm as _vector_norm
from tapeflow.ops.reduce_ops import reduce_all, reduce_max, reduce_prod, reduce_sum
from tapeflow.ops._static import is_traced, read_at_run_time, reads_static, static_value
from tapeflow.ops.index_ops import boolean_mask, linear_jvp

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])

_FLOAT_TYPES = "double, float, half, complex64, complex128"


# LAPACK may loop forever on a matrix holding inf (and spreads NaN its own way), so the
# kernels test their input with one np.isfinite(x).all() and handle non-finite matrices
# as TensorFlow's Eigen kernels do.

def _nonfinite_matrices(x: np.ndarray) -> np.ndarray:
    """A boolean mask over the batch: which matrices hold an inf or NaN."""
    return ~np.isfinite(x).all(axis=(-2, -1))


def _per_matrix(kernel: Any, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`out` with kernel(m) written for each matrix m of the batch `x`."""
    flat_in = x.reshape((-1,) + x.shape[-2:])
    flat_out = out.reshape((-1,) + out.shape[-2:])
    for i, m in enumerate(flat_in):
        flat_out[i] = kernel(m)
    return out


def _matrix(x: Any, op_name: str, square: bool = True, half: Optional[str] = None) -> Tensor:
    """Converts and checks a (batch of) matrix input: float dtype, rank >= 2, square.

    `half`, for ops with no float16 CPU kernel in TensorFlow, is the node text its
    NotFoundError shows (e.g. "Svd[T=DT_HALF, compute_uv=true]"); TF looks the kernel up
    before it checks shapes."""
    x = convert_to_tensor(x)
    kind = x._value.dtype.kind
    if kind not in "fc" or (half is not None and x._value.dtype == np.float16):
        _refuse_matrix(x, op_name, half)
    shape = x._value.shape
    if shape is None:
        return x   # an unknown rank: the shape rule and the kernel check it
    if len(shape) < 2:
        raise InvalidArgumentError(f"Input tensor 0 must have rank >= 2, got {len(shape)} "
                                   f"[Op:{op_name}]")
    # An unknown dim (a traced value) is left to the kernel, as the graph runs.
    if square and shape[-1] != shape[-2] and None not in shape[-2:]:
        raise InvalidArgumentError(f"Input matrix must be square. [Op:{op_name}]")
    return x


def _check_square(x: np.ndarray, op_name: str) -> None:
    """A kernel's own test of `_matrix`'s (for inputs whose dims the trace did not know)."""
    if x.ndim < 2:
        raise InvalidArgumentError(f"Input tensor 0 must have rank >= 2, got {x.ndim} "
                                   f"[Op:{op_name}]")
    if x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(f"Input matrix must be square. [Op:{op_name}]")


def _refuse_matrix(x: Tensor, op_name: str, half: Optional[str]) -> None:
    if x._value.dtype == np.float16 and half is not None:
        node = half.split("[")[0]
        raise NotFoundError(f"Could not find device for node: {{{{node {node}}}}} = {half}\n"
                            f"All kernels registered for op {node}:\n  device='CPU'; T in "
                            f"[DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128]\n [Op:{node}]")
    raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list "
                               f"of allowed values: {_FLOAT_TYPES} [Op:{op_name}]")


def _flag(value: bool) -> str:
    return "true" if value else "false"


# -- shape rules ---------------------------------------------------------------------------------
# After TensorFlow's linalg shape functions: a square op merges its last two dims (so one
# known dim makes both known), and known dims that conflict raise TF's ValueError.

def _unequal(op: str, a: int, b: int, *avals: ShapedArray) -> ValueError:
    shapes = ", ".join(dims_text(x.shape) for x in avals)
    return ValueError(f"Dimensions must be equal, but are {a} and {b} for '{{{{node {op}}}}} "
                      f"= {op}[...]' with input shapes: {shapes}.")


def _merge(op: str, a: Optional[int], b: Optional[int], *avals: ShapedArray) -> Optional[int]:
    """Two dims that must be equal: the known one (TF's InferenceContext::Merge)."""
    if a is not None and b is not None and a != b:
        raise _unequal(op, a, b, *avals)
    return b if a is None else a


def _at_least(op: str, x: ShapedArray, rank: int, *avals: ShapedArray) -> None:
    if x.shape is not None and len(x.shape) < rank:
        shapes = ", ".join(dims_text(a.shape) for a in avals or (x,))
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(x.shape)} for "
                         f"'{{{{node {op}}}}} = {op}[...]' with input shapes: {shapes}.")


def _square(op: str, x: ShapedArray, *avals: ShapedArray, cols_first: bool = False) -> tuple:
    """(batch dims, n) of a batch of square matrices; (None, None) for an unknown rank.
    `cols_first` names the dims in the order TF's determinant shape functions merge them."""
    _at_least(op, x, 2, *avals or (x,))
    if x.shape is None:
        return None, None
    rows, cols = x.shape[-2:]
    n = _merge(op, cols, rows, *avals or (x,)) if cols_first else \
        _merge(op, rows, cols, *avals or (x,))
    return x.shape[:-2], n


def _square_rule(op: str, cols_first: bool = False) -> Any:
    """Square in, same shape out (Cholesky, MatrixInverse, MatrixExponential)."""
    def rule(x: ShapedArray, **attrs: Any) -> ShapedArray:
        batch, n = _square(op, x, cols_first=cols_first)
        return ShapedArray(None if batch is None else batch + (n, n), x.dtype)
    return rule


def _det_rule(op: str) -> Any:
    """Square in, the batch shape out (one result, or sign and log for LogMatrixDeterminant)."""
    def rule(x: ShapedArray) -> Any:
        batch, _ = _square(op, x, cols_first=True)
        out = ShapedArray(batch, x.dtype)
        return (out, out) if op == "LogMatrixDeterminant" else out
    return rule


def _solve_rule(a: ShapedArray, b: ShapedArray, adjoint: bool) -> ShapedArray:
    # MatrixSolve's batch dims must be equal (no broadcasting), as TF's MatrixSolveShapeFn.
    batch_a, n = _square("MatrixSolve", a, a, b)
    _at_least("MatrixSolve", b, 2, a, b)
    if batch_a is None or b.shape is None:
        return ShapedArray(None, a.dtype)
    batch_b = b.shape[:-2]
    if len(batch_a) != len(batch_b):
        raise ValueError(f"Shapes must be equal rank, but are {len(batch_a)} and "
                         f"{len(batch_b)} for '{{{{node MatrixSolve}}}}' with input shapes: "
                         f"{dims_text(a.shape)}, {dims_text(b.shape)}.")
    for i, (x, y) in enumerate(zip(batch_a, batch_b)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {dims_text(batch_a)} and {dims_text(batch_b)}. for "
                             f"'{{{{node MatrixSolve}}}}' with input shapes: "
                             f"{dims_text(a.shape)}, {dims_text(b.shape)}.")
    batch = tuple(y if x is None else x for x, y in zip(batch_a, batch_b))
    n = _merge("MatrixSolve", n, b.shape[-2], a, b)
    return ShapedArray(batch + (n, b.shape[-1]), a.dtype)


def _triangular_rule(a: ShapedArray, b: ShapedArray, lower: bool,
                     adjoint: bool) -> ShapedArray:
    # Batch dims broadcast here (TF's MatrixTriangularSolveShapeFn).
    op = "MatrixTriangularSolve"
    batch_a, n = _square(op, a, a, b)
    _at_least(op, b, 2, a, b)
    if batch_a is None or b.shape is None:
        return ShapedArray(None, b.dtype)
    for x, y in zip(reversed(batch_a), reversed(b.shape[:-2])):
        if x not in (None, 1) and y not in (None, 1) and x != y:
            raise _unequal(op, x, y, a, b)
    n = _merge(op, n, b.shape[-2], a, b)
    return ShapedArray(broadcast_dims(batch_a, b.shape[:-2]) + (n, b.shape[-1]), b.dtype)


def _min_dim(m: Optional[int], n: Optional[int]) -> Optional[int]:
    """min(m, n) over dims (TF's InferenceContext::Min: a known 0 wins over an unknown)."""
    if m == 0 or n == 0:
        return 0
    return None if m is None or n is None else builtins.min(m, n)


def _qr_rule(x: ShapedArray, full_matrices: bool) -> tuple:
    _at_least("Qr", x, 2)
    if x.shape is None:
        return ShapedArray(None, x.dtype), ShapedArray(None, x.dtype)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    cols = m if full_matrices else _min_dim(m, n)
    return ShapedArray(batch + (m, cols), x.dtype), ShapedArray(batch + (cols, n), x.dtype)


def _svd_rule(x: ShapedArray, full_matrices: bool) -> tuple:
    _at_least("Svd", x, 2)
    real = np.finfo(x.dtype).dtype   # s is real for complex inputs
    if x.shape is None:
        return ShapedArray(None, real), ShapedArray(None, x.dtype), ShapedArray(None, x.dtype)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    p = _min_dim(m, n)
    u_cols, v_cols = (m, n) if full_matrices else (p, p)
    return (ShapedArray(batch + (p,), real), ShapedArray(batch + (m, u_cols), x.dtype),
            ShapedArray(batch + (n, v_cols), x.dtype))


def _eigh_rule(x: ShapedArray) -> tuple:
    batch, n = _square("SelfAdjointEigV2", x)
    if batch is None:
        return ShapedArray(None, x.dtype), ShapedArray(None, x.dtype)
    return ShapedArray(batch + (n,), x.dtype), ShapedArray(batch + (n, n), x.dtype)


def _diag_part_rule(x: ShapedArray, k: int) -> ShapedArray:
    _at_least("MatrixDiagPartV3", x, 2)
    if x.shape is None:
        return ShapedArray(None, x.dtype)
    rows, cols = x.shape[-2:]
    length = None
    if rows is not None and cols is not None:
        # The kernel takes an out-of-range k on an empty batch (as the wrapper lets it).
        if x.is_fully_defined() and np.prod(x.shape) and not -rows < k < cols:
            raise ValueError(f"lower_diag_index is out of bound. for '{{{{node "
                             f"MatrixDiagPartV3}}}}' with input shapes: {dims_text(x.shape)} "
                             f"and k = {k}")
        length = builtins.max(builtins.min(rows + builtins.min(k, 0),
                                           cols - builtins.max(k, 0)), 0)
    return ShapedArray(x.shape[:-2] + (length,), x.dtype)


def _diag_rule(d: ShapedArray, k: int, num_rows: int, num_cols: int) -> ShapedArray:
    _at_least("MatrixDiagV3", d, 1)
    if d.shape is None:
        return ShapedArray(None, d.dtype)
    problem = None if d.shape[-1] is None else _diag_size_problem(d.shape[-1], k, num_rows,
                                                                  num_cols)
    if problem is not None:
        raise ValueError(f"{_DIAG_SIZE_ERRORS[problem][0]} for '{{{{node MatrixDiagV3}}}}' "
                         f"with input shapes: {dims_text(d.shape)}, num_rows = {num_rows}, "
                         f"num_cols = {num_cols}, k = {k}")
    # Sizes left to the kernel (-1, for a diagonal of unknown length) are unknown.
    return ShapedArray(d.shape[:-1] + (num_rows if num_rows >= 0 else None,
                                       num_cols if num_cols >= 0 else None), d.dtype)


# TF's texts, in its graph's shape function and in its kernel, for sizes that do not fit.
_DIAG_SIZE_ERRORS = {
    "rows": ("num_rows is too small", "The number of rows is too small."),
    "cols": ("num_cols is too small.", "The number of columns is too small."),
    "both": ("num_rows and num_cols are not consistent with lower_diag_index, "
             "upper_diag_index, and the length of the given diagonals.",
             "The number of rows or columns is not consistent with the specified d_lower, "
             "d_upper, and diagonal."),
}


def _diag_size_problem(n: int, k: int, rows: int, cols: int) -> Optional[str]:
    """Whether [rows, cols] matrices hold a length-n k-th diagonal exactly, as TF requires
    (at least as big as the smallest that does, and as big in one of the two dims)."""
    min_rows, min_cols = n + builtins.max(-k, 0), n + builtins.max(k, 0)
    if rows < min_rows:
        return "rows"
    if cols < min_cols:
        return "cols"
    return "both" if rows != min_rows and cols != min_cols else None


def _set_diag_rule(x: ShapedArray, d: ShapedArray, k: int) -> ShapedArray:
    # The diagonal's batch dims fill unknown ones of the input (TF's MatrixSetDiagV2Shape).
    op = "MatrixSetDiagV3"
    _at_least(op, x, 2, x, d)
    if d.shape is None:
        return ShapedArray(x.shape, x.dtype)
    if x.shape is None:
        return ShapedArray(d.shape[:-1] + (None, None), x.dtype)
    if len(d.shape) != len(x.shape) - 1:
        raise ValueError(f"Shape must be rank {len(x.shape) - 1} but is rank {len(d.shape)} "
                         f"for '{{{{node {op}}}}}' with input shapes: {dims_text(x.shape)}, "
                         f"{dims_text(d.shape)}.")
    batch = tuple(_merge(op, a, b, x, d) for a, b in zip(x.shape[:-2], d.shape[:-1]))
    return ShapedArray(batch + x.shape[-2:], x.dtype)


def _einsum_rule(*xs: ShapedArray, equation: str, check_dims: bool = False) -> ShapedArray:
    """The equation comes spelled out (explicit output, ellipses as letters): each letter's
    dim is the one its operands agree on."""
    inputs, output = equation.split("->")
    sizes: dict = {}
    for sub, x in zip(inputs.split(","), xs):
        if x.shape is None:
            continue
        if len(sub) != len(x.shape):
            raise ValueError(f"Expected input to have rank {len(sub)} but got: {len(x.shape)} "
                             f"for '{{{{node Einsum}}}}' with equation \"{equation}\"")
        for c, d in zip(sub, x.shape):
            sizes[c] = _merge("Einsum", sizes.get(c), d, *xs)
    return ShapedArray(tuple(sizes.get(c) for c in output), xs[0].dtype)


@tf_export("linalg.matrix_transpose")
def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swaps the last two axes."""
    a = convert_to_tensor(a)
    rank = a._value.ndim
    if rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received "
                         f"`a` = {a} with shape: {list(a._value.shape)}")
    swapped = transpose(a, tuple(range(rank - 2)) + (rank - 1, rank - 2))
    return conj(swapped) if conjugate and a._value.dtype.kind == "c" else swapped


@tf_export("linalg.adjoint")
def adjoint(matrix: Any, name: Optional[str] = None) -> Tensor:
    """The conjugate transpose of each matrix (the transpose for real ones)."""
    return matrix_transpose(matrix, conjugate=True)


def _eye_like(x: Tensor) -> Tensor:
    """Identity matrices shaped and typed as the batch of square matrices `x`."""
    if not has_static_shape(x._value):   # sized as the graph runs
        return set_diag(zeros_like(x), ones_like(diag_part(x)))
    n = x._value.shape[-1]
    return wrap(np.broadcast_to(np.eye(n, dtype=x._value.dtype), x._value.shape).copy())


@tf_export("linalg.eye", "eye")
@reads_static
def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
        dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """An identity matrix [num_rows, num_columns] (square by default), repeated over
    `batch_shape` when given. Sizes are Python integers or scalar integer tensors.

    tf.eye and tf.linalg.eye are this one function, as in TensorFlow."""
    cols = num_rows if num_columns is None else num_columns
    if not any(isinstance(v, TensorLike) for v in (num_rows, cols)) and not all(
            isinstance(v, numbers.Integral) for v in (num_rows, cols)):
        raise TypeError(f"Arguments `num_rows` and `num_columns` must be positive integer "
                        f"values. Received: num_rows={num_rows}, num_columns={cols}")
    np_dtype = _dtypes.as_dtype(dtype)._np
    if context.graph is not None and any(is_traced(v) for v in (num_rows, cols, batch_shape)):
        return _traced_eye(num_rows, cols, batch_shape, np_dtype)
    rows = static_value(num_rows, "eye: num_rows", int)
    cols = static_value(cols, "eye: num_columns", int)
    batch = () if batch_shape is None else tuple(int(d) for d in np.asarray(
        static_value(batch_shape, "eye: batch_shape")).reshape(-1))
    return wrap(_eye_array(rows, cols, batch, np_dtype))


def _eye_array(rows: int, cols: int, batch: tuple, dtype: np.dtype) -> np.ndarray:
    # TensorFlow fills the diagonal's shape first, then the matrix's: the first negative
    # size met is the one its Fill error names.
    for d in batch + (min(rows, cols), rows, cols):
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:Fill]")
    matrix = np.eye(rows, cols, dtype=dtype)
    return np.broadcast_to(matrix, batch + (rows, cols)).copy() if batch else matrix


def _eye_rule(rows: ShapedArray, cols: ShapedArray, batch: ShapedArray,
              dtype: np.dtype, known: tuple = (None, None, None)) -> ShapedArray:
    """The dims that sizes read while tracing give (`known`: rows, cols and the batch
    shape, None where read as the graph runs), as TF's shape functions fold them."""
    known_rows, known_cols, known_batch = known
    if known_batch is None:
        if batch.shape is None or len(batch.shape) != 1 or batch.shape[0] is None:
            return ShapedArray(None, dtype)
        known_batch = (None,) * batch.shape[0]
    return ShapedArray(tuple(known_batch) + (known_rows, known_cols), dtype)


# tf.eye with sizes that are traced tensors: they are inputs, read as the graph runs (TF
# builds it from Fill and MatrixDiag ops over those inputs; no TF op has this name).
_eye = Primitive("Eye", lambda rows, cols, batch, dtype, known=None: _eye_array(
    int(rows), int(cols), tuple(int(d) for d in np.reshape(batch, -1)), dtype),
    differentiable=False, shape_rule=_eye_rule)


def _size_or_none(size: int) -> Optional[int]:
    return size if size >= 0 else None   # negative: the kernel's error as the graph runs


def _traced_eye(rows: Any, cols: Any, batch: Any, dtype: np.dtype) -> Tensor:
    known = tuple(None if read_at_run_time(v) else _size_or_none(static_value(
        v, "eye: size", int)) for v in (rows, cols))
    known += (None if read_at_run_time(batch) else () if batch is None else tuple(
        _size_or_none(int(d)) for d in np.reshape(static_value(batch, "eye: batch_shape"),
                                                  -1)),)
    sizes = [convert_to_tensor(v) for v in (rows, cols)]
    batch = convert_to_tensor([] if batch is None else batch, dtype=_dtypes.int32)
    for t in sizes + [batch]:
        if t._value.dtype.kind not in "iu":
            raise TypeError(f"eye: sizes must be integer tensors, got {t.dtype.name}")
    return bind(_eye, (sizes[0], sizes[1], batch), {"dtype": dtype, "known": known})


# -- inverse, solve, determinants ----------------------------------------------------------------

def _safe_linalg(kernel: Any, message: str):
    """Runs a NumPy linalg kernel, turning a singular matrix into TensorFlow's error."""
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return kernel(*args, **kwargs)
        except np.linalg.LinAlgError:
            raise InvalidArgumentError(message) from None
    return run


def _inv_kernel(x: np.ndarray) -> np.ndarray:
    _check_square(x, "MatrixInverse")
    # float16 (which LAPACK lacks) is inverted in float32 and rounded, matching TF's values.
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    if not np.isfinite(wide).all():
        _check_pivots(wide)
    return np.linalg.inv(wide).astype(x.dtype, copy=False)


def _check_pivots(x: np.ndarray) -> None:
    """TF's test before inverting: the smallest |pivot| of Eigen's LU must be > 0, where
    Eigen's min keeps a NaN met first (so a NaN first pivot fails) and skips later ones."""
    for m in x.reshape((-1,) + x.shape[-2:]):
        pivots = np.abs(np.diagonal(_eigen_lu(m)[0])).tolist()
        smallest = pivots[0] if pivots else 1.0
        for p in pivots[1:]:
            smallest = p if p < smallest else smallest
        if not smallest > 0:
            raise np.linalg.LinAlgError("singular")


def _solve_kernel(a: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    _check_square(a, "MatrixSolve")
    _check_solve_shapes(a.shape, b.shape)
    if adjoint:
        a = np.swapaxes(a, -1, -2).conj()
    return np.linalg.solve(a, b).astype(a.dtype, copy=False)


_inverse = Primitive("MatrixInverse", _safe_linalg(
    _inv_kernel, "Input is not invertible. [Op:MatrixInverse]"),
    shape_rule=_square_rule("MatrixInverse")).defvjp(
    lambda g, ans, x: -matmul(ans, matmul(g, ans, transpose_b=True), transpose_a=True))


# Complex cotangents: the rules are holomorphic (the backward pass holds the conjugates of
# TensorFlow's cotangents, GradientTape converts at its ends), so they transpose where TF's
# rules take adjoints; `_conj_if_complex(a)` with `adjoint=True` solves with a's transpose.
# A rule with no holomorphic form (conjugates in the op itself) refuses complex inputs.

def _conj_if_complex(a: Tensor) -> Tensor:
    return conj(a) if a._value.dtype.kind == "c" else a


def _real_gradient_only(g: Any, op_name: str) -> None:
    for t in (g if isinstance(g, (tuple, list)) else (g,)):
        if t is not None and t._value.dtype.kind == "c":
            raise NotImplementedError(f"tapeflow has no gradient of {op_name} for complex "
                                      f"inputs.")


def _solve_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, adjoint: bool) -> tuple:
    if adjoint:
        _real_gradient_only(g, "MatrixSolve with adjoint=True")
        grad_b = solve(a, g)
        return -matmul(ans, grad_b, transpose_b=True), grad_b
    grad_b = solve(_conj_if_complex(a), g, adjoint=True)
    return -matmul(grad_b, ans, transpose_b=True), grad_b


_solve = Primitive("MatrixSolve", _safe_linalg(
    _solve_kernel, "Input matrix is not invertible. [Op:MatrixSolve]"),
    shape_rule=_solve_rule).defvjp(_solve_vjp)


def _det_vjp(g: Tensor, ans: Tensor, a: Tensor) -> Tensor:
    # TF's rule inverts the adjoint (an LU of a^H): on badly scaled matrices that is
    # accurate where transposing inv(a) is not.
    return _per_matrix_scale(g * ans) * inv(_conj_if_complex(a), adjoint=True)


def _per_matrix_scale(x: Tensor) -> Tensor:
    """A batch of scalars as [..., 1, 1], to scale each matrix of the batch."""
    if has_static_shape(x._value):
        return reshape(x, x._value.shape + (1, 1))
    return slice_tensor(x, (Ellipsis, None, None))


def _det_kernel(x: np.ndarray) -> np.ndarray:
    _check_square(x, "MatrixDeterminant")
    if np.isfinite(x).all():
        return np.asarray(np.linalg.det(x)).astype(x.dtype)
    return np.asarray(_per_det(x)).astype(x.dtype)


def _per_det(x: np.ndarray) -> np.ndarray:
    flat = x.reshape((-1,) + x.shape[-2:])
    return np.array([_eigen_lu_det(m) for m in flat], x.dtype).reshape(x.shape[:-2])


def _eigen_lu_det(m: np.ndarray) -> Any:
    """det of one matrix holding inf/NaN by Eigen's unblocked partial-pivoting LU (what
    TensorFlow runs): LAPACK's blocked LU makes other infs and NaNs."""
    lu, sign = _eigen_lu(m)
    return sign * np.prod(np.diagonal(lu))


def _eigen_lu(m: np.ndarray) -> tuple:
    """Eigen's unblocked partial-pivoting LU of one matrix (packed L\\U) and its pivots' sign."""
    lu = m.copy()
    n = m.shape[-1]
    sign = 1
    with np.errstate(all="ignore"):
        for k in range(n):
            score = np.abs(lu[k:, k])
            p = k + int(np.argmax(np.where(np.isnan(score), -1, score)))
            if np.isnan(score[0]):
                p = k   # Eigen's maxCoeff keeps a NaN met first
            if score[p - k] != 0:
                if p != k:
                    lu[[k, p]] = lu[[p, k]]
                    sign = -sign
                lu[k + 1:, k] /= lu[k, k]
            lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, sign


def _slogdet_kernel(x: np.ndarray) -> tuple:
    _check_square(x, "LogMatrixDeterminant")
    sign, logdet = np.linalg.slogdet(x)
    # TensorFlow's sign multiplies the signs of U's diagonal: NaN there makes it NaN too
    # (LAPACK's leaves it +-1).
    sign = np.where(np.isnan(logdet), np.nan, sign)
    return sign.astype(x.dtype), logdet.astype(x.dtype)


def _slogdet_vjp(g: tuple, ans: tuple, a: Tensor) -> Tensor:
    _real_gradient_only(g, "LogMatrixDeterminant")
    return _per_matrix_scale(g[1]) * inv(a, adjoint=True)


_det = Primitive("MatrixDeterminant", _det_kernel,
                 shape_rule=_det_rule("MatrixDeterminant")).defvjp(_det_vjp)
_slogdet = Primitive("LogMatrixDeterminant", _slogdet_kernel, multiple_results=True,
                     shape_rule=_det_rule("LogMatrixDeterminant")).defvjp(_slogdet_vjp)


@tf_export("linalg.inv")
def inv(input: Any, adjoint: bool = False, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse of each square matrix (of its adjoint when `adjoint`)."""
    x = _matrix(input, "MatrixInverse")
    if adjoint:
        x = matrix_transpose(x, conjugate=True)
    return bind(_inverse, (x,))


def _check_solve_shapes(a: tuple, b: tuple) -> None:
    """MatrixSolve's tests of its operands' shapes, in its kernel (so they hold for sizes a
    trace does not know)."""
    if len(b) < 2 or b[-2] != a[-1]:
        raise InvalidArgumentError("Input matrix and rhs are incompatible. [Op:MatrixSolve]")
    if a[:-2] != b[:-2]:
        raise InvalidArgumentError(f"Input matrix and rhs must have the same batch shape: "
                                   f"{dims_text(a)} vs. {dims_text(b)} [Op:MatrixSolve]")


@tf_export("linalg.solve")
def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: Optional[str] = None) -> Tensor:
    """X with `matrix @ X = rhs` (or `adjoint(matrix) @ X = rhs`), batched."""
    a = _matrix(matrix, "MatrixSolve", half=f"MatrixSolve[T=DT_HALF, adjoint={_flag(adjoint)}]")
    a, b = binary_operands(a, rhs, "MatrixSolve")  # TF's error on a dtype mismatch
    return bind(_solve, (a, b), {"adjoint": bool(adjoint)})


@tf_export("linalg.det")
def det(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The determinant of each square matrix."""
    return bind(_det, (_matrix(input, "MatrixDeterminant",
                               half="MatrixDeterminant[T=DT_HALF]"),))


@tf_export("linalg.slogdet")
def slogdet(input: Any, name: Optional[str] = None) -> LogMatrixDeterminant:  # noqa: A002
    """(sign, log |det|) of each square matrix; stable where det over/underflows."""
    sign, logdet = bind(_slogdet, (_matrix(input, "LogMatrixDeterminant",
                                           half="LogMatrixDeterminant[T=DT_HALF]"),))
    return LogMatrixDeterminant(sign, logdet)


@tf_export("linalg.logdet")
def logdet(matrix: Any, name: Optional[str] = None) -> Tensor:
    """log det of each Hermitian positive definite matrix (via its Cholesky factor)."""
    chol = cholesky(matrix)
    return 2.0 * reduce_sum(log(diag_part(chol)), axis=-1)


# -- Cholesky and triangular solves --------------------------------------------------------------

def _cholesky_kernel(x: np.ndarray) -> np.ndarray:
    _check_square(x, "Cholesky")
    # TensorFlow returns NaNs (no error) for matrices that are not positive definite.
    if np.isfinite(x).all():
        try:
            return np.linalg.cholesky(x).astype(x.dtype, copy=False)
        except np.linalg.LinAlgError:
            pass
    return _per_matrix(_cholesky_one, x, np.empty(x.shape, x.dtype))


def _cholesky_one(m: np.ndarray) -> np.ndarray:
    """One matrix's factor: LAPACK's for finite ones; for others Eigen's unblocked LLT, as
    TensorFlow runs it (inf/NaN flow through the arithmetic, where LAPACK gives up)."""
    failed = np.tril(np.full(m.shape, np.nan, m.dtype))
    if np.isfinite(m).all():
        try:
            return np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            return failed
    lower = np.tril(m)
    for k in range(m.shape[-1]):
        row = lower[k, :k]
        pivot = lower[k, k].real - np.vdot(row, row).real
        if pivot <= 0:  # Eigen's test: NaN passes it, -inf fails it
            return failed
        pivot = np.sqrt(pivot)
        lower[k, k] = pivot
        lower[k + 1:, k] = (lower[k + 1:, k] - lower[k + 1:, :k] @ row.conj()) / pivot
    return lower


def _cholesky_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    _real_gradient_only(g, "Cholesky")
    # TensorFlow's rule (Murray 2016): Phi(L^T G) sandwiched between L^-1, symmetrized.
    l_inverse = triangular_solve(ans, _eye_like(ans), lower=True)
    middle = matmul(ans, g, adjoint_a=True)
    middle = set_diag(middle, 0.5 * diag_part(middle))
    middle = band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    return (grad_a + matrix_transpose(grad_a)) * 0.5


_cholesky = Primitive("Cholesky", _cholesky_kernel,
                      shape_rule=_square_rule("Cholesky")).defvjp(_cholesky_vjp)


@tf_export("linalg.cholesky")
def cholesky(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The lower Cholesky factor L (L @ L^T = input) of each positive definite matrix; only
    the lower triangle of the input is read."""
    return bind(_cholesky, (_matrix(input, "Cholesky", half="Cholesky[T=DT_HALF]"),))


def _triangle(a: np.ndarray, lower: bool) -> np.ndarray:
    return np.tril(a) if lower else np.triu(a)


def _triangular_kernel(a: np.ndarray, b: np.ndarray, lower: bool, adjoint: bool) -> np.ndarray:
    _check_square(a, "MatrixTriangularSolve")
    _check_triangular_shapes(a.shape, b.shape)
    if a.shape[:-2] != b.shape[:-2]:   # batch dims broadcast (the wrapper's, where it knew them)
        b = np.broadcast_to(b, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:])
    t = _triangle(a, lower)
    if adjoint:
        t = np.swapaxes(t, -1, -2).conj()
    if np.isfinite(t).all() and np.isfinite(b).all():
        try:
            return np.linalg.solve(t, b).astype(b.dtype, copy=False)
        except np.linalg.LinAlgError:
            pass  # singular: TensorFlow divides by the zero pivot (inf/NaN, no error)
    return _substitute(t, b, lower != adjoint)


def _substitute(t: np.ndarray, b: np.ndarray, forward: bool) -> np.ndarray:
    """Forward (or back) substitution, as TensorFlow's triangular solve: each column of b
    on its own, inf/NaN flowing only where the arithmetic takes them (LU pivoting would mix
    rows and spread NaN to entries that do not depend on it)."""
    n = t.shape[-1]
    x = np.array(b, dtype=np.result_type(t, b))
    reciprocal = 1 / np.diagonal(t, axis1=-2, axis2=-1)
    with np.errstate(all="ignore"):
        for i in (range(n) if forward else range(n - 1, -1, -1)):
            done = builtins.slice(None, i) if forward else builtins.slice(i + 1, None)
            x[..., i, :] = (x[..., i, :] - (t[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]) \
                * reciprocal[..., i:i + 1]
    return x.astype(b.dtype, copy=False)


def _triangular_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, lower: bool,
                    adjoint: bool) -> tuple:
    if adjoint:
        _real_gradient_only(g, "MatrixTriangularSolve with adjoint=True")
        grad_b = triangular_solve(a, g, lower=lower)
        grad_a = -matmul(ans, grad_b, transpose_b=True)
    else:
        grad_b = triangular_solve(_conj_if_complex(a), g, lower=lower, adjoint=True)
        grad_a = -matmul(grad_b, ans, transpose_b=True)
    grad_a = band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1)
    return grad_a, grad_b


_triangular = Primitive("MatrixTriangularSolve", _safe_linalg(
    _triangular_kernel, "Input matrix is not invertible. [Op:MatrixTriangularSolve]"),
    shape_rule=_triangular_rule).defvjp(_triangular_vjp)


def _check_triangular_shapes(a: tuple, b: tuple) -> None:
    if len(b) < 2 or b[-2] != a[-1]:
        raise InvalidArgumentError(f"Input matrix and rhs are incompatible: {dims_text(a)} vs. "
                                   f"{dims_text(b)} [Op:MatrixTriangularSolve]")


@tf_export("linalg.triangular_solve")
def triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                     name: Optional[str] = None) -> Tensor:
    """X with `T @ X = rhs`, T the lower (or upper) triangle of `matrix`; batch axes broadcast."""
    a = _matrix(matrix, "MatrixTriangularSolve", half=f"MatrixTriangularSolve[T=DT_HALF, "
                f"adjoint={_flag(adjoint)}, lower={_flag(lower)}]")
    a, b = binary_operands(a, rhs, "MatrixTriangularSolve")
    if has_static_shape(a._value) and has_static_shape(b._value):
        _check_triangular_shapes(a._value.shape, b._value.shape)
        batch = np.broadcast_shapes(a._value.shape[:-2], b._value.shape[:-2])
        if b._value.shape[:-2] != batch:
            b = broadcast_to(b, batch + b._value.shape[-2:])
    # Else the kernel checks the shapes and broadcasts the batch as the graph runs.
    return bind(_triangular, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


@tf_export("linalg.cholesky_solve")
def cholesky_solve(chol: Any, rhs: Any, name: Optional[str] = None) -> Tensor:
    """X with `A @ X = rhs`, given the Cholesky factor `chol` of A."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# -- QR, SVD, eigh -------------------------------------------------------------------------------

def _qr_kernel(x: np.ndarray, full_matrices: bool) -> tuple:
    if x.dtype == np.float16:   # TF runs Eigen's QR in half precision: so do we
        bad = np.ones(x.shape[:-2], bool)
        m, n = x.shape[-2:]
        cols = m if full_matrices else builtins.min(m, n)
        q = np.empty(x.shape[:-2] + (m, cols), x.dtype)
        r = np.empty(x.shape[:-2] + (cols, n), x.dtype)
    else:
        q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
        q, r = q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)
        bad = _nonfinite_matrices(x)
    if bad.any():  # redone as TensorFlow's Eigen kernel does, which spreads NaN its own way
        for index in np.ndindex(bad.shape):
            if bad[index]:
                q[index], r[index] = _householder_qr(x[index], full_matrices)
    return q, r


def _apply_householder(block: np.ndarray, essential: np.ndarray, tau: Any) -> None:
    """Eigen's applyHouseholderOnTheLeft, in place: block = (I - tau v v^H) block."""
    if block.shape[0] == 1:
        block *= 1 - tau
    elif tau != 0:
        tmp = essential.conj() @ block[1:] + block[0]
        block[0] -= tau * tmp
        block[1:] -= tau * np.outer(essential, tmp)


def _apply_block_householder(block: np.ndarray, packed: np.ndarray, taus: np.ndarray) -> None:
    """Eigen's apply_block_householder_on_the_left (the columns right of the panel), in
    place: block -= V T^H V^H block, its triangular products multiplying explicit zeros."""
    k = len(taus)
    v = np.tril(packed, -1)
    v[np.arange(k), np.arange(k)] = 1
    t = np.zeros((k, k), packed.dtype)
    for i in range(k - 1, -1, -1):   # make_block_householder_triangular_factor
        if i < k - 1:
            t[i, i + 1:] = -taus[i] * (v[i + 1:, i].conj() @ v[i + 1:, i + 1:])
            for j in range(k - 1, i, -1):
                z = t[i, j]
                t[i, j] = z * t[j, j]
                t[i, j + 1:] += z * t[j, j + 1:]
        t[i, i] = taus[i]
    block -= v @ (t.conj().T @ (v.conj().T @ block))


def _householder_qr(a: np.ndarray, full_matrices: bool) -> tuple:
    """Eigen's unblocked HouseholderQR and householderQ() (what TensorFlow runs), for one
    matrix holding inf/NaN: the same arithmetic, so the same NaN pattern."""
    m, n = a.shape
    size = builtins.min(m, n)
    packed = a.copy()
    taus = []
    tiny = np.finfo(a.dtype).tiny
    with np.errstate(all="ignore"):
        for k in range(size):   # the panel: columns [0, size)
            c0, tail = packed[k, k], packed[k + 1:, k]
            tail_norm = np.vdot(tail, tail).real
            if tail_norm <= tiny and c0.imag ** 2 <= tiny:
                tau, beta = a.dtype.type(0), c0.real
                tail[:] = 0
            else:
                beta = np.sqrt(abs(c0) ** 2 + tail_norm)
                beta = -beta if c0.real >= 0 else beta
                tail[:] = tail / (c0 - beta)
                tau = np.conj((beta - c0) / beta)
            packed[k, k] = beta
            _apply_householder(packed[k:, k + 1:size], tail, tau)
            taus.append(tau)
        if n > size:
            _apply_block_householder(packed[:, size:], packed[:, :size], np.array(taus))
        q = np.eye(m, m if full_matrices else size, dtype=a.dtype)
        for k in range(size - 1, -1, -1):   # full: evalTo's corners; thin: a product
            block = q[k:, k:] if full_matrices else q[k:]
            _apply_householder(block, packed[k + 1:, k], np.conj(taus[k]))
    r = np.triu(packed if full_matrices else packed[:size])
    return q, r


def _tri_solve_right(x: Tensor, r: Tensor) -> Tensor:
    """x @ inverse(r)^T for upper-triangular r (TensorFlow's _TriangularSolve helper)."""
    return matrix_transpose(triangular_solve(r, matrix_transpose(x), lower=False))


def _qr_grad_deep(q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - matrix_transpose(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - matrix_transpose(rdr)
    tril = band_part(qdq_ + rdr_, -1, 0)
    grad_a = matmul(q, dr + _tri_solve_right(tril, r))
    grad_b = _tri_solve_right(dq - matmul(q, qdq), r)
    return grad_a + grad_b


def _qr_vjp(g: tuple, ans: tuple, a: Tensor, full_matrices: bool) -> Tensor:
    _real_gradient_only(g, "Qr")
    dq, dr = g
    q, r = ans
    m, n = a._value.shape[-2:]
    if m is None or n is None:
        if full_matrices:
            raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                      f"r.shape: {r.shape}")
        return _qr_grad_any(a, q, r, dq, dr)
    if m > n and full_matrices:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={list(r.shape)} "
                                  f"with nrows={m}and ncols={n}.")
    if m >= n:
        return _qr_grad_deep(q, r, dq, dr)
    # Wide: partition a = [x, y], r = [u, v] and reduce to the square case.
    y = slice_tensor(a, (Ellipsis, builtins.slice(None), builtins.slice(m, None)))
    u = slice_tensor(r, (Ellipsis, builtins.slice(None), builtins.slice(None, m)))
    dv = slice_tensor(dr, (Ellipsis, builtins.slice(None), builtins.slice(m, None)))
    du = slice_tensor(dr, (Ellipsis, builtins.slice(None), builtins.slice(None, m)))
    dy = matmul(q, dv)
    dx = _qr_grad_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return concat([dx, dy], axis=-1)


def _columns(x: Tensor, start: Any, stop: Any) -> Tensor:
    """x[..., start:stop] for bounds that are run-time scalars."""
    return gather(x, arange(start, stop), axis=-1)


def _qr_grad_any(a: Tensor, q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    """The reduced QR's gradient where the trace does not know whether `a` is deep or wide:
    the wide case's partition at k = rows of r (= min(m, n)) is the deep case when k = n (y
    and dv have no columns), so one program holds for both, with the same numbers."""
    k, n = shape_of(r)[-2], shape_of(a)[-1]
    y, dv = _columns(a, k, n), _columns(dr, k, n)
    dx = _qr_grad_deep(q, _columns(r, 0, k), dq + matmul(y, dv, adjoint_b=True),
                       _columns(dr, 0, k))
    return concat([dx, matmul(q, dv)], axis=-1)


_qr = Primitive("Qr", _qr_kernel, multiple_results=True, shape_rule=_qr_rule).defvjp(_qr_vjp)


@tf_export("linalg.qr")
def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None) -> Qr:  # noqa: A002
    """The QR factorization (q orthonormal, r upper triangular) of each matrix."""
    x = _matrix(input, "Qr", square=False)
    return Qr(*bind(_qr, (x,), {"full_matrices": bool(full_matrices)}))


def _svd_kernel(x: np.ndarray, full_matrices: bool) -> tuple:
    bad = _nonfinite_matrices(x)
    if bad.any():
        # TensorFlow gives NaN for every output of such a matrix; LAPACK may never return.
        s, u, v = _svd_kernel(np.where(bad[..., None, None], 0, x), full_matrices)
        for out in (s, u, v):
            out[bad] = np.nan
        return s, u, v
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    dtype = x.dtype
    return (s.astype(x.real.dtype, copy=False), u.astype(dtype, copy=False),
            np.swapaxes(vh, -1, -2).astype(dtype, copy=True))


def _expand(x: Tensor, axis: int) -> Tensor:
    """expand_dims(x, axis) for axis -1 or -2; where x's shape is not static, by slicing
    with a new axis (which needs no shape)."""
    if has_static_shape(x._value):
        return expand_dims(x, axis)
    every = builtins.slice(None)
    return slice_tensor(x, (Ellipsis, None, every) if axis == -2 else (Ellipsis, None))


def _pairwise_difference(x: Tensor) -> Tensor:
    """d[..., i, j] = x[..., j] - x[..., i] over the last axis of `x`."""
    return _expand(x, -2) - _expand(x, -1)


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    return x * (1.0 / (x * x + epsilon))


def _svd_vjp(g: tuple, ans: tuple, a: Tensor, full_matrices: bool) -> Tensor:
    _real_gradient_only(g, "Svd")
    grad_s, grad_u, grad_v = g
    s, u, v = ans
    m, n = a._value.shape[-2:]
    if m is None or n is None:
        if full_matrices:
            raise NotImplementedError("SVD gradient has not been implemented for input with "
                                      "unknown inner matrix shape.")
        return _svd_grad_thin(s, u, v, grad_s, grad_u, grad_v)
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full_matrices and builtins.abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when "
                                  f"full_matrices is True. Received: m={m} and n={n}.")
    s_mat = diag(s)
    s2 = s * s
    f = set_diag(_safe_reciprocal(_pairwise_difference(s2)), zeros_like(s))
    s_inv_mat = diag(_safe_reciprocal(s))
    cols = (Ellipsis, builtins.slice(None), builtins.slice(None, m))
    v1, grad_v1 = slice_tensor(v, cols), slice_tensor(grad_v, cols)
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    f_v = f * matmul(v1, grad_v1, adjoint_a=True)
    term1_nouv = (diag(grad_s) + matmul(f_u + matrix_transpose(f_u), s_mat) +
                  matmul(s_mat, f_v + matrix_transpose(f_v)))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = matrix_transpose(grad_v1)
        term2_nous = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            rest = (Ellipsis, builtins.slice(None), builtins.slice(m, n))
            v2, grad_v2 = slice_tensor(v, rest), slice_tensor(grad_v, rest)
            term2_nous = term2_nous - matmul(matmul(v1, grad_v2, adjoint_a=True), v2,
                                             adjoint_b=True)
        grad_a = grad_a + matmul(matmul(u, s_inv_mat), term2_nous)
    return matrix_transpose(grad_a) if use_adjoint else grad_a


def _svd_grad_thin(s: Tensor, u: Tensor, v: Tensor, grad_s: Tensor, grad_u: Tensor,
                   grad_v: Tensor) -> Tensor:
    """The thin SVD's gradient for any m and n, for traces that do not know which is larger:
    `_svd_vjp`'s terms with both projections, (I - v v^T) and (I - u u^T); the one for the
    square factor vanishes (which one, only the run-time sizes tell)."""
    s_mat, s_inv_mat = diag(s), diag(_safe_reciprocal(s))
    s2 = s * s
    f = set_diag(_safe_reciprocal(_pairwise_difference(s2)), zeros_like(s))
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    f_v = f * matmul(v, grad_v, adjoint_a=True)
    term1_nouv = (diag(grad_s) + matmul(f_u + matrix_transpose(f_u), s_mat) +
                  matmul(s_mat, f_v + matrix_transpose(f_v)))
    grad_a = matmul(u, matmul(term1_nouv, v, adjoint_b=True))
    gvt = matrix_transpose(grad_v)
    grad_a = grad_a + matmul(matmul(u, s_inv_mat), gvt - matmul(matmul(gvt, v), v,
                                                                adjoint_b=True))
    gu_perp = grad_u - matmul(u, matmul(u, grad_u, adjoint_a=True))
    return grad_a + matmul(matmul(gu_perp, s_inv_mat), v, adjoint_b=True)


_svd = Primitive("Svd", _svd_kernel, multiple_results=True, shape_rule=_svd_rule).defvjp(_svd_vjp)


@tf_export("linalg.svd")
def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: Optional[str] = None) -> Any:
    """Singular values `s` (descending) of each matrix and, with `compute_uv`, the singular
    vectors: returns `(s, u, v)` with `tensor = u @ diag(s) @ v^T`."""
    x = _matrix(tensor, "Svd", square=False, half=f"Svd[T=DT_HALF, compute_uv="
                f"{_flag(compute_uv)}, full_matrices={_flag(full_matrices)}]")
    if not compute_uv:
        return bind(_svd, (x,), {"full_matrices": False})[0]
    return bind(_svd, (x,), {"full_matrices": bool(full_matrices)})


def _eigh_kernel(x: np.ndarray) -> tuple:
    _check_square(x, "SelfAdjointEigV2")
    # Only the lower triangle is read, as in TensorFlow.
    if not np.isfinite(x).all() and not np.isfinite(np.tril(x)).all():
        return _eigh_nonfinite(x)
    e, v = np.linalg.eigh(x, UPLO="L")
    return e.astype(x.dtype, copy=False), v.astype(x.dtype, copy=False)


def _eigh_nonfinite(x: np.ndarray) -> tuple:
    """TensorFlow's Eigen solver on a batch where some lower triangle holds inf/NaN. It
    divides the matrix by its largest |entry| (inf: the finite entries become 0, the
    infinite NaN); it converges only where that NaN stays off the tridiagonal's
    subdiagonal: a 1x1 matrix (its entry is the eigenvalue), or infs on the diagonal only
    (any NaN, or an inf below the diagonal, spreads into the subdiagonal and the QR
    iteration never converges; so does an inf on the diagonal past the first for n >= 3,
    which the first Householder step spreads). Those come out as NaN eigenvalues and
    identity eigenvectors."""
    n = x.shape[-1]
    lower = np.tril(x)
    if n == 1:
        return x[..., 0].real.astype(x.dtype), np.ones(x.shape, x.dtype)
    diagonal = np.diagonal(lower, axis1=-2, axis2=-1)
    fails = (np.isnan(lower).any() or not np.isfinite(np.tril(x, -1)).all() or
             (n >= 3 and not np.isfinite(diagonal[..., 1:]).all()))
    if fails:
        raise InvalidArgumentError("Self-adjoint eigen decomposition was not successful. The "
                                   "input might not be valid. [Op:SelfAdjointEigV2]")
    bad = _nonfinite_matrices(lower)
    e, v = _eigh_kernel(np.where(bad[..., None, None], 0, x))
    e[bad] = np.nan
    v[bad] = np.eye(n, dtype=x.dtype)
    return e, v


def _eigh_vjp(g: tuple, ans: tuple, a: Tensor) -> Tensor:
    _real_gradient_only(g, "SelfAdjointEigV2")
    grad_e, grad_v = g
    e, v = ans
    f = set_diag(_safe_reciprocal(_pairwise_difference(e)), zeros_like(e))
    grad_a = matmul(v, matmul(diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True), v,
                              adjoint_b=True))
    # The op reads the lower triangle only: fold the gradient onto it.
    grad_a = band_part(grad_a + matrix_transpose(grad_a), -1, 0)
    return set_diag(grad_a, 0.5 * diag_part(grad_a))


_eigh = Primitive("SelfAdjointEigV2", _eigh_kernel, multiple_results=True,
                  shape_rule=_eigh_rule).defvjp(_eigh_vjp)


@tf_export("linalg.eigh")
def eigh(tensor: Any, name: Optional[str] = None) -> tuple:
    """Eigenvalues (ascending) and eigenvectors (columns) of each self-adjoint matrix:
    `(e, v)`."""
    return bind(_eigh, (_matrix(tensor, "SelfAdjointEigV2",
                                half="SelfAdjointEigV2[T=DT_HALF, compute_v=true]"),))


@tf_export("linalg.eigvalsh")
def eigvalsh(tensor: Any, name: Optional[str] = None) -> Tensor:
    """The eigenvalues (ascending) of each self-adjoint matrix."""
    return bind(_eigh, (_matrix(tensor, "SelfAdjointEigV2",
                                half="SelfAdjointEigV2[T=DT_HALF, compute_v=false]"),))[0]


# -- diagonals and bands -------------------------------------------------------------------------

def _diag_index(shape: tuple, k: int) -> tuple:
    rows, cols = shape[-2:]
    start_r, start_c = builtins.max(-k, 0), builtins.max(k, 0)
    length = builtins.max(builtins.min(rows - start_r, cols - start_c), 0)
    i = np.arange(length)
    return (Ellipsis, i + start_r, i + start_c)


# The kernels test their inputs' sizes (the wrappers cannot where a trace leaves dims unknown).

def _diag_part_kernel(x: np.ndarray, k: int) -> np.ndarray:
    _check_matrix_rank(x, "MatrixDiagPartV3")
    rows, cols = x.shape[-2:]
    if x.size and not -rows < k < cols:
        raise InvalidArgumentError(f"lower_diag_index is out of bound: {k}. It must be between "
                                   f"{-rows} and {cols} [Op:MatrixDiagPartV3]")
    return x[_diag_index(x.shape, k)].copy()


def _diag_sizes(n: int, k: int, rows: int, cols: int) -> tuple:
    """MatrixDiagV3's matrix size for a length-n k-th diagonal, given num_rows and num_cols
    (-1: the smallest that holds it)."""
    if rows < 0 and cols < 0:
        rows = cols = n + builtins.abs(k)   # TensorFlow's default: the smallest square
    rows = rows if rows >= 0 else n + builtins.max(-k, 0)
    cols = cols if cols >= 0 else n + builtins.max(k, 0)
    problem = _diag_size_problem(n, k, rows, cols)
    if problem is not None:
        raise InvalidArgumentError(f"{_DIAG_SIZE_ERRORS[problem][1]} [Op:MatrixDiagV3]")
    return rows, cols


def _diag_kernel(d: np.ndarray, k: int, num_rows: int, num_cols: int) -> np.ndarray:
    if d.ndim < 1:
        raise InvalidArgumentError(f"diagonal must be at least 1-dim, received shape: "
                                   f"{dims_text(d.shape)} [Op:MatrixDiagV3]")
    num_rows, num_cols = _diag_sizes(d.shape[-1], k, num_rows, num_cols)
    out = np.zeros(d.shape[:-1] + (num_rows, num_cols), d.dtype)
    out[_diag_index(out.shape, k)] = d
    return out


def _set_diag_kernel(x: np.ndarray, d: np.ndarray, k: int) -> np.ndarray:
    _check_matrix_rank(x, "MatrixSetDiagV3")
    index = _diag_index(x.shape, k)
    expected = x.shape[:-2] + (len(index[1]),)
    if d.shape != expected:
        raise InvalidArgumentError(f"diagonal must have shape {dims_text(expected)}, got "
                                   f"{dims_text(d.shape)} [Op:MatrixSetDiagV3]")
    out = x.copy()
    out[index] = d
    return out


def _band_kernel(x: np.ndarray, lower: int, upper: int) -> np.ndarray:
    _check_matrix_rank(x, "MatrixBandPart")
    rows, cols = x.shape[-2:]
    if lower > rows:
        raise InvalidArgumentError(f"num_lower must be negative or less or equal to number of "
                                   f"rows ({rows}) got: {lower} [Op:MatrixBandPart]")
    if upper > cols:
        raise InvalidArgumentError(f"num_upper must be negative or less or equal to number of "
                                   f"columns ({cols}) got: {upper} [Op:MatrixBandPart]")
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]   # j - i
    keep = ((lower < 0) | (-offset <= lower)) & ((upper < 0) | (offset <= upper))
    return np.where(keep, x, np.zeros((), x.dtype))


_diag_part = Primitive("MatrixDiagPartV3", _diag_part_kernel,
                       shape_rule=_diag_part_rule).defvjp(
    lambda g, ans, x, k: set_diag(zeros_like(x), g, k=k))
_diag = Primitive("MatrixDiagV3", _diag_kernel, shape_rule=_diag_rule).defvjp(
    lambda g, ans, d, k, num_rows, num_cols: diag_part(g, k=k))
_set_diag = Primitive("MatrixSetDiagV3", _set_diag_kernel, shape_rule=_set_diag_rule).defvjp(
    lambda g, ans, x, d, k: (set_diag(g, zeros_like(d), k=k), diag_part(g, k=k)))
_band = Primitive("MatrixBandPart", _band_kernel, shape_rule=same_as_input).defvjp(
    lambda g, ans, x, lower, upper: band_part(g, lower, upper))


for _prim in (_diag_part, _diag, _set_diag, _band):
    _prim.defjvp(linear_jvp(_prim))


def _offset(k: Any) -> int:
    k = np.asarray(static_value(k, "MatrixDiag: k")).reshape(-1)
    if k.size != 1 and not (k.size == 2 and k[0] == k[1]):
        raise NotImplementedError("tapeflow supports a single diagonal offset k")
    return int(k[0])


# -- diagonals with k, num_rows or num_cols read when the graph runs ---------------------------
#
# MatrixDiagV3 and friends take them as int32 inputs; TF's shape functions then leave the dims
# they decide unknown (and the rank too, for a run-time k, which may name a band).

def _int32_input(arg: Any, param: str, op: str, rank: int, at_most: bool,
                 shapes: tuple) -> Tensor:
    """`arg` as the int32 input `param` of `op`, checked as TF checks it while tracing."""
    t = convert_to_tensor(arg, dtype_hint=_dtypes.int32)
    if t._value.dtype != np.int32:
        raise TypeError(f"Input '{param}' of '{op}' Op has type {t.dtype.name} that does not "
                        f"match expected type of int32.")
    return run_time_int(t, param, op, rank, shapes, at_most=at_most)


def _run_time_k(k: Any, op: str, shapes: tuple) -> Tensor:
    return _int32_input(k, "k", op, 1, True, shapes)


def _k_at_run_time(k: np.ndarray, op: str) -> int:
    """A run-time k as the kernels check it: a scalar, or one or two offsets."""
    if np.ndim(k) > 1:
        raise InvalidArgumentError(f"diag_index must be a scalar or vector, received shape: "
                                   f"{dims_text(np.shape(k))} [Op:{op}]")
    k = np.reshape(k, -1)
    if k.size not in (1, 2):
        raise InvalidArgumentError(f"diag_index must have only one or two elements, received "
                                   f"{k.size} elements. [Op:{op}]")
    if k.size == 2 and k[0] != k[1]:
        raise NotImplementedError("tapeflow supports a single diagonal offset k")
    return int(k[0])


def _size_at_run_time(size: np.ndarray, name: str) -> int:
    if np.ndim(size) != 0:
        raise InvalidArgumentError(f"{name} must be a scalar [Op:MatrixDiagV3]")
    return int(size)


def _diag_part_at_run_time_rule(x: ShapedArray, k: ShapedArray) -> ShapedArray:
    _at_least("MatrixDiagPartV3", x, 2)
    return ShapedArray(None if x.shape is None else (None,) * (len(x.shape) - 1), x.dtype)


def _diag_at_run_time_rule(d: ShapedArray, k: ShapedArray, rows: ShapedArray,
                           cols: ShapedArray, k_at_run_time: bool) -> ShapedArray:
    _at_least("MatrixDiagV3", d, 1)
    if d.shape is None:
        return ShapedArray(None, d.dtype)
    batch = (None,) * (len(d.shape) - 1) if k_at_run_time else d.shape[:-1]
    return ShapedArray(batch + (None, None), d.dtype)


def _set_diag_at_run_time_rule(x: ShapedArray, d: ShapedArray, k: ShapedArray) -> ShapedArray:
    _at_least("MatrixSetDiagV3", x, 2, x, d)
    return ShapedArray(x.shape, x.dtype)


def _set_diag_at_run_time_kernel(x: np.ndarray, d: np.ndarray, k: np.ndarray) -> np.ndarray:
    k = _k_at_run_time(k, "MatrixSetDiagV3")
    _check_matrix_rank(x, "MatrixSetDiagV3")
    rows, cols = x.shape[-2:]
    if x.size and not -rows < k < cols:
        raise InvalidArgumentError(f"lower_diag_index is out of bound: {k} It must be between "
                                   f"{-rows} and {cols} [Op:MatrixSetDiagV3]")
    return _set_diag_kernel(x, d, k)


_diag_part_at_run_time = Primitive(
    "MatrixDiagPartV3", lambda x, k: _diag_part_kernel(x, _k_at_run_time(k, "MatrixDiagPartV3")),
    register=False, shape_rule=_diag_part_at_run_time_rule).defvjp(
    lambda g, ans, x, k: (set_diag(zeros_like(x), g, k=k), None))
_diag_at_run_time = Primitive(
    "MatrixDiagV3", lambda d, k, rows, cols, k_at_run_time: _diag_kernel(
        d, _k_at_run_time(k, "MatrixDiagV3"), _size_at_run_time(rows, "num_rows"),
        _size_at_run_time(cols, "num_cols")),
    register=False, shape_rule=_diag_at_run_time_rule).defvjp(
    lambda g, ans, d, k, rows, cols, k_at_run_time: (diag_part(g, k=k), None, None, None))
_set_diag_at_run_time = Primitive(
    "MatrixSetDiagV3", _set_diag_at_run_time_kernel, register=False,
    shape_rule=_set_diag_at_run_time_rule).defvjp(
    lambda g, ans, x, d, k: (set_diag(g, zeros_like(d), k=k), diag_part(g, k=k), None))
for _prim in (_diag_part_at_run_time, _diag_at_run_time, _set_diag_at_run_time):
    _prim.defjvp(linear_jvp(_prim))


@tf_export("linalg.diag_part")
@reads_static
def diag_part(input: Any, name: str = "diag_part", k: Any = 0,  # noqa: A002
              padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """The k-th diagonal of each matrix (k > 0 above the main diagonal)."""
    x = _at_least_matrix(input, "MatrixDiagPartV3")
    if read_at_run_time(k):   # as TF's k input
        k = _run_time_k(k, "MatrixDiagPartV3", (x._value.shape,))
        return bind(_diag_part_at_run_time, (x, k))
    return bind(_diag_part, (x,), {"k": _offset(k)})


def _at_least_matrix(input: Any, op_name: str) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input)
    if x._value.shape is not None and len(x._value.shape) < 2:
        raise InvalidArgumentError(f"input must be at least 2-dim, received shape: "
                                   f"{dims_text(x._value.shape)} [Op:{op_name}]")
    return x


def _check_matrix_rank(x: np.ndarray, op_name: str) -> None:
    """`_at_least_matrix`'s test in a kernel, for an input whose rank a trace did not know."""
    if x.ndim < 2:
        raise InvalidArgumentError(f"input must be at least 2-dim, received shape: "
                                   f"{dims_text(x.shape)} [Op:{op_name}]")


@tf_export("linalg.diag")
@reads_static
def diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: int = -1, num_cols: int = -1,
         padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """Matrices with `diagonal` (last axis) on their k-th diagonal and zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    if d._value.shape == ():
        raise InvalidArgumentError("diagonal must be at least 1-dim, received shape: [] "
                                   "[Op:MatrixDiagV3]")
    if read_at_run_time([k, num_rows, num_cols]):   # as TF's k, num_rows, num_cols inputs
        return _diag_with_run_time_sizes(d, k, num_rows, num_cols)
    k = _offset(k)
    rows = static_value(num_rows, "MatrixDiag: num_rows", int)
    cols = static_value(num_cols, "MatrixDiag: num_cols", int)
    n = None if d._value.shape is None else d._value.shape[-1]
    if n is not None:   # else the kernel sizes the matrices (and checks them) as it runs
        rows, cols = _diag_sizes(n, k, rows, cols)
    return bind(_diag, (d,), {"k": k, "num_rows": rows, "num_cols": cols})


def _diag_with_run_time_sizes(d: Tensor, k: Any, num_rows: Any, num_cols: Any) -> Tensor:
    shapes = (d._value.shape,)
    k_at_run_time = read_at_run_time(k)
    k = _run_time_k(k, "MatrixDiagV3", shapes)
    rows, cols = (_int32_input(v, name, "MatrixDiagV3", 0, False, shapes)
                  for v, name in ((num_rows, "num_rows"), (num_cols, "num_cols")))
    return bind(_diag_at_run_time, (d, k, rows, cols), {"k_at_run_time": k_at_run_time})


@tf_export("linalg.set_diag")
@reads_static
def set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0,  # noqa: A002
             align: str = "RIGHT_LEFT") -> Tensor:
    """A copy of each matrix with its k-th diagonal replaced by `diagonal`."""
    x = _at_least_matrix(input, "MatrixSetDiagV3")
    d = convert_to_tensor(diagonal, dtype=x.dtype)
    if read_at_run_time(k):   # as TF's k input
        k = _run_time_k(k, "MatrixSetDiagV3", (x._value.shape, d._value.shape))
        return bind(_set_diag_at_run_time, (x, d, k))
    return bind(_set_diag, (x, d), {"k": _offset(k)})


def _run_time_widths(num_lower: Any, num_upper: Any) -> tuple:
    """band_part's widths as the two tensors of one int dtype that MatrixBandPart reads when
    the graph runs (a Python int takes the traced width's dtype, as TF converts it)."""
    given = {"num_lower": num_lower, "num_upper": num_upper}
    traced = {k: run_time_int(v, k, "MatrixBandPart", None, ())
              for k, v in given.items() if read_at_run_time(v)}
    dtype = next(iter(traced.values())).dtype
    widths = tuple(traced[k] if k in traced else convert_to_tensor(v, dtype=dtype)
                   for k, v in given.items())
    if widths[0].dtype != widths[1].dtype:
        raise TypeError(f"Input 'num_upper' of 'MatrixBandPart' Op has type "
                        f"{widths[1].dtype.name} that does not match type "
                        f"{widths[0].dtype.name} of argument 'num_lower'.")
    return widths


def _band_at_run_time_kernel(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    for name, width in (("num_lower", lower), ("num_upper", upper)):
        if np.ndim(width) != 0:
            raise InvalidArgumentError(f"{name} must be scalar, got shape "
                                       f"{dims_text(np.shape(width))} [Op:MatrixBandPart]")
    return _band_kernel(x, int(lower), int(upper))


# MatrixBandPart with its widths read when the graph runs (its second and third inputs).
_band_at_run_time = Primitive(
    "MatrixBandPart", _band_at_run_time_kernel, register=False,
    shape_rule=lambda x, lower, upper: ShapedArray(x.shape, x.dtype)).defvjp(
    lambda g, ans, x, lower, upper: (band_part(g, lower, upper), None, None))


@tf_export("linalg.band_part")
@reads_static
def band_part(input: Any, num_lower: Any, num_upper: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each matrix with everything outside the band zeroed: `num_lower` subdiagonals and
    `num_upper` superdiagonals are kept (negative keeps the whole triangle)."""
    x = _at_least_matrix(input, "MatrixBandPart")
    if read_at_run_time(num_lower) or read_at_run_time(num_upper):
        return bind(_band_at_run_time, (x,) + _run_time_widths(num_lower, num_upper))
    lower = static_value(num_lower, "MatrixBandPart: num_lower", int)
    upper = static_value(num_upper, "MatrixBandPart: num_upper", int)
    return bind(_band, (x,), {"lower": lower, "upper": upper})


@tf_export("linalg.trace")
def trace(x: Any, name: Optional[str] = None) -> Tensor:
    """The sum of the main diagonal of each matrix."""
    return reduce_sum(diag_part(x), axis=-1)


# -- products: matvec, einsum, tensordot ---------------------------------------------------------

@tf_export("linalg.matvec")
def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: Optional[str] = None) -> Tensor:
    """The matrix-vector product `a @ b` over the last axes, batched."""
    a, b = binary_operands(a, b, "MatMul")
    if a._value.dtype.kind not in "fc":
        _check_matmul_dtype(a, a._value.ndim > 2 or b._value.ndim > 1, transpose_a or adjoint_a)
    if adjoint_a and a._value.dtype.kind == "c":
        a = conj(a)
    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a or adjoint_a), -1)


_MATMUL_TYPES = ("bfloat16, half, float, double, {}int32, int64, uint8, uint16, uint32, "
                 "uint64, complex64, complex128")


def _check_matmul_dtype(x: Tensor, batched: bool, transpose_a: bool = False) -> None:
    """TF's refusals of a non-float product (MatMul for matrices, BatchMatMulV2 for
    batches): NotFoundError for unsigned integers (declared, no CPU kernel),
    InvalidArgumentError for int8, bool and (unbatched) int16."""
    dtype = x._value.dtype
    if dtype in (np.int32, np.int64) or (batched and dtype == np.int16):
        return
    name = "BatchMatMulV2" if batched else "MatMul"
    if dtype.kind == "u":
        flags = (f"adj_x={_flag(transpose_a)}, adj_y=false, grad_x=false, grad_y=false"
                 if batched else
                 f"grad_a=false, grad_b=false, transpose_a={_flag(transpose_a)}, "
                 f"transpose_b=false")
        raise NotFoundError(f"Could not find device for node: {{{{node {name}}}}} = "
                            f"{name}[T={enum_name(x.dtype)}, {flags}] [Op:{name}]")
    raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                               f"allowed values: "
                               f"{_MATMUL_TYPES.format('int16, ' if batched else '')} "
                               f"[Op:{name}]")


def _einsum_vjp(g: Tensor, ans: Tensor, *xs: Tensor, equation: str,
                check_dims: bool = False) -> tuple:
    inputs, output = equation.split("->")
    subs = inputs.split(",")
    grads = []
    for k, (x, sub) in enumerate(zip(xs, subs)):
        others = [s for j, s in enumerate(subs) if j != k]
        seen = set(output).union(*others)
        # An index repeated in this operand (`ii`) reads its diagonal: the gradient is taken
        # with respect to that diagonal (indices once each), then placed back on it.
        unique = "".join(dict.fromkeys(sub))
        sizes = dict(zip(sub, x._value.shape))
        kept = "".join(c for c in unique if c in seen)
        operands = [g] + [xs[j] for j in range(len(xs)) if j != k]
        grad = bind(_einsum, tuple(operands),
                    {"equation": ",".join([output] + others) + "->" + kept})
        if not has_static_shape(x._value):
            grads.append(_onto_operand(grad, kept, sub, x))
            continue
        if kept != unique:
            # Indices summed in this operand alone: the gradient is constant along them.
            grad = reshape(grad, tuple(sizes[c] if c in seen else 1 for c in unique))
            grad = broadcast_to(grad, tuple(sizes[c] for c in unique))
        if unique != sub:
            grad = _onto_diagonal(grad, sub, x._value.shape, x._value.dtype)
        grads.append(grad)
    return tuple(grads)


def _onto_diagonal(grad: Tensor, sub: str, shape: tuple, dtype: np.dtype) -> Tensor:
    """`grad` (indexed by the distinct letters of `sub`, in order) spread to `shape`, zero
    off the diagonals that the repeated letters of `sub` name."""
    first = {}
    for axis, c in enumerate(sub):
        first.setdefault(c, axis)
    spread = broadcast_to(reshape(grad, tuple(d if first[c] == axis else 1 for axis, (c, d)
                                               in enumerate(zip(sub, shape)))), shape)
    mask = np.ones(shape, bool)
    for axis, c in enumerate(sub):
        if first[c] != axis:   # equal positions along this axis and the letter's first one
            others = tuple(i for i in range(len(shape)) if i not in (first[c], axis))
            mask = mask & np.expand_dims(np.eye(shape[axis], dtype=bool), others)
    return spread * wrap(mask.astype(dtype))


def _onto_operand(grad: Tensor, kept: str, sub: str, x: Tensor) -> Tensor:
    """`grad` (indexed by the letters `kept`) as the cotangent of the operand `x` (indexed by
    `sub`), sized as the graph runs: constant along the letters summed in `x` alone (a
    product with ones shaped as `x`, its letters made distinct), zero off the diagonals that
    repeated letters name (a product with an identity matrix tying each repeat to the
    letter's first axis). Only ones and zeros multiply: the numbers of `_onto_diagonal`."""
    fresh = iter(c for c in string.ascii_letters if c not in sub)
    spelled, ties, eyes = [], [], []
    for axis, c in enumerate(sub):
        if c in spelled:
            letter = next(fresh)
            ties.append(c + letter)
            eyes.append(eye(shape_of(x)[axis], dtype=x.dtype))
            c = letter
        spelled.append(c)
    spelled = "".join(spelled)
    equation = ",".join([kept, spelled] + ties) + "->" + spelled
    return bind(_einsum, (grad, ones_like(x)) + tuple(eyes), {"equation": equation})


def _einsum_kernel(*xs: np.ndarray, equation: str, check_dims: bool = False) -> np.ndarray:
    # `check_dims`: the wrapper's test of the dims, for inputs a trace did not know (NumPy
    # would broadcast a dim of 1 against any other).
    if check_dims:
        _check_einsum_dims(equation, [x.shape for x in xs])
    return np.asarray(np.einsum(equation, *xs, optimize=len(xs) > 2))


_einsum = Primitive("Einsum", _einsum_kernel, shape_rule=_einsum_rule).defvjp(_einsum_vjp)


def _einsum_jvp(tangents: list, ans: Tensor, *xs: Tensor, equation: str,
                check_dims: bool = False) -> Tensor:
    # Multilinear: one term per operand that carries a tangent.
    out = None
    for i, t in enumerate(tangents):
        if t is not None:
            term = bind(_einsum, xs[:i] + (t,) + xs[i + 1:], {"equation": equation})
            out = term if out is None else out + term
    return out if out is not None else zeros_like(ans)


_einsum.defjvp(_einsum_jvp)


def _normalize_equation(equation: str, shapes: list) -> str:
    """An einsum equation with explicit output and ellipses spelled out as letters."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    subs = inputs.split(",")
    if len(subs) != len(shapes):
        raise ValueError(f"Expected {len(subs)} input tensors, got {len(shapes)}")
    free = [c for c in string.ascii_letters if c not in equation]
    ell_rank = builtins.max([len(s) - (len(sub) - 3) for sub, s in zip(subs, shapes)
                             if "..." in sub] or [0])
    ell = "".join(free[:ell_rank])
    spelled = []
    for sub, shape in zip(subs, shapes):
        if "..." in sub:
            n = len(shape) - (len(sub) - 3)
            sub = sub.replace("...", ell[ell_rank - n:] if n else "")
        spelled.append(sub)
    if not arrow:
        counts = collections.Counter("".join(spelled))
        output = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        output = output.replace("...", ell)
    return ",".join(spelled) + "->" + output


@tf_export("linalg.einsum", "einsum")
def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Tensor contraction by Einstein summation, e.g. `einsum('ij,jk->ik', a, b)`."""
    tensors = [convert_to_tensor(x) for x in inputs]
    for t in tensors[1:]:
        if t._value.dtype != tensors[0]._value.dtype:
            raise mismatch_error("Einsum", 1, tensors[0].dtype, t.dtype,
                                 list_dtypes=[x.dtype for x in tensors])
    if tensors and tensors[0]._value.dtype.kind not in "fc" and \
            tensors[0]._value.dtype not in (np.int32, np.int64):
        _refuse_einsum(equation, tensors)
    shapes = [t._value.shape for t in tensors]
    eq = _normalize_equation(equation, shapes)
    _check_einsum_dims(eq, shapes)
    if context.graph is not None and any(None in s for s in shapes):
        # The kernel checks the dims that the trace does not know.
        return bind(_einsum, tuple(tensors), {"equation": eq, "check_dims": True})
    return bind(_einsum, tuple(tensors), {"equation": eq})


def _refuse_einsum(equation: str, tensors: list) -> None:
    """TF's NotFoundError: Einsum has CPU kernels for float, complex, int32 and int64 only.
    Its message shows the equation with the implicit output spelled out."""
    equation = equation.replace(" ", "")
    if "->" not in equation:
        counts = collections.Counter(c for c in equation if c.isalpha())
        equation += "->" + ("..." if "..." in equation else "") + "".join(
            sorted(c for c, n in counts.items() if n == 1))
    raise NotFoundError(f"Could not find device for node: {{{{node Einsum}}}} = Einsum[N="
                        f"{len(tensors)}, T={enum_name(tensors[0].dtype)}, equation="
                        f"\"{equation}\"] [Op:Einsum]")


def _check_einsum_dims(eq: str, shapes: list) -> None:
    """TF's errors for operands whose ranks or dims disagree with the equation (unknown
    dims, None, are left to the kernel)."""
    sizes: dict = {}
    for sub, shape in zip(eq.split("->")[0].split(","), shapes):
        if len(sub) != len(shape):
            raise InvalidArgumentError(f"Expected input to have rank {len(sub)} but got: "
                                       f"{len(shape)} [Op:Einsum]")
        for axis, (c, d) in enumerate(zip(sub, shape)):
            if d is not None and sizes.setdefault(c, d) != d:
                raise InvalidArgumentError(f"Expected dimension {sizes[c]} at axis {axis} of "
                                           f"the input shaped {dims_text(shape)} but got dimension "
                                           f"{d} [Op:Einsum]")


@tf_export("linalg.tensordot", "tensordot")
def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None) -> Tensor:
    """Sums the products of `a` and `b` over the given axes (an int N: the last N of `a`
    with the first N of `b`; or two lists of axes)."""
    a, b = binary_operands(a, b, "MatMul")
    ra, rb = a._value.ndim, b._value.ndim
    if read_at_run_time(axes):   # as TF's axes tensor, read when the graph runs
        axes = convert_to_tensor(axes, dtype=_dtypes.int32)
        if axes._value.ndim == 0:   # TF's wrapper slices it as a [2, k] tensor
            raise ValueError("Attempting to slice scalar input.")
        return _tensordot_at_run_time(a, b, axes)
    if isinstance(axes, (int, np.integer)) or np.ndim(axes) == 0:
        n = int(axes)
        if n > builtins.min(ra, rb) or n < 0:
            raise ValueError(f"'axes' must be at most the rank of a and b, got {n}")
        axes_a, axes_b = list(range(ra - n, ra)), list(range(n))
    else:
        axes_a, axes_b = ([int(i) for i in np.asarray(ax).reshape(-1)] for ax in axes)
        _check_tensordot_axes(axes_a, ra)
        _check_tensordot_axes(axes_b, rb)
    letters = iter(string.ascii_letters)
    sub_a = [next(letters) for _ in range(ra)]
    sub_b = [next(letters) for _ in range(rb)]
    for i, j in zip(axes_a, axes_b):
        sub_b[j % rb] = sub_a[i % ra]
    contracted = {sub_a[i % ra] for i in axes_a}
    if a._value.dtype.kind not in "fc":
        _check_matmul_dtype(a, batched=False)   # TF contracts with one 2-D MatMul
    out = [c for c in sub_a if c not in contracted] + [c for c in sub_b if c not in contracted]
    return einsum("".join(sub_a) + "," + "".join(sub_b) + "->" + "".join(out), a, b)


def _tensordot_at_run_time(a: Tensor, b: Tensor, axes: Tensor) -> Tensor:
    """tensordot with a traced [2, k] `axes`, built as TF builds it for an axes tensor: each
    operand transposed (its free axes apart from the contracted ones) and reshaped to a matrix
    as the graph runs, one MatMul, and the free dims restored. TF's static shape is then
    unknown; the kernels check the axes and dims as they run."""
    if a._value.dtype.kind not in "fc":
        _check_matmul_dtype(a, batched=False)
    a_matrix, a_free = _tensordot_matrix(a, axes[0], contracted_last=True)
    b_matrix, b_free = _tensordot_matrix(b, axes[1], contracted_last=False)
    return reshape(matmul(a_matrix, b_matrix), concat([a_free, b_free], 0))


def _tensordot_matrix(x: Tensor, axes: Tensor, contracted_last: bool) -> tuple:
    """`x` as a [free, contracted] matrix (or [contracted, free]) for run-time `axes`, and
    its free dims."""
    rank = x._value.ndim
    axes = where(axes >= 0, axes, axes + rank)
    positions = arange(rank)
    free = boolean_mask(positions, reduce_all(
        expand_dims(positions, 1) != expand_dims(axes, 0), axis=1))
    dims = shape_of(x)
    free_dims, axes_dims = gather(dims, free), gather(dims, axes)
    sizes = [reduce_prod(free_dims), reduce_prod(axes_dims)]
    perm = concat([free, axes] if contracted_last else [axes, free], 0)
    matrix = reshape(transpose(x, perm), stack(sizes if contracted_last else sizes[::-1]))
    return matrix, free_dims


def _check_tensordot_axes(axes: list, rank: int) -> None:
    """TF's errors for axes out of range (its Python indexes a shape list with them)."""
    for axis in axes:
        if axis >= rank:
            raise IndexError("list index out of range")
        if axis < -rank:
            raise ValueError(f"tensordot: axis {axis} is out of range for a tensor of rank "
                             f"{rank}")


# -- matrix exponential --------------------------------------------------------------------------

def _expm_kernel(x: np.ndarray) -> np.ndarray:
    from scipy import linalg
    _check_square(x, "MatrixExponential")
    if x.dtype == np.float16 and x.size and np.isfinite(x).all():
        # The wrapper's refusal, for a traced input it could not test.
        _refuse_matrix(wrap(x), "MatrixSolve", "MatrixSolve[T=DT_HALF, adjoint=false]")
    if not np.isfinite(x).all():
        # TensorFlow's expm (Pade and squarings over the whole batch) is all NaN then.
        return np.full(x.shape, np.nan, x.dtype)
    out = np.asarray(linalg.expm(x)).astype(x.dtype, copy=False)
    out[_nonfinite_matrices(out)] = np.nan   # an overflow: TF's squarings make inf * 0
    return out


def _expm_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    # The adjoint of the Frechet derivative: the upper-right block of
    # expm([[A^T, G], [0, A^T]]) (Najfeld and Havel); expm again, so it nests.
    n = x._value.shape[-1]
    at = matrix_transpose(x)
    top = concat([at, g], axis=-1)
    bottom = concat([zeros_like(at), at], axis=-1)
    big = bind(_expm, (concat([top, bottom], axis=-2),))
    if n is None:   # the block's bounds, as the graph runs
        n = shape_of(x)[-1]
        return _columns(matrix_transpose(_columns(matrix_transpose(big), 0, n)), n, 2 * n)
    return slice_tensor(big, (Ellipsis, builtins.slice(None, n), builtins.slice(n, None)))


_expm = Primitive("MatrixExponential", _expm_kernel,
                  shape_rule=_square_rule("MatrixExponential")).defvjp(_expm_vjp)


@tf_export("linalg.expm")
def expm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The matrix exponential of each square matrix."""
    x = convert_to_tensor(input)
    kind = x._value.dtype.kind
    if kind in "iu":   # TF's expm is Python: its first op, Abs, or its dtype test refuses
        if kind == "u":
            raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the "
                                       f"list of allowed values: bfloat16, half, float, double, "
                                       f"int8, int16, int32, int64 [Op:Abs]")
        raise ValueError(f"tf.linalg.expm does not support matrices of type {x.dtype!r}")
    x = _matrix(x, "MatrixExponential")
    if x._value.dtype == np.float16 and has_static_shape(x._value) and x._value.size and \
            np.isfinite(x._value).all():
        # TF's Pade step solves with MatrixSolve, which has no float16 kernel; a batch
        # holding inf/NaN skips it (all NaN, computed below).
        _refuse_matrix(x, "MatrixSolve", "MatrixSolve[T=DT_HALF, adjoint=false]")
    return bind(_expm, (x,))


# -- least squares, pseudo-inverse, norms --------------------------------------------------------

@tf_export("linalg.lstsq")
def lstsq(matrix: Any, rhs: Any, l2_regularizer: float = 0.0, fast: bool = True,
          name: Optional[str] = None) -> Tensor:
    """The (optionally L2-regularized) least-squares solution X of `matrix @ X = rhs`, by the
    normal equations as TensorFlow's fast path."""
    if np.ndim(getattr(matrix, "_value", matrix)) < 2:
        raise IndexError("tuple index out of range")   # TF's lstsq reads matrix.shape[-2]
    a = _matrix(matrix, "MatrixSolveLs", square=False)
    a, b = binary_operands(a, rhs, "MatMul")  # TF's fast path fails in its MatMul
    a_shape, b_shape = a._value.shape, b._value.shape
    if len(b_shape) < 2 or (b_shape[-2] != a_shape[-2] and None not in (b_shape[-2],
                                                                        a_shape[-2])):
        raise InvalidArgumentError(f"Input matrix and rhs are incompatible: "
                                   f"{dims_text(a_shape)} vs. {dims_text(b_shape)} "
                                   f"[Op:MatrixSolveLs]")
    m, n = a_shape[-2:]
    reg = float(l2_regularizer)
    if m is None or n is None:   # as TF's lstsq: the branch is taken as the graph runs
        from tapeflow.ops.control_flow_ops import cond
        dims = shape_of(a)
        return cond(dims[-2] >= dims[-1], lambda: _overdetermined(a, b, reg),
                    lambda: _underdetermined(a, b, reg))
    return _overdetermined(a, b, reg) if m >= n else _underdetermined(a, b, reg)


def _overdetermined(a: Tensor, b: Tensor, reg: float) -> Tensor:
    gram = matmul(a, a, adjoint_a=True)
    if reg:
        gram = gram + reg * _eye_like(gram)
    return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))


def _underdetermined(a: Tensor, b: Tensor, reg: float) -> Tensor:
    gram = matmul(a, a, adjoint_b=True)
    if reg:
        gram = gram + reg * _eye_like(gram)
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)


@tf_export("linalg.pinv")
def pinv(a: Any, rcond: Optional[float] = None, validate_args: bool = False,
         name: Optional[str] = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD; singular values below
    `rcond * max(s)` (default 10 * max(m, n) * eps) count as zero."""
    a = convert_to_tensor(a)
    if a._value.dtype.kind != "f":
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a._value.shape is not None and a._value.ndim < 2:  # TF's Python check, a ValueError
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a._value.ndim}).")
    a = _matrix(a, "pinv", square=False)
    m, n = a._value.shape[-2:]
    eps = float(np.finfo(a._value.dtype).eps)
    if rcond is None and None in (m, n):   # the sizes as the graph runs
        rcond = 10.0 * eps * cast(reduce_max(shape_of(a)[-2:]), a.dtype)
    elif rcond is None:
        rcond = 10.0 * builtins.max(m, n) * eps
    s, u, v = svd(a, full_matrices=False)
    cutoff = rcond * reduce_max(s, axis=-1, keepdims=True)
    big = s > cutoff
    safe = where(big, s, zeros_like(s) + 1)
    s_inv = where(big, 1.0 / safe, zeros_like(s))
    return matmul(v * _expand(s_inv, -2), u, adjoint_b=True)


@tf_export("linalg.norm", "norm", "norm")
def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
         keepdims: Optional[bool] = None, name: Optional[str] = None) -> Tensor:
    """Vector norms (over one axis, or all) and matrix norms (over two axes: 'fro' /
    'euclidean', 1 (max column sum), np.inf (max row sum), 2 (largest singular value))."""
    x = convert_to_tensor(tensor)
    axes = axis
    if isinstance(axis, (list, tuple)) or (isinstance(axis, np.ndarray) and axis.ndim):
        axes = [int(a) for a in axis]
        if len(axes) == 1:
            axes = axes[0]
        elif len(axes) != 2 or axes[0] == axes[1]:   # TF compares them as given
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {list(axis)}")
    if isinstance(axes, list):
        return _matrix_norm(x, ord, axes, bool(keepdims))
    if ord == "fro" or (not isinstance(ord, str) and (isinstance(ord, bool) or
                                                     not isinstance(ord, (int, float)) or
                                                     ord <= 0)) or \
            (isinstance(ord, str) and ord != "euclidean"):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return _vector_norm(x, ord=ord, axis=axes, keepdims=keepdims)


def _matrix_norm(x: Tensor, ord: Any, axes: list, keepdims: bool) -> Tensor:  # noqa: A002
    rank = x._value.ndim
    if ord in ("fro", "euclidean"):
        # The reductions take the axes as given: TF's errors for bad ones.
        return _vector_norm(x, ord="euclidean", axis=tuple(axes), keepdims=keepdims)
    if ord in (1, np.inf):
        inner, outer = axes if ord == 1 else axes[::-1]
        sums = reduce_sum(abs(x), axis=inner, keepdims=True)
        out = reduce_max(sums, axis=outer, keepdims=True)
        row, col = axes[0] % rank, axes[1] % rank
    elif ord == 2:
        row, col = axes[0] % rank, axes[1] % rank
        rest = [i for i in range(rank) if i not in [a + rank if a < 0 else a for a in axes]]
        if len(rest) + 2 != rank:   # TF's permutation [rest..., row, col] does not fit
            raise InvalidArgumentError(f"transpose expects a vector of size {rank}. But "
                                       f"input(1) is a vector of size {len(rest) + 2} "
                                       f"[Op:Transpose]")
        moved = transpose(x, tuple(rest) + (row, col))
        s = svd(moved, compute_uv=False)
        out = reduce_max(s, axis=-1)   # over the other axes, in order
        if not has_static_shape(x._value):   # sized as the graph runs: new axes of 1
            return slice_tensor(out, tuple(None if i in (row, col) else builtins.slice(None)
                                           for i in range(rank))) if keepdims else out
        out = reshape(out, tuple(1 if i in (row, col) else d
                                 for i, d in enumerate(x._value.shape)))
    else:
        raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, "
                         f"2, inf], got {ord}")
    return out if keepdims else squeeze(out, axis=[row, col])


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: Optional[str] = None) -> Tensor:
    """sqrt(sum(x ** 2)) over `axis`; integer inputs give an integer (truncated) result."""
    x = convert_to_tensor(input_tensor)
    require(x, "fciu", "EuclideanNorm")
    if x._value.dtype.kind in "iu":
        squares = reduce_sum(x * x, axis=axis, keepdims=keepdims)
        return cast(sqrt(cast(squares, _dtypes.float64)), x.dtype)
    return _vector_norm(x, ord="euclidean", axis=axis, keepdims=keepdims)


# Top-level names (the rest are in tf.linalg / tf.math).


# -- LU ------------------------------------------------------------------------------------------
# TensorFlow runs Eigen's PartialPivLU: unblocked up to 16 columns (reproduced here step for
# step, so the values are TF's to the bit), blocked above (the same pivots; the block
# updates are BLAS products here, so values agree to rounding).

Lu = collections.namedtuple("Lu", ["lu", "p"])


def _unblocked_lu(lu: np.ndarray) -> list:
    """Eigen's unblocked_lu, in place on a (panel) view; returns the pivot row of each step."""
    rows, cols = lu.shape
    pivots = []
    with np.errstate(all="ignore"):
        for k in range(builtins.min(rows, cols)):
            score = np.abs(lu[k:, k])
            p = k if np.isnan(score[0]) else k + int(np.argmax(np.where(np.isnan(score), -1,
                                                                        score)))
            if score[p - k] != 0:
                if p != k:
                    lu[[k, p]] = lu[[p, k]]
                lu[k + 1:, k] /= lu[k, k]
            pivots.append(p)
            lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return pivots


def _blocked_lu(lu: np.ndarray, max_block: int = 256) -> list:
    """Eigen's blocked_lu, in place; returns the pivot row (transposition) of each step."""
    from scipy.linalg import solve_triangular
    rows, cols = lu.shape
    size = builtins.min(rows, cols)
    if size <= 16:
        return _unblocked_lu(lu)
    block = builtins.min(builtins.max((size // 8) // 16 * 16, 8), max_block)
    pivots = []
    with np.errstate(all="ignore"):
        for k in range(0, size, block):
            bs = builtins.min(size - k, block)
            panel = [k + p for p in _blocked_lu(lu[k:, k:k + bs], 16)]
            for i, p in zip(range(k, k + bs), panel):   # the swaps, left and right of the panel
                lu[[i, p], :k] = lu[[p, i], :k]
                lu[[i, p], k + bs:] = lu[[p, i], k + bs:]
            pivots += panel
            if k + bs < rows:
                lu[k:k + bs, k + bs:] = solve_triangular(
                    lu[k:k + bs, k:k + bs], lu[k:k + bs, k + bs:], lower=True,
                    unit_diagonal=True, check_finite=False)
                lu[k + bs:, k + bs:] -= lu[k + bs:, k:k + bs] @ lu[k:k + bs, k + bs:]
    return pivots


def _eigen_min_is_positive(values: list) -> bool:
    """Eigen's `minCoeff() > 0`: its min keeps a NaN met first and skips later ones."""
    smallest = values[0] if values else 1.0
    for v in values[1:]:
        smallest = v if v < smallest else smallest
    return bool(smallest > 0)


def _lu_kernel(x: np.ndarray, output_idx_type: np.dtype) -> tuple:
    _check_square(x, "Lu")
    lu = x.copy()
    perm = np.empty(x.shape[:-1], output_idx_type)
    count = int(np.prod(x.shape[:-2], dtype=np.int64))
    flat_lu, flat_perm = lu.reshape((count,) + x.shape[-2:]), perm.reshape(count, x.shape[-1])
    for m, p in zip(flat_lu, flat_perm):
        order = np.arange(x.shape[-1])
        for i, j in enumerate(_blocked_lu(m)):
            order[[i, j]] = order[[j, i]]
        p[:] = order
        if not _eigen_min_is_positive(np.abs(np.diagonal(m)).tolist()):
            raise InvalidArgumentError("Input is not invertible. [Op:Lu]")
    return lu, perm


def _lu_rule(x: ShapedArray, output_idx_type: np.dtype) -> tuple:
    batch, n = _square("Lu", x)
    if batch is None:
        return ShapedArray(None, x.dtype), ShapedArray(None, output_idx_type)
    return ShapedArray(batch + (n, n), x.dtype), ShapedArray(batch + (n,), output_idx_type)


_lu = Primitive("Lu", _lu_kernel, multiple_results=True, differentiable=False,
                shape_rule=_lu_rule)


def _no_gradient(op: str, f: Any, *inputs: Tensor) -> Any:
    """f(*inputs), whose gradient raises TF's LookupError (TF registers none for `op`)."""
    from tapeflow.autodiff.custom_gradient import custom_gradient

    @custom_gradient
    def blocked(*xs: Tensor) -> tuple:
        def grad(*_: Any) -> Any:
            raise LookupError(f"gradient registry has no entry for: {op}")
        return f(*xs), grad
    blocked.__name__ = op
    return blocked(*inputs)


@tf_export("linalg.lu")
def lu(input: Any, output_idx_type: Any = _dtypes.int32,  # noqa: A002
       name: Optional[str] = None) -> Lu:
    """The LU factorization with partial pivoting of each square matrix: `lu` packs L
    (unit lower, its ones not stored) and U; `p` is the permutation with `input[p] = L @ U`.
    Raises InvalidArgumentError for a matrix with a zero pivot, as TF."""
    idx = _dtypes.as_dtype(output_idx_type)
    x = _matrix(input, "Lu", half=f"Lu[T=DT_HALF, output_idx_type={enum_name(idx)}]")
    if idx._np not in (np.int32, np.int64):
        raise TypeError(f"Value passed to parameter 'output_idx_type' has DataType "
                        f"{idx.name} not in list of allowed values: int32, int64")
    outputs = _no_gradient("Lu", lambda t: tuple(bind(_lu, (t,), {
        "output_idx_type": idx._np})), x)
    return Lu(*outputs)


def _lu_operands(lower_upper: Any, perm: Any) -> tuple:
    """TF's conversions and static checks of (lower_upper, perm) (lu_reconstruct_assertions)."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=_dtypes.float32)
    perm = convert_to_tensor(perm, dtype_hint=_dtypes.int32)
    shape, perm_shape = lower_upper._value.shape, perm._value.shape
    if shape is not None and len(shape) < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if shape is not None and perm_shape is not None and len(shape) != len(perm_shape) + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if shape is not None and None not in shape[:-2] and shape[-2] != shape[-1]:
        raise ValueError("`lower_upper` must be square.")
    return lower_upper, perm


def _unit_lower(lower_upper: Tensor) -> Tensor:
    return set_diag(band_part(lower_upper, -1, 0), ones_like(diag_part(lower_upper)))


@tf_export("linalg.lu_reconstruct")
def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """The matrices whose `tf.linalg.lu` factorization is (lower_upper, perm)."""
    from tapeflow.ops.manip_ops import argsort
    lower_upper, perm = _lu_operands(lower_upper, perm)
    x = matmul(_unit_lower(lower_upper), band_part(lower_upper, 0, -1))
    # Rows back in place: x[inverse(perm)], the inverse permutation being argsort(perm).
    inverse = argsort(perm, axis=-1)
    return gather(x, inverse, axis=-2, batch_dims=perm._value.ndim - 1)


@tf_export("linalg.lu_solve")
def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False,
             name: Optional[str] = None) -> Tensor:
    """X with `A @ X = rhs`, given A's `tf.linalg.lu` factorization (lower_upper, perm)."""
    lower_upper, perm = _lu_operands(lower_upper, perm)
    rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype)
    rhs_shape = rhs._value.shape
    if rhs_shape is not None and len(rhs_shape) < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")
    n = lower_upper._value.shape[-1] if lower_upper._value.shape is not None else None
    if n is not None and rhs_shape is not None and rhs_shape[-2] is not None and \
            n != rhs_shape[-2]:
        raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
    rhs, perm, batch_rank = _broadcast_batches(rhs, perm)
    permuted = gather(rhs, perm, axis=-2, batch_dims=batch_rank)
    # TF solves with lower_upper itself (only its upper triangle is read) after L.
    return triangular_solve(lower_upper, triangular_solve(_unit_lower(lower_upper), permuted),
                            lower=False)


def _broadcast_batches(rhs: Tensor, perm: Tensor) -> tuple:
    """(rhs, perm) broadcast to their common batch dims, and the number of those dims. Dims a
    trace does not know (a run-time perm, matrices of unknown size) are broadcast as the graph
    runs."""
    rhs_batch, perm_batch = rhs._value.shape[:-2], perm._value.shape[:-1]
    if None not in rhs_batch + perm_batch:
        batch = np.broadcast_shapes(rhs_batch, perm_batch)
        return (_broadcast_front(rhs, batch, rhs_batch, 2),
                _broadcast_front(perm, batch, perm_batch, 1), len(batch))
    batch = broadcast_dynamic_shape(shape_of(rhs)[:-2], shape_of(perm)[:-1])
    rhs = broadcast_to(rhs, concat([batch, shape_of(rhs)[-2:]], 0))
    perm = broadcast_to(perm, concat([batch, shape_of(perm)[-1:]], 0))
    return rhs, perm, builtins.max(len(rhs_batch), len(perm_batch))


def _broadcast_front(x: Tensor, batch: tuple, own: tuple, inner: int) -> Tensor:
    """`x` (its batch dims `own` static, its `inner` last dims maybe not) broadcast to `batch`
    (a shape that `own` broadcasts to)."""
    if own == batch:
        return x
    inner_dims = x._value.shape[-inner:]
    if None in inner_dims:
        return broadcast_to(x, concat([list(batch), shape_of(x)[-inner:]], 0))
    return broadcast_to(x, batch + inner_dims)


@tf_export("linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False,
                      name: Optional[str] = None) -> Tensor:
    """The inverse of each matrix, given its `tf.linalg.lu` factorization."""
    lower_upper, perm = _lu_operands(lower_upper, perm)
    return lu_solve(lower_upper, perm, _eye_like(lower_upper))


# -- cross product -------------------------------------------------------------------------------

_CROSS_TYPES = ("float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                "uint32, uint64")


def _cross_kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_cross(a.shape, b.shape)
    return np.cross(a, b).astype(a.dtype, copy=False)


def _check_cross(a: tuple, b: tuple) -> None:
    if a != b:
        raise InvalidArgumentError(f"Both inputs must be of same shape: {dims_text(a)} vs. "
                                   f"{dims_text(b)} [Op:Cross]")
    if not a:
        raise InvalidArgumentError("Input must be at least 1D[] [Op:Cross]")
    if a[-1] != 3:
        from tapeflow.framework.errors import FailedPreconditionError
        raise FailedPreconditionError("Cross-products are only defined for 3-element "
                                      "vectors. [Op:Cross]")


def _cross_rule(a: ShapedArray, b: ShapedArray) -> ShapedArray:
    if a.shape is None or b.shape is None:
        return ShapedArray(a.shape if b.shape is None else b.shape, a.dtype)
    if len(a.shape) != len(b.shape):
        raise ValueError(f"Shapes must be equal rank, but are {len(a.shape)} and "
                         f"{len(b.shape)} for '{{{{node Cross}}}} = Cross[T=DT_FLOAT]' with "
                         f"input shapes: {dims_text(a.shape)}, {dims_text(b.shape)}.")
    shape = tuple(_merge("Cross", x, y, a, b) for x, y in zip(a.shape, b.shape))
    if shape and shape[-1] not in (None, 3):
        raise ValueError(f"Dimension must be 3 but is {shape[-1]} for '{{{{node Cross}}}} = "
                         f"Cross[T=DT_FLOAT]' with input shapes: {dims_text(a.shape)}, "
                         f"{dims_text(b.shape)}.")
    return ShapedArray(shape, a.dtype)


_cross = Primitive("Cross", _cross_kernel, shape_rule=_cross_rule, bilinear=True).defvjp(
    lambda g, ans, a, b: (cross(b, g), cross(g, a)))


@tf_export("linalg.cross")
def cross(a: Any, b: Any, name: Optional[str] = None) -> Tensor:
    """The cross product of the 3-element vectors along the last axis of `a` and `b` (same
    shapes, no broadcasting, as TF)."""
    a, b = binary_operands(a, b, "Cross")
    if a._value.dtype.kind not in "fiu" or a._value.dtype == np.bool_:
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(a.dtype)} is not in the list "
                                   f"of allowed values: {_CROSS_TYPES} [Op:Cross]")
    if has_static_shape(a._value) and has_static_shape(b._value):
        _check_cross(a._value.shape, b._value.shape)
    return bind(_cross, (a, b))


# -- tensor_diag, tensor_diag_part ---------------------------------------------------------------

_DIAG_TYPES = "bfloat16, half, float, double, int32, int64, complex64, complex128"


def _check_diag_dtype(x: Tensor, op: str) -> None:
    dtype = x._value.dtype
    if not (dtype.kind in "fc" or dtype in (np.int32, np.int64) or
            (dtype.kind == "V" and dtype.name == "bfloat16")):
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x.dtype)} is not in the list "
                                   f"of allowed values: {_DIAG_TYPES} [Op:{op}]")


def _tensor_diag_kernel(d: np.ndarray) -> np.ndarray:
    if d.ndim < 1:
        raise InvalidArgumentError(f"Input must be at least rank 1, got {d.ndim} [Op:Diag]")
    out = np.zeros((d.size, d.size), d.dtype)
    out[np.arange(d.size), np.arange(d.size)] = d.reshape(-1)
    return out.reshape(d.shape + d.shape)


def _tensor_diag_part_kernel(x: np.ndarray) -> np.ndarray:
    k = x.ndim // 2
    if x.ndim % 2:
        raise InvalidArgumentError(f"The rank of the tensor should be                      "
                                   f"                    even and positive, got shape "
                                   f"{dims_text(x.shape)} [Op:DiagPart]")
    for i in range(k):
        if x.shape[i] != x.shape[i + k]:
            raise InvalidArgumentError(f"Invalid shape {dims_text(x.shape)}: dimensions {i} "
                                       f"and {i + k} do not match. [Op:DiagPart]")
    size = int(np.prod(x.shape[:k], dtype=np.int64))
    flat = x.reshape(size, size)
    return flat[np.arange(size), np.arange(size)].reshape(x.shape[:k])


def _tensor_diag_rule(d: ShapedArray) -> ShapedArray:
    return ShapedArray(None if d.shape is None else d.shape + d.shape, d.dtype)


def _tensor_diag_part_rule(x: ShapedArray) -> ShapedArray:
    if x.shape is None:
        return ShapedArray(None, x.dtype)
    k = len(x.shape) // 2
    if len(x.shape) % 2:
        raise ValueError(f"Input must have even rank <= 2*{k}, got rank {len(x.shape)} for "
                         f"'{{{{node DiagPart}}}}' with input shapes: {dims_text(x.shape)}.")
    return ShapedArray(tuple(_merge("DiagPart", x.shape[i], x.shape[i + k], x)
                             for i in range(k)), x.dtype)


_tensor_diag = Primitive("Diag", _tensor_diag_kernel, shape_rule=_tensor_diag_rule,
                         linear=True).defvjp(lambda g, ans, d: tensor_diag_part(g))
_tensor_diag_part = Primitive("DiagPart", _tensor_diag_part_kernel,
                              shape_rule=_tensor_diag_part_rule, linear=True).defvjp(
    lambda g, ans, x: tensor_diag(g))


@tf_export("linalg.tensor_diag")
def tensor_diag(diagonal: Any, name: Optional[str] = None) -> Tensor:
    """A tensor of shape `diagonal.shape + diagonal.shape` with `diagonal` on its diagonal
    (`out[i1..ik, i1..ik] = diagonal[i1..ik]`) and zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    _check_diag_dtype(d, "Diag")
    return bind(_tensor_diag, (d,))


@tf_export("linalg.tensor_diag_part")
def tensor_diag_part(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The diagonal of a rank-2k tensor: `out[i1..ik] = input[i1..ik, i1..ik]`."""
    x = convert_to_tensor(input)
    _check_diag_dtype(x, "DiagPart")
    return bind(_tensor_diag_part, (x,))


# -- matrix square root and logarithm ------------------------------------------------------------
# TF runs Eigen's MatrixSquareRoot: a Schur form T = U^H A U, the square root of T block by
# block (real input: the real quasi-triangular form, so a negative real eigenvalue gives NaN,
# not a complex root), then U sqrt(T) U^H. The Schur forms here are LAPACK's (scipy); the
# block recurrences are Eigen's, in its order, so zeros and NaN spread as in TF.

def _sqrt_block(t: np.ndarray) -> np.ndarray:
    """The square root of a 1x1 block, or of a 2x2 one with complex eigenvalues (by its
    eigen decomposition, real part, as Eigen)."""
    if t.shape[0] == 1:
        return np.sqrt(t)
    e, v = np.linalg.eig(t.astype(np.complex128))
    return (v @ np.diag(np.sqrt(e)) @ np.linalg.inv(v)).real.astype(t.dtype)


def _sylvester_block(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """X with A X + X B = C for blocks of size 1 or 2 (a division for 1x1, as Eigen, so a
    zero denominator gives inf/NaN rather than an error)."""
    if a.shape == (1, 1) and b.shape == (1, 1):
        return c / (a + b)
    p, q = a.shape[0], b.shape[0]
    k = np.kron(np.eye(p, dtype=a.dtype), b.T) + np.kron(a, np.eye(q, dtype=a.dtype))
    try:
        return np.linalg.solve(k, c.reshape(-1)).reshape(p, q)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(k, c.reshape(-1), rcond=None)[0].reshape(p, q)


def _sqrtm_one(m: np.ndarray) -> np.ndarray:
    from scipy import linalg
    if not np.isfinite(m).all():
        return np.full(m.shape, np.nan, m.dtype)
    # In the input's precision (LAPACK's single-precision Schur for float32), as TF.
    t, u = linalg.schur(m, output="real" if m.dtype.kind == "f" else "complex")
    n = m.shape[-1]
    starts, i = [], 0   # the diagonal blocks (2x2 where the subdiagonal is nonzero)
    while i < n:
        size = 2 if i + 1 < n and t[i + 1, i] != 0 else 1
        starts.append((i, size))
        i += size
    r = np.zeros_like(t)
    with np.errstate(all="ignore"):
        for i, size in starts:
            r[i:i + size, i:i + size] = _sqrt_block(t[i:i + size, i:i + size])
        for jb, (j, sj) in enumerate(starts):
            for i, si in reversed(starts[:jb]):
                rows, cols = builtins.slice(i, i + si), builtins.slice(j, j + sj)
                mid = builtins.slice(i + si, j)
                c = t[rows, cols] - r[rows, mid] @ r[mid, cols]
                r[rows, cols] = _sylvester_block(r[rows, rows], r[cols, cols], c)
        out = (u @ r) @ u.conj().T
    return out.astype(m.dtype)


def _sqrtm_kernel(x: np.ndarray) -> np.ndarray:
    _check_square(x, "MatrixSquareRoot")
    return _per_matrix(_sqrtm_one, x, np.empty(x.shape, x.dtype))


def _kron(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker products of two batches of n x n matrices (TF's _KroneckerProduct)."""
    every = builtins.slice(None)
    product = slice_tensor(a, (Ellipsis, every, None, every, None)) * \
        slice_tensor(b, (Ellipsis, None, every, None, every))
    return _merge_last_pairs(product)


def _merge_last_pairs(x: Tensor) -> Tensor:
    """[..., p, q, r, s] -> [..., p*q, r*s], for static or run-time sizes."""
    if has_static_shape(x._value):
        p, q, r, t = x._value.shape[-4:]
        return reshape(x, x._value.shape[:-4] + (p * q, r * t))
    dims = shape_of(x)
    return reshape(x, concat([dims[:-4], reshape(dims[-4] * dims[-3], [1]),
                              reshape(dims[-2] * dims[-1], [1])], axis=0))


def _sqrtm_vjp(g: Tensor, ans: Tensor, x: Tensor) -> Tensor:
    # TF's rule: dA = R dR + dR R, a Sylvester equation solved through its Kronecker form.
    # Written for TF's cotangent (conj(g) here), conjugated back for complex inputs.
    g = _conj_if_complex(g)
    eye_batch = _eye_like(ans)
    ksum = _kron(eye_batch, matrix_transpose(ans)) + _kron(ans, eye_batch)
    # vec(g^T) as a column, solved, and folded back: reshapes to and from shape(g).
    vec = _merge_last_pairs(slice_tensor(matrix_transpose(g), (Ellipsis, None, None)))
    grad = reshape(solve(ksum, vec), shape_of(g) if not has_static_shape(g._value)
                   else g._value.shape)
    return _conj_if_complex(matrix_transpose(grad))


_sqrtm = Primitive("MatrixSquareRoot", _sqrtm_kernel,
                   shape_rule=_square_rule("MatrixSquareRoot")).defvjp(_sqrtm_vjp)


@tf_export("linalg.sqrtm", "matrix_square_root")
def sqrtm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The principal square root of each square matrix. A real matrix with a negative real
    eigenvalue has no real root: TF (and so this) returns NaN for it."""
    x = _matrix(input, "MatrixSquareRoot", half="MatrixSquareRoot[T=DT_HALF]")
    return bind(_sqrtm, (x,))


def _logm_kernel(x: np.ndarray) -> np.ndarray:
    import warnings

    from scipy import linalg
    _check_square(x, "MatrixLogarithm")
    out = np.empty(x.shape, x.dtype)

    def one(m: np.ndarray) -> np.ndarray:
        if not np.isfinite(m).all() or not np.linalg.matrix_rank(m) == m.shape[-1]:
            return np.full(m.shape, complex(np.nan, np.nan), m.dtype)   # TF's, for log(0)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")   # scipy's estimate of its own error
            return np.asarray(linalg.logm(m.astype(np.complex128)))
    return _per_matrix(one, x, out) if x.size else out


_logm = Primitive("MatrixLogarithm", _logm_kernel, differentiable=False,
                  shape_rule=_square_rule("MatrixLogarithm"))


@tf_export("linalg.logm")
def logm(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The principal logarithm of each square complex matrix (TF takes complex64 and
    complex128 only, and has no gradient for it)."""
    x = convert_to_tensor(input)
    if x._value.dtype.kind != "c":
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x.dtype)} is not in the list "
                                   f"of allowed values: complex64, complex128 "
                                   f"[Op:MatrixLogarithm]")
    x = _matrix(x, "MatrixLogarithm")
    return _no_gradient("MatrixLogarithm", lambda t: bind(_logm, (t,)), x)


# -- eig, eigvals --------------------------------------------------------------------------------
# TF runs Eigen's complex eigensolver; these are LAPACK's (NumPy's) eigenvalues, in LAPACK's
# order, and unit-norm eigenvectors. Neither TF nor this promises an order: both come from
# a Hessenberg QR iteration and agree on most matrices, not all. Each eigenvector is defined
# up to a phase (a unit complex factor), and Eigen's and LAPACK's phases differ: A v = e v,
# |v| and other phase-invariant functions of v agree with TF.

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _eig_kernel(x: np.ndarray, compute_v: bool) -> tuple:
    _check_square(x, "Eig")
    tout = _COMPLEX_OF[x.dtype]
    if not np.isfinite(x).all():
        raise InvalidArgumentError("Eigen decomposition was not successful. The input might "
                                   "not be valid. [Op:Eig]")
    if compute_v:
        e, v = np.linalg.eig(x)
    else:
        e, v = np.linalg.eigvals(x), np.zeros(x.shape[:-2] + (0,), tout)
    return e.astype(tout, copy=False), v.astype(tout, copy=False)


def _eig_rule(x: ShapedArray, compute_v: bool) -> tuple:
    batch, n = _square("Eig", x)
    tout = _COMPLEX_OF[np.dtype(x.dtype)]
    if batch is None:
        return ShapedArray(None, tout), ShapedArray(None, tout)
    return (ShapedArray(batch + (n,), tout),
            ShapedArray(batch + ((n, n) if compute_v else (0,)), tout))


def _eig_vjp(g: tuple, ans: tuple, a: Tensor, compute_v: bool) -> Tensor:
    # TF's rule (Boeddeker et al., eq. 4.77, distinct eigenvalues), written for TF's
    # cotangents (the conjugates of the ones here), its result conjugated back; a real
    # input takes the real part, as TF's cast.
    from tapeflow.ops.math_ops import real
    grad_e, grad_v = conj(g[0]), conj(g[1])
    e, v = ans
    if not compute_v:
        v = bind(_eig, (a,), {"compute_v": True})[1]
    vt = adjoint(v)
    mid = diag(grad_e)
    if compute_v:
        f = conj(set_diag(_safe_reciprocal(_pairwise_difference(e)), zeros_like(e)))
        vgv = matmul(vt, grad_v)
        diag_grad = diag(cast(real(diag_part(vgv)), vgv.dtype))
        mid = mid + f * (vgv - matmul(matmul(vt, v), diag_grad))
    grad_a = solve(vt, matmul(mid, vt))
    return conj(grad_a) if a._value.dtype.kind == "c" else real(grad_a)


def _eig_jvp(tangents: list, ans: tuple, a: Tensor, compute_v: bool) -> tuple:
    # de = diag(V^-1 dA V); dV = V (F * V^-1 dA V) with F_ij = 1/(e_j - e_i), less each
    # column's real component along itself (the vectors keep unit norm): the linear map
    # that `_eig_vjp` transposes.
    from tapeflow.ops.math_ops import real
    e, v = ans
    if not compute_v:
        v = bind(_eig, (a,), {"compute_v": True})[1]
    da = cast(tangents[0], v.dtype)
    inner = matmul(inv(v), matmul(da, v))   # inv: its rules hold for complex to any order
    de = diag_part(inner)
    if not compute_v:
        return de, zeros_like(ans[1])
    f = set_diag(_safe_reciprocal(_pairwise_difference(e)), zeros_like(e))
    dv = matmul(v, f * inner)
    along = cast(real(reduce_sum(conj(v) * dv, axis=-2)), v.dtype)
    return de, dv - v * _expand(along, -2)


_eig = Primitive("Eig", _eig_kernel, multiple_results=True, shape_rule=_eig_rule).defvjp(
    _eig_vjp).defjvp(_eig_jvp)


def _eig_input(tensor: Any) -> Tensor:
    x = convert_to_tensor(tensor)
    if x._value.dtype not in _COMPLEX_OF:
        # TF's wrapper picks the output dtype from four dtypes and fails on any other.
        raise UnboundLocalError("cannot access local variable 'out_dtype' where it is not "
                                "associated with a value")
    return _matrix(x, "Eig")


@tf_export("linalg.eig", "eig")
def eig(tensor: Any, name: Optional[str] = None) -> tuple:
    """Eigenvalues `e` and unit-norm eigenvectors `v` (columns) of each square matrix, as
    complex tensors (complex64 for float32/complex64 input, else complex128), in no promised
    order. Each eigenvector's phase is arbitrary (see above)."""
    e, v = bind(_eig, (_eig_input(tensor),), {"compute_v": True})
    return e, v


@tf_export("linalg.eigvals", "eigvals")
def eigvals(tensor: Any, name: Optional[str] = None) -> Tensor:
    """The eigenvalues of each square matrix (complex, in no promised order)."""
    return bind(_eig, (_eig_input(tensor),), {"compute_v": False})[0]


# -- normalize, matrix_rank ----------------------------------------------------------------------

@tf_export("linalg.normalize")
def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
              name: Optional[str] = None) -> tuple:
    """(tensor / its norm, the norm kept as an axis of size 1), the norm as tf.linalg.norm
    computes it (cast to the tensor's dtype, complex for a complex tensor)."""
    x = convert_to_tensor(tensor)
    n = cast(norm(x, ord, axis, keepdims=True), x.dtype)
    return x / n, n


@tf_export("linalg.matrix_rank")
def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False,
                name: Optional[str] = None) -> Tensor:
    """The number of singular values above `tol` (default eps * max(rows, cols) * max(s)) of
    each matrix, as int32."""
    a = convert_to_tensor(a, dtype_hint=_dtypes.float32)
    if a._value.dtype.kind != "f":
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a._value.shape is not None and len(a._value.shape) < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: "
                         f"{len(a._value.shape)}).")
    s = svd(a, compute_uv=False)
    if tol is None:
        dims = a._value.shape[-2:]
        m = builtins.max(dims) if None not in dims else reduce_max(shape_of(a)[-2:])
        eps = float(np.finfo(a._value.dtype).eps)
        tol = eps * cast(m, a.dtype) * reduce_max(s, axis=-1, keepdims=True)
    return reduce_sum(cast(s > tol, _dtypes.int32), axis=-1)


# -- tridiagonal solve and matmul ----------------------------------------------------------------
# The kernels are TF's CPU ones (tridiagonal_solve_op.cc) step for step: Gaussian elimination
# with partial pivoting (LAPACK's gtsv order), the Thomas algorithm without, and gtsv with
# LAPACK's lagts perturbation of tiny pivots; a zero pivot gives NaN (TF logs a warning).

def _nan_fill(x: np.ndarray) -> np.ndarray:
    x[...] = np.nan
    return x


def _solve_pivoting(sup: np.ndarray, d: np.ndarray, sub: np.ndarray, rhs: np.ndarray,
                    x: np.ndarray) -> np.ndarray:
    n = len(d)
    u = np.zeros((n, 3), d.dtype)
    u[0, 0], u[0, 1] = d[0], sup[0]
    x[0] = rhs[0]
    for i in range(n - 1):
        if np.abs(u[i, 0]) >= np.abs(sub[i + 1]):
            if u[i, 0] == 0:
                return _nan_fill(x)
            factor = sub[i + 1] / u[i, 0]
            u[i + 1, 0] = d[i + 1] - factor * u[i, 1]
            x[i + 1] = rhs[i + 1] - factor * x[i]
            if i != n - 2:
                u[i + 1, 1], u[i, 2] = sup[i + 1], 0
        else:
            factor = u[i, 0] / sub[i + 1]
            u[i, 0] = sub[i + 1]
            u[i + 1, 0] = u[i, 1] - factor * d[i + 1]
            u[i, 1] = d[i + 1]
            x[i + 1] = x[i] - factor * rhs[i + 1]
            x[i] = rhs[i + 1]
            if i != n - 2:
                u[i, 2], u[i + 1, 1] = sup[i + 1], -factor * sup[i + 1]
    if u[n - 1, 0] == 0:
        return _nan_fill(x)
    x[n - 1] /= u[n - 1, 0]
    x[n - 2] = (x[n - 2] - u[n - 2, 1] * x[n - 1]) / u[n - 2, 0]
    for i in range(n - 3, -1, -1):
        x[i] = (x[i] - u[i, 1] * x[i + 1] - u[i, 2] * x[i + 2]) / u[i, 0]
    return x


def _solve_thomas(sup: np.ndarray, d: np.ndarray, sub: np.ndarray, rhs: np.ndarray,
                  x: np.ndarray) -> np.ndarray:
    n = len(d)
    u = np.zeros(n, d.dtype)
    if d[0] == 0:
        return _nan_fill(x)
    u[0] = sup[0] / d[0]
    x[0] = rhs[0] / d[0]
    for i in range(1, n):
        denom = d[i] - sub[i] * u[i - 1]
        if denom == 0:
            return _nan_fill(x)
        u[i] = sup[i] / denom
        x[i] = (rhs[i] - sub[i] * x[i - 1]) / denom
    for i in range(n - 2, -1, -1):
        x[i] -= u[i] * x[i + 1]
    return x


def _perturb_pivot(perturb: float, pivot: Any, row: np.ndarray) -> tuple:
    """TF's MaybePerturbPivot (after LAPACK's xLAGTS): a tiny pivot grows until neither
    row / pivot nor 1 / pivot overflows."""
    finfo = np.finfo(row.real.dtype)
    small = 1 / finfo.max
    safemin = finfo.tiny if small < finfo.tiny else (1 + finfo.eps) * small
    bignum = 1 / safemin
    abs_pivot = np.abs(pivot)
    if abs_pivot >= 1:
        return pivot, row
    perturb = np.copysign(builtins.max(np.abs(perturb), safemin), np.real(pivot))
    max_factor = np.abs(row).max() if row.size else 0
    while abs_pivot < 1:
        if abs_pivot < safemin:
            if abs_pivot == 0 or max_factor * safemin > abs_pivot:
                pivot, perturb = pivot + perturb, perturb * 2
            else:
                return pivot * bignum, row * bignum
        elif max_factor > abs_pivot * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
        else:
            break
        abs_pivot = np.abs(pivot)
    return pivot, row


def _solve_perturbed(sup: np.ndarray, d: np.ndarray, sub: np.ndarray, rhs: np.ndarray,
                     x: np.ndarray) -> np.ndarray:
    n = len(d)
    eps = np.finfo(x.real.dtype).eps
    one = x.dtype.type(1)
    if n == 1:
        denom, row = _perturb_pivot(eps * np.abs(d[0]), d[0], rhs[0].copy())
        x[0] = row * (one / denom)
        return x
    u = np.zeros((n, 3), d.dtype)
    u[0, 0], u[0, 1] = d[0], sup[0]
    max_abs_u = builtins.max(np.abs(u[0, 0]), np.abs(u[0, 1]))
    scale1 = np.abs(u[0, 0]) + np.abs(u[0, 1])
    x[0] = rhs[0]
    for k in range(n - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = np.abs(sub[k + 1]) + np.abs(u[k + 1, 0])
        if k < n - 2:
            scale2 += np.abs(sup[k + 1])
        if sub[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = sup[k + 1], 0
            x[k + 1] = rhs[k + 1]
        else:
            piv1 = 0 if u[k, 0] == 0 else np.abs(u[k, 0]) / scale1
            piv2 = np.abs(sub[k + 1]) / scale2
            if piv2 <= piv1:
                scale1 = scale2
                factor = sub[k + 1] / u[k, 0]
                u[k + 1, 0] = d[k + 1] - factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = sup[k + 1], 0
                x[k + 1] = rhs[k + 1] - factor * x[k]
            else:
                factor = u[k, 0] / sub[k + 1]
                u[k, 0] = sub[k + 1]
                u[k + 1, 0] = u[k, 1] - factor * d[k + 1]
                u[k, 1] = d[k + 1]
                if k < n - 2:
                    u[k, 2], u[k + 1, 1] = sup[k + 1], -factor * sup[k + 1]
                x[k + 1] = x[k] - factor * rhs[k + 1]
                x[k] = rhs[k + 1]
        if k < n - 2:
            max_abs_u = builtins.max(max_abs_u, *np.abs(u[k]).tolist())
    max_abs_u = builtins.max(max_abs_u, np.abs(u[n - 1, 0]))
    tol = eps * max_abs_u
    denom, row = _perturb_pivot(tol, u[n - 1, 0], x[n - 1].copy())
    x[n - 1] = row * (one / denom)
    denom = u[n - 2, 0]
    row = x[n - 2] - u[n - 2, 1] * x[n - 1]
    denom, row = _perturb_pivot(np.copysign(tol, np.real(denom)), denom, row)
    x[n - 2] = row * (one / denom)
    for k in range(n - 3, -1, -1):
        row = x[k] - u[k, 1] * x[k + 1] - u[k, 2] * x[k + 2]
        denom, row = _perturb_pivot(np.copysign(tol, np.real(u[k, 0])), u[k, 0], row)
        x[k] = row * (one / denom)
    return x


def _tridiagonal_solve_kernel(diags: np.ndarray, rhs: np.ndarray, partial_pivoting: bool,
                              perturb_singular: bool) -> np.ndarray:
    _check_tridiagonal_shapes(diags.shape, rhs.shape)
    out = np.empty(rhs.shape, rhs.dtype)
    if not rhs.size:
        return out
    flat_d = diags.reshape((-1,) + diags.shape[-2:])
    flat_r, flat_x = rhs.reshape((-1,) + rhs.shape[-2:]), out.reshape((-1,) + rhs.shape[-2:])
    with np.errstate(all="ignore"):
        for (sup, d, sub), r, x in zip(flat_d, flat_r, flat_x):
            if partial_pivoting and perturb_singular:
                _solve_perturbed(sup, d, sub, r, x)
            elif len(d) == 1:
                x[...] = np.nan if d[0] == 0 else r / d[0]
            elif partial_pivoting:
                _solve_pivoting(sup, d, sub, r, x)
            else:
                _solve_thomas(sup, d, sub, r, x)
    return out


def _check_tridiagonal_shapes(diags: tuple, rhs: tuple) -> None:
    """TF's kernel checks (ValidateInputMatrixShapes), for shapes the wrapper did not know."""
    if diags[-2] != 3:
        raise InvalidArgumentError(f"Expected diagonals to be provided as a matrix with 3 "
                                   f"rows, got {diags[-2]} rows. [Op:TridiagonalSolve]")
    if diags[-1] != rhs[-2]:
        raise InvalidArgumentError(f"Expected the same number of left-hand sides and "
                                   f"right-hand sides, got {diags[-1]} and {rhs[-2]}. "
                                   f"[Op:TridiagonalSolve]")


def _tridiagonal_solve_rule(diags: ShapedArray, rhs: ShapedArray, partial_pivoting: bool,
                            perturb_singular: bool) -> ShapedArray:
    return ShapedArray(rhs.shape, rhs.dtype)


def _transpose_tridiagonal(diags: Tensor) -> Tensor:
    """The compact diagonals of each matrix's transpose (TF's _TransposeTridiagonalMatrix)."""
    from tapeflow.ops.manip_ops import pad
    rank = diags._value.ndim
    edge = [[0, 0]] * (rank - 2)
    superdiag = pad(diags[..., 2, 1:], edge + [[0, 1]])
    subdiag = pad(diags[..., 0, :-1], edge + [[1, 0]])
    return _stack([superdiag, diags[..., 1, :], subdiag], axis=-2)


def _three_diagonals_of_product(x: Tensor, y_tr: Tensor) -> Tensor:
    """The compact diagonals of x @ y_tr^T (TF's _MatmulExtractingThreeDiagonals)."""
    from tapeflow.ops.manip_ops import pad
    rank = y_tr._value.ndim
    edge = [[0, 0]] * (rank - 2)
    main = reduce_sum(x * y_tr, axis=-1)
    superdiag = reduce_sum(x * pad(y_tr[..., 1:, :], edge + [[0, 1], [0, 0]]), axis=-1)
    subdiag = reduce_sum(x * pad(y_tr[..., :-1, :], edge + [[1, 0], [0, 0]]), axis=-1)
    return _stack([superdiag, main, subdiag], axis=-2)


def _tridiagonal_solve_vjp(g: Tensor, ans: Tensor, diags: Tensor, rhs: Tensor,
                           partial_pivoting: bool, perturb_singular: bool) -> tuple:
    _real_gradient_only(g, "TridiagonalSolve")
    grad_rhs = bind(_tridiagonal_solve, (_transpose_tridiagonal(diags), g),
                    {"partial_pivoting": partial_pivoting, "perturb_singular": perturb_singular})
    return -_three_diagonals_of_product(grad_rhs, ans), grad_rhs


_tridiagonal_solve = Primitive("TridiagonalSolve", _tridiagonal_solve_kernel,
                               shape_rule=_tridiagonal_solve_rule).defvjp(
    _tridiagonal_solve_vjp)


def _stack(values: list, axis: int) -> Tensor:
    from tapeflow.ops.array_ops import stack
    return stack(values, axis=axis)


def _static_dim(x: Tensor, axis: int) -> Optional[int]:
    shape = x._value.shape
    return None if shape is None else shape[axis]


def _compact_from_sequence(diagonals: Any) -> Tensor:
    if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
        raise ValueError("Expected diagonals to be a sequence of length 3.")
    from tapeflow.ops.manip_ops import pad
    superdiag, maindiag, subdiag = (convert_to_tensor(t) for t in diagonals)
    if superdiag._value.shape[:-1] != maindiag._value.shape[:-1] or \
            subdiag._value.shape[:-1] != maindiag._value.shape[:-1]:
        raise ValueError(f"Tensors representing the three diagonals must have the same shape,"
                         f"except for the last dimension, got {subdiag.shape}, "
                         f"{maindiag.shape}, {superdiag.shape}")
    m = _static_dim(maindiag, -1)

    def padded(t: Tensor, label: str, padding: list) -> Tensor:
        n = _static_dim(t, -1)
        if not n or n == m:
            return t
        if n == m - 1:
            return pad(t, [[0, 0]] * (t._value.ndim - 1) + [padding])
        raise ValueError(f"Expected {label} to be have length {m} or {m - 1}, got {n}.")
    subdiag = padded(subdiag, "subdiagonal", [1, 0])
    superdiag = padded(superdiag, "superdiagonal", [0, 1])
    a, b = binary_operands(superdiag, maindiag, "Pack")
    _, c = binary_operands(a, subdiag, "Pack")
    return _stack([a, b, c], axis=-2)


def _compact_from_matrix(diagonals: Any) -> Tensor:
    m = convert_to_tensor(diagonals)
    m1, m2 = _static_dim(m, -1), _static_dim(m, -2)
    if m1 and m2 and m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} "
                         f"and {m2}")
    from tapeflow.ops.manip_ops import pad
    edge = [[0, 0]] * (m._value.ndim - 2)
    superdiag = pad(diag_part(m, k=1), edge + [[0, 1]])   # TF's align='LEFT_RIGHT'
    subdiag = pad(diag_part(m, k=-1), edge + [[1, 0]])
    return _stack([superdiag, diag_part(m), subdiag], axis=-2)


@tf_export("linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                      transpose_rhs: bool = False, conjugate_rhs: bool = False,
                      name: Optional[str] = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> Tensor:
    """X with `T @ X = rhs` for tridiagonal matrices T given as `diagonals` ('compact':
    [..., 3, M] rows superdiagonal, diagonal, subdiagonal; 'sequence': those three
    tensors; 'matrix': [..., M, M]); rhs is [..., M] or [..., M, K]. A singular T gives NaN
    (no error), as TF's CPU kernel."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if diagonals_format == "sequence":
        diagonals = _compact_from_sequence(diagonals)
    elif diagonals_format == "matrix":
        diagonals = _compact_from_matrix(diagonals)
    elif diagonals_format != "compact":
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    return _tridiagonal_solve_compact(convert_to_tensor(diagonals), rhs, transpose_rhs,
                                      conjugate_rhs, partial_pivoting, perturb_singular)


def _tridiagonal_solve_compact(diags: Tensor, rhs: Any, transpose_rhs: bool,
                               conjugate_rhs: bool, partial_pivoting: bool,
                               perturb_singular: bool) -> Tensor:
    rhs = convert_to_tensor(rhs)
    d_shape, r_shape = diags._value.shape, rhs._value.shape
    d_rank, r_rank = len(d_shape), len(r_shape)
    if d_rank < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {d_rank}")
    if r_rank not in (d_rank, d_rank - 1):
        raise ValueError(f"Expected the rank of rhs to be {d_rank - 1} or {d_rank}, got "
                         f"{r_rank}")
    batch_d, batch_r = d_shape[:-2], r_shape[:d_rank - 2]
    if any(a is not None and b is not None and a != b for a, b in zip(batch_d, batch_r)):
        raise ValueError(f"Batch shapes {_tuple_text(batch_d)} and {_tuple_text(batch_r)} are "
                         f"incompatible")
    if d_shape[-2] and d_shape[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {d_shape[-2]}")
    if diags._value.dtype.kind not in "fc" or diags._value.dtype == np.float16:
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(diags.dtype)} is not in the "
                                   f"list of allowed values: double, float, complex64, "
                                   f"complex128 [Op:TridiagonalSolve]")
    vector = r_rank == d_rank - 1
    if vector:
        rhs = expand_dims(conj(rhs) if conjugate_rhs else rhs, -1)
    elif transpose_rhs:
        rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = conj(rhs)
    m, k = d_shape[-1], rhs._value.shape[-2]
    if m and k and m != k:
        raise ValueError(f"Expected number of left-hand sided and right-hand sides to be "
                         f"equal, got {m} and {k}")
    if rhs._value.dtype != diags._value.dtype:
        raise mismatch_error("TridiagonalSolve", 1, diags.dtype, rhs.dtype)
    out = bind(_tridiagonal_solve, (diags, rhs), {"partial_pivoting": bool(partial_pivoting),
                                                  "perturb_singular": bool(perturb_singular)})
    return squeeze(out, -1) if vector else out


def _tuple_text(dims: tuple) -> str:
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _tridiagonal_matmul_kernel(superdiag: np.ndarray, maindiag: np.ndarray,
                               subdiag: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if not superdiag.ndim == maindiag.ndim == subdiag.ndim == rhs.ndim:
        raise InvalidArgumentError("All input tensors must have the same rank. "
                                   "[Op:TridiagonalMatMul]")
    m = rhs.shape[-2]
    for d in (superdiag, maindiag, subdiag):
        if d.shape[-2] != 1 or d.shape[-1] != m or d.shape[:-2] != rhs.shape[:-2]:
            raise InvalidArgumentError(f"Expected diagonals of shape "
                                       f"{dims_text(rhs.shape[:-2] + (1, m))}, got "
                                       f"{dims_text(d.shape)} [Op:TridiagonalMatMul]")
    sup, main, sub = (np.swapaxes(d, -1, -2) for d in (superdiag, maindiag, subdiag))
    out = main * rhs
    out[..., :-1, :] += sup[..., :-1, :] * rhs[..., 1:, :]
    out[..., 1:, :] += sub[..., 1:, :] * rhs[..., :-1, :]
    return out


def _tridiagonal_matmul_rule(superdiag: ShapedArray, maindiag: ShapedArray,
                             subdiag: ShapedArray, rhs: ShapedArray) -> ShapedArray:
    return ShapedArray(rhs.shape, rhs.dtype)


def _shift_left(x: Tensor) -> Tensor:
    from tapeflow.ops.manip_ops import pad
    return pad(x[..., 1:, :], [[0, 0]] * (x._value.ndim - 2) + [[0, 1], [0, 0]])


def _shift_right(x: Tensor) -> Tensor:
    from tapeflow.ops.manip_ops import pad
    return pad(x[..., :-1, :], [[0, 0]] * (x._value.ndim - 2) + [[1, 0], [0, 0]])


def _tridiagonal_matmul_vjp(g: Tensor, ans: Tensor, superdiag: Tensor, maindiag: Tensor,
                            subdiag: Tensor, rhs: Tensor) -> tuple:
    # TF's rule with conjugates dropped: the backward pass holds conj(TF's cotangent).
    sup_t, main_t, sub_t = (matrix_transpose(d) for d in (superdiag, maindiag, subdiag))
    grads = (reduce_sum(_shift_left(rhs) * g, axis=-1), reduce_sum(rhs * g, axis=-1),
             reduce_sum(_shift_right(rhs) * g, axis=-1))
    rhs_grad = _shift_right(sup_t * g) + main_t * g + _shift_left(sub_t * g)
    return tuple(expand_dims(d, -2) for d in grads) + (rhs_grad,)


def _tridiagonal_matmul_jvp(tangents: list, ans: Tensor, *xs: Tensor) -> Tensor:
    # Linear in the three diagonals together and in rhs.
    out = None
    diag_tangents = tangents[:3]
    if any(t is not None for t in diag_tangents):
        ds = [zeros_like(x) if t is None else t for t, x in zip(diag_tangents, xs[:3])]
        out = bind(_tridiagonal_matmul, (*ds, xs[3]))
    if tangents[3] is not None:
        term = bind(_tridiagonal_matmul, (*xs[:3], tangents[3]))
        out = term if out is None else out + term
    return out if out is not None else zeros_like(ans)


_tridiagonal_matmul = Primitive("TridiagonalMatMul", _tridiagonal_matmul_kernel,
                                shape_rule=_tridiagonal_matmul_rule).defvjp(
    _tridiagonal_matmul_vjp).defjvp(_tridiagonal_matmul_jvp)


@tf_export("linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                       name: Optional[str] = None) -> Tensor:
    """T @ rhs for tridiagonal matrices T given as `diagonals` (formats as
    `tridiagonal_solve`'s); rhs is [..., M, N]."""
    if diagonals_format == "compact":
        d = convert_to_tensor(diagonals)
        superdiag, maindiag, subdiag = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    elif diagonals_format == "sequence":
        superdiag, maindiag, subdiag = (convert_to_tensor(t) for t in diagonals)
    elif diagonals_format == "matrix":
        d = _compact_from_matrix(diagonals)
        superdiag, maindiag, subdiag = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    rhs = convert_to_tensor(rhs, dtype_hint=maindiag.dtype)
    if rhs._value.dtype != maindiag._value.dtype:
        raise mismatch_error("TridiagonalMatMul", 3, maindiag.dtype, rhs.dtype)
    if maindiag._value.dtype.kind not in "fc" or maindiag._value.dtype == np.float16:
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(maindiag.dtype)} is not in "
                                   f"the list of allowed values: double, float, complex64, "
                                   f"complex128 [Op:TridiagonalMatMul]")
    diags = [expand_dims(t, -2) for t in (superdiag, maindiag, subdiag)]
    return bind(_tridiagonal_matmul, (*diags, rhs))


# -- banded triangular solve ---------------------------------------------------------------------

def _dense_from_bands(bands: np.ndarray, lower: bool) -> np.ndarray:
    """The [..., M, M] triangular matrices whose K bands (LEFT_RIGHT aligned) are `bands`."""
    k, m = bands.shape[-2:]
    out = np.zeros(bands.shape[:-2] + (m, m), bands.dtype)
    for i in range(builtins.min(k, m)):
        rows = np.arange(m - i)
        if lower:   # row i: the i-th subdiagonal, padded on the left
            out[..., rows + i, rows] = bands[..., i, i:]
        else:       # row k-1-i: the i-th superdiagonal, padded on the right
            out[..., rows, rows + i] = bands[..., k - 1 - i, :m - i]
    return out


def _banded_kernel(bands: np.ndarray, rhs: np.ndarray, lower: bool,
                   adjoint: bool) -> np.ndarray:
    if rhs.ndim < 2:
        raise InvalidArgumentError(f"In[1] ndims must be >= 2: {rhs.ndim} "
                                   f"[Op:BandedTriangularSolve]")
    t = _dense_from_bands(bands, lower)
    if (np.diagonal(t, axis1=-2, axis2=-1) == 0).any():
        raise InvalidArgumentError("Input matrix is not invertible. [Op:BandedTriangularSolve]")
    batch = np.broadcast_shapes(t.shape[:-2], rhs.shape[:-2])
    t = np.broadcast_to(t, batch + t.shape[-2:])
    rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    if adjoint:
        t = np.swapaxes(t, -1, -2).conj()
    return _substitute(t, rhs, lower != adjoint)


def _banded_rule(bands: ShapedArray, rhs: ShapedArray, lower: bool,
                 adjoint: bool) -> ShapedArray:
    if bands.shape is None or rhs.shape is None:
        return ShapedArray(None, rhs.dtype)
    return ShapedArray(broadcast_dims(bands.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:],
                       rhs.dtype)


def _bands_of(x: Tensor, num_bands: Any, lower: bool) -> Tensor:
    """The K bands of each matrix x [..., M, M], as `banded_triangular_solve` stores them
    (TF's matrix_diag_part over k in [-(K-1), 0] or [0, K-1], align LEFT_RIGHT): entry
    [i, j] is x[j, j - i] (lower) or x[j, j + K-1-i] (upper), zero outside the matrix.
    Sizes may be run-time scalars."""
    m = shape_of(x)[-1]
    offset = expand_dims(arange(num_bands), -1)   # [K, 1]
    if not lower:
        offset = (num_bands - 1) - offset
    cols = expand_dims(arange(m), 0) + (-offset if lower else offset)   # [K, M]
    inside = cast((cols >= 0) & (cols < m), x.dtype)
    index = matrix_transpose(where(cols < 0, zeros_like(cols), where(cols < m, cols,
                                                                     zeros_like(cols))))
    # Spread over x's batch by adding zeros shaped [..., M, 1] (sizes known only at run time).
    index = index + cast(zeros_like(x[..., :1]), index.dtype)
    picked = gather(x, index, axis=-1, batch_dims=x._value.ndim - 1)   # [..., M, K]
    return matrix_transpose(picked) * inside


def _banded_vjp(g: Tensor, ans: Tensor, bands: Tensor, rhs: Tensor, lower: bool,
                adjoint: bool) -> tuple:
    _real_gradient_only(g, "BandedTriangularSolve")
    grad_b = bind(_banded, (bands, g), {"lower": lower, "adjoint": not adjoint})
    if adjoint:
        grad_a = -matmul(ans, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, ans, adjoint_b=True)
    k = bands._value.shape[-2]
    return _bands_of(grad_a, shape_of(bands)[-2] if k is None else k, lower), grad_b


_banded = Primitive("BandedTriangularSolve", _banded_kernel, shape_rule=_banded_rule).defvjp(
    _banded_vjp)


@tf_export("linalg.banded_triangular_solve")
def banded_triangular_solve(bands: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: Optional[str] = None) -> Tensor:
    """X with `T @ X = rhs` for triangular T given by its K bands [..., K, M] (lower: the
    diagonal first, then subdiagonals, padded on the left; upper: superdiagonals padded on
    the right, the diagonal last); batch axes broadcast. A zero on the diagonal raises."""
    a = convert_to_tensor(bands)
    if a._value.dtype == np.float16:
        raise NotFoundError(f"Could not find device for node: {{{{node BandedTriangularSolve}}}}"
                            f" = BandedTriangularSolve[T=DT_HALF, adjoint={_flag(adjoint)}, "
                            f"lower={_flag(lower)}]\nAll kernels registered for op "
                            f"BandedTriangularSolve:\n  device='CPU'; T in [DT_FLOAT, "
                            f"DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128]\n [Op:BandedTriangularSolve]")
    a = _matrix(a, "BandedTriangularSolve", square=False)
    a, b = binary_operands(a, rhs, "BandedTriangularSolve")
    return bind(_banded, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


# -- eigh_tridiagonal ----------------------------------------------------------------------------
# TF's eigenvalues are a bisection on Sturm counts (linalg_impl.eigh_tridiagonal), ported
# here operation for operation in the input's precision, so the values are TF's. TF's
# eigenvectors come from inverse iteration started at random vectors, so their signs are
# arbitrary; these are LAPACK's (scipy), for the same eigenvalues, with unit norm.

def _sturm(alpha: np.ndarray, beta_sq: np.ndarray, pivmin: Any, alpha0_perturbation: Any,
           x: np.ndarray) -> np.ndarray:
    """How many eigenvalues lie below each x (TF's Sturm sequence recurrence)."""
    q = alpha[0] - x
    count = (q < 0).astype(np.int32)
    q = np.where(alpha[0] == x, alpha0_perturbation, q)
    for i in range(1, len(alpha)):
        q = alpha[i] - beta_sq[i - 1] / q - x
        low = q <= pivmin
        count = np.where(low, count + 1, count)
        q = np.where(low, np.minimum(q, -pivmin), q)
    return count


def _bisect_eigenvalues(alpha: np.ndarray, beta: np.ndarray, select: str, select_range: Any,
                        tol: Any) -> np.ndarray:
    if alpha.dtype.kind == "c":
        alpha = alpha.real
        beta_sq = (np.conj(beta) * beta).real
        beta_abs = np.sqrt(beta_sq)
    else:
        beta_sq, beta_abs = np.square(beta), np.abs(beta)
    dtype = alpha.dtype
    finfo = np.finfo(dtype)
    n = len(alpha)
    row_sums = np.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    est_max = np.minimum(finfo.max, np.max(alpha + row_sums))
    est_min = np.maximum(finfo.min, np.min(alpha - row_sums))
    t_norm = np.maximum(np.abs(est_min), np.abs(est_max))
    one = dtype.type(1)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * np.maximum(one, np.max(beta_sq))
    alpha0_perturbation = np.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol:
        abs_tol = np.maximum(dtype.type(tol), abs_tol)
    max_it = finfo.nmant + 1
    fudge = 2.1
    norm_slack = dtype.type(n) * fudge * finfo.eps * t_norm
    if select == "a":
        targets = np.arange(n, dtype=np.int32)
    elif select == "i":
        if not select_range[0] <= select_range[1]:
            raise InvalidArgumentError("Got empty index range in select_range.")
        targets = np.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    else:
        if not select_range[0] < select_range[1]:
            raise InvalidArgumentError("Got empty interval in select_range.")
    if select in ("a", "i"):
        lower = est_min - norm_slack - 2 * fudge * pivmin
        upper = est_max + norm_slack + fudge * pivmin
    else:
        lower = dtype.type(select_range[0]) - norm_slack - 2 * fudge * pivmin
        upper = dtype.type(select_range[1]) + norm_slack + fudge * pivmin
        first = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, np.asarray(lower))
        last = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, np.asarray(upper))
        targets = np.arange(int(first), int(last), dtype=np.int32)
    upper = np.full(targets.shape, np.minimum(upper, finfo.max), dtype)
    lower = np.full(targets.shape, np.maximum(lower, finfo.min), dtype)
    with np.errstate(all="ignore"):
        for _ in range(max_it):
            if not targets.size or not abs_tol < np.max(upper - lower):
                break
            mid = 0.5 * lower + 0.5 * upper
            counts = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
            lower = np.where(counts <= targets, mid, lower)
            upper = np.where(counts > targets, mid, upper)
    return (0.5 * lower + 0.5 * upper).astype(dtype, copy=False)


def _tridiagonal_eigenvectors(alpha: np.ndarray, beta: np.ndarray,
                              eigvals: np.ndarray) -> np.ndarray:
    """Unit eigenvectors (columns) for `eigvals`; a complex beta is made real by a diagonal
    unitary similarity (phases d with d_k |b_k| conj(d_k+1) = b_k)."""
    from scipy import linalg
    real = np.abs(beta) if beta.dtype.kind == "c" else beta
    d = alpha.real.astype(real.dtype)
    if not eigvals.size:
        return np.zeros((len(alpha), 0), beta.dtype)
    # The LAPACK eigenvalues nearest TF's: pick them by index among all.
    _, vectors = linalg.eigh_tridiagonal(d, real)
    all_values = linalg.eigh_tridiagonal(d, real, eigvals_only=True)
    index = [int(np.argmin(np.abs(all_values - e))) for e in eigvals]
    vectors = vectors[:, index]
    if beta.dtype.kind == "c":
        unit = np.where(real == 0, 1, beta.conj() / np.where(real == 0, 1, real))
        phases = np.concatenate([[1], np.cumprod(unit)])
        vectors = phases[:, None] * vectors
    return vectors.astype(beta.dtype, copy=False)


def _eigh_tridiagonal_kernel(alpha: np.ndarray, beta: np.ndarray, eigvals_only: bool,
                             select: str, select_range: Any, tol: Any) -> Any:
    values = _bisect_eigenvalues(alpha, beta, select, select_range, tol)
    if eigvals_only:
        return values
    return values, _tridiagonal_eigenvectors(alpha, beta, values)


def _eigh_tridiagonal_rule(alpha: ShapedArray, beta: ShapedArray, eigvals_only: bool,
                           select: str, select_range: Any, tol: Any) -> Any:
    real = np.finfo(alpha.dtype).dtype
    n = alpha.shape[0] if alpha.shape is not None and select == "a" else None
    if select == "i":
        n = int(select_range[1]) - int(select_range[0]) + 1
    values = ShapedArray((n,), real)
    if eigvals_only:
        return values
    rows = None if alpha.shape is None else alpha.shape[0]
    return values, ShapedArray((rows, n), beta.dtype)


# No TF op of this name: TF composes it of while loops; its eigenvalues carry no useful
# gradient (a bisection), and tapeflow records none.
_eigh_tridiagonal_values = Primitive("EighTridiagonal", _eigh_tridiagonal_kernel,
                                     differentiable=False, shape_rule=_eigh_tridiagonal_rule)
_eigh_tridiagonal_vectors = Primitive("EighTridiagonalVectors", _eigh_tridiagonal_kernel,
                                      multiple_results=True, differentiable=False,
                                      shape_rule=_eigh_tridiagonal_rule)


@tf_export("linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha: Any, beta: Any, eigvals_only: bool = True, select: str = "a",
                     select_range: Any = None, tol: Any = None,
                     name: Optional[str] = None) -> Any:
    """Eigenvalues (ascending) of the Hermitian tridiagonal matrix with diagonal `alpha`
    [n] and superdiagonal `beta` [n-1] (the imaginary part of alpha is ignored); with
    `eigvals_only=False` also its eigenvectors (columns, each up to sign/phase). `select`:
    'a' all, 'i' indices select_range[0]..[1], 'v' values in (select_range[0], [1]]."""
    alpha = convert_to_tensor(alpha)
    n = alpha._value.shape[0]
    if n is not None and n <= 1:
        from tapeflow.ops.math_ops import real
        return real(alpha)
    beta = convert_to_tensor(beta)
    if alpha._value.dtype != beta._value.dtype:
        raise ValueError("'alpha' and 'beta' must have the same type.")
    if select not in ("a", "i", "v"):
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    bounds = None if select == "a" else tuple(
        np.asarray(static_value(b, "eigh_tridiagonal: select_range")).item()
        for b in select_range)
    tol = None if tol is None else float(static_value(tol, "eigh_tridiagonal: tol"))
    attrs = {"eigvals_only": bool(eigvals_only), "select": select, "select_range": bounds,
             "tol": tol}
    prim = _eigh_tridiagonal_values if eigvals_only else _eigh_tridiagonal_vectors
    return bind(prim, (alpha, beta), attrs)


# -- tf.linalg.experimental ----------------------------------------------------------------------

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator: Any, rhs: Any, preconditioner: Any = None, x: Any = None,
                       tol: float = 1e-5, max_iter: int = 20,
                       name: str = "conjugate_gradient") -> CGState:
    """Solves `A x = rhs` for a self-adjoint positive definite `LinearOperator` A by
    conjugate gradients, as TF: stops after `max_iter` steps or once every residual norm is
    at most `tol * ||rhs||`; returns the final CGState(i, x, r, p, gamma)."""
    from tapeflow.ops.reduce_ops import reduce_any
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    rhs = convert_to_tensor(rhs)

    def dot(a: Tensor, b: Tensor) -> Tensor:
        return squeeze(matvec(expand_dims(a, -1), b, adjoint_a=True), -1)

    batch = tuple(operator.batch_shape)
    shape = np.broadcast_shapes(rhs._value.shape[:-1], batch)
    if preconditioner is not None:
        shape = np.broadcast_shapes(shape, tuple(preconditioner.batch_shape))
    r = broadcast_to(rhs, shape + rhs._value.shape[-1:])
    tol = tol * _vector_norm(r, axis=-1)
    if x is None:
        x = zeros_like(r)
    else:
        r = rhs - operator.matvec(x)
    p = r if preconditioner is None else preconditioner.matvec(r)
    state = CGState(wrap(np.int32(0)), x, r, p, dot(r, p))
    while int(state.i) < max_iter and bool(reduce_any(_vector_norm(state.r, axis=-1) > tol)):
        z = operator.matvec(state.p)
        alpha = state.gamma / dot(state.p, z)
        x = state.x + expand_dims(alpha, -1) * state.p
        r = state.r - expand_dims(alpha, -1) * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = dot(r, q)
        p = q + expand_dims(gamma / state.gamma, -1) * state.p
        state = CGState(state.i + 1, x, r, p, gamma)
    return state


def _experimental_namespace() -> Any:
    import types
    module = types.ModuleType("tapeflow.linalg.experimental",
                              "`tf.linalg.experimental`: iterative solvers.")
    module.conjugate_gradient = conjugate_gradient
    module.__all__ = ["conjugate_gradient"]
    return module


experimental = tf_export("linalg.experimental")(_experimental_namespace())
