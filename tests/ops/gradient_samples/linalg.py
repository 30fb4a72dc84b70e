"""Gradient-check cases for the primitives of ops/linalg_ops.py.

Inputs are well conditioned: diagonally dominant matrices for inverses and solves, SPD
matrices built inside the case for Cholesky (so the input's upper triangle matters through
a @ a^T), symmetrized inputs with distinct eigenvalues for eigh, distinct singular values
for svd, and small norms for expm.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(808)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _well(*shape):
    """Matrices with a dominant diagonal (condition number ~ 1-3)."""
    n = shape[-1]
    return _u(-0.5, 0.5, *shape) + 2.0 * np.eye(n)


def _spd(a):
    return tf.matmul(a, a, transpose_b=True) + tf.eye(tf.shape(a)[-1], dtype=tf.float64)


def _distinct(n):
    return np.diag(np.arange(1.0, n + 1)) + _u(-0.15, 0.15, n, n)


def _tridiag(*shape):
    """Compact diagonals [..., 3, M] of diagonally dominant tridiagonal matrices."""
    d = _u(-0.5, 0.5, *shape)
    d[..., 1, :] += 2.0
    return d


def _bands(k, m, upper=False):
    """K bands of an M x M triangular matrix with a dominant diagonal."""
    b = _u(-0.5, 0.5, k, m)
    b[k - 1 if upper else 0] += 2.0
    return b


def _sym(a):
    return a + tf.linalg.matrix_transpose(a)


SAMPLES = {
    "MatrixInverse": [(lambda a: tf.linalg.inv(a), [_well(3, 3)]),
                      (lambda a: tf.linalg.inv(a, adjoint=True), [_well(2, 2, 2)])],
    "MatrixSolve": [(lambda a, b: tf.linalg.solve(a, b), [_well(3, 3), _u(-1, 1, 3, 2)]),
                    (lambda a, b: tf.linalg.solve(a, b, adjoint=True),
                     [_well(2, 3, 3), _u(-1, 1, 2, 3, 1)])],
    "MatrixDeterminant": [(lambda a: tf.linalg.det(a), [_well(3, 3)]),
                          (lambda a: tf.linalg.det(a), [_well(2, 2, 2)])],
    "LogMatrixDeterminant": [(lambda a: tf.linalg.slogdet(a)[1], [_well(3, 3)]),
                             (lambda a: tf.linalg.slogdet(-a)[1], [_well(2, 3, 3)])],
    "Cholesky": [(lambda a: tf.linalg.cholesky(_spd(a)), [_u(-1, 1, 3, 3)]),
                 (lambda a: tf.linalg.logdet(_spd(a)), [_u(-1, 1, 2, 3, 3)])],
    "MatrixTriangularSolve": [
        (lambda a, b: tf.linalg.triangular_solve(a, b, lower=True), [_well(3, 3), _u(-1, 1, 3, 2)]),
        (lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
         [_well(2, 3, 3), _u(-1, 1, 2, 3, 2)]),
        (lambda a, b: tf.linalg.cholesky_solve(tf.linalg.cholesky(_spd(a)), b),
         [_u(-1, 1, 3, 3), _u(-1, 1, 3, 1)])],
    "Qr": [(lambda a: tf.linalg.qr(a)[0] * 1.5 + tf.linalg.qr(a)[1][..., :1, :], [_u(-1, 1, 4, 3)]),
           (lambda a: tf.linalg.qr(a)[1], [_well(3, 3)]),
           (lambda a: tf.linalg.qr(a)[0] + tf.reduce_sum(tf.linalg.qr(a)[1]), [_u(-1, 1, 2, 3)])],
    "Svd": [(lambda a: tf.linalg.svd(a, compute_uv=False), [_u(-1, 1, 3, 2)]),
            (lambda a: tf.abs(tf.linalg.svd(a)[1]) + tf.reduce_sum(tf.abs(tf.linalg.svd(a)[2])),
             [_u(-1, 1, 3, 3)]),
            (lambda a: tf.abs(tf.linalg.svd(a)[2]) + tf.reduce_sum(tf.abs(tf.linalg.svd(a)[1])),
             [_u(-1, 1, 2, 4)]),
            (lambda a: tf.linalg.norm(a, ord=2, axis=[-2, -1]), [_u(-1, 1, 2, 3, 3)])],
    "SelfAdjointEigV2": [(lambda a: tf.linalg.eigh(_sym(a))[0], [_u(-1, 1, 3, 3)]),
                         (lambda a: tf.abs(tf.linalg.eigh(_sym(a))[1]), [_u(-1, 1, 2, 3, 3)])],
    "MatrixDiagPartV3": [(lambda a: tf.linalg.diag_part(a * a), [_u(-1, 1, 3, 4)]),
                         (lambda a: tf.linalg.trace(tf.sin(a)), [_u(-1, 1, 2, 3, 3)])],
    "MatrixDiagV3": [(lambda d: tf.linalg.diag(d * d), [_u(-1, 1, 2, 3)]),
                     (lambda d: tf.linalg.diag(d, k=1), [_u(-1, 1, 3)])],
    "MatrixSetDiagV3": [(lambda a, d: tf.linalg.set_diag(a * a, d * d), [_u(-1, 1, 3, 4), _u(-1, 1, 3)])],
    "MatrixBandPart": [(lambda a: tf.linalg.band_part(a * a, 1, 0), [_u(-1, 1, 3, 3)]),
                       (lambda a: tf.linalg.band_part(a, -1, 1), [_u(-1, 1, 2, 3, 4)])],
    "Einsum": [(lambda a, b: tf.einsum("ij,jk->ik", a, b), [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2)]),
               (lambda a, b: tf.einsum("bij,bkj->bik", a * a, b), [_u(-1, 1, 2, 2, 3), _u(-1, 1, 2, 2, 3)]),
               (lambda a, b: tf.einsum("ij,k->j", a, b), [_u(-1, 1, 2, 3), _u(-1, 1, 4)]),
               (lambda a, b: tf.tensordot(a, b, axes=1), [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2)]),
               (lambda a, b, c: tf.einsum("...i,ij,j->...", a, b, c),
                [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2), _u(-1, 1, 2)]),
               # A repeated index inside one operand: a diagonal, a trace, a batched one.
               (lambda a: tf.einsum("ii->i", a * a), [_u(-1, 1, 3, 3)]),
               (lambda a, b: tf.einsum("ij,jj->", a, b * b), [_u(-1, 1, 2, 3), _u(-1, 1, 3, 3)]),
               (lambda a: tf.einsum("iji->j", a * a), [_u(-1, 1, 2, 3, 2)])],
    "MatrixExponential": [(lambda a: tf.linalg.expm(a), [_u(-0.5, 0.5, 3, 3)]),
                          (lambda a: tf.linalg.expm(a), [_u(-0.5, 0.5, 2, 2, 2)])],
    "Cross": [(lambda a, b: tf.linalg.cross(a * a, b), [_u(-1, 1, 3), _u(-1, 1, 3)]),
              (lambda a, b: tf.linalg.cross(a, b), [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3)])],
    "Diag": [(lambda d: tf.linalg.tensor_diag(d * d), [_u(-1, 1, 3)]),
             (lambda d: tf.linalg.tensor_diag(d), [_u(-1, 1, 2, 2)])],
    "DiagPart": [(lambda a: tf.linalg.tensor_diag_part(a * a), [_u(-1, 1, 3, 3)]),
                 (lambda a: tf.linalg.tensor_diag_part(a), [_u(-1, 1, 2, 2, 2, 2)])],
    # sqrtm of matrices near 2I (eigenvalues well inside the right half-plane).
    "MatrixSquareRoot": [(lambda a: tf.linalg.sqrtm(a), [_well(3, 3)]),
                         (lambda a: tf.linalg.sqrtm(a * a), [_well(2, 2, 2)])],
    # eig of matrices with distinct real eigenvalues (a diagonal 1, 2, 3, ... plus a small
    # non-symmetric part): the order by |e| and the eigenvectors are smooth there. The
    # eigenvectors enter through |v|^2, which does not depend on their phase.
    "Eig": [(lambda a: tf.math.real(tf.linalg.eigvals(a)), [_distinct(3)]),
            (lambda a: tf.math.real(tf.linalg.eig(a)[1] * tf.math.conj(tf.linalg.eig(a)[1])),
             [_distinct(3)]),
            (lambda a, b: tf.math.imag(tf.linalg.eigvals(tf.complex(a, b)) ** 2),
             [_distinct(3), _u(-0.1, 0.1, 3, 3)])],
    "TridiagonalSolve": [
        (lambda d, r: tf.linalg.tridiagonal_solve(d, r), [_tridiag(3, 4), _u(-1, 1, 4, 2)]),
        (lambda d, r: tf.linalg.tridiagonal_solve(d, r, partial_pivoting=False),
         [_tridiag(2, 3, 4), _u(-1, 1, 2, 4, 1)])],
    "TridiagonalMatMul": [
        (lambda d, r: tf.linalg.tridiagonal_matmul(d, r), [_u(-1, 1, 3, 4), _u(-1, 1, 4, 2)]),
        (lambda d, r: tf.linalg.tridiagonal_matmul(d * d, r * r), [_u(-1, 1, 2, 3, 3), _u(-1, 1, 2, 3, 2)])],
    "BandedTriangularSolve": [
        (lambda a, b: tf.linalg.banded_triangular_solve(a, b), [_bands(2, 4), _u(-1, 1, 4, 2)]),
        (lambda a, b: tf.linalg.banded_triangular_solve(a, b, lower=False, adjoint=True),
         [_bands(3, 4, upper=True), _u(-1, 1, 4, 1)])],
}
