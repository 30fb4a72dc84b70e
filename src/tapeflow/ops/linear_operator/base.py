"""`tf.linalg.LinearOperator`: a matrix (or a batch of them) known through what it does.

A subclass says what it is through a few hooks: `_shape()` (the static shape) and
`_matmul(x, adjoint, adjoint_arg)`, and where it knows better than the dense matrix,
`_solve`, `_determinant`, `_log_abs_determinant`, `_diag_part`, `_to_dense`, ... The public
methods here check their arguments and fall back on the dense matrix for whatever a subclass
does not say. Operators that a product, inverse, adjoint or Cholesky factor of structured
operators gives back keep their structure (a diagonal times a diagonal is a diagonal), as TF's
do. TF's operators are `tf.Module`s; these are not (ops sit below the module layer) but offer
the same `name`, `variables` and `trainable_variables`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.exports import tf_export
from tapeflow.ops._static import is_traced
from tapeflow.ops.linear_operator import _ops as T

FLOATING = ("float16", "float32", "float64", "complex64", "complex128")


def check_dtype(value: Any, arg_name: str, allowed=FLOATING):
    """`value` as a tensor; TF's TypeError when its dtype is not one of `allowed`."""
    tensor = value if isinstance(value, T.Variable) else T.convert_to_tensor(value)
    if tensor.dtype.name not in allowed:
        names = ", ".join(f"tf.{n}" for n in allowed)
        raise TypeError(f"Argument `{arg_name}` must have dtype in [{names}]. "
                        f"Received: {tensor.dtype}.")
    return tensor


def as_tensor(value: Any, dtype=None):
    """`value` as a tensor (a tf.Variable is kept, so gradients reach it)."""
    if isinstance(value, T.Variable) and (dtype is None or value.dtype == dtype):
        return value
    return T.convert_to_tensor(value, dtype=dtype)


def static_dim(value: Any, what: str = "num_rows") -> Optional[int]:
    """A dimension given as an int or a scalar tensor, as a Python int. The operators' shapes
    are static, so a value only known when a traced function runs is refused."""
    if value is None:
        return None
    if is_traced(value):
        raise ValueError(f"Argument `{what}` must be known when the operator is built (a "
                         f"Python int or an eager tensor), not a traced tensor: {value!s}.")
    return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


def static_shape(value: Any, what: str = "batch_shape") -> list:
    """A shape given as a list of ints or a 1-D tensor, as a list of Python ints."""
    if value is None:
        return []
    if is_traced(value):
        static_dim(value, what)  # raises
    if hasattr(value, "numpy"):
        return [int(d) for d in np.asarray(value.numpy()).reshape(-1)]
    return [static_dim(d, what) for d in value]


def check_compatible(expected: Optional[int], got: Optional[int]) -> None:
    """TF's ValueError for two static dimensions that differ."""
    if expected is not None and got is not None and expected != got:
        raise ValueError(f"Dimensions {expected} and {got} are not compatible")


def _reconcile_hints(is_non_singular, is_self_adjoint, is_positive_definite, is_square):
    """The hints TF implies from the given ones, or its ValueError for contradicting ones."""
    if is_positive_definite:
        if is_non_singular is False:
            raise ValueError("A positive definite matrix is always non-singular.")
        is_non_singular = True
    if is_non_singular:
        if is_square is False:
            raise ValueError("A non-singular matrix is always square.")
        is_square = True
    if is_self_adjoint:
        if is_square is False:
            raise ValueError("A self-adjoint matrix is always square.")
        is_square = True
    return is_non_singular, is_self_adjoint, is_positive_definite, is_square


def _tracked_variables(values, trainable_only: bool) -> tuple:
    found = []
    for value in values:
        if isinstance(value, T.Variable):
            if value.trainable or not trainable_only:
                found.append(value)
        elif isinstance(value, LinearOperator):
            found.extend(_tracked_variables(vars(value).values(), trainable_only))
        elif isinstance(value, dict):
            found.extend(_tracked_variables(value.values(), trainable_only))
        elif isinstance(value, (list, tuple)):
            found.extend(_tracked_variables(value, trainable_only))
    unique = []
    for var in found:
        if all(var is not seen for seen in unique):
            unique.append(var)
    return tuple(unique)


