"""Convolutions, pools and softmax cross-entropies traced with unknown dims: one trace runs for
every size (the kernels work out SAME padding, output sizes and shapes as the graph runs),
matches eager execution, and raises TensorFlow's errors where the sizes do not fit."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.errors import InvalidArgumentError

_rng = np.random.default_rng(11)
_ANY4 = tf.TensorSpec([None] * 4, tf.float64)


def _value_and_grads(f):
    def run(*args):
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = f(*args)
        return y, tape.gradient(y, list(args))
    return run


def _assert_traced_matches_eager(f, signature, cases):
    """One trace of f's value and gradients for every case (sizes differ), equal to eager."""
    run = _value_and_grads(f)
    traced = tf.function(run, input_signature=signature)
    for inputs in cases:
        args = [tf.constant(x) for x in inputs]
        got_y, got_grads = traced(*args)
        want_y, want_grads = run(*args)
        np.testing.assert_allclose(got_y.numpy(), want_y.numpy(), rtol=1e-12, atol=1e-12)
        for got, want in zip(got_grads, want_grads):
            np.testing.assert_allclose(tf.convert_to_tensor(got).numpy(),
                                       tf.convert_to_tensor(want).numpy(), rtol=1e-12,
                                       atol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [1, 0], [0, 2], [0, 0]]])
def test_conv2d_traced_once_for_every_size(padding):
    # SAME's pads depend on the size: 7 rows pad (1, 1) with stride 2, 6 rows pad (0, 1).
    cases = [(_rng.standard_normal(x), _rng.standard_normal(w))
             for x, w in [((2, 7, 6, 3), (3, 2, 3, 2)), ((1, 6, 9, 3), (3, 3, 3, 4)),
                          ((3, 5, 5, 4), (2, 2, 2, 2))]]  # the last one is grouped
    _assert_traced_matches_eager(lambda x, w: tf.nn.conv2d(x, w, 2, padding) ** 2,
                                 [_ANY4, _ANY4], cases)


def test_depthwise_conv2d_traced_once_for_every_size():
    cases = [(_rng.standard_normal(x), _rng.standard_normal(w))
             for x, w in [((2, 7, 6, 3), (3, 2, 3, 2)), ((1, 4, 5, 2), (2, 2, 2, 3))]]
    _assert_traced_matches_eager(
        lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME") ** 2,
        [_ANY4, _ANY4], cases)


def test_conv1d_traced_once_for_every_size():
    any3 = tf.TensorSpec([None] * 3, tf.float64)
    cases = [(_rng.standard_normal(x), _rng.standard_normal(w))
             for x, w in [((2, 7, 3), (3, 3, 2)), ((1, 4, 2), (2, 2, 5))]]
    _assert_traced_matches_eager(lambda x, w: tf.nn.conv1d(x, w, 2, "SAME") ** 2,
                                 [any3, any3], cases)


@pytest.mark.parametrize("pool", [tf.nn.max_pool2d, tf.nn.avg_pool2d])
def test_pools_traced_once_for_every_size(pool):
    cases = [(_rng.permutation(np.prod(s)).reshape(s) * 0.1,)
             for s in [(2, 5, 4, 3), (1, 8, 7, 2), (3, 2, 3, 1)]]
    _assert_traced_matches_eager(lambda x: pool(x, 3, 2, "SAME") ** 2, [_ANY4], cases)


def test_traced_conv2d_checks_the_sizes_when_it_runs():
    # The eager errors (same class and text), raised by the kernel where the trace did not
    # know the sizes; TF 2.21 raises InvalidArgumentError with these texts from its kernel.
    conv = tf.function(lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"),
                       input_signature=[_ANY4, _ANY4])
    with pytest.raises(InvalidArgumentError,
                       match=r"input depth must be evenly divisible by filter depth: 3 vs 2"):
        conv(tf.ones((1, 4, 4, 3), tf.float64), tf.ones((2, 2, 2, 1), tf.float64))
    with pytest.raises(InvalidArgumentError, match=r"Computed output size would be negative: "
                                                   r"-1 \[input_size: 1, effective_filter_"
                                                   r"size: 3, stride: 1\]"):
        conv(tf.ones((1, 1, 1, 1), tf.float64), tf.ones((3, 3, 1, 1), tf.float64))
    # 2 rows under a 3-row window: TF 2.21 gives an empty (1, 0, 0, 1) result.
    assert conv(tf.ones((1, 2, 2, 1), tf.float64),
                tf.ones((3, 3, 1, 1), tf.float64)).shape == (1, 0, 0, 1)


def test_traced_softmax_cross_entropy_with_unknown_dims():
    spec = tf.TensorSpec([None, None], tf.float64)
    run = _value_and_grads(tf.nn.softmax_cross_entropy_with_logits)
    traced = tf.function(run, input_signature=[spec, spec])
    # TF 2.21: labels [3, 1] and [1, 4] broadcast against logits [3, 4]; all-ones give
    # 4 * log(4) = 5.54517744 per row.
    for labels in [(3, 1), (1, 4), (3, 4)]:
        y, _ = traced(tf.ones(labels, tf.float64), tf.ones((3, 4), tf.float64))
        np.testing.assert_allclose(y.numpy(), [5.545177444479562] * 3, rtol=1e-12)
    labels, logits = _rng.uniform(size=(3, 1)), _rng.standard_normal((3, 4))
    (y, grads), (want_y, want_grads) = (
        f(tf.constant(labels), tf.constant(logits)) for f in (traced, run))
    np.testing.assert_allclose(y.numpy(), want_y.numpy(), rtol=1e-12)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


