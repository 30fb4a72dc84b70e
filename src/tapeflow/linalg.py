"""`tf.linalg`: matrix products, solves, factorizations, determinants, diagonals and norms."""

from tapeflow.ops.linalg_ops import (adjoint, band_part, cholesky, cholesky_solve, det,
                                     diag, diag_part, eigh, eigvalsh, einsum, expm, eye, inv,
                                     logdet, lstsq, matrix_transpose, matvec, norm, pinv, qr,
                                     set_diag, slogdet, solve, svd, tensordot, trace,
                                     triangular_solve)
from tapeflow.ops.math_ops import matmul
from tapeflow.ops.clip_ops import global_norm

__all__ = ["adjoint", "band_part", "cholesky", "cholesky_solve", "det", "diag", "diag_part", "eigh",
           "eigvalsh", "einsum", "expm", "eye", "inv", "logdet", "lstsq", "matrix_transpose",
           "matvec", "norm", "pinv", "qr", "set_diag", "slogdet", "solve", "svd", "tensordot",
           "trace", "triangular_solve", "matmul", "global_norm"]
