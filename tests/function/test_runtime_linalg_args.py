"""The last op arguments that were read while tracing, now read when the graph runs (issue 33):
linalg.diag/diag_part/set_diag's k and sizes, lu_solve/lu_matrix_inverse's perm, linspace's
axis, tensordot's [2, k] axes tensor, eye's num_columns/batch_shape, strided_slice's
begin/end/strides and signal.mdct's frame_length.

Each op is traced with the argument unknown while tracing (an input_signature TensorSpec) and
called with two values: both runs equal eager tapeflow (checked against TF elsewhere); the
traced static shape is TF 2.21's (measured, written as literals); gradients through the traced
function equal eager ones; a bad value raises TF's error when the graph runs (or, where TF's
shape function refuses it, while tracing). The registry (test_unknown_value_registry.py)
compares the numbers with TF's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tapeflow as tf

_RNG = np.random.default_rng(33)
_I32 = tf.int32


def _spec(*dims, dtype=tf.float32):
    return tf.TensorSpec(list(dims), dtype)


def _normal(*shape):
    return _RNG.standard_normal(shape).astype(np.float32)


_CUBE = _normal(2, 3, 4)
_MATRIX = _normal(3, 4)
_LU = np.array([[4.0, 3.0, 1.0], [0.5, 1.5, 2.0], [0.25, 0.5, 3.0]], np.float32)
_SIGNAL = _normal(2, 16)

# name -> (op of (x, argument), x, the argument's two values, x's spec, the argument's spec,
# TF 2.21's static output shape for these specs (measured; None: unknown rank), whether the op
# is differentiable in x).
CASES = {
    "diag_part-k": (lambda x, k: tf.linalg.diag_part(x, k=k), _CUBE, [1, -2],
                    _spec(None, None, None), _spec(dtype=_I32), None, True),
    "diag-k": (lambda d, k: tf.linalg.diag(d, k=k), _CUBE[:, 0], [1, -2],
               _spec(None, None), _spec(dtype=_I32), None, True),
    "diag-num_rows": (lambda d, r: tf.linalg.diag(d, num_rows=r), _CUBE[:, 0], [4, 6],
                      _spec(None, None), _spec(dtype=_I32), [None, None, None], True),
    "diag-num_cols": (lambda d, c: tf.linalg.diag(d, num_cols=c), _CUBE[:, 0], [4, 5],
                      _spec(None, None), _spec(dtype=_I32), [None, None, None], True),
    "set_diag-k": (lambda x, k: tf.linalg.set_diag(x, 2.0 * x[:, 0, :3], k=k), _CUBE, [0, 1],
                   _spec(None, None, None), _spec(dtype=_I32), [None, None, None], True),
    "lu_solve-perm": (lambda lu, p: tf.linalg.lu_solve(lu, p, lu[:, :2] + 1.0), _LU,
                      [[0, 1, 2], [2, 0, 1]], _spec(None, None), _spec(3, dtype=_I32),
                      [3, None], True),
    "lu_matrix_inverse-perm": (lambda lu, p: tf.linalg.lu_matrix_inverse(lu, p), _LU,
                               [[0, 1, 2], [1, 2, 0]], _spec(None, None),
                               _spec(3, dtype=_I32), [3, None], True),
    "linspace-axis": (lambda a, axis: tf.linspace(a, 2.0 * a + 1.0, 4, axis=axis),
                      _MATRIX[0], [0, -1], _spec(None), _spec(dtype=_I32), None, True),
    "tensordot-axes": (lambda a, axes: tf.tensordot(a, tf.transpose(a) * 0.5, axes), _MATRIX,
                       [[[1], [0]], [[0], [1]]], _spec(None, None), _spec(2, 1, dtype=_I32),
                       None, True),
    "eye-num_columns": (lambda x, c: x[0] * tf.eye(2, c), _MATRIX[0, :1], [3, 1],
                        _spec(None), _spec(dtype=_I32), [2, None], True),
    "eye-batch_shape": (lambda x, b: x[0] * tf.eye(2, batch_shape=b), _MATRIX[0, :1],
                        [[3], [1]], _spec(None), _spec(1, dtype=_I32), [None, 2, 2], True),
    "strided_slice-begin": (lambda x, b: tf.strided_slice(x, b, [3, 4], [1, 1]), _MATRIX,
                            [[0, 1], [1, -3]], _spec(None, None), _spec(2, dtype=_I32),
                            [None, None], True),
    "strided_slice-end": (lambda x, e: tf.strided_slice(x, [0, 0], e, [1, 1]), _MATRIX,
                          [[2, 3], [3, -1]], _spec(None, None), _spec(2, dtype=_I32),
                          [None, None], True),
    "strided_slice-strides": (lambda x, s: tf.strided_slice(x, [0, 0], [3, 4], s), _MATRIX,
                              [[1, 1], [2, 3]], _spec(None, None), _spec(2, dtype=_I32),
                              None, True),
    "strided_slice-reversed": (lambda x, s: tf.strided_slice(x, [-1, 3], [-4, 0], s,
                                                             end_mask=1), _MATRIX,
                               [[-1, -1], [-2, -2]], _spec(None, None), _spec(2, dtype=_I32),
                               None, True),
    "strided_slice-shrink": (lambda x, b: tf.strided_slice(x, b, [3, 4], [1, 1],
                                                           shrink_axis_mask=1),
                             _MATRIX, [[1, 1], [-1, 2]], _spec(None, None),
                             _spec(2, dtype=_I32), [None], True),
    "strided_slice-new_axis": (lambda x, b: tf.strided_slice(x, b, [3, 4], [1, 1],
                                                             new_axis_mask=1),
                               _MATRIX, [[0, 1], [0, 2]], _spec(3, 4), _spec(2, dtype=_I32),
                               [1, None, 4], True),
    "mdct-frame_length": (lambda s, n: tf.signal.mdct(s, n), _SIGNAL, [8, 4],
                          _spec(None, None), _spec(dtype=_I32), [None, None, None], True),
    "mdct-ortho-pad_end": (lambda s, n: tf.signal.mdct(s[:, :15], n, norm="ortho",
                                                       pad_end=True),
                           _SIGNAL, [8, 12], _spec(None, None), _spec(dtype=_I32),
                           [None, None, None], True),
}


def _traced(name):
    f, _, _, x_spec, arg_spec, _, _ = CASES[name]
    return tf.function(f, input_signature=[x_spec, arg_spec])


def _arg(value, spec):
    return tf.constant(value, spec.dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_run_reads_the_argument(name):
    f, x, values, _, arg_spec, _, _ = CASES[name]
    traced = _traced(name)
    outputs = []
    for value in values:
        got = traced(tf.constant(x), _arg(value, arg_spec)).numpy()
        np.testing.assert_allclose(got, f(tf.constant(x), _arg(value, arg_spec)).numpy(),
                                   rtol=1e-5, atol=1e-5, err_msg=f"{name}={value}")
        outputs.append(got)
    assert outputs[0].shape != outputs[1].shape or not np.allclose(outputs[0], outputs[1]), \
        "the two values should give different results"


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_shape_is_tf_s(name):
    tf_static = CASES[name][5]
    out = _traced(name).get_concrete_function().structured_outputs
    ours = None if out.shape.rank is None else out.shape.as_list()
    if tf_static is None:   # TF knows not even the rank: a rank is fine, a dim is not
        assert ours is None or set(ours) <= {None}, ours
    else:
        assert ours == tf_static


def _weighted_gradient(f, x, arg):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, arg)
        weights = tf.sin(3.0 * tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype))
        loss = tf.reduce_sum(y * weights)
    return tape.gradient(loss, x).numpy()


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[6]))
def test_gradient_through_the_traced_op_equals_eager(name):
    f, x, values, _, arg_spec, _, _ = CASES[name]
    traced = _traced(name)
    for value in values:
        arg = _arg(value, arg_spec)
        np.testing.assert_allclose(_weighted_gradient(traced, x, arg),
                                   _weighted_gradient(f, x, arg), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name}={value}")


# -- errors: TF's, when the graph runs (measured with TF 2.21) ----------------------------------------

_RUN_TIME_ERRORS = {
    "diag_part k out of range": ("diag_part-k", 5, "lower_diag_index is out of bound: 5"),
    "diag_part k of three": ("diag_part-k", [0, 1, 2],
                             "diag_index must have only one or two elements, received 3"),
    "diag num_rows too small": ("diag-num_rows", 2, "The number of rows is too small."),
    "diag num_cols too small": ("diag-num_cols", 2, "The number of columns is too small."),
    "set_diag k out of range": ("set_diag-k", 9, "lower_diag_index is out of bound: 9"),
    "lu_solve perm out of range": ("lu_solve-perm", [0, 1, 5], "indices[2] = 5 is not in [0, 3)"),
    "linspace axis out of range": ("linspace-axis", 2, "Tried to expand dim index 2 for tensor "
                                                       "with 1 dimensions."),
    # TF: "Matrix size-incompatible: In[0]: [3,4], In[1]: [3,4]" (tapeflow's MatMul kernel
    # words it as NumPy does).
    "tensordot dims differ": ("tensordot-axes", [[1], [1]], ""),
    "eye negative columns": ("eye-num_columns", -1, "Dimension -1 must be >= 0"),
    "eye negative batch": ("eye-batch_shape", [-2], "Dimension -2 must be >= 0"),
    "strided_slice zero stride": ("strided_slice-strides", [0, 1], "strides[0] must be non-zero"),
    "strided_slice shrink index out of range": ("strided_slice-shrink", [5, 0],
                                                "slice index 5 of dimension 0 out of bounds"),
    "mdct length not a multiple of 4": ("mdct-frame_length", 6,
                                        "Number of ways to split should evenly divide the "
                                        "split dimension"),
}

_SPECS_FOR = {"diag_part k of three": _spec(3, dtype=_I32)}


@pytest.mark.parametrize("what", sorted(_RUN_TIME_ERRORS))
def test_a_bad_value_raises_tf_s_error_when_the_graph_runs(what):
    name, value, words = _RUN_TIME_ERRORS[what]
    f, x, values, x_spec, arg_spec, _, _ = CASES[name]
    arg_spec = _SPECS_FOR.get(what, arg_spec)
    traced = tf.function(f, input_signature=[x_spec, arg_spec])
    traced.get_concrete_function()   # tracing accepts it: the value is unknown then
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(words) or None):
        traced(tf.constant(x), _arg(value, arg_spec))
    if what not in _SPECS_FOR:   # the function still works after it
        np.testing.assert_allclose(traced(tf.constant(x), _arg(values[0], arg_spec)).numpy(),
                                   f(tf.constant(x), _arg(values[0], arg_spec)).numpy(),
                                   rtol=1e-5, atol=1e-5)


def test_a_negative_stride_on_a_shrunk_axis_raises_tf_s_error():
    f = tf.function(lambda x, s: tf.strided_slice(x, [1, 0], [2, 4], s, shrink_axis_mask=1),
                    input_signature=[_spec(None, None), _spec(2, dtype=_I32)])
    np.testing.assert_array_equal(f(_MATRIX, tf.constant([2, 1])).numpy(), _MATRIX[1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="only stride 1 allowed on non-range indexing"):
        f(_MATRIX, tf.constant([-1, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"strides\[0\] must be non-zero"):
        f(_MATRIX, tf.constant([0, 1]))


# -- refusals while tracing, as TF's shape functions and wrappers refuse (TF 2.21's texts) ------------

def _trace(f, *specs):
    return tf.function(f, input_signature=list(specs)).get_concrete_function()


@pytest.mark.parametrize("op,param", [
    (lambda x, k: tf.linalg.diag_part(x, k=k), "'k' of 'MatrixDiagPartV3'"),
    (lambda x, k: tf.linalg.set_diag(x, x[:, 0], k=k), "'k' of 'MatrixSetDiagV3'"),
    (lambda x, r: tf.linalg.diag(x, num_rows=r), "'num_rows' of 'MatrixDiagV3'"),
])
def test_diagonal_sizes_must_be_int32(op, param):
    with pytest.raises(TypeError, match=f"Input {param} Op has type int64 that does not match "
                                        f"expected type of int32"):
        _trace(op, _spec(None, None), _spec(dtype=tf.int64))


def test_diagonal_k_of_rank_2_is_refused_while_tracing():
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        _trace(lambda x, k: tf.linalg.diag_part(x, k=k), _spec(None, None),
               _spec(1, 1, dtype=_I32))


def test_strided_slice_bounds_must_be_integers_of_one_length():
    x_spec = _spec(None, None)
    with pytest.raises(TypeError, match="parameter 'begin' has DataType float32 not in list "
                                        "of allowed values: int16, int32, int64"):
        _trace(lambda x, b: tf.strided_slice(x, b, [3, 4], [1, 1]), x_spec, _spec(2))
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 3 "
                                         "and 2"):
        _trace(lambda x, b: tf.strided_slice(x, b, [3, 4], [1, 1]), x_spec,
               _spec(3, dtype=_I32))


def test_mdct_frame_length_must_be_an_int32_scalar():
    signal = _spec(None, None)
    with pytest.raises(TypeError, match="has type int64 that does not match type int32"):
        _trace(lambda s, n: tf.signal.mdct(s, n), signal, _spec(dtype=tf.int64))
    with pytest.raises(ValueError, match=r"Shape \(1,\) must have rank 0"):
        _trace(lambda s, n: tf.signal.mdct(s, n), signal, _spec(1, dtype=_I32))


def test_a_scalar_tensordot_axes_tensor_is_still_refused_as_tf_refuses_it():
    with pytest.raises(ValueError, match="Attempting to slice scalar input."):
        _trace(lambda a, n: tf.tensordot(a, a, n), _spec(None, None), _spec(dtype=_I32))
