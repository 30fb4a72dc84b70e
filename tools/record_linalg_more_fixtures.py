"""Records TensorFlow 2.21's answers to the tf.linalg cases of CASES below (lu and its
solves, cross, normalize, matrix_rank, sqrtm, logm, eig/eigvals invariants, tensor_diag,
tridiagonal_solve/matmul, banded_triangular_solve, eigh_tridiagonal, and gradients) into
tests/ops/fixtures/linalg_more.json; tests/ops/test_linalg_more.py runs the same cases on
tapeflow. Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_linalg_more_fixtures.py

A case is `f(tf) -> tensor or tuple of tensors`; each output is stored as dtype, shape and
values (complex as [real, imag]). Eigenvectors are defined up to a phase, so the eig cases
return invariants (|v|, A v - v e), not v itself.
"""

from __future__ import annotations

import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "ops", "fixtures", "linalg_more.json")

_rng = np.random.default_rng(2021)
A3 = np.array([[1., 2, 3], [4, 5, 6], [7, 8, 10]])
R5 = _rng.standard_normal((5, 5))
R20 = _rng.standard_normal((20, 20))
B245 = _rng.standard_normal((2, 4, 5, 5))
NONSYM = np.array([[1., 2, 0], [-2, 1, 1], [0, 0.5, 3]])
SPD = np.array([[4., 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]])
TRI = _rng.standard_normal((2, 3, 6))
TRI[:, 1] += 3.0   # diagonally dominant: no pivoting either way
TRI_PIV = _rng.standard_normal((2, 3, 7))   # pivots
RHS = _rng.standard_normal((2, 6, 2))
RHS7 = _rng.standard_normal((2, 7, 3))
BANDS = _rng.standard_normal((3, 5))
BANDS[0] += 3.0
BANDS_UP = _rng.standard_normal((2, 3, 5))
BANDS_UP[:, -1] += 3.0
ALPHA = _rng.standard_normal(8)
BETA = _rng.standard_normal(7)


def _c(tf, x, dtype="float64"):
    return tf.constant(np.asarray(x), dtype=getattr(tf, dtype))


def _grad(tf, f, *xs):
    """The gradients of sum(f(*xs) * w) (w a fixed pattern), for each input."""
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
        w = tf.cast(tf.reshape(tf.range(tf.size(y)) % 5 + 1, tf.shape(y)), y.dtype)
        loss = tf.reduce_sum(y * w)
        loss = tf.math.real(loss) if loss.dtype.is_complex else loss
    return tuple(tape.gradient(loss, xs))


def _eig_invariants(tf, a, dtype="float64"):
    e, v = tf.linalg.eig(_c(tf, a, dtype))
    m = tf.cast(_c(tf, a, dtype), e.dtype)
    residual = tf.reduce_max(tf.abs(tf.matmul(m, v) - v * e[..., None, :]))
    return e, tf.abs(v), tf.cast(residual < 1e-4, tf.int32)


