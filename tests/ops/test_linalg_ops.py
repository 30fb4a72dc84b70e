"""tf.linalg: values, output structures, errors and gradients checked against TensorFlow 2.21.
(Finite-difference checks of every rule are in test_gradient_registry.py.)"""

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
