"""Dense and diagonal linear operators: full matrix, diagonal, identity, scaled identity,
lower triangular, zeros (ported from TF 2.21).

TF's classes and their logic, rewritten onto tapeflow's ops through the shim
`_compat` (TF's module names); Apache-2.0, The TensorFlow Authors."""

# ruff: noqa: E501 - the messages are kept whole as TF words them
import numpy as np
from tapeflow.ops.linear_operator._compat import (
    array_ops,
    array_ops_stack,
    check_ops,
    control_flow_ops,
    dtypes,
    errors,
    linalg,
    math_ops,
    ops,
    tensor_conversion,
    tensor_shape,
    tensor_util,
    tf_export,
)
from tapeflow.ops.linear_operator import base as linear_operator
from tapeflow.ops.linear_operator import _util

linear_operator_util = property_hint_util = slicing = _util  # TF modules

# ---- ported from tensorflow/python/ops/linalg/linear_operator_full_matrix.py ----
"""`LinearOperator` that wraps a [batch] matrix."""


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(linear_operator.LinearOperator):
    """`LinearOperator` that wraps a [batch] matrix."""

    def __init__(
        self,
        matrix,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorFullMatrix",
    ):
        parameters = dict(
            matrix=matrix,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[matrix]):
            self._matrix = linear_operator_util.convert_nonref_to_tensor(matrix, name="matrix")
            self._check_matrix(self._matrix)
            super().__init__(
                dtype=self._matrix.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_matrix(self, matrix):
        allowed_dtypes = [
            dtypes.float16,
            dtypes.float32,
            dtypes.float64,
            dtypes.complex64,
            dtypes.complex128,
        ]
        matrix = tensor_conversion.convert_to_tensor_v2_with_dispatch(matrix, name="matrix")
        dtype = matrix.dtype
        if dtype not in allowed_dtypes:
            raise TypeError(
                f"Argument `matrix` must have dtype in {allowed_dtypes}. Received: {dtype}."
            )
        if matrix.shape.ndims is not None and matrix.shape.ndims < 2:
            raise ValueError(
                f"Argument `matrix` must have at least 2 dimensions. Received: {matrix}."
            )

    @property
    def matrix(self):
        """The matrix defining this operator."""
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return self._matrix

    @property
    def _composite_tensor_fields(self):
        return ("matrix",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"matrix": 2}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_diag.py ----
"""`LinearOperator` acting like a diagonal matrix."""


@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] square diagonal matrix."""

    def __init__(
        self,
        diag,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorDiag",
    ):
        parameters = dict(
            diag=diag,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[diag]):
            self._diag = linear_operator_util.convert_nonref_to_tensor(diag, name="diag")
            self._check_diag(self._diag)
            if not self._diag.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                else:
                    is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            is_square = True
            super().__init__(
                dtype=self._diag.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_diag(self, diag):
        if diag.shape.ndims is not None and diag.shape.ndims < 1:
            raise ValueError("Argument diag must have at least 1 dimension.  Found: %s" % diag)

    def _shape(self):
        d_shape = self._diag.shape
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self):
        d_shape = array_ops.shape(self._diag)
        k = d_shape[-1]
        return array_ops.concat((d_shape, [k]), 0)

    @property
    def diag(self):
        """The diagonal `[B1, ..., Bb, N]` of this operator."""
        return self._diag

    def _linop_inverse(self) -> "LinearOperatorDiag":
        return LinearOperatorDiag(
            1.0 / self.diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_matmul(
        self, left_operator: "LinearOperatorDiag", right_operator: linear_operator.LinearOperator
    ) -> linear_operator.LinearOperator:
        is_non_singular = property_hint_util.combined_non_singular_hint(
            left_operator, right_operator
        )
        is_self_adjoint = property_hint_util.combined_commuting_self_adjoint_hint(
            left_operator, right_operator
        )
        is_positive_definite = property_hint_util.combined_commuting_positive_definite_hint(
            left_operator, right_operator
        )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(
                diag=left_operator.diag * right_operator.diag,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(
                diag=left_operator.diag * right_operator.multiplier,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                tril=left_operator.diag[..., None] * right_operator.to_dense(),
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=None,
                is_square=True,
            )
        else:
            return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(
        self, left_operator: "LinearOperatorDiag", right_operator: linear_operator.LinearOperator
    ) -> linear_operator.LinearOperator:
        is_non_singular = property_hint_util.combined_non_singular_hint(
            left_operator, right_operator
        )
        is_self_adjoint = property_hint_util.combined_commuting_self_adjoint_hint(
            left_operator, right_operator
        )
        is_positive_definite = property_hint_util.combined_commuting_positive_definite_hint(
            left_operator, right_operator
        )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(
                diag=right_operator.diag / left_operator.diag,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(
                diag=right_operator.multiplier / left_operator.diag,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                tril=right_operator.to_dense() / left_operator.diag[..., None],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=None,
                is_square=True,
            )
        else:
            return super()._linop_solve(left_operator, right_operator)

    def _assert_non_singular(self):
        return linear_operator_util.assert_no_entries_with_modulus_zero(
            self._diag, message="Singular operator:  Diagonal contained zero values."
        )

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            message = "Diagonal operator had diagonal entries with non-positive real part, thus was not positive definite."
        else:
            message = "Real diagonal operator had non-positive diagonal entries, thus was not positive definite."
        return check_ops.assert_positive(math_ops.real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return linear_operator_util.assert_zero_imag_part(
            self._diag,
            message="This diagonal operator contained non-zero imaginary values.   Thus it was not self-adjoint.",
        )

    def _linop_adjoint(self) -> "LinearOperatorDiag":
        diag = self.diag
        if diag.dtype.is_complex:
            diag = math_ops.conj(diag)
        return LinearOperatorDiag(
            diag=diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self) -> "LinearOperatorDiag":
        return LinearOperatorDiag(
            math_ops.sqrt(self.diag),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        x = linalg.adjoint(x) if adjoint_arg else x
        diag_mat = array_ops.expand_dims(diag_term, -1)
        return diag_mat * x

    def _matvec(self, x, adjoint=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        return diag_term * x

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = math_ops.cast(log_det, dtype=self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        rhs = linalg.adjoint(rhs) if adjoint_arg else rhs
        inv_diag_mat = array_ops.expand_dims(1.0 / diag_term, -1)
        return rhs * inv_diag_mat

    def _to_dense(self):
        return array_ops.matrix_diag(self._diag)

    def _diag_part(self):
        return self.diag

    def _add_to_tensor(self, x):
        x_diag = array_ops.matrix_diag_part(x)
        new_diag = self._diag + x_diag
        return array_ops.matrix_set_diag(x, new_diag)

    def _eigvals(self):
        return tensor_conversion.convert_to_tensor_v2_with_dispatch(self.diag)

    def _cond(self):
        abs_diag = math_ops.abs(self.diag)
        return math_ops.reduce_max(abs_diag, axis=-1) / math_ops.reduce_min(abs_diag, axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("diag",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"diag": 1}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_identity.py ----
"""`LinearOperator` acting like the identity matrix."""


class BaseLinearOperatorIdentity(linear_operator.LinearOperator):
    """Base class for Identity operators."""

    def _check_num_rows_possibly_add_asserts(self):
        if self._assert_proper_shapes:
            self._num_rows = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._num_rows, 0, message="Argument num_rows must be a 0-D Tensor."
                    ),
                    check_ops.assert_non_negative(
                        self._num_rows, message="Argument num_rows must be non-negative."
                    ),
                ],
                self._num_rows,
            )
        if not self._num_rows.dtype.is_integer:
            raise TypeError("Argument num_rows must be integer type.  Found: %s" % self._num_rows)
        num_rows_static = self._num_rows_static
        if num_rows_static is None:
            return
        if num_rows_static.ndim != 0:
            raise ValueError("Argument num_rows must be a 0-D Tensor.  Found: %s" % num_rows_static)
        if num_rows_static < 0:
            raise ValueError("Argument num_rows must be non-negative.  Found: %s" % num_rows_static)

    def _min_matrix_dim(self):
        domain_dim = tensor_shape.dimension_value(self.domain_dimension)
        range_dim = tensor_shape.dimension_value(self.range_dimension)
        if domain_dim is None or range_dim is None:
            return None
        return min(domain_dim, range_dim)

    def _min_matrix_dim_tensor(self):
        return math_ops.reduce_min(self.shape_tensor()[-2:])

    def _ones_diag(self):
        if self.shape.is_fully_defined():
            d_shape = self.batch_shape.concatenate([self._min_matrix_dim()])
        else:
            d_shape = array_ops.concat(
                [self.batch_shape_tensor(), [self._min_matrix_dim_tensor()]], axis=0
            )
        return array_ops.ones(shape=d_shape, dtype=self.dtype)


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(BaseLinearOperatorIdentity):
    """`LinearOperator` acting like a [batch] square identity matrix."""

    def __init__(
        self,
        num_rows,
        batch_shape=None,
        dtype=None,
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorIdentity",
    ):
        parameters = dict(
            num_rows=num_rows,
            batch_shape=batch_shape,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        dtype = dtype or dtypes.float32
        self._assert_proper_shapes = assert_proper_shapes
        with ops.name_scope(name):
            dtype = dtypes.as_dtype(dtype)
            if not is_self_adjoint:
                raise ValueError("An identity operator is always self adjoint.")
            if not is_non_singular:
                raise ValueError("An identity operator is always non-singular.")
            if not is_positive_definite:
                raise ValueError("An identity operator is always positive-definite.")
            if not is_square:
                raise ValueError("An identity operator is always square.")
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )
            linear_operator_util.assert_not_ref_type(num_rows, "num_rows")
            linear_operator_util.assert_not_ref_type(batch_shape, "batch_shape")
            self._num_rows = linear_operator_util.shape_tensor(num_rows, name="num_rows")
            self._num_rows_static = tensor_util.constant_value(self._num_rows)
            self._check_num_rows_possibly_add_asserts()
            if batch_shape is None:
                self._batch_shape_arg = None
            else:
                self._batch_shape_arg = linear_operator_util.shape_tensor(
                    batch_shape, name="batch_shape_arg"
                )
                self._batch_shape_static = tensor_util.constant_value(self._batch_shape_arg)
                self._check_batch_shape_possibly_add_asserts()

    def _shape(self):
        matrix_shape = tensor_shape.TensorShape((self._num_rows_static, self._num_rows_static))
        if self._batch_shape_arg is None:
            return matrix_shape
        batch_shape = tensor_shape.TensorShape(self._batch_shape_static)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops_stack.stack((self._num_rows, self._num_rows), axis=0)
        if self._batch_shape_arg is None:
            return matrix_shape
        return array_ops.concat((self._batch_shape_arg, matrix_shape), 0)

    def _linop_adjoint(self) -> "LinearOperatorIdentity":
        return self

    def _linop_cholesky(self) -> "LinearOperatorIdentity":
        return LinearOperatorIdentity(
            num_rows=self._num_rows,
            batch_shape=self.batch_shape,
            dtype=self.dtype,
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorIdentity":
        return self

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorIdentity",
        right_operator: linear_operator.LinearOperator,
    ) -> "LinearOperatorIdentity":
        del left_operator
        return right_operator

    def _linop_solve(
        self,
        left_operator: "LinearOperatorIdentity",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        del left_operator
        return right_operator

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _assert_positive_definite(self):
        return control_flow_ops.no_op("assert_positive_definite")

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _possibly_broadcast_batch_shape(self, x):
        if self._batch_shape_arg is None:
            return x
        special_shape = self.batch_shape.concatenate([1, 1])
        bshape = array_ops.broadcast_static_shape(x.shape, special_shape)
        if special_shape.is_fully_defined():
            if bshape == x.shape:
                return x
            zeros = array_ops.zeros(shape=special_shape, dtype=self.dtype)
            return x + zeros
        special_shape = array_ops.concat((self.batch_shape_tensor(), [1, 1]), 0)
        zeros = array_ops.zeros(shape=special_shape, dtype=self.dtype)
        return x + zeros

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg.adjoint(x) if adjoint_arg else x
        if self._assert_proper_shapes:
            aps = linear_operator_util.assert_compatible_matrix_dimensions(self, x)
            x = control_flow_ops.with_dependencies([aps], x)
        return self._possibly_broadcast_batch_shape(x)

    def _determinant(self):
        return array_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        if self.batch_shape.is_fully_defined():
            batch_of_ones = array_ops.ones(shape=self.batch_shape, dtype=self.dtype)
        else:
            batch_of_ones = array_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)
        if self._min_matrix_dim() is not None:
            return self._min_matrix_dim() * batch_of_ones
        else:
            return math_ops.cast(self._min_matrix_dim_tensor(), self.dtype) * batch_of_ones

    def _diag_part(self):
        return self._ones_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """Add matrix represented by this operator to `mat`.  Equiv to `I + mat`."""
        with self._name_scope(name):
            mat = tensor_conversion.convert_to_tensor_v2_with_dispatch(mat, name="mat")
            mat_diag = array_ops.matrix_diag_part(mat)
            new_diag = 1 + mat_diag
            return array_ops.matrix_set_diag(mat, new_diag)

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _check_num_rows_possibly_add_asserts(self):
        if self._assert_proper_shapes:
            self._num_rows = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._num_rows, 0, message="Argument num_rows must be a 0-D Tensor."
                    ),
                    check_ops.assert_non_negative(
                        self._num_rows, message="Argument num_rows must be non-negative."
                    ),
                ],
                self._num_rows,
            )
        if not self._num_rows.dtype.is_integer:
            raise TypeError("Argument num_rows must be integer type.  Found: %s" % self._num_rows)
        num_rows_static = self._num_rows_static
        if num_rows_static is None:
            return
        if num_rows_static.ndim != 0:
            raise ValueError("Argument num_rows must be a 0-D Tensor.  Found: %s" % num_rows_static)
        if num_rows_static < 0:
            raise ValueError("Argument num_rows must be non-negative.  Found: %s" % num_rows_static)

    def _check_batch_shape_possibly_add_asserts(self):
        if self._batch_shape_arg is None:
            return
        if self._assert_proper_shapes:
            self._batch_shape_arg = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._batch_shape_arg,
                        1,
                        message="Argument batch_shape must be a 1-D Tensor.",
                    ),
                    check_ops.assert_non_negative(
                        self._batch_shape_arg, message="Argument batch_shape must be non-negative."
                    ),
                ],
                self._batch_shape_arg,
            )
        if not self._batch_shape_arg.dtype.is_integer:
            raise TypeError(
                "Argument batch_shape must be integer type.  Found: %s" % self._batch_shape_arg
            )
        if self._batch_shape_static is None:
            return
        if self._batch_shape_static.ndim != 1:
            raise ValueError(
                "Argument batch_shape must be a 1-D Tensor.  Found: %s" % self._batch_shape_static
            )
        if np.any(self._batch_shape_static < 0):
            raise ValueError(
                "Argument batch_shape must be non-negative.  Found:%s" % self._batch_shape_static
            )

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        new_batch_shape = array_ops.shape(array_ops.ones(self._batch_shape_arg)[slices])
        parameters = dict(self.parameters, batch_shape=new_batch_shape)
        return LinearOperatorIdentity(**parameters)


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(BaseLinearOperatorIdentity):
    """`LinearOperator` acting like a scaled [batch] identity matrix `A = c I`."""

    def __init__(
        self,
        num_rows,
        multiplier,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorScaledIdentity",
    ):
        parameters = dict(
            num_rows=num_rows,
            multiplier=multiplier,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        self._assert_proper_shapes = assert_proper_shapes
        with ops.name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = linear_operator_util.convert_nonref_to_tensor(
                multiplier, name="multiplier"
            )
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                else:
                    is_self_adjoint = True
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            linear_operator_util.assert_not_ref_type(num_rows, "num_rows")
            super().__init__(
                dtype=self._multiplier.dtype.base_dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )
            self._num_rows = linear_operator_util.shape_tensor(num_rows, name="num_rows")
            self._num_rows_static = tensor_util.constant_value(self._num_rows)
            self._check_num_rows_possibly_add_asserts()
            self._num_rows_cast_to_dtype = math_ops.cast(self._num_rows, self.dtype)
            self._num_rows_cast_to_real_dtype = math_ops.cast(self._num_rows, self.dtype.real_dtype)

    def _shape(self):
        matrix_shape = tensor_shape.TensorShape((self._num_rows_static, self._num_rows_static))
        batch_shape = self.multiplier.shape
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops_stack.stack((self._num_rows, self._num_rows), axis=0)
        batch_shape = array_ops.shape(self.multiplier)
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _assert_non_singular(self):
        return check_ops.assert_positive(
            math_ops.abs(self.multiplier), message="LinearOperator was singular"
        )

    def _assert_positive_definite(self):
        return check_ops.assert_positive(
            math_ops.real(self.multiplier), message="LinearOperator was not positive definite."
        )

    def _assert_self_adjoint(self):
        imag_multiplier = math_ops.imag(self.multiplier)
        return check_ops.assert_equal(
            array_ops.zeros_like(imag_multiplier),
            imag_multiplier,
            message="LinearOperator was not self-adjoint",
        )

    def _make_multiplier_matrix(self, conjugate=False):
        multiplier_matrix = array_ops.expand_dims(array_ops.expand_dims(self.multiplier, -1), -1)
        if conjugate:
            multiplier_matrix = math_ops.conj(multiplier_matrix)
        return multiplier_matrix

    def _linop_adjoint(self) -> "LinearOperatorScaledIdentity":
        multiplier = self.multiplier
        if multiplier.dtype.is_complex:
            multiplier = math_ops.conj(multiplier)
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows,
            multiplier=multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self) -> "LinearOperatorScaledIdentity":
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows,
            multiplier=math_ops.sqrt(self.multiplier),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorScaledIdentity":
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows,
            multiplier=1.0 / self.multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorScaledIdentity",
        right_operator: linear_operator.LinearOperator,
    ) -> "LinearOperatorScaledIdentity":
        is_non_singular = property_hint_util.combined_non_singular_hint(
            left_operator, right_operator
        )
        is_self_adjoint = property_hint_util.combined_commuting_self_adjoint_hint(
            left_operator, right_operator
        )
        is_positive_definite = property_hint_util.combined_commuting_positive_definite_hint(
            left_operator, right_operator
        )
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left_operator.domain_dimension_tensor(),
                multiplier=left_operator.multiplier * right_operator.multiplier,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(
                diag=right_operator.diag * left_operator.multiplier,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        else:
            return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(
        self,
        left_operator: "LinearOperatorScaledIdentity",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        is_non_singular = property_hint_util.combined_non_singular_hint(
            left_operator, right_operator
        )
        is_self_adjoint = property_hint_util.combined_commuting_self_adjoint_hint(
            left_operator, right_operator
        )
        is_positive_definite = property_hint_util.combined_commuting_positive_definite_hint(
            left_operator, right_operator
        )
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left_operator.domain_dimension_tensor(),
                multiplier=right_operator.multiplier / left_operator.multiplier,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        elif isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(
                diag=right_operator.diag / left_operator.multiplier,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
            )
        else:
            return super()._linop_solve(left_operator, right_operator)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg.adjoint(x) if adjoint_arg else x
        if self._assert_proper_shapes:
            aps = linear_operator_util.assert_compatible_matrix_dimensions(self, x)
            x = control_flow_ops.with_dependencies([aps], x)
        return x * self._make_multiplier_matrix(conjugate=adjoint)

    def _determinant(self):
        return self.multiplier**self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        return self._num_rows_cast_to_real_dtype * math_ops.log(math_ops.abs(self.multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg.adjoint(rhs) if adjoint_arg else rhs
        if self._assert_proper_shapes:
            aps = linear_operator_util.assert_compatible_matrix_dimensions(self, rhs)
            rhs = control_flow_ops.with_dependencies([aps], rhs)
        return rhs / self._make_multiplier_matrix(conjugate=adjoint)

    def _trace(self):
        if self.batch_shape.is_fully_defined():
            batch_of_ones = array_ops.ones(shape=self.batch_shape, dtype=self.dtype)
        else:
            batch_of_ones = array_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)
        if self._min_matrix_dim() is not None:
            return self.multiplier * self._min_matrix_dim() * batch_of_ones
        else:
            return (
                self.multiplier
                * math_ops.cast(self._min_matrix_dim_tensor(), self.dtype)
                * batch_of_ones
            )

    def _diag_part(self):
        return self._ones_diag() * self.multiplier[..., array_ops.newaxis]

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """Add matrix represented by this operator to `mat`.  Equiv to `I + mat`."""
        with self._name_scope(name):
            multiplier_vector = array_ops.expand_dims(self.multiplier, -1)
            mat = tensor_conversion.convert_to_tensor_v2_with_dispatch(mat, name="mat")
            mat_diag = array_ops.matrix_diag_part(mat)
            new_diag = multiplier_vector + mat_diag
            return array_ops.matrix_set_diag(mat, new_diag)

    def _eigvals(self):
        return self._ones_diag() * self.multiplier[..., array_ops.newaxis]

    def _cond(self):
        return array_ops.where_v2(
            math_ops.equal(self._multiplier, 0.0),
            math_ops.cast(np.nan, dtype=self.dtype),
            math_ops.cast(1.0, dtype=self.dtype),
        )

    @property
    def multiplier(self):
        """The [batch] scalar `Tensor`, `c` in `cI`."""
        return self._multiplier

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows",)

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "multiplier", "assert_proper_shapes")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"multiplier": 0}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_lower_triangular.py ----
"""`LinearOperator` acting like a lower triangular matrix."""


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] square lower triangular matrix."""

    def __init__(
        self,
        tril,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowerTriangular",
    ):
        parameters = dict(
            tril=tril,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        is_square = True
        with ops.name_scope(name, values=[tril]):
            self._tril = linear_operator_util.convert_nonref_to_tensor(tril, name="tril")
            self._check_tril(self._tril)
            super().__init__(
                dtype=self._tril.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def tril(self):
        """The lower triangular matrix defining this operator."""
        return self._tril

    def _check_tril(self, tril):
        if tril.shape.ndims is not None and tril.shape.ndims < 2:
            raise ValueError("Argument tril must have at least 2 dimensions.  Found: %s" % tril)

    def _get_tril(self):
        return array_ops.matrix_band_part(self._tril, -1, 0)

    def _get_diag(self):
        return array_ops.matrix_diag_part(self._tril)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _assert_non_singular(self):
        return linear_operator_util.assert_no_entries_with_modulus_zero(
            self._get_diag(), message="Singular operator:  Diagonal contained zero values."
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorLowerTriangular",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if hasattr(right_operator, "_check_diag"):
            return LinearOperatorLowerTriangular(
                tril=left_operator.to_dense() * right_operator.diag,
                is_non_singular=property_hint_util.combined_non_singular_hint(
                    right_operator, left_operator
                ),
                is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                    right_operator, left_operator
                ),
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _determinant(self):
        return math_ops.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg.adjoint(rhs) if adjoint_arg else rhs
        return linalg.triangular_solve(self._get_tril(), rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()

    @property
    def _composite_tensor_fields(self):
        return ("tril",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"tril": 2}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_zeros.py ----
"""`LinearOperator` acting like a zero matrix."""


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] zero matrix."""

    def __init__(
        self,
        num_rows,
        num_columns=None,
        batch_shape=None,
        dtype=None,
        is_non_singular=False,
        is_self_adjoint=True,
        is_positive_definite=False,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorZeros",
    ):
        parameters = dict(
            num_rows=num_rows,
            num_columns=num_columns,
            batch_shape=batch_shape,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        dtype = dtype or dtypes.float32
        self._assert_proper_shapes = assert_proper_shapes
        with ops.name_scope(name):
            dtype = dtypes.as_dtype(dtype)
            if not is_self_adjoint and is_square:
                raise ValueError("A zero operator is always self adjoint.")
            if is_non_singular:
                raise ValueError("A zero operator is always singular.")
            if is_positive_definite:
                raise ValueError("A zero operator is always not positive-definite.")
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )
            linear_operator_util.assert_not_ref_type(num_rows, "num_rows")
            linear_operator_util.assert_not_ref_type(num_columns, "num_columns")
            linear_operator_util.assert_not_ref_type(batch_shape, "batch_shape")
            self._num_rows = linear_operator_util.shape_tensor(num_rows, name="num_rows")
            self._num_rows_static = tensor_util.constant_value(self._num_rows)
            if num_columns is None:
                num_columns = num_rows
            self._num_columns = linear_operator_util.shape_tensor(num_columns, name="num_columns")
            self._num_columns_static = tensor_util.constant_value(self._num_columns)
            self._check_domain_range_possibly_add_asserts()
            if self._num_rows_static is not None and self._num_columns_static is not None:
                if is_square and self._num_rows_static != self._num_columns_static:
                    raise ValueError(
                        f"LinearOperatorZeros initialized as is_square=True, but got num_rows({self._num_rows_static}) != num_columns({self._num_columns_static})"
                    )
            if batch_shape is None:
                self._batch_shape_arg = None
            else:
                self._batch_shape_arg = linear_operator_util.shape_tensor(
                    batch_shape, name="batch_shape_arg"
                )
                self._batch_shape_static = tensor_util.constant_value(self._batch_shape_arg)
                self._check_batch_shape_possibly_add_asserts()

    def _shape(self):
        matrix_shape = tensor_shape.TensorShape((self._num_rows_static, self._num_columns_static))
        if self._batch_shape_arg is None:
            return matrix_shape
        batch_shape = tensor_shape.TensorShape(self._batch_shape_static)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = array_ops_stack.stack((self._num_rows, self._num_columns), axis=0)
        if self._batch_shape_arg is None:
            return matrix_shape
        return array_ops.concat((self._batch_shape_arg, matrix_shape), 0)

    def _assert_non_singular(self):
        raise errors.InvalidArgumentError(
            node_def=None, op=None, message="Zero operators are always non-invertible."
        )

    def _assert_positive_definite(self):
        raise errors.InvalidArgumentError(
            node_def=None, op=None, message="Zero operators are always non-positive definite."
        )

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _possibly_broadcast_batch_shape(self, x):
        if self._batch_shape_arg is None:
            return x
        special_shape = self.batch_shape.concatenate([1, 1])
        bshape = array_ops.broadcast_static_shape(x.shape, special_shape)
        if special_shape.is_fully_defined():
            if bshape == x.shape:
                return x
            zeros = array_ops.zeros(shape=special_shape, dtype=self.dtype)
            return x + zeros
        special_shape = array_ops.concat((self.batch_shape_tensor(), [1, 1]), 0)
        zeros = array_ops.zeros(shape=special_shape, dtype=self.dtype)
        return x + zeros

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if self._assert_proper_shapes:
            x = linalg.adjoint(x) if adjoint_arg else x
            aps = linear_operator_util.assert_compatible_matrix_dimensions(self, x)
            x = control_flow_ops.with_dependencies([aps], x)
        if self.is_square:
            if adjoint_arg:
                output_shape = array_ops.concat(
                    [array_ops.shape(x)[:-2], [array_ops.shape(x)[-1], array_ops.shape(x)[-2]]],
                    axis=0,
                )
            else:
                output_shape = array_ops.shape(x)
            return self._possibly_broadcast_batch_shape(
                array_ops.zeros(shape=output_shape, dtype=x.dtype)
            )
        x_shape = array_ops.shape(x)
        n = self._num_columns if adjoint else self._num_rows
        m = x_shape[-2] if adjoint_arg else x_shape[-1]
        output_shape = array_ops.concat([x_shape[:-2], [n, m]], axis=0)
        zeros = array_ops.zeros(shape=output_shape, dtype=x.dtype)
        return self._possibly_broadcast_batch_shape(zeros)

    def _linop_matmul(
        self, left_operator: "LinearOperatorZeros", right_operator: linear_operator.LinearOperator
    ) -> linear_operator.LinearOperator:
        if not left_operator.is_square or not right_operator.is_square:
            raise ValueError(
                "Matmul with non-square `LinearOperator`s or non-square `LinearOperatorZeros` not supported at this time."
            )
        return left_operator

    def _determinant(self):
        if self.batch_shape.is_fully_defined():
            return array_ops.zeros(shape=self.batch_shape, dtype=self.dtype)
        else:
            return array_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _trace(self):
        if self.batch_shape.is_fully_defined():
            return array_ops.zeros(shape=self.batch_shape, dtype=self.dtype)
        else:
            return array_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self):
        return self._zeros_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """Add matrix represented by this operator to `mat`.  Equiv to `I + mat`."""
        return self._possibly_broadcast_batch_shape(mat)

    def _check_domain_range_possibly_add_asserts(self):
        if self._assert_proper_shapes:
            self._num_rows = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._num_rows, 0, message="Argument num_rows must be a 0-D Tensor."
                    ),
                    check_ops.assert_non_negative(
                        self._num_rows, message="Argument num_rows must be non-negative."
                    ),
                ],
                self._num_rows,
            )
            self._num_columns = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._num_columns, 0, message="Argument num_columns must be a 0-D Tensor."
                    ),
                    check_ops.assert_non_negative(
                        self._num_columns, message="Argument num_columns must be non-negative."
                    ),
                ],
                self._num_columns,
            )
        if not self._num_rows.dtype.is_integer:
            raise TypeError("Argument num_rows must be integer type.  Found: %s" % self._num_rows)
        if not self._num_columns.dtype.is_integer:
            raise TypeError(
                "Argument num_columns must be integer type.  Found: %s" % self._num_columns
            )
        num_rows_static = self._num_rows_static
        num_columns_static = self._num_columns_static
        if num_rows_static is not None:
            if num_rows_static.ndim != 0:
                raise ValueError(
                    "Argument num_rows must be a 0-D Tensor.  Found: %s" % num_rows_static
                )
            if num_rows_static < 0:
                raise ValueError(
                    "Argument num_rows must be non-negative.  Found: %s" % num_rows_static
                )
        if num_columns_static is not None:
            if num_columns_static.ndim != 0:
                raise ValueError(
                    "Argument num_columns must be a 0-D Tensor.  Found: %s" % num_columns_static
                )
            if num_columns_static < 0:
                raise ValueError(
                    "Argument num_columns must be non-negative.  Found: %s" % num_columns_static
                )

    def _check_batch_shape_possibly_add_asserts(self):
        if self._batch_shape_arg is None:
            return
        if self._assert_proper_shapes:
            self._batch_shape_arg = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_rank(
                        self._batch_shape_arg,
                        1,
                        message="Argument batch_shape must be a 1-D Tensor.",
                    ),
                    check_ops.assert_non_negative(
                        self._batch_shape_arg, message="Argument batch_shape must be non-negative."
                    ),
                ],
                self._batch_shape_arg,
            )
        if not self._batch_shape_arg.dtype.is_integer:
            raise TypeError(
                "Argument batch_shape must be integer type.  Found: %s" % self._batch_shape_arg
            )
        if self._batch_shape_static is None:
            return
        if self._batch_shape_static.ndim != 1:
            raise ValueError(
                "Argument batch_shape must be a 1-D Tensor.  Found: %s" % self._batch_shape_static
            )
        if np.any(self._batch_shape_static < 0):
            raise ValueError(
                "Argument batch_shape must be non-negative.  Found:%s" % self._batch_shape_static
            )

    def _min_matrix_dim(self):
        domain_dim = self.domain_dimension.value
        range_dim = self.range_dimension.value
        if domain_dim is None or range_dim is None:
            return None
        return min(domain_dim, range_dim)

    def _min_matrix_dim_tensor(self):
        return math_ops.reduce_min(self.shape_tensor()[-2:])

    def _zeros_diag(self):
        if self.shape.is_fully_defined():
            d_shape = self.batch_shape.concatenate([self._min_matrix_dim()])
        else:
            d_shape = array_ops.concat(
                [self.batch_shape_tensor(), [self._min_matrix_dim_tensor()]], axis=0
            )
        return array_ops.zeros(shape=d_shape, dtype=self.dtype)

    def _eigvals(self):
        return self._zeros_diag()

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "num_columns", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "num_columns", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        new_batch_shape = array_ops.shape(array_ops.ones(self._batch_shape_arg)[slices])
        parameters = dict(self.parameters, batch_shape=new_batch_shape)
        return LinearOperatorZeros(**parameters)
