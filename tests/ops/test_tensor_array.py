"""tf.TensorArray eagerly, traced, as a while_loop variable and cond output, and under tapes.

Expected values, messages and error classes are TF 2.21's answers (measured with
TF_CPP_MIN_LOG_LEVEL=3 in the reference venv)."""

import numpy as np
import pytest

import tapeflow as tf


def test_eager_write_mutates_and_reads_clear():
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.write(0, 1.0) is ta
    assert ta.element_shape == tf.TensorShape([]) and not ta.dynamic_size
    assert repr(ta.flow) == "<tf.Tensor: shape=(), dtype=int32, numpy=0>"
    ta.write(1, 2)        # a Python int converts to the array's dtype
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0, 0.0])
    assert ta.read(0).numpy() == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Could not read index 0 twice "
                       r"because it was cleared after a previous read \(perhaps try setting "
                       r"clear_after_read = false\?\)$"):
        ta.read(0)
    np.testing.assert_array_equal(ta.gather([1, 0]).numpy(), [2.0, 0.0])   # TF: [2., 0.]
    assert ta.size().numpy() == 3 and ta.size().dtype == tf.int32


def test_eager_errors():
    ta = tf.TensorArray(tf.float32, size=3)
    with pytest.raises(tf.errors.OutOfRangeError, match=r"^Tried to write to index 3 but array "
                       r"is not resizeable and size is: 3 $"):
        ta.write(3, 1.0)
    with pytest.raises(tf.errors.OutOfRangeError, match=r"Writing to negative indices \(index "
                                                        r"-1\) is not allowed\."):
        ta.write(-1, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^TensorArray dtype is float32 "
                       r"but Op is trying to write dtype int32 $"):
        ta.write(1, tf.constant(1))
    ta.write(0, 1.0)
    with pytest.raises(ValueError, match=r"^Incompatible shape for value \(\(2,\)\), expected "
                                         r"\(\(\)\)$"):
        ta.write(1, [1.0, 2.0])
    with pytest.raises(tf.errors.OutOfRangeError, match="Tried to read from index 5 but array "
                                                        "size is: 3 "):
        ta.read(5)
    with pytest.raises(ValueError, match="Size must be declared for TensorArrays when eager "
                                         "execution is enabled."):
        tf.TensorArray(tf.float32)
    with pytest.raises(ValueError, match="Cannot unstack 3 tensors into a TensorArray of "
                                         "static size 2 "):
        tf.TensorArray(tf.int32, size=2).unstack([1, 2, 3])
    with pytest.raises(ValueError, match="Cannot convert a partially known TensorShape "
                                         "<unknown> to a Tensor."):
        tf.TensorArray(tf.float32, size=2).stack()