@tf_export("linalg.LinearOperator")
class LinearOperator:
    """An abstract linear operator: a [batch of] M x N matrix acting on tensors by `matmul`,
    with its solves, determinants and structure (the `is_*` hints) computed from what the
    subclass knows rather than from a dense matrix where it can."""

    def __init__(self, dtype, graph_parents=None, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: Optional[str] = None,
                 parameters: Optional[dict] = None) -> None:
        hints = _reconcile_hints(is_non_singular, is_self_adjoint, is_positive_definite,
                                 is_square)
        (self._is_non_singular, self._is_self_adjoint, self._is_positive_definite,
         self._is_square) = hints
        self._dtype = T.dtypes.as_dtype(dtype) if dtype is not None else None
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- what the operator is -------------------------------------------------------------

    @property
    def name(self) -> str:
        """The operator's name (TF's default is its class name)."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the matrix and of the tensors it acts on."""
        return self._dtype

    @property
    def parameters(self) -> dict:
        """The arguments the operator was built with."""
        return dict(self._parameters)

    @property
    def variables(self) -> tuple:
        """The tf.Variables the operator holds, through nested operators too (what a
        tf.Module would track from its attributes)."""
        return _tracked_variables(vars(self).values(), trainable_only=False)

    @property
    def trainable_variables(self) -> tuple:
        """The trainable tf.Variables the operator was built from."""
        return _tracked_variables(vars(self).values(), trainable_only=True)

    @property
    def is_non_singular(self) -> Optional[bool]:
        """Whether the operator is invertible (None: not known)."""
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> Optional[bool]:
        """Whether the operator equals its conjugate transpose (None: not known)."""
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> Optional[bool]:
        """Whether x^H A x > 0 for every nonzero x, so that Re(eigenvalues) > 0."""
        return self._is_positive_definite

    @property
    def is_square(self) -> Optional[bool]:
        """Whether the matrix is square: the hint, else read off the static shape."""
        if self._is_square is not None:
            return self._is_square
        rows, cols = self.shape[-2], self.shape[-1]
        return None if rows is None or cols is None else rows == cols

    # -- shapes -------------------------------------------------------------------------

    def _shape(self):
        raise NotImplementedError(f"{type(self).__name__} does not define _shape")

    @property
    def shape(self):
        """The static TensorShape: batch dimensions, then [M, N]."""
        return T.TensorShape(self._shape())

    @property
    def batch_shape(self):
        """The static batch dimensions (all but the last two)."""
        return self.shape[:-2]

    @property
    def tensor_rank(self) -> int:
        """The rank of the dense matrix: batch rank + 2."""
        return self.shape.rank

    @property
    def domain_dimension(self):
        """N, the size of the vectors the operator acts on."""
        return self.shape[-1]

    @property
    def range_dimension(self):
        """M, the size of the vectors it produces."""
        return self.shape[-2]

    def shape_tensor(self, name: str = "shape_tensor"):
        """The shape as an int32 tensor."""
        return T.convert_to_tensor(self.shape.as_list(), dtype=T.dtypes.int32)

    def batch_shape_tensor(self, name: str = "batch_shape_tensor"):
        """The batch shape as an int32 tensor."""
        return T.convert_to_tensor(self.batch_shape.as_list(), dtype=T.dtypes.int32)

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor"):
        """The rank as an int32 scalar tensor."""
        return T.convert_to_tensor(self.tensor_rank, dtype=T.dtypes.int32)

    def domain_dimension_tensor(self, name: str = "domain_dimension_tensor"):
        """N as an int32 scalar tensor."""
        return T.convert_to_tensor(self.domain_dimension, dtype=T.dtypes.int32)

    def range_dimension_tensor(self, name: str = "range_dimension_tensor"):
        """M as an int32 scalar tensor."""
        return T.convert_to_tensor(self.range_dimension, dtype=T.dtypes.int32)

    # -- products -----------------------------------------------------------------------

    def _check_input(self, x, adjoint: bool, adjoint_arg: bool, vector: bool = False):
        """`x` as a tensor of the operator's dtype whose acted-on dimension fits."""
        x = as_tensor(x) if hasattr(x, "dtype") else as_tensor(x, self.dtype)
        if x.dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype}.  Found: "
                            f"{x.dtype} in tensor {x!s}")
        expected = self.range_dimension if adjoint else self.domain_dimension
        if vector:
            got = x.shape[-1] if x.shape.rank else None
        else:
            got = (x.shape[-1] if adjoint_arg else x.shape[-2]) if x.shape.rank else None
        check_compatible(expected, got)
        return x

    def _check_operator(self, other: "LinearOperator", adjoint: bool, adjoint_arg: bool):
        mine = self.range_dimension if adjoint else self.domain_dimension
        theirs = other.domain_dimension if adjoint_arg else other.range_dimension
        if mine is not None and theirs is not None and mine != theirs:
            raise ValueError(f"Operators are incompatible. Expected `x` to have dimension "
                             f"{mine} but got {theirs}.")

    def matmul(self, x, adjoint: bool = False, adjoint_arg: bool = False,
               name: str = "matmul"):
        """A x (A^H x with `adjoint`, A x^H with `adjoint_arg`) for a tensor x of shape
        [..., N, R], batch dimensions broadcasting; for an operator x, the operator A x
        (keeping structure where the pair has one)."""
        if isinstance(x, LinearOperator):
            self._check_operator(x, adjoint, adjoint_arg)
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return compose(left, right)
        x = self._check_input(x, adjoint, adjoint_arg)
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def _matmul(self, x, adjoint: bool = False, adjoint_arg: bool = False):
        raise NotImplementedError(f"{type(self).__name__} does not define _matmul")

    def matvec(self, x, adjoint: bool = False, name: str = "matvec"):
        """A x for a [batch of] vector x of shape [..., N]."""
        if isinstance(x, LinearOperator):
            return self.matmul(x, adjoint=adjoint)
        x = self._check_input(x, adjoint, False, vector=True)
        return T.squeeze(self._matmul(T.expand_dims(x, -1), adjoint=adjoint), -1)

    def solve(self, rhs, adjoint: bool = False, adjoint_arg: bool = False,
              name: str = "solve"):
        """X with A X = rhs (A^H X = rhs with `adjoint`; rhs^H with `adjoint_arg`); for an
        operator rhs, the operator A^-1 rhs."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            self._check_operator(rhs, adjoint, adjoint_arg)
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return compose(left.inverse(), right)
        rhs = self._check_input(rhs, not adjoint, adjoint_arg)
        return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solvevec(self, rhs, adjoint: bool = False, name: str = "solve"):
        """x with A x = rhs for a [batch of] vector rhs of shape [..., M]."""
        self._check_solvable()
        rhs = self._check_input(rhs, not adjoint, False, vector=True)
        return T.squeeze(self._solve(T.expand_dims(rhs, -1), adjoint=adjoint), -1)

    def _check_solvable(self) -> None:
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")

    def _solve(self, rhs, adjoint: bool = False, adjoint_arg: bool = False):
        rhs = T.adjoint(rhs) if adjoint_arg else rhs
        dense = self.to_dense()
        batch = broadcast_batch(dense.shape[:-2], rhs.shape[:-2])
        dense = T.broadcast_to(dense, batch + list(dense.shape[-2:]))
        rhs = T.broadcast_to(rhs, batch + list(rhs.shape[-2:]))
        if self.is_self_adjoint and self.is_positive_definite:
            return T.cholesky_solve(T.cholesky(dense), rhs)
        return T.solve(dense, rhs, adjoint=adjoint)

    # -- the dense matrix and its reductions --------------------------------------------

    def to_dense(self, name: str = "to_dense"):
        """The dense [batch of] matrix."""
        return self._to_dense()

    def _to_dense(self):
        n = self.domain_dimension
        identity = T.eye(n, batch_shape=self.batch_shape.as_list(), dtype=self.dtype)
        return self._matmul(identity)

    def diag_part(self, name: str = "diag_part"):
        """The main diagonal, shape [..., min(M, N)]."""
        return self._diag_part()

    def _diag_part(self):
        return T.diag_part(self.to_dense())

    def trace(self, name: str = "trace"):
        """The sum of the main diagonal."""
        return self._trace()

    def _trace(self):
        return T.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name: str = "add_to_tensor"):
        """A + x for a tensor x of the operator's shape (broadcasting)."""
        return T.add(self.to_dense(), as_tensor(x, self.dtype))

    def _check_square(self) -> None:
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is "
                                      "expected to not be square.")

    def determinant(self, name: str = "det"):
        """det(A) per batch member."""
        self._check_square()
        return self._determinant()

    def _determinant(self):
        if self.is_self_adjoint and self.is_positive_definite:
            return T.exp(self._log_abs_determinant())
        return T.det(self.to_dense())

    def log_abs_determinant(self, name: str = "log_abs_det"):
        """log|det(A)| per batch member."""
        self._check_square()
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        dense = self.to_dense()
        if self.is_self_adjoint and self.is_positive_definite:
            chol_diag = T.real(T.diag_part(T.cholesky(dense)))
            return T.cast(2.0 * T.reduce_sum(T.log(chol_diag), axis=-1), self.dtype)
        _, log_abs = T.slogdet(dense)
        return T.cast(T.real(log_abs), self.dtype) if self.dtype.is_complex else log_abs

    def eigvals(self, name: str = "eigvals"):
        """The eigenvalues of a self-adjoint operator (ascending for a dense one)."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return self._eigvals()

    def _eigvals(self):
        return T.eigvalsh(self.to_dense())

    def cond(self, name: str = "cond"):
        """The 2-norm condition number: largest over smallest singular value."""
        return self._cond()

    def _cond(self):
        singular = T.svd(self.to_dense(), compute_uv=False)
        return T.divide(T.reduce_max(singular, axis=-1), T.reduce_min(singular, axis=-1))

    # -- derived operators ---------------------------------------------------------------

    def adjoint(self, name: str = "adjoint"):
        """The conjugate transpose A^H as an operator (A itself when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        return self._adjoint_operator()

    @property
    def H(self):
        """The conjugate transpose A^H, as `adjoint()`."""
        return self.adjoint()

    def _adjoint_operator(self):
        from tapeflow.ops.linear_operator.combined import LinearOperatorAdjoint
        return LinearOperatorAdjoint(self)

    def inverse(self, name: str = "inverse"):
        """A^-1 as an operator."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return self._inverse_operator()

    def _inverse_operator(self):
        from tapeflow.ops.linear_operator.combined import LinearOperatorInversion
        return LinearOperatorInversion(self)

    def cholesky(self, name: str = "cholesky"):
        """The lower-triangular L with A = L L^H, as an operator; A must be hinted
        self-adjoint and positive definite."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive "
                             "definite self adjoint matrix.")
        return self._cholesky_operator()

    def _cholesky_operator(self):
        from tapeflow.ops.linear_operator.dense import LinearOperatorLowerTriangular
        return LinearOperatorLowerTriangular(T.cholesky(self.to_dense()),
                                             is_non_singular=True, is_square=True)

    def _compose_with(self, right: "LinearOperator"):
        """self @ right with a structure of its own, or None (then a composition)."""
        return None

    def _compose_after(self, left: "LinearOperator"):
        """left @ self with a structure of its own, or None."""
        return None

    # -- batches and checks ---------------------------------------------------------------

    def __getitem__(self, key):
        return self._batch_slice(key if isinstance(key, tuple) else (key,))

    # Constructor argument -> the rank of its non-batch part, for batch slicing.
    _EVENT_NDIMS: dict = {}

    def _batch_slice(self, key: tuple):
        """The operator rebuilt from its arguments with `key` applied to their batch
        dimensions (each broadcast to the operator's batch shape first)."""
        if not self._EVENT_NDIMS or any(k is Ellipsis for k in key):
            raise NotImplementedError(f"{type(self).__name__} does not support this batch "
                                      f"slice: {key}.")
        batch = self.batch_shape.as_list()
        if len([k for k in key if k is not None]) > len(batch):
            from tapeflow.framework.errors import InvalidArgumentError
            raise InvalidArgumentError(None, None, f"Slice {key} indexes more than the "
                                                   f"{len(batch)} batch dimensions of "
                                                   f"{self.name}.")
        params = self.parameters
        for arg, event_ndims in self._EVENT_NDIMS.items():
            if params.get(arg) is not None:
                params[arg] = _slice_argument(params[arg], event_ndims, batch, key)
        for hint in ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square"):
            if hint in params and params[hint] is None:
                params[hint] = getattr(self, "_" + hint)
        return type(self)(**params)

    def assert_non_singular(self, name: str = "assert_non_singular"):
        """Raises InvalidArgumentError unless the operator is invertible (eagerly)."""
        from tapeflow.framework.errors import InvalidArgumentError
        singular = T.svd(self.to_dense(), compute_uv=False)
        values = np.abs(np.asarray(singular.numpy()))
        if values.size and (values.min(axis=-1) <= values.max(axis=-1) *
                            np.finfo(values.dtype).eps * max(self.shape[-2:])).any():
            raise InvalidArgumentError(None, None, "Singular operator: a singular value is "
                                                   "(numerically) zero.")
        return None

    def assert_positive_definite(self, name: str = "assert_positive_definite"):
        """Raises InvalidArgumentError unless the Cholesky factorization succeeds."""
        T.cholesky(self.to_dense())
        return None

    def assert_self_adjoint(self, name: str = "assert_self_adjoint"):
        """Raises InvalidArgumentError unless A equals A^H (eagerly)."""
        from tapeflow.framework.errors import InvalidArgumentError
        dense = np.asarray(self.to_dense().numpy())
        if not np.allclose(dense, np.conj(np.swapaxes(dense, -1, -2))):
            raise InvalidArgumentError(None, None, "Operator not self-adjoint.")
        return None


