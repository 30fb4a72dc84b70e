"""Records TensorFlow's answers for tests/ops/test_linear_operator.py.

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_linear_operator_fixtures.py

Each case is a Python expression over `tf`, `L` (= tf.linalg), the operands below and
`grad(f, *xs)` (the gradients of f's sum); the fixture keeps the expression with TF's answer,
so the test evaluates the same text with tapeflow. An answer is a tensor (its value and dtype),
an operator (its class name, shape and dense matrix), a Python value, or an error class.
"""

from __future__ import annotations

import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "ops", "fixtures", "linear_operator.json")

# Operands the expressions use (built the same way on both sides).
SETUP = """
A = tf.constant([[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]])
B = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
M = tf.constant([[2., -1.], [0.5, 3.]])
v = tf.constant([1., -2., 0.5])
bd = tf.constant([[1., 2., 3.], [4., 5., 6.]])
full = L.LinearOperatorFullMatrix(A, is_self_adjoint=True, is_positive_definite=True)
gen = L.LinearOperatorFullMatrix(tf.constant([[1., 2., 0.], [3., -1., 4.], [0.5, 2., 2.]]))
diag = L.LinearOperatorDiag([1., 2., 3.])
bdiag = L.LinearOperatorDiag(bd)
eye = L.LinearOperatorIdentity(3)
seye = L.LinearOperatorScaledIdentity(3, 2.5)
tril = L.LinearOperatorLowerTriangular([[2., 0., 0.], [1., 3., 0.], [-1., 2., 4.]])
zeros = L.LinearOperatorZeros(3)
mop = L.LinearOperatorFullMatrix(M)
C = tf.complex(A, tf.constant([[0., 1., -2.], [-1., 0., 0.5], [2., -0.5, 0.]]))


def X(op, k=2, t=False):
    # a k-column operand for op (its adjoint's shape with t), entries all distinct
    n = int(op.shape[-1])
    x = tf.reshape(tf.sin(tf.range(1., n * k + 1.)), [n, k])
    x = tf.transpose(x) if t else x
    return tf.cast(x, op.dtype)
"""

