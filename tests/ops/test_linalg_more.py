"""tf.linalg's lu family, cross, normalize, matrix_rank, sqrtm, logm, eig, tensor_diag,
tridiagonal and banded solves and eigh_tridiagonal against TensorFlow 2.21.

Values come from tests/ops/fixtures/linalg_more.json (recorded by
tools/record_linalg_more_fixtures.py, which holds the cases); errors and dtypes below are
TF 2.21's answers, checked by hand. Eigenvectors are compared through phase invariants
(|v| and the residual A v - v e): TF's eig (Eigen's ComplexEigenSolver) and LAPACK pick
different phases, and TF's eigh_tridiagonal starts inverse iteration at random vectors.
"""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import tapeflow as tf

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "_linalg_more_cases", os.path.join(_ROOT, "tools", "record_linalg_more_fixtures.py"))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
with open(os.path.join(_ROOT, "tests", "ops", "fixtures", "linalg_more.json")) as _f:
    FIXTURES = json.load(_f)

# Bit-for-bit where tapeflow runs TF's own algorithm (Eigen's unblocked LU, TF's
# tridiagonal kernels, the bisection); else to rounding (LAPACK vs Eigen).
EXACT = {"lu_f64", "lu_f32", "lu_batch_i64", "lu_inf", "cross", "cross_int",
         "tensor_diag", "tensor_diag_part", "tridiagonal_solve_f32_pivot",
         "tridiagonal_solve_perturb", "tridiagonal_solve_singular_nan", "matrix_rank",
         "matrix_rank_batch", "matrix_rank_tol", "eigh_tridiagonal_f32"}


def _tolerance(name: str, dtype: np.dtype) -> dict:
    if name in EXACT:
        return {"rtol": 0, "atol": 0}
    if dtype in (np.float32, np.complex64):
        return {"rtol": 2e-5, "atol": 2e-6}
    return {"rtol": 1e-9, "atol": 1e-11}


@pytest.mark.parametrize("name", sorted(_cases.CASES))
def test_against_tensorflow(name):
    result = _cases.CASES[name](tf)
    outputs = result if isinstance(result, (tuple, list)) else [result]
    want = [_cases.decode(entry) for entry in FIXTURES[name]]
    assert len(outputs) == len(want)
    outputs = [np.asarray(tf.convert_to_tensor(got).numpy()) for got in outputs]
    if name.startswith("eig_") and "grad" not in name:
        outputs, want = _canonical_eig(outputs), _canonical_eig(want)
    for got, expected in zip(outputs, want):
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        np.testing.assert_allclose(got, expected, equal_nan=True, err_msg=name,
                                   **_tolerance(name, expected.dtype))


def _canonical_eig(outputs: list) -> list:
    """(e, |v|, flag) with the eigenvalues in one order (by real, then imaginary part): TF
    (Eigen) and LAPACK both return them in their QR iteration's order, which differs on
    some matrices (B245[0] here)."""
    e, v, flag = outputs
    key = np.round(e.real, 5) * 1e6 + np.round(e.imag, 5)
    order = np.argsort(key, axis=-1, kind="stable")
    return [np.take_along_axis(e, order, -1), np.take_along_axis(v, order[..., None, :], -1),
            flag]


def _raises(cls, text, f):
    with pytest.raises(cls) as info:
        f()
    assert text in str(info.value), str(info.value)


def test_lu_errors_and_dtypes():
    # TF 2.21: singular or NaN pivots raise; a non-square or vector input, int32 and
    # float16 are refused; p is int32 unless output_idx_type says int64.
    _raises(tf.errors.InvalidArgumentError, "Input is not invertible. [Op:Lu]",
            lambda: tf.linalg.lu([[0., 1], [0, 2]]))
    _raises(tf.errors.InvalidArgumentError, "Input is not invertible.",
            lambda: tf.linalg.lu([[np.nan, 1.], [2, 3]]))
    _raises(tf.errors.InvalidArgumentError, "Input matrix must be square.",
            lambda: tf.linalg.lu(np.ones((2, 3))))
    _raises(tf.errors.InvalidArgumentError, "must have rank >= 2, got 1",
            lambda: tf.linalg.lu(np.ones(3)))
    _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of int32",
            lambda: tf.linalg.lu(np.ones((3, 3), np.int32)))
    _raises(tf.errors.NotFoundError, "Lu[T=DT_HALF, output_idx_type=DT_INT32]",
            lambda: tf.linalg.lu(np.ones((3, 3), np.float16)))
    lu, p = tf.linalg.lu(np.zeros((2, 0, 0)))
    assert lu.shape == (2, 0, 0) and p.shape == (2, 0) and p.dtype == tf.int32


