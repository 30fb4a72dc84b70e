"""Axes, perms, band widths and dropout's noise_shape known only when a traced graph runs.

TensorFlow takes them as run-time inputs of its ops (ConcatV2's axis, Sum's
reduction_indices, Transpose's perm, MatrixBandPart's widths...): one trace serves every
value. Each op here is traced with the argument unknown while tracing (an input_signature
scalar, or a value computed from `tf.shape` of an input with None dims), run with two
values and compared with eager execution; its traced static shape is TF's (measured with
TF 2.21, written as literals); a bad value raises TF's InvalidArgumentError when the graph
runs; gradients through the traced function equal eager ones. Where TF takes the argument
as an attribute (stack's axis, squeeze's axes), a traced one is refused as TF refuses it.
"""

import numpy as np
import pytest

import tapeflow as tf

S = tf.TensorSpec
_X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
_Y = np.array([[0.5, -1.0, 2.0], [2.0, 0.25, 2.0], [-3.0, 1.5, 0.0]], np.float32)
_I32 = S([], tf.int32)
_R8, _R16 = np.arange(8.0, dtype=np.float32), np.arange(16.0, dtype=np.float32)

# name -> (op(x, a), x's spec, a's spec, [(x, a), (x, a)] to run, TF's static output shape
# (None: unknown rank), a bad (x, a), words of TF's run-time error).
OPS = {
    "concat": (lambda x, a: tf.concat([x, 2 * x], axis=a), S([None, 3]), _I32,
               [(_X, 0), (_Y, 1)], [None, None], (_X, 2),
               "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"),
    "gather": (lambda x, a: tf.gather(x, [0, 1, 1], axis=a), S([None, 3]), _I32,
               [(_X, 0), (_Y, 1)], [None, None], (_X, 2),
               "Shape must be at least rank 3 but is rank 2"),
    "expand_dims": (lambda x, a: tf.expand_dims(x, a), S([None, 3]), _I32,
                    [(_X, 0), (_Y, -1)], None, (_X, 3),
                    "Tried to expand dim index 3 for tensor with 2 dimensions."),
    "split": (lambda x, a: tf.split(x, 2, axis=a)[1], S([None, 4]), _I32,
              [(np.ones((2, 4), np.float32) * _X[:, :1], 0), (_R8.reshape(2, 4), 1)],
              [None, None], (np.ones((3, 4), np.float32), 0),
              "Number of ways to split should evenly divide the split dimension, but got "
              "split_dim 0 (size = 3) and num_split 2"),
    "split_sizes": (lambda x, a: tf.split(x, [1, 3], axis=a)[1], S([None, 4]), _I32,
                    [(_R16.reshape(4, 4), 0), (_R8.reshape(2, 4), 1)],
                    [None, None], (np.ones((2, 4), np.float32), 0), "Determined shape must"),
    "transpose": (lambda x, p: tf.transpose(x, perm=p), S([None, 3]), S([2], tf.int32),
                  [(_X, [1, 0]), (_Y, [0, 1])], [None, None], (_X, [1, 1]),
                  "0 is missing from {1,1}."),
    "transpose_negative": (lambda x, p: tf.transpose(x, perm=p), S([None, 3]),
                           S([2], tf.int32), [(_X, [-1, 0]), (_Y, [-2, -1])], [None, None],
                           (_X, [0, 2]), "2 is out of range [0 .. 2)"),
    "reduce_sum": (lambda x, a: tf.reduce_sum(x, axis=a), S([None, 3]), _I32,
                   [(_X, 0), (_Y, 1)], None, (_X, 2),
                   "Invalid reduction dimension (2 for input with 2 dimension(s)"),
    "reduce_sum_keepdims": (lambda x, a: tf.reduce_sum(x, axis=a, keepdims=True),
                            S([None, 3]), _I32, [(_X, 0), (_Y, -1)], [None, None], (_X, -3),
                            "Invalid reduction dimension (-3 for input with 2 dimension(s)"),
    "reduce_sum_axes": (lambda x, a: tf.reduce_sum(x, axis=a), S([None, 3]),
                        S([None], tf.int32), [(_X, [0, 1]), (_Y, [1]), (_X, [])], None,
                        (_X, [0, 0]), "Axes contains duplicate dimension: 0"),
    "reduce_mean": (lambda x, a: tf.reduce_mean(x, axis=a), S([None, 3]), _I32,
                    [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "reduce_max": (lambda x, a: tf.reduce_max(x, axis=a), S([None, 3]), _I32,
                   [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "reduce_min": (lambda x, a: tf.reduce_min(x, axis=a, keepdims=True), S([None, 3]), _I32,
                   [(_X, 0), (_Y, 1)], [None, None], (_X, 2), "Invalid reduction dimension"),
    "reduce_prod": (lambda x, a: tf.reduce_prod(x, axis=a), S([None, 3]), _I32,
                    [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "reduce_logsumexp": (lambda x, a: tf.reduce_logsumexp(x, axis=a), S([None, 3]), _I32,
                         [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "reduce_std": (lambda x, a: tf.math.reduce_std(x, axis=a), S([None, 3]), _I32,
                   [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "reduce_euclidean_norm": (lambda x, a: tf.math.reduce_euclidean_norm(x, axis=a),
                              S([None, 3]), _I32, [(_X, 0), (_Y, 1)], None, (_X, 2),
                              "Invalid reduction dimension"),
    "reduce_any": (lambda x, a: tf.reduce_any(x > 1.5, axis=a), S([None, 3]), _I32,
                   [(_X, 0), (_Y, 1)], None, (_X, 2), "Invalid reduction dimension"),
    "argmax": (lambda x, a: tf.math.argmax(x, axis=a), S([None, 3]), _I32,
               [(_X, 0), (_Y, 1)], [None], (_X, 2),
               "Expected dimension in the range [-2, 2), but got 2"),
    "argmin": (lambda x, a: tf.math.argmin(x, axis=a), S([None, 3]), _I32,
               [(_X, 0), (_Y, 1)], [None], (_X, -3), "Expected dimension in the range"),
    "cumsum": (lambda x, a: tf.math.cumsum(x, axis=a, exclusive=True), S([None, 3]), _I32,
               [(_X, 0), (_Y, 1)], [None, 3], (_X, 2),
               "ScanOp: Expected scan axis in the range [-2, 2), but got 2"),
    "cumprod": (lambda x, a: tf.math.cumprod(x, axis=a, reverse=True), S([None, 3]), _I32,
                [(_X, 0), (_Y, 1)], [None, 3], (_X, -3), "ScanOp: Expected scan axis"),
    "cumulative_logsumexp": (lambda x, a: tf.math.cumulative_logsumexp(x, axis=a),
                             S([None, 3]), _I32, [(_X, 0), (_Y, 1)], [None, 3], (_X, 2),
                             "ScanOp: Expected scan axis"),
    "band_part": (lambda x, lo: tf.linalg.band_part(x, lo, 1), S([None, 3]), _I32,
                  [(_Y, 0), (_Y, -1)], [None, 3], (_X, 5),
                  "num_lower must be negative or less or equal to number of rows (2) got: 5"),
}

DIFFERENTIABLE = sorted(set(OPS) - {"argmax", "argmin", "reduce_any"})


def _traced(name):
    op, x_spec, a_spec = OPS[name][:3]
    return tf.function(op, input_signature=[x_spec, a_spec])


def _shape_of(output):
    rank = output.shape.rank
    return None if rank is None else output.shape.as_list()


@pytest.mark.parametrize("name", sorted(OPS))
def test_traced_once_equals_eager_for_every_value(name):
    op, _, _, runs, *_ = OPS[name]
    traced = _traced(name)
    for x, a in runs:
        want = op(tf.constant(x), a)   # eagerly, with a Python value
        got = traced(x, np.array(a, np.int32))
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=name)
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(OPS))
def test_static_shape_is_tensorflows(name):
    concrete = _traced(name).get_concrete_function()
    assert _shape_of(concrete.structured_outputs) == OPS[name][4]


@pytest.mark.parametrize("name", sorted(OPS))
def test_bad_value_raises_tensorflows_error_when_the_graph_runs(name):
    traced = _traced(name)
    x, a = OPS[name][3][0]
    traced(x, np.array(a, np.int32))   # a good value runs
    x, a = OPS[name][5]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        traced(x, np.array(a, np.int32))
    assert OPS[name][6] in str(info.value)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradient_through_the_traced_function_equals_eager(name):
    op, x_spec, a_spec, runs, *_ = OPS[name]

    def grad(x, a):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = op(x, a)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, x)

    traced = tf.function(grad, input_signature=[x_spec, a_spec])
    for x, a in runs:
        want = tf.convert_to_tensor(grad(tf.constant(x), a))   # IndexedSlices for gather's
        got = tf.convert_to_tensor(traced(x, np.array(a, np.int32)))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=name)


@pytest.mark.parametrize("name", ["reduce_prod", "reduce_logsumexp", "reduce_max", "concat",
                                  "gather", "transpose", "cumprod"])
def test_second_derivative_through_the_traced_function_equals_eager(name):
    op, x_spec, a_spec, runs, *_ = OPS[name]

    def hessian_diagonal_sum(x, a):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                loss = tf.reduce_sum(op(x, a) ** 3)
            slope = tf.reduce_sum(inner.gradient(loss, x))
        return outer.gradient(slope, x)

    traced = tf.function(hessian_diagonal_sum, input_signature=[x_spec, a_spec])
    for x, a in runs:
        want = tf.convert_to_tensor(hessian_diagonal_sum(tf.constant(x), a))
        got = tf.convert_to_tensor(traced(x, np.array(a, np.int32)))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg=name)


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_prod", "reduce_max", "concat",
                                  "gather", "cumsum", "transpose", "band_part"])
def test_forward_mode_through_the_traced_function_equals_eager(name):
    op, x_spec, a_spec, runs, *_ = OPS[name]

    def jvp(x, a):
        with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
            y = op(x, a)
        return acc.jvp(y)

    traced = tf.function(jvp, input_signature=[x_spec, a_spec])
    for x, a in runs:
        np.testing.assert_allclose(traced(x, np.array(a, np.int32)).numpy(),
                                   jvp(tf.constant(x), a).numpy(), rtol=1e-5, err_msg=name)


def test_dataset_map_over_batches_reads_the_axis_per_batch():
    """In Dataset.map over batches of unknown size, an axis from tf.shape is read per batch."""
    rows = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    mapped = tf.data.Dataset.from_tensor_slices(rows).batch(3).map(
        lambda b: tf.reduce_sum(b, axis=tf.shape(b)[0] - 2))   # 3 rows: axis 1; 2 rows: 0
    assert [t.numpy().tolist() for t in mapped] == [[3.0, 12.0, 21.0], [21.0, 23.0, 25.0]]


def test_axis_from_tf_shape_of_an_unknown_batch():
    """An axis computed from tf.shape (a batch of 2 sums rows, of 3 columns) is read as the
    graph runs, as TF's."""
    @tf.function(input_signature=[S([None, 3])])
    def f(x):
        axis = tf.shape(x)[0] - 2
        return (tf.reduce_sum(x, axis), tf.concat([x, x], axis), tf.math.cumsum(x, axis),
                tf.gather(x, [0, 0], axis=axis))

    for x in (_X, _Y):
        axis = x.shape[0] - 2
        for got, want in zip(f(x), (tf.reduce_sum(x, axis), tf.concat([x, x], axis),
                                    tf.math.cumsum(x, axis), tf.gather(x, [0, 0], axis=axis))):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_transpose_perm_from_tf_shape():
    # TF 2.21: shape (None, None) for x of [None, None].
    f = tf.function(lambda x: tf.transpose(x, perm=tf.shape(x)[::-1] - 2),
                    input_signature=[S([None, None])])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, None]
    np.testing.assert_array_equal(f(_X).numpy(), _X.T)


def test_an_axis_known_while_tracing_keeps_static_shapes():
    """A constant axis, or one TF folds (tf.rank of a known rank), keeps exact dims."""
    f = tf.function(lambda x: (tf.concat([x, x], axis=tf.rank(x) - 1),
                               tf.reduce_sum(x, axis=tf.constant(1))),
                    input_signature=[S([None, 3])])
    shapes = [t.shape.as_list() for t in f.get_concrete_function().structured_outputs]
    assert shapes == [[None, 6], [None]]   # TF 2.21: (None, 6) for the concat


def test_dropout_noise_shape_from_tf_shape_draws_tensorflows_numbers():
    # Measured with TF 2.21: after tf.random.set_seed(0), a fresh tf.function of
    # tf.nn.dropout(x, 0.5, noise_shape=[tf.shape(x)[0], 1], seed=1) called with ones((4, 3))
    # then ones((6, 3)); static shape (None, 3).
    tf.random.set_seed(0)
    f = tf.function(lambda x: tf.nn.dropout(x, 0.5, noise_shape=[tf.shape(x)[0], 1], seed=1),
                    input_signature=[S([None, 3])])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]
    assert f(np.ones((4, 3), np.float32)).numpy().tolist() == \
        [[2.0] * 3, [0.0] * 3, [0.0] * 3, [2.0] * 3]
    assert f(np.ones((6, 3), np.float32)).numpy().tolist() == \
        [[0.0] * 3, [2.0] * 3] + [[0.0] * 3] * 4


def test_dropout_noise_shape_as_a_traced_input():
    f = tf.function(lambda x, s: tf.nn.experimental.stateless_dropout(
        x, 0.5, seed=[1, 2], noise_shape=s), input_signature=[S([None, 3]), S([None], tf.int32)])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]
    ones = np.ones((4, 3), np.float32)
    # TF 2.21's numbers for these seeds and noise shapes.
    assert f(ones, np.array([4, 1], np.int32)).numpy().tolist() == \
        [[2.0] * 3, [0.0] * 3, [2.0] * 3, [0.0] * 3]
    assert f(ones, np.array([1, 3], np.int32)).numpy().tolist() == [[2.0, 0.0, 2.0]] * 4
    with pytest.raises(tf.errors.InvalidArgumentError):   # not broadcastable to x
        f(ones, np.array([4, 2], np.int32))


