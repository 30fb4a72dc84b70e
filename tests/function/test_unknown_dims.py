"""tf.function with unknown dims: one trace holds for every size, as in TensorFlow.

The expected numbers were printed by TF 2.21 for the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def _training_step():
    w = tf.Variable(tf.ones([3, 2]))
    traced_shapes = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def step(x):
        traced_shapes.append(x.shape)          # a Python side effect: runs when tracing only
        with tf.GradientTape() as tape:
            y = tf.nn.relu(tf.matmul(x, w) + 1.0)
            loss = tf.reduce_mean(tf.square(y))
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    return w, step, traced_shapes


def test_a_signature_with_none_dims_traces_once_for_every_batch_size():
    w, step, traced_shapes = _training_step()
    losses = [float(step(tf.ones([n, 3]) * 0.5)) for n in (1, 7, 64)]
    np.testing.assert_allclose(losses, [6.25, 5.3476562, 4.5755877], rtol=1e-6)   # TF 2.21
    np.testing.assert_allclose(w.numpy(), np.full((3, 2), 0.6524218916893005), rtol=1e-6)
    assert traced_shapes == [tf.TensorShape([None, 3])]
    assert step.experimental_get_tracing_count() == 1


def test_the_trace_matches_eager_execution_at_each_size():
    w_traced, step, _ = _training_step()
    w_eager = tf.Variable(tf.ones([3, 2]))
    rng = np.random.default_rng(7)
    for n in (5, 1, 12):
        x = tf.constant(rng.normal(size=(n, 3)).astype(np.float32))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.nn.relu(tf.matmul(x, w_eager) + 1.0)))
        w_eager.assign_sub(0.1 * tape.gradient(loss, w_eager))
        np.testing.assert_allclose(float(step(x)), float(loss), rtol=1e-6)
    np.testing.assert_allclose(w_traced.numpy(), w_eager.numpy(), rtol=1e-6)


def test_a_concrete_function_from_the_signature_alone_runs_for_other_sizes():
    f = tf.function(lambda x: tf.reduce_sum(x * x, axis=1, keepdims=True) / tf.cast(
        tf.shape(x)[1], tf.float32), input_signature=[tf.TensorSpec([None, None])])
    concrete = f.get_concrete_function()
    assert concrete.outputs[0].shape == tf.TensorShape([None, 1])
    for shape in ((1, 1), (4, 3), (2, 9)):
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        np.testing.assert_allclose(concrete(tf.constant(x)).numpy(),
                                   (x * x).sum(axis=1, keepdims=True) / shape[1], rtol=1e-6)


def test_reduce_retracing_relaxes_after_the_second_shape_as_tf():
    runs = []

    @tf.function(reduce_retracing=True)
    def f(x):
        runs.append(1)
        return tf.reduce_sum(x, axis=1)

    for n in (1, 7, 64, 3):
        assert f(tf.ones([n, 3])).shape == (n,)
    assert len(runs) == 2 and f.experimental_get_tracing_count() == 2   # TF 2.21: 2 and 2


def test_a_call_outside_the_signature_is_refused():
    _, step, _ = _training_step()
    with pytest.raises(TypeError):
        step(tf.ones([2, 4]))


def test_data_dependent_sizes_hold_for_other_values_in_one_trace():
    runs = []

    @tf.function
    def f(x, mask, k):
        runs.append(1)
        picked = tf.boolean_mask(x, mask)
        values, _ = tf.math.top_k(x, k=k)
        return picked, tf.unique(tf.cast(x, tf.int32)).y, values, tf.reduce_sum(picked * 2.0)

    cases = [([3., 1., 3., 2.], [True, False, True, True], 2),
             ([5., 4., 5., 5.], [False, False, False, True], 3),
             ([1., 2., 3., 4.], [True, True, True, True], 1)]
    for x, mask, k in cases:
        picked, unique, top, total = f(tf.constant(x), tf.constant(mask), tf.constant(k))
        want = np.array(x)[np.array(mask)]
        assert picked.numpy().tolist() == want.tolist()
        assert unique.numpy().tolist() == list(dict.fromkeys(int(v) for v in x))
        assert top.numpy().tolist() == sorted(x, reverse=True)[:k]
        assert float(total) == 2.0 * want.sum()
    assert len(runs) == 1 and f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("reduce", [tf.reduce_sum, tf.reduce_mean, tf.reduce_max,
                                    tf.reduce_logsumexp, tf.reduce_prod])
@pytest.mark.parametrize("axis", [None, -1, 0])
def test_reductions_of_unknown_rank_hold_for_every_rank(reduce, axis):
    def value_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = reduce(tf.sin(x), axis=axis)
        return y, tape.gradient(y, x)

    traced = tf.function(value_and_grad, input_signature=[tf.TensorSpec(None, tf.float64)])
    rng = np.random.default_rng(3)
    for shape in ((4,), (2, 3), (2, 1, 3)):
        x = tf.constant(rng.uniform(0.2, 1.2, shape))
        for got, want in zip(traced(x), value_and_grad(x)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


def test_a_reduction_axis_outside_the_run_time_rank_raises():
    f = tf.function(lambda x: tf.reduce_sum(x, axis=2),
                    input_signature=[tf.TensorSpec(None, tf.float32)])
    assert f(tf.ones([1, 2, 3])).numpy().tolist() == [[3.0, 3.0]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.ones([2, 3]))


def test_matmul_of_unknown_rank_checks_ranks_as_the_graph_runs():
    def value_and_grads(a, b, c):
        with tf.GradientTape() as tape:
            tape.watch([a, b, c])
            y = tf.reduce_sum(tf.sin(tf.matmul(a, b, transpose_b=True)) + a @ c)
        return y, tape.gradient(y, [a, b, c])

    spec = tf.TensorSpec(None, tf.float64)
    traced = tf.function(value_and_grads, input_signature=[spec, spec, spec])
    rng = np.random.default_rng(4)
    for sa in ((2, 3), (5, 2, 3)):
        a, b, c = (tf.constant(rng.normal(size=s)) for s in (sa, (4, 3), (3, 4)))
        (y, grads), (want_y, want_grads) = traced(a, b, c), value_and_grads(a, b, c)
        np.testing.assert_allclose(y.numpy(), want_y.numpy(), rtol=1e-12)
        for got, want in zip(grads, want_grads):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    # TF's kernel errors, met only when the graph runs.
    ones = tf.ones([3, 4], tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] ndims must be >= 2: 1"):
        traced(tf.ones([3], tf.float64), tf.ones([4, 3], tf.float64), ones)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        traced(tf.ones([2, 3], tf.float64), tf.ones([4, 2], tf.float64), ones)


@pytest.mark.parametrize("op", [tf.nn.softmax, tf.nn.log_softmax])
def test_softmax_of_unknown_rank_holds_for_every_rank(op):
    def value_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(op(x) * tf.cos(x))
        return y, tape.gradient(y, x)

    traced = tf.function(value_and_grad, input_signature=[tf.TensorSpec(None, tf.float64)])
    rng = np.random.default_rng(6)
    for shape in ((5,), (2, 3), (2, 1, 4)):
        x = tf.constant(rng.normal(size=shape))
        for got, want in zip(traced(x), value_and_grad(x)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        traced(tf.constant(1.0, tf.float64))


def test_slicing_by_a_size_known_only_at_run_time():
    # A slice bound or index computed from an unknown dim (TF 2.21's answers).
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def halves(x):
        n = tf.shape(x)[0] // 2
        return x[:n, n:], x[n], x[-1, :n]

    corner, row, tail = halves(tf.reshape(tf.range(16.0), [4, 4]))
    assert corner.numpy().tolist() == [[2.0, 3.0], [6.0, 7.0]]
    assert row.numpy().tolist() == [8.0, 9.0, 10.0, 11.0]
    assert tail.numpy().tolist() == [12.0, 13.0]
    corner, row, tail = halves(tf.reshape(tf.range(4.0), [2, 2]))   # the same trace
    assert corner.numpy().tolist() == [[1.0]] and row.numpy().tolist() == [2.0, 3.0]
    assert halves.experimental_get_tracing_count() == 1

    v = tf.Variable(tf.reshape(tf.range(16.0), [4, 4]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(halves(v)[0] * 2.0) + tf.reduce_sum(halves(v)[1])
    assert tape.gradient(y, v).numpy().tolist() == [
        [0, 0, 2, 2], [0, 0, 2, 2], [1, 1, 1, 1], [0, 0, 0, 0]]

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def past_the_end(x):
        return x[tf.shape(x)[0]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="slice index 3 of dimension 0 out of bounds"):
        past_the_end(tf.range(3.0))


def test_a_call_runs_the_most_specific_trace_that_covers_it_as_tf():
    """As TF 2.21 dispatches: a call whose shapes a traced signature covers (None dims) runs
    that trace instead of tracing again (tracing counts recorded from TF 2.21)."""
    f = tf.function(lambda pair: pair[0] * 2)
    f.get_concrete_function((tf.TensorSpec([None, 3]), tf.TensorSpec([None, 1])))
    f((tf.ones([4, 3]), tf.ones([4, 1])))
    f((tf.ones([2, 3]), tf.ones([2, 1])))
    assert f.experimental_get_tracing_count() == 1

    g = tf.function(lambda x: x * 2)
    g.get_concrete_function(tf.TensorSpec(None))
    assert g.get_concrete_function(tf.TensorSpec([None, 2])).structured_outputs.shape.rank \
        is None   # the unknown-rank trace covers it
    assert g(tf.ones([3, 2])).shape == (3, 2) and g(tf.ones([3])).shape == (3,)
    g.get_concrete_function(tf.TensorSpec([None, 5]))
    assert g.experimental_get_tracing_count() == 1