def _holds_operators(value) -> bool:
    if isinstance(value, LinearOperator):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_operators(v) for v in value)


def _slice_argument(value, event_ndims, batch: list, key: tuple):
    """One constructor argument with the batch slice `key` applied."""
    if isinstance(value, LinearOperator):
        inner = value.batch_shape.as_list()
        if not inner:  # broadcasts against any batch: nothing to slice
            return value
        if inner != batch:
            raise NotImplementedError(f"Batch slicing of {value.name} (batch shape {inner}) "
                                      f"inside an operator of batch shape {batch} is not "
                                      f"supported.")
        return value[key]
    if _holds_operators(value):
        return [_slice_argument(v, event_ndims, batch, key) for v in value]
    if event_ndims == "shape":  # a batch_shape argument
        return list(np.empty(batch)[key].shape)
    tensor = as_tensor(value)
    event = list(tensor.shape[tensor.shape.rank - event_ndims:]) if event_ndims else []
    tensor = T.broadcast_to(tensor, batch + event)
    return tensor[key + (Ellipsis,)] if event_ndims else tensor[key]


def compose(left: LinearOperator, right: LinearOperator) -> LinearOperator:
    """left @ right: a structured operator where the pair has one, else a composition."""
    for found in (left._compose_with(right), right._compose_after(left)):
        if found is not None:
            return found
    from tapeflow.ops.linear_operator.combined import LinearOperatorComposition
    return LinearOperatorComposition([left, right])


def broadcast_batch(*shapes) -> list:
    """The broadcast of static batch shapes (lists)."""
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
