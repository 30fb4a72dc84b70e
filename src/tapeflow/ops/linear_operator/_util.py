"""Helpers of the linear operators: TF 2.21's linear_operator_util, property_hint_util
and slicing.

TF's classes and their logic, rewritten onto tapeflow's ops through the shim
`_compat` (TF's module names); Apache-2.0, The TensorFlow Authors."""

# ruff: noqa: E501 - the messages are kept whole as TF words them
import numpy as np
from tapeflow.ops.linear_operator._compat import (
    array_ops,
    check_ops,
    collections,
    control_flow_ops,
    dtypes,
    functools,
    linalg_ops,
    math_ops,
    module,
    nest,
    ops,
    tensor_conversion,
    tensor_util,
    variables_module,
)

# ---- ported from tensorflow/python/ops/linalg/linear_operator_util.py ----
"""Internal utilities for `LinearOperator` classes."""


def convert_nonref_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts the given `value` to a `Tensor` if input is nonreference type."""
    if value is None:
        return None
    if is_ref(value):
        if dtype is None:
            return value
        dtype_base = base_dtype(dtype)
        value_dtype_base = base_dtype(value.dtype)
        if dtype_base != value_dtype_base:
            raise TypeError(
                f"Argument `value` must be of dtype `{dtype_name(dtype_base)}` Received: `{dtype_name(value_dtype_base)}`."
            )
        return value
    return tensor_conversion.convert_to_tensor_v2_with_dispatch(
        value, dtype=dtype, dtype_hint=dtype_hint, name=name
    )


def base_dtype(dtype):
    """Returns a non-reference `dtype` based on this `dtype`."""
    dtype = dtypes.as_dtype(dtype)
    if hasattr(dtype, "base_dtype"):
        return dtype.base_dtype
    return dtype


def dtype_name(dtype):
    """Returns the string name for this `dtype`."""
    dtype = dtypes.as_dtype(dtype)
    if hasattr(dtype, "name"):
        return dtype.name
    if hasattr(dtype, "__name__"):
        return dtype.__name__
    return str(dtype)


def check_dtype(arg, dtype):
    """Check that arg.dtype == self.dtype."""
    if arg.dtype.base_dtype != dtype:
        raise TypeError(
            f"Expected argument to have dtype {dtype}. Found: {arg.dtype} in tensor {arg}."
        )


def is_ref(x):
    """Evaluates if the object has reference semantics."""
    return isinstance(x, variables_module.Variable) or (
        isinstance(x, module.Module) and hasattr(x, "dtype") and hasattr(x, "shape")
    )


def assert_not_ref_type(x, arg_name):
    if is_ref(x):
        raise TypeError(f"Argument {arg_name} cannot be reference type. Found: {type(x)}.")


def assert_no_entries_with_modulus_zero(
    x, message=None, name="assert_no_entries_with_modulus_zero"
):
    """Returns `Op` that asserts Tensor `x` has no entries with modulus zero."""
    with ops.name_scope(name, values=[x]):
        x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
        dtype = x.dtype.base_dtype
        should_be_nonzero = math_ops.abs(x)
        zero = tensor_conversion.convert_to_tensor_v2_with_dispatch(0, dtype=dtype.real_dtype)
        return check_ops.assert_less(zero, should_be_nonzero, message=message)


def assert_zero_imag_part(x, message=None, name="assert_zero_imag_part"):
    """Returns `Op` that asserts Tensor `x` has no non-zero imaginary parts."""
    with ops.name_scope(name, values=[x]):
        x = tensor_conversion.convert_to_tensor_v2_with_dispatch(x, name="x")
        dtype = x.dtype.base_dtype
        if dtype.is_floating:
            return control_flow_ops.no_op()
        zero = tensor_conversion.convert_to_tensor_v2_with_dispatch(0, dtype=dtype.real_dtype)
        return check_ops.assert_equal(zero, math_ops.imag(x), message=message)


def assert_compatible_matrix_dimensions(operator, x):
    """Assert that an argument to solve/matmul has proper domain dimension."""
    assert_same_dd = check_ops.assert_equal(
        array_ops.shape(x)[-2],
        operator.domain_dimension_tensor(),
        message="Dimensions are not compatible.  shape[-2] of argument to be the same as this operator",
    )
    return assert_same_dd


def assert_is_batch_matrix(tensor):
    """Static assert that `tensor` has rank `2` or higher."""
    sh = tensor.shape
    if sh.ndims is not None and sh.ndims < 2:
        raise ValueError(
            f"Expected [batch] matrix to have at least two dimensions. Found: {tensor}."
        )


def shape_tensor(shape, name=None):
    """Convert Tensor using default type, unless empty list or tuple."""
    if isinstance(shape, (tuple, list)) and (not shape):
        dtype = dtypes.int32
    else:
        dtype = None
    return tensor_conversion.convert_to_tensor_v2_with_dispatch(shape, dtype=dtype, name=name)


def broadcast_matrix_batch_dims(batch_matrices, name=None):
    """Broadcast leading dimensions of zero or more [batch] matrices."""
    with ops.name_scope(name or "broadcast_matrix_batch_dims", values=batch_matrices):
        check_ops.assert_proper_iterable(batch_matrices)
        batch_matrices = list(batch_matrices)
        for i, mat in enumerate(batch_matrices):
            batch_matrices[i] = tensor_conversion.convert_to_tensor_v2_with_dispatch(mat)
            assert_is_batch_matrix(batch_matrices[i])
        if len(batch_matrices) < 2:
            return batch_matrices
        bcast_batch_shape = batch_matrices[0].shape[:-2]
        for mat in batch_matrices[1:]:
            bcast_batch_shape = array_ops.broadcast_static_shape(bcast_batch_shape, mat.shape[:-2])
        if bcast_batch_shape.is_fully_defined():
            for i, mat in enumerate(batch_matrices):
                if mat.shape[:-2] != bcast_batch_shape:
                    bcast_shape = array_ops.concat(
                        [bcast_batch_shape.as_list(), array_ops.shape(mat)[-2:]], axis=0
                    )
                    batch_matrices[i] = array_ops.broadcast_to(mat, bcast_shape)
            return batch_matrices
        bcast_batch_shape = array_ops.shape(batch_matrices[0])[:-2]
        for mat in batch_matrices[1:]:
            bcast_batch_shape = array_ops.broadcast_dynamic_shape(
                bcast_batch_shape, array_ops.shape(mat)[:-2]
            )
        for i, mat in enumerate(batch_matrices):
            batch_matrices[i] = array_ops.broadcast_to(
                mat, array_ops.concat([bcast_batch_shape, array_ops.shape(mat)[-2:]], axis=0)
            )
        return batch_matrices


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False, name=None):
    """Solve systems of linear equations."""
    with ops.name_scope(name, "MatrixSolveWithBroadcast", [matrix, rhs]):
        matrix = tensor_conversion.convert_to_tensor_v2_with_dispatch(matrix, name="matrix")
        rhs = tensor_conversion.convert_to_tensor_v2_with_dispatch(
            rhs, name="rhs", dtype=matrix.dtype
        )
        matrix, rhs, reshape_inv, still_need_to_transpose = _reshape_for_efficiency(
            matrix, rhs, adjoint_a=adjoint
        )
        matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
        solution = linalg_ops.matrix_solve(matrix, rhs, adjoint=adjoint and still_need_to_transpose)
        return reshape_inv(solution)


def _reshape_for_efficiency(
    a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False
):

    def identity(x):
        return x

    still_need_to_transpose = True
    if a.shape.ndims is None or b.shape.ndims is None:
        return (a, b, identity, still_need_to_transpose)
    if a.shape.ndims >= b.shape.ndims:
        return (a, b, identity, still_need_to_transpose)
    b_extra_ndims = b.shape.ndims - a.shape.ndims
    b_extra_sh = array_ops.shape(b)[:b_extra_ndims]
    b_main_sh = array_ops.shape(b)[b_extra_ndims:]
    a_domain_sz_ = a.shape[-2 if adjoint_a or transpose_a else -1]
    b_eq_sz_ = b.shape[-2 if adjoint_b or transpose_b else -1]
    b_extra_sz_ = (
        np.prod(b.shape[:b_extra_ndims].as_list())
        if b.shape[:b_extra_ndims].is_fully_defined()
        else None
    )
    if a_domain_sz_ is not None and b_eq_sz_ is not None and (b_extra_sz_ is not None):
        if b_extra_sz_ < 2 or a_domain_sz_ <= b_eq_sz_:
            return (a, b, identity, still_need_to_transpose)
    if adjoint_a:
        a = array_ops.matrix_transpose(a, conjugate=True)
    elif transpose_a:
        a = array_ops.matrix_transpose(a, conjugate=False)
    if adjoint_b:
        b = array_ops.matrix_transpose(b, conjugate=True)
    elif transpose_a:
        b = array_ops.matrix_transpose(b, conjugate=False)
    still_need_to_transpose = False
    b_extra_sh = array_ops.shape(b)[:b_extra_ndims]
    b_main_sh = array_ops.shape(b)[b_extra_ndims:]
    perm = np.concatenate((np.arange(b_extra_ndims, b.shape.ndims), np.arange(0, b_extra_ndims)), 0)
    b_extra_on_end = array_ops.transpose(b, perm=perm)
    b_squashed_end = array_ops.reshape(b_extra_on_end, array_ops.concat((b_main_sh[:-1], [-1]), 0))

    def reshape_inv(y):
        y_extra_shape = array_ops.concat((array_ops.shape(y)[:-1], [b_main_sh[-1]], b_extra_sh), 0)
        y_extra_on_end = array_ops.reshape(y, y_extra_shape)
        inverse_perm = np.argsort(perm)
        return array_ops.transpose(y_extra_on_end, perm=inverse_perm)

    return (a, b_squashed_end, reshape_inv, still_need_to_transpose)


def is_adjoint_pair(x, y):
    """True iff x and y are adjoints of each other (by id, not entries)."""
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def is_aat_form(operators):
    """Returns True if operators is of the form A @ A.H, possibly recursively."""
    operators = list(operators)
    if not operators:
        raise ValueError("AAT form is undefined for empty operators")
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


def use_operator_or_provided_hint_unless_contradicting(
    operator, hint_attr_name, provided_hint_value, message
):
    """Get combined hint in the case where operator.hint should equal hint."""
    op_hint = getattr(operator, hint_attr_name)
    if op_hint is False and provided_hint_value:
        raise ValueError(message)
    if op_hint and provided_hint_value is False:
        raise ValueError(message)
    if op_hint or provided_hint_value:
        return True
    if op_hint is False or provided_hint_value is False:
        return False
    return None


def arg_is_blockwise(block_dimensions, arg, arg_split_dim):
    """Detect if input should be interpreted as a list of blocks."""
    if isinstance(arg, (tuple, list)) and len(arg) == len(block_dimensions):
        if not any(nest.is_nested(x) for x in arg):
            return True
        else:
            arg_dims = [
                tensor_conversion.convert_to_tensor_v2_with_dispatch(x).shape[arg_split_dim]
                for x in arg
            ]
            self_dims = [dim.value for dim in block_dimensions]
            if all(self_d is None for self_d in self_dims):
                if len(arg_dims) == 1:
                    return False
                elif any(dim != arg_dims[0] for dim in arg_dims):
                    return True
                else:
                    raise ValueError(
                        "Parsing of the input structure is ambiguous. Please input a blockwise iterable of `Tensor`s or a single `Tensor`."
                    )
            if all(
                (self_d == arg_d or self_d is None for self_d, arg_d in zip(self_dims, arg_dims))
            ):
                return True
            self_dim = sum(self_d for self_d in self_dims if self_d is not None)
            if all(s == arg_dims[0] for s in arg_dims) and arg_dims[0] >= self_dim:
                return False
            raise ValueError("Input dimension does not match operator dimension.")
    else:
        return False


def split_arg_into_blocks(block_dims, block_dims_fn, arg, axis=-1):
    """Split `x` into blocks matching `operators`'s `domain_dimension`."""
    block_sizes = [dim.value for dim in block_dims]
    if any(d is None for d in block_sizes):
        block_sizes = block_dims_fn()
    return array_ops.split(arg, block_sizes, axis=axis)


