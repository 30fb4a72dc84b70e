"""`tapeflow.keras.ops`' core and math names (cast, cond, scan, segment_sum, stft, ...)
against Keras 3.15.1 (TensorFlow 2.21 backend), registry-driven.

The fixture (tools/record_keras_ops_core_nn.py) holds each case's inputs, call and Keras's
output values, dtypes and shapes (or the class of the error Keras raised), and every core name
of keras.ops with its parameter names.
"""

from __future__ import annotations

import inspect
import warnings

import _keras_ops_core_nn_cases as kc
import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import ops

CORE_NAMES = sorted(kc.SIGNATURES["core"])
RNG = np.random.default_rng(12)
# plain functions in Keras too: their answers are Python values, not tensors
NOT_TRACED = {"shape", "dtype", "is_tensor", "convert_to_numpy", "custom_gradient"}


def _u(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape)


@pytest.mark.parametrize("case", kc.cases_of(CORE_NAMES), ids=lambda c: c["id"])
def test_recorded_case_matches_keras(case):
    kc.check_case(case)


def test_every_keras_core_name_exists_with_its_parameters():
    assert sorted(ops.core.__all__) == CORE_NAMES
    for name, params in kc.SIGNATURES["core"].items():
        assert list(inspect.signature(getattr(ops.core, name)).parameters) == params, name
        assert getattr(ops, name) is getattr(ops.core, name), name


def test_every_core_op_has_recorded_cases():
    assert {c["op"] for c in kc.cases_of(CORE_NAMES)} >= set(CORE_NAMES) - {"custom_gradient"}


_IDS = np.array([0, 0, 2, 1, 2])

GRADIENT_CASES = {
    "erf": (ops.erf, (_u(2, 3),)),
    "erfc": (ops.erfc, (_u(2, 3),)),
    "erfinv": (ops.erfinv, (_u(2, 3, lo=-0.9, hi=0.9),)),
    "rsqrt": (ops.rsqrt, (_u(2, 3, lo=0.5, hi=2),)),
    "logsumexp": (lambda x: ops.logsumexp(x, axis=1, keepdims=True), (_u(2, 3),)),
    # through a symmetric matrix: logdet reads one triangle (Cholesky), its gradient is
    # symmetric, as TF's
    "logdet": (lambda a: ops.logdet(tf.matmul(a, a, transpose_b=True) + 3 * np.eye(3)),
               (_u(3, 3),)),
    "cdist": (ops.cdist, (_u(3, 2), _u(4, 2))),
    "segment_sum": (lambda d: ops.segment_sum(d, _IDS), (_u(5, 2),)),
    "segment_max": (lambda d: ops.segment_max(d, _IDS, num_segments=3), (_u(5, 2),)),
    "segment_min": (lambda d: ops.segment_min(d, np.sort(_IDS), sorted=True), (_u(5, 2),)),
    "segment_prod": (lambda d: ops.segment_prod(d, _IDS), (_u(5, 2),)),
    "scatter": (lambda v: ops.scatter(np.array([[0, 1], [2, 0]]), v, (3, 2)), (_u(2),)),
    "scatter_update": (lambda x, u: ops.scatter_update(x, np.array([[0, 1], [2, 0]]), u),
                       (_u(3, 2), _u(2))),
    "scatter_update_mul": (
        lambda x, u: ops.scatter_update(x, np.array([[0, 1], [0, 1]]), u, reduction="mul"),
        (_u(3, 2), _u(2))),
    "slice": (lambda x: ops.slice(x, (1, 0), (2, 2)), (_u(3, 3),)),
    "slice_update": (lambda x, u: ops.slice_update(x, (1, 1), u), (_u(3, 4), _u(2, 2))),
    "unstack": (lambda x: tuple(ops.unstack(x, axis=1)), (_u(2, 3),)),
    "extract_sequences": (lambda x: ops.extract_sequences(x, 3, 2), (_u(2, 7),)),
    "fft": (lambda x, y: ops.fft((x, y)), (_u(2, 4), _u(2, 4))),
    "fft2": (lambda x, y: ops.fft2((x, y)), (_u(3, 4), _u(3, 4))),
    "ifft2": (lambda x, y: ops.ifft2((x, y)), (_u(3, 2), _u(3, 2))),
    "rfft": (lambda x: ops.rfft(x, fft_length=6), (_u(2, 5),)),
    "irfft": (lambda x, y: ops.irfft((x, y)), (_u(4), _u(4))),
    "stft": (lambda x: ops.stft(x, 4, 2, 4), (_u(10),)),
    "istft": (lambda x, y: ops.istft((x, y), 4, 2, 4), (_u(5, 3), _u(5, 3))),
    "rearrange": (lambda x: ops.rearrange(x, "a (b c) -> c a b", c=2), (_u(2, 4),)),
    "top_k": (lambda x: ops.top_k(x, 2), (_u(2, 4),)),
    "convert_to_tensor": (lambda x: ops.convert_to_tensor(x) * 2.0, (_u(3),)),
    "cast": (lambda x: ops.cast(x, "float64"), (_u(3),)),
    "cond": (lambda x: ops.cond(tf.reduce_sum(x) > 100.0, lambda: x * 2.0, lambda: x * x),
             (_u(3),)),
    "switch": (lambda x, y: ops.switch(1, [lambda a, b: a + b, lambda a, b: a * b], x, y),
               (_u(3), _u(3))),
    "while_loop": (lambda x: ops.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * v),
                                            (0, x))[1], (_u(3, lo=.5, hi=1.2),)),
    "fori_loop": (lambda x: ops.fori_loop(0, 3, lambda i, v: v * x, x), (_u(3),)),
    "scan": (lambda c, xs: ops.scan(lambda a, x: (a * x, a + x), c, xs), (_u(2), _u(4, 2))),
    "associative_scan": (lambda x: ops.associative_scan(lambda a, b: a * b, x), (_u(5, 2),)),
    "map": (lambda x: ops.map(lambda r: r * r, x), (_u(3, 2),)),
    "vectorized_map": (lambda x: ops.vectorized_map(lambda r: tf.reduce_sum(r * r), x),
                       (_u(3, 2),)),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_inside_tf_function_matches_eager(name):
    fn, arrays = GRADIENT_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_traced_gradient(fn, *arrays)


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_matches_finite_differences(name):
    fn, arrays = GRADIENT_CASES[name]
    kc.check_gradient(fn, *arrays)


