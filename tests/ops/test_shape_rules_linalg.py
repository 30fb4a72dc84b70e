"""Shape-and-dtype rules of the linalg primitives on what the gradient samples do not reach:
unknown dims and ranks (a square op's one known dim makes both known), complex inputs, and
conflicting dims. Every expected shape, dtype and message is TF 2.21's, from a `tf.function`
traced with `tf.TensorSpec`s (or, for the eager errors, TF's eager op)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray
from tapeflow.autodiff.core import REGISTRY

F32, C64 = np.float32, np.complex64


def rule(name, *avals, **attrs):
    return REGISTRY[name].shape_rule(*avals, **attrs)


def A(shape, dtype=F32):
    return ShapedArray(shape, dtype)


@pytest.mark.parametrize("name, inputs, attrs, want", [
    # tf.linalg.inv / cholesky of [?,3]: [3,3] (the square dims merge); det: [].
    ("MatrixInverse", [A((None, 3))], {}, A((3, 3))),
    ("Cholesky", [A((None, 3))], {}, A((3, 3))),
    ("MatrixExponential", [A((2, None, None))], {}, A((2, None, None))),
    ("MatrixInverse", [A(None)], {}, A(None)),
    ("MatrixDeterminant", [A((None, 3))], {}, A(())),
    ("LogMatrixDeterminant", [A((None, 4, None))], {}, (A((None,)), A((None,)))),
    # eigh of complex64 [3,?]: [3] and [3,3]; of [?,?,3]: [?,3] and [?,3,3].
    ("SelfAdjointEigV2", [A((3, None), C64)], {}, (A((3,), C64), A((3, 3), C64))),
    ("SelfAdjointEigV2", [A((None, None, 3))], {}, (A((None, 3)), A((None, 3, 3)))),
    # solve: batch dims merge, m merges with rhs's rows.
    ("MatrixSolve", [A((None, None)), A((None, 2))], {"adjoint": False}, A((None, 2))),
    ("MatrixSolve", [A((2, None, 3)), A((None, None, 2))], {"adjoint": False}, A((2, 3, 2))),
    ("MatrixSolve", [A((None, None)), A((3, None))], {"adjoint": True}, A((3, None))),
    # triangular_solve: batch dims broadcast.
    ("MatrixTriangularSolve", [A((None, 3, 3)), A((1, None, 2))],
     {"lower": True, "adjoint": False}, A((None, 3, 2))),
    ("MatrixTriangularSolve", [A((None, None)), A((3, 1))],
     {"lower": True, "adjoint": False}, A((3, 1))),
    # qr: min(m, n) is unknown with an unknown dim, unless the known one is 0.
    ("Qr", [A((None, 4, 3))], {"full_matrices": False}, (A((None, 4, 3)), A((None, 3, 3)))),
    ("Qr", [A((4, None))], {"full_matrices": True}, (A((4, 4)), A((4, None)))),
    ("Qr", [A((0, None))], {"full_matrices": False}, (A((0, 0)), A((0, None)))),
    # svd of [5,?]: s [?], u [5,?], v [?,?]; full complex64 [5,3]: float32 s [3].
    ("Svd", [A((5, None))], {"full_matrices": False},
     (A((None,)), A((5, None)), A((None, None)))),
    ("Svd", [A((5, 3), C64)], {"full_matrices": True}, (A((3,)), A((5, 5), C64), A((3, 3), C64))),
    # diag_part(k=1) of [?,3]: [?]; k=-1 of [2,3]: [1].
    ("MatrixDiagPartV3", [A((None, 3))], {"k": 1}, A((None,))),
    ("MatrixDiagPartV3", [A((2, 3))], {"k": -1}, A((1,))),
    # set_diag of [?,2,3] with a [4,5] diagonal: [4,2,3] (TF does not check the length).
    ("MatrixSetDiagV3", [A((None, 2, 3)), A((4, 5))], {"k": 0}, A((4, 2, 3))),
    ("MatrixSetDiagV3", [A(None), A((4, 2))], {"k": 0}, A((4, None, None))),
    # diag(k=1) of [?,3]: [?,4,4].
    ("MatrixDiagV3", [A((None, 3))], {"k": 1, "num_rows": 4, "num_cols": 4}, A((None, 4, 4))),
    ("MatrixBandPart", [A((None, 3))], {"lower": 1, "upper": 0}, A((None, 3))),
    # einsum: a letter's known dim from any operand; none known stays unknown.
    ("Einsum", [A((None, 3)), A((None, None))], {"equation": "ij,jk->ik"}, A((None, None))),
    ("Einsum", [A((None, 3))], {"equation": "ii->i"}, A((3,))),
    ("Einsum", [A((2, None)), A(None)], {"equation": "ij,jk->ik"}, A((2, None))),
])
def test_rule(name, inputs, attrs, want):
    assert rule(name, *inputs, **attrs) == want


@pytest.mark.parametrize("name, inputs, attrs, message", [
    ("MatrixInverse", [A((2, 3))], {}, "Dimensions must be equal, but are 2 and 3"),
    ("Cholesky", [A((2, 3))], {}, "Dimensions must be equal, but are 2 and 3"),
    ("SelfAdjointEigV2", [A((2, 3))], {}, "Dimensions must be equal, but are 2 and 3"),
    ("MatrixDeterminant", [A((2, 3))], {}, "Dimensions must be equal, but are 3 and 2"),
    ("LogMatrixDeterminant", [A((2, 3))], {}, "Dimensions must be equal, but are 3 and 2"),
    ("MatrixInverse", [A((3,))], {}, "Shape must be at least rank 2 but is rank 1"),
    ("Qr", [A((4,))], {"full_matrices": False}, "Shape must be at least rank 2 but is rank 1"),
    ("Svd", [A((4,))], {"full_matrices": False}, "Shape must be at least rank 2 but is rank 1"),
    ("MatrixSolve", [A((3, 3)), A((4, 2))], {"adjoint": False},
     "Dimensions must be equal, but are 3 and 4"),
    ("MatrixSolve", [A((2, 3)), A((3, 1))], {"adjoint": False},
     "Dimensions must be equal, but are 2 and 3"),
    ("MatrixSolve", [A((3, 3)), A((3,))], {"adjoint": False},
     "Shape must be at least rank 2 but is rank 1"),
    ("MatrixSolve", [A((2, 3, 3)), A((5, 3, 2))], {"adjoint": False},
     "Dimension 0 in both shapes must be equal, but are 2 and 5"),
    ("MatrixSolve", [A((3, 3)), A((2, 3, 2))], {"adjoint": False},
     "Shapes must be equal rank, but are 0 and 1"),
    ("MatrixTriangularSolve", [A((2, 3, 3)), A((5, 3, 2))], {"lower": True, "adjoint": False},
     "Dimensions must be equal, but are 2 and 5"),
    ("MatrixTriangularSolve", [A((3, 3)), A((4, 2))], {"lower": True, "adjoint": False},
     "Dimensions must be equal, but are 3 and 4"),
    ("Einsum", [A((2, 3)), A((4, 2))], {"equation": "ij,jk->ik"},
     "Dimensions must be equal, but are 3 and 4"),
    ("Einsum", [A((2, 1)), A((4, 2))], {"equation": "ij,jk->ik"},
     "Dimensions must be equal, but are 1 and 4"),
    ("Einsum", [A((2, 3))], {"equation": "ii->i"}, "Dimensions must be equal, but are 2 and 3"),
    ("MatrixDiagPartV3", [A((2, 3))], {"k": 5}, "lower_diag_index is out of bound."),
    ("MatrixDiagPartV3", [A((2, 3))], {"k": -2}, "lower_diag_index is out of bound."),
    ("MatrixDiagV3", [A((None, 2))], {"k": 0, "num_rows": 3, "num_cols": 3},
     "num_rows and num_cols are not consistent with lower_diag_index"),
    ("MatrixDiagV3", [A((3,))], {"k": 0, "num_rows": 2, "num_cols": 3}, "num_rows is too small"),
    ("MatrixDiagV3", [A((3,))], {"k": 0, "num_rows": 3, "num_cols": 2}, "num_cols is too small."),
    ("MatrixSetDiagV3", [A((2, 3)), A((5, 2))], {"k": 0}, "Shape must be rank 1 but is rank 2"),
])
def test_conflicting_dims(name, inputs, attrs, message):
    with pytest.raises(ValueError, match=message) as info:
        rule(name, *inputs, **attrs)
    assert name in str(info.value)


def test_unknown_dims_never_raise():
    # Where a dim is unknown the rule cannot tell a conflict: it must not guess one.
    assert rule("MatrixDiagPartV3", A((None, 3)), k=7) == A((None,))
    assert rule("MatrixDiagPartV3", A((0, 2, 3)), k=7) == A((0, 0))   # an empty batch: kernel runs
    assert rule("MatrixTriangularSolve", A((None, 3, 3)), A((5, 3, 2)),
                lower=True, adjoint=False) == A((5, 3, 2))


def test_diag_refuses_sizes_that_do_not_fit_as_tf():
    # TF 2.21's eager MatrixDiagV3 errors; tapeflow broadcast [1.] over a 3x3 diagonal and
    # reported NumPy's "Incompatible shapes" for the others.
    cases = [({"num_rows": 3, "num_cols": 3}, [1.], "The number of rows or columns is not "
              "consistent with the specified d_lower, d_upper, and diagonal."),
             ({"num_cols": 2}, [1., 2., 3.], "The number of columns is too small."),
             ({"num_rows": 2}, [1., 2., 3.], "The number of rows is too small."),
             ({"num_rows": 4, "num_cols": 5}, [1., 2., 3.], "not consistent")]
    for kwargs, d, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.linalg.diag(d, **kwargs)
    # What TF accepts: the smallest rows or cols that hold the diagonal.
    assert tf.linalg.diag([1.], num_cols=3).shape == (1, 3)
    assert tf.linalg.diag([1., 2., 3.], num_rows=3, num_cols=5).shape == (3, 5)
    assert tf.linalg.diag([[1., 2.]], k=-1, num_cols=3).shape == (1, 3, 3)