# ---- ported from tensorflow/python/ops/linalg/property_hint_util.py ----
"""Common utilities for LinearOperator property hints."""


def combined_commuting_self_adjoint_hint(operator_a, operator_b):
    """Get combined hint for self-adjoint-ness."""
    if operator_a.is_self_adjoint and operator_b.is_self_adjoint:
        return True
    if (
        operator_a.is_self_adjoint is True
        and operator_b.is_self_adjoint is False
        or (operator_a.is_self_adjoint is False and operator_b.is_self_adjoint is True)
    ):
        return False
    return None


def is_square(operator_a, operator_b):
    """Return a hint to whether the composition is square."""
    if operator_a.is_square and operator_b.is_square:
        return True
    if operator_a.is_square is False and operator_b.is_square is False:
        m = operator_a.range_dimension
        l = operator_b.domain_dimension
        if m is not None and l is not None:
            return m == l
    if operator_a.is_square != operator_b.is_square and (
        operator_a.is_square is not None and operator_b.is_square is not None
    ):
        return False
    return None


def combined_commuting_positive_definite_hint(operator_a, operator_b):
    """Get combined PD hint for compositions."""
    if (
        operator_a.is_positive_definite is True
        and operator_a.is_self_adjoint is True
        and (operator_b.is_positive_definite is True)
        and (operator_b.is_self_adjoint is True)
    ):
        return True
    return None