def test_lu_has_no_gradient_as_tf():
    x = tf.constant([[1., 2], [3, 4]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.lu(x).lu)
    _raises(LookupError, "gradient registry has no entry for: Lu", lambda: tape.gradient(y, x))


def test_lu_solve_static_errors():
    lu, p = tf.linalg.lu(np.array([[1., 2, 3], [4, 5, 6], [7, 8, 10]]))
    _raises(ValueError, "Input `rhs` must have at least 2 dimensions.",
            lambda: tf.linalg.lu_solve(lu, p, np.ones(3)))
    _raises(ValueError, "`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.",
            lambda: tf.linalg.lu_solve(lu, p, np.ones((2, 3))))
    _raises(ValueError, "`rank(lower_upper)` must equal `rank(perm) + 1`",
            lambda: tf.linalg.lu_reconstruct(lu, p[None]))
    _raises(ValueError, "`lower_upper` must be square.",
            lambda: tf.linalg.lu_reconstruct(lu[:2], p))
    _raises(tf.errors.InvalidArgumentError, "cannot compute MatrixTriangularSolve",
            lambda: tf.linalg.lu_solve(lu, p, tf.ones((3, 1), tf.float32)))


def test_cross_errors():
    _raises(tf.errors.InvalidArgumentError, "Both inputs must be of same shape: [1,3] vs. [3]",
            lambda: tf.linalg.cross([[1., 2, 3]], [4., 5, 6]))
    _raises(tf.errors.FailedPreconditionError, "only defined for 3-element vectors",
            lambda: tf.linalg.cross(np.ones((2, 4)), np.ones((2, 4))))
    _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of complex64",
            lambda: tf.linalg.cross(np.ones(3, np.complex64), np.ones(3, np.complex64)))
    _raises(tf.errors.InvalidArgumentError, "Input must be at least 1D[]",
            lambda: tf.linalg.cross(np.ones(()), np.ones(())))
    assert tf.linalg.cross(np.ones(3, np.uint8), np.ones(3, np.uint8)).dtype == tf.uint8


def test_normalize_and_matrix_rank_errors():
    _raises(ValueError, "'ord' must be a supported vector norm, got fro",
            lambda: tf.linalg.normalize([3., 4], ord="fro"))
    _raises(ValueError, "Input `a` must have at least 2 dimensions (saw: 1).",
            lambda: tf.linalg.matrix_rank([1., 2]))
    _raises(TypeError, "Input `a` must have `float`-like `dtype` (saw complex128).",
            lambda: tf.linalg.matrix_rank(tf.constant([[1 + 1j, 2], [2, 4]])))
    # Python ints convert to float32 first (TF's dtype_hint): no error.
    assert int(tf.linalg.matrix_rank([[1, 2], [2, 4]])) == 1


def test_sqrtm_logm_errors_and_names():
    assert tf.matrix_square_root is tf.linalg.sqrtm
    _raises(tf.errors.NotFoundError, "MatrixSquareRoot[T=DT_HALF]",
            lambda: tf.linalg.sqrtm(np.eye(2, dtype=np.float16)))
    _raises(tf.errors.InvalidArgumentError, "Input matrix must be square.",
            lambda: tf.linalg.sqrtm(np.ones((2, 3))))
    # TF's MatrixLogarithm takes complex only, and registers no gradient.
    _raises(tf.errors.InvalidArgumentError, "allowed values: complex64, complex128",
            lambda: tf.linalg.logm(np.eye(2)))
    x = tf.constant(np.eye(2, dtype=np.complex128) * 2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.real(tf.reduce_sum(tf.linalg.logm(x)))
    _raises(LookupError, "no entry for: MatrixLogarithm", lambda: tape.gradient(y, x))


def test_eig_errors_and_dtypes():
    assert tf.eig is tf.linalg.eig and tf.eigvals is tf.linalg.eigvals
    e, v = tf.linalg.eig(np.eye(2, dtype=np.float32))
    assert e.dtype == tf.complex64 and v.dtype == tf.complex64
    # TF's wrapper has no output dtype for other inputs: its UnboundLocalError.
    _raises(UnboundLocalError, "out_dtype", lambda: tf.linalg.eig(tf.constant([[1, 2], [3, 4]])))
    _raises(tf.errors.InvalidArgumentError, "Eigen decomposition was not successful.",
            lambda: tf.linalg.eig(np.array([[np.nan, 1], [0, 1]])))


def test_tensor_diag_errors():
    _raises(tf.errors.InvalidArgumentError, "Input must be at least rank 1, got 0 [Op:Diag]",
            lambda: tf.linalg.tensor_diag(3.))
    _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of bool",
            lambda: tf.linalg.tensor_diag([True]))
    _raises(tf.errors.InvalidArgumentError, "Invalid shape [2,3]: dimensions 0 and 1 do not",
            lambda: tf.linalg.tensor_diag_part(np.ones((2, 3))))
    _raises(tf.errors.InvalidArgumentError, "even and positive, got shape [2,2,2]",
            lambda: tf.linalg.tensor_diag_part(np.ones((2, 2, 2))))
    assert float(tf.linalg.tensor_diag_part(np.float32(3))) == 3.0


