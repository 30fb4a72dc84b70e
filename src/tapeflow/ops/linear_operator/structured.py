"""Structured linear operators built from others or from a few parameters (ported from TF 2.21).

TF's classes and their logic, rewritten onto tapeflow's ops through the shim
`_compat` (TF's module names); Apache-2.0, The TensorFlow Authors."""

# ruff: noqa: E501 - the messages are kept whole as TF words them
import numpy as np
from tapeflow.ops.linear_operator._compat import (
    Tensor,
    abc,
    array_ops,
    array_ops_stack,
    check_ops,
    common_shapes,
    control_flow_ops,
    distribution_util,
    dtypes,
    errors,
    fft_ops,
    gen_array_ops,
    linalg,
    linalg_ops,
    logging,
    manip_ops,
    math_ops,
    nest,
    nn,
    ops,
    sort_ops,
    tensor_conversion,
    tensor_shape,
    tensor_util,
    tf_export,
)
from tapeflow.ops.linear_operator import base as linear_operator
from tapeflow.ops.linear_operator import basic as linear_operator_full_matrix
from tapeflow.ops.linear_operator import basic as linear_operator_diag
from tapeflow.ops.linear_operator import basic as linear_operator_identity
from tapeflow.ops.linear_operator import basic as linear_operator_lower_triangular
from tapeflow.ops.linear_operator import _util

linear_operator_util = property_hint_util = slicing = _util  # TF modules

