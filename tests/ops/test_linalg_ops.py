"""tf.linalg: values, output structures, errors and gradients checked against TensorFlow 2.21.
(Finite-difference checks of every rule are in test_gradient_registry.py.)"""

import re

import numpy as np
import pytest

import tapeflow as tf
from _support import grad

A = [[4., 1.], [2., 3.]]
S = [[1., 2.], [2., 4.]]          # singular
R = [[1., 2., 3.], [4., 5., 6.]]


def test_inverse_solve_and_their_errors():
    np.testing.assert_allclose(tf.linalg.inv(A).numpy(), np.linalg.inv(A), rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.solve(A, [[1.], [2.]]).numpy(), np.linalg.solve(A, [[1.], [2.]]), rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input is not invertible. \[Op:MatrixInverse\]"):
        tf.linalg.inv(S)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input matrix must be square. \[Op:MatrixInverse\]"):
        tf.linalg.inv(R)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input matrix is not invertible. \[Op:MatrixSolve\]"):
        tf.linalg.solve(S, [[1.], [2.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"incompatible. \[Op:MatrixSolve\]"):
        tf.linalg.solve(A, [[1.], [2.], [3.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of int32 is not in the list of allowed values"):
        tf.linalg.inv([[1, 2], [3, 4]])


def test_determinants():
    np.testing.assert_allclose(tf.linalg.det(A).numpy(), 10., rtol=1e-6)
    sign, logabs = tf.linalg.slogdet(A)
    assert type(tf.linalg.slogdet(A)).__name__ == "LogMatrixDeterminant"
    np.testing.assert_allclose([sign.numpy(), logabs.numpy()], [1., 2.3025851], rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.logdet([[2., 1.], [1., 2.]]).numpy(), 1.0986123, rtol=1e-6)
    np.testing.assert_allclose(grad(tf.linalg.det, [[2., 1.], [1., 3.]]), [[3., -1.], [-1., 2.]])


def test_cholesky_family():
    spd = [[2., 1.], [1., 2.]]
    chol = tf.linalg.cholesky(spd)
    np.testing.assert_allclose(chol.numpy(), np.linalg.cholesky(spd), rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(chol, [[1.], [2.]]).numpy(), [[0.], [1.]], atol=1e-6)
    # Not positive definite: NaNs in the lower triangle, no error (as TensorFlow).
    bad = tf.linalg.cholesky([[1., 2.], [2., 1.]]).numpy()
    assert np.isnan(bad[1, 0]) and bad[0, 1] == 0
    np.testing.assert_allclose(
        grad(lambda x: tf.linalg.cholesky(x) * tf.constant([[1., 0], [2., 3.]], tf.float64), [[4., 2.], [2., 3.]]),
        [[0.265165, -0.03033], [-0.03033, 1.06066]], atol=1e-6)


def test_triangular_solve_reads_one_triangle():
    np.testing.assert_allclose(tf.linalg.triangular_solve(A, [[1.], [2.]], lower=True).numpy(), [[0.25], [0.5]])
    np.testing.assert_allclose(tf.linalg.triangular_solve(A, [[1.], [2.]], lower=False, adjoint=True).numpy(),
                               [[0.25], [0.5833333]], rtol=1e-6)


def test_factorization_structures():
    q, r = tf.linalg.qr(R)
    assert type(tf.linalg.qr(R)).__name__ == "Qr" and q.shape == (2, 2) and r.shape == (2, 3)
    np.testing.assert_allclose(r.numpy()[0], [-4.1231055, -5.3357835, -6.548462], rtol=1e-5)
    qf, rf = tf.linalg.qr([[1., 2.], [3., 4.], [5., 6.]], full_matrices=True)
    assert qf.shape == (3, 3) and rf.shape == (3, 2)
    s, u, v = tf.linalg.svd(R)
    assert u.shape == (2, 2) and v.shape == (3, 2)
    np.testing.assert_allclose(s.numpy(), [9.508034, 0.77286935], rtol=1e-5)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, R, atol=1e-5)
    e, vec = tf.linalg.eigh(A)       # reads the lower triangle only: [[4, 2], [2, 3]]
    np.testing.assert_allclose(e.numpy(), [1.4384472, 5.5615525], rtol=1e-6)
    np.testing.assert_allclose(np.abs(vec.numpy()), [[0.6154122, 0.78820544], [0.78820544, 0.6154122]], rtol=1e-5)


def test_factorization_gradients_match_tensorflow():
    np.testing.assert_allclose(
        grad(lambda x: tf.linalg.eigh(x)[0] * tf.constant([1., 2.], tf.float64), [[2., 1.], [0.5, 3.]]),
        [[1.146447, 0.], [0.707107, 1.853553]], atol=1e-6)
    np.testing.assert_allclose(
        grad(lambda x: tf.linalg.svd(x, compute_uv=False), [[2., 1., 0.], [0.5, 3., 1.]]),
        [[0.982308, 0.135413, -0.12936], [-0.081866, 0.931766, 0.353709]], atol=1e-6)
    np.testing.assert_allclose(grad(tf.linalg.expm, [[0.1, 0.2], [0.3, 0.4]]),
                               [[1.451349, 1.724646], [1.583682, 1.874241]], atol=1e-6)
    np.testing.assert_allclose(grad(tf.linalg.pinv, R), [[-0.166667, 0., 0.166667], [0.166667, 0., -0.166667]],
                               atol=1e-6)


def test_diagonals_and_bands():
    assert tf.linalg.diag([1., 2.], k=1).numpy().tolist() == [[0., 1., 0.], [0., 0., 2.], [0., 0., 0.]]
    assert tf.linalg.diag([[1., 2.], [3., 4.]]).shape == (2, 2, 2)
    assert tf.linalg.diag_part(R).numpy().tolist() == [1., 5.]
    assert tf.linalg.diag_part(R, k=1).numpy().tolist() == [2., 6.]
    assert tf.linalg.set_diag(R, [7., 8.]).numpy().tolist() == [[7., 2., 3.], [4., 8., 6.]]
    assert tf.linalg.band_part(R, 0, 1).numpy().tolist() == [[1., 2., 0.], [0., 5., 6.]]
    assert float(tf.linalg.trace(R)) == 6.
    assert tf.eye(2, 3).numpy().tolist() == [[1., 0., 0.], [0., 1., 0.]]
    assert tf.linalg.matrix_transpose(tf.zeros([2, 3, 4])).shape == (2, 4, 3)


def test_norms():
    np.testing.assert_allclose(tf.linalg.norm(R, ord=2).numpy(), 9.539392, rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.norm(R, ord=2, axis=[0, 1]).numpy(), 9.508034, rtol=1e-5)
    assert float(tf.norm(R, ord=1, axis=[-2, -1])) == 9.
    wide = tf.linalg.norm(R, ord=np.inf, axis=[-2, -1], keepdims=True)
    assert wide.shape == (1, 1) and float(wide[0, 0]) == 15.
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.linalg.norm(R, ord="fro", axis=1)
    with pytest.raises(ValueError, match=r"supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got nuc"):
        tf.linalg.norm(R, ord="nuc", axis=[0, 1])
    with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple of 2 unique integers"):
        tf.norm(R, axis=[0, 1, 2])
    np.testing.assert_allclose(grad(lambda x: tf.linalg.norm(x, ord=1, axis=[0, 1]), [[1., -2.], [3., 0.5]]),
                               [[1., 0.], [1., 0.]])


def test_products():
    assert tf.linalg.matvec(R, [1., 1., 1.]).numpy().tolist() == [6., 15.]
    assert tf.tensordot(R, R, axes=[[1], [1]]).numpy().tolist() == [[14., 32.], [32., 77.]]
    assert tf.einsum("ij,kj->ik", R, R).numpy().tolist() == [[14., 32.], [32., 77.]]
    assert tf.einsum("...ij->...ji", tf.zeros([4, 2, 3])).shape == (4, 3, 2)
    assert float(tf.einsum("ii", tf.constant(A))) == 7.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension 3 at axis 1 of the input shaped \[2,2\] but got dimension 2"):
        tf.einsum("ij,kj->ik", R, A)
    np.testing.assert_allclose(
        grad(lambda x: tf.einsum("ij,j->i", x, tf.constant([1., 2.], tf.float64)), [[1., 2.], [3., 4.]]),
        [[1., 2.], [1., 2.]])
    assert tf.linalg.matmul is tf.matmul


def test_lstsq_pinv_expm_values():
    x = tf.linalg.lstsq([[1., 0.], [1., 1.], [1., 2.]], [[1.], [2.], [2.]])
    np.testing.assert_allclose(x.numpy(), [[1.1666665], [0.5]], rtol=1e-5)
    np.testing.assert_allclose(tf.linalg.pinv(R).numpy(), np.linalg.pinv(R), atol=1e-5)
    np.testing.assert_allclose(tf.linalg.expm(tf.constant(A) * 0.1).numpy(),
                               [[1.5062817, 0.1424395], [0.284879, 1.3638422]], rtol=1e-5)


@pytest.mark.parametrize("solver, op_name", [
    (tf.linalg.solve, "MatrixSolve"),
    (tf.linalg.triangular_solve, "MatrixTriangularSolve"),
    (tf.linalg.cholesky_solve, "MatrixTriangularSolve"),
    (tf.linalg.lstsq, "MatMul"),
])
def test_solvers_reject_a_rhs_of_another_dtype_as_tf(solver, op_name):
    # TF raises InvalidArgumentError naming the C++ dtypes (double/float), not a ValueError.
    a = tf.constant([[2.0, 0.0], [1.0, 3.0]], tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"cannot compute {op_name} as input #1\(zero-based\) was expected "
                             rf"to be a double tensor but is a float tensor \[Op:{op_name}\]"):
        solver(a, tf.constant([[1.0], [2.0]]))


def test_solve_takes_python_rhs_in_the_matrix_dtype():
    a = tf.constant([[2.0, 0.0], [1.0, 3.0]], tf.float64)
    x = tf.linalg.triangular_solve(a, [[1], [2]])
    assert x.dtype == tf.float64
    np.testing.assert_allclose(x.numpy(), [[0.5], [0.5]])


def test_einsum_dtype_mismatch_names_cpp_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"expected to be a double tensor but is a float tensor \[Op:Einsum\]"):
        tf.einsum("ij,jk->ik", tf.ones((2, 2), tf.float64), tf.ones((2, 2)))


# -- non-finite inputs: TensorFlow 2.21's answers (LAPACK may loop forever on inf, so each
# case runs in a subprocess with a timeout: a regression fails instead of hanging) ---------

_NONFINITE_CODE = r"""
import json, numpy as np, tapeflow as tf
f32, nan, inf = np.float32, np.nan, np.inf
def out(r):
    return [np.asarray(t).tolist() for t in r] if isinstance(r, (tuple, list)) else np.asarray(r).tolist()
a_inf = np.array([[1., inf, 0], [3., 4., 1], [0, 1, 2]], f32)
print(json.dumps({
    "svd_s": out(tf.linalg.svd(a_inf, compute_uv=False)),
    "svd_batch": out(tf.linalg.svd(np.array([[[1., nan], [1., 1.]], [[1, 2], [3, 4]]], f32),
                                   compute_uv=False)),
    "svd_uv": out(tf.linalg.svd(np.array([[1., nan], [3., 4.]], f32))),
    "norm2": out(tf.norm(a_inf, ord=2, axis=[0, 1])),
    "pinv": out(tf.linalg.pinv(np.array([[1., nan], [3., 4.]], f32))),
    "qr": out(tf.linalg.qr(a_inf)),
    "qr_wide": out(tf.linalg.qr(np.array([[1, nan, 2, 1], [3, 1, 1, 0], [0, 1, 2, 5]], f32))),
    "qr_full": out(tf.linalg.qr(np.array([[1, 2, 1], [3, inf, 1], [0, 1, 2], [1, 1, 1]], f32),
                                full_matrices=True)[0]),
    "chol_nan": out(tf.linalg.cholesky(np.array([[4., 0.], [nan, 3.]], f32))),
    "chol_inf00": out(tf.linalg.cholesky(np.array([[inf, 0.], [1., 3.]], f32))),
    "slogdet_nan": out(tf.linalg.slogdet(np.array([[1., nan], [3., 4.]], f32))),
    "slogdet_inf": out(tf.linalg.slogdet(np.array([[1., inf], [3., 4.]], f32))),
    "expm_batch": out(tf.linalg.expm(np.array([[[1., nan], [1., 1.]], [[1, 2], [3, 4]]], f32))),
    "expm_overflow": out(tf.linalg.expm(np.array([[[1e3, 0], [0., 1.]], [[1, 0], [0, 1.]]], f32))),
    "lstsq": out(tf.linalg.lstsq(np.eye(2, dtype=f32), np.array([[nan, 1], [1, 1]], f32))),
}))
"""


def _run_isolated(code: str) -> dict:
    import json
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _flat(value) -> list:
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _flat(item)]
    return [np.nan if value is None else value]


def _nan_equal(got, want):
    np.testing.assert_allclose(_flat(got), _flat(want), rtol=1e-5, atol=1e-6)


def test_lapack_ops_on_inf_and_nan_return_what_tensorflow_returns():
    got = _run_isolated(_NONFINITE_CODE)
    N = None
    want = {  # TF 2.21 (CPU)
        "svd_s": [N, N, N], "svd_batch": [[N, N], [5.4649853, 0.3659661]],
        "svd_uv": [[N, N], [[N, N], [N, N]], [[N, N], [N, N]]],
        "norm2": N, "pinv": [[N, N], [N, N]],
        "qr": [[[N, N, N], [N, N, N], [N, N, N]],
               [[-3.1622777, N, -0.9486833], [0, N, N], [0, 0, N]]],
        "qr_wide": [[[N, N, N], [N, N, N], [N, N, N]],
                    [[-3.1622777, N, -1.5811388, N], [0, N, N, N], [0, 0, N, N]]],
        "qr_full": [[-0.3015113, N, N, N], [-0.9045340, N, N, N], [0, N, N, N],
                    [-0.3015113, N, N, N]],
        "chol_nan": [[2, 0], [N, N]], "chol_inf00": [[np.inf, 0], [0, 1.7320508]],
        "slogdet_nan": [N, N], "slogdet_inf": [-1, np.inf],
        "expm_batch": [[[N, N], [N, N]], [[N, N], [N, N]]],
        "expm_overflow": [[[N, N], [N, N]], [[2.7182817, 0], [0, 2.7182817]]],
        "lstsq": [[N, 1], [N, 1]],
    }
    for key, value in want.items():
        _nan_equal(got[key], value)


def test_eigh_rejects_inf_and_nan_in_the_lower_triangle_as_tensorflow():
    code = ("import numpy as np, tapeflow as tf\n"
            "print(repr(np.asarray(tf.linalg.eigvalsh(np.array([[1., np.nan], [0., 1.]]))).tolist()))\n"
            "try:\n    tf.linalg.eigh(np.array([[1., 0, 0], [np.inf, 4., 0], [0, 1, 2]]))\n"
            "except tf.errors.InvalidArgumentError as e:\n    print(repr(str(e)))\n")
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout.splitlines()
    assert out[0] == "[1.0, 1.0]"  # the upper triangle is not read (TF: [1, 1])
    assert "Self-adjoint eigen decomposition was not successful" in out[1]


def test_triangular_solve_keeps_non_finite_values_where_substitution_takes_them():
    # TF 2.21: columns are independent; inf is not turned into NaN; singular gives inf.
    lower = np.array([[1., 0.], [1., 2.]], np.float32)
    got = tf.linalg.triangular_solve(lower, np.array([[np.inf, 1.], [2., 3.]], np.float32))
    np.testing.assert_array_equal(got.numpy(), [[np.inf, 1.], [-np.inf, 1.]])
    upper = np.array([[1., 1.], [0., 2.]], np.float32)
    got = tf.linalg.triangular_solve(upper, np.array([[np.nan, 1.], [2., 3.]], np.float32),
                                     lower=False)
    np.testing.assert_array_equal(got.numpy(), [[np.nan, -0.5], [1., 1.5]])
    got = tf.linalg.triangular_solve(np.array([[1., 0.], [0., 2.]], np.float32),
                                     np.array([[np.nan], [2.]], np.float32), lower=False)
    np.testing.assert_array_equal(got.numpy(), [[np.nan], [1.]])
    got = tf.linalg.triangular_solve(np.array([[0., 0.], [1., 2.]], np.float32),
                                     np.ones((2, 1), np.float32))
    np.testing.assert_array_equal(got.numpy(), [[np.inf], [-np.inf]])
    got = tf.linalg.triangular_solve(np.array([[1., 0.], [np.inf, 2.]], np.float32),
                                     np.ones((2, 1), np.float32))
    np.testing.assert_array_equal(got.numpy(), [[1.], [-np.inf]])
    got = tf.linalg.cholesky_solve(lower, np.array([[np.inf, 1.], [2., 3.]], np.float32))
    np.testing.assert_array_equal(got.numpy(), [[np.inf, 0.5], [-np.inf, 0.5]])


def test_svd_of_a_complex_matrix_has_real_singular_values():
    s = tf.linalg.svd(np.array([[1., 2j], [1., 1.]], np.complex64), compute_uv=False)
    assert s.dtype == tf.float32   # TF 2.21
    np.testing.assert_allclose(s.numpy(), [2.4884901, 0.8985643], rtol=1e-5)


def test_einsum_gradient_through_a_repeated_index():
    # TF 2.21's gradients of sum(einsum(eq, x) ** 2).
    x = tf.constant(np.arange(9.).reshape(3, 3))
    x3 = tf.constant(np.arange(8.).reshape(2, 2, 2))
    for eq, value, want in [
            ("ii->i", x, [[0, 0, 0], [0, 8, 0], [0, 0, 16]]),
            ("ii->", x, [[24, 0, 0], [0, 24, 0], [0, 0, 24]]),
            ("ii", x, [[24, 0, 0], [0, 24, 0], [0, 0, 24]]),
            ("iij->ij", x3, [[[0, 2], [0, 0]], [[0, 0], [12, 14]]]),
            ("iij->j", x3, [[[12, 16], [0, 0]], [[0, 0], [12, 16]]]),
            ("iji->j", x3, [[[10, 0], [18, 0]], [[0, 10], [0, 18]]])]:
        np.testing.assert_allclose(grad(lambda v, eq=eq: tf.reduce_sum(tf.einsum(eq, v) ** 2), value),
                                   want, err_msg=eq)
    w = tf.constant(np.arange(6.).reshape(2, 3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(tf.einsum("ij,jj->i", w, x) ** 2)
        first = inner.gradient(loss, x)
        second = outer.gradient(tf.reduce_sum(first * first), x)
    np.testing.assert_allclose(first.numpy(), np.diag([336., 488., 640.]))
    np.testing.assert_allclose(second.numpy(), np.diag([73920., 105632., 137344.]))


# -- dtypes TF has no kernel for, and TF's float16 inv/qr (answers of TF 2.21) ---------------

H = np.array([[2., 0.5], [0.5, 3.]], np.float16)


@pytest.mark.parametrize("fn, node", [
    (tf.linalg.det, "MatrixDeterminant[T=DT_HALF]"),
    (lambda x: tf.linalg.solve(x, x, adjoint=True), "MatrixSolve[T=DT_HALF, adjoint=true]"),
    (tf.linalg.cholesky, "Cholesky[T=DT_HALF]"), (tf.linalg.logdet, "Cholesky[T=DT_HALF]"),
    (lambda x: tf.linalg.cholesky_solve(x, x), "MatrixTriangularSolve[T=DT_HALF, adjoint=false, lower=true]"),
    (lambda x: tf.linalg.triangular_solve(x, x, lower=False, adjoint=True),
     "MatrixTriangularSolve[T=DT_HALF, adjoint=true, lower=false]"),
    (tf.linalg.svd, "Svd[T=DT_HALF, compute_uv=true, full_matrices=false]"),
    (lambda x: tf.linalg.svd(x, compute_uv=False), "Svd[T=DT_HALF, compute_uv=false, full_matrices=false]"),
    (tf.linalg.pinv, "Svd[T=DT_HALF, compute_uv=true, full_matrices=false]"),
    (lambda x: tf.norm(x, ord=2, axis=[0, 1]), "Svd[T=DT_HALF, compute_uv=false, full_matrices=false]"),
    (tf.linalg.eigh, "SelfAdjointEigV2[T=DT_HALF, compute_v=true]"),
    (tf.linalg.eigvalsh, "SelfAdjointEigV2[T=DT_HALF, compute_v=false]"),
    (tf.linalg.slogdet, "LogMatrixDeterminant[T=DT_HALF]"),
    (tf.linalg.expm, "MatrixSolve[T=DT_HALF, adjoint=false]"),
    (lambda x: tf.linalg.lstsq(x, x), "Cholesky[T=DT_HALF]"),
])
def test_float16_has_no_kernel_for_most_linalg_ops(fn, node):
    with pytest.raises(tf.errors.NotFoundError, match=re.escape(f"= {node}")):
        fn(tf.constant(H))


def test_float16_kernel_lookup_comes_before_shape_checks():
    with pytest.raises(tf.errors.NotFoundError, match="Svd"):
        tf.linalg.svd(tf.zeros([2], tf.float16))
    with pytest.raises(tf.errors.NotFoundError, match="MatrixDeterminant"):
        tf.linalg.det(tf.zeros([2, 3], tf.float16))


def test_float16_inv_and_qr_as_tf():
    inv = tf.linalg.inv(tf.constant([[1., 2.], [3., 4.]], tf.float16))
    assert inv.dtype == tf.float16
    np.testing.assert_array_equal(inv.numpy(), [[-2., 1.], [1.5, -0.5]])
    assert np.isinf(tf.linalg.inv(tf.constant([[1e-5, 0.], [0., 1.]], tf.float16)).numpy()[0, 0])
    q, r = tf.linalg.qr(tf.constant([[1., 2.], [3., 4.]], tf.float16))
    assert q.dtype == r.dtype == tf.float16
    np.testing.assert_allclose(q.numpy(), [[-0.3164, -0.948], [-0.948, 0.317]], atol=2e-3)
    np.testing.assert_allclose(r.numpy(), [[-3.162, -4.43], [0., -0.629]], atol=2e-3)
    # Eigen's QR runs in half precision: the column norm overflows, as in TF.
    q, r = tf.linalg.qr(tf.constant([[6e4, 6e4], [6e4, 1.]], tf.float16))
    assert np.isnan(q.numpy()).all() and r.numpy()[0, 0] == -np.inf and np.isnan(r.numpy()[:, 1]).all()
    x = tf.constant([[1., 2.], [3., 4.]], tf.float16)
    with tf.GradientTape() as tape:
        tape.watch(x)
        r = tf.linalg.qr(x)[1]
    with pytest.raises(tf.errors.NotFoundError, match="MatrixTriangularSolve"):
        tape.gradient(r, x)   # TF's rule solves with r: no float16 kernel


def test_float16_expm_of_nonfinite_or_empty_input_is_computed():
    out = tf.linalg.expm(tf.constant([[np.nan, 1.], [1., 1.]], tf.float16))
    assert out.dtype == tf.float16 and np.isnan(out.numpy()).all()
    assert tf.linalg.expm(tf.zeros([0, 2, 2], tf.float16)).shape == (0, 2, 2)


def test_integer_expm_and_pinv_errors():
    with pytest.raises(ValueError, match="tf.linalg.expm does not support matrices of type"):
        tf.linalg.expm(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Abs\]"):
        tf.linalg.expm(tf.constant([[1, 2], [3, 4]], tf.uint8))
    with pytest.raises(TypeError, match=r"Input `a` must have `float`-like `dtype` \(saw int64\)"):
        tf.linalg.pinv(tf.constant([[1, 2]], tf.int64))


@pytest.mark.parametrize("dtype, batched, error, node", [
    (tf.uint8, False, tf.errors.NotFoundError, "MatMul[T=DT_UINT8"),
    (tf.uint16, True, tf.errors.NotFoundError, "BatchMatMulV2[T=DT_UINT16, adj_x=true"),
    (tf.int8, True, tf.errors.InvalidArgumentError, "BatchMatMulV2"),
    (tf.int16, False, tf.errors.InvalidArgumentError, "MatMul"),
])
def test_matvec_dtypes_without_kernel(dtype, batched, error, node):
    a = tf.ones([1, 2, 2] if batched else [2, 2], dtype)
    with pytest.raises(error, match=re.escape(node)):
        tf.linalg.matvec(a, tf.ones([2], dtype), adjoint_a=batched)


def test_int16_batched_matvec_is_computed():
    out = tf.linalg.matvec(tf.ones([1, 2, 2], tf.int16), tf.ones([2], tf.int16))
    assert out.dtype == tf.int16 and out.numpy().tolist() == [[2, 2]]


def test_tensordot_and_einsum_dtypes_without_kernel():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int16 is not in the list.*\[Op:MatMul\]"):
        tf.tensordot(tf.ones([2, 2], tf.int16), tf.ones([2, 2], tf.int16), 1)
    with pytest.raises(tf.errors.NotFoundError, match=re.escape("MatMul[T=DT_UINT8")):
        tf.tensordot(tf.ones([2], tf.uint8), tf.ones([2], tf.uint8), 0)
    with pytest.raises(tf.errors.NotFoundError, match=re.escape('Einsum[N=1, T=DT_UINT8, equation="ii->"]')):
        tf.einsum("ii", tf.ones([2, 2], tf.uint8))
    assert tf.einsum("ij,jk->ik", tf.ones([2, 2], tf.int64), tf.ones([2, 2], tf.int64)).dtype == tf.int64


def test_complex_adjoints_conjugate():
    x = tf.constant([[1 + 2j, 3j], [1, 2 - 1j]], tf.complex64)
    xh = np.array([[1 - 2j, 1], [-3j, 2 + 1j]])
    np.testing.assert_array_equal(tf.linalg.adjoint(x).numpy(), xh)
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x, conjugate=True).numpy(), xh)
    np.testing.assert_allclose(tf.linalg.inv(x, adjoint=True).numpy(),
                               [[0.5 + 0.25j, -0.25], [0.75j, 0.25 - 0.5j]], atol=1e-6)
    np.testing.assert_allclose(tf.linalg.matvec(x, tf.constant([1 + 1j, 2], tf.complex64), adjoint_a=True).numpy(),
                               xh @ np.array([1 + 1j, 2]), atol=1e-6)


def test_rank_errors_of_lstsq_band_part_set_diag():
    with pytest.raises(IndexError, match="tuple index out of range"):
        tf.linalg.lstsq(tf.constant([1., 2., 3.]), tf.constant([[0.]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=re.escape("input must be at least 2-dim, received shape: [4] [Op:MatrixBandPart]")):
        tf.linalg.band_part(tf.constant([1, 2, 3, 4]), 0, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=re.escape("input must be at least 2-dim, received shape: [4] [Op:MatrixSetDiagV3]")):
        tf.linalg.set_diag(tf.constant([1, 2, 3, 4]), tf.constant([1]))


def test_matrix_norm_bad_axes_raise_as_tf():
    x = tf.constant([[3., 4.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension \(2 .*\[Op:Sum\]"):
        tf.norm(x, axis=[0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension \(2 .*\[Op:Max\]"):
        tf.norm(x, ord=1, axis=[0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"transpose expects a vector of size 2"):
        tf.norm(x, ord=2, axis=[0, 5])   # computed a value before
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension: 0"):
        tf.norm(x, axis=[0, -2])
    np.testing.assert_allclose(tf.norm(tf.constant(np.arange(12.).reshape(2, 2, 3)), ord=2, axis=[0, -1]).numpy(),
                               [12.35250541, 18.74527381])
    with pytest.raises(TypeError, match="Expected numeric or variant tensor, got dtype tf.bool."):
        tf.norm(tf.constant([True, False]))


def test_det_of_nonfinite_matrix_by_eigen_lu():
    # TF 2.21: NaN (LAPACK's LU gave -inf).
    m = [[-1.9107631, np.inf, 1.161658], [-1.2458849, -1.1203731, 1e30], [0.44423324, 0.19951594, -0.34401536]]
    assert np.isnan(tf.linalg.det(tf.constant(m, tf.float32)).numpy())


def test_det_gradient_inverts_the_adjoint():
    # A badly scaled matrix: TF 2.21's gradient (det * inv(a^T)) row 1, accurate (mpmath agrees).
    a = np.array([[1e-7, 1.7531887062546041, 0.036037103043222593, 1e-30],
                  [1e30, 0.18936307284131215, 0.76903543811995612, 1e300],
                  [-0.18636671407497007, 1.0955706039171524, 2.4609019010723894, 2.4639288656666443],
                  [0.46740058981870641, 1e-30, -0.76916811549545594, -0.25791033991336532]])
    np.testing.assert_allclose(grad(tf.linalg.det, a)[1], [-2.220048003, 0.03976980456, -1.934776781, 1.746796443],
                               rtol=1e-6)


def test_eigh_of_nonfinite_matrices_as_tf():
    inf = np.inf
    e, v = tf.linalg.eigh(tf.constant([[[1., 0.], [0., 2.]], [[inf, 0.79], [-1.1, inf]]]))
    np.testing.assert_array_equal(e.numpy(), [[1., 2.], [np.nan, np.nan]])
    np.testing.assert_array_equal(v.numpy(), [np.eye(2), np.eye(2)])
    e, v = tf.linalg.eigh(tf.constant([[-inf]]))
    assert e.numpy().tolist() == [-inf] and v.numpy().tolist() == [[1.]]
    for bad in ([[np.nan, 1.], [1., 2.]], [[1., 0.5], [inf, 2.]], [[1., 2., 3.], [2., inf, 1.], [3., 1., 2.]]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Self-adjoint eigen decomposition was not successful"):
            tf.linalg.eigvalsh(tf.constant(bad))


def test_tensordot_and_diag_part_refuse_out_of_range_arguments_as_tensorflow():
    # TF 2.21: an axis past the rank is an IndexError of its Python code, one below -rank a
    # ValueError; diag_part's k must lie in (-rows, cols). tapeflow wrapped them around.
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    with pytest.raises(IndexError):
        tf.tensordot(x, x, [[2], [0]])
    with pytest.raises(ValueError):
        tf.tensordot(x, x, [[-3], [0]])
    np.testing.assert_array_equal(tf.tensordot(x, tf.transpose(x), [[-1], [0]]).numpy(),
                                  [[5.0, 14.0], [14.0, 50.0]])
    for k in (3, -2):
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
            tf.linalg.diag_part(x, k=k)
    np.testing.assert_array_equal(tf.linalg.diag_part(x, k=2).numpy(), [2.0])
    np.testing.assert_array_equal(tf.linalg.diag_part(x, k=-1).numpy(), [3.0])


def test_inverse_of_a_nan_matrix_refuses_where_tensorflow_does():
    # TF 2.21 checks the smallest |pivot| of Eigen's LU, whose min keeps a NaN met first: a
    # NaN first pivot (or all NaN) is "not invertible"; NaN elsewhere gives NaN.
    nan = np.nan
    for m in ([[nan, 1.0], [2.0, 3.0]], [[nan, nan], [nan, nan]]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
            tf.linalg.inv(tf.constant(m))
    assert np.isnan(tf.linalg.inv(tf.constant([[1.0, nan], [2.0, 3.0]])).numpy()).all()
    np.testing.assert_array_equal(tf.linalg.inv(tf.constant([[0.0, np.inf], [1.0, 1.0]])).numpy(),
                                  [[0.0, 1.0], [0.0, 0.0]])
