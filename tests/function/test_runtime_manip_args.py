"""Sizes that manip and index ops take as run-time inputs under tf.function (issue 33).

Each op is traced with its argument unknown while tracing (an input_signature with None dims,
or the argument derived from tf.shape), called with two different values and compared with
eager calls; its traced static shape is compared with TF's, measured with TF 2.21 / Keras
3.15.1 and written here as literals; a bad value raises TF's error when the graph runs; the
differentiable ones are differentiated through the traced function with a GradientTape.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

S = tf.TensorSpec
F32, I32 = tf.float32, tf.int32
X23 = np.arange(6, dtype=np.float32).reshape(2, 3)
X43 = np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0


def _traced(fn, *specs):
    return tf.function(fn, input_signature=list(specs))


def _static_shapes(f):
    """The traced outputs' static shapes (None for an unknown rank), as TF's output_shapes."""
    def dims(t):
        return None if t.shape.rank is None else tuple(t.shape.as_list())
    return tf.nest.map_structure(dims, f.get_concrete_function().structured_outputs)


def _equal(actual, expected):
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


def _refused(call, *words):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def _gradients(f, x, *rest, weights):
    """d sum(f(x, *rest) * weights) / dx, through `f` (traced or eager)."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = f(x, *rest)
        out = out.values if hasattr(out, "values") else out
        loss = tf.reduce_sum(out * weights(out))
    return tape.gradient(loss, x).numpy()


def _ramp(out):
    """Weights that tell every output position apart."""
    return tf.cast(tf.reshape(tf.range(tf.size(out)), tf.shape(out)), out.dtype) + 1.0


# -- tf.pad --------------------------------------------------------------------------------------

MODES = ["CONSTANT", "REFLECT", "SYMMETRIC"]


@pytest.mark.parametrize("mode", MODES)
def test_pad_reads_paddings_when_the_graph_runs(mode):
    def fn(x, p):
        return tf.pad(x, p, mode=mode, constant_values=7.0)
    f = _traced(fn, S([None, 3], F32), S([2, 2], I32))
    assert _static_shapes(f) == (None, None)      # TF 2.21: (None, None)
    for x, p in ((X23, [[1, 0], [0, 2]]), (X43, [[0, 1], [2, 1]])):
        p = np.array(p, np.int32)
        _equal(f(x, p), fn(tf.constant(x), p))
    assert f(X43, np.array([[0, 1], [2, 1]], np.int32)).shape == (5, 6)


@pytest.mark.parametrize("mode", MODES)
def test_pad_by_a_list_with_a_run_time_item_keeps_the_static_dims(mode):
    def fn(x):
        return tf.pad(x, [[0, tf.shape(x)[0] - 1], [1, 1]], mode=mode)
    f = _traced(fn, S([None, 3], F32))
    assert _static_shapes(f) == (None, 5)          # TF 2.21: (None, 5)
    for x in (X23, X43):
        _equal(f(x), fn(tf.constant(x)))


@pytest.mark.parametrize("mode", MODES)
def test_pad_by_paddings_computed_from_constants_gives_exact_dims(mode):
    f = _traced(lambda x: tf.pad(x, tf.constant([[1, 1], [0, 2]]) * 1, mode=mode),
                S([None, 3], F32))
    assert _static_shapes(f) == (None, 5)          # TF 2.21: (None, 5)


def test_pad_by_paddings_of_unknown_shape():
    f = _traced(lambda x, p: tf.pad(x, p), S([None, 3], F32), S(None, I32))
    assert _static_shapes(f) == (None, None)       # TF 2.21: (None, None)
    _equal(f(X23, np.array([[1, 0], [0, 2]], np.int32)), tf.pad(X23, [[1, 0], [0, 2]]))
    # TF 2.21: "paddings must be a matrix with 2 columns: [2,3]"
    _refused(lambda: f(X23, np.zeros((2, 3), np.int32)),
             "paddings must be a matrix with 2 columns: [2,3]")
    _refused(lambda: f(X23, np.zeros((3, 2), np.int32)),
             "The first dimension of paddings must be the rank of inputs[3,2] [2,3]")


