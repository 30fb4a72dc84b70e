"""The Tensor protocol: shapes, NumPy interop, Python conversions, operators, indexing,
hashing and printing, with strings checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.errors import InvalidArgumentError

X = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_shape_api():
    t = tf.zeros([2, 3])
    assert repr(t.shape) == "TensorShape([2, 3])" and str(t.shape) == "(2, 3)"
    assert t.shape.as_list() == [2, 3] and t.shape.rank == 2 and len(t.shape) == 2
    assert t.shape[1] == 3 and repr(tf.zeros([2, 3, 4]).shape[1:]) == "TensorShape([3, 4])"
    assert t.shape == [2, 3] and t.shape == (2, 3) and t.shape.num_elements() == 6
    assert t.ndim == 2 and t.get_shape() == t.shape


def test_tensorshape_partial():
    s = tf.TensorShape([None, 3])
    assert repr(s) == "TensorShape([None, 3])" and str(s) == "(None, 3)"
    assert s.is_compatible_with([5, 3]) and not s.is_fully_defined()
    assert repr(tf.TensorShape([1]).concatenate([2, 3])) == "TensorShape([1, 2, 3])"
    assert repr(tf.TensorShape([])) == "TensorShape([])"
    assert repr(tf.TensorShape(None)) == "TensorShape(None)"


def test_numpy_interop():
    t = tf.constant([1.0, 2.0])
    value = t.numpy()
    assert isinstance(value, np.ndarray) and value.dtype == np.float32
    value[0] = 9.0  # a copy: the tensor is immutable
    assert t.numpy()[0] == 1.0
    assert isinstance(tf.constant(1.0).numpy(), np.float32)
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])
    assert np.sum(t) == 3.0
    np.testing.assert_allclose(np.exp(tf.constant([0.0, 1.0])), [1.0, np.e], rtol=1e-6)


def test_len_and_iteration():
    assert len(tf.zeros([4, 2])) == 4
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1.0))
    rows = [str(r) for r in tf.constant([[1, 2], [3, 4]])]
    assert rows == ["tf.Tensor([1 2], shape=(2,), dtype=int32)",
                    "tf.Tensor([3 4], shape=(2,), dtype=int32)"]
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        list(tf.constant(1.0))


def test_iter_of_a_scalar_raises_at_once():
    # TF's __iter__ is no generator: iter() itself raises for a scalar (TF 2.21), which
    # np.iterable and matplotlib's reshaping of hist() data rely on.
    for scalar in (tf.constant(1.0), tf.Variable(1.0)):
        with pytest.raises(TypeError, match="^Cannot iterate over a scalar tensor.$"):
            iter(scalar)
        assert not np.iterable(scalar)
    assert np.iterable(tf.constant([1.0])) and np.iterable(tf.Variable([1.0]))
    assert [float(v) for v in tf.Variable([1.0, 2.0])] == [1.0, 2.0]


def _datasets_as_matplotlib_hist_sees_them(x):
    """What matplotlib's cbook._reshape_2D does with hist() data: a sequence whose first
    element is not iterable is one dataset, else each element is one."""
    try:
        iter(x[0])
    except TypeError:
        return [x]
    return [xi for xi in x]


def test_a_vector_is_one_histogram_dataset():
    x = tf.range(50.0)
    assert len(_datasets_as_matplotlib_hist_sees_them(x)) == 1
    assert len(_datasets_as_matplotlib_hist_sees_them(tf.zeros([3, 5]))) == 3


def test_python_conversions():
    assert bool(tf.constant(1.0)) is True and bool(tf.constant(0)) is False
    with pytest.raises(ValueError, match="truth value of an array with more than one"):
        bool(tf.constant([1.0, 2.0]))
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(2.7)) == 2
    assert [10, 20, 30][tf.constant(1)] == 20
    assert f"{tf.constant(2.5):.3f}" == "2.500" and f"{tf.constant(2.5)}" == "2.5"
    assert f"{tf.constant([2.5])}" == "[2.5]" and f"{tf.constant(7):04d}" == "0007"


def test_unhashable_and_ref():
    with pytest.raises(TypeError, match="Tensor is unhashable. Instead, use tensor.ref()"):
        hash(tf.constant(1.0))
    a, b = tf.constant(1.0), tf.constant(1.0)
    table = {a.ref(): 1, b.ref(): 2}
    assert len(table) == 2 and table[a.ref()] == 1 and a.ref().deref() is a


def _np(t):
    return np.asarray(t).tolist()


@pytest.mark.parametrize("op, expected", [
    (lambda x: x + 1, [[2, 3, 4], [5, 6, 7]]), (lambda x: 1 + x, [[2, 3, 4], [5, 6, 7]]),
    (lambda x: x - 1, [[0, 1, 2], [3, 4, 5]]), (lambda x: 1 - x, [[0, -1, -2], [-3, -4, -5]]),
    (lambda x: x * 2, [[2, 4, 6], [8, 10, 12]]), (lambda x: 2 * x, [[2, 4, 6], [8, 10, 12]]),
    (lambda x: x / 2, [[0.5, 1, 1.5], [2, 2.5, 3]]), (lambda x: 6 / x, [[6, 3, 2], [1.5, 1.2, 1]]),
    (lambda x: x // 2, [[0, 1, 1], [2, 2, 3]]), (lambda x: 7 // x, [[7, 3, 2], [1, 1, 1]]),
    (lambda x: x % 4, [[1, 2, 3], [0, 1, 2]]), (lambda x: 7 % x, [[0, 1, 1], [3, 2, 1]]),
    (lambda x: x ** 2, [[1, 4, 9], [16, 25, 36]]), (lambda x: 2 ** x, [[2, 4, 8], [16, 32, 64]]),
    (lambda x: -x, [[-1, -2, -3], [-4, -5, -6]]), (lambda x: abs(-x), X),
    (lambda x: x @ tf.transpose(x), [[14, 32], [32, 77]]),
    (lambda x: x < 3, [[True, True, False], [False] * 3]),
    (lambda x: x <= 3, [[True, True, True], [False] * 3]),
    (lambda x: x > 3, [[False] * 3, [True] * 3]), (lambda x: x >= 4, [[False] * 3, [True] * 3]),
    (lambda x: x == 2, [[False, True, False], [False] * 3]),
    (lambda x: x != 2, [[True, False, True], [True] * 3]),
])
def test_operators(op, expected):
    np.testing.assert_allclose(_np(op(tf.constant(X))), expected, rtol=1e-6)


def test_logical_and_bitwise_operators():
    t, f = tf.constant([True, False]), tf.constant([True, True])
    assert _np(t & f) == [True, False] and _np(t | False) == [True, False]
    assert _np(t ^ True) == [False, True] and _np(~t) == [False, True]
    assert _np(tf.constant([6, 3]) & 5) == [4, 1] and _np(~tf.constant([6, 3])) == [-7, -4]
    assert (tf.constant([1, 2]) == None) is False  # noqa: E711 - TF's behaviour


def test_rmatmul_with_numpy():
    out = np.ones((2, 2)) @ tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(out, tf.Tensor) and _np(out) == [[4.0, 6.0], [4.0, 6.0]]


@pytest.mark.parametrize("index, expected", [
    (lambda x: x[1], [4, 5, 6]), (lambda x: x[-1, -1], 6), (lambda x: x[:, 1:], [[2, 3], [5, 6]]),
    (lambda x: x[:, ::2], [[1, 3], [4, 6]]), (lambda x: x[::-1, ::-2], [[6, 4], [3, 1]]),
    (lambda x: x[..., 0], [1, 4]), (lambda x: x[tf.constant(1)], [4, 5, 6]),
])
def test_indexing(index, expected):
    assert _np(index(tf.constant(X))) == expected


def test_newaxis_and_out_of_range_index():
    x = tf.constant(X)
    assert x[tf.newaxis, :, None].shape == (1, 2, 1, 3)
    with pytest.raises(InvalidArgumentError,
                       match=r"slice index 5 of dimension 0 out of bounds. \[Op:StridedSlice\]"):
        x[5]


@pytest.mark.parametrize("make, text", [
    (lambda: str(tf.constant(1.5)), "tf.Tensor(1.5, shape=(), dtype=float32)"),
    (lambda: repr(tf.constant(1.5)), "<tf.Tensor: shape=(), dtype=float32, numpy=1.5>"),
    (lambda: str(tf.constant([1.0, 2.0, 3.0])), "tf.Tensor([1. 2. 3.], shape=(3,), dtype=float32)"),
    (lambda: repr(tf.constant([1.0, 2.0, 3.0])),
     "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 2., 3.], dtype=float32)>"),
    (lambda: str(tf.constant([[1.0, 2.0], [3.0, 4.5]])),
     "tf.Tensor(\n[[1.  2. ]\n [3.  4.5]], shape=(2, 2), dtype=float32)"),
    (lambda: repr(tf.constant([[1.0, 2.0], [3.0, 4.5]])),
     "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1. , 2. ],\n       [3. , 4.5]], "
     "dtype=float32)>"),
    (lambda: str(tf.zeros([2, 1, 2])),
     "tf.Tensor(\n[[[0. 0.]]\n\n [[0. 0.]]], shape=(2, 1, 2), dtype=float32)"),
    (lambda: str(tf.constant([1, 2, 3])), "tf.Tensor([1 2 3], shape=(3,), dtype=int32)"),
    (lambda: repr(tf.constant(7)), "<tf.Tensor: shape=(), dtype=int32, numpy=7>"),
    (lambda: str(tf.constant([True, False])), "tf.Tensor([ True False], shape=(2,), dtype=bool)"),
    (lambda: repr(tf.constant(True)), "<tf.Tensor: shape=(), dtype=bool, numpy=True>"),
    (lambda: str(tf.constant([1.0, 2.5], tf.float64)),
     "tf.Tensor([1.  2.5], shape=(2,), dtype=float64)"),
    (lambda: str(tf.constant(0.1)), "tf.Tensor(0.1, shape=(), dtype=float32)"),
    (lambda: str(tf.constant([1 / 3, 2 / 3])),
     "tf.Tensor([0.33333334 0.6666667 ], shape=(2,), dtype=float32)"),
    (lambda: str(tf.constant(np.arange(2000, dtype=np.int32))),
     "tf.Tensor([   0    1    2 ... 1997 1998 1999], shape=(2000,), dtype=int32)"),
    (lambda: str(tf.zeros([0])), "tf.Tensor([], shape=(0,), dtype=float32)"),
    (lambda: str(tf.zeros([2, 0])), "tf.Tensor([], shape=(2, 0), dtype=float32)"),
])
def test_printing(make, text):
    assert make() == text
