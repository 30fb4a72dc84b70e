"""Gradient-check cases for the primitive of ops/sparse_ops.py: SparseTensorDenseMatMul with
respect to the sparse values and the dense matrix (plain and with either adjoint), squared so
that second derivatives do not vanish."""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(20)
_INDICES = [[0, 1], [1, 0], [2, 3], [2, 0]]


def _matmul(adjoint_a=False, adjoint_b=False):
    shape = [4, 3] if adjoint_a else [3, 4]
    indices = [[c, r] for r, c in _INDICES] if adjoint_a else _INDICES
    b_shape = (2, 4) if adjoint_b else (4, 2)

    def f(values, b):
        sp = tf.SparseTensor(indices, values, shape)
        return tf.square(tf.sparse.sparse_dense_matmul(sp, b, adjoint_a=adjoint_a,
                                                       adjoint_b=adjoint_b))
    return (f, [_rng.uniform(-1, 1, size=4), _rng.uniform(-1, 1, size=b_shape)])


SAMPLES = {
    "SparseTensorDenseMatMul": [_matmul(), _matmul(adjoint_a=True), _matmul(adjoint_b=True)],
}