CASES = {
    # shapes and hints
    "diag_shape": "diag.shape",
    "bdiag_shape": "bdiag.shape",
    "bdiag_batch_shape": "bdiag.batch_shape",
    "bdiag_shape_tensor": "bdiag.shape_tensor()",
    "bdiag_batch_shape_tensor": "bdiag.batch_shape_tensor()",
    "diag_domain": "int(diag.domain_dimension)",
    "diag_range_tensor": "diag.range_dimension_tensor()",
    "full_rect_square": "L.LinearOperatorFullMatrix(B).is_square",
    "diag_hints": "(diag.is_non_singular, diag.is_self_adjoint, diag.is_positive_definite, "
                  "diag.is_square)",
    "eye_hints": "(eye.is_non_singular, eye.is_self_adjoint, eye.is_positive_definite)",
    "tril_hints": "(tril.is_non_singular, tril.is_self_adjoint, tril.is_square)",
    "names": "(diag.name, full.name, eye.name, seye.name, tril.name, zeros.name)",
    "hint_pd_singular": "L.LinearOperatorDiag([1., 2.], is_positive_definite=True, "
                        "is_non_singular=False)",
    "hint_ns_nonsquare": "L.LinearOperatorFullMatrix(A, is_non_singular=True, is_square=False)",
    "hint_sa_nonsquare": "L.LinearOperatorFullMatrix(A, is_self_adjoint=True, is_square=False)",
    "diag_not_self_adjoint": "L.LinearOperatorDiag([1., 2.], is_self_adjoint=False)",
    "full_int_dtype": "L.LinearOperatorFullMatrix([[1, 2], [3, 4]])",
    "matmul_dim_mismatch": "diag.matmul(tf.ones([2, 1]))",
    "matvec_dim_mismatch": "diag.matvec(tf.ones([2]))",
    "matmul_dtype_mismatch": "diag.matmul(tf.ones([3, 1], tf.float64))",
    "linop_dim_mismatch": "diag.matmul(L.LinearOperatorDiag([1., 2.]))",
    "eigvals_not_sa": "gen.eigvals()",
    "cholesky_not_pd": "diag.cholesky()",
    "inverse_singular_zeros": "zeros.inverse()",
    "eye_hint_ns": "L.LinearOperatorIdentity(3, is_non_singular=False)",
    "eye_hint_sa": "L.LinearOperatorIdentity(3, is_self_adjoint=False)",
    "eye_hint_pd": "L.LinearOperatorIdentity(3, is_positive_definite=False)",
    "eye_hint_square": "L.LinearOperatorIdentity(3, is_square=False)",
    "eye_negative": "L.LinearOperatorIdentity(-1)",
    "diag_not_square": "L.LinearOperatorDiag([1., 2.], is_square=False)",
    "tril_not_square": "L.LinearOperatorLowerTriangular([[1., 0.], [1., 1.]], is_square=False)",
    "seye_not_square": "L.LinearOperatorScaledIdentity(3, 2., is_square=False)",
    "zeros_hint_ns": "L.LinearOperatorZeros(3, is_non_singular=True)",
    "zeros_hint_pd": "L.LinearOperatorZeros(3, is_positive_definite=True)",
    "zeros_solve": "zeros.solve(B)",
    "zeros_logdet": "zeros.log_abs_determinant()",
    "householder_not_sa": "L.LinearOperatorHouseholder([1., 2.], is_self_adjoint=False)",
    "householder_not_square": "L.LinearOperatorHouseholder([1., 2.], is_square=False)",
    "householder_singular_hint": "L.LinearOperatorHouseholder([1., 2.], "
                                 "is_non_singular=False).is_non_singular",
    "perm_not_square": "L.LinearOperatorPermutation([1, 0], is_square=False)",
    "perm_singular": "L.LinearOperatorPermutation([1, 0], is_non_singular=False)",
    "circulant_not_square": "L.LinearOperatorCirculant(tf.constant([1., 2.], tf.complex64), "
                            "is_square=False)",
    "inversion_singular": "L.LinearOperatorInversion(zeros)",
    "composition_empty": "L.LinearOperatorComposition([])",
    "composition_dtypes": "L.LinearOperatorComposition([diag, "
                          "L.LinearOperatorDiag(tf.constant([1., 2., 3.], tf.float64))])",
    "tridiag_format": "L.LinearOperatorTridiag(A, diagonals_format='foo')",
    "rect_solve": "L.LinearOperatorFullMatrix(B).solve(tf.ones([3, 1]))",
    "rect_det": "L.LinearOperatorFullMatrix(B).determinant()",
    "rect_inverse": "L.LinearOperatorFullMatrix(B).inverse()",
    "blocklower_ragged": "L.LinearOperatorBlockLowerTriangular([[diag], [diag]])",
    "hints_more": "(L.LinearOperatorDiag(tf.complex([1., 2.], [0., 1.])).is_self_adjoint, "
                  "seye.is_self_adjoint, L.LinearOperatorToeplitz([1., 2.], [1., 3.])"
                  ".is_self_adjoint, L.LinearOperatorComposition([diag, diag]).is_non_singular, "
                  "L.LinearOperatorBlockDiag([diag]).is_self_adjoint, "
                  "L.LinearOperatorKronecker([diag]).is_self_adjoint)",
    # dense values
    "full_dense": "full.to_dense()",
    "diag_dense": "bdiag.to_dense()",
    "eye_dense": "eye.to_dense()",
    "eye_batch_dense": "L.LinearOperatorIdentity(2, batch_shape=[2]).to_dense()",
    "seye_dense": "seye.to_dense()",
    "tril_dense": "L.LinearOperatorLowerTriangular(A).to_dense()",
    "zeros_dense": "L.LinearOperatorZeros(2, 3).to_dense()",
    # products and solves
    "full_matmul": "full.matmul(B)",
    "full_matmul_adj": "gen.matmul(B, adjoint=True)",
    "full_matmul_adjarg": "gen.matmul(tf.transpose(B), adjoint_arg=True)",
    "full_at": "gen @ B",
    "full_matvec": "gen.matvec(v)",
    "full_matvec_adj": "gen.matvec(v, adjoint=True)",
    "full_solve": "gen.solve(B)",
    "full_solve_adj": "gen.solve(B, adjoint=True)",
    "full_solve_chol": "full.solve(B)",
    "full_solvevec": "gen.solvevec(v)",
    "diag_matmul": "bdiag.matmul(tf.ones([2, 3, 2]))",
    "diag_matmul_bcast": "bdiag.matmul(B)",
    "diag_solve": "diag.solve(B)",
    "diag_solvevec": "bdiag.solvevec(v)",
    "eye_matmul": "eye.matmul(B)",
    "seye_matmul": "seye.matmul(B)",
    "seye_solve": "seye.solve(B)",
    "tril_matmul": "tril.matmul(B)",
    "tril_solve": "tril.solve(B)",
    "tril_solve_adj": "tril.solve(B, adjoint=True)",
    "zeros_matmul": "zeros.matmul(B)",
    "add_to_tensor": "diag.add_to_tensor(A)",
    # reductions
    "full_det": "gen.determinant()",
    "full_logdet": "gen.log_abs_determinant()",
    "full_logdet_chol": "full.log_abs_determinant()",
    "diag_det": "bdiag.determinant()",
    "diag_logdet": "bdiag.log_abs_determinant()",
    "eye_det": "eye.determinant()",
    "seye_det": "seye.determinant()",
    "seye_logdet": "seye.log_abs_determinant()",
    "tril_det": "tril.determinant()",
    "tril_logdet": "tril.log_abs_determinant()",
    "full_trace": "gen.trace()",
    "diag_trace": "bdiag.trace()",
    "full_diag_part": "gen.diag_part()",
    "seye_diag_part": "seye.diag_part()",
    "full_eigvals": "full.eigvals()",
    "diag_eigvals": "diag.eigvals()",
    "full_cond": "full.cond()",
    "gen_cond": "gen.cond()",
    "diag_cond": "diag.cond()",
    # the types TF's algebra returns
    "diag_matmul_diag": "diag.matmul(diag)",
    "diag_at_diag": "diag @ L.LinearOperatorDiag([2., 1., -1.])",
    "diag_inverse": "diag.inverse()",
    "diag_adjoint": "diag.adjoint()",
    "diag_cholesky": "L.LinearOperatorDiag([1., 4., 9.], is_self_adjoint=True, "
                     "is_positive_definite=True).cholesky()",
    "full_inverse": "gen.inverse()",
    "full_adjoint": "gen.adjoint()",
    "full_H": "gen.H",
    "full_matmul_op": "gen.matmul(gen)",
    "full_cholesky": "full.cholesky()",
    "diag_matmul_full": "diag.matmul(gen)",
    "eye_matmul_diag": "eye.matmul(diag)",
    "diag_matmul_eye": "diag.matmul(eye)",
    "eye_inverse": "eye.inverse()",
    "seye_matmul_diag": "seye.matmul(diag)",
    "seye_inverse": "seye.inverse()",
    "seye_matmul_seye": "seye.matmul(seye)",
    "tril_inverse": "tril.inverse()",
    "tril_adjoint": "tril.adjoint()",
    "tril_matmul_op": "tril.matmul(tril)",
    "diag_solve_op": "diag.solve(diag)",
    "full_solve_op": "gen.solve(gen)",
    "zeros_matmul_op": "gen.matmul(zeros)",
    "inverse_inverse": "gen.inverse().inverse()",
    "adjoint_adjoint": "gen.adjoint().adjoint()",
    # composites
    "composition": "L.LinearOperatorComposition([gen, diag]).to_dense()",
    "composition_solve": "L.LinearOperatorComposition([gen, tril]).solve(B)",
    "composition_det": "L.LinearOperatorComposition([gen, tril]).determinant()",
    "adjoint_matmul": "L.LinearOperatorAdjoint(gen).matmul(B)",
    "adjoint_solve": "L.LinearOperatorAdjoint(gen).solve(B)",
    "inversion_matmul": "L.LinearOperatorInversion(gen).matmul(B)",
    "inversion_solve": "L.LinearOperatorInversion(gen).solve(B)",
    "inversion_det": "L.LinearOperatorInversion(gen).determinant()",
    "blockdiag_dense": "L.LinearOperatorBlockDiag([mop, diag]).to_dense()",
    "blockdiag_matmul": "L.LinearOperatorBlockDiag([mop, diag]).matmul(tf.ones([5, 2]))",
    "blockdiag_solve": "L.LinearOperatorBlockDiag([mop, diag]).solve(tf.ones([5, 2]))",
    "blockdiag_logdet": "L.LinearOperatorBlockDiag([mop, diag]).log_abs_determinant()",
    "blockdiag_inverse": "L.LinearOperatorBlockDiag([mop, diag]).inverse()",
    "kron_dense": "L.LinearOperatorKronecker([mop, diag]).to_dense()",
    "kron_matmul": "L.LinearOperatorKronecker([mop, diag]).matmul(tf.ones([6, 1]))",
    "kron_solve": "L.LinearOperatorKronecker([mop, diag]).solve(tf.ones([6, 1]))",
    "kron_det": "L.LinearOperatorKronecker([mop, diag]).determinant()",
    "kron_trace": "L.LinearOperatorKronecker([mop, diag]).trace()",
    "lowrank_dense": "L.LinearOperatorLowRankUpdate(diag, B).to_dense()",
    "lowrank_dense_uv": "L.LinearOperatorLowRankUpdate(diag, B, diag_update=[2., 3.], "
                        "v=tf.ones([3, 2])).to_dense()",
    "lowrank_solve": "L.LinearOperatorLowRankUpdate(diag, B).solve(v[:, None])",
    "lowrank_logdet": "L.LinearOperatorLowRankUpdate(diag, B).log_abs_determinant()",
    "lowrank_hints": "(lambda o: (o.is_self_adjoint, o.is_positive_definite))("
                     "L.LinearOperatorLowRankUpdate(diag, B))",
    "perm_dense": "L.LinearOperatorPermutation([2, 0, 1]).to_dense()",
    "perm_matmul": "L.LinearOperatorPermutation([2, 0, 1]).matmul(B)",
    "perm_det": "L.LinearOperatorPermutation([2, 0, 1]).determinant()",
    "perm_bad": "L.LinearOperatorPermutation([0, 0, 1])",
    "householder_dense": "L.LinearOperatorHouseholder([1., 2., 2.]).to_dense()",
    "householder_matmul": "L.LinearOperatorHouseholder([1., 2., 2.]).matmul(B)",
    "householder_det": "L.LinearOperatorHouseholder([1., 2., 2.]).determinant()",
    "householder_pd": "L.LinearOperatorHouseholder([1., 2.], is_positive_definite=True)",
    "toeplitz_dense": "L.LinearOperatorToeplitz([1., 2., 3.], [1., 4., 5.]).to_dense()",
    "toeplitz_matmul": "L.LinearOperatorToeplitz([1., 2., 3.], [1., 4., 5.]).matmul(B)",
    "toeplitz_solve": "L.LinearOperatorToeplitz([4., 2., 3.], [4., 1., 5.]).solve(B)",
    "tridiag_dense": "L.LinearOperatorTridiag([[1., 2., 0.], [3., 4., 5.], "
                     "[0., 6., 7.]]).to_dense()",
    "tridiag_matmul": "L.LinearOperatorTridiag([[1., 2., 0.], [3., 4., 5.], "
                      "[0., 6., 7.]]).matmul(B)",
    "tridiag_solve": "L.LinearOperatorTridiag([[1., 2., 0.], [3., 4., 5.], "
                     "[0., 6., 7.]]).solve(B)",
    "tridiag_seq_dense": "L.LinearOperatorTridiag([[2., 3., 0.], [1., 4., 5.], [0., 6., 7.]], "
                         "diagonals_format='sequence').to_dense()",
    "tridiag_matrix_dense": "L.LinearOperatorTridiag(A, diagonals_format='matrix').to_dense()",
    "circulant_dense": "L.LinearOperatorCirculant(tf.constant([6., -2., 1.], "
                       "tf.complex64)).to_dense()",
    "circulant_real_dense": "L.LinearOperatorCirculant(tf.constant([6., 1., 1.]), "
                            "input_output_dtype=tf.float32).to_dense()",
    "circulant_matmul": "L.LinearOperatorCirculant(tf.constant([6., 1., 1.]), "
                        "input_output_dtype=tf.float32).matmul(B)",
    "circulant_det": "L.LinearOperatorCirculant(tf.constant([6., -2., 1.], "
                     "tf.complex64)).determinant()",
    "circulant_conv_kernel": "L.LinearOperatorCirculant(tf.constant([6., -2., 1.], "
                             "tf.complex64)).convolution_kernel()",
    "circulant2d_dense": "L.LinearOperatorCirculant2D(tf.constant([[6., 1.], [1., 2.]], "
                         "tf.complex64)).to_dense()",
    "circulant3d_shape": "L.LinearOperatorCirculant3D(tf.ones([2, 2, 2], "
                         "tf.complex64)).shape",
    "blocklower_dense": "L.LinearOperatorBlockLowerTriangular([[mop], "
                        "[L.LinearOperatorFullMatrix(B), diag]]).to_dense()",
    "blocklower_matmul": "L.LinearOperatorBlockLowerTriangular([[mop], "
                         "[L.LinearOperatorFullMatrix(B), diag]]).matmul(tf.ones([5, 1]))",
    "blocklower_solve": "L.LinearOperatorBlockLowerTriangular([[mop], "
                        "[L.LinearOperatorFullMatrix(B), diag]]).solve(tf.ones([5, 1]))",
    "blocklower_det": "L.LinearOperatorBlockLowerTriangular([[mop], "
                      "[L.LinearOperatorFullMatrix(B), diag]]).determinant()",
    "blocklower_inverse": "L.LinearOperatorBlockLowerTriangular([[mop], "
                          "[L.LinearOperatorFullMatrix(B), diag]]).inverse()",
    "getitem_diag": "bdiag[1]",
    "getitem_diag_dense": "bdiag[1:].to_dense()",
    "slice_full": "L.LinearOperatorFullMatrix(tf.stack([A, A + 1.]))[1]",
    "slice_seye": "L.LinearOperatorScaledIdentity(3, [2., -0.5])[1:]",
    "slice_eye": "L.LinearOperatorIdentity(2, batch_shape=[3])[:2]",
    "slice_zeros": "L.LinearOperatorZeros(2, batch_shape=[3, 2])[1:, 0]",
    "slice_composition": "L.LinearOperatorComposition([bdiag, gen])[0]",
    "slice_lowrank": "L.LinearOperatorLowRankUpdate(bdiag, B)[1]",
    "slice_blockdiag": "L.LinearOperatorBlockDiag([bdiag, mop])[1]",
    "slice_kronecker": "L.LinearOperatorKronecker([bdiag, mop])[0]",
    "slice_adjoint": "L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix("
                     "tf.stack([A, tf.transpose(gen.to_dense())])))[1]",
    "slice_circulant": "L.LinearOperatorCirculant(tf.constant([[6., -2., 1.], [1., 2., 3.]], "
                       "tf.complex64))[1]",
    "slice_toeplitz": "L.LinearOperatorToeplitz([[1., 2., 3.], [2., 2., 2.]], [1., 4., 5.])[0]",
    "slice_householder": "L.LinearOperatorHouseholder([[1., 2., 2.], [0., 1., 0.]])[1]",
    "slice_tril": "L.LinearOperatorLowerTriangular(tf.stack([A, -A]))[1:]",
    "slice_newaxis": "bdiag[None, 1]",
    "slice_too_deep": "diag[0]",
    # gradients through the operators
    "grad_diag_matmul": "grad(lambda d: L.LinearOperatorDiag(d).matmul(B), "
                        "tf.constant([1., 2., 3.]))",
    "grad_diag_solve": "grad(lambda d: L.LinearOperatorDiag(d).solve(B), "
                       "tf.constant([1., 2., 3.]))",
    "grad_diag_logdet": "grad(lambda d: L.LinearOperatorDiag(d).log_abs_determinant(), "
                        "tf.constant([1., -2., 3.]))",
    "grad_full_matmul": "grad(lambda m, x: L.LinearOperatorFullMatrix(m).matmul(x), A, B)",
    "grad_full_solve": "grad(lambda m: L.LinearOperatorFullMatrix(m).solve(B), A)",
    "grad_full_logdet": "grad(lambda m: L.LinearOperatorFullMatrix(m).log_abs_determinant(), "
                        "tf.constant([[1., 2., 0.], [3., -1., 4.], [0.5, 2., 2.]]))",
    "grad_full_logdet_chol": "grad(lambda m: L.LinearOperatorFullMatrix(m, "
                             "is_self_adjoint=True, is_positive_definite=True)"
                             ".log_abs_determinant(), A)",
    "grad_lowrank_solve": "grad(lambda u: L.LinearOperatorLowRankUpdate(diag, u)"
                          ".solve(v[:, None]), B)",
    "grad_toeplitz_matmul": "grad(lambda c, r: L.LinearOperatorToeplitz(c, r).matmul(B), "
                            "tf.constant([1., 2., 3.]), tf.constant([1., 4., 5.]))",
    "grad_tridiag_solve": "grad(lambda d: L.LinearOperatorTridiag(d).solve(B), "
                          "tf.constant([[1., 2., 0.], [3., 4., 5.], [0., 6., 7.]]))",
    "grad_circulant_matmul": "grad(lambda s: L.LinearOperatorCirculant(s, "
                             "input_output_dtype=tf.float32).matmul(B), "
                             "tf.constant([6., 1., 1.]))",
    "grad_householder_matmul": "grad(lambda a: L.LinearOperatorHouseholder(a).matmul(B), "
                               "tf.constant([1., 2., 2.]))",
    "grad_kron_logdet": "grad(lambda m: L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(m),"
                        " diag]).log_abs_determinant(), M)",
    "grad_blocklower_solve": "grad(lambda m, b: L.LinearOperatorBlockLowerTriangular([["
                             "L.LinearOperatorFullMatrix(m)], [L.LinearOperatorFullMatrix(b), "
                             "diag]]).solve(tf.ones([5, 1])), M, B)",
    "grad_composition_solve": "grad(lambda t: L.LinearOperatorComposition([gen, "
                              "L.LinearOperatorLowerTriangular(t)]).solve(B), "
                              "tf.constant([[2., 0., 0.], [1., 3., 0.], [-1., 2., 4.]]))",
    "grad_seye_logdet": "grad(lambda m: L.LinearOperatorScaledIdentity(3, m)"
                        ".log_abs_determinant(), tf.constant(-2.5))",
    "grad_blockdiag_det": "grad(lambda m: L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(m),"
                          " diag]).determinant(), M)",
    "variables": "(lambda o: [v.numpy().tolist() for v in o.trainable_variables])("
                 "L.LinearOperatorComposition([L.LinearOperatorDiag(tf.Variable([1., 2.])), "
                 "L.LinearOperatorFullMatrix(tf.Variable([[1., 0.], [2., 1.]]))]))",
    "composite_names": "(L.LinearOperatorBlockDiag([gen, diag]).name, "
                       "L.LinearOperatorKronecker([gen, diag]).name, gen.inverse().name, "
                       "gen.adjoint().name, diag.matmul(gen).name)",
}

