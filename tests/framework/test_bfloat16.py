"""tf.bfloat16: the dtype, conversion, casts and printing (TF 2.21's answers, hard-coded), and
`import tapeflow` not importing ml_dtypes (its NumPy type's home, loaded on first use)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf

# ml_dtypes' bfloat16 is NumPy kind 'V': autodiff/backprop.py's live_nodes and
# carries_gradient test kinds 'fc' only, so the backward pass never reaches a bfloat16 value.

def test_import_tapeflow_does_not_import_ml_dtypes():
    code = ("import sys, tapeflow as tf; d = tf.bfloat16; assert d.is_floating; "
            "assert 'ml_dtypes' not in sys.modules; tf.constant(1.0, d); "
            "assert 'ml_dtypes' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dtype_properties_as_tf():
    d = tf.bfloat16
    assert (str(d), repr(d), d.name, d.size) == ("<dtype: 'bfloat16'>", "tf.bfloat16",
                                                 "bfloat16", 2)
    assert d.is_floating and not d.is_integer and not d.is_complex
    assert d.real_dtype is d and d.base_dtype is d
    assert d.as_numpy_dtype.__name__ == "bfloat16"  # ml_dtypes.bfloat16, as TF
    assert str(d.max) == "3.38953e+38" and str(d.min) == "-3.38953e+38"  # TF 2.21
    assert tf.as_dtype("bfloat16") is d and tf.dtypes.bfloat16 is d
    assert tf.as_dtype(np.dtype(d.as_numpy_dtype)) is d and tf.as_dtype(d.as_numpy_dtype) is d
    assert d == "bfloat16" and d != tf.float16
    assert pickle.loads(pickle.dumps(d)) is d


def test_constant_printing_and_numpy_as_tf():
    a = tf.constant(1.5, tf.bfloat16)
    assert repr(a) == "<tf.Tensor: shape=(), dtype=bfloat16, numpy=1.5>"
    assert str(a) == "tf.Tensor(1.5, shape=(), dtype=bfloat16)"
    assert type(a.numpy()).__name__ == "bfloat16"
    b = tf.constant([1.1, 2.2, 3.3], tf.bfloat16)
    assert b.dtype is tf.bfloat16
    assert repr(b) == ("<tf.Tensor: shape=(3,), dtype=bfloat16, numpy=array([1.10156, 2.20312, "
                       "3.29688], dtype=bfloat16)>")
    m = tf.constant(np.arange(12).reshape(3, 4) / 7, tf.bfloat16)
    assert str(m) == ("tf.Tensor(\n[[0 0.142578 0.285156 0.427734]\n [0.570312 0.714844 "
                      "0.855469 1]\n [1.14062 1.28906 1.42969 1.57031]], shape=(3, 4), "
                      "dtype=bfloat16)")
    assert b.numpy().dtype == np.dtype(tf.bfloat16.as_numpy_dtype)
    assert tf.constant(np.array([1, 2], b.numpy().dtype)).dtype is tf.bfloat16
    assert tf.constant([1.5, 2], dtype=tf.bfloat16).numpy().tolist() == [1.5, 2.0]
    v = tf.Variable(tf.constant([1.0, 2.0], tf.bfloat16))
    assert repr(v) == ("<tf.Variable 'Variable:0' shape=(2,) dtype=bfloat16, "
                       "numpy=array([1, 2], dtype=bfloat16)>")


def test_casts_round_to_nearest_even_as_tf():
    x = tf.cast(tf.constant([1.00390625, 1.01171875, 3.14159]), tf.bfloat16)
    assert x.numpy().astype(np.float32).tolist() == [1.0, 1.015625, 3.140625]  # TF 2.21
    assert tf.cast(tf.constant([1.1, 2.2, 3.3], tf.bfloat16), tf.float16).numpy().tolist() == \
        [np.float16(1.102), np.float16(2.203), np.float16(3.297)]
    assert tf.cast(tf.constant([1.1, 2.2, 3.3], tf.bfloat16), tf.int32).numpy().tolist() == \
        [1, 2, 3]
    assert tf.zeros([2], tf.bfloat16).dtype is tf.bfloat16
    assert tf.ones([2], "bfloat16").numpy().astype(np.float32).tolist() == [1.0, 1.0]


def test_mixing_dtypes_is_tf_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a bfloat16 tensor "
                       "but is a float tensor"):
        tf.constant([1.0], tf.bfloat16) + tf.constant(1.0)


def _f32(t):
    return t.numpy().astype(np.float32).tolist()


def test_arithmetic_as_tf():
    b = tf.constant([1.1, 2.2, 3.3], tf.bfloat16)
    assert _f32(b * b + b) == [2.3125, 7.0625, 14.1875]          # TF 2.21
    assert _f32(b + 1.5) == [2.59375, 3.703125, 4.8125]
    assert _f32(b / b) == [1.0, 1.0, 1.0]
    assert _f32(tf.exp(b)) == [3.015625, 9.0625, 27.0]


def test_reductions_accumulate_in_float32_as_tf():
    # TF's CPU reductions of bfloat16 sum in float32 and round once: NumPy's bfloat16 sum
    # of these 1000 values is 256 (each partial sum rounded), TF's 496.
    x = np.random.RandomState(0).rand(1000).astype(np.float32)
    xb = tf.constant(x, tf.bfloat16)
    assert float(tf.reduce_sum(xb).numpy()) == 496.0               # TF 2.21
    assert float(tf.reduce_mean(xb).numpy()) == 0.49609375
    assert float(tf.reduce_sum(tf.constant([1.1, 2.2, 3.3], tf.bfloat16)).numpy()) == 6.59375


def test_matmul_accumulates_in_float32_and_rounds_once_as_tf():
    a = np.random.RandomState(1).rand(64, 300).astype(np.float32)
    b = np.random.RandomState(2).rand(300, 32).astype(np.float32)
    bf = tf.bfloat16.as_numpy_dtype
    got = tf.matmul(tf.constant(a, tf.bfloat16), tf.constant(b, tf.bfloat16))
    # TF 2.21 equals this exactly (checked on all 2048 entries)
    want = (a.astype(bf).astype(np.float32) @ b.astype(bf).astype(np.float32)).astype(bf)
    assert got.dtype is tf.bfloat16
    np.testing.assert_array_equal(got.numpy(), want)


def test_gradient_as_tf():
    b = tf.constant([1.1, 2.2, 3.3], tf.bfloat16)
    with tf.GradientTape() as tape:
        tape.watch(b)
        y = tf.reduce_sum(b * b)
    g = tape.gradient(y, b)
    assert g.dtype is tf.bfloat16 and _f32(g) == [2.203125, 4.40625, 6.59375]  # TF 2.21


def test_reductions_over_axes_and_log_sum_exp_as_tf():
    x = np.random.RandomState(0).rand(1000).astype(np.float32)
    m = tf.reshape(tf.constant(x, tf.bfloat16), [250, 4])
    assert _f32(tf.reduce_sum(m, axis=0)) == [125.5, 122.0, 126.0, 122.5]          # TF 2.21
    assert _f32(tf.reduce_mean(m, axis=0)) == [0.5, 0.48828125, 0.50390625, 0.490234375]
    assert float(tf.reduce_logsumexp(tf.reshape(m, [-1])).numpy()) == 7.4375


def test_traced_sum_accumulates_in_float32_as_tf():
    x = tf.constant(np.random.RandomState(0).rand(1000).astype(np.float32), tf.bfloat16)
    total = tf.function(lambda v: tf.reduce_sum(v))
    for _ in range(3):  # traced, then the compiled program's lowered sum
        assert float(total(x).numpy()) == 496.0                                    # TF 2.21


def _rounded_once(value):
    return value.astype(tf.bfloat16.as_numpy_dtype)


def _bf16_as_f32(value):
    return _rounded_once(value).astype(np.float32)


def test_batched_matmul_and_conv2d_round_once_as_tf():
    # TF 2.21 equals these exactly (3x20x30 @ 3x30x5, and a 3x3 VALID conv of 2x8x8x3)
    rs = np.random.RandomState(3)
    a, b = rs.rand(3, 20, 30).astype(np.float32), rs.rand(3, 30, 5).astype(np.float32)
    got = tf.matmul(tf.constant(a, tf.bfloat16), tf.constant(b, tf.bfloat16))
    assert got.dtype is tf.bfloat16
    np.testing.assert_array_equal(got.numpy(), _rounded_once(_bf16_as_f32(a) @ _bf16_as_f32(b)))
    img, k = rs.rand(2, 8, 8, 3).astype(np.float32), rs.rand(3, 3, 3, 4).astype(np.float32)
    got = tf.nn.conv2d(tf.constant(img, tf.bfloat16), tf.constant(k, tf.bfloat16), 1, "VALID")
    want = tf.nn.conv2d(_bf16_as_f32(img), _bf16_as_f32(k), 1, "VALID").numpy()
    assert got.dtype is tf.bfloat16
    np.testing.assert_array_equal(got.numpy(), _rounded_once(want))


def test_division_and_elementwise_as_tf():
    b = tf.constant([1.0, 2.0, 3.0], tf.bfloat16)
    assert _f32(b / 3.0) == [0.333984375, 0.66796875, 1.0]                           # TF 2.21
    assert _f32(tf.divide(b, b)) == [1.0, 1.0, 1.0]
    assert _f32(tf.math.log(b)) == [0.0, 0.69140625, 1.1015625]
    assert _f32(tf.tanh(b)) == [0.76171875, 0.96484375, 0.99609375]
    assert _f32(tf.nn.relu(-b)) == [0.0, 0.0, 0.0]


def test_sigmoid_and_softmax_round_as_tensorflow():
    # TF 2.21's bfloat16 answers: sigmoid as e / (1 + e) in bfloat16 steps (1 where exp
    # overflows, 0 below the smallest normal), softmax in float32 rounded once.
    x = tf.constant([-90, -9.5, -1.25, 0.3, 2.75, 8.5, 90], tf.bfloat16)
    assert [float(v) for v in tf.sigmoid(x).numpy()] == [
        0.0, 7.486343383789062e-05, 0.22265625, 0.578125, 0.94140625, 1.0, 1.0]
    y = tf.constant([[1.5, -2.25, 0.75, 3.0, 0.1, -0.7]], tf.bfloat16)
    assert [float(v) for v in tf.nn.softmax(y).numpy()[0]] == [
        0.158203125, 0.0037078857421875, 0.07470703125, 0.70703125, 0.038818359375,
        0.0174560546875]
    assert float(tf.sigmoid(tf.constant(0.5, tf.bfloat16))) == 0.62109375   # a scalar too