def combined_non_singular_hint(operator_a, operator_b):
    """Get combined hint for when ."""
    if operator_a.is_non_singular is False or operator_b.is_non_singular is False:
        return False
    return operator_a.is_non_singular and operator_b.is_non_singular


# ---- ported from tensorflow/python/ops/linalg/slicing.py ----
"""Utilities for slicing in to a `LinearOperator`."""


def _prefer_static_where(condition, x, y):
    args = [condition, x, y]
    constant_args = [tensor_util.constant_value(a) for a in args]
    if all(arg is not None for arg in constant_args):
        condition_, x_, y_ = constant_args
        return np.where(condition_, x_, y_)
    return array_ops.where(condition, x, y)


def _broadcast_parameter_with_batch_shape(param, param_ndims_to_matrix_ndims, batch_shape):
    if hasattr(param, "batch_shape_tensor"):
        override_dict = {}
        for name, ndims in param._experimental_parameter_ndims_to_matrix_ndims.items():
            sub_param = getattr(param, name)
            override_dict[name] = nest.map_structure_up_to(
                sub_param,
                functools.partial(_broadcast_parameter_with_batch_shape, batch_shape=batch_shape),
                sub_param,
                ndims,
            )
        parameters = dict(param.parameters, **override_dict)
        return type(param)(**parameters)
    base_shape = array_ops.concat(
        [batch_shape, array_ops.ones([param_ndims_to_matrix_ndims], dtype=dtypes.int32)], axis=0
    )
    return array_ops.broadcast_to(
        param, array_ops.broadcast_dynamic_shape(base_shape, array_ops.shape(param))
    )