# ---- ported from tensorflow/python/ops/linalg/linear_operator_composition.py ----
"""Composes one or more `LinearOperators`."""


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(linear_operator.LinearOperator):
    """Composes one or more `LinearOperators`."""

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = dict(
            operators=operators,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        check_ops.assert_proper_iterable(operators)
        operators = list(operators)
        if not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in operators)
                raise TypeError(
                    "Expected all operators to have the same dtype.  Found %s"
                    % "   ".join(name_type)
                )
        if all(operator.is_non_singular for operator in operators):
            if is_non_singular is False:
                raise ValueError(
                    "The composition of non-singular operators is always non-singular."
                )
            is_non_singular = True
        if _composition_must_be_self_adjoint(operators):
            if is_self_adjoint is False:
                raise ValueError(
                    "The composition was determined to be self-adjoint but user provided incorrect `False` hint."
                )
            is_self_adjoint = True
        if linear_operator_util.is_aat_form(operators):
            if is_square is False:
                raise ValueError(
                    "The composition was determined have the form A @ A.H, hence it must be square. The user provided an incorrect `False` hint."
                )
            is_square = True
        if linear_operator_util.is_aat_form(operators) and is_non_singular:
            if is_positive_definite is False:
                raise ValueError(
                    "The composition was determined to be non-singular and have the form A @ A.H, hence it must be positive-definite. The user provided an incorrect `False` hint."
                )
            is_positive_definite = True
        if name is None:
            name = "_o_".join(operator.name for operator in operators)
        with ops.name_scope(name):
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def operators(self):
        """The operators this one is built from."""
        return self._operators

    def _shape(self):
        domain_dimension = self.operators[0].domain_dimension
        for operator in self.operators[1:]:
            domain_dimension.assert_is_compatible_with(operator.range_dimension)
            domain_dimension = operator.domain_dimension
        matrix_shape = tensor_shape.TensorShape(
            [self.operators[0].range_dimension, self.operators[-1].domain_dimension]
        )
        batch_shape = self.operators[0].batch_shape
        for operator in self.operators[1:]:
            batch_shape = common_shapes.broadcast_shape(batch_shape, operator.batch_shape)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        if self.shape.is_fully_defined():
            return ops.convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32, name="shape")
        matrix_shape = array_ops_stack.stack(
            [
                self.operators[0].range_dimension_tensor(),
                self.operators[-1].domain_dimension_tensor(),
            ]
        )
        zeros = array_ops.zeros(shape=self.operators[0].batch_shape_tensor())
        for operator in self.operators[1:]:
            zeros += array_ops.zeros(shape=operator.batch_shape_tensor())
        batch_shape = array_ops.shape(zeros)
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _linop_cholesky(self) -> linear_operator.LinearOperator:

        def _is_llt_product(self):
            if len(self.operators) != 2:
                return False
            if not linear_operator_util.is_aat_form(self.operators):
                return False
            return isinstance(
                self.operators[0], linear_operator_lower_triangular.LinearOperatorLowerTriangular
            )

        if not _is_llt_product(self):
            return linear_operator_lower_triangular.LinearOperatorLowerTriangular(
                linalg_ops.cholesky(self.to_dense()),
                is_non_singular=True,
                is_self_adjoint=False,
                is_square=True,
            )
        left_op = self.operators[0]
        if left_op.is_positive_definite:
            return left_op
        diag_sign = array_ops.expand_dims(math_ops.sign(left_op.diag_part()), axis=-2)
        return linear_operator_lower_triangular.LinearOperatorLowerTriangular(
            tril=left_op.tril / diag_sign,
            is_non_singular=left_op.is_non_singular,
            is_self_adjoint=left_op.is_self_adjoint,
            is_positive_definite=True if left_op.is_positive_definite else None,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if adjoint:
            matmul_order_list = self.operators
        else:
            matmul_order_list = list(reversed(self.operators))
        result = matmul_order_list[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in matmul_order_list[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        result = self.operators[0].determinant()
        for operator in self.operators[1:]:
            result *= operator.determinant()
        return result

    def _log_abs_determinant(self):
        result = self.operators[0].log_abs_determinant()
        for operator in self.operators[1:]:
            result += operator.log_abs_determinant()
        return result

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if adjoint:
            solve_order_list = list(reversed(self.operators))
        else:
            solve_order_list = self.operators
        solution = solve_order_list[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in solve_order_list[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _assert_non_singular(self):
        if all(operator.is_square for operator in self.operators):
            asserts = [operator.assert_non_singular() for operator in self.operators]
            return control_flow_ops.group(asserts)
        return super()._assert_non_singular()

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}


def _composition_must_be_self_adjoint(operators):
    if len(operators) == 1 and operators[0].is_self_adjoint:
        return True
    if linear_operator_util.is_aat_form(operators):
        return True
    return False


# ---- ported from tensorflow/python/ops/linalg/linear_operator_adjoint.py ----
"""Takes the adjoint of a `LinearOperator`."""


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(linear_operator.LinearOperator):
    """`LinearOperator` representing the adjoint of another operator."""

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = dict(
            operator=operator,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._operator = operator
        combine_hint = linear_operator_util.use_operator_or_provided_hint_unless_contradicting
        is_square = combine_hint(
            operator,
            "is_square",
            is_square,
            "An operator is square if and only if its adjoint is square.",
        )
        is_non_singular = combine_hint(
            operator,
            "is_non_singular",
            is_non_singular,
            "An operator is non-singular if and only if its adjoint is non-singular.",
        )
        is_self_adjoint = combine_hint(
            operator,
            "is_self_adjoint",
            is_self_adjoint,
            "An operator is self-adjoint if and only if its adjoint is self-adjoint.",
        )
        is_positive_definite = combine_hint(
            operator,
            "is_positive_definite",
            is_positive_definite,
            "An operator is positive-definite if and only if its adjoint is positive-definite.",
        )
        if name is None:
            name = operator.name + "_adjoint"
        with ops.name_scope(name):
            super().__init__(
                dtype=operator.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def operator(self):
        """The operator before taking the adjoint."""
        return self._operator

    def _linop_adjoint(self) -> linear_operator.LinearOperator:
        return self.operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        shape = self.operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        shape = self.operator.shape_tensor()
        return array_ops.concat([shape[:-2], [shape[-1], shape[-2]]], axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self.operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        if self.is_self_adjoint:
            return self.operator.determinant()
        return math_ops.conj(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _trace(self):
        if self.is_self_adjoint:
            return self.operator.trace()
        return math_ops.conj(self.operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self.operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self.operator.to_dense()
        return linalg.adjoint(self.operator.to_dense())

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def _eigvals(self):
        eigvals = self.operator.eigvals()
        if not self.operator.is_self_adjoint:
            eigvals = math_ops.conj(eigvals)
        return eigvals

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_inversion.py ----
"""Inverts a non-singular `LinearOperator`."""


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(linear_operator.LinearOperator):
    """`LinearOperator` representing the inverse of another operator."""

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = dict(
            operator=operator,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                f"Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal to `True` or `None`. Found `operator.is_non_singular`: {operator.is_non_singular}, `is_non_singular`: {is_non_singular}."
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                f"Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` or `None`. Found `operator.is_square`: {operator.is_square}, `is_square`: {is_square}."
            )
        combine_hint = linear_operator_util.use_operator_or_provided_hint_unless_contradicting
        is_square = combine_hint(
            operator,
            "is_square",
            is_square,
            "An operator is square if and only if its inverse is square.",
        )
        is_non_singular = combine_hint(
            operator,
            "is_non_singular",
            is_non_singular,
            "An operator is non-singular if and only if its inverse is non-singular.",
        )
        is_self_adjoint = combine_hint(
            operator,
            "is_self_adjoint",
            is_self_adjoint,
            "An operator is self-adjoint if and only if its inverse is self-adjoint.",
        )
        is_positive_definite = combine_hint(
            operator,
            "is_positive_definite",
            is_positive_definite,
            "An operator is positive-definite if and only if its inverse is positive-definite.",
        )
        if name is None:
            name = operator.name + "_inv"
        with ops.name_scope(name):
            super().__init__(
                dtype=operator.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def operator(self) -> "LinearOperatorInversion":
        """The operator before inversion."""
        return self._operator

    def _linop_inverse(self) -> linear_operator.LinearOperator:
        return self.operator

    def _linop_solve(
        self,
        left_operator: "LinearOperatorInversion",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        return left_operator.operator.matmul(right_operator)

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        return self.operator.shape

    def _shape_tensor(self):
        return self.operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self.operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self.operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1.0 / self.operator.eigvals()

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_block_diag.py ----
"""Create a Block Diagonal operator from one or more `LinearOperators`."""


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(linear_operator.LinearOperator):
    """Combines one or more `LinearOperators` in to a Block Diagonal matrix."""

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=None,
    ):
        parameters = dict(
            operators=operators,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        check_ops.assert_proper_iterable(operators)
        operators = list(operators)
        if not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = operators
        self._diagonal_operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in operators)
                raise TypeError(
                    "Expected all operators to have the same dtype.  Found %s"
                    % "   ".join(name_type)
                )
        if all(operator.is_non_singular for operator in operators):
            if is_non_singular is False:
                raise ValueError("The direct sum of non-singular operators is always non-singular.")
            is_non_singular = True
        if all(operator.is_self_adjoint for operator in operators):
            if is_self_adjoint is False:
                raise ValueError("The direct sum of self-adjoint operators is always self-adjoint.")
            is_self_adjoint = True
        if all(operator.is_positive_definite for operator in operators):
            if is_positive_definite is False:
                raise ValueError(
                    "The direct sum of positive definite operators is always positive definite."
                )
            is_positive_definite = True
        if name is None:
            name = "_ds_".join(operator.name for operator in operators)
        with ops.name_scope(name):
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def operators(self):
        """The operators this one is built from."""
        return self._operators

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self._diagonal_operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self._diagonal_operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _shape(self):
        domain_dimension = sum(self._block_domain_dimensions())
        range_dimension = sum(self._block_range_dimensions())
        matrix_shape = tensor_shape.TensorShape([range_dimension, domain_dimension])
        batch_shape = self.operators[0].batch_shape
        for operator in self.operators[1:]:
            batch_shape = common_shapes.broadcast_shape(batch_shape, operator.batch_shape)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        if self.shape.is_fully_defined():
            return tensor_conversion.convert_to_tensor_v2_with_dispatch(
                self.shape.as_list(), dtype=dtypes.int32, name="shape"
            )
        domain_dimension = sum(self._block_domain_dimension_tensors())
        range_dimension = sum(self._block_range_dimension_tensors())
        matrix_shape = array_ops_stack.stack([range_dimension, domain_dimension])
        zeros = array_ops.zeros(shape=self.operators[0].batch_shape_tensor())
        for operator in self.operators[1:]:
            zeros += array_ops.zeros(shape=operator.batch_shape_tensor())
        batch_shape = array_ops.shape(zeros)
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _linop_adjoint(self) -> "LinearOperatorBlockDiag":
        return LinearOperatorBlockDiag(
            operators=[operator.adjoint() for operator in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self) -> "LinearOperatorBlockDiag":
        return LinearOperatorBlockDiag(
            operators=[operator.cholesky() for operator in self.operators],
            is_non_singular=True,
            is_self_adjoint=None,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorBlockDiag":
        return LinearOperatorBlockDiag(
            operators=[operator.inverse() for operator in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorBlockDiag",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                operators=[
                    o1.matmul(o2)
                    for o1, o2 in zip(left_operator.operators, right_operator.operators)
                ],
                is_non_singular=property_hint_util.combined_non_singular_hint(
                    left_operator, right_operator
                ),
                is_self_adjoint=None,
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(
        self,
        left_operator: "LinearOperatorBlockDiag",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                operators=[
                    o1.solve(o2)
                    for o1, o2 in zip(left_operator.operators, right_operator.operators)
                ],
                is_non_singular=property_hint_util.combined_non_singular_hint(
                    left_operator, right_operator
                ),
                is_self_adjoint=None,
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_solve(left_operator, right_operator)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """Transform [batch] matrix `x` with left multiplication:  `x --> Ax`."""

        def _check_operators_agree(r, l, message):
            if (
                r.range_dimension is not None
                and l.domain_dimension is not None
                and (r.range_dimension != l.domain_dimension)
            ):
                raise ValueError(message)

        if isinstance(x, linear_operator.LinearOperator):
            left_operator = self.adjoint() if adjoint else self
            right_operator = x.adjoint() if adjoint_arg else x
            _check_operators_agree(
                right_operator,
                left_operator,
                f"Operators are incompatible. Expected `x` to have dimension {left_operator.domain_dimension} but got {right_operator.range_dimension}.",
            )
            if isinstance(x, LinearOperatorBlockDiag):
                if len(left_operator.operators) != len(right_operator.operators):
                    raise ValueError(
                        "Can not efficiently multiply two `LinearOperatorBlockDiag`s together when number of blocks differ."
                    )
                for o1, o2 in zip(left_operator.operators, right_operator.operators):
                    _check_operators_agree(
                        o2,
                        o1,
                        f"Blocks are incompatible. Expected `x` to have dimension {o1.domain_dimension} but got {o2.range_dimension}.",
                    )
            with self._name_scope(name):
                return self._linop_matmul(left_operator, right_operator)
        with self._name_scope(name):
            arg_dim = -1 if adjoint_arg else -2
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, x, arg_dim):
                for i, block in enumerate(x):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[arg_dim])
                        x[i] = block
            else:
                x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
                self._check_input_dtype(x)
                op_dimension = self.range_dimension if adjoint else self.domain_dimension
                op_dimension.assert_is_compatible_with(x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = (
            self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        )
        block_dimensions_fn = (
            self._block_range_dimension_tensors if adjoint else self._block_domain_dimension_tensors
        )
        blockwise_arg = linear_operator_util.arg_is_blockwise(block_dimensions, x, arg_dim)
        if blockwise_arg:
            split_x = x
        else:
            split_dim = -1 if adjoint_arg else -2
            split_x = linear_operator_util.split_arg_into_blocks(
                block_dimensions, block_dimensions_fn, x, axis=split_dim
            )
        result_list = []
        for index, operator in enumerate(self.operators):
            result_list += [
                operator.matmul(split_x[index], adjoint=adjoint, adjoint_arg=adjoint_arg)
            ]
        if blockwise_arg:
            return result_list
        result_list = linear_operator_util.broadcast_matrix_batch_dims(result_list)
        return array_ops.concat(result_list, axis=-2)

    def matvec(self, x, adjoint=False, name="matvec"):
        """Transform [batch] vector `x` with left multiplication:  `x --> Ax`."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, x, -1):
                for i, block in enumerate(x):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[-1])
                        x[i] = block
                x_mat = [block[..., array_ops.newaxis] for block in x]
                y_mat = self.matmul(x_mat, adjoint=adjoint)
                return [array_ops.squeeze(y, axis=-1) for y in y_mat]
            x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
            self._check_input_dtype(x)
            op_dimension = self.range_dimension if adjoint else self.domain_dimension
            op_dimension.assert_is_compatible_with(x.shape[-1])
            x_mat = x[..., array_ops.newaxis]
            y_mat = self.matmul(x_mat, adjoint=adjoint)
            return array_ops.squeeze(y_mat, axis=-1)

    def _determinant(self):
        result = self.operators[0].determinant()
        for operator in self.operators[1:]:
            result *= operator.determinant()
        return result

    def _log_abs_determinant(self):
        result = self.operators[0].log_abs_determinant()
        for operator in self.operators[1:]:
            result += operator.log_abs_determinant()
        return result

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """Solve (exact or approx) `R` (batch) systems of equations: `A X = rhs`."""
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square."
            )

        def _check_operators_agree(r, l, message):
            if (
                r.range_dimension is not None
                and l.domain_dimension is not None
                and (r.range_dimension != l.domain_dimension)
            ):
                raise ValueError(message)

        if isinstance(rhs, linear_operator.LinearOperator):
            left_operator = self.adjoint() if adjoint else self
            right_operator = rhs.adjoint() if adjoint_arg else rhs
            _check_operators_agree(
                right_operator,
                left_operator,
                f"Operators are incompatible. Expected `x` to have dimension {left_operator.domain_dimension} but got {right_operator.range_dimension}.",
            )
            if isinstance(right_operator, LinearOperatorBlockDiag):
                if len(left_operator.operators) != len(right_operator.operators):
                    raise ValueError(
                        "Can not efficiently solve `LinearOperatorBlockDiag` when number of blocks differ."
                    )
                for o1, o2 in zip(left_operator.operators, right_operator.operators):
                    _check_operators_agree(
                        o2,
                        o1,
                        f"Blocks are incompatible. Expected `x` to have dimension {o1.domain_dimension} but got {o2.range_dimension}.",
                    )
            with self._name_scope(name):
                return self._linop_solve(left_operator, right_operator)
        with self._name_scope(name):
            block_dimensions = (
                self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            )
            arg_dim = -1 if adjoint_arg else -2
            blockwise_arg = linear_operator_util.arg_is_blockwise(block_dimensions, rhs, arg_dim)
            if blockwise_arg:
                split_rhs = rhs
                for i, block in enumerate(split_rhs):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[arg_dim])
                        split_rhs[i] = block
            else:
                rhs = tensor_conversion.convert_to_tensor_v2_with_dispatch(rhs, name="rhs")
                self._check_input_dtype(rhs)
                op_dimension = self.domain_dimension if adjoint else self.range_dimension
                op_dimension.assert_is_compatible_with(rhs.shape[arg_dim])
                split_dim = -1 if adjoint_arg else -2
                split_rhs = linear_operator_util.split_arg_into_blocks(
                    self._block_domain_dimensions(),
                    self._block_domain_dimension_tensors,
                    rhs,
                    axis=split_dim,
                )
            solution_list = []
            for index, operator in enumerate(self.operators):
                solution_list += [
                    operator.solve(split_rhs[index], adjoint=adjoint, adjoint_arg=adjoint_arg)
                ]
            if blockwise_arg:
                return solution_list
            solution_list = linear_operator_util.broadcast_matrix_batch_dims(solution_list)
            return array_ops.concat(solution_list, axis=-2)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """Solve single equation with best effort: `A X = rhs`."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, rhs, -1):
                for i, block in enumerate(rhs):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[-1])
                        rhs[i] = block
                rhs_mat = [array_ops.expand_dims(block, axis=-1) for block in rhs]
                solution_mat = self.solve(rhs_mat, adjoint=adjoint)
                return [array_ops.squeeze(x, axis=-1) for x in solution_mat]
            rhs = tensor_conversion.convert_to_tensor_v2_with_dispatch(rhs, name="rhs")
            self._check_input_dtype(rhs)
            op_dimension = self.domain_dimension if adjoint else self.range_dimension
            op_dimension.assert_is_compatible_with(rhs.shape[-1])
            rhs_mat = array_ops.expand_dims(rhs, axis=-1)
            solution_mat = self.solve(rhs_mat, adjoint=adjoint)
            return array_ops.squeeze(solution_mat, axis=-1)

    def _diag_part(self):
        if not all(operator.is_square for operator in self.operators):
            raise NotImplementedError(
                "`diag_part` not implemented for an operator whose blocks are not square."
            )
        diag_list = []
        for operator in self.operators:
            diag_list += [operator.diag_part()[..., array_ops.newaxis]]
        diag_list = linear_operator_util.broadcast_matrix_batch_dims(diag_list)
        diagonal = array_ops.concat(diag_list, axis=-2)
        return array_ops.squeeze(diagonal, axis=-1)

    def _trace(self):
        if not all(operator.is_square for operator in self.operators):
            raise NotImplementedError(
                "`trace` not implemented for an operator whose blocks are not square."
            )
        result = self.operators[0].trace()
        for operator in self.operators[1:]:
            result += operator.trace()
        return result

    def _to_dense(self):
        num_cols = 0
        rows = []
        broadcasted_blocks = [operator.to_dense() for operator in self.operators]
        broadcasted_blocks = linear_operator_util.broadcast_matrix_batch_dims(broadcasted_blocks)
        for block in broadcasted_blocks:
            batch_row_shape = array_ops.shape(block)[:-1]
            zeros_to_pad_before_shape = array_ops.concat([batch_row_shape, [num_cols]], axis=-1)
            zeros_to_pad_before = array_ops.zeros(
                shape=zeros_to_pad_before_shape, dtype=block.dtype
            )
            num_cols += array_ops.shape(block)[-1]
            zeros_to_pad_after_shape = array_ops.concat(
                [batch_row_shape, [self.domain_dimension_tensor() - num_cols]], axis=-1
            )
            zeros_to_pad_after = array_ops.zeros(shape=zeros_to_pad_after_shape, dtype=block.dtype)
            rows.append(array_ops.concat([zeros_to_pad_before, block, zeros_to_pad_after], axis=-1))
        mat = array_ops.concat(rows, axis=-2)
        pass  # eager tensors carry their shape (TF: mat.set_shape(self.shape))
        return mat

    def _assert_non_singular(self):
        return control_flow_ops.group(
            [operator.assert_non_singular() for operator in self.operators]
        )

    def _assert_self_adjoint(self):
        return control_flow_ops.group(
            [operator.assert_self_adjoint() for operator in self.operators]
        )

    def _assert_positive_definite(self):
        return control_flow_ops.group(
            [operator.assert_positive_definite() for operator in self.operators]
        )

    def _eigvals(self):
        if not all(operator.is_square for operator in self.operators):
            raise NotImplementedError(
                "`eigvals` not implemented for an operator whose blocks are not square."
            )
        eig_list = []
        for operator in self.operators:
            eig_list += [operator.eigvals()[..., array_ops.newaxis]]
        eig_list = linear_operator_util.broadcast_matrix_batch_dims(eig_list)
        eigs = array_ops.concat(eig_list, axis=-2)
        return array_ops.squeeze(eigs, axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_kronecker.py ----
"""Construct the Kronecker product of one or more `LinearOperators`."""


def _prefer_static_shape(x):
    if x.shape.is_fully_defined():
        return x.shape
    return array_ops.shape(x)


def _prefer_static_concat_shape(first_shape, second_shape_int_list):
    second_shape_int_list_static = [tensor_util.constant_value(s) for s in second_shape_int_list]
    if isinstance(first_shape, tensor_shape.TensorShape) and all(
        s is not None for s in second_shape_int_list_static
    ):
        return first_shape.concatenate(second_shape_int_list_static)
    return array_ops.concat([first_shape, second_shape_int_list], axis=0)


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(linear_operator.LinearOperator):
    """Kronecker product between two `LinearOperators`."""

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = dict(
            operators=operators,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        check_ops.assert_proper_iterable(operators)
        operators = list(operators)
        if not operators:
            raise ValueError(
                f"Argument `operators` must be a list of >=1 operators. Received: {operators}."
            )
        self._operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in operators)
                raise TypeError(
                    f"Expected every operation in argument `operators` to have the same dtype. Received {list(name_type)}."
                )
        if all(operator.is_non_singular for operator in operators):
            if is_non_singular is False:
                raise ValueError(
                    f"The Kronecker product of non-singular operators is always non-singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            is_non_singular = True
        if all(operator.is_self_adjoint for operator in operators):
            if is_self_adjoint is False:
                raise ValueError(
                    f"The Kronecker product of self-adjoint operators is always self-adjoint. Expected argument `is_self_adjoint` to be True. Received: {is_self_adjoint}."
                )
            is_self_adjoint = True
        if all(operator.is_positive_definite for operator in operators):
            if is_positive_definite is False:
                raise ValueError(
                    f"The Kronecker product of positive-definite operators is always positive-definite. Expected argument `is_positive_definite` to be True. Received: {is_positive_definite}."
                )
            is_positive_definite = True
        if name is None:
            name = operators[0].name
            for operator in operators[1:]:
                name += "_x_" + operator.name
        with ops.name_scope(name):
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    @property
    def operators(self):
        """The operators this one is built from."""
        return self._operators

    def _shape(self):
        domain_dimension = self.operators[0].domain_dimension
        for operator in self.operators[1:]:
            domain_dimension = domain_dimension * operator.domain_dimension
        range_dimension = self.operators[0].range_dimension
        for operator in self.operators[1:]:
            range_dimension = range_dimension * operator.range_dimension
        matrix_shape = tensor_shape.TensorShape([range_dimension, domain_dimension])
        batch_shape = self.operators[0].batch_shape
        for operator in self.operators[1:]:
            batch_shape = common_shapes.broadcast_shape(batch_shape, operator.batch_shape)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        domain_dimension = self.operators[0].domain_dimension_tensor()
        for operator in self.operators[1:]:
            domain_dimension = domain_dimension * operator.domain_dimension_tensor()
        range_dimension = self.operators[0].range_dimension_tensor()
        for operator in self.operators[1:]:
            range_dimension = range_dimension * operator.range_dimension_tensor()
        matrix_shape = [range_dimension, domain_dimension]
        batch_shape = self.operators[0].batch_shape_tensor()
        for operator in self.operators[1:]:
            batch_shape = array_ops.broadcast_dynamic_shape(
                batch_shape, operator.batch_shape_tensor()
            )
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _linop_adjoint(self) -> "LinearOperatorKronecker":
        return LinearOperatorKronecker(
            operators=[operator.adjoint() for operator in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self) -> "LinearOperatorKronecker":
        return LinearOperatorKronecker(
            operators=[operator.cholesky() for operator in self.operators],
            is_non_singular=True,
            is_self_adjoint=None,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorKronecker":
        return LinearOperatorKronecker(
            operators=[operator.inverse() for operator in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _solve_matmul_internal(self, x, solve_matmul_fn, adjoint=False, adjoint_arg=False):
        output = x
        if adjoint_arg:
            if self.dtype.is_complex:
                output = math_ops.conj(output)
        else:
            output = linalg.transpose(output)
        for o in reversed(self.operators):
            if adjoint:
                operator_dimension = o.range_dimension_tensor()
            else:
                operator_dimension = o.domain_dimension_tensor()
            output_shape = _prefer_static_shape(output)
            if tensor_util.constant_value(operator_dimension) is not None:
                operator_dimension = tensor_util.constant_value(operator_dimension)
                if output.shape[-2] is not None and output.shape[-1] is not None:
                    dim = int(output.shape[-2] * output_shape[-1] // operator_dimension)
            else:
                dim = math_ops.cast(
                    output_shape[-2] * output_shape[-1] // operator_dimension, dtype=dtypes.int32
                )
            output_shape = _prefer_static_concat_shape(output_shape[:-2], [dim, operator_dimension])
            output = array_ops.reshape(output, shape=output_shape)
            if self.dtype.is_complex:
                output = math_ops.conj(output)
            output = solve_matmul_fn(o, output, adjoint=adjoint, adjoint_arg=True)
        if adjoint_arg:
            col_dim = _prefer_static_shape(x)[-2]
        else:
            col_dim = _prefer_static_shape(x)[-1]
        if adjoint:
            row_dim = self.domain_dimension_tensor()
        else:
            row_dim = self.range_dimension_tensor()
        matrix_shape = [row_dim, col_dim]
        output = array_ops.reshape(
            output, _prefer_static_concat_shape(_prefer_static_shape(output)[:-2], matrix_shape)
        )
        # (TF sets the static shape here; an eager result has it already.)
        return output

    def _matmul(self, x, adjoint=False, adjoint_arg=False):

        def matmul_fn(o, x, adjoint, adjoint_arg):
            return o.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

        return self._solve_matmul_internal(
            x=x, solve_matmul_fn=matmul_fn, adjoint=adjoint, adjoint_arg=adjoint_arg
        )

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):

        def solve_fn(o, rhs, adjoint, adjoint_arg):
            return o.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

        return self._solve_matmul_internal(
            x=rhs, solve_matmul_fn=solve_fn, adjoint=adjoint, adjoint_arg=adjoint_arg
        )

    def _determinant(self):
        total = self.domain_dimension_tensor()
        determinant = 1.0
        for operator in self.operators:
            determinant = determinant * operator.determinant() ** math_ops.cast(
                total / operator.domain_dimension_tensor(), dtype=operator.dtype
            )
        return determinant

    def _log_abs_determinant(self):
        total = self.domain_dimension_tensor()
        log_abs_det = 0.0
        for operator in self.operators:
            log_abs_det += operator.log_abs_determinant() * math_ops.cast(
                total / operator.domain_dimension_tensor(), dtype=operator.dtype
            )
        return log_abs_det

    def _trace(self):
        trace = 1.0
        for operator in self.operators:
            trace = trace * operator.trace()
        return trace

    def _diag_part(self):
        diag_part = self.operators[0].diag_part()
        for operator in self.operators[1:]:
            diag_part = diag_part[..., :, array_ops.newaxis]
            op_diag_part = operator.diag_part()[..., array_ops.newaxis, :]
            diag_part = diag_part * op_diag_part
            diag_part = array_ops.reshape(
                diag_part, shape=array_ops.concat([array_ops.shape(diag_part)[:-2], [-1]], axis=0)
            )
        return diag_part

    def _to_dense(self):
        product = self.operators[0].to_dense()
        for operator in self.operators[1:]:
            product = product[..., :, array_ops.newaxis, :, array_ops.newaxis]
            op_to_mul = operator.to_dense()[..., array_ops.newaxis, :, array_ops.newaxis, :]
            product = product * op_to_mul
            product_shape = _prefer_static_shape(product)
            shape = _prefer_static_concat_shape(
                product_shape[:-4],
                [product_shape[-4] * product_shape[-3], product_shape[-2] * product_shape[-1]],
            )
            product = array_ops.reshape(product, shape=shape)
        pass  # eager tensors carry their shape (TF: product.set_shape(self.shape))
        return product

    def _eigvals(self):
        eigvals = [operator.eigvals() for operator in self.operators]
        product = eigvals[0]
        for eigval in eigvals[1:]:
            product = product[..., array_ops.newaxis]
            product = product * eigval[..., array_ops.newaxis, :]
            product = array_ops.reshape(
                product, shape=array_ops.concat([array_ops.shape(product)[:-2], [-1]], axis=0)
            )
        pass  # eager tensors carry their shape (TF: product.set_shape(self.shape[:-1]))
        return product

    def _assert_non_singular(self):
        if all(operator.is_square for operator in self.operators):
            asserts = [operator.assert_non_singular() for operator in self.operators]
            return control_flow_ops.group(asserts)
        else:
            raise errors.InvalidArgumentError(
                node_def=None,
                op=None,
                message="All Kronecker factors must be square for the product to be invertible. Expected hint `is_square` to be True for every operator in argument `operators`.",
            )

    def _assert_self_adjoint(self):
        if all(operator.is_square for operator in self.operators):
            asserts = [operator.assert_self_adjoint() for operator in self.operators]
            return control_flow_ops.group(asserts)
        else:
            raise errors.InvalidArgumentError(
                node_def=None,
                op=None,
                message="All Kronecker factors must be square for the product to be invertible. Expected hint `is_square` to be True for every operator in argument `operators`.",
            )

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_low_rank_update.py ----
"""Perturb a `LinearOperator` with a rank `K` update."""


@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(linear_operator.LinearOperator):
    """Perturb a `LinearOperator` with a rank `K` update."""

    def __init__(
        self,
        base_operator,
        u,
        diag_update=None,
        v=None,
        is_diag_update_positive=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowRankUpdate",
    ):
        parameters = dict(
            base_operator=base_operator,
            u=u,
            diag_update=diag_update,
            v=v,
            is_diag_update_positive=is_diag_update_positive,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        dtype = base_operator.dtype
        if diag_update is not None:
            if is_diag_update_positive and dtype.is_complex:
                logging.warn(
                    "Note: setting is_diag_update_positive with a complex dtype means that diagonal is real and positive."
                )
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError(
                    "Default diagonal is the identity, which is positive.  However, user set 'is_diag_update_positive' to False."
                )
            is_diag_update_positive = True
        self._use_cholesky = (
            base_operator.is_positive_definite
            and base_operator.is_self_adjoint
            and is_diag_update_positive
            and (v is None)
        )
        if base_operator.is_self_adjoint and v is None and (not dtype.is_complex):
            if is_self_adjoint is False:
                raise ValueError(
                    "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is self-adjoint, this must be a self-adjoint operator."
                )
            is_self_adjoint = True
        if self._use_cholesky:
            if (
                is_positive_definite is False
                or is_self_adjoint is False
                or is_non_singular is False
            ):
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        with ops.name_scope(name):
            self._u = linear_operator_util.convert_nonref_to_tensor(u, name="u")
            if v is None:
                self._v = self._u
            else:
                self._v = linear_operator_util.convert_nonref_to_tensor(v, name="v")
            if diag_update is None:
                self._diag_update = None
            else:
                self._diag_update = linear_operator_util.convert_nonref_to_tensor(
                    diag_update, name="diag_update"
                )
            self._base_operator = base_operator
            super().__init__(
                dtype=self._base_operator.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )
            self._set_diag_operators(diag_update, is_diag_update_positive)
            self._is_diag_update_positive = is_diag_update_positive
            self._check_shapes()

    def _check_shapes(self):
        uv_shape = array_ops.broadcast_static_shape(self.u.shape, self.v.shape)
        batch_shape = array_ops.broadcast_static_shape(
            self.base_operator.batch_shape, uv_shape[:-2]
        )
        tensor_shape.Dimension(self.base_operator.domain_dimension).assert_is_compatible_with(
            uv_shape[-2]
        )
        if self._diag_update is not None:
            tensor_shape.dimension_at_index(uv_shape, -1).assert_is_compatible_with(
                self._diag_update.shape[-1]
            )
            array_ops.broadcast_static_shape(batch_shape, self._diag_update.shape[:-1])

    def _set_diag_operators(self, diag_update, is_diag_update_positive):
        if diag_update is not None:
            self._diag_operator = linear_operator_diag.LinearOperatorDiag(
                self._diag_update, is_positive_definite=is_diag_update_positive
            )
        else:
            if tensor_shape.dimension_value(self.u.shape[-1]) is not None:
                r = tensor_shape.dimension_value(self.u.shape[-1])
            else:
                r = array_ops.shape(self.u)[-1]
            self._diag_operator = linear_operator_identity.LinearOperatorIdentity(
                num_rows=r, dtype=self.dtype
            )

    @property
    def u(self):
        """If this operator is `A = L + U D V^H`, this is the `U`."""
        return self._u

    @property
    def v(self):
        """If this operator is `A = L + U D V^H`, this is the `V`."""
        return self._v

    @property
    def is_diag_update_positive(self):
        """If this operator is `A = L + U D V^H`, this hints `D > 0` elementwise."""
        return self._is_diag_update_positive

    @property
    def diag_update(self):
        """If this operator is `A = L + U D V^H`, this is the diagonal of `D`."""
        return self._diag_update

    @property
    def diag_operator(self):
        """If this operator is `A = L + U D V^H`, this is `D`."""
        return self._diag_operator

    @property
    def base_operator(self):
        """If this operator is `A = L + U D V^H`, this is the `L`."""
        return self._base_operator

    def _assert_self_adjoint(self):
        if self.u is self.v and self.diag_update is None:
            return self.base_operator.assert_self_adjoint()
        return super().assert_self_adjoint()

    def _shape(self):
        batch_shape = array_ops.broadcast_static_shape(
            self.base_operator.batch_shape, self.diag_operator.batch_shape
        )
        batch_shape = array_ops.broadcast_static_shape(batch_shape, self.u.shape[:-2])
        batch_shape = array_ops.broadcast_static_shape(batch_shape, self.v.shape[:-2])
        return batch_shape.concatenate(self.base_operator.shape[-2:])

    def _shape_tensor(self):
        batch_shape = array_ops.broadcast_dynamic_shape(
            self.base_operator.batch_shape_tensor(), self.diag_operator.batch_shape_tensor()
        )
        batch_shape = array_ops.broadcast_dynamic_shape(batch_shape, array_ops.shape(self.u)[:-2])
        batch_shape = array_ops.broadcast_dynamic_shape(batch_shape, array_ops.shape(self.v)[:-2])
        return array_ops.concat([batch_shape, self.base_operator.shape_tensor()[-2:]], axis=0)

    def _get_uv_as_tensors(self):
        u = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.u)
        if self.v is self.u:
            v = u
        else:
            v = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.v)
        return (u, v)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self._get_uv_as_tensors()
        l = self.base_operator
        d = self.diag_operator
        leading_term = l.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        if adjoint:
            uh_x = math_ops.matmul(u, x, adjoint_a=True, adjoint_b=adjoint_arg)
            d_uh_x = d.matmul(uh_x, adjoint=adjoint)
            v_d_uh_x = math_ops.matmul(v, d_uh_x)
            return leading_term + v_d_uh_x
        else:
            vh_x = math_ops.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
            d_vh_x = d.matmul(vh_x, adjoint=adjoint)
            u_d_vh_x = math_ops.matmul(u, d_vh_x)
            return leading_term + u_d_vh_x

    def _determinant(self):
        if self.is_positive_definite:
            return math_ops.exp(self.log_abs_determinant())
        u, v = self._get_uv_as_tensors()
        det_c = linalg_ops.matrix_determinant(self._make_capacitance(u=u, v=v))
        det_d = self.diag_operator.determinant()
        det_l = self.base_operator.determinant()
        return det_c * det_d * det_l

    def _diag_part(self):
        u, v = self._get_uv_as_tensors()
        product = u * math_ops.conj(v)
        if self.diag_update is not None:
            product *= array_ops.expand_dims(self.diag_update, axis=-2)
        return math_ops.reduce_sum(product, axis=-1) + self.base_operator.diag_part()

    def _log_abs_determinant(self):
        u, v = self._get_uv_as_tensors()
        log_abs_det_d = self.diag_operator.log_abs_determinant()
        log_abs_det_l = self.base_operator.log_abs_determinant()
        if self._use_cholesky:
            chol_cap_diag = array_ops.matrix_diag_part(
                linalg_ops.cholesky(self._make_capacitance(u=u, v=v))
            )
            log_abs_det_c = 2 * math_ops.reduce_sum(math_ops.log(chol_cap_diag), axis=[-1])
        else:
            det_c = linalg_ops.matrix_determinant(self._make_capacitance(u=u, v=v))
            log_abs_det_c = math_ops.log(math_ops.abs(det_c))
            if self.dtype.is_complex:
                log_abs_det_c = math_ops.cast(log_abs_det_c, dtype=self.dtype)
        return log_abs_det_c + log_abs_det_d + log_abs_det_l

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.base_operator.is_non_singular is False:
            raise ValueError(
                "Solve not implemented unless this is a perturbation of a non-singular LinearOperator."
            )
        l = self.base_operator
        if adjoint:
            v, u = self._get_uv_as_tensors()
            capacitance = self._make_capacitance(u=v, v=u)
        else:
            u, v = self._get_uv_as_tensors()
            capacitance = self._make_capacitance(u=u, v=v)
        linv_rhs = l.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = math_ops.matmul(v, linv_rhs, adjoint_a=True)
        if self._use_cholesky:
            capinv_vh_linv_rhs = linalg_ops.cholesky_solve(
                linalg_ops.cholesky(capacitance), vh_linv_rhs
            )
        else:
            capinv_vh_linv_rhs = linear_operator_util.matrix_solve_with_broadcast(
                capacitance, vh_linv_rhs, adjoint=adjoint
            )
        u_capinv_vh_linv_rhs = math_ops.matmul(u, capinv_vh_linv_rhs)
        linv_u_capinv_vh_linv_rhs = l.solve(u_capinv_vh_linv_rhs, adjoint=adjoint)
        return linv_rhs - linv_u_capinv_vh_linv_rhs

    def _make_capacitance(self, u, v):
        linv_u = self.base_operator.solve(u)
        vh_linv_u = math_ops.matmul(v, linv_u, adjoint_a=True)
        capacitance = self._diag_operator.inverse().add_to_tensor(vh_linv_u)
        return capacitance

    @property
    def _composite_tensor_fields(self):
        return ("base_operator", "u", "diag_update", "v", "is_diag_update_positive")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"base_operator": 0, "u": 2, "diag_update": 1, "v": 2}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_permutation.py ----
"""`LinearOperator` acting like a permutation matrix."""


@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] of permutation matrices."""

    def __init__(
        self,
        perm,
        dtype=dtypes.float32,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorPermutation",
    ):
        parameters = dict(
            perm=perm,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[perm]):
            self._perm = linear_operator_util.convert_nonref_to_tensor(perm, name="perm")
            self._check_perm(self._perm)
            if is_non_singular is False:
                raise ValueError(
                    f"A Permutation operator is always non-singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            if is_square is False:
                raise ValueError(
                    f"A Permutation operator is always square. Expected argument `is_square` to be True. Received: {is_square}."
                )
            is_square = True
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_perm(self, perm):
        if perm.shape.ndims is not None and perm.shape.ndims < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {perm}.")
        if not perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}.")
        static_perm = tensor_util.constant_value(perm)
        if static_perm is not None:
            sorted_perm = np.sort(static_perm, axis=-1)
            if np.any(sorted_perm != np.arange(0, static_perm.shape[-1])):
                raise ValueError(
                    f"Argument `perm` must be a vector of unique integers from 0 to {static_perm.shape[-1] - 1}."
                )

    def _shape(self):
        perm_shape = self._perm.shape
        return perm_shape.concatenate(perm_shape[-1:])

    def _shape_tensor(self):
        perm_shape = array_ops.shape(self._perm)
        k = perm_shape[-1]
        return array_ops.concat((perm_shape, [k]), 0)

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _domain_dimension_tensor(self, perm=None):
        perm = perm if perm is not None else self.perm
        return array_ops.shape(perm)[-1]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        perm = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.perm)
        if adjoint and (not self.is_self_adjoint):
            perm = sort_ops.argsort(perm, axis=-1)
        x = linalg.adjoint(x) if adjoint_arg else x
        broadcast_shape = array_ops.broadcast_dynamic_shape(
            array_ops.shape(x)[:-1], array_ops.shape(perm)
        )
        k = array_ops.shape(x)[-1]
        broadcast_x_shape = array_ops.concat([broadcast_shape, [k]], axis=-1)
        x = array_ops.broadcast_to(x, broadcast_x_shape)
        perm = array_ops.broadcast_to(perm, broadcast_shape)
        m = array_ops.shape(x)[-2]
        x = array_ops.reshape(x, [-1, m, k])
        perm = array_ops.reshape(perm, [-1, m])
        y = array_ops.gather(x, perm, axis=-2, batch_dims=1)
        return array_ops.reshape(y, broadcast_x_shape)

    def _log_abs_determinant(self):
        return array_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        perm = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.perm)
        return math_ops.cast(
            math_ops.equal(
                math_ops.range(0, self._domain_dimension_tensor(perm)), perm[..., array_ops.newaxis]
            ),
            self.dtype,
        )

    def _diag_part(self):
        perm = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.perm)
        return math_ops.cast(
            math_ops.equal(math_ops.range(0, self._domain_dimension_tensor(perm)), perm), self.dtype
        )

    def _cond(self):
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    @property
    def perm(self):
        """The permutation `[B1, ..., Bb, N]` this operator applies."""
        return self._perm

    @property
    def _composite_tensor_fields(self):
        return ("perm", "dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"perm": 1}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_householder.py ----
"""`LinearOperator` acting like a Householder transformation."""


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] of Householder transformations."""

    def __init__(
        self,
        reflection_axis,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorHouseholder",
    ):
        parameters = dict(
            reflection_axis=reflection_axis,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[reflection_axis]):
            self._reflection_axis = linear_operator_util.convert_nonref_to_tensor(
                reflection_axis, name="reflection_axis"
            )
            self._check_reflection_axis(self._reflection_axis)
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            else:
                is_self_adjoint = True
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always non-positive definite.")
            else:
                is_positive_definite = False
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            is_square = True
            super().__init__(
                dtype=self._reflection_axis.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_reflection_axis(self, reflection_axis):
        if reflection_axis.shape.ndims is not None and reflection_axis.shape.ndims < 1:
            raise ValueError(
                "Argument reflection_axis must have at least 1 dimension.  Found: %s"
                % reflection_axis
            )

    def _shape(self):
        d_shape = self._reflection_axis.shape
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self):
        d_shape = array_ops.shape(self._reflection_axis)
        k = d_shape[-1]
        return array_ops.concat((d_shape, [k]), 0)

    def _assert_non_singular(self):
        return control_flow_ops.no_op("assert_non_singular")

    def _assert_positive_definite(self):
        raise errors.InvalidArgumentError(
            node_def=None,
            op=None,
            message="Householder operators are always non-positive definite.",
        )

    def _assert_self_adjoint(self):
        return control_flow_ops.no_op("assert_self_adjoint")

    def _linop_adjoint(self) -> "LinearOperatorHouseholder":
        return self

    def _linop_inverse(self) -> "LinearOperatorHouseholder":
        return self

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        reflection_axis = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.reflection_axis)
        x = linalg.adjoint(x) if adjoint_arg else x
        normalized_axis = nn.l2_normalize(reflection_axis, axis=-1)
        mat = normalized_axis[..., array_ops.newaxis]
        x_dot_normalized_v = math_ops.matmul(mat, x, adjoint_a=True)
        return x - 2 * mat * x_dot_normalized_v

    def _trace(self):
        shape = self.shape_tensor()
        return math_ops.cast(
            self._domain_dimension_tensor(shape=shape) - 2, self.dtype
        ) * array_ops.ones(shape=self._batch_shape_tensor(shape=shape), dtype=self.dtype)

    def _determinant(self):
        return -array_ops.ones(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(shape=self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        reflection_axis = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.reflection_axis)
        normalized_axis = nn.l2_normalize(reflection_axis, axis=-1)
        mat = normalized_axis[..., array_ops.newaxis]
        matrix = -2 * math_ops.matmul(mat, mat, adjoint_b=True)
        return array_ops.matrix_set_diag(matrix, 1.0 + array_ops.matrix_diag_part(matrix))

    def _diag_part(self):
        reflection_axis = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.reflection_axis)
        normalized_axis = nn.l2_normalize(reflection_axis, axis=-1)
        return 1.0 - 2 * normalized_axis * math_ops.conj(normalized_axis)

    def _eigvals(self):
        result_shape = array_ops.shape(self.reflection_axis)
        n = result_shape[-1]
        ones_shape = array_ops.concat([result_shape[:-1], [n - 1]], axis=-1)
        neg_shape = array_ops.concat([result_shape[:-1], [1]], axis=-1)
        eigvals = array_ops.ones(shape=ones_shape, dtype=self.dtype)
        eigvals = array_ops.concat(
            [-array_ops.ones(shape=neg_shape, dtype=self.dtype), eigvals], axis=-1
        )
        return eigvals

    def _cond(self):
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    @property
    def reflection_axis(self):
        """The vector whose hyperplane this operator reflects across."""
        return self._reflection_axis

    @property
    def _composite_tensor_fields(self):
        return ("reflection_axis",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"reflection_axis": 1}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_toeplitz.py ----
"""`LinearOperator` acting like a Toeplitz matrix."""


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] of toeplitz matrices."""

    def __init__(
        self,
        col,
        row,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorToeplitz",
    ):
        parameters = dict(
            col=col,
            row=row,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[row, col]):
            self._row = linear_operator_util.convert_nonref_to_tensor(row, name="row")
            self._col = linear_operator_util.convert_nonref_to_tensor(col, name="col")
            self._check_row_col(self._row, self._col)
            if is_square is False:
                raise ValueError("Only square Toeplitz operators currently supported.")
            is_square = True
            super().__init__(
                dtype=self._row.dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_row_col(self, row, col):
        for name, tensor in [["row", row], ["col", col]]:
            if tensor.shape.ndims is not None and tensor.shape.ndims < 1:
                raise ValueError(
                    f"Argument {name} must have at least 1 dimension.  Found: {tensor}"
                )
        if row.shape[-1] is not None and col.shape[-1] is not None:
            if row.shape[-1] != col.shape[-1]:
                raise ValueError(
                    "Expected square matrix, got row and col with mismatched dimensions."
                )

    def _shape(self):
        v_shape = array_ops.broadcast_static_shape(self.row.shape, self.col.shape)
        return v_shape.concatenate(v_shape[-1:])

    def _shape_tensor(self, row=None, col=None):
        row = self.row if row is None else row
        col = self.col if col is None else col
        v_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(row), array_ops.shape(col))
        k = v_shape[-1]
        return array_ops.concat((v_shape, [k]), 0)

    def _assert_self_adjoint(self):
        return check_ops.assert_equal(
            self.row,
            self.col,
            message="row and col are not the same, and so this operator is not self-adjoint.",
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg.adjoint(x) if adjoint_arg else x
        expanded_x = array_ops.concat([x, array_ops.zeros_like(x)], axis=-2)
        col = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.col)
        row = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.row)
        circulant_col = array_ops.concat(
            [col, array_ops.zeros_like(col[..., 0:1]), array_ops.reverse(row[..., 1:], axis=[-1])],
            axis=-1,
        )
        circulant = LinearOperatorCirculant(
            fft_ops.fft(_to_complex(circulant_col)), input_output_dtype=row.dtype
        )
        result = circulant.matmul(expanded_x, adjoint=adjoint, adjoint_arg=False)
        shape = self._shape_tensor(row=row, col=col)
        return math_ops.cast(
            result[..., : self._domain_dimension_tensor(shape=shape), :], self.dtype
        )

    def _trace(self):
        return math_ops.cast(self.domain_dimension_tensor(), dtype=self.dtype) * self.col[..., 0]

    def _diag_part(self):
        diag_entry = self.col[..., 0:1]
        return diag_entry * array_ops.ones([self.domain_dimension_tensor()], self.dtype)

    def _to_dense(self):
        row = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.row)
        col = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.col)
        total_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(row), array_ops.shape(col))
        n = array_ops.shape(row)[-1]
        row = array_ops.broadcast_to(row, total_shape)
        col = array_ops.broadcast_to(col, total_shape)
        elements = array_ops.concat([array_ops.reverse(col, axis=[-1]), row[..., 1:]], axis=-1)
        indices = math_ops.mod(
            math_ops.range(0, n) + math_ops.range(n - 1, -1, -1)[..., array_ops.newaxis], 2 * n - 1
        )
        return array_ops.gather(elements, indices, axis=-1)

    @property
    def col(self):
        """The first column of the Toeplitz matrix."""
        return self._col

    @property
    def row(self):
        """The first row of the Toeplitz matrix."""
        return self._row

    @property
    def _composite_tensor_fields(self):
        return ("col", "row")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"col": 1, "row": 1}


def _to_complex(x):
    dtype = dtypes.complex64
    if x.dtype in [dtypes.float64, dtypes.complex128]:
        dtype = dtypes.complex128
    return math_ops.cast(x, dtype)


# ---- ported from tensorflow/python/ops/linalg/linear_operator_tridiag.py ----
"""`LinearOperator` acting like a tridiagonal matrix."""
_COMPACT = "compact"
_MATRIX = "matrix"
_SEQUENCE = "sequence"
_DIAGONAL_FORMATS = frozenset({_COMPACT, _MATRIX, _SEQUENCE})


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(linear_operator.LinearOperator):
    """`LinearOperator` acting like a [batch] square tridiagonal matrix."""

    def __init__(
        self,
        diagonals,
        diagonals_format=_COMPACT,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorTridiag",
    ):
        parameters = dict(
            diagonals=diagonals,
            diagonals_format=diagonals_format,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        with ops.name_scope(name, values=[diagonals]):
            if diagonals_format not in _DIAGONAL_FORMATS:
                raise ValueError(
                    f"Argument `diagonals_format` must be one of compact, matrix, or sequence. Received : {diagonals_format}."
                )
            if diagonals_format == _SEQUENCE:
                self._diagonals = [
                    linear_operator_util.convert_nonref_to_tensor(d, name=f"diag_{i}")
                    for i, d in enumerate(diagonals)
                ]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = linear_operator_util.convert_nonref_to_tensor(
                    diagonals, name="diagonals"
                )
                dtype = self._diagonals.dtype
            self._diagonals_format = diagonals_format
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _shape(self):
        if self.diagonals_format == _MATRIX:
            return self.diagonals.shape
        if self.diagonals_format == _COMPACT:
            d_shape = self.diagonals.shape[:-2].concatenate(self.diagonals.shape[-1])
        else:
            broadcast_shape = array_ops.broadcast_static_shape(
                self.diagonals[0].shape[:-1], self.diagonals[1].shape[:-1]
            )
            broadcast_shape = array_ops.broadcast_static_shape(
                broadcast_shape, self.diagonals[2].shape[:-1]
            )
            d_shape = broadcast_shape.concatenate(self.diagonals[1].shape[-1])
        return d_shape.concatenate(d_shape[-1])

    def _shape_tensor(self, diagonals=None):
        diagonals = diagonals if diagonals is not None else self.diagonals
        if self.diagonals_format == _MATRIX:
            return array_ops.shape(diagonals)
        if self.diagonals_format == _COMPACT:
            d_shape = array_ops.shape(diagonals[..., 0, :])
        else:
            broadcast_shape = array_ops.broadcast_dynamic_shape(
                array_ops.shape(self.diagonals[0])[:-1], array_ops.shape(self.diagonals[1])[:-1]
            )
            broadcast_shape = array_ops.broadcast_dynamic_shape(
                broadcast_shape, array_ops.shape(self.diagonals[2])[:-1]
            )
            d_shape = array_ops.concat(
                [broadcast_shape, [array_ops.shape(self.diagonals[1])[-1]]], axis=0
            )
        return array_ops.concat([d_shape, [d_shape[-1]]], axis=-1)

    def _assert_self_adjoint(self):
        asserts = []
        diag_message = (
            "This tridiagonal operator contained non-zero imaginary values on the diagonal."
        )
        off_diag_message = (
            "This tridiagonal operator has non-conjugate subdiagonal and superdiagonal."
        )
        if self.diagonals_format == _MATRIX:
            asserts += [
                check_ops.assert_equal(
                    self.diagonals,
                    linalg.adjoint(self.diagonals),
                    message="Matrix was not equal to its adjoint.",
                )
            ]
        elif self.diagonals_format == _COMPACT:
            diagonals = tensor_conversion.convert_to_tensor_v2_with_dispatch(self.diagonals)
            asserts += [
                linear_operator_util.assert_zero_imag_part(
                    diagonals[..., 1, :], message=diag_message
                )
            ]
            subdiag = manip_ops.roll(diagonals[..., 2, :], shift=-1, axis=-1)
            asserts += [
                check_ops.assert_equal(
                    math_ops.conj(subdiag[..., :-1]),
                    diagonals[..., 0, :-1],
                    message=off_diag_message,
                )
            ]
        else:
            asserts += [
                linear_operator_util.assert_zero_imag_part(self.diagonals[1], message=diag_message)
            ]
            subdiag = manip_ops.roll(self.diagonals[2], shift=-1, axis=-1)
            asserts += [
                check_ops.assert_equal(
                    math_ops.conj(subdiag[..., :-1]),
                    self.diagonals[0][..., :-1],
                    message=off_diag_message,
                )
            ]
        return control_flow_ops.group(asserts)

    def _construct_adjoint_diagonals(self, diagonals):
        if self.diagonals_format == _SEQUENCE:
            diagonals = [math_ops.conj(d) for d in reversed(diagonals)]
            diagonals[0] = manip_ops.roll(diagonals[0], shift=-1, axis=-1)
            diagonals[2] = manip_ops.roll(diagonals[2], shift=1, axis=-1)
            return diagonals
        elif self.diagonals_format == _MATRIX:
            return linalg.adjoint(diagonals)
        else:
            diagonals = math_ops.conj(diagonals)
            superdiag, diag, subdiag = array_ops_stack.unstack(diagonals, num=3, axis=-2)
            new_superdiag = manip_ops.roll(subdiag, shift=-1, axis=-1)
            new_subdiag = manip_ops.roll(superdiag, shift=1, axis=-1)
            return array_ops_stack.stack([new_superdiag, diag, new_subdiag], axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        x = linalg.adjoint(x) if adjoint_arg else x
        return linalg.tridiagonal_matmul(diagonals, x, diagonals_format=self.diagonals_format)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        rhs_shape = array_ops.shape(rhs)
        k = self._shape_tensor(diagonals)[-1]
        broadcast_shape = array_ops.broadcast_dynamic_shape(
            self._shape_tensor(diagonals)[:-2], rhs_shape[:-2]
        )
        rhs = array_ops.broadcast_to(
            rhs, array_ops.concat([broadcast_shape, rhs_shape[-2:]], axis=-1)
        )
        if self.diagonals_format == _MATRIX:
            diagonals = array_ops.broadcast_to(
                diagonals, array_ops.concat([broadcast_shape, [k, k]], axis=-1)
            )
        elif self.diagonals_format == _COMPACT:
            diagonals = array_ops.broadcast_to(
                diagonals, array_ops.concat([broadcast_shape, [3, k]], axis=-1)
            )
        else:
            diagonals = [
                array_ops.broadcast_to(d, array_ops.concat([broadcast_shape, [k]], axis=-1))
                for d in diagonals
            ]
        y = linalg.tridiagonal_solve(
            diagonals,
            rhs,
            diagonals_format=self.diagonals_format,
            transpose_rhs=adjoint_arg,
            conjugate_rhs=adjoint_arg,
        )
        return y

    def _diag_part(self):
        if self.diagonals_format == _MATRIX:
            return array_ops.matrix_diag_part(self.diagonals)
        elif self.diagonals_format == _SEQUENCE:
            diagonal = self.diagonals[1]
            return array_ops.broadcast_to(diagonal, self.shape_tensor()[:-1])
        else:
            return self.diagonals[..., 1, :]

    def _to_dense(self):
        if self.diagonals_format == _MATRIX:
            return self.diagonals
        if self.diagonals_format == _COMPACT:
            return gen_array_ops.matrix_diag_v3(
                self.diagonals,
                k=(-1, 1),
                num_rows=-1,
                num_cols=-1,
                align="LEFT_RIGHT",
                padding_value=0.0,
            )
        diagonals = [
            tensor_conversion.convert_to_tensor_v2_with_dispatch(d) for d in self.diagonals
        ]
        diagonals = array_ops_stack.stack(diagonals, axis=-2)
        return gen_array_ops.matrix_diag_v3(
            diagonals, k=(-1, 1), num_rows=-1, num_cols=-1, align="LEFT_RIGHT", padding_value=0.0
        )

    @property
    def diagonals(self):
        """The three diagonals, in `diagonals_format`."""
        return self._diagonals

    @property
    def diagonals_format(self):
        """How `diagonals` is laid out: 'compact', 'matrix' or 'sequence'."""
        return self._diagonals_format

    @property
    def _composite_tensor_fields(self):
        return ("diagonals", "diagonals_format")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        diagonal_event_ndims = 2
        if self.diagonals_format == _SEQUENCE:
            diagonal_event_ndims = [1, 1, 1]
        return {"diagonals": diagonal_event_ndims}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_circulant.py ----
"""`LinearOperator` coming from a [[nested] block] circulant matrix."""
_FFT_OP = {1: fft_ops.fft, 2: fft_ops.fft2d, 3: fft_ops.fft3d}
_IFFT_OP = {1: fft_ops.ifft, 2: fft_ops.ifft2d, 3: fft_ops.ifft3d}


def exponential_power_convolution_kernel(
    grid_shape, length_scale, power=None, divisor=None, zero_inflation=None
):
    """Make an exponentiated convolution kernel."""
    nd = len(grid_shape)
    length_scale = tensor_conversion.convert_to_tensor_v2_with_dispatch(
        length_scale, name="length_scale"
    )
    dtype = length_scale.dtype
    power = 2.0 if power is None else power
    power = tensor_conversion.convert_to_tensor_v2_with_dispatch(power, name="power", dtype=dtype)
    divisor = power if divisor is None else divisor
    divisor = tensor_conversion.convert_to_tensor_v2_with_dispatch(
        divisor, name="divisor", dtype=dtype
    )
    zero = math_ops.cast(0.0, dtype)
    one = math_ops.cast(1.0, dtype)
    ts = [math_ops.linspace(zero, one, num=n) for n in grid_shape]
    log_vals = []
    for i, x in enumerate(array_ops.meshgrid(*ts, indexing="ij")):
        midpoint = ts[i][math_ops.cast(math_ops.floor(one / 2.0 * grid_shape[i]), dtypes.int32)]
        log_vals.append(-(math_ops.abs((x - midpoint) / length_scale[i]) ** power) / divisor)
    kernel = math_ops.exp(fft_ops.ifftshift(sum(log_vals), axes=[-i for i in range(1, nd + 1)]))
    if zero_inflation:
        zero_inflation = tensor_conversion.convert_to_tensor_v2_with_dispatch(
            zero_inflation, name="zero_inflation", dtype=dtype
        )
        delta = array_ops.pad(
            array_ops.reshape(one, [1] * nd), [[0, dim - 1] for dim in grid_shape]
        )
        kernel = (1.0 - zero_inflation) * kernel + zero_inflation * delta
    return kernel


class _BaseLinearOperatorCirculant(linear_operator.LinearOperator):
    def __init__(
        self,
        spectrum: Tensor,
        block_depth: int,
        input_output_dtype=dtypes.complex64,
        is_non_singular: bool = None,
        is_self_adjoint: bool = None,
        is_positive_definite: bool = None,
        is_square: bool = True,
        parameters=None,
        name="LinearOperatorCirculant",
    ):
        allowed_block_depths = [1, 2, 3]
        self._name = name
        if block_depth not in allowed_block_depths:
            raise ValueError(
                f"Argument `block_depth` must be one of {allowed_block_depths}. Received: {block_depth}."
            )
        self._block_depth = block_depth
        with ops.name_scope(name, values=[spectrum]):
            self._spectrum = self._check_spectrum_and_return_tensor(spectrum)
            if not self.spectrum.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError(
                        f"A real spectrum always corresponds to a self-adjoint operator. Expected argument `is_self_adjoint` to be True when `spectrum.dtype.is_complex` = True. Received: {is_self_adjoint}."
                    )
                is_self_adjoint = True
            if is_square is False:
                raise ValueError(
                    f"A [[nested] block] circulant operator is always square. Expected argument `is_square` to be True. Received: {is_square}."
                )
            is_square = True
            super().__init__(
                dtype=dtypes.as_dtype(input_output_dtype),
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _check_spectrum_and_return_tensor(self, spectrum):
        spectrum = linear_operator_util.convert_nonref_to_tensor(spectrum, name="spectrum")
        if spectrum.shape.ndims is not None:
            if spectrum.shape.ndims < self.block_depth:
                raise ValueError(
                    f"Argument `spectrum` must have at least {self.block_depth} dimensions. Received: {spectrum}."
                )
        return spectrum

    @property
    def block_depth(self):
        """Depth of recursively defined circulant blocks defining this `Operator`."""
        return self._block_depth

    def block_shape_tensor(self):
        """Shape of the block dimensions of `self.spectrum`."""
        return self._block_shape_tensor()

    def _block_shape_tensor(self, spectrum_shape=None):
        if self.block_shape.is_fully_defined():
            return linear_operator_util.shape_tensor(self.block_shape.as_list(), name="block_shape")
        spectrum_shape = (
            array_ops.shape(self.spectrum) if spectrum_shape is None else spectrum_shape
        )
        return spectrum_shape[-self.block_depth :]

    def _linop_adjoint(self) -> "_BaseLinearOperatorCirculant":
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        return _BaseLinearOperatorCirculant(
            spectrum=spectrum,
            block_depth=self.block_depth,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self) -> "_BaseLinearOperatorCirculant":
        return _BaseLinearOperatorCirculant(
            spectrum=1.0 / self.spectrum,
            block_depth=self.block_depth,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _linop_matmul(
        self,
        left_operator: "_BaseLinearOperatorCirculant",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, _BaseLinearOperatorCirculant) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return _BaseLinearOperatorCirculant(
            spectrum=left_operator.spectrum * right_operator.spectrum,
            block_depth=left_operator.block_depth,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )

    def _linop_solve(
        self,
        left_operator: "_BaseLinearOperatorCirculant",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, _BaseLinearOperatorCirculant) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_solve(left_operator, right_operator)
        return _BaseLinearOperatorCirculant(
            spectrum=right_operator.spectrum / left_operator.spectrum,
            block_depth=left_operator.block_depth,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )

    @property
    def block_shape(self):
        """The shape of the circulant blocks (the last `block_depth` dims of `spectrum`)."""
        return self.spectrum.shape[-self.block_depth :]

    @property
    def spectrum(self) -> Tensor:
        """The FFT of the circulant kernel (this operator's eigenvalues)."""
        return self._spectrum

    def _vectorize_then_blockify(self, matrix):
        vec = distribution_util.rotate_transpose(matrix, shift=1)
        if vec.shape.is_fully_defined() and self.block_shape.is_fully_defined():
            vec_leading_shape = vec.shape[:-1]
            final_shape = vec_leading_shape.concatenate(self.block_shape)
        else:
            vec_leading_shape = array_ops.shape(vec)[:-1]
            final_shape = array_ops.concat((vec_leading_shape, self.block_shape_tensor()), 0)
        return array_ops.reshape(vec, final_shape)

    def _unblockify(self, x):
        if x.shape.is_fully_defined():
            x_shape = x.shape.as_list()
            x_leading_shape = x_shape[: -self.block_depth]
            x_block_shape = x_shape[-self.block_depth :]
            flat_shape = x_leading_shape + [np.prod(x_block_shape)]
        else:
            x_shape = array_ops.shape(x)
            x_leading_shape = x_shape[: -self.block_depth]
            x_block_shape = x_shape[-self.block_depth :]
            flat_shape = array_ops.concat(
                (x_leading_shape, [math_ops.reduce_prod(x_block_shape)]), 0
            )
        return array_ops.reshape(x, flat_shape)

    def _unblockify_then_matricize(self, vec):
        vec_flat = self._unblockify(vec)
        matrix = distribution_util.rotate_transpose(vec_flat, shift=-1)
        return matrix

    def _fft(self, x):
        x_complex = _to_complex(x)
        return _FFT_OP[self.block_depth](x_complex)

    def _ifft(self, x):
        x_complex = _to_complex(x)
        return _IFFT_OP[self.block_depth](x_complex)

    def convolution_kernel(self, name="convolution_kernel"):
        """Convolution kernel corresponding to `self.spectrum`."""
        with self._name_scope(name):
            h = self._ifft(_to_complex(self.spectrum))
            return math_ops.cast(h, self.dtype)

    def _shape(self):
        s_shape = self._spectrum.shape
        batch_shape = s_shape[: -self.block_depth]
        trailing_dims = s_shape[-self.block_depth :]
        if trailing_dims.is_fully_defined():
            n = np.prod(trailing_dims.as_list())
        else:
            n = None
        n_x_n = tensor_shape.TensorShape([n, n])
        return batch_shape.concatenate(n_x_n)

    def _shape_tensor(self, spectrum=None):
        spectrum = self.spectrum if spectrum is None else spectrum
        s_shape = array_ops.shape(spectrum)
        batch_shape = s_shape[: -self.block_depth]
        trailing_dims = s_shape[-self.block_depth :]
        n = math_ops.reduce_prod(trailing_dims)
        n_x_n = [n, n]
        return array_ops.concat((batch_shape, n_x_n), 0)

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """Returns an `Op` that asserts this operator has Hermitian spectrum."""
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        with self._name_scope(name):
            max_err = eps * self.domain_dimension_tensor()
            imag_convolution_kernel = math_ops.imag(self.convolution_kernel())
            return check_ops.assert_less(
                math_ops.abs(imag_convolution_kernel), max_err, message="Spectrum was not Hermitian"
            )

    def _assert_non_singular(self):
        return linear_operator_util.assert_no_entries_with_modulus_zero(
            self.spectrum, message="Singular operator:  Spectrum contained zero values."
        )

    def _assert_positive_definite(self):
        message = "Not positive definite:  Real part of spectrum was not all positive."
        return check_ops.assert_positive(math_ops.real(self.spectrum), message=message)

    def _assert_self_adjoint(self):
        return linear_operator_util.assert_zero_imag_part(
            self.spectrum,
            message="Not self-adjoint:  The spectrum contained non-zero imaginary part.",
        )

    def _broadcast_batch_dims(self, x, spectrum):
        spectrum = tensor_conversion.convert_to_tensor_v2_with_dispatch(spectrum, name="spectrum")
        batch_shape = self._batch_shape_tensor(shape=self._shape_tensor(spectrum=spectrum))
        spec_mat = array_ops.reshape(spectrum, array_ops.concat((batch_shape, [-1, 1]), axis=0))
        x, spec_mat = linear_operator_util.broadcast_matrix_batch_dims((x, spec_mat))
        x_batch_shape = array_ops.shape(x)[:-2]
        spectrum_shape = array_ops.shape(spectrum)
        spectrum = array_ops.reshape(
            spec_mat,
            array_ops.concat(
                (x_batch_shape, self._block_shape_tensor(spectrum_shape=spectrum_shape)), axis=0
            ),
        )
        return (x, spectrum)

    def _cond(self):
        abs_singular_values = math_ops.abs(self._unblockify(self.spectrum))
        return math_ops.reduce_max(abs_singular_values, axis=-1) / math_ops.reduce_min(
            abs_singular_values, axis=-1
        )

    def _eigvals(self):
        return tensor_conversion.convert_to_tensor_v2_with_dispatch(self._unblockify(self.spectrum))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg.adjoint(x) if adjoint_arg else x
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = math_ops.conj(spectrum)
        x = math_ops.cast(x, spectrum.dtype)
        x, spectrum = self._broadcast_batch_dims(x, spectrum)
        x_vb = self._vectorize_then_blockify(x)
        fft_x_vb = self._fft(x_vb)
        block_vector_result = self._ifft(spectrum * fft_x_vb)
        y = self._unblockify_then_matricize(block_vector_result)
        return math_ops.cast(y, self.dtype)

    def _determinant(self):
        axis = [-(i + 1) for i in range(self.block_depth)]
        det = math_ops.reduce_prod(self.spectrum, axis=axis)
        return math_ops.cast(det, self.dtype)

    def _log_abs_determinant(self):
        axis = [-(i + 1) for i in range(self.block_depth)]
        lad = math_ops.reduce_sum(math_ops.log(math_ops.abs(self.spectrum)), axis=axis)
        return math_ops.cast(lad, self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg.adjoint(rhs) if adjoint_arg else rhs
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = math_ops.conj(spectrum)
        rhs, spectrum = self._broadcast_batch_dims(rhs, spectrum)
        rhs_vb = self._vectorize_then_blockify(rhs)
        fft_rhs_vb = self._fft(rhs_vb)
        solution_vb = self._ifft(fft_rhs_vb / spectrum)
        x = self._unblockify_then_matricize(solution_vb)
        return math_ops.cast(x, self.dtype)

    def _diag_part(self):
        if self.shape.is_fully_defined():
            diag_shape = self.shape[:-1]
            diag_size = self.domain_dimension.value
        else:
            diag_shape = self.shape_tensor()[:-1]
            diag_size = self.domain_dimension_tensor()
        ones_diag = array_ops.ones(diag_shape, dtype=self.dtype)
        diag_value = self.trace() / math_ops.cast(diag_size, self.dtype)
        return diag_value[..., array_ops.newaxis] * ones_diag

    def _trace(self):
        if self.spectrum.shape.is_fully_defined():
            spec_rank = self.spectrum.shape.ndims
            axis = np.arange(spec_rank - self.block_depth, spec_rank, dtype=np.int32)
        else:
            spec_rank = array_ops.rank(self.spectrum)
            axis = math_ops.range(spec_rank - self.block_depth, spec_rank)
        re_d_value = math_ops.reduce_sum(math_ops.real(self.spectrum), axis=axis)
        if not self.dtype.is_complex:
            return math_ops.cast(re_d_value, self.dtype)
        if self.is_self_adjoint:
            im_d_value = array_ops.zeros_like(re_d_value)
        else:
            im_d_value = math_ops.reduce_sum(math_ops.imag(self.spectrum), axis=axis)
        return math_ops.cast(math_ops.complex(re_d_value, im_d_value), self.dtype)

    @property
    def _composite_tensor_fields(self):
        return ("spectrum", "input_output_dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"spectrum": self.block_depth}


@tf_export("linalg.LinearOperatorCirculant")
class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a circulant matrix."""

    def __init__(
        self,
        spectrum: Tensor,
        input_output_dtype=dtypes.complex64,
        is_non_singular: bool = None,
        is_self_adjoint: bool = None,
        is_positive_definite: bool = None,
        is_square: bool = True,
        name="LinearOperatorCirculant",
    ):
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        super().__init__(
            spectrum,
            block_depth=1,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _linop_adjoint(self) -> "LinearOperatorCirculant":
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        return LinearOperatorCirculant(
            spectrum=spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorCirculant":
        return LinearOperatorCirculant(
            spectrum=1.0 / self.spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorCirculant",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return LinearOperatorCirculant(
            spectrum=left_operator.spectrum * right_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )

    def _linop_solve(
        self,
        left_operator: "LinearOperatorCirculant",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant):
            return super()._linop_solve(left_operator, right_operator)
        return LinearOperatorCirculant(
            spectrum=right_operator.spectrum / left_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )


@tf_export("linalg.LinearOperatorCirculant2D")
class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a block circulant matrix."""

    def __init__(
        self,
        spectrum: Tensor,
        input_output_dtype=dtypes.complex64,
        is_non_singular: bool = None,
        is_self_adjoint: bool = None,
        is_positive_definite: bool = None,
        is_square: bool = True,
        name="LinearOperatorCirculant2D",
    ):
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        super().__init__(
            spectrum,
            block_depth=2,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _linop_adjoint(self) -> "LinearOperatorCirculant2D":
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        return LinearOperatorCirculant2D(
            spectrum=spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorCirculant2D":
        return LinearOperatorCirculant2D(
            spectrum=1.0 / self.spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorCirculant2D",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant2D) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return LinearOperatorCirculant2D(
            spectrum=left_operator.spectrum * right_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )

    def _linop_solve(
        self,
        left_operator: "LinearOperatorCirculant2D",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant2D):
            return super()._linop_solve(left_operator, right_operator)
        return LinearOperatorCirculant2D(
            spectrum=right_operator.spectrum / left_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )


@tf_export("linalg.LinearOperatorCirculant3D")
class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a nested block circulant matrix."""

    def __init__(
        self,
        spectrum: Tensor,
        input_output_dtype=dtypes.complex64,
        is_non_singular: bool = None,
        is_self_adjoint: bool = None,
        is_positive_definite: bool = None,
        is_square: bool = True,
        name="LinearOperatorCirculant3D",
    ):
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        super().__init__(
            spectrum,
            block_depth=3,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _linop_adjoint(self) -> "LinearOperatorCirculant3D":
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        return LinearOperatorCirculant3D(
            spectrum=spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self) -> "LinearOperatorCirculant3D":
        return LinearOperatorCirculant3D(
            spectrum=1.0 / self.spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _linop_matmul(
        self,
        left_operator: "LinearOperatorCirculant3D",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant3D) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return LinearOperatorCirculant3D(
            spectrum=left_operator.spectrum * right_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )

    def _linop_solve(
        self,
        left_operator: "LinearOperatorCirculant3D",
        right_operator: linear_operator.LinearOperator,
    ) -> linear_operator.LinearOperator:
        if not isinstance(right_operator, LinearOperatorCirculant3D):
            return super()._linop_solve(left_operator, right_operator)
        return LinearOperatorCirculant3D(
            spectrum=right_operator.spectrum / left_operator.spectrum,
            is_non_singular=property_hint_util.combined_non_singular_hint(
                left_operator, right_operator
            ),
            is_self_adjoint=property_hint_util.combined_commuting_self_adjoint_hint(
                left_operator, right_operator
            ),
            is_positive_definite=property_hint_util.combined_commuting_positive_definite_hint(
                left_operator, right_operator
            ),
            is_square=True,
        )


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    dtype = dtypes.complex64
    if x.dtype == dtypes.float64:
        dtype = dtypes.complex128
    return math_ops.cast(x, dtype)


# ---- ported from tensorflow/python/ops/linalg/linear_operator_block_lower_triangular.py ----
"""Create a blockwise lower-triangular operator from `LinearOperators`."""


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(linear_operator.LinearOperator):
    """Combines `LinearOperators` into a blockwise lower-triangular matrix."""

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorBlockLowerTriangular",
    ):
        parameters = dict(
            operators=operators,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        check_ops.assert_proper_iterable(operators)
        for row in operators:
            check_ops.assert_proper_iterable(row)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(
                f"Argument `operators` must be a list of >=1 operators. Received: {operators}."
            )
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        self._validate_dtype(dtype)
        is_non_singular = self._validate_non_singular(is_non_singular)
        self._validate_num_operators()
        self._validate_operator_dimensions()
        is_square = self._validate_square(is_square)
        with ops.name_scope(name):
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                parameters=parameters,
                name=name,
            )

    def _validate_num_operators(self):
        for i, row in enumerate(self.operators):
            if len(row) != i + 1:
                raise ValueError(
                    f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} blocks."
                )

    def _validate_operator_dimensions(self):
        for i in range(1, len(self.operators)):
            for j in range(i):
                op = self.operators[i][j]
                above_op = self.operators[i - 1][j]
                right_op = self.operators[i][j + 1]
                if op.domain_dimension is not None and above_op.domain_dimension is not None:
                    if op.domain_dimension != above_op.domain_dimension:
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].domain_dimension` ({op.domain_dimension}) must be the same as `operators[{i - 1}][{j}].domain_dimension` ({above_op.domain_dimension})."
                        )
                if op.range_dimension is not None and right_op.range_dimension is not None:
                    if op.range_dimension != right_op.range_dimension:
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].range_dimension` ({op.range_dimension}) must be the same as `operators[{i}][{j + 1}].range_dimension` ({right_op.range_dimension})."
                        )

    def _validate_non_singular(self, is_non_singular):
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    f"A blockwise lower-triangular operator with non-singular operators on the main diagonal is always non-singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            return True
        if any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    f"A blockwise lower-triangular operator with a singular operator on the main diagonal is always singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            return False

    def _validate_square(self, is_square):
        if is_square is False:
            raise ValueError(
                f"`LinearOperatorBlockLowerTriangular` must be square. Expected argument `is_square` to be True. Received: {is_square}."
            )
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError(
                    f"Matrices on the diagonal (the final elements of each row-partition in the `operators` list) must be square. Expected argument `operators[{i}][-1].is_square` to be True. Received: {op.is_square}."
                )
        return True

    def _validate_dtype(self, dtype):
        for i, row in enumerate(self.operators):
            for operator in row:
                if operator.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError(
                        f"Expected all operators to have the same dtype.  Found {name_type} in row {i} and {str(dtype)} in row 0."
                    )

    @property
    def operators(self):
        """The operators this one is built from."""
        return self._operators

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self._diagonal_operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self._diagonal_operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _shape(self):
        domain_dimension = sum(self._block_domain_dimensions())
        range_dimension = sum(self._block_range_dimensions())
        matrix_shape = tensor_shape.TensorShape([domain_dimension, range_dimension])
        batch_shape = self.operators[0][0].batch_shape
        for row in self.operators[1:]:
            for operator in row:
                batch_shape = common_shapes.broadcast_shape(batch_shape, operator.batch_shape)
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        if self.shape.is_fully_defined():
            return tensor_conversion.convert_to_tensor_v2_with_dispatch(
                self.shape.as_list(), dtype=dtypes.int32, name="shape"
            )
        domain_dimension = sum(self._block_domain_dimension_tensors())
        range_dimension = sum(self._block_range_dimension_tensors())
        matrix_shape = array_ops_stack.stack([domain_dimension, range_dimension])
        batch_shape = self.operators[0][0].batch_shape_tensor()
        for row in self.operators[1:]:
            for operator in row:
                batch_shape = array_ops.broadcast_dynamic_shape(
                    batch_shape, operator.batch_shape_tensor()
                )
        return array_ops.concat((batch_shape, matrix_shape), 0)

    def _linop_inverse(self) -> "LinearOperatorBlockLowerTriangular":
        if len(self.operators) == 1:
            return LinearOperatorBlockLowerTriangular(
                [[self.operators[0][0].inverse()]],
                is_non_singular=self.is_non_singular,
                is_self_adjoint=self.is_self_adjoint,
                is_positive_definite=self.is_positive_definite,
                is_square=True,
            )
        blockwise_dim = len(self.operators)
        upper_left_inverse = LinearOperatorBlockLowerTriangular(self.operators[:-1]).inverse()
        bottom_row = self.operators[-1]
        bottom_right_inverse = bottom_row[-1].inverse()
        inverse_bottom_row = []
        for i in range(blockwise_dim - 1):
            blocks = []
            for j in range(i, blockwise_dim - 1):
                result = bottom_row[j].matmul(upper_left_inverse.operators[j][i])
                if not any(isinstance(result, op_type) for op_type in SUPPORTED_OPERATORS):
                    result = linear_operator_full_matrix.LinearOperatorFullMatrix(result.to_dense())
                blocks.append(result)
            summed_blocks = add_operators(blocks)
            assert len(summed_blocks) == 1
            block = summed_blocks[0]
            block = bottom_right_inverse.matmul(block)
            block = linear_operator_identity.LinearOperatorScaledIdentity(
                num_rows=bottom_right_inverse.domain_dimension_tensor(),
                multiplier=math_ops.cast(-1, dtype=block.dtype),
            ).matmul(block)
            inverse_bottom_row.append(block)
        inverse_bottom_row.append(bottom_right_inverse)
        return LinearOperatorBlockLowerTriangular(
            upper_left_inverse.operators + [inverse_bottom_row],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """Transform [batch] matrix `x` with left multiplication:  `x --> Ax`."""
        if isinstance(x, linear_operator.LinearOperator):
            left_operator = self.adjoint() if adjoint else self
            right_operator = x.adjoint() if adjoint_arg else x
            if (
                right_operator.range_dimension is not None
                and left_operator.domain_dimension is not None
                and (right_operator.range_dimension != left_operator.domain_dimension)
            ):
                raise ValueError(
                    f"Operators are incompatible. Expected `x` to have dimension {left_operator.domain_dimension} but got {right_operator.range_dimension}."
                )
            with self._name_scope(name):
                return self._linop_matmul(left_operator, right_operator)
        with self._name_scope(name):
            arg_dim = -1 if adjoint_arg else -2
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, x, arg_dim):
                for i, block in enumerate(x):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[arg_dim])
                        x[i] = block
            else:
                x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
                self._check_input_dtype(x)
                op_dimension = self.range_dimension if adjoint else self.domain_dimension
                op_dimension.assert_is_compatible_with(x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = (
            self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        )
        blockwise_arg = linear_operator_util.arg_is_blockwise(block_dimensions, x, arg_dim)
        if blockwise_arg:
            split_x = x
        else:
            split_dim = -1 if adjoint_arg else -2
            split_x = linear_operator_util.split_arg_into_blocks(
                self._block_domain_dimensions(),
                self._block_domain_dimension_tensors,
                x,
                axis=split_dim,
            )
        result_list = []
        if adjoint:
            for index in range(len(self.operators)):
                result = self.operators[index][index].matmul(
                    split_x[index], adjoint=adjoint, adjoint_arg=adjoint_arg
                )
                for j in range(index + 1, len(self.operators)):
                    result += self.operators[j][index].matmul(
                        split_x[j], adjoint=adjoint, adjoint_arg=adjoint_arg
                    )
                result_list.append(result)
        else:
            for row in self.operators:
                result = row[0].matmul(split_x[0], adjoint=adjoint, adjoint_arg=adjoint_arg)
                for j, operator in enumerate(row[1:]):
                    result += operator.matmul(
                        split_x[j + 1], adjoint=adjoint, adjoint_arg=adjoint_arg
                    )
                result_list.append(result)
        if blockwise_arg:
            return result_list
        result_list = linear_operator_util.broadcast_matrix_batch_dims(result_list)
        return array_ops.concat(result_list, axis=-2)

    def matvec(self, x, adjoint=False, name="matvec"):
        """Transform [batch] vector `x` with left multiplication:  `x --> Ax`."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, x, -1):
                for i, block in enumerate(x):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[-1])
                        x[i] = block
                x_mat = [block[..., array_ops.newaxis] for block in x]
                y_mat = self.matmul(x_mat, adjoint=adjoint)
                return [array_ops.squeeze(y, axis=-1) for y in y_mat]
            x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
            self._check_input_dtype(x)
            op_dimension = self.range_dimension if adjoint else self.domain_dimension
            op_dimension.assert_is_compatible_with(x.shape[-1])
            x_mat = x[..., array_ops.newaxis]
            y_mat = self.matmul(x_mat, adjoint=adjoint)
            return array_ops.squeeze(y_mat, axis=-1)

    def _determinant(self):
        if all(op.is_positive_definite for op in self._diagonal_operators):
            return math_ops.exp(self._log_abs_determinant())
        result = self._diagonal_operators[0].determinant()
        for op in self._diagonal_operators[1:]:
            result *= op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._diagonal_operators[0].log_abs_determinant()
        for op in self._diagonal_operators[1:]:
            result += op.log_abs_determinant()
        return result

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """Solve (exact or approx) `R` (batch) systems of equations: `A X = rhs`."""
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square."
            )
        if isinstance(rhs, linear_operator.LinearOperator):
            left_operator = self.adjoint() if adjoint else self
            right_operator = rhs.adjoint() if adjoint_arg else rhs
            if (
                right_operator.range_dimension is not None
                and left_operator.domain_dimension is not None
                and (right_operator.range_dimension != left_operator.domain_dimension)
            ):
                raise ValueError(
                    f"Operators are incompatible. Expected `rhs` to have dimension {left_operator.domain_dimension} but got {right_operator.range_dimension}."
                )
            with self._name_scope(name):
                return self._linop_solve(left_operator, right_operator)
        with self._name_scope(name):
            block_dimensions = (
                self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            )
            arg_dim = -1 if adjoint_arg else -2
            blockwise_arg = linear_operator_util.arg_is_blockwise(block_dimensions, rhs, arg_dim)
            if blockwise_arg:
                for i, block in enumerate(rhs):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[arg_dim])
                        rhs[i] = block
                if adjoint_arg:
                    split_rhs = [linalg.adjoint(y) for y in rhs]
                else:
                    split_rhs = rhs
            else:
                rhs = tensor_conversion.convert_to_tensor_v2_with_dispatch(rhs, name="rhs")
                self._check_input_dtype(rhs)
                op_dimension = self.domain_dimension if adjoint else self.range_dimension
                op_dimension.assert_is_compatible_with(rhs.shape[arg_dim])
                rhs = linalg.adjoint(rhs) if adjoint_arg else rhs
                split_rhs = linear_operator_util.split_arg_into_blocks(
                    self._block_domain_dimensions(),
                    self._block_domain_dimension_tensors,
                    rhs,
                    axis=-2,
                )
            solution_list = []
            if adjoint:
                for index in reversed(range(len(self.operators))):
                    y = split_rhs[index]
                    for j in reversed(range(index + 1, len(self.operators))):
                        y = y - self.operators[j][index].matmul(
                            solution_list[len(self.operators) - 1 - j], adjoint=adjoint
                        )
                    solution_list.append(self._diagonal_operators[index].solve(y, adjoint=adjoint))
                solution_list.reverse()
            else:
                for row, y in zip(self.operators, split_rhs):
                    for i, operator in enumerate(row[:-1]):
                        y = y - operator.matmul(solution_list[i], adjoint=adjoint)
                    solution_list.append(row[-1].solve(y, adjoint=adjoint))
            if blockwise_arg:
                return solution_list
            solution_list = linear_operator_util.broadcast_matrix_batch_dims(solution_list)
            return array_ops.concat(solution_list, axis=-2)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """Solve single equation with best effort: `A X = rhs`."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            )
            if linear_operator_util.arg_is_blockwise(block_dimensions, rhs, -1):
                for i, block in enumerate(rhs):
                    if not isinstance(block, linear_operator.LinearOperator):
                        block = tensor_conversion.convert_to_tensor_v2_with_dispatch(block)
                        self._check_input_dtype(block)
                        block_dimensions[i].assert_is_compatible_with(block.shape[-1])
                        rhs[i] = block
                rhs_mat = [array_ops.expand_dims(block, axis=-1) for block in rhs]
                solution_mat = self.solve(rhs_mat, adjoint=adjoint)
                return [array_ops.squeeze(x, axis=-1) for x in solution_mat]
            rhs = tensor_conversion.convert_to_tensor_v2_with_dispatch(rhs, name="rhs")
            self._check_input_dtype(rhs)
            op_dimension = self.domain_dimension if adjoint else self.range_dimension
            op_dimension.assert_is_compatible_with(rhs.shape[-1])
            rhs_mat = array_ops.expand_dims(rhs, axis=-1)
            solution_mat = self.solve(rhs_mat, adjoint=adjoint)
            return array_ops.squeeze(solution_mat, axis=-1)

    def _diag_part(self):
        diag_list = []
        for op in self._diagonal_operators:
            diag_list.append(op.diag_part()[..., array_ops.newaxis])
        diag_list = linear_operator_util.broadcast_matrix_batch_dims(diag_list)
        diagonal = array_ops.concat(diag_list, axis=-2)
        return array_ops.squeeze(diagonal, axis=-1)

    def _trace(self):
        result = self._diagonal_operators[0].trace()
        for op in self._diagonal_operators[1:]:
            result += op.trace()
        return result

    def _to_dense(self):
        num_cols = 0
        dense_rows = []
        flat_broadcast_operators = linear_operator_util.broadcast_matrix_batch_dims(
            [op.to_dense() for row in self.operators for op in row]
        )
        broadcast_operators = [
            flat_broadcast_operators[i * (i + 1) // 2 : (i + 1) * (i + 2) // 2]
            for i in range(len(self.operators))
        ]
        for row_blocks in broadcast_operators:
            batch_row_shape = array_ops.shape(row_blocks[0])[:-1]
            num_cols += array_ops.shape(row_blocks[-1])[-1]
            zeros_to_pad_after_shape = array_ops.concat(
                [batch_row_shape, [self.domain_dimension_tensor() - num_cols]], axis=-1
            )
            zeros_to_pad_after = array_ops.zeros(shape=zeros_to_pad_after_shape, dtype=self.dtype)
            row_blocks.append(zeros_to_pad_after)
            dense_rows.append(array_ops.concat(row_blocks, axis=-1))
        mat = array_ops.concat(dense_rows, axis=-2)
        pass  # eager tensors carry their shape (TF: mat.set_shape(self.shape))
        return mat

    def _assert_non_singular(self):
        return control_flow_ops.group([op.assert_non_singular() for op in self._diagonal_operators])

    def _eigvals(self):
        eig_list = []
        for op in self._diagonal_operators:
            eig_list.append(op.eigvals()[..., array_ops.newaxis])
        eig_list = linear_operator_util.broadcast_matrix_batch_dims(eig_list)
        eigs = array_ops.concat(eig_list, axis=-2)
        return array_ops.squeeze(eigs, axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": nest.map_structure(lambda _: 0, self.operators)}


# ---- ported from tensorflow/python/ops/linalg/linear_operator_addition.py ----
"""Add one or more `LinearOperators` efficiently."""


def add_operators(operators, operator_name=None, addition_tiers=None, name=None):
    """Efficiently add one or more linear operators."""
    if addition_tiers is None:
        addition_tiers = _DEFAULT_ADDITION_TIERS
    check_ops.assert_proper_iterable(operators)
    operators = list(reversed(operators))
    if len(operators) < 1:
        raise ValueError(
            f"Argument `operators` must contain at least one operator. Received: {operators}."
        )
    if not all(isinstance(op, linear_operator.LinearOperator) for op in operators):
        raise TypeError(
            f"Argument `operators` must contain only LinearOperator instances. Received: {operators}."
        )
    _static_check_for_same_dimensions(operators)
    _static_check_for_broadcastable_batch_shape(operators)
    with ops.name_scope(name or "add_operators"):
        ops_to_try_at_next_tier = list(operators)
        for tier in addition_tiers:
            ops_to_try_at_this_tier = ops_to_try_at_next_tier
            ops_to_try_at_next_tier = []
            while ops_to_try_at_this_tier:
                op1 = ops_to_try_at_this_tier.pop()
                op2, adder = _pop_a_match_at_tier(op1, ops_to_try_at_this_tier, tier)
                if op2 is not None:
                    new_operator = adder.add(op1, op2, operator_name)
                    ops_to_try_at_this_tier.append(new_operator)
                else:
                    ops_to_try_at_next_tier.append(op1)
        return ops_to_try_at_next_tier


def _pop_a_match_at_tier(op1, operator_list, tier):
    for i in range(1, len(operator_list) + 1):
        op2 = operator_list[-i]
        for adder in tier:
            if adder.can_add(op1, op2):
                return (operator_list.pop(-i), adder)
    return (None, None)


def _infer_hints_allowing_override(op1, op2, hints):
    hints = hints or _Hints()
    if hints.is_self_adjoint is None:
        is_self_adjoint = op1.is_self_adjoint and op2.is_self_adjoint
    else:
        is_self_adjoint = hints.is_self_adjoint
    if hints.is_positive_definite is None:
        is_positive_definite = op1.is_positive_definite and op2.is_positive_definite
    else:
        is_positive_definite = hints.is_positive_definite
    if is_positive_definite and hints.is_positive_definite is None:
        is_non_singular = True
    else:
        is_non_singular = hints.is_non_singular
    return _Hints(
        is_non_singular=is_non_singular,
        is_self_adjoint=is_self_adjoint,
        is_positive_definite=is_positive_definite,
    )


def _static_check_for_same_dimensions(operators):
    if len(operators) < 2:
        return
    domain_dimensions = [
        (op.name, tensor_shape.dimension_value(op.domain_dimension))
        for op in operators
        if tensor_shape.dimension_value(op.domain_dimension) is not None
    ]
    if len(set((value for name, value in domain_dimensions))) > 1:
        raise ValueError(
            f"All `operators` must have the same `domain_dimension`. Received: {domain_dimensions}."
        )
    range_dimensions = [
        (op.name, tensor_shape.dimension_value(op.range_dimension))
        for op in operators
        if tensor_shape.dimension_value(op.range_dimension) is not None
    ]
    if len(set((value for name, value in range_dimensions))) > 1:
        raise ValueError(
            f"All operators must have the same `range_dimension`. Received: {range_dimensions}."
        )


def _static_check_for_broadcastable_batch_shape(operators):
    if len(operators) < 2:
        return
    batch_shape = operators[0].batch_shape
    for op in operators[1:]:
        batch_shape = array_ops.broadcast_static_shape(batch_shape, op.batch_shape)


class _Hints:
    def __init__(self, is_non_singular=None, is_positive_definite=None, is_self_adjoint=None):
        self.is_non_singular = is_non_singular
        self.is_positive_definite = is_positive_definite
        self.is_self_adjoint = is_self_adjoint


class _Adder(metaclass=abc.ABCMeta):
    @property
    def name(self):
        return self.__class__.__name__

    @abc.abstractmethod
    def can_add(self, op1, op2):
        """Returns `True` if this `Adder` can add `op1` and `op2`.  Else `False`."""
        pass

    @abc.abstractmethod
    def _add(self, op1, op2, operator_name, hints):
        pass

    def add(self, op1, op2, operator_name, hints=None):
        """Return new `LinearOperator` acting like `op1 + op2`."""
        updated_hints = _infer_hints_allowing_override(op1, op2, hints)
        if operator_name is None:
            operator_name = "Add/" + op1.name + "__" + op2.name + "/"
        scope_name = self.name
        if scope_name.startswith("_"):
            scope_name = scope_name[1:]
        with ops.name_scope(scope_name):
            return self._add(op1, op2, operator_name, updated_hints)


class _AddAndReturnScaledIdentity(_Adder):
    def can_add(self, op1, op2):
        types = {_type(op1), _type(op2)}
        return not types.difference(_IDENTITY_FAMILY)

    def _add(self, op1, op2, operator_name, hints):
        if _type(op1) == _SCALED_IDENTITY:
            multiplier_1 = op1.multiplier
        else:
            multiplier_1 = array_ops.ones(op1.batch_shape_tensor(), dtype=op1.dtype)
        if _type(op2) == _SCALED_IDENTITY:
            multiplier_2 = op2.multiplier
        else:
            multiplier_2 = array_ops.ones(op2.batch_shape_tensor(), dtype=op2.dtype)
        return linear_operator_identity.LinearOperatorScaledIdentity(
            num_rows=op1.range_dimension_tensor(),
            multiplier=multiplier_1 + multiplier_2,
            is_non_singular=hints.is_non_singular,
            is_self_adjoint=hints.is_self_adjoint,
            is_positive_definite=hints.is_positive_definite,
            name=operator_name,
        )


class _AddAndReturnDiag(_Adder):
    def can_add(self, op1, op2):
        types = {_type(op1), _type(op2)}
        return not types.difference(_DIAG_LIKE)

    def _add(self, op1, op2, operator_name, hints):
        return linear_operator_diag.LinearOperatorDiag(
            diag=op1.diag_part() + op2.diag_part(),
            is_non_singular=hints.is_non_singular,
            is_self_adjoint=hints.is_self_adjoint,
            is_positive_definite=hints.is_positive_definite,
            name=operator_name,
        )


class _AddAndReturnTriL(_Adder):
    def can_add(self, op1, op2):
        types = {_type(op1), _type(op2)}
        return not types.difference(_DIAG_LIKE.union({_TRIL}))

    def _add(self, op1, op2, operator_name, hints):
        if _type(op1) in _EFFICIENT_ADD_TO_TENSOR:
            op_add_to_tensor, op_other = (op1, op2)
        else:
            op_add_to_tensor, op_other = (op2, op1)
        return linear_operator_lower_triangular.LinearOperatorLowerTriangular(
            tril=op_add_to_tensor.add_to_tensor(op_other.to_dense()),
            is_non_singular=hints.is_non_singular,
            is_self_adjoint=hints.is_self_adjoint,
            is_positive_definite=hints.is_positive_definite,
            name=operator_name,
        )


class _AddAndReturnMatrix(_Adder):
    def can_add(self, op1, op2):
        return isinstance(op1, linear_operator.LinearOperator) and isinstance(
            op2, linear_operator.LinearOperator
        )

    def _add(self, op1, op2, operator_name, hints):
        if _type(op1) in _EFFICIENT_ADD_TO_TENSOR:
            op_add_to_tensor, op_other = (op1, op2)
        else:
            op_add_to_tensor, op_other = (op2, op1)
        return linear_operator_full_matrix.LinearOperatorFullMatrix(
            matrix=op_add_to_tensor.add_to_tensor(op_other.to_dense()),
            is_non_singular=hints.is_non_singular,
            is_self_adjoint=hints.is_self_adjoint,
            is_positive_definite=hints.is_positive_definite,
            name=operator_name,
        )


_IDENTITY = "identity"
_SCALED_IDENTITY = "scaled_identity"
_DIAG = "diag"
_TRIL = "tril"
_MATRIX = "matrix"
_DIAG_LIKE = {_DIAG, _IDENTITY, _SCALED_IDENTITY}
_IDENTITY_FAMILY = {_IDENTITY, _SCALED_IDENTITY}
_EFFICIENT_ADD_TO_TENSOR = _DIAG_LIKE
SUPPORTED_OPERATORS = [
    linear_operator_diag.LinearOperatorDiag,
    linear_operator_lower_triangular.LinearOperatorLowerTriangular,
    linear_operator_full_matrix.LinearOperatorFullMatrix,
    linear_operator_identity.LinearOperatorIdentity,
    linear_operator_identity.LinearOperatorScaledIdentity,
]


def _type(operator):
    if isinstance(operator, linear_operator_diag.LinearOperatorDiag):
        return _DIAG
    if isinstance(operator, linear_operator_lower_triangular.LinearOperatorLowerTriangular):
        return _TRIL
    if isinstance(operator, linear_operator_full_matrix.LinearOperatorFullMatrix):
        return _MATRIX
    if isinstance(operator, linear_operator_identity.LinearOperatorIdentity):
        return _IDENTITY
    if isinstance(operator, linear_operator_identity.LinearOperatorScaledIdentity):
        return _SCALED_IDENTITY
    raise TypeError(
        f"Expected operator to be one of [LinearOperatorDiag, LinearOperatorLowerTriangular, LinearOperatorFullMatrix, LinearOperatorIdentity, LinearOperatorScaledIdentity]. Received: {operator}"
    )


_DEFAULT_ADDITION_TIERS = [
    [_AddAndReturnScaledIdentity()],
    [_AddAndReturnDiag()],
    [_AddAndReturnTriL()],
    [_AddAndReturnMatrix()],
]