def test_pad_with_a_run_time_constant_value():
    f = _traced(lambda x, p, c: tf.pad(x, p, constant_values=c),
                S([None, 3], F32), S([2, 2], I32), S([], F32))
    for c in (5.0, -1.5):
        p = np.array([[1, 1], [0, 1]], np.int32)
        _equal(f(X23, p, np.float32(c)), tf.pad(X23, p, constant_values=c))


@pytest.mark.parametrize("mode,text", [
    # TF 2.21's words
    ("CONSTANT", "Paddings must be non-negative: -1 0"),
    ("REFLECT", "paddings must be non-negative: -1 0"),
    ("SYMMETRIC", "paddings must be non-negative: -1 0"),
])
def test_pad_refuses_negative_paddings_when_it_runs(mode, text):
    f = _traced(lambda x, p: tf.pad(x, p, mode=mode), S([None, 3], F32), S([2, 2], I32))
    _refused(lambda: f(X23, np.array([[-1, 0], [0, 2]], np.int32)), text)


@pytest.mark.parametrize("mode,text", [
    # TF 2.21's words
    ("REFLECT", "paddings must be less than the dimension size: 2, 0 not less than 2"),
    ("SYMMETRIC", "paddings must be no greater than the dimension size: 3, 0 greater than 2"),
])
def test_mirror_pad_refuses_paddings_past_the_edge_when_it_runs(mode, text):
    f = _traced(lambda x, p: tf.pad(x, p, mode=mode), S([None, 3], F32), S([2, 2], I32))
    before = 2 if mode == "REFLECT" else 3
    _refused(lambda: f(X23, np.array([[before, 0], [0, 0]], np.int32)), text)
    _equal(f(X43, np.array([[before, 0], [0, 0]], np.int32)),
           tf.pad(X43, [[before, 0], [0, 0]], mode=mode))


@pytest.mark.parametrize("mode", MODES)
def test_pad_gradient_through_the_traced_function(mode):
    def fn(x, p):
        return tf.pad(x, p, mode=mode)
    f = _traced(fn, S([None, 3], F32), S([2, 2], I32))
    for x, p in ((X23, [[1, 0], [0, 2]]), (X43, [[2, 1], [1, 1]])):
        p = np.array(p, np.int32)
        np.testing.assert_allclose(_gradients(f, x, p, weights=_ramp),
                                   _gradients(fn, x, p, weights=_ramp))


# -- tf.math.top_k, tf.math.in_top_k -------------------------------------------------------------

def test_top_k_reads_k_when_the_graph_runs():
    def fn(x, k):
        return tf.math.top_k(x, k=k)
    f = _traced(fn, S([None, 3], F32), S([], I32))
    shapes = _static_shapes(f)
    assert (shapes.values, shapes.indices) == ((None, None), (None, None))   # TF 2.21
    for k in (1, 3):
        got, want = f(X43, np.int32(k)), fn(tf.constant(X43), k)
        _equal(got.values, want.values)
        _equal(got.indices, want.indices)
    # TF 2.21's words
    _refused(lambda: f(X23, np.int32(4)), "input must have at least k columns. Had 3, needed 4")
    _refused(lambda: f(X23, np.int32(-1)), "Need k >= 0, got -1")


def test_top_k_values_gradient_through_the_traced_function():
    def fn(x, k):
        return tf.math.top_k(x, k=k)
    f = _traced(fn, S([None, 3], F32), S([], I32))
    for k in (1, 2):
        np.testing.assert_allclose(_gradients(f, X43, np.int32(k), weights=_ramp),
                                   _gradients(fn, X43, k, weights=_ramp))


