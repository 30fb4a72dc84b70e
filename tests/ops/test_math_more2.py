"""tf.math's segment products, unsorted_segment_sqrt_n and confusion_matrix, and
tf.histogram_fixed_width_bins: values, dtypes, errors and gradients. Every expected number
here is TensorFlow 2.21's answer (float32 unless said)."""

import numpy as np
import pytest

import tapeflow as tf

T = tf.constant
D = [[1., 2], [3, 0], [5, 6], [7, 8]]


def eq(x, want):
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)


def test_segment_prod_values_and_empty_segments():
    eq(tf.math.segment_prod(T(D), [0, 0, 1, 3]), [[3, 0], [5, 6], [1, 1], [7, 8]])
    out = tf.math.segment_prod(T([2, 3, 4]), [0, 0, 2])
    assert out.dtype == tf.int32 and out.numpy().tolist() == [6, 1, 4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        tf.math.segment_prod(T(D), [0, 1, 0, 1])


def test_unsorted_segment_prod():
    eq(tf.math.unsorted_segment_prod(T(D), [0, 2, 0, -1], 3), [[5, 12], [1, 1], [3, 0]])
    c = tf.math.unsorted_segment_prod(T([1 + 2j, 3j]), [0, 0], 1)
    assert c.dtype == tf.complex128 and c.numpy().tolist() == [-6 + 3j]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"segment_ids\[3\] = 3 is out of range \[0, 3\)"):
        tf.math.unsorted_segment_prod(T(D), [0, 2, 0, 3], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.math.unsorted_segment_prod(T([True]), [0], 1)


def test_segment_prod_gradients_with_zeros():
    # One zero in a segment: it gets the product of the others; two zeros: nothing.
    x = T([[1., 2], [3, 0], [5, 6], [0, 0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1 = tf.math.segment_prod(x, [0, 0, 1, 1])
        y2 = tf.math.unsorted_segment_prod(x, [0, 1, 0, -1], 2)
    eq(tape.gradient(y1, x), [[3, 0], [1, 2], [0, 0], [5, 6]])
    eq(tape.gradient(y2, x), [[5, 6], [1, 1], [1, 2], [0, 0]])


def test_unsorted_segment_sqrt_n():
    eq(tf.math.unsorted_segment_sqrt_n(T(D), [0, 2, 0, -1], 3),
       [[4.242641, 5.656854], [0, 0], [3, 0]])
    h = tf.math.unsorted_segment_sqrt_n(T([1., 2], tf.float16), [0, 0], 1)
    assert h.dtype == tf.float16 and float(h[0]) == pytest.approx(2.121, abs=1e-3)
    d = tf.math.unsorted_segment_sqrt_n(T([1., 2], tf.float64), [0, 0], 2)
    assert d.dtype == tf.float64
    eq(d, [2.12132034, 0.])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32 .*\[Op:Sqrt\]"):
        tf.math.unsorted_segment_sqrt_n(T([1, 2]), [0, 0], 1)
    x = T([[1., 2], [3, 0], [5, 6], [0, 0.]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.unsorted_segment_sqrt_n(x, [0, 1, 0, -1], 3)
    eq(tape.gradient(y, x), [[0.70710677] * 2, [1, 1], [0.70710677] * 2, [0, 0]])


def test_confusion_matrix():
    cm = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])
    assert cm.dtype == tf.int32 and cm.shape == (5, 5)
    assert np.argwhere(cm.numpy()).tolist() == [[1, 2], [2, 2], [4, 4]]
    w = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=5, weights=[1., 2, 3],
                                 dtype=tf.float32)
    assert w.dtype == tf.float32 and (w[1, 2], w[2, 2], w[4, 4]) == (1, 2, 3)
    eq(tf.math.confusion_matrix([1., 2], [2., 2]), [[0, 0, 0], [0, 0, 1], [0, 0, 1]])
    eq(tf.math.confusion_matrix([1, 2], [2, 2], weights=[1, 2]), [[0, 0, 0], [0, 0, 1], [0, 0, 2]])
    eq(tf.math.confusion_matrix([[1, 2]], [[2, 2]]), [[0, 0, 0], [0, 0, 1], [0, 0, 1]])
    assert tf.math.confusion_matrix([1, 2], [2, 2], num_classes=T(4, tf.int64)).shape == (4, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative"):
        tf.math.confusion_matrix([-1, 2], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
        tf.math.confusion_matrix([1, 2], [2, 2], num_classes=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.math.confusion_matrix([1, 2], [2, 2, 1])


def test_confusion_matrix_traced_checks_when_run():
    f = tf.function(lambda lab, pred: tf.math.confusion_matrix(lab, pred, num_classes=3))
    eq(f(T([0, 2]), T([1, 2])), [[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
        f(T([0, 3]), T([1, 2]))


def test_histogram_fixed_width_bins():
    out = tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [0, 0, 1, 2, 4, 4]
    # TF ignores `dtype`; NaN casts to int32's lowest; a reversed range is not checked.
    assert tf.histogram_fixed_width_bins([1.], [0., 5.], 5, dtype=tf.int64).dtype == tf.int32
    assert tf.histogram_fixed_width_bins([[1., 3], [7, np.nan]], [0., 8], nbins=4).numpy(
    ).tolist() == [[0, 1], [3, -2147483648]]
    assert tf.histogram_fixed_width_bins([1., 3], [8., 0], nbins=3).numpy().tolist() == [2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="must > 0"):
        tf.histogram_fixed_width_bins([1., 3], [0., 8], nbins=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Mul\]"):
        tf.histogram_fixed_width_bins([1, 3, 7], [0, 8], nbins=4)