def test_view_as_complex_gradient():
    # Keras's view_as_complex is complex64 whatever the input: checked at float32's precision
    kc.check_gradient(ops.view_as_complex, _u(3, 2), eps=1e-3, rtol=1e-3, atol=1e-4)


def test_every_differentiable_core_op_has_a_gradient_check():
    not_differentiable = {"dtype", "shape", "is_tensor", "convert_to_numpy", "in_top_k",
                          "saturate_cast", "view_as_real", "stop_gradient", "custom_gradient"}
    covered = {n for n in CORE_NAMES for c in GRADIENT_CASES if c.startswith(n)}
    covered.add("view_as_complex")  # test_view_as_complex_gradient
    assert set(CORE_NAMES) - not_differentiable <= covered


@pytest.mark.parametrize("case", kc.first_cases(CORE_NAMES, skip=NOT_TRACED),
                         ids=lambda c: c["id"])
def test_traced_matches_eager(case):
    kc.check_traced(case)


# traced with the first input's first axis unknown. Keras's TF backend refuses these too:
# fft's pair (and istft's) compares its parts' static shapes, unstack needs the length.
# tapeflow's own limits: tf.signal.frame (extract_sequences, stft) and tf.vectorized_map
# need the length while tracing.
UNKNOWN_BATCH_REFUSED = {"fft", "fft2", "ifft2", "irfft", "istft", "unstack",
                         "extract_sequences", "stft", "vectorized_map"}


@pytest.mark.parametrize("case", [c for c in kc.first_cases(CORE_NAMES, skip=NOT_TRACED)
                                  if c["op"] not in UNKNOWN_BATCH_REFUSED
                                  and any(isinstance(a, dict) and "nd" in a
                                          for a in c["args"][:1])],
                         ids=lambda c: c["id"])
def test_traced_with_unknown_batch_matches_eager(case):
    kc.check_traced(case, unknown_batch=True)


def test_stop_gradient_stops_it():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(ops.stop_gradient(x * 3.0) * x)
    np.testing.assert_allclose(np.asarray(tape.gradient(y, x)), [3.0, 6.0])