def test_in_top_k_reads_k_when_the_graph_runs():
    def fn(p, t, k):
        return tf.math.in_top_k(t, p, k)
    f = _traced(fn, S([None, 3], F32), S([None], I32), S([], I32))
    assert _static_shapes(f) == (None,)            # TF 2.21: (None,)
    targets = np.array([0, 2, 1, 1], np.int32)
    for k in (1, 2, -1, 5):   # TF 2.21: a negative k gives False, a large one True
        _equal(f(X43, targets, np.int32(k)), fn(tf.constant(X43), targets, k))
    f1 = _traced(fn, S([None, 3], F32), S([None], I32), S(None, I32))
    _refused(lambda: f1(X23, targets[:2], np.array([1], np.int32)), "k must be 0-D, got shape [1]")


# -- tf.roll -------------------------------------------------------------------------------------

def test_roll_reads_shift_when_the_graph_runs():
    def fn(x, s):
        return tf.roll(x, s, axis=0)
    f = _traced(fn, S([None, 3], F32), S([], I32))
    assert _static_shapes(f) == (None, 3)          # TF 2.21: (None, 3)
    for x, s in ((X23, 1), (X43, -3)):
        _equal(f(x, np.int32(s)), fn(tf.constant(x), s))


def test_roll_reads_shift_and_axis_when_the_graph_runs():
    def fn(x, s, a):
        return tf.roll(x, s, axis=a)
    f = _traced(fn, S([None, 3], F32), S([None], I32), S([None], I32))
    assert _static_shapes(f) == (None, 3)          # TF 2.21: (None, 3)
    for s, a in (([1, 1], [0, 1]), ([2, -1], [-1, 1])):
        s, a = np.array(s, np.int32), np.array(a, np.int32)
        _equal(f(X43, s, a), fn(tf.constant(X43), s, a))
    # TF 2.21's words
    _refused(lambda: f(X23, np.array([1], np.int32), np.array([0, 1], np.int32)),
             "shift and axis must have the same size")
    _refused(lambda: f(X23, np.array([1], np.int32), np.array([5], np.int32)),
             "axis 5 is out of range")
    g = _traced(fn, S([None, 3], F32), S(None, I32), S([], I32))
    _refused(lambda: g(X23, np.array([[1]], np.int32), np.int32(0)),
             "shift must be a scalar or a 1-D vector. Found: [1,1]")


def test_roll_by_tf_shape_and_its_gradient():
    def fn(x):
        return tf.roll(x, tf.shape(x)[0] - 1, axis=1)
    f = _traced(fn, S([None, 3], F32))
    for x in (X23, X43):
        _equal(f(x), fn(tf.constant(x)))
        np.testing.assert_allclose(_gradients(f, x, weights=_ramp), _gradients(fn, x, weights=_ramp))


# -- tf.scatter_nd -------------------------------------------------------------------------------

def test_scatter_nd_reads_its_shape_when_the_graph_runs():
    def fn(i, u, s):
        return tf.scatter_nd(i, u, s)
    f = _traced(fn, S([None, 1], I32), S([None, 3], F32), S([2], I32))
    assert _static_shapes(f) == (None, None)       # TF 2.21: (None, None)
    indices = np.array([[0], [2]], np.int32)
    for shape in ([4, 3], [3, 3]):
        shape = np.array(shape, np.int32)
        _equal(f(indices, X23, shape), fn(indices, X23, shape))
    # TF 2.21's words
    _refused(lambda: f(np.array([[0], [5]], np.int32), X23, np.array([4, 3], np.int32)),
             "indices[1] = [5] does not index into shape [4,3]")
    _refused(lambda: f(indices, X23, np.array([-1, 3], np.int32)), "Dimension -1 must be >= 0")
    _refused(lambda: f(indices, X23, np.array([3, 4], np.int32)),
             "Dimensions [1,2) of input[shape=[3,4]] must match dimensions [1,2) of "
             "updates[shape=[2,3]]")


def test_scatter_nd_by_a_list_shape_with_a_run_time_dim():
    def fn(u):
        return tf.scatter_nd([[0], [1]], u, [tf.shape(u)[0] + 1, 3])
    f = _traced(fn, S([None, 3], F32))
    assert _static_shapes(f) == (None, 3)          # TF 2.21: (None, 3)
    _equal(f(X23), fn(tf.constant(X23)))