CASES = {
    # lu: packed factors and the permutation (float32 to the bit: Eigen's unblocked LU).
    "lu_f64": lambda tf: tuple(tf.linalg.lu(_c(tf, A3))),
    "lu_f32": lambda tf: tuple(tf.linalg.lu(_c(tf, R5, "float32"))),
    "lu_c128": lambda tf: tuple(tf.linalg.lu(_c(tf, R5 + 1j * R5.T, "complex128"))),
    "lu_batch_i64": lambda tf: tuple(tf.linalg.lu(_c(tf, B245), output_idx_type=tf.int64)),
    "lu_blocked_f64": lambda tf: tuple(tf.linalg.lu(_c(tf, R20))),
    "lu_inf": lambda tf: tuple(tf.linalg.lu(_c(tf, [[np.inf, 1.], [2, 3]]))),
    "lu_solve": lambda tf: tf.linalg.lu_solve(*tf.linalg.lu(_c(tf, B245)), _c(tf, B245[..., :2])),
    "lu_solve_broadcast": lambda tf: tf.linalg.lu_solve(*tf.linalg.lu(_c(tf, A3)),
                                                        _c(tf, np.ones((2, 3, 1)))),
    "lu_reconstruct": lambda tf: tf.linalg.lu_reconstruct(*tf.linalg.lu(_c(tf, B245))),
    "lu_matrix_inverse": lambda tf: tf.linalg.lu_matrix_inverse(*tf.linalg.lu(_c(tf, R5))),
    "lu_solve_grad": lambda tf: _grad(tf, lambda a, b: tf.linalg.lu_solve(*tf.linalg.lu(
        tf.stop_gradient(a)), b) + tf.linalg.lu_reconstruct(a, [1, 0, 2])[..., :1], A3,
        np.ones((3, 1))),
    # cross
    "cross": lambda tf: tf.linalg.cross(_c(tf, R5[:2, :3]), _c(tf, R5[2:4, :3])),
    "cross_int": lambda tf: tf.linalg.cross(tf.constant([[1, 2, 3]]), tf.constant([[4, 5, 7]])),
    "cross_grad": lambda tf: _grad(tf, tf.linalg.cross, R5[:2, :3], R5[2:4, :3]),
    # normalize, matrix_rank
    "normalize": lambda tf: tf.linalg.normalize(_c(tf, R5[:2, :3], "float32"), axis=1),
    "normalize_ord1_matrix": lambda tf: tf.linalg.normalize(_c(tf, R5), ord=1, axis=[0, 1]),
    "normalize_inf": lambda tf: tf.linalg.normalize(_c(tf, R5[0]), ord=np.inf),
    "normalize_complex": lambda tf: tf.linalg.normalize(_c(tf, R5[0] + 1j * R5[1], "complex64")),
    "matrix_rank": lambda tf: tf.linalg.matrix_rank(_c(tf, [[1., 2], [2, 4]])),
    "matrix_rank_batch": lambda tf: tf.linalg.matrix_rank(
        _c(tf, np.stack([R5, np.outer(R5[0], R5[1]), np.zeros((5, 5))]), "float32")),
    "matrix_rank_tol": lambda tf: tf.linalg.matrix_rank(_c(tf, [[1., 2], [2, 4.01]]), tol=0.1),
    # sqrtm (real: NaN for a negative eigenvalue, as Eigen's real Schur method), logm
    "sqrtm": lambda tf: tf.linalg.sqrtm(_c(tf, SPD)),
    "sqrtm_f32": lambda tf: tf.linalg.sqrtm(_c(tf, SPD, "float32")),
    "sqrtm_complex_pair": lambda tf: tf.linalg.sqrtm(_c(tf, [[1., -2, 0], [2, 1, 0], [0, 0, 4]])),
    "sqrtm_c128": lambda tf: tf.linalg.sqrtm(_c(tf, SPD + 0.5j * NONSYM, "complex128")),
    "sqrtm_batch": lambda tf: tf.matrix_square_root(_c(tf, np.stack([SPD, 2 * SPD]))),
    "sqrtm_negative": lambda tf: tf.linalg.sqrtm(_c(tf, [[-1., 0], [0, 1]])),
    "sqrtm_nilpotent": lambda tf: tf.linalg.sqrtm(_c(tf, [[0., 1], [0, 0]])),
    "sqrtm_grad": lambda tf: _grad(tf, tf.linalg.sqrtm, SPD),
    "logm": lambda tf: tf.linalg.logm(_c(tf, SPD, "complex128")),
    "logm_c64": lambda tf: tf.linalg.logm(_c(tf, SPD + 0.5j * NONSYM, "complex64")),
    "logm_negative": lambda tf: tf.linalg.logm(_c(tf, [[-1., 0], [0, 1]], "complex128")),
    # eig: values sorted by |e|; vectors through phase invariants
    "eig_nonsym": lambda tf: _eig_invariants(tf, NONSYM),
    "eig_f32": lambda tf: _eig_invariants(tf, NONSYM, "float32"),
    "eig_c64": lambda tf: _eig_invariants(tf, NONSYM + 1j * NONSYM.T, "complex64"),
    "eig_batch": lambda tf: _eig_invariants(tf, B245[0]),
    "eigvals": lambda tf: tf.eigvals(_c(tf, NONSYM)),
    "eig_grad_values": lambda tf: _grad(tf, lambda a: tf.math.real(tf.linalg.eigvals(a)), NONSYM),
    "eig_grad_abs_vectors": lambda tf: _grad(tf, lambda a: tf.abs(tf.linalg.eig(a)[1]), NONSYM),
    "eig_grad_complex": lambda tf: _grad(tf, lambda a: tf.linalg.eig(a)[0] * [1, 2j, 3] + tf.cast(
        tf.abs(tf.linalg.eig(a)[1][0]), tf.complex128), NONSYM + 0.3j * NONSYM.T),
    # tensor_diag, tensor_diag_part
    "tensor_diag": lambda tf: tf.linalg.tensor_diag(_c(tf, R5[:2, :3], "float32")),
    "tensor_diag_part": lambda tf: tf.linalg.tensor_diag_part(_c(tf, np.arange(36.).reshape(
        2, 3, 2, 3))),
    # tridiagonal
    "tridiagonal_solve": lambda tf: tf.linalg.tridiagonal_solve(_c(tf, TRI), _c(tf, RHS)),
    "tridiagonal_solve_f32_pivot": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI_PIV, "float32"), _c(tf, RHS7, "float32")),
    "tridiagonal_solve_thomas": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI_PIV), _c(tf, RHS7), partial_pivoting=False),
    "tridiagonal_solve_perturb": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, [[1., 1, 0], [1, 1, 1], [0, 1, 1]]), _c(tf, [[1.], [2], [3]]),
        perturb_singular=True),
    "tridiagonal_solve_perturb_regular": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI_PIV), _c(tf, RHS7), perturb_singular=True),
    "tridiagonal_solve_singular_nan": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, [[1., 2, 3], [4, 5, 6], [7, 8, 9]]), _c(tf, [[1.], [2], [3]])),
    "tridiagonal_solve_vector": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI), _c(tf, RHS[..., 0])),
    "tridiagonal_solve_transpose_rhs": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI), _c(tf, np.swapaxes(RHS, -1, -2)), transpose_rhs=True),
    "tridiagonal_solve_sequence": lambda tf: tf.linalg.tridiagonal_solve(
        [_c(tf, TRI[0, 0, :-1]), _c(tf, TRI[0, 1]), _c(tf, TRI[0, 2, 1:])], _c(tf, RHS[0]),
        diagonals_format="sequence"),
    "tridiagonal_solve_matrix": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, np.diag(TRI[0, 1]) + np.diag(TRI[0, 0, :-1], 1) + np.diag(TRI[0, 2, 1:], -1)
           + np.diag(np.ones(4), 2)), _c(tf, RHS[0]), diagonals_format="matrix"),
    "tridiagonal_solve_complex": lambda tf: tf.linalg.tridiagonal_solve(
        _c(tf, TRI + 0.5j * TRI_PIV[..., :6], "complex128"), _c(tf, RHS + 1j, "complex128"),
        conjugate_rhs=True),
    "tridiagonal_solve_grad": lambda tf: _grad(tf, tf.linalg.tridiagonal_solve, TRI, RHS),
    "tridiagonal_matmul": lambda tf: tf.linalg.tridiagonal_matmul(_c(tf, TRI), _c(tf, RHS)),
    "tridiagonal_matmul_sequence": lambda tf: tf.linalg.tridiagonal_matmul(
        [_c(tf, TRI[0, 0]), _c(tf, TRI[0, 1]), _c(tf, TRI[0, 2])], _c(tf, RHS[0]),
        diagonals_format="sequence"),
    "tridiagonal_matmul_grad": lambda tf: _grad(tf, tf.linalg.tridiagonal_matmul, TRI, RHS),
    # banded_triangular_solve
    "banded_lower": lambda tf: tf.linalg.banded_triangular_solve(_c(tf, BANDS), _c(tf, RHS[0, :5])),
    "banded_lower_adjoint": lambda tf: tf.linalg.banded_triangular_solve(
        _c(tf, BANDS), _c(tf, RHS[0, :5]), adjoint=True),
    "banded_upper_batch": lambda tf: tf.linalg.banded_triangular_solve(
        _c(tf, BANDS_UP), _c(tf, RHS[0, :5]), lower=False),
    "banded_grad": lambda tf: _grad(tf, tf.linalg.banded_triangular_solve, BANDS, RHS[0, :5]),
    "banded_upper_adjoint_grad": lambda tf: _grad(
        tf, lambda a, b: tf.linalg.banded_triangular_solve(a, b, lower=False, adjoint=True),
        BANDS_UP, RHS[0, :5]),
    # eigh_tridiagonal: TF's bisection, ported (eigenvectors up to sign: |v|)
    "eigh_tridiagonal": lambda tf: tf.linalg.eigh_tridiagonal(_c(tf, ALPHA), _c(tf, BETA)),
    "eigh_tridiagonal_f32": lambda tf: tf.linalg.eigh_tridiagonal(
        _c(tf, ALPHA, "float32"), _c(tf, BETA, "float32")),
    "eigh_tridiagonal_select_i": lambda tf: tf.linalg.eigh_tridiagonal(
        _c(tf, ALPHA), _c(tf, BETA), select="i", select_range=[2, 5]),
    "eigh_tridiagonal_select_v": lambda tf: tf.linalg.eigh_tridiagonal(
        _c(tf, ALPHA), _c(tf, BETA), select="v", select_range=[-1.0, 1.5]),
    "eigh_tridiagonal_complex": lambda tf: tf.linalg.eigh_tridiagonal(
        _c(tf, ALPHA, "complex128"), _c(tf, BETA + 1j * BETA[::-1], "complex128")),
    "eigh_tridiagonal_vectors": lambda tf: (lambda ev: (ev[0], tf.abs(ev[1])))(
        tf.linalg.eigh_tridiagonal(_c(tf, ALPHA), _c(tf, BETA), eigvals_only=False)),
}


def encode(value) -> dict:
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    flat = array.reshape(-1)
    parts = [flat.real, flat.imag] if array.dtype.kind == "c" else [flat]
    values = [[repr(float(v)) if array.dtype.kind in "fc" else int(v) for v in p.tolist()]
              for p in parts]
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": values}


def decode(entry: dict) -> np.ndarray:
    parts = [np.array([float(v) for v in p]) if entry["dtype"][0] in "fc" else np.array(p)
             for p in entry["values"]]
    flat = parts[0] + 1j * parts[1] if len(parts) == 2 else parts[0]
    return flat.astype(entry["dtype"]).reshape(entry["shape"])


def main() -> None:
    import tensorflow as tf
    out = {"tf_version": tf.__version__}
    for name, case in CASES.items():
        result = case(tf)
        outputs = result if isinstance(result, (tuple, list)) else [result]
        out[name] = [encode(v) for v in outputs]
    with open(OUT, "w") as f:
        json.dump(out, f)
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
