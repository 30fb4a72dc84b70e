"""Stateless random ops and the Philox generator under them draw TensorFlow's numbers:
compared with TensorFlow 2.21's, recorded by tools/record_random_fixtures.py.

Every number is bit-exact, float32 normals included: TensorFlow's Box-Muller calls glibc's
float32 log, sin and cos, which tapeflow reproduces (ops/libm.py).
"""

import ctypes
import ctypes.util
import hashlib
import json
import pathlib
import platform

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import philox

RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                       "stateless_random.json").read_text())
FIXTURE = RECORDED["cases"]
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _expected(case):
    dtype = np.dtype(case["dtype"])
    raw = np.array(case["values"], dtype=_BITS[dtype.itemsize] if dtype.kind == "f" else dtype)
    return (raw.view(dtype) if dtype.kind == "f" else raw).reshape(case["shape"])


def _label(case):
    return "-".join(str(case.get(k)) for k in ("op", "seed", "shape", "dtype", "maxval"))


@pytest.mark.parametrize("case", [c for c in FIXTURE if c["op"] == "philox"],
                         ids=lambda c: f"key{c['key']}-counter{c['counter']}")
def test_philox_words_for_a_key_and_counter(case):
    key, (c0, c1) = case["key"], case["counter"]
    words = philox.draws((key & 0xFFFFFFFF, key >> 32),
                         (c0 & 0xFFFFFFFF, c0 >> 32, c1 & 0xFFFFFFFF, c1 >> 32), 3)
    assert words.reshape(-1)[:10].tolist() == case["values"]


@pytest.mark.parametrize("case", [c for c in FIXTURE if c["op"] != "philox"], ids=_label)
def test_stateless_ops_draw_tensorflows_numbers(case):
    if case["op"] in ("uniform", "normal"):
        fn = tf.random.stateless_uniform if case["op"] == "uniform" else \
            tf.random.stateless_normal
        got = fn(case["shape"], seed=case["seed"], dtype=case["dtype"]).numpy()
    else:
        bounds = (case["minval"], case["maxval"]) if case["op"] == "uniform_int" else \
            (None, None)
        got = tf.random.stateless_uniform(case["shape"], seed=case["seed"], minval=bounds[0],
                                          maxval=bounds[1], dtype=case["dtype"]).numpy()
    want = _expected(case)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(_BITS[got.itemsize]) if got.dtype.kind == "f" else got,
                                  want.view(_BITS[want.itemsize]) if want.dtype.kind == "f"
                                  else want)


@pytest.mark.parametrize("case", RECORDED["digests"], ids=_label)
def test_large_draws_are_bit_for_bit_tensorflows(case):
    fn = tf.random.stateless_normal if case["op"] == "normal" else \
        tf.random.stateless_truncated_normal
    got = fn(case["shape"], seed=case["seed"], dtype=case["dtype"]).numpy()
    assert hashlib.sha256(got.tobytes()).hexdigest() == case["sha256"]


def _glibc_math():
    name = ctypes.util.find_library("m")
    if platform.libc_ver()[0] != "glibc" or platform.machine() != "x86_64" or not name:
        return None
    libm = ctypes.CDLL(name)
    for fn in ("logf", "sinf", "cosf"):
        getattr(libm, fn).restype, getattr(libm, fn).argtypes = ctypes.c_float, [ctypes.c_float]
    return libm


@pytest.mark.skipif(_glibc_math() is None, reason="compares with glibc's libm on x86-64")
def test_float32_log_sin_cos_are_glibcs():
    from tapeflow.ops import libm
    glibc = _glibc_math()
    # The inputs Box-Muller gives them: every 41st of the 2**23 uniform floats.
    u = philox.uint32_to_float(np.arange(0, 1 << 23, 41, dtype=np.uint32))
    u1 = np.maximum(u, np.float32(1e-7))
    angle = (2.0 * np.pi * u.astype(np.float64)).astype(np.float32)
    sin, cos = libm.sincosf(angle)
    for got, fn, x in [(libm.logf(u1), glibc.logf, u1), (sin, glibc.sinf, angle),
                       (cos, glibc.cosf, angle)]:
        want = np.array([fn(v) for v in x.tolist()], np.float32)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_the_same_seed_inside_tf_function_draws_the_same_numbers():
    draw = tf.function(lambda seed: tf.random.stateless_uniform([5], seed=seed))
    eager = tf.random.stateless_uniform([5], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(draw(tf.constant([1, 2])).numpy(), eager)
    # One trace serves every seed: the seed is read when the graph runs.
    assert not np.array_equal(draw(tf.constant([1, 3])).numpy(), eager)
    assert draw.experimental_get_tracing_count() == 1


def test_bounds_scale_the_draw_and_receive_gradients():
    # TF 2.21's answers.
    np.testing.assert_allclose(
        tf.random.stateless_uniform([3], seed=[1, 2], minval=-2.0, maxval=3.0).numpy(),
        [2.220302104949951, -1.0397733449935913, 2.98111629486084], rtol=1e-7)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.random.stateless_normal([3], seed=[1, 2], mean=x, stddev=x))
    np.testing.assert_allclose(float(tape.gradient(y, x)), 3.82505464553833, rtol=1e-6)


def test_errors_as_tensorflow():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], "
                                                             r"not \[3\]"):
        tf.random.stateless_normal([3], seed=[3, 4, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tseed' of float"):
        tf.random.stateless_uniform([3], seed=[1.5, 2.0])
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([4], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        tf.random.stateless_uniform([3], seed=[1, 2], dtype=tf.int8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
        tf.random.stateless_uniform([3], seed=[1, 2], minval=5, maxval=5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.random.stateless_normal([-1], seed=[1, 2])
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        tf.random.stateless_normal([3], seed=[1, 2], dtype=tf.int32)


def test_seed_split_and_fold_in():
    # TF 2.21's answers.
    assert tf.random.experimental.stateless_split([1, 2], num=3).numpy().tolist() == [
        [1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]
    assert tf.random.experimental.stateless_fold_in([1, 2], 7).numpy().tolist() == \
        [1105988140, 7]
    assert tf.random.split(tf.constant([1, 2], tf.int64)).numpy().tolist() == [
        [7464880146280614444, 1591045637757961278],
        [-1057468755545501549, 2524363516007002203]]


def test_algorithm_argument_as_tensorflow():
    # TF 2.21's answers: ThreeFry does not fit the CPU kernels; an unknown name is refused.
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([2], seed=[1, 2], alg="philox").numpy(),
        tf.random.stateless_uniform([2], seed=[1, 2]).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="counter must be a vector with "
                                                             "length at least 2"):
        tf.random.stateless_normal([2], seed=[1, 2], alg="threefry")
    with pytest.raises(ValueError, match="Supported values are philox for the Philox"):
        tf.random.stateless_normal([2], seed=[1, 2], alg="bogus")
