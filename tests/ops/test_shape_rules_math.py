"""Shape-and-dtype rules of the math primitives on what the gradient samples do not reach:
unknown dims and ranks, value-dependent dims, fixed output dtypes and conflicting dims.
Every expected shape, dtype and message is TF 2.21's, from a `tf.function` traced with
`tf.TensorSpec`s."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow  # noqa: F401 - registers every primitive
from tapeflow.framework.abstract import ShapedArray
from tapeflow.autodiff.core import REGISTRY

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128


def rule(name, *avals, **attrs):
    return REGISTRY[name].shape_rule(*avals, **attrs)


def A(shape, dtype=F32):
    return ShapedArray(shape, dtype)


@pytest.mark.parametrize("name, inputs, attrs, want", [
    # tf.less: [?,1] < [3] is bool [?,3]; [?,?] < [1] is bool [?,?].
    ("Less", [A((None, 1)), A((3,))], {}, A((None, 3), bool)),
    ("Less", [A((None, None)), A((1,))], {}, A((None, None), bool)),
    ("IsNan", [A((None, 2))], {}, A((None, 2), bool)),
    # Bitwise ops keep their dtype: [3,1] & [4] is int32 [3,4].
    ("BitwiseAnd", [A((3, 1), np.int32), A((4,), np.int32)], {}, A((3, 4), np.int32)),
    ("Polygamma", [A((3, 1)), A((2,))], {}, A((3, 2))),
    # |complex64| and real(complex128) are real.
    ("Abs", [A((3,), C64)], {}, A((3,), F32)),
    ("Real", [A((3,), C128)], {}, A((3,), F64)),
    ("SquaredDifference", [A((3,), C64), A((None,), C64)], {}, A((3,), C64)),
    # tf.cast of an unknown rank: unknown rank, int32.
    ("Cast", [A(None)], {"dtype": np.dtype(np.int32)}, A(None, np.int32)),
    ("ZerosLike", [A((None, 2))], {"dtype": np.dtype(np.int64)}, A((None, 2), np.int64)),
    # SelectV2 broadcasts all three: [2,3,1], [?], [1,?] -> [2,3,?]; unknown cond rank.
    ("SelectV2", [A((2, 3, 1), bool), A((None,)), A((1, None))], {}, A((2, 3, None))),
    ("SelectV2", [A(None, bool), A((None,)), A((1, None))], {}, A(None)),
    ("SelectV2", [A((None, 1), bool), A((None, 3)), A((2, None))], {}, A((2, 3))),
    # MatMul keeps the known dims and broadcasts the batch dims.
    ("MatMul", [A((None, 3)), A((3, 4))], {"transpose_a": False, "transpose_b": False},
     A((None, 4))),
    ("MatMul", [A((None, 3)), A((4, None))], {"transpose_a": True, "transpose_b": False},
     A((3, None))),
    ("MatMul", [A((None, 2)), A((None, None))], {"transpose_a": True, "transpose_b": True},
     A((2, None))),
    ("MatMul", [A((None, 1, 2, 3)), A((5, 3, 4))], {"transpose_a": False, "transpose_b": False},
     A((None, 5, 2, 4))),
    ("MatMul", [A((None, 3)), A(None)], {"transpose_a": False, "transpose_b": False}, A(None)),
])
def test_unknown_dims_propagate(name, inputs, attrs, want):
    assert rule(name, *inputs, **attrs) == want


@pytest.mark.parametrize("shape, want", [((2, 3), (None, 2)), ((None, 3), (None, 2)),
                                         (None, (None, None))])
def test_where_counts_true_elements_only_at_run_time(shape, want):
    # tf.where(c) is int64 [?, rank], even for a fully known c.
    assert rule("Where", A(shape, bool)) == A(want, np.int64)


@pytest.mark.parametrize("name, inputs, attrs, dims, op", [
    ("AddV2", [A((2, 3)), A((4, 5))], {}, "2 and 4", "AddV2"),  # the outermost conflict first
    ("Xlogy", [A((3,)), A((2,))], {}, "3 and 2", "Xlogy"),
    ("Equal", [A((2, 3)), A((4,))], {}, "3 and 4", "Equal"),
    ("SelectV2", [A((4,), bool), A((2, 3)), A((2, 1))], {}, "4 and 3", "SelectV2"),
    ("MatMul", [A((2, 3)), A((4, 5))], {"transpose_a": False, "transpose_b": False},
     "3 and 4", "MatMul"),
    ("MatMul", [A((2, 3)), A((5, 4))], {"transpose_a": False, "transpose_b": True},
     "3 and 4", "MatMul"),
    ("MatMul", [A((2, 2, 3)), A((3, 3, 4))], {"transpose_a": False, "transpose_b": False},
     "2 and 3", "BatchMatMulV2"),
])
def test_conflicting_dims_raise_tf_error(name, inputs, attrs, dims, op):
    with pytest.raises(ValueError) as info:
        rule(name, *inputs, **attrs)
    assert f"Dimensions must be equal, but are {dims} for '{{{{node " in str(info.value)
    assert f"}}}} = {op}" in str(info.value)


def test_matmul_of_a_vector_raises_tf_error():
    with pytest.raises(ValueError) as info:
        rule("MatMul", A((3,)), A((3, 4)), transpose_a=False, transpose_b=False)
    assert "Shape must be rank 2 but is rank 1 for '{{node MatMul}} = MatMul'" in str(info.value)