def test_band_part_widths_both_traced_and_mixed_dtypes():
    f = tf.function(lambda x, lo, up: tf.linalg.band_part(x, lo, up),
                    input_signature=[S([None, 3]), S([], tf.int64), S([], tf.int64)])
    for lo, up in ((0, 0), (-1, 0), (0, 2)):
        np.testing.assert_array_equal(f(_Y, np.int64(lo), np.int64(up)).numpy(),
                                      tf.linalg.band_part(_Y, lo, up).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_upper must be negative"):
        f(_X, np.int64(0), np.int64(4))
    with pytest.raises(TypeError, match="does not match type int32 of argument 'num_lower'"):
        tf.function(lambda x, lo, up: tf.linalg.band_part(x, lo, up),
                    input_signature=[S([None, 3]), _I32, S([], tf.int64)]
                    ).get_concrete_function()


# -- refusals while tracing, as TF's (measured with TF 2.21) ------------------------------------

REFUSED = {
    "concat_float_axis": (lambda x, a: tf.concat([x, x], a), S([], tf.float32), TypeError,
                          "Value passed to parameter 'axis' has DataType float32 not in list "
                          "of allowed values: int32, int64"),
    "concat_vector_axis": (lambda x, a: tf.concat([x, x], a), S([1], tf.int32), ValueError,
                           "Shape must be rank 0 but is rank 1"),
    "reduce_sum_float_axis": (lambda x, a: tf.reduce_sum(x, a), S([], tf.float32), TypeError,
                              "parameter 'reduction_indices' has DataType float32"),
    "reduce_sum_matrix_axis": (lambda x, a: tf.reduce_sum(x, a), S([1, 1], tf.int32),
                               ValueError, "Shape must be at most rank 1 but is rank 2"),
    "argmax_float_axis": (lambda x, a: tf.math.argmax(x, a), S([], tf.float32), TypeError,
                          "axis tensor dtypes <dtype: 'float32'> is not supported"),
    "argmax_vector_axis": (lambda x, a: tf.math.argmax(x, a), S([1], tf.int32), ValueError,
                           "Shape must be rank 0 but is rank 1"),
    "cumsum_float_axis": (lambda x, a: tf.math.cumsum(x, a), S([], tf.float32), TypeError,
                          "parameter 'axis' has DataType float32"),
    "expand_dims_float_axis": (lambda x, a: tf.expand_dims(x, a), S([], tf.float32),
                               TypeError, "parameter 'dim' has DataType float32"),
    "gather_float_axis": (lambda x, a: tf.gather(x, [0], axis=a), S([], tf.float32),
                          TypeError, "parameter 'axis' has DataType float32"),
    "transpose_float_perm": (lambda x, p: tf.transpose(x, p), S([2], tf.float32), TypeError,
                             "parameter 'perm' has DataType float32"),
    "transpose_long_perm": (lambda x, p: tf.transpose(x, p), S([3], tf.int32), ValueError,
                            "Dimension must be 2 but is 3"),
    "band_part_float_width": (lambda x, lo: tf.linalg.band_part(x, lo, 0), S([], tf.float32),
                              TypeError, "parameter 'num_lower' has DataType float32"),
    # TF's Pack and Squeeze take the axis as an attribute: TF's wrappers refuse a tensor.
    "stack": (lambda x, a: tf.stack([x, x], a), _I32, tf.errors.OperatorNotAllowedInGraphError,
              "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"),
    "squeeze": (lambda x, a: tf.squeeze(x, a), _I32, TypeError,
                "Expected list for 'axis' argument to 'squeeze' Op, not <tf.Tensor"),
    "squeeze_list": (lambda x, a: tf.squeeze(x, [a]), _I32, TypeError,
                     "Expected int for argument 'axis' not <tf.Tensor"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_while_tracing_as_tensorflow(name):
    op, a_spec, error, words = REFUSED[name]
    traced = tf.function(op, input_signature=[S([None, 3]), a_spec])
    with pytest.raises(error) as info:
        traced.get_concrete_function()
    assert words in str(info.value)


def test_split_with_a_traced_axis_knows_only_the_rank():
    """TF's SplitV shape function takes an unknown axis for the last one (it gives [None, 1]
    and [None, 3] for these sizes, wrong when the graph splits axis 0): tapeflow's static
    shape knows the rank only, and refuses nothing TF's kernel accepts."""
    f = tf.function(lambda x, a: tf.split(x, [1, 3], axis=a),
                    input_signature=[S([4, 6]), _I32])   # TF refuses this trace
    pieces = f.get_concrete_function().structured_outputs
    assert [p.shape.as_list() for p in pieces] == [[None, None], [None, None]]
    got = f(np.arange(24.0, dtype=np.float32).reshape(4, 6), np.int32(0))
    assert [p.shape for p in got] == [(1, 6), (3, 6)]


def test_eager_calls_keep_python_axes_and_tensor_axes():
    x = tf.constant(_X)
    assert tf.reduce_sum(x, tf.constant(1)).numpy().tolist() == [6.0, 15.0]
    assert tf.concat([x, x], tf.constant(0)).shape == (4, 3)
    assert tf.stack([x, x], tf.constant(1)).shape == (2, 2, 3)
    assert tf.squeeze(tf.zeros([1, 3]), tf.constant(0)).shape == (3,)


# -- Keras's RandomCrop on images of unknown size ------------------------------------------------

@pytest.mark.parametrize("training, error, words", [
    # Keras 3.15.1 compares the unknown height with the crop in Python (a symbolic tensor
    # as a bool) in training, and float()s it at inference: both refuse, in fit and
    # Dataset.map as in a tf.function.
    (True, tf.errors.OperatorNotAllowedInGraphError, "as a Python `bool` is not allowed"),
    (False, TypeError, "float() argument must be a string or a real number"),
])
def test_random_crop_refuses_unknown_height_and_width_as_keras(training, error, words):
    layer = tf.keras.layers.RandomCrop(4, 5, seed=1)
    traced = tf.function(lambda x: layer(x, training=training),
                         input_signature=[S([None, None, None, 3])])
    with pytest.raises(error) as info:
        traced.get_concrete_function()
    assert words in str(info.value)


def test_a_variable_axis_is_read_when_the_graph_runs():
    """A tf.Variable passed as an axis is read when the graph runs, as TF's Sum reads its
    reduction_indices input: an assignment between calls changes the result, one trace."""
    axis = tf.Variable(1)
    traced = tf.function(lambda x: tf.reduce_sum(x, axis), input_signature=[S([None, 3])])
    assert traced(_X).numpy().tolist() == [6.0, 15.0]
    axis.assign(0)
    assert traced(_X).numpy().tolist() == [5.0, 7.0, 9.0]
    assert traced.experimental_get_tracing_count() == 1


def test_constant_refuses_a_shape_known_only_at_run_time():
    """tf.constant's shape is an attribute in TF: a tensor of the graph is refused (TF 2.21's
    class and words), never replaced by the value the first call traced with."""
    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def filled(x):
        return tf.constant(1.0, shape=tf.shape(x))

    with pytest.raises(NotImplementedError, match="Cannot convert a symbolic tf.Tensor"):
        filled(tf.zeros([2, 3]))
    assert tf.function(lambda: tf.constant(1.0, shape=[2, 3]))().shape == (2, 3)
