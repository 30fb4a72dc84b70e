"""Array ops whose shape-like argument is known only when the traced graph runs (issue 33).

Each op is traced once under an input_signature with a None dim, its size, shape, offset or
count derived from `tf.shape`, and must then hold for every value: the numbers equal the eager
ones at two sizes, the static output shape is TensorFlow's, and a bad value raises TF's
InvalidArgumentError when the graph runs. Shapes and error texts were measured with TF 2.21 /
Keras 3.15.1 on the same programs (their values matched TF's bit for bit at both sizes).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

F32 = [tf.TensorSpec([None, 3], tf.float32)]
I32 = [tf.TensorSpec([None], tf.int32)]


def _n(x):
    return tf.shape(x)[0]


# name: (function, signature, static output shape measured with TF 2.21)
CASES = {
    "tile_mixed": (lambda x: tf.tile(x, [2, _n(x)]), F32, (None, None)),
    "tile_by_shape": (lambda x: tf.tile(x, tf.shape(x)), F32, (None, 9)),
    "zeros_of_shape": (lambda x: tf.zeros(tf.shape(x)), F32, (None, 3)),
    "zeros_list": (lambda x: tf.zeros([_n(x), 3]), F32, (None, 3)),
    "ones_list_int": (lambda x: tf.ones([_n(x), 2], tf.int32), F32, (None, 2)),
    "fill_list": (lambda x: tf.fill([3, _n(x)], 2.5), F32, (3, None)),
    "broadcast_to_shape": (lambda x: tf.broadcast_to(x[:1], tf.shape(x)), F32, (None, 3)),
    "broadcast_to_list": (lambda x: tf.broadcast_to(tf.range(3.0), [_n(x), 3]), F32, (None, 3)),
    "broadcast_to_stack": (lambda x: tf.broadcast_to(x, tf.stack([2, _n(x), 3])), F32,
                           (2, None, 3)),
    "one_hot": (lambda i: tf.one_hot(i, tf.shape(i)[0]), I32, (None, None)),
    "one_hot_axis0": (lambda i: tf.one_hot(i, tf.shape(i)[0] + 1, 5, -1, axis=0), I32,
                      (None, None)),
    "slice_size": (lambda x: tf.slice(x, [1, 0], [_n(x) - 2, -1]), F32, (None, None)),
    "slice_begin": (lambda x: tf.slice(x, [_n(x) - 2, 1], [2, 2]), F32, (2, 2)),
    "slice_rest_of_a_known_dim": (lambda x: tf.slice(x, [_n(x) - 2, 1], [-1, -1]), F32,
                                  (None, 2)),
    "slice_static_of_unknown_dims": (lambda x: tf.slice(x, [1, 0], [-1, 2]), F32, (None, 2)),
    "split_sizes": (lambda x: tf.split(x, tf.stack([1, _n(x) - 1])), F32,
                    [(None, 3), (None, 3)]),
    "split_axis1": (lambda x: tf.split(x, tf.stack([_n(x) - 3, 6 - _n(x)]), axis=1), F32,
                    [(None, None), (None, None)]),
    "range": (lambda x: tf.range(_n(x)), F32, (None,)),
    "range_start_delta": (lambda x: tf.range(1, 2 * _n(x), _n(x) - 2), F32, (None,)),
    "linspace": (lambda x: tf.linspace(0.0, 1.0, _n(x)), F32, (None,)),
    "linspace_axis1": (lambda x: tf.linspace([0.0, 1.0], 2.0, _n(x), axis=1), F32, (2, None)),
}


def _example(signature, rows):
    if signature is I32:
        return np.array([0, 2, 1, 3, 5, 4][:rows], np.int32)
    return np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)


def _arrays(out):
    return [np.asarray(t) for t in out] if isinstance(out, list) else [np.asarray(out)]


def _static_shapes(out):
    if isinstance(out, list):
        return [tuple(t.shape.as_list()) for t in out]
    return tuple(out.shape.as_list())


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_trace_matches_eager_at_two_sizes(name):
    fn, signature, _ = CASES[name]
    traced = tf.function(fn, input_signature=signature)
    for rows in (4, 6):
        x = _example(signature, rows)
        for got, want in zip(_arrays(traced(x)), _arrays(fn(tf.constant(x)))):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_traced_static_shape_is_tensorflows(name):
    fn, signature, shape = CASES[name]
    concrete = tf.function(fn, input_signature=signature).get_concrete_function()
    assert _static_shapes(concrete.structured_outputs) == shape


# name: (function, rows of a bad input, rows of a good one, TF 2.21's message). Tracing accepts
# each: the kernel checks the value when the graph runs.
BAD_VALUES = {
    "tile": (lambda x: tf.tile(x, [1, _n(x) - 3]), 2, 4, "Expected multiples[1] >= 0, but got -1"),
    "zeros": (lambda x: tf.zeros([_n(x) - 3, 3]), 2, 4, "Dimension -1 must be >= 0"),
    "ones": (lambda x: tf.ones(tf.shape(x) - 3), 2, 4, "Dimension -1 must be >= 0"),
    "fill": (lambda x: tf.fill([_n(x) - 3, 3], 1.0), 2, 4, "Dimension -1 must be >= 0"),
    "broadcast_to": (lambda x: tf.broadcast_to(x, [2 * _n(x) - 2, 3]), 3, 2,
                     "Incompatible shapes: [3,3] vs. [4,3]"),
    "one_hot": (lambda x: tf.one_hot([0, 1], _n(x) - 3), 2, 4,
                "depth must be non-negative, got: -1"),
    "slice_size": (lambda x: tf.slice(x, [0, 0], [2 * _n(x) - 2, 3]), 3, 2,
                   "Expected size[0] in [0, 3], but got 4"),
    "slice_begin": (lambda x: tf.slice(x, [2 * _n(x) - 3, 0], [-1, 3]), 4, 2,
                    "Expected begin[0] in [0, 4], but got 5"),
    "slice_negative_begin": (lambda x: tf.slice(x, [_n(x) - 3, 0], [1, 3]), 2, 4,
                             "Expected begin[0] in [0, 2], but got -1"),
    "split": (lambda x: tf.split(x, tf.stack([1, 2 * _n(x) - 3]))[0], 3, 2,
              "Determined shape must either match input shape along split_dim exactly if fully "
              "specified, or be less than the size of the input along split_dim if not fully "
              "specified.  Got: 4"),
    "range": (lambda x: tf.range(_n(x), 3, 1), 4, 2, "Requires start <= limit when delta > 0: 4/3"),
    "linspace": (lambda x: tf.linspace(0.0, 1.0, _n(x) - 3), 2, 4,
                 "Requires start <= limit when delta > 0: 1/-1"),
}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_a_bad_run_time_value_raises_tensorflows_error_when_the_graph_runs(name):
    fn, bad_rows, good_rows, message = BAD_VALUES[name]
    traced = tf.function(fn, input_signature=F32)
    traced.get_concrete_function()            # tracing does not read the value
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        traced(_example(F32, bad_rows))
    assert message in str(info.value)
    good = _example(F32, good_rows)           # the same trace still runs a good value
    for got, want in zip(_arrays(traced(good)), _arrays(fn(tf.constant(good)))):
        np.testing.assert_array_equal(got, want)
    assert traced.experimental_get_tracing_count() == 1


def test_one_hot_refuses_a_non_scalar_depth_when_the_graph_runs():
    # TF 2.21: "depth must be a scalar, but got: [2]" from the kernel, not while tracing.
    traced = tf.function(lambda x: tf.one_hot([0, 1], tf.shape(x)), input_signature=F32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"depth must be a scalar"):
        traced(_example(F32, 2))


def test_tile_checks_the_multiples_length_when_the_graph_runs():
    # x's length is known only at run time here; TF 2.21's kernel text.
    traced = tf.function(lambda x: tf.tile(tf.ones([2]), x),
                         input_signature=[tf.TensorSpec([None], tf.int32)])
    np.testing.assert_array_equal(traced(np.array([2], np.int32)), np.ones([4]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Expected multiples argument to be a vector of length 1 but got "
                             "length 2"):
        traced(np.array([1, 2], np.int32))


# name: (function, class, TF 2.21's text), raised while tracing, as TF raises them.
TRACE_ERRORS = {
    "tile_float": (lambda x: tf.tile(x, tf.cast(tf.shape(x), tf.float32)), TypeError,
                   "Value passed to parameter 'multiples' has DataType float32 not in list of "
                   "allowed values: int32, int64"),
    "tile_length": (lambda x: tf.tile(x, tf.shape(x)[:1]), ValueError,
                    "Shape must be rank 2 but is rank 1"),
    "zeros_float": (lambda x: tf.zeros(tf.cast(tf.shape(x), tf.float32)), TypeError,
                    "Value passed to parameter 'dims' has DataType float32"),
    "fill_float": (lambda x: tf.fill(tf.cast(tf.shape(x), tf.float32), 1.0), TypeError,
                   "Value passed to parameter 'dims' has DataType float32"),
    "broadcast_to_float": (lambda x: tf.broadcast_to(x, tf.cast(tf.shape(x), tf.float32)),
                           TypeError, "Value passed to parameter 'shape' has DataType float32"),
    "broadcast_to_rank": (lambda x: tf.broadcast_to(x, tf.shape(x)[:1]), ValueError,
                          "Shape must be at most rank 1 but is rank 2"),
    "one_hot_int64": (lambda x: tf.one_hot([0, 1], tf.shape(x, tf.int64)[0]), TypeError,
                      "Input 'depth' of 'OneHot' Op has type int64 that does not match "
                      "expected type of int32."),
    "slice_rank": (lambda x: tf.slice(x, [0], [_n(x)]), ValueError,
                   "Shape must be rank 1 but is rank 2"),
    "slice_lengths": (lambda x: tf.slice(x, [0, 0], [_n(x)]), ValueError,
                      "Dimension 0 in both shapes must be equal, but are 2 and 1"),
    "slice_dtypes": (lambda x: tf.slice(x, tf.shape(x, tf.int64) * 0, tf.shape(x)), TypeError,
                     "Input 'size' of 'Slice' Op has type int32 that does not match type int64 "
                     "of argument 'begin'."),
    "slice_begin_past_the_end": (lambda x: tf.slice(x, [_n(x), 5], [-1, -1]), ValueError,
                                 "Negative dimension size caused by subtracting 5 from 3"),
    "slice_size_below_minus_one": (lambda x: tf.slice(x, [0, 1], [-1, -2]), ValueError,
                                   "Invalid value in tensor used for shape: -2"),
    "split_float": (lambda x: tf.split(x, tf.cast(tf.shape(x)[:1], tf.float32)), TypeError,
                    "Value passed to parameter 'size_splits' has DataType float32 not in list "
                    "of allowed values: int8, int32, int64"),
    "split_unknown_count": (lambda x: tf.split(x, tf.shape(x)[0:_n(x)]), ValueError,
                            "Cannot infer argument `num` from shape"),
    "split_scalar": (lambda x: tf.split(x, _n(x)), ValueError,
                     "Rank-0 tensors are not supported as the num_or_size_splits argument"),
}


@pytest.mark.parametrize("name", sorted(TRACE_ERRORS))
def test_what_tensorflow_refuses_while_tracing_is_refused_while_tracing(name):
    fn, error, message = TRACE_ERRORS[name]
    with pytest.raises(error) as info:
        tf.function(fn, input_signature=F32).get_concrete_function()
    assert message in str(info.value)


# -- gradients: tile, broadcast_to and slice are differentiable in their data input ----------

DIFFERENTIABLE = {
    "tile": lambda x: tf.tile(x, [2, _n(x) - 2]),
    "broadcast_to": lambda x: tf.broadcast_to(x[:1], tf.shape(x)),
    "broadcast_to_new_axis": lambda x: tf.broadcast_to(x[None], tf.stack([2, _n(x), 3])),
    "slice": lambda x: tf.slice(x, [1, _n(x) - 4], [_n(x) - 2, -1]),
}


def _weighted_loss(y):
    return tf.reduce_sum(y * y + y[:1])


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradient_tape_inside_the_traced_function_matches_eager(name):
    op = DIFFERENTIABLE[name]

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = _weighted_loss(op(x))
        return tape.gradient(loss, x)

    traced = tf.function(grad, input_signature=F32)
    for rows in (4, 5):
        x = _example(F32, rows)
        np.testing.assert_allclose(traced(x), grad(tf.constant(x)), rtol=1e-6)


def test_gradients_are_tensorflows():
    # tf.tile(x, [2, n - 2]) and tf.slice(x, [1, n - 4], [n - 2, -1]) of x = arange(12) [4, 3]
    # under the loss sum(y * y + y[:1]); TF 2.21's gradients.
    x = _example(F32, 4)

    @tf.function(input_signature=F32)
    def grads(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            tiled = _weighted_loss(DIFFERENTIABLE["tile"](x))
            sliced = _weighted_loss(DIFFERENTIABLE["slice"](x))
        return tape.gradient(tiled, x), tape.gradient(sliced, x)

    tiled, sliced = grads(x)
    np.testing.assert_allclose(tiled, [[16, 24, 32], [24, 32, 40], [48, 56, 64], [72, 80, 88]])
    np.testing.assert_allclose(sliced, [[0, 0, 0], [8, 10, 12], [12, 14, 16], [0, 0, 0]])


def test_second_derivatives_read_the_run_time_arguments():
    @tf.function(input_signature=F32)
    def hessian_diagonal(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                loss = (tf.reduce_sum(tf.slice(x, [1, 0], [_n(x) - 2, -1]) ** 3) +
                        tf.reduce_sum(tf.tile(x, [_n(x) - 3, 1]) ** 3))
            g = inner.gradient(loss, x)
        return outer.gradient(g, x)

    x = _example(F32, 4)
    # d2/dx2 of the sums of cubes: 6x where sliced (rows 1..2), plus 6x from one tile.
    expected = 6 * x + 6 * x * np.array([[0], [1], [1], [0]])
    np.testing.assert_allclose(hessian_diagonal(x), expected)


def test_a_tape_outside_the_traced_function_sees_the_run_time_ops():
    traced = tf.function(lambda x: tf.reduce_sum(tf.tile(x, [_n(x), 1]) *
                                                 tf.slice(tf.tile(x, [_n(x), 1]), [0, 0],
                                                          [-1, -1])),
                         input_signature=F32)
    v = tf.Variable(_example(F32, 4))
    with tf.GradientTape() as tape:
        loss = traced(v)
    # sum over 4 tiles of x * x: the gradient is 8x (TF 2.21: the same).
    np.testing.assert_allclose(tape.gradient(loss, v), 8 * _example(F32, 4))


def test_forward_mode_through_a_run_time_slice_and_tile():
    @tf.function(input_signature=F32)
    def jvp(x):
        with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
            y = tf.tile(tf.slice(x, [1, 0], [_n(x) - 1, 2]), [2, _n(x) - 3])
        return acc.jvp(y)

    np.testing.assert_array_equal(jvp(_example(F32, 4)), np.ones([6, 2]))   # TF 2.21: the same


def test_dataset_map_over_batches_of_unknown_size():
    data = tf.data.Dataset.from_tensor_slices(_example(F32, 5)).batch(2).map(
        lambda x: (tf.zeros([_n(x), 2]) + tf.slice(x, [0, 1], [-1, 2]),
                   tf.one_hot(tf.range(_n(x)), _n(x)),
                   tf.tile(x[:, :1], [1, _n(x)])))
    # TF 2.21's element_spec shapes and elements for the same pipeline.
    assert [tuple(s.shape.as_list()) for s in data.element_spec] == \
        [(None, 2), (None, None), (None, None)]
    elements = [[np.asarray(t).tolist() for t in e] for e in data]
    assert elements == [
        [[[1.0, 2.0], [4.0, 5.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [3.0, 3.0]]],
        [[[7.0, 8.0], [10.0, 11.0]], [[1.0, 0.0], [0.0, 1.0]], [[6.0, 6.0], [9.0, 9.0]]],
        [[[13.0, 14.0]], [[1.0]], [[12.0]]]]