def test_scatter_nd_updates_gradient_through_the_traced_function():
    def fn(u, s):
        return tf.scatter_nd([[1], [0]], u, s)
    f = _traced(fn, S([None, 3], F32), S([2], I32))
    for rows in (2, 5):
        s = np.array([rows, 3], np.int32)
        np.testing.assert_allclose(_gradients(f, X23, s, weights=_ramp),
                                   _gradients(fn, X23, s, weights=_ramp))


def test_scatter_nd_eager_errors_are_tensorflows():
    # TF 2.21's words for the eager kernel (the same checks run in a traced graph)
    z = np.zeros((3, 3), np.float32)
    _refused(lambda: tf.scatter_nd([[0], [1]], z, [4, 3]),
             "Dimensions [0,1) of indices[shape=[2,1]] must match dimensions [0,1) of "
             "updates[shape=[3,3]]")
    _refused(lambda: tf.scatter_nd([[0], [1]], X23, [[-4, 3]]), "Dimension -4 must be >= 0")
    _refused(lambda: tf.scatter_nd([[0, 0, 0], [1, 0, 0]], np.zeros(2, np.float32), [4, 3]),
             "Dimensions [3,2) of input[shape=[4,3]] must match dimensions [1,1) of "
             "updates[shape=[2]]")
    _refused(lambda: tf.scatter_nd([[0], [1]], X23, [0, 3]),
             "Indices and updates specified for empty output.  indices shape: [2,1]")


# -- unsorted segment reductions -----------------------------------------------------------------

SEGMENT_OPS = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
               "unsorted_segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n"]


@pytest.mark.parametrize("name", SEGMENT_OPS)
def test_unsorted_segments_read_num_segments_when_the_graph_runs(name):
    op = getattr(tf.math, name)

    def fn(d, i):
        return op(d, i, tf.shape(d)[0])
    f = _traced(fn, S([None, 3], F32), S([None], I32))
    assert _static_shapes(f) == (None, 3)          # TF 2.21: (None, 3)
    for d, i in ((X23, [1, 1]), (X43, [3, 0, 3, 1])):
        i = np.array(i, np.int32)
        np.testing.assert_allclose(f(d, i), fn(tf.constant(d), i), rtol=1e-6)
    # TF 2.21's words
    _refused(lambda: f(X23, np.array([2, 0], np.int32)),
             "segment_ids[0] = 2 is out of range [0, 2)")
    g = _traced(lambda d, i, n: op(d, i, n), S([None, 3], F32), S([None], I32), S([], I32))
    _refused(lambda: g(X23, np.array([0, 0], np.int32), np.int32(-1)),
             "Input num_segments == -1 must not be negative.")


@pytest.mark.parametrize("name", ["unsorted_segment_sum", "unsorted_segment_mean",
                                  "unsorted_segment_max", "unsorted_segment_prod"])
def test_unsorted_segment_gradient_through_the_traced_function(name):
    op = getattr(tf.math, name)

    def fn(d, i, n):
        return op(d, i, n)
    f = _traced(fn, S([None, 3], F32), S([None], I32), S([], I32))
    ids = np.array([3, 0, -1, 0], np.int32)
    for n in (4, 6):
        np.testing.assert_allclose(_gradients(f, X43, ids, np.int32(n), weights=_ramp),
                                   _gradients(fn, X43, ids, n, weights=_ramp), rtol=1e-6)


# -- tf.histogram_fixed_width --------------------------------------------------------------------

VALUES = np.array([1.0, 5.0, 9.0, -2.0, 12.0], np.float32)


