"""Operators given by a few numbers with a pattern: permutations, Householder reflections,
Toeplitz, tridiagonal and circulant matrices, and block lower-triangular operators."""

from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from tapeflow.framework.exports import tf_export
from tapeflow.ops._static import is_traced
from tapeflow.ops.linear_operator import _ops as T
from tapeflow.ops.linear_operator.base import (LinearOperator, as_tensor, broadcast_batch,
                                               check_dtype)
from tapeflow.ops.linear_operator.dense import LinearOperatorFullMatrix


def _maybe_adjoint(x, adjoint_arg: bool):
    return T.adjoint(x) if adjoint_arg else x


def _require_true(fact: str, arg: str, value) -> None:
    """TF's ValueError for a hint that contradicts what the operator always is."""
    if value is False:
        raise ValueError(f"{fact} Expected argument `{arg}` to be True. Received: {value}.")


@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P x = x[perm] (row i of P x is row perm[i] of x)."""

    _EVENT_NDIMS = {"perm": 1}

    def __init__(self, perm, dtype=None, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorPermutation"):
        self._perm = check_dtype(perm, "perm", ("int32", "int64"))
        if not is_traced(self._perm):  # a traced permutation is only checked by its use
            values = np.asarray(self._perm.numpy())
            n = values.shape[-1]
            if (np.sort(values, axis=-1) != np.arange(n)).any():
                raise ValueError(f"Argument `perm` must be a vector of unique integers from "
                                 f"0 to {n - 1}.")
        _require_true("A Permutation operator is always non-singular.", "is_non_singular",
                      is_non_singular)
        _require_true("A Permutation operator is always square.", "is_square", is_square)
        super().__init__(dtype or T.dtypes.float32, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name=name,
                         parameters=dict(perm=perm, dtype=dtype, name=name))

    @property
    def perm(self):
        """The permutation the operator was built from."""
        return self._perm

    def _shape(self):
        n = self._perm.shape[-1]
        return list(self._perm.shape[:-1]) + [n, n]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _maybe_adjoint(x, adjoint_arg)
        if self._perm.shape.rank > 1:  # a batch of permutations: act through the matrices
            return T.matmul(self._to_dense(), x, adjoint_a=adjoint)
        # P x takes row perm[i] of x to row i; P^H x = P^-1 x undoes it with perm's inverse.
        index = T.argsort(self._perm) if adjoint else self._perm
        return T.gather(x, index, axis=-2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, not adjoint, adjoint_arg)

    def _to_dense(self):
        return T.one_hot(self._perm, self._perm.shape[-1], dtype=self.dtype)

    def _determinant(self):
        if is_traced(self._perm):
            return T.det(self._to_dense())
        values = np.asarray(self._perm.numpy())
        signs = np.vectorize(_parity, signature="(n)->()")(values)
        return T.convert_to_tensor(signs, dtype=self.dtype)

    def _log_abs_determinant(self):
        return T.zeros(self.batch_shape.as_list(), dtype=self.dtype)


def _parity(perm) -> float:
    """+1 for an even permutation, -1 for an odd one (the determinant of its matrix)."""
    seen, sign = np.zeros(len(perm), bool), 1.0
    for start in range(len(perm)):
        length, i = 0, start
        while not seen[i]:
            seen[i], i, length = True, perm[i], length + 1
        if length and length % 2 == 0:
            sign = -sign
    return sign


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(LinearOperator):
    """The reflection H = I - 2 v v^H / (v^H v) across the hyperplane normal to v."""

    _EVENT_NDIMS = {"reflection_axis": 1}

    def __init__(self, reflection_axis, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorHouseholder"):
        self._axis = check_dtype(reflection_axis, "reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_positive_definite is None:
            is_positive_definite = False  # its eigenvalues are 1 and -1
        super().__init__(self._axis.dtype, None, is_non_singular, True, is_positive_definite, True,
                         name=name,
                         parameters=dict(reflection_axis=reflection_axis, name=name))

    @property
    def reflection_axis(self):
        """v, the normal of the reflecting hyperplane."""
        return self._axis

    def _shape(self):
        n = self._axis.shape[-1]
        return list(self._axis.shape[:-1]) + [n, n]

    def _unit(self):
        v = T.expand_dims(self._axis, -1)
        norm_sq = T.matmul(v, v, adjoint_a=True)
        return v, norm_sq

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _maybe_adjoint(x, adjoint_arg)
        v, norm_sq = self._unit()
        coeff = T.divide(T.matmul(v, x, adjoint_a=True), norm_sq)
        return T.subtract(x, 2.0 * T.matmul(v, coeff))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        v, norm_sq = self._unit()
        n = self._axis.shape[-1]
        reflect = T.divide(T.matmul(v, v, adjoint_b=True), norm_sq)
        return T.subtract(T.eye(n, dtype=self.dtype), 2.0 * reflect)

    def _determinant(self):
        return T.negative(T.ones(self.batch_shape.as_list(), dtype=self.dtype))

    def _log_abs_determinant(self):
        return T.zeros(self.batch_shape.as_list(), dtype=self.dtype)

    def _trace(self):
        n = self._axis.shape[-1]
        return T.cast(n - 2, self.dtype) * T.ones(self.batch_shape.as_list(), dtype=self.dtype)


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column `col` and first row `row` (constant along each
    diagonal; col[0] is the diagonal, row[0] is not read)."""

    _EVENT_NDIMS = {"col": 1, "row": 1}

    def __init__(self, col, row, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorToeplitz"):
        self._col = check_dtype(col, "col")
        self._row = as_tensor(row, self._col.dtype)
        super().__init__(self._col.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name=name,
                         parameters=dict(col=col, row=row, name=name))

    @property
    def col(self):
        """The first column."""
        return self._col

    @property
    def row(self):
        """The first row."""
        return self._row

    def _shape(self):
        batch = broadcast_batch(self._col.shape[:-1], self._row.shape[:-1])
        n = self._col.shape[-1]
        return batch + [n, n]

    def _to_dense(self):
        n = self._col.shape[-1]
        batch = self.batch_shape.as_list()
        col = T.broadcast_to(self._col, batch + [n])
        row = T.broadcast_to(self._row, batch + [n])
        # Entry (i, j) is values[n - 1 + i - j] with values = row[n-1..1] ++ col.
        values = T.concat([row[..., :0:-1], col], axis=-1)
        index = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return T.gather(values, T.convert_to_tensor(index), axis=-1, batch_dims=len(batch)) \
            if batch else T.gather(values, T.convert_to_tensor(index), axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix given by its three diagonals, in one of TF's formats: 'compact'
    (a [..., 3, N] tensor: superdiagonal, diagonal, subdiagonal, the superdiagonal's last
    and the subdiagonal's first entry unread), 'sequence' (the same three as a list) or
    'matrix' (the [..., N, N] matrix itself)."""

    _EVENT_NDIMS = {"diagonals": 2}

    def __init__(self, diagonals, diagonals_format: str = "compact",
                 is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(f"Argument `diagonals_format` must be one of compact, matrix, or "
                             f"sequence. Received : {diagonals_format}.")
        if diagonals_format == "sequence":
            parts = [as_tensor(d) for d in diagonals]
            self._super, self._diag, self._sub = [check_dtype(p, "diagonals") for p in parts]
            self._matrix = None
        else:
            tensor = check_dtype(diagonals, "diagonals")
            self._matrix = tensor if diagonals_format == "matrix" else None
            if diagonals_format == "compact":
                self._super, self._diag, self._sub = (tensor[..., i, :] for i in range(3))
        self._diagonals, self._format = diagonals, diagonals_format
        dtype = (self._matrix if self._matrix is not None else self._diag).dtype
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name=name,
                         parameters=dict(diagonals=diagonals,
                                         diagonals_format=diagonals_format, name=name))

    @property
    def diagonals(self):
        """The diagonals as given."""
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        """'compact', 'sequence' or 'matrix'."""
        return self._format

    def _shape(self):
        if self._matrix is not None:
            return self._matrix.shape
        n = self._diag.shape[-1]
        return list(self._diag.shape[:-1]) + [n, n]

    def _to_dense(self):
        if self._matrix is not None:
            return T.convert_to_tensor(self._matrix)
        main = T.diag(self._diag)
        upper = T.diag(self._super[..., :-1], k=1)
        lower = T.diag(self._sub[..., 1:], k=-1)
        return T.add(T.add(main, upper), lower)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _batch_slice(self, key):
        if self._format == "sequence":
            raise NotImplementedError("Batch slicing of a LinearOperatorTridiag given in "
                                      "'sequence' format is not supported.")
        return super()._batch_slice(key)


def _circulant_index(dims) -> np.ndarray:
    """Flat kernel index of entry (i, j) of a nested circulant matrix over `dims`: the kernel
    element at ((i_k - j_k) mod n_k) for every axis k."""
    coords = np.array(list(itertools.product(*[range(n) for n in dims])))
    diff = (coords[:, None, :] - coords[None, :, :]) % np.array(dims)
    return np.ravel_multi_index(tuple(np.moveaxis(diff, -1, 0)), dims)


class _CirculantBase(LinearOperator):
    """A (block-)circulant operator given by its spectrum: the eigenvalues, laid out as the
    FFT over the last `_RANK` axes of the convolution kernel."""

    _RANK = 1
    _NAME = "LinearOperatorCirculant"

    def __init__(self, spectrum, input_output_dtype=None,
                 is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: bool = True, name: Optional[str] = None):
        allowed = ("float16", "float32", "float64", "complex64", "complex128")
        spectrum = check_dtype(spectrum, "spectrum", allowed)
        complex_dtype = T.dtypes.complex128 if spectrum.dtype.name in ("float64", "complex128") \
            else T.dtypes.complex64
        self._spectrum = spectrum
        self._complex_spectrum = T.cast(spectrum, complex_dtype)
        _require_true("A [[nested] block] circulant operator is always square.", "is_square",
                      is_square)
        if not spectrum.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True  # a real spectrum: a Hermitian matrix
        dtype = input_output_dtype or T.dtypes.complex64
        name = name or self._NAME
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name=name,
                         parameters=dict(spectrum=spectrum,
                                         input_output_dtype=input_output_dtype, name=name))

    @property
    def spectrum(self):
        """The eigenvalues, as given."""
        return self._spectrum

    def _block_dims(self) -> list:
        return list(self._spectrum.shape[-self._RANK:])

    def _shape(self):
        size = int(np.prod(self._block_dims()))
        return list(self._spectrum.shape[:-self._RANK]) + [size, size]

    def convolution_kernel(self, name: str = "convolution_kernel"):
        """The kernel whose circular convolution the operator is: the inverse FFT of the
        spectrum (real when the operator's dtype is)."""
        inverse_fft = {1: T.ifft, 2: T.ifft2d, 3: T.ifft3d}[self._RANK]
        kernel = inverse_fft(self._complex_spectrum)
        return kernel if self.dtype.is_complex else T.cast(T.real(kernel), self.dtype)

    def _to_dense(self):
        dims = self._block_dims()
        batch = self.shape.as_list()[:-2]
        kernel = self.convolution_kernel()
        flat = T.reshape(kernel, batch + [int(np.prod(dims))])
        index = T.convert_to_tensor(_circulant_index(dims))
        return T.gather(flat, index, axis=-1, batch_dims=len(batch)) if batch else \
            T.gather(flat, index, axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return T.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        det = T.reduce_prod(T.reshape(self._complex_spectrum, self.batch_shape.as_list() + [-1]),
                            axis=-1)
        return det if self.dtype.is_complex else T.cast(T.real(det), self.dtype)

    def _log_abs_determinant(self):
        flat = T.reshape(self._complex_spectrum, self.batch_shape.as_list() + [-1])
        log_abs = T.reduce_sum(T.log(T.abs_(flat)), axis=-1)
        return T.cast(log_abs, self.dtype)

    def _eigvals(self):
        return T.cast(T.reshape(self._complex_spectrum, self.batch_shape.as_list() + [-1]),
                      self.dtype)


@tf_export("linalg.LinearOperatorCirculant")
class LinearOperatorCirculant(_CirculantBase):
    """A circulant matrix (entry (i, j) is kernel[(i - j) mod N]) given by its spectrum."""

    _EVENT_NDIMS = {"spectrum": 1}

    _RANK = 1
    _NAME = "LinearOperatorCirculant"


@tf_export("linalg.LinearOperatorCirculant2D")
class LinearOperatorCirculant2D(_CirculantBase):
    """A block-circulant matrix with circulant blocks, given by its 2-D spectrum."""

    _EVENT_NDIMS = {"spectrum": 2}

    _RANK = 2
    _NAME = "LinearOperatorCirculant2D"


@tf_export("linalg.LinearOperatorCirculant3D")
class LinearOperatorCirculant3D(_CirculantBase):
    """A circulant matrix nested three deep, given by its 3-D spectrum."""

    _EVENT_NDIMS = {"spectrum": 3}

    _RANK = 3
    _NAME = "LinearOperatorCirculant3D"


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator: row i of `operators` holds blocks (i, 0..i), the
    diagonal ones square."""

    _EVENT_NDIMS = {"operators": None}

    def __init__(self, operators, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None,
                 name: str = "LinearOperatorBlockLowerTriangular"):
        rows = [list(row) for row in operators]
        for i, row in enumerate(rows):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                                 f"Received: {len(row)} blocks.")
        self._rows = rows
        if is_non_singular is None and all(r[-1].is_non_singular for r in rows):
            is_non_singular = True
        super().__init__(rows[0][0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name=name,
                         parameters=dict(operators=operators, name=name))

    @property
    def operators(self) -> list:
        """The blocks, row by row."""
        return [list(row) for row in self._rows]

    def _sizes(self) -> list:
        return [row[-1].domain_dimension for row in self._rows]

    def _shape(self):
        batch = broadcast_batch(*[op.batch_shape.as_list() for row in self._rows
                                  for op in row])
        size = sum(self._sizes())
        return batch + [size, size]

    def _split(self, x, adjoint_arg: bool) -> list:
        return T.split(_maybe_adjoint(x, adjoint_arg), self._sizes(), axis=-2)

    def _join(self, parts) -> object:
        batch = broadcast_batch(*[p.shape[:-2] for p in parts])
        return T.concat([T.broadcast_to(p, batch + list(p.shape[-2:])) for p in parts], -2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        parts, n = self._split(x, adjoint_arg), len(self._rows)
        if adjoint:  # block j of A^H x sums A_ij^H x_i over rows i >= j
            outs = [_sum([self._rows[i][j].matmul(parts[i], adjoint=True)
                          for i in range(j, n)]) for j in range(n)]
        else:
            outs = [_sum([op.matmul(parts[j]) for j, op in enumerate(row)])
                    for row in self._rows]
        return self._join(outs)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        parts, n = self._split(rhs, adjoint_arg), len(self._rows)
        solved = [None] * n
        order = range(n - 1, -1, -1) if adjoint else range(n)
        for i in order:  # back substitution for A^H (upper), forward for A (lower)
            if adjoint:
                known = [self._rows[k][i].matmul(solved[k], adjoint=True)
                         for k in range(i + 1, n)]
            else:
                known = [self._rows[i][j].matmul(solved[j]) for j in range(i)]
            residual = T.subtract(parts[i], _sum(known)) if known else parts[i]
            solved[i] = self._rows[i][i].solve(residual, adjoint=adjoint)
        return self._join(solved)

    def _to_dense(self):
        sizes, batch = self._sizes(), self.batch_shape.as_list()
        rows = []
        for i, row in enumerate(self._rows):
            blocks = [T.broadcast_to(op.to_dense(), batch + [sizes[i], sizes[j]])
                      for j, op in enumerate(row)]
            blocks += [T.zeros(batch + [sizes[i], sizes[j]], dtype=self.dtype)
                       for j in range(i + 1, len(self._rows))]
            rows.append(T.concat(blocks, axis=-1))
        return T.concat(rows, axis=-2)

    def _determinant(self):
        return _product([row[-1].determinant() for row in self._rows])

    def _log_abs_determinant(self):
        return _sum([row[-1].log_abs_determinant() for row in self._rows])

    def _inverse_operator(self):
        """The inverse is block lower triangular too: M_ii = A_ii^-1 and, below the
        diagonal, M_ij = -A_ii^-1 sum_{j<=k<i} A_ik M_kj (kept dense)."""
        n = len(self._rows)
        inverse = [[None] * (i + 1) for i in range(n)]
        dense = [[None] * (i + 1) for i in range(n)]
        for i in range(n):
            inverse[i][i] = self._rows[i][i].inverse()
            dense[i][i] = inverse[i][i].to_dense()
            for j in range(i):
                total = _sum([self._rows[i][k].matmul(dense[k][j]) for k in range(j, i)])
                dense[i][j] = T.negative(self._rows[i][i].solve(total))
                inverse[i][j] = LinearOperatorFullMatrix(dense[i][j])
        return LinearOperatorBlockLowerTriangular(inverse, is_non_singular=True)


def _sum(values):
    total = values[0]
    for value in values[1:]:
        total = T.add(total, value)
    return total


def _product(values):
    total = values[0]
    for value in values[1:]:
        total = T.multiply(total, value)
    return total