def test_custom_gradient_takes_keras_form():
    # Keras 3's documented form: grad(*args, upstream=None), called with the upstream
    # gradient positionally by the TensorFlow backend
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
        return ops.log(1 + e), grad

    x = tf.Variable([100.0, 0.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(log1pexp(x))
    np.testing.assert_allclose(np.asarray(tape.gradient(y, x)), [1.0, 0.5])


def test_shape_gives_tensors_for_dims_known_only_at_run_time():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        dims = ops.shape(x)
        seen.append(dims)
        return dims[0] * dims[1]
    assert int(f(tf.zeros((4, 3)))) == 12
    assert int(f(tf.zeros((5, 3)))) == 15
    assert tf.is_tensor(seen[0][0]) and seen[0][1] == 3
    assert ops.shape(np.zeros((2, 3))) == (2, 3)


def test_cond_and_while_loop_decide_at_run_time_inside_tf_function():
    @tf.function
    def f(x):
        y = ops.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        return ops.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 3.0, y)
    np.testing.assert_allclose(np.asarray(f(tf.constant([1.0, 2.0]))), [54.0, 108.0])
    np.testing.assert_allclose(np.asarray(f(tf.constant([-1.0, -2.0]))), [81.0, 162.0])


def test_scan_over_a_length_known_only_at_run_time():
    f = tf.function(lambda xs: ops.scan(lambda c, x: (c + x, c), tf.constant(0.0), xs),
                    input_signature=[tf.TensorSpec([None], tf.float32)])
    carry, ys = f(tf.constant([1.0, 2.0, 3.0]))
    assert float(carry) == 6.0
    np.testing.assert_allclose(np.asarray(ys), [0.0, 1.0, 3.0])
    carry, ys = f(tf.constant([5.0]))
    assert float(carry) == 5.0 and np.asarray(ys).shape == (1,)


@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_over_a_length_known_only_at_run_time(reverse):
    f = tf.function(lambda x: ops.associative_scan(lambda a, b: a * b, x, reverse=reverse,
                                                   axis=1),
                    input_signature=[tf.TensorSpec([2, None, 3], tf.float64)])
    for n in (1, 2, 5):
        data = _u(2, n, 3)
        np.testing.assert_allclose(np.asarray(f(tf.constant(data))),
                                   np.asarray(ops.associative_scan(lambda a, b: a * b, data,
                                                                   reverse=reverse, axis=1)),
                                   rtol=1e-12)


def test_convert_to_numpy_gives_an_ndarray_and_refuses_a_keras_tensor():
    out = ops.convert_to_numpy(tf.constant([[1, 2]]))
    assert type(out) is np.ndarray and out.dtype == np.int32
    with pytest.raises(ValueError, match="cannot convert it to a NumPy array"):
        ops.convert_to_numpy(keras.Input((3,)))


def test_keras_tensor_shape_dtype_and_nodes():
    x = keras.Input((3, 4))
    assert ops.shape(x) == (None, 3, 4) and ops.dtype(x) == "float32"
    assert not ops.is_tensor(x)
    model = keras.Model(x, ops.logsumexp(ops.erf(x), axis=-1))
    data = _u(2, 3, 4).astype("float32")
    np.testing.assert_allclose(np.asarray(model(data)),
                               np.asarray(ops.logsumexp(ops.erf(data), axis=-1)), rtol=1e-6)


def test_inputs_may_be_variables():
    v = tf.Variable([[3.0, 1.0, 2.0]])
    kv = keras.Variable(np.array([[3.0, 1.0, 2.0]], "float32"))
    for x in (v, kv):
        values, indices = ops.top_k(x, 2)
        np.testing.assert_allclose(np.asarray(values), [[3.0, 2.0]])
        np.testing.assert_array_equal(np.asarray(indices), [[0, 2]])


def test_sparse_and_variable_inputs_as_keras():
    # measured with Keras 3.15.1 / TF 2.21
    s = tf.sparse.from_dense(np.eye(3, dtype="float32"))
    assert ops.shape(s) == (3, 3) and ops.is_tensor(s)
    assert isinstance(ops.convert_to_tensor(s), tf.SparseTensor)
    dense = ops.convert_to_tensor(s, sparse=False)
    assert not isinstance(dense, tf.SparseTensor)
    np.testing.assert_array_equal(np.asarray(dense), np.eye(3))
    np.testing.assert_array_equal(ops.convert_to_numpy(s), np.eye(3))
    v = keras.Variable(np.ones((2, 3), "float32"))
    assert ops.is_tensor(v) and ops.dtype(v) == "float32" and ops.shape(v) == (2, 3)
    assert ops.convert_to_numpy(v).dtype == np.float32