def test_eager_dynamic_unstack_scatter_split_concat():
    tb = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    tb.write(4, [1.0, 2.0])
    assert tb.size().numpy() == 5
    np.testing.assert_array_equal(tb.stack().numpy(), [[0, 0]] * 4 + [[1, 2]])
    s = tf.TensorArray(tf.int32, size=4).scatter([3, 1], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(s.gather([1, 3]).numpy(), [[3, 4], [1, 2]])
    sp = tf.TensorArray(tf.float32, size=2, clear_after_read=False).split([1., 2., 3.], [1, 2])
    np.testing.assert_array_equal(sp.read(1).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(sp.concat().numpy(), [1.0, 2.0, 3.0])
    empty = tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack()
    assert empty.shape == (0, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Concat saw a scalar shape at "
                                                             "index 0 but requires at least "
                                                             "vectors."):
        tf.TensorArray(tf.float32, size=1).write(0, 1.0).concat()


def test_traced_straight_line_and_errors():
    @tf.function
    def f():
        ta = tf.TensorArray(tf.float32, size=3)
        assert ta.element_shape == tf.TensorShape(None)
        ta = ta.write(1, [1.0, 2.0])
        assert ta.element_shape == tf.TensorShape([2])
        return ta.stack(), ta.read(1) + ta.read(1), ta.concat(), ta.gather([1, 0])
    stack, twice, concat, gathered = f()
    np.testing.assert_array_equal(stack.numpy(), [[0, 0], [1, 2], [0, 0]])
    np.testing.assert_array_equal(twice.numpy(), [2.0, 4.0])   # no clear_after_read traced
    np.testing.assert_array_equal(concat.numpy(), [0, 0, 1, 2, 0, 0])
    np.testing.assert_array_equal(gathered.numpy(), [[1, 2], [0, 0]])
    write_at = tf.function(lambda i: tf.TensorArray(tf.float32, size=2).write(i, 1.0).stack())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to modify element 3 in a "
                                                             "list with 2 elements."):
        write_at(tf.constant(3))
    read_at = tf.function(lambda i: tf.TensorArray(tf.float32, size=2).write(0, 1.0).read(i))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to access element -1 in a "
                                                             "list with 2 elements."):
        read_at(tf.constant(-1))
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(2,\) but expected \(\)"):
        tf.function(lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0)
                    .write(1, [1.0, 2.0]).stack())()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid data types; op elements "
                                                             "int32 but list elements float"):
        tf.function(lambda: tf.TensorArray(tf.float32, size=2).write(0, tf.constant(1)).stack())()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to read an uninitialized "
                       "tensor but element_shape is not fully defined: <unknown> and no list "
                       "element is set."):
        tf.function(lambda: tf.TensorArray(tf.float32, size=2).read(0))()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Operation expected a list with 2 "
                                                             "elements but got a list with 3"):
        tf.function(lambda: tf.TensorArray(tf.float32, size=2).unstack([1., 2., 3.]).stack())()


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("element_shape", [None, [2]])
def test_while_loop_variable(dynamic, element_shape):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0 if dynamic else n, dynamic_size=dynamic,
                            element_shape=element_shape)
        _, ta = tf.while_loop(lambda i, ta: i < n,
                              lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * [1., 2.])),
                              (0, ta))
        assert ta.element_shape == tf.TensorShape([2])
        assert ta.stack().shape.as_list() == [None, 2]   # TF 2.21's static shape
        return ta.stack(), ta.size()
    for n in (3, 1):
        stack, size = f(tf.constant(n))
        np.testing.assert_array_equal(stack.numpy(), [[i, 2 * i] for i in range(n)])
        assert size.numpy() == n


def test_cond_output_shares_element_shape():
    @tf.function
    def f(p):
        ta = tf.TensorArray(tf.float32, size=2)
        return tf.cond(p, lambda: ta.write(0, 1.0), lambda: ta.write(1, 2.0)).stack()
    np.testing.assert_array_equal(f(tf.constant(True)).numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(f(tf.constant(False)).numpy(), [0.0, 2.0])
    # The first branch's write fixes the element shape the second must keep, as in TF.
    @tf.function
    def g(p):
        ta = tf.TensorArray(tf.float32, size=2)
        return tf.cond(p, lambda: ta.write(0, 1.0), lambda: ta.write(1, [2.0])).stack()
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(1,\) but expected \(\)"):
        g(tf.constant(True))


def _ops_loss(x):
    ta = tf.TensorArray(tf.float64, size=3, clear_after_read=False).unstack(x)
    ta = ta.write(1, tf.sin(ta.read(0)) * ta.read(2))
    sc = tf.TensorArray(tf.float64, size=3).scatter([2, 0], x[:2] * 3.0)
    sp = tf.TensorArray(tf.float64, size=3).split(tf.reshape(x, [-1]), [2, 2, 2])
    return (tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(ta.gather([2, 1]) * 0.5) +
            tf.reduce_sum(sc.stack() * ta.concat()[:2]) + tf.reduce_sum(sp.concat() ** 3))


def _ops_reference(x):
    rows = [x[0], tf.sin(x[0]) * x[2], x[2]]
    stacked = tf.stack(rows)
    sc = tf.stack([x[1] * 3.0, tf.zeros([2], tf.float64), x[0] * 3.0])
    return (tf.reduce_sum(stacked ** 2) + tf.reduce_sum(tf.stack([rows[2], rows[1]]) * 0.5) +
            tf.reduce_sum(sc * x[0]) + tf.reduce_sum(tf.reshape(x, [-1]) ** 3))


@pytest.mark.parametrize("traced", [False, True])
def test_gradients_through_array_ops(traced):
    x = tf.constant(np.arange(6.0).reshape(3, 2) / 7.0, tf.float64)
    f = tf.function(_ops_loss) if traced else _ops_loss
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        got, want = f(x), _ops_reference(x)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tape.gradient(got, x).numpy(), tape.gradient(want, x).numpy(),
                               rtol=1e-12)


