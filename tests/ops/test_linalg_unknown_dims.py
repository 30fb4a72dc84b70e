"""tf.linalg traced with unknown dims: one trace must hold for every size (and shape: deep
or wide matrices) its dims take, equal to eager; checks the trace cannot make run in the
kernels, with TF's error classes and messages."""

import numpy as np
import pytest

import tapeflow as tf

_rng = np.random.default_rng(5)


def _unknown(*ranks, dtype=tf.float64):
    return [tf.TensorSpec([None] * r, dtype) for r in ranks]


def _value_and_grads(f):
    def run(*args):
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = f(*args)
        return [y] + tape.gradient(y, list(args))
    return run


def _assert_traced_equals_eager(f, signature, *calls):
    """`f` traced once from `signature`, then run on each call's inputs, equals eager."""
    traced = tf.function(f, input_signature=signature)
    for inputs in calls:
        inputs = [tf.constant(x) for x in inputs]
        got, want = traced(*inputs), f(*inputs)
        for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
            np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(),
                                       tf.convert_to_tensor(w).numpy(), rtol=1e-12, atol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


def _well(*shape):
    return _rng.uniform(-0.5, 0.5, shape) + 2.0 * np.eye(shape[-1])


def test_a_known_and_an_unknown_dim_trace_as_square_and_the_kernel_checks():
    traced = tf.function(tf.linalg.inv, input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    a = _well(3, 3)
    np.testing.assert_allclose(traced(tf.constant(a)).numpy(), np.linalg.inv(a), rtol=1e-12)
    # TF 2.21's error for a non-square run-time input.
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square"):
        traced(tf.constant(np.ones((2, 3))))


@pytest.mark.parametrize("op", [tf.linalg.det, tf.linalg.cholesky, lambda a: tf.linalg.eigh(a)[0]])
def test_square_ops_check_run_time_shapes(op):
    traced = tf.function(op, input_signature=_unknown(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square"):
        traced(tf.constant(np.ones((2, 3))))


def test_eye_of_a_traced_size_follows_the_value():
    # As in TF: tf.eye(n) with a tensor n is sized as the graph runs, every call.
    traced = tf.function(lambda n: tf.eye(n, dtype=tf.float64),
                         input_signature=[tf.TensorSpec([], tf.int32)])
    for n in (2, 3, 0):
        np.testing.assert_array_equal(traced(tf.constant(n)).numpy(), np.eye(n))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        traced(tf.constant(-1))   # TF 2.21's message (its Fill op)
    assert traced.experimental_get_tracing_count() == 1


def test_eye_of_a_traced_shape_with_columns_and_batch():
    def f(a):
        return tf.eye(tf.shape(a)[0], tf.shape(a)[1], batch_shape=[2], dtype=tf.float64)
    traced = tf.function(f, input_signature=_unknown(2))
    for shape in ((2, 3), (4, 1)):
        got = traced(tf.constant(np.ones(shape))).numpy()
        np.testing.assert_array_equal(got, np.broadcast_to(np.eye(*shape), (2,) + shape))


def test_triangular_solve_broadcasts_batches_it_did_not_know():
    f = _value_and_grads(lambda a, b: tf.linalg.triangular_solve(a, b, lower=True))
    _assert_traced_equals_eager(f, _unknown(3, 2), [_well(2, 3, 3), _rng.uniform(-1, 1, (3, 2))],
                                [_well(1, 2, 2), _rng.uniform(-1, 1, (2, 4))])
    traced = tf.function(tf.linalg.triangular_solve, input_signature=_unknown(2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible"):
        traced(tf.constant(_well(2, 2)), tf.constant(np.ones((3, 1))))


def test_solve_checks_batches_as_it_runs_instead_of_broadcasting():
    traced = tf.function(tf.linalg.solve, input_signature=_unknown(3, 3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch shape"):
        traced(tf.constant(_well(2, 2, 2)), tf.constant(np.ones((1, 2, 1))))
    with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible"):
        traced(tf.constant(_well(1, 2, 2)), tf.constant(np.ones((1, 3, 1))))


def test_diagonals_and_bands_of_unknown_sizes():
    def f(d, a):
        return (tf.linalg.diag(d), tf.linalg.diag(d, k=1), tf.linalg.diag_part(a, k=-1),
                tf.linalg.set_diag(a, tf.linalg.diag_part(a) * 2.0), tf.linalg.band_part(a, 1, 0))
    _assert_traced_equals_eager(f, _unknown(1, 2), [np.arange(1.0, 3.0), np.ones((2, 3))],
                                [np.arange(1.0, 5.0), np.ones((4, 2))])


def test_diagonal_and_band_checks_run_in_the_kernels():
    # TF 2.21's messages for these sizes, met only as the graph runs.
    band = tf.function(lambda a: tf.linalg.band_part(a, 3, 0), input_signature=_unknown(2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"number of rows \(2\) got: 3"):
        band(tf.constant(np.ones((2, 2))))
    part = tf.function(lambda a: tf.linalg.diag_part(a, k=3), input_signature=_unknown(2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="lower_diag_index is out of bound: 3. It must be between -2 and 2"):
        part(tf.constant(np.ones((2, 2))))
    set_diag = tf.function(tf.linalg.set_diag, input_signature=_unknown(2, 1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="diagonal must have shape"):
        set_diag(tf.constant(np.ones((2, 2))), tf.constant(np.ones(3)))
    diag = tf.function(lambda d: tf.linalg.diag(d, num_rows=2, num_cols=2),
                       input_signature=_unknown(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="too small"):
        diag(tf.constant(np.ones(3)))


def test_einsum_checks_dims_it_did_not_know():
    # NumPy would broadcast the 1 against 3; TF 2.21 refuses with this message.
    traced = tf.function(lambda a, b: tf.einsum("ij,jk->ik", a, b), input_signature=_unknown(2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension 3 at axis 0 of the input shaped \[1,2\] but "
                             r"got dimension 1"):
        traced(tf.constant(np.ones((2, 3))), tf.constant(np.ones((1, 2))))


def test_einsum_gradients_on_diagonals_of_unknown_sizes():
    f = _value_and_grads(lambda a, b: tf.einsum("iji,k->j", a * a, b))
    _assert_traced_equals_eager(f, _unknown(3, 1), [_rng.uniform(-1, 1, (2, 3, 2)), np.ones(2)],
                                [_rng.uniform(-1, 1, (4, 1, 4)), np.ones(3)])


@pytest.mark.parametrize("shapes", [[(4, 3), (2, 5), (3, 3)], [(2, 2, 4), (1, 3, 2)]],
                         ids=["matrices", "batches"])
def test_factorization_gradients_hold_for_deep_and_wide(shapes):
    # One trace, run on matrices of either orientation (TF's own rules refuse to trace this).
    def f(a):
        q, r = tf.linalg.qr(a)
        s, u, v = tf.linalg.svd(a)
        return tf.reduce_sum(q * 1.5) + tf.reduce_sum(r) + tf.reduce_sum(s) + \
            tf.reduce_sum(tf.abs(u)) + tf.reduce_sum(tf.abs(v))
    _assert_traced_equals_eager(_value_and_grads(f), _unknown(len(shapes[0])),
                                *[[_rng.uniform(-1, 1, s)] for s in shapes])


def test_full_matrices_gradients_refuse_unknown_dims_as_tf():
    def qr_grad(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            r = tf.linalg.qr(a, full_matrices=True)[1]
        return tape.gradient(r, a)
    with pytest.raises(NotImplementedError, match="QrGrad not implemented with dynamic shapes"):
        tf.function(qr_grad, input_signature=_unknown(2)).get_concrete_function()


def test_expm_lstsq_pinv_norm_of_unknown_sizes():
    f = _value_and_grads(lambda a: tf.linalg.expm(a * 0.3))
    _assert_traced_equals_eager(f, _unknown(2), [_rng.uniform(-1, 1, (2, 2))],
                                [_rng.uniform(-1, 1, (3, 3))])
    def g(a, b):
        return (tf.linalg.lstsq(a, b), tf.linalg.pinv(a),
                tf.linalg.norm(a, ord=2, axis=[-2, -1], keepdims=True))
    _assert_traced_equals_eager(g, _unknown(2, 2), [_rng.uniform(-1, 1, (4, 2)), np.ones((4, 1))],
                                [_rng.uniform(-1, 1, (2, 3)), np.ones((2, 2))])
