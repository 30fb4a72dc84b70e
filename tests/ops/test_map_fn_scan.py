"""tf.map_fn, tf.scan, tf.foldl, tf.foldr: values, dtypes and errors as TF 2.21, eagerly and
inside tf.function, and gradients (first and second order) against the same computation
written without them."""

import numpy as np
import pytest

import tapeflow as tf

X = [[1., 2., 3.], [4., 5., 6.]]


def both(fn):
    """fn run eagerly and inside tf.function."""
    return [fn(), tf.function(fn)()]


def test_map_fn_values_and_dtypes():
    for r in both(lambda: tf.map_fn(lambda x: x * 2, tf.constant([1., 2., 3.]))):
        assert r.dtype == tf.float32 and r.numpy().tolist() == [2., 4., 6.]
    # TF 2.21's answer: an int64 NumPy elems keeps its dtype.
    r = tf.map_fn(lambda x: x * 2, np.array([1, 2, 3]))
    assert r.dtype == tf.int64 and r.numpy().tolist() == [2, 4, 6]
    r = tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]),
                  fn_output_signature=tf.float32)
    assert r.dtype == tf.float32
    a, b = tf.map_fn(lambda x: (x, tf.cast(x, tf.int32)), tf.constant([1., 2.]),
                     fn_output_signature=(tf.float32, tf.int32))
    assert b.dtype == tf.int32 and b.numpy().tolist() == [1, 2]
    d = tf.map_fn(lambda d: {"a": d["a"] + 1.}, {"a": tf.constant([1., 2.])})
    assert d["a"].numpy().tolist() == [2., 3.]


def test_map_fn_empty():
    # TF 2.21's answers: eagerly an empty map is (0,); traced, fn's traced shape is known.
    assert tf.map_fn(lambda x: x * 2, tf.zeros([0, 3])).shape == (0,)
    assert tf.function(lambda x: tf.map_fn(lambda r: r * 2, x))(tf.zeros([0, 3])).shape == (0, 3)