# Each operator below meets each method: every adjoint/adjoint_arg path of the products and
# solves, and the reductions, so that a structure's shortcut is checked against TF's answer.
SWEEP_OPERATORS = {
    "gen": "gen",
    "full": "full",
    "diag": "diag",
    "bdiag": "bdiag",
    "cdiag": "L.LinearOperatorDiag(tf.complex([1., 2., -3.], [0.5, -1., 2.]))",
    "cfull": "L.LinearOperatorFullMatrix(C)",
    "bfull": "L.LinearOperatorFullMatrix(tf.stack([A, tf.transpose(A) + 1.]))",
    "eye": "eye",
    "beye": "L.LinearOperatorIdentity(3, batch_shape=[2])",
    "seye": "seye",
    "bseye": "L.LinearOperatorScaledIdentity(3, [2., -0.5])",
    "tril": "tril",
    "comp": "L.LinearOperatorComposition([gen, tril])",
    "adj": "L.LinearOperatorAdjoint(gen)",
    "inv": "L.LinearOperatorInversion(tril)",
    "blockdiag": "L.LinearOperatorBlockDiag([mop, L.LinearOperatorDiag([2.])])",
    "kron": "L.LinearOperatorKronecker([mop, L.LinearOperatorFullMatrix([[1., 2.], [0., 3.]])])",
    "lowrank": "L.LinearOperatorLowRankUpdate(diag, B)",
    "clowrank": "L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag(tf.complex([1., 2., 3.], "
                "[0.5, 0., -1.])), tf.complex(B, tf.ones([3, 2])), diag_update=tf.complex("
                "[2., 3.], [0., 1.]))",
    "ctril": "L.LinearOperatorLowerTriangular(C + 3.)",
    "cblockdiag": "L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(C[:2, :2]), "
                  "L.LinearOperatorDiag(tf.complex([2.], [1.]))])",
    "ckron": "L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(C[:2, :2]), "
             "L.LinearOperatorFullMatrix(C[1:, 1:])])",
    "ccomp": "L.LinearOperatorComposition([L.LinearOperatorFullMatrix(C), "
             "L.LinearOperatorDiag(tf.complex([1., 2., -3.], [0.5, -1., 2.]))])",
    "chouseholder": "L.LinearOperatorHouseholder(tf.complex([1., 2., 2.], [0., 1., -1.]))",
    "ctoeplitz": "L.LinearOperatorToeplitz(tf.complex([4., 2., 3.], [1., 0., 1.]), "
                 "tf.complex([4., 1., 5.], [1., -1., 0.]))",
    "cseye": "L.LinearOperatorScaledIdentity(3, tf.complex(2., -1.))",
    "f64_tril": "L.LinearOperatorLowerTriangular(tf.cast(A, tf.float64))",
    "lowrank_uv": "L.LinearOperatorLowRankUpdate(diag, B, diag_update=[2., 3.], v=tf.ones([3, 2]))",
    "perm": "L.LinearOperatorPermutation([2, 0, 1])",
    "householder": "L.LinearOperatorHouseholder([1., 2., 2.])",
    "toeplitz": "L.LinearOperatorToeplitz([4., 2., 3.], [4., 1., 5.])",
    "tridiag": "L.LinearOperatorTridiag([[1., 2., 0.], [3., 4., 5.], [0., 6., 7.]])",
    "circulant": "L.LinearOperatorCirculant(tf.constant([6., -2., 1.], tf.complex64))",
    "circulant_real": "L.LinearOperatorCirculant(tf.constant([6., 1., 1.]), "
                      "input_output_dtype=tf.float32)",
    "circulant2d": "L.LinearOperatorCirculant2D(tf.constant([[6., 1.], [1., 2.]], tf.complex64))",
    "blocklower": "L.LinearOperatorBlockLowerTriangular([[mop], "
                  "[L.LinearOperatorFullMatrix(B[:1]), L.LinearOperatorDiag([2.])]])",
}
SWEEP_METHODS = {
    "matmul": "{o}.matmul(X({o}))",
    "matmul_adj": "{o}.matmul(X({o}), adjoint=True)",
    "matmul_adjarg": "{o}.matmul(X({o}, t=True), adjoint_arg=True)",
    "matmul_both": "{o}.matmul(X({o}, t=True), adjoint=True, adjoint_arg=True)",
    "matvec_adj": "{o}.matvec(X({o})[:, 0], adjoint=True)",
    "solve": "{o}.solve(X({o}))",
    "solve_adj": "{o}.solve(X({o}), adjoint=True)",
    "solve_both": "{o}.solve(X({o}, t=True), adjoint=True, adjoint_arg=True)",
    "solvevec": "{o}.solvevec(X({o})[:, 0])",
    "dense": "{o}.to_dense()",
    "det": "{o}.determinant()",
    "logdet": "{o}.log_abs_determinant()",
    "trace": "{o}.trace()",
    "diag_part": "{o}.diag_part()",
    "inverse": "{o}.inverse().to_dense()",
    "adjoint": "{o}.adjoint().to_dense()",
    "hints": "(lambda o: (o.is_non_singular, o.is_self_adjoint, o.is_positive_definite, "
             "o.is_square, o.dtype.name, o.shape.as_list()))({o})",
}
for _op, _op_expr in SWEEP_OPERATORS.items():
    for _method, _template in SWEEP_METHODS.items():
        CASES[f"sweep_{_op}_{_method}"] = _template.format(o=_op_expr)