def test_traced_softmax_cross_entropy_checks_shapes_when_it_runs():
    spec = tf.TensorSpec([None] * 3, tf.float64)
    traced = tf.function(tf.nn.softmax_cross_entropy_with_logits, input_signature=[spec, spec])
    # TF 2.21's run-time errors of its flattened op.
    for labels, text in [((1, 3, 4), r"logits_size=\[6,4\] labels_size=\[3,4\]"),
                         ((2, 3, 2), r"logits_size=\[6,4\] labels_size=\[6,2\]")]:
        with pytest.raises(InvalidArgumentError,
                           match=r"logits and labels must be broadcastable: " + text):
            traced(tf.ones(labels, tf.float64), tf.ones((2, 3, 4), tf.float64))
    # Known dims that differ fail when tracing (TF: "Dimensions must be equal").
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.function(tf.nn.softmax_cross_entropy_with_logits).get_concrete_function(
            tf.TensorSpec([3, None], tf.float64), tf.TensorSpec([2, None], tf.float64))


def test_traced_sparse_softmax_cross_entropy_with_unknown_dims():
    labels = tf.constant([2, 0, 1], dtype=tf.int32)
    spec = tf.TensorSpec([None, None], tf.float64)
    _assert_traced_matches_eager(
        lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits * logits),
        [spec], [(_rng.standard_normal((3, c)),) for c in (3, 4, 7)])


def test_traced_sparse_softmax_cross_entropy_checks_when_it_runs():
    # TF 2.21's run-time errors (its kernel's, and the shape assertion of rank > 2 logits).
    traced = tf.function(tf.nn.sparse_softmax_cross_entropy_with_logits, input_signature=[
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, None], tf.float64)])
    with pytest.raises(InvalidArgumentError, match=r"Received a label value of 5 which is "
                                                   r"outside the valid range of \[0, 3\)"):
        traced(tf.constant([0, 5]), tf.ones((2, 3), tf.float64))
    with pytest.raises(InvalidArgumentError, match=r"logits and labels must have the same "
                                                   r"first dimension, got logits shape \[4,5\] "
                                                   r"and labels shape \[3\]"):
        traced(tf.constant([0, 1, 2]), tf.ones((4, 5), tf.float64))
    with pytest.raises(InvalidArgumentError, match=r"Must have at least one class, but got "
                                                   r"logits shape \[3,0\]"):
        traced(tf.constant([0, 0, 0]), tf.ones((3, 0), tf.float64))
    traced = tf.function(tf.nn.sparse_softmax_cross_entropy_with_logits, input_signature=[
        tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None] * 3, tf.float64)])
    with pytest.raises(InvalidArgumentError, match=r"Condition x == y did not hold "
                                                   r"element-wise"):
        traced(tf.zeros((2, 3), tf.int32), tf.ones((3, 2, 4), tf.float64))


def test_sparse_softmax_cross_entropy_static_shape_errors():
    # TF 2.21's ValueErrors: a rank that does not fit, and known dims that differ.
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank "
                                         r"- 1`. Received: labels.shape=\(3,\) of rank 1 and "
                                         r"logits.shape=\(3, 4, 5\) of rank 3"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros(3, tf.int32),
                                                       tf.ones((3, 4, 5)))
    with pytest.raises(ValueError, match=r"`labels.shape` must equal `logits.shape` except for "
                                         r"the last dimension. Received: labels.shape=\(3,\) "
                                         r"and logits.shape=\(4, 5\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros(3, tf.int32), tf.ones((4, 5)))
    with pytest.raises(ValueError, match=r"Received: labels.shape=\(3,\) and "
                                         r"logits.shape=\(4, None\)"):
        tf.function(tf.nn.sparse_softmax_cross_entropy_with_logits).get_concrete_function(
            tf.TensorSpec([3], tf.int32), tf.TensorSpec([4, None], tf.float64))



def test_conv2d_transpose_with_a_traced_output_shape():
    # TF reads output_shape as the graph runs: one trace serves every size. From x's
    # [n, 4, 3, 4]: [n, 7, 6, 2] (SAME, stride 2: 7 rows give 4, 6 columns give 3).
    w = tf.constant(_rng.standard_normal((3, 3, 2, 4)))

    def f(x):
        out_shape = tf.shape(x) * tf.constant([1, 2, 2, 0]) + tf.constant([0, -1, 0, 2])
        return tf.nn.conv2d_transpose(x, w, out_shape, 2, "SAME") ** 2
    _assert_traced_matches_eager(f, [_ANY4], [(_rng.standard_normal((n, 4, 3, 4)),)
                                              for n in (1, 3)])
    # A cotangent that a conv2d to output_shape would not give: the eager error, as it runs.
    traced = tf.function(lambda x, s: tf.nn.conv2d_transpose(x, w, s, 2, "SAME"),
                         input_signature=[_ANY4, tf.TensorSpec([4], tf.int32)])
    with pytest.raises(InvalidArgumentError, match=r"Conv2DBackpropInput: input shape "
                                                   r"\[1, 4, 3, 4\] does not match filter"):
        traced(tf.ones((1, 4, 3, 4), tf.float64), tf.constant([1, 9, 6, 2]))
