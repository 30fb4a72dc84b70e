"""Operators stored as (part of) a matrix: full, diagonal, identity, scaled identity, lower
triangular and zeros."""

from __future__ import annotations

from typing import Optional

from tapeflow.framework.exports import tf_export
from tapeflow.ops.linear_operator import _ops as T
from tapeflow.ops.linear_operator.base import (LinearOperator, broadcast_batch, check_dtype,
                                               static_dim, static_shape)


def _maybe_adjoint(x, adjoint_arg: bool):
    return T.adjoint(x) if adjoint_arg else x


def _hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square) -> dict:
    return {"is_non_singular": is_non_singular, "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite, "is_square": is_square}


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """An operator that is a dense [batch of] matrix of shape [..., M, N]."""

    _EVENT_NDIMS = {"matrix": 2}

    def __init__(self, matrix, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorFullMatrix"):
        hints = _hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square)
        self._matrix = check_dtype(matrix, "matrix")
        super().__init__(self._matrix.dtype, None, name=name,
                         parameters=dict(matrix=matrix, **hints, name=name), **hints)

    @property
    def matrix(self):
        """The dense matrix the operator was built from."""
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return T.convert_to_tensor(self._matrix)



@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(LinearOperator):
    """A [batch of] diagonal matrix given by its diagonal, shape [..., N]."""

    _EVENT_NDIMS = {"diag": 1}

    def __init__(self, diag, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorDiag"):
        params = dict(diag=diag, **_hints(is_non_singular, is_self_adjoint,
                                          is_positive_definite, is_square), name=name)
        self._diag = check_dtype(diag, "diag")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name=name, parameters=params)

    @property
    def diag(self):
        """The diagonal the operator was built from."""
        return self._diag

    def _shape(self):
        n = self._diag.shape[-1]
        return list(self._diag.shape[:-1]) + [n, n]

    def _d(self, adjoint: bool):
        return T.conj(self._diag) if adjoint and self.dtype.is_complex else self._diag

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.multiply(T.expand_dims(self._d(adjoint), -1), _maybe_adjoint(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return T.divide(_maybe_adjoint(rhs, adjoint_arg), T.expand_dims(self._d(adjoint), -1))

    def _to_dense(self):
        return T.diag(self._diag)

    def _diag_part(self):
        return T.convert_to_tensor(self._diag)

    def _determinant(self):
        return T.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        log_abs = T.reduce_sum(T.log(T.abs_(self._diag)), axis=-1)
        return T.cast(log_abs, self.dtype) if self.dtype.is_complex else log_abs

    def _eigvals(self):
        return T.convert_to_tensor(self._diag)

    def _cond(self):
        magnitude = T.abs_(self._diag)
        return T.divide(T.reduce_max(magnitude, axis=-1), T.reduce_min(magnitude, axis=-1))

    def _adjoint_operator(self):
        return LinearOperatorDiag(T.conj(self._diag), **self._derived_hints())

    def _inverse_operator(self):
        return LinearOperatorDiag(T.divide(T.ones_like(self._diag), self._diag),
                                  **self._derived_hints())

    def _cholesky_operator(self):
        return LinearOperatorDiag(T.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True)

    def _derived_hints(self) -> dict:
        return {"is_non_singular": self._is_non_singular,
                "is_self_adjoint": self._is_self_adjoint,
                "is_positive_definite": self._is_positive_definite}

    def _compose_with(self, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(T.multiply(self._diag, right.diag))
        return None



class _IdentityBase(LinearOperator):
    """Shared parts of the identity and scaled identity: an N x N shape with a batch."""

    def _init_shape(self, num_rows, batch_shape) -> None:
        self._num_rows = static_dim(num_rows)
        if self._num_rows is None or self._num_rows < 0:
            raise ValueError(f"Argument num_rows must be non-negative.  Found: {num_rows}")
        self._batch = static_shape(batch_shape)

    def _shape(self):
        return self._batch + [self._num_rows, self._num_rows]

    def _with_batch(self, x):
        """x broadcast to carry this operator's batch dimensions too."""
        if not self._batch:
            return x
        out = broadcast_batch(self._batch, x.shape[:-2]) + list(x.shape[-2:])
        return T.broadcast_to(x, out)


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(_IdentityBase):
    """The [batch of] N x N identity matrix, never stored."""

    _EVENT_NDIMS = {"batch_shape": "shape"}

    def __init__(self, num_rows, batch_shape=None, dtype=None,
                 is_non_singular: bool = True, is_self_adjoint: bool = True,
                 is_positive_definite: bool = True, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorIdentity"):
        for hint, text in ((is_non_singular, "non-singular"), (is_self_adjoint, "self adjoint"),
                           (is_positive_definite, "positive-definite"), (is_square, "square")):
            if not hint:
                raise ValueError(f"An identity operator is always {text}.")
        self._init_shape(num_rows, batch_shape)
        super().__init__(dtype or T.dtypes.float32, None, True, True, True, True, name=name,
                         parameters=dict(num_rows=num_rows, batch_shape=batch_shape,
                                         dtype=dtype, name=name))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._with_batch(_maybe_adjoint(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        return T.eye(self._num_rows, batch_shape=self._batch, dtype=self.dtype)

    def _diag_part(self):
        return T.ones(self._batch + [self._num_rows], dtype=self.dtype)

    def _determinant(self):
        return T.ones(self._batch, dtype=self.dtype)

    def _log_abs_determinant(self):
        return T.zeros(self._batch, dtype=self.dtype)

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return T.ones(self._batch, dtype=self.dtype)

    def _inverse_operator(self):
        return self

    def _cholesky_operator(self):
        return self

    def _compose_with(self, right):
        return right if not self._batch else None

    def _compose_after(self, left):
        return left if not self._batch else None


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(_IdentityBase):
    """c I: the [batch of] N x N identity times a scalar (per batch member) multiplier."""

    _EVENT_NDIMS = {"multiplier": 0}

    def __init__(self, num_rows, multiplier, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: bool = True,
                 assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorScaledIdentity"):
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        self._multiplier = check_dtype(multiplier, "multiplier")
        self._init_shape(num_rows, list(self._multiplier.shape))
        if not self._multiplier.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name=name,
                         parameters=dict(num_rows=num_rows, multiplier=multiplier, name=name))

    @property
    def multiplier(self):
        """The scalar (per batch member) the identity is scaled by."""
        return self._multiplier

    def _m(self, adjoint: bool):
        m = T.conj(self._multiplier) if adjoint and self.dtype.is_complex else self._multiplier
        return T.expand_dims(T.expand_dims(m, -1), -1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.multiply(self._m(adjoint), _maybe_adjoint(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return T.divide(_maybe_adjoint(rhs, adjoint_arg), self._m(adjoint))

    def _to_dense(self):
        return T.multiply(self._m(False), T.eye(self._num_rows, dtype=self.dtype))

    def _diag_part(self):
        ones = T.ones([self._num_rows], dtype=self.dtype)
        return T.multiply(T.expand_dims(self._multiplier, -1), ones)

    def _determinant(self):
        return self._multiplier ** self._num_rows

    def _log_abs_determinant(self):
        # real even for a complex multiplier, as TF's (a complex diagonal's is complex)
        return T.log(T.abs_(self._multiplier)) * float(self._num_rows)

    def _trace(self):
        return self._multiplier * T.cast(self._num_rows, self.dtype)

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return T.ones_like(T.abs_(self._multiplier))

    def _inverse_operator(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, T.divide(T.ones_like(self._multiplier), self._multiplier),
            is_non_singular=self._is_non_singular, is_self_adjoint=self._is_self_adjoint,
            is_positive_definite=self._is_positive_definite)

    def _adjoint_operator(self):
        return LinearOperatorScaledIdentity(self._num_rows, T.conj(self._multiplier))

    def _cholesky_operator(self):
        return LinearOperatorScaledIdentity(self._num_rows, T.sqrt(self._multiplier),
                                            is_non_singular=True, is_self_adjoint=True,
                                            is_positive_definite=True)

    def _compose_with(self, right):
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(self._num_rows,
                                                T.multiply(self._multiplier, right.multiplier))
        if isinstance(right, LinearOperatorDiag):
            scaled = T.multiply(T.expand_dims(self._multiplier, -1), right.diag)
            return LinearOperatorDiag(scaled)
        return None

    def _compose_after(self, left):
        if isinstance(left, LinearOperatorDiag):
            return LinearOperatorDiag(T.multiply(left.diag, T.expand_dims(self._multiplier, -1)))
        return None


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """A [batch of] lower-triangular matrix: the lower triangle of the given square matrix
    (the part above the diagonal is ignored)."""

    _EVENT_NDIMS = {"tril": 2}

    def __init__(self, tril, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None,
                 name: str = "LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        tensor = check_dtype(tril, "tril")
        self._given = tensor  # kept for `variables`
        self._tril = T.band_part(tensor, -1, 0)
        super().__init__(tensor.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name=name,
                         parameters=dict(tril=tril, name=name))

    def _shape(self):
        return self._tril.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self._tril, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return T.triangular_solve(self._tril, _maybe_adjoint(rhs, adjoint_arg), lower=True,
                                  adjoint=adjoint)

    def _to_dense(self):
        return self._tril

    def _determinant(self):
        return T.reduce_prod(T.diag_part(self._tril), axis=-1)

    def _log_abs_determinant(self):
        # real even for a complex matrix, as TF's
        return T.reduce_sum(T.log(T.abs_(T.diag_part(self._tril))), axis=-1)

    def _eigvals(self):
        return T.diag_part(self._tril)


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(LinearOperator):
    """The [batch of] M x N zero matrix, never stored."""

    _EVENT_NDIMS = {"batch_shape": "shape"}

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular: bool = False, is_self_adjoint: bool = True,
                 is_positive_definite: bool = False, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorZeros"):
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        self._rows = static_dim(num_rows)
        self._cols = self._rows if num_columns is None else static_dim(num_columns,
                                                                         "num_columns")
        if is_square and self._rows != self._cols:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._rows}) != num_columns({self._cols})")
        self._batch = static_shape(batch_shape)
        super().__init__(dtype or T.dtypes.float32, None, False, is_self_adjoint, False, is_square,
                         name=name, parameters=dict(num_rows=num_rows, num_columns=num_columns,
                                                    batch_shape=batch_shape, dtype=dtype,
                                                    name=name))

    def _shape(self):
        return self._batch + [self._rows, self._cols]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _maybe_adjoint(x, adjoint_arg)
        rows = self._cols if adjoint else self._rows
        out = broadcast_batch(self._batch, x.shape[:-2]) + [rows, x.shape[-1]]
        return T.zeros(out, dtype=self.dtype)

    def _to_dense(self):
        return T.zeros(self._shape(), dtype=self.dtype)

    def _diag_part(self):
        return T.zeros(self._batch + [min(self._rows, self._cols)], dtype=self.dtype)

    def _determinant(self):
        return T.zeros(self._batch, dtype=self.dtype)

    def _log_abs_determinant(self):
        return T.log(self._determinant())

    def _zeros_like(self, left, right):
        batch = broadcast_batch(left.batch_shape.as_list(), right.batch_shape.as_list())
        rows, cols = left.range_dimension, right.domain_dimension
        return LinearOperatorZeros(rows, cols, batch_shape=batch, dtype=self.dtype,
                                   is_self_adjoint=None if rows != cols else True,
                                   is_square=rows == cols)

    def _compose_with(self, right):
        return self._zeros_like(self, right)

    def _compose_after(self, left):
        return self._zeros_like(left, self)