def test_tridiagonal_errors():
    d, r = tf.ones((3, 3)), tf.ones((3, 2))
    _raises(ValueError, "partial_pivoting must be True if perturb_singular is.",
            lambda: tf.linalg.tridiagonal_solve(d, r, perturb_singular=True,
                                                partial_pivoting=False))
    _raises(ValueError, "Unrecognized diagonals_format: bad",
            lambda: tf.linalg.tridiagonal_solve(d, r, diagonals_format="bad"))
    _raises(ValueError, "Expected 3 diagonals got 2", lambda: tf.linalg.tridiagonal_solve(d[:2], r))
    _raises(ValueError, "left-hand sided and right-hand sides to be equal, got 3 and 2",
            lambda: tf.linalg.tridiagonal_solve(d, r[:2]))
    _raises(ValueError, "Batch shapes (2,) and (4,) are incompatible",
            lambda: tf.linalg.tridiagonal_solve(tf.ones((2, 3, 3)), tf.ones((4, 3, 2))))
    _raises(ValueError, "Expected superdiagonal to be have length 3 or 2, got 1.",
            lambda: tf.linalg.tridiagonal_solve([d[0, :1], d[1], d[2]], r,
                                                diagonals_format="sequence"))
    _raises(ValueError, "Expected diagonals to be a sequence of length 3.",
            lambda: tf.linalg.tridiagonal_solve((d[0], d[1]), r, diagonals_format="sequence"))
    _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of half",
            lambda: tf.linalg.tridiagonal_solve(tf.cast(d, tf.float16), tf.cast(r, tf.float16)))
    _raises(tf.errors.InvalidArgumentError, "was expected to be a float tensor but is a double",
            lambda: tf.linalg.tridiagonal_solve(d, tf.cast(r, tf.float64)))
    _raises(tf.errors.InvalidArgumentError, "All input tensors must have the same rank.",
            lambda: tf.linalg.tridiagonal_matmul(d, r[:, 0]))
    # A zero pivot gives NaN (TF's CPU kernel logs a warning), a 1x1 zero too.
    assert np.isnan(tf.linalg.tridiagonal_solve([[1.], [0.], [2.]], tf.ones((1, 2)))).all()


def test_banded_errors():
    _raises(tf.errors.InvalidArgumentError, "In[1] ndims must be >= 2: 1",
            lambda: tf.linalg.banded_triangular_solve([[2., 3, 4]], tf.ones([3])))
    _raises(tf.errors.InvalidArgumentError, "Input matrix is not invertible.",
            lambda: tf.linalg.banded_triangular_solve([[0., 1, 1]], tf.ones([3, 1])))
    _raises(tf.errors.NotFoundError, "BandedTriangularSolve[T=DT_HALF",
            lambda: tf.linalg.banded_triangular_solve(np.ones((2, 3), np.float16),
                                                      np.ones((3, 2), np.float16)))
    # More bands than rows: the extra ones are ignored (TF 2.21: [[1], [0], [0]]).
    out = tf.linalg.banded_triangular_solve(np.ones((4, 3), np.float32), tf.ones([3, 1]))
    np.testing.assert_array_equal(out, [[1.], [0.], [0.]])


def test_eigh_tridiagonal_small_and_errors():
    # TF returns real(alpha) for n <= 1, whatever eigvals_only says.
    out = tf.linalg.eigh_tridiagonal([2.], [], eigvals_only=False)
    assert out.shape == (1,) and out.dtype == tf.float32
    _raises(ValueError, "'alpha' and 'beta' must have the same type.",
            lambda: tf.linalg.eigh_tridiagonal(np.ones(3), np.ones(2, np.float32)))


def test_eigh_tridiagonal_complex_vectors_solve_the_matrix():
    alpha, beta = np.array([1 + 0j, 2, 3]), np.array([1j, 1 + 1j])
    e, v = tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    t = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta.conj(), -1)
    assert v.dtype == tf.complex128 and e.dtype == tf.float64
    np.testing.assert_allclose(t @ v.numpy(), v.numpy() * e.numpy(), atol=1e-12)


class _Matrix:
    """The parts of a LinearOperator that conjugate_gradient reads."""
    is_self_adjoint = True
    is_positive_definite = True
    batch_shape = ()

    def __init__(self, m):
        self.m = tf.constant(m)

    def matvec(self, x):
        return tf.linalg.matvec(self.m, x)


def test_conjugate_gradient():
    m = np.array([[4., 1], [1, 3]])
    state = tf.linalg.experimental.conjugate_gradient(_Matrix(m), np.array([1., 2]))
    assert int(state.i) == 2 and state.i.dtype == tf.int32
    np.testing.assert_allclose(state.x, np.linalg.solve(m, [1., 2]), rtol=1e-12)

    class NotPD(_Matrix):
        is_positive_definite = False
    _raises(ValueError, "Expected a self-adjoint, positive definite operator.",
            lambda: tf.linalg.experimental.conjugate_gradient(NotPD(m), np.array([1., 2])))