def test_map_fn_errors():
    # TF 2.21's errors.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="TensorArray dtype is int32 but Op is trying to write dtype float32"):
        tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="Got \\[\\], which does not contain any Tensors"):
        tf.map_fn(lambda x: x, [])
    with pytest.raises(ValueError, match="1\\+ dimensional Tensors, not scalars"):
        tf.map_fn(lambda x: x, tf.constant(1.))
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.map_fn(lambda t: t[0], (tf.zeros([2]), tf.zeros([3])))
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: (x, x * 2), tf.constant([1., 2.]))
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected "
                                         r"\(\(1,\)\)"):
        tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2, 3]))
    with pytest.raises(AttributeError):
        tf.map_fn(3, tf.constant([1.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32"):
        tf.function(lambda x: tf.map_fn(lambda r: tf.cast(r, tf.int32), x))(tf.ones([2]))


def test_scan_values():
    e = tf.constant([1., 2., 3., 4.])
    for r in both(lambda: tf.scan(lambda a, x: a + x, e)):
        assert r.numpy().tolist() == [1., 3., 6., 10.]
    for r in both(lambda: tf.scan(lambda a, x: a + x, e, reverse=True)):
        assert r.numpy().tolist() == [10., 9., 7., 4.]
    for r in both(lambda: tf.scan(lambda a, x: a + x, e, initializer=tf.constant(10.))):
        assert r.numpy().tolist() == [11., 13., 16., 20.]
    for sums, products in both(lambda: tf.scan(lambda a, x: (a[0] + x, a[1] * x), e[:3],
                                               initializer=(tf.constant(0.), tf.constant(1.)))):
        assert sums.numpy().tolist() == [1., 3., 6.]
        assert products.numpy().tolist() == [1., 2., 6.]
    r = tf.scan(lambda a, x: a + x, tf.constant([1, 2]), initializer=0)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [1, 3]   # TF 2.21's answer


def test_scan_errors():
    # TF 2.21's errors.
    with pytest.raises(tf.errors.OutOfRangeError, match="Tried to read from index 0"):
        tf.scan(lambda a, x: a + x, tf.constant([], tf.float32))
    with pytest.raises(ValueError, match="Cannot unstack 3 tensors into a TensorArray of static "
                                         "size 2"):
        tf.scan(lambda a, x: a, (tf.zeros([2]), tf.zeros([3])), initializer=tf.constant(0.))
    with pytest.raises(IndexError):
        tf.scan(lambda a, x: a + x, tf.constant(1.))
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32 but "
                                                            "Op is trying to write dtype int32"):
        tf.scan(lambda a, x: tf.cast(a, tf.int32), tf.constant([1., 2.]),
                initializer=tf.constant(0.))
    with pytest.raises(TypeError, match="enters the loop with type"):
        tf.function(lambda x: tf.scan(lambda a, r: tf.cast(a, tf.int32), x,
                                      initializer=tf.constant(0.)))(tf.ones([2]))


def test_folds():
    e = tf.constant([1., 2., 3.])
    for r in both(lambda: tf.foldl(lambda a, x: a - x, e, initializer=tf.constant(10.))):
        assert float(r) == 4.
    for r in both(lambda: tf.foldr(lambda a, x: a - x, e)):
        assert float(r) == 0.
    for r in both(lambda: tf.foldr(lambda a, x: a * 2 + x, e, initializer=tf.constant(0.))):
        assert float(r) == 17.
    a, b = tf.foldl(lambda a, x: (a[0] + x[0], a[1] + x[1]),
                    (tf.constant([1., 2.]), tf.constant([3, 4])))
    assert float(a) == 3. and b.dtype == tf.int32 and int(b) == 7
    # TF 2.21's answers: eagerly a fold checks neither dtype nor shape; traced it does.
    assert tf.foldl(lambda a, x: tf.cast(a, tf.int32), e, initializer=tf.constant(0.)).dtype \
        == tf.int32
    with pytest.raises(ValueError, match="enters the loop with shape \\(1,\\)"):
        tf.function(lambda x: tf.foldr(lambda a, r: tf.concat([a, [r]], 0), x,
                                       initializer=tf.constant([0.])))(tf.ones([2]))
    with pytest.raises(tf.errors.OutOfRangeError, match="negative indices \\(index -1\\)"):
        tf.foldr(lambda a, x: a + x, tf.constant([], tf.float32))


def test_unknown_leading_dim_traces_once():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        y = tf.map_fn(lambda r: r * 2. + 1., x)
        s = tf.scan(lambda a, r: a + r, x)
        z = tf.foldl(lambda a, r: a + r, x, initializer=tf.zeros([3]))
        return y, s, z
    g = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
    y, s, z = g.structured_outputs
    assert y.shape.as_list() == [None, 3] and s.shape.as_list() == [None, 3]
    assert z.shape.as_list() == [3]
    for n in (1, 2, 5):
        x = np.arange(3. * n, dtype=np.float32).reshape(n, 3)
        y, s, z = g(tf.constant(x))
        np.testing.assert_allclose(y.numpy(), x * 2 + 1)
        np.testing.assert_allclose(s.numpy(), np.cumsum(x, 0))
        np.testing.assert_allclose(z.numpy(), x.sum(0))
    # One Scan op per function, whatever n: fn's graph is not unrolled.
    ops = [n.op_name for n in g.graph.nodes]
    assert sum("Scan" in o for o in ops) == 3, ops


W0 = [0.5, -1., 2.]


def _with_loops(x, w):
    y = tf.map_fn(lambda r: tf.sin(r * w), x)
    s = tf.scan(lambda a, r: a * r + w, x)
    f = tf.foldr(lambda a, r: a * tf.cos(r) + w, x, initializer=tf.ones([3]))
    l = tf.foldl(lambda a, r: a * tf.sin(r) + w * a, x)
    return tf.reduce_sum(y) + tf.reduce_sum(s * s) + tf.reduce_sum(f) + tf.reduce_sum(l)


def _unrolled(x, w):
    y = tf.stack([tf.sin(r * w) for r in tf.unstack(x)])
    s = tf.stack([x[0], x[0] * x[1] + w])
    f = (tf.ones([3]) * tf.cos(x[1]) + w) * tf.cos(x[0]) + w
    l = x[0] * tf.sin(x[1]) + w * x[0]
    return tf.reduce_sum(y) + tf.reduce_sum(s * s) + tf.reduce_sum(f) + tf.reduce_sum(l)


def _grads(fn, x, w):
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            v = fn(x, w)
        gx, gw = inner.gradient(v, [x, w])
    hx, hw = outer.gradient(gx, [x, w])
    return [t.numpy() for t in (v, gx, gw, hx, hw)]


@pytest.mark.parametrize("mode", ["eager", "traced", "inside"])
def test_gradients_first_and_second_order(mode):
    x, w = tf.constant(X), tf.Variable(W0)
    expected = _grads(_unrolled, x, w)
    if mode == "eager":
        got = _grads(_with_loops, x, w)
    elif mode == "traced":   # a traced function called under tapes
        got = _grads(tf.function(_with_loops), x, w)
    else:                    # the tapes inside the traced function
        got = [t.numpy() for t in tf.function(lambda x: _grads_traced(x, w))(x)]
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def _grads_traced(x, w):
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            v = _with_loops(x, w)
        gx, gw = inner.gradient(v, [x, w])
    hx, hw = outer.gradient(gx, [x, w])
    return v, gx, gw, hx, hw


def test_map_fn_gradient_matches_tf():
    # TF 2.21's answer for d/dx, d/dw of sum(map_fn(sin(r * w), x)).
    x, w = tf.constant(X), tf.Variable(W0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.map_fn(lambda r: tf.sin(r * w), x)
    gx, gw = t.gradient(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), [[0.43879128, 0.41614684, 1.9203405],
                                            [-0.20807342, -0.2836622, 1.6877079]], rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), [-0.7870048, 0.5860173, 7.9436345], rtol=1e-5)