def _sanitize_slices(slices, intended_shape, deficient_shape):
    sanitized_slices = []
    idx = 0
    for slc in slices:
        if slc is Ellipsis:
            if idx < 0:
                raise ValueError(f"Found multiple `...` in slices {slices}")
            num_remaining_non_newaxis_slices = sum(
                s is not array_ops.newaxis for s in slices[slices.index(Ellipsis) + 1 :]
            )
            idx = -num_remaining_non_newaxis_slices
        elif slc is array_ops.newaxis:
            pass
        else:
            is_broadcast = intended_shape[idx] > deficient_shape[idx]
            if isinstance(slc, slice):
                start, stop, step = (slc.start, slc.stop, slc.step)
                if start is not None:
                    start = _prefer_static_where(is_broadcast, 0, start)
                if stop is not None:
                    stop = _prefer_static_where(is_broadcast, 1, stop)
                if step is not None:
                    step = _prefer_static_where(is_broadcast, 1, step)
                slc = slice(start, stop, step)
            else:
                slc = _prefer_static_where(is_broadcast, 0, slc)
            idx += 1
        sanitized_slices.append(slc)
    return sanitized_slices


def _slice_single_param(param, param_ndims_to_matrix_ndims, slices, batch_shape):
    param = _broadcast_parameter_with_batch_shape(
        param, param_ndims_to_matrix_ndims, array_ops.ones_like(batch_shape)
    )
    if hasattr(param, "batch_shape_tensor"):
        param_batch_shape = param.batch_shape_tensor()
    else:
        param_batch_shape = array_ops.shape(param)
    param_batch_rank = array_ops.size(param_batch_shape)
    param_batch_shape = param_batch_shape[: param_batch_rank - param_ndims_to_matrix_ndims]
    if (
        tensor_util.constant_value(array_ops.size(batch_shape)) != 0
        and tensor_util.constant_value(array_ops.size(param_batch_shape)) == 0
    ):
        return param
    param_slices = _sanitize_slices(
        slices, intended_shape=batch_shape, deficient_shape=param_batch_shape
    )
    if param_ndims_to_matrix_ndims > 0:
        if Ellipsis not in [slc for slc in slices if not tensor_util.is_tensor(slc)]:
            param_slices.append(Ellipsis)
        param_slices += [slice(None)] * param_ndims_to_matrix_ndims
    return param.__getitem__(tuple(param_slices))


def batch_slice(linop, params_overrides, slices):
    """Slices `linop` along its batch dimensions."""
    if not isinstance(slices, collections.abc.Sequence):
        slices = (slices,)
    if len(slices) == 1 and slices[0] is Ellipsis:
        override_dict = {}
    else:
        batch_shape = linop.batch_shape_tensor()
        override_dict = {}
        for (
            param_name,
            param_ndims_to_matrix_ndims,
        ) in linop._experimental_parameter_ndims_to_matrix_ndims.items():
            param = getattr(linop, param_name)
            if param is not None:
                override_dict[param_name] = nest.map_structure_up_to(
                    param,
                    functools.partial(_slice_single_param, slices=slices, batch_shape=batch_shape),
                    param,
                    param_ndims_to_matrix_ndims,
                )
    override_dict.update(params_overrides)
    parameters = dict(linop.parameters, **override_dict)
    return type(linop)(**parameters)