def test_gradient_through_growing_write_traced():
    @tf.function
    def f(x, y):
        ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True).unstack(x).write(4, y * y)
        return tf.reduce_sum(ta.stack() * tf.reduce_sum(x))
    x, y = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64), tf.constant([0.5, -1.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        loss = f(x, y)
    gx, gy = tape.gradient(loss, [x, y])
    # loss = (sum(x) + sum(y*y)) * sum(x) = (10 + 1.25) * 10
    np.testing.assert_allclose(loss.numpy(), 112.5)
    np.testing.assert_allclose(gx.numpy(), np.full((2, 2), 10.0 + 11.25))
    np.testing.assert_allclose(gy.numpy(), [10.0, -20.0])


def _rnn(x, w, dynamic=False):
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float64, size=0 if dynamic else n, dynamic_size=dynamic)

    def body(i, s, ta):
        s = tf.tanh(tf.linalg.matvec(w, s) + x[i])
        return i + 1, s, ta.write(i, s)
    _, _, ta = tf.while_loop(lambda i, s, ta: i < n, body, (0, tf.zeros([3], tf.float64), ta))
    return tf.reduce_sum(ta.stack() ** 2)


def _rnn_unrolled(x, w):
    s, out = tf.zeros([3], tf.float64), []
    for i in range(x.shape[0]):
        s = tf.tanh(tf.linalg.matvec(w, s) + x[i])
        out.append(s)
    return tf.reduce_sum(tf.stack(out) ** 2)


@pytest.mark.parametrize("traced, dynamic", [(False, False), (True, False), (True, True)])
def test_rnn_pattern_gradient_matches_unrolled(traced, dynamic):
    # dynamic: the buffer grows each iteration; the loop's VJP replays each iteration at its
    # own size.
    x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3), tf.float64)
    w = tf.constant(np.linspace(-0.5, 0.5, 9).reshape(3, 3), tf.float64)
    def rnn(x, w):
        return _rnn(x, w, dynamic=dynamic)
    f = tf.function(rnn) if traced else rnn
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        got, want = f(x, w), _rnn_unrolled(x, w)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    for a, b in zip(tape.gradient(got, [x, w]), tape.gradient(want, [x, w])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


@pytest.mark.parametrize("traced", [False, True])
def test_second_order_through_write_and_stack(traced):
    def f(y):
        ta = tf.TensorArray(tf.float64, size=2).write(0, y * y).write(1, tf.sin(y))
        return tf.reduce_sum(ta.stack() * ta.stack())
    f = tf.function(f) if traced else f
    y = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(y)
        with tf.GradientTape() as inner:
            inner.watch(y)
            loss = f(y)
        g = inner.gradient(loss, y)
    # y**4 + sin(y)**2: 4y^3 + sin(2y), 12y^2 + 2cos(2y)
    np.testing.assert_allclose(g.numpy(), 4 * 0.7 ** 3 + np.sin(1.4), rtol=1e-12)
    np.testing.assert_allclose(outer.gradient(g, y).numpy(), 12 * 0.49 + 2 * np.cos(1.4),
                               rtol=1e-12)


def test_split_with_unequal_lengths_traced_is_refused():
    with pytest.raises(tf.errors.UnimplementedError, match="needs equal lengths"):
        tf.function(lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 2])
                    .concat())()