def test_histogram_reads_nbins_when_the_graph_runs():
    def fn(v, n):
        return tf.histogram_fixed_width(v, [0.0, 10.0], nbins=n)
    f = _traced(fn, S([None], F32), S([], I32))
    assert _static_shapes(f) == (None,)            # TF 2.21: (None,)
    for n in (2, 4):
        _equal(f(VALUES, np.int32(n)), fn(tf.constant(VALUES), n))
    # TF 2.21's words
    _refused(lambda: f(VALUES, np.int32(0)), "nbins should be a positive number, but got '0'")
    _refused(lambda: f(np.array([1.0, np.nan], np.float32), np.int32(2)),
             "Histogram values must not contain NaN")
    h = _traced(lambda v: tf.histogram_fixed_width(v, [0.0, 10.0], nbins=tf.shape(v)[0]),
                S([None], F32))
    _equal(h(VALUES), tf.histogram_fixed_width(VALUES, [0.0, 10.0], nbins=5))


def test_histogram_checks_a_run_time_value_range_when_it_runs():
    f = _traced(lambda v, r: tf.histogram_fixed_width(v, r, nbins=3), S([None], F32), S(None, F32))
    assert _static_shapes(f) == (3,)               # TF 2.21: (3,)
    _equal(f(VALUES, np.array([0.0, 10.0], np.float32)),
           tf.histogram_fixed_width(VALUES, [0.0, 10.0], nbins=3))
    # TF 2.21's words
    _refused(lambda: f(VALUES, np.array([10.0, 0.0], np.float32)),
             "value_range should satisfy value_range[0] < value_range[1], but got '[10, 0]'")
    _refused(lambda: f(VALUES, np.array([0.0, 1.0, 2.0], np.float32)),
             "value_range should be a vector of 2 elements.")


def test_histogram_eager_errors_are_tensorflows():
    # TF 2.21's words, in its kernel's order
    _refused(lambda: tf.histogram_fixed_width([1.0], [0.0, 1.0, 2.0], 0),
             "value_range should be a vector of 2 elements.")
    _refused(lambda: tf.histogram_fixed_width([1.0], [1.0, 0.0], 0),
             "value_range should satisfy value_range[0] < value_range[1], but got '[1, 0]'")
    _refused(lambda: tf.histogram_fixed_width([1.0], [0.0, 1.0], [2]), "nbins should be a scalar.")
    _refused(lambda: tf.histogram_fixed_width([1.0], [[0.0, 1.0]], 2), "value_range should be a vector.")


def test_pad_eager_errors_are_tensorflows():
    # TF 2.21's words (the traced kernel's too); the mode is checked first, by TF's Python
    _refused(lambda: tf.pad(X23, [[-1, 0], [0, 2]]), "Paddings must be non-negative: -1 0")
    _refused(lambda: tf.pad(X23, [[0, 0], [0, -2]], "SYMMETRIC"), "paddings must be non-negative: 0 -2")
    _refused(lambda: tf.pad(X23, [[3, 0], [0, 0]], "SYMMETRIC"),
             "paddings must be no greater than the dimension size: 3, 0 greater than 2")
    with pytest.raises(ValueError, match="Received `mode` = WRAP"):
        tf.pad(X23, [[-1, 0], [0, 2]], "WRAP")


def test_dataset_map_over_batches_of_unknown_size():
    def fn(x):
        n = tf.shape(x)[0]
        return (tf.pad(x, [[0, 3 - n], [1, 0]]), tf.roll(x, n, axis=1),
                tf.math.unsorted_segment_sum(x, tf.range(n) // 2, n), tf.math.top_k(x, k=n).values,
                tf.histogram_fixed_width(x, [0.0, 15.0], nbins=n + 1))
    data = np.arange(15, dtype=np.float32).reshape(5, 3)
    mapped = tf.data.Dataset.from_tensor_slices(data).batch(2).map(fn)
    # TF 2.21's element_spec shapes
    assert [tuple(s.shape.as_list()) for s in mapped.element_spec] == \
        [(None, 4), (None, 3), (None, 3), (None, None), (None,)]
    batches = list(mapped)
    assert len(batches) == 3
    for got, rows in zip(batches, (data[0:2], data[2:4], data[4:5])):
        for g, want in zip(got, fn(tf.constant(rows))):
            _equal(g, want)