GRAD_SOURCE = """
def grad(f, *xs):
    xs = [tf.Variable(x) for x in xs]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(f(*xs))
    grads = tape.gradient(y, xs)
    return grads[0] if len(grads) == 1 else tuple(grads)
"""


def describe(value, tf) -> dict:
    """TF's answer as JSON."""
    if isinstance(value, tf.linalg.LinearOperator):
        return {"kind": "operator", "class": type(value).__name__,
                "shape": value.shape.as_list(), "dense": describe(value.to_dense(), tf)}
    if tf.is_tensor(value):
        array = value.numpy()
        if np.iscomplexobj(array):
            return {"kind": "tensor", "dtype": value.dtype.name,
                    "real": array.real.tolist(), "imag": array.imag.tolist()}
        return {"kind": "tensor", "dtype": value.dtype.name, "value": array.tolist()}
    if isinstance(value, tf.TensorShape):
        return {"kind": "shape", "value": value.as_list()}
    if isinstance(value, tuple):
        return {"kind": "tuple", "items": [describe(item, tf) for item in value]}
    return {"kind": "python", "value": value}


def main() -> None:
    import tensorflow as tf

    scope = {"tf": tf, "L": tf.linalg, "np": np}
    exec(SETUP, scope)
    exec(GRAD_SOURCE, scope)
    cases = {}
    for name, expr in CASES.items():
        try:
            answer = describe(eval(expr, scope), tf)
        except Exception as error:  # noqa: BLE001 - the error class is the answer
            answer = {"kind": "error", "class": type(error).__name__, "message": str(error)}
        cases[name] = {"expr": expr, "answer": answer}
    with open(OUT, "w") as f:
        json.dump({"tf_version": tf.__version__, "setup": SETUP, "grad": GRAD_SOURCE,
                   "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
