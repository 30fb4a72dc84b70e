"""GradientTape behaviour, point by point as TensorFlow 2.21 has it."""

import logging
import threading

import numpy as np
import pytest

import tapeflow as tf


def test_watch_constants_tensors_nested_and_variables():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None  # constants must be watched
    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([a, {"b": b}])
        y = a * b
    assert [float(g) for g in tape.gradient(y, [a, b])] == [2.0, 1.0]
    v = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0
    assert tape.watched_variables() == (v,)


def test_watched_variables_in_order_and_trainable_only():
    w, n, u = tf.Variable(1.0), tf.Variable(2.0, trainable=False), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = u * w + n
    assert tape.watched_variables() == (u, w)
    grads = tape.gradient(y, [w, n, u])
    assert float(grads[0]) == 3.0 and grads[1] is None and float(grads[2]) == 1.0


def test_watch_accessed_variables_false():
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None and tape.watched_variables() == ()


def test_stop_recording_and_reset():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        with tape.stop_recording():
            y = x * x
        z = x * 3.0
    assert tape.gradient(y, x) is None and float(tape.gradient(z, x)) == 3.0
    with tf.GradientTape() as tape:
        y = x * x
        tape.reset()
        z = x * 3.0
    assert float(tape.gradient(z, x)) == 3.0


def test_stop_recording_only_while_recording():
    tape = tf.GradientTape()
    with pytest.raises(ValueError, match="Tape must be recording"):
        with tape.stop_recording():
            pass


def test_nested_sources_keep_structure_and_targets_sum():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y1, y2 = a * b, b * c
    grads = tape.gradient([y1, {"k": y2}], {"first": a, "rest": (b, [c])})
    assert set(grads) == {"first", "rest"} and isinstance(grads["rest"], tuple)
    assert float(grads["first"]) == 2.0
    assert float(grads["rest"][0]) == 4.0 and float(grads["rest"][1][0]) == 2.0


def test_output_gradients():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    assert g.numpy().tolist() == [20.0, 400.0]


def test_unconnected_gradients():
    x, z = tf.Variable(1.0), tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
    assert tape.gradient(y, z) is None
    g = tape.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert g.numpy().tolist() == [0.0, 0.0] and g.dtype == tf.float32
    g = tape.gradient(y, z, unconnected_gradients="zero")
    assert g.numpy().tolist() == [0.0, 0.0]


def test_variables_created_inside_and_intermediates():
    with tf.GradientTape() as tape:
        v = tf.Variable(3.0)
        h = v * v
        y = h * 2.0
    assert [float(g) for g in tape.gradient(y, [v, h])] == [12.0, 2.0]


def test_non_persistent_second_call_raises_and_persistent_many():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to "
                                           "compute one set of gradients"):
        tape.gradient(y, x)
    with tf.GradientTape(persistent=True) as tape:
        y, z = x * x, x * x * x
    assert [float(tape.gradient(t, x)) for t in (y, z, y)] == [6.0, 27.0, 6.0]


def test_integer_source_gives_none_with_warning(caplog):
    x = tf.constant(3)
    with caplog.at_level(logging.WARNING):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        assert tape.gradient(y, x) is None
    assert "must be floating" in caplog.text


def test_broadcasting_is_undone():
    a, b = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), tf.Variable([1.0, 1.0, 1.0])
    s = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(a * b * s)
    ga, gb, gs = tape.gradient(y, [a, b, s])
    assert ga.shape == (2, 3) and gb.numpy().tolist() == [10.0, 14.0, 18.0]
    assert gs.shape == () and float(gs) == 21.0


def test_nested_tapes_second_and_third_derivatives():
    x = tf.Variable(2.0)
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (float(d1), float(d2), float(d3)) == (32.0, 48.0, 48.0)


def test_several_tapes_at_once():
    x = tf.Variable(3.0)
    with tf.GradientTape() as ta, tf.GradientTape() as tb:
        y = x * x
    assert float(ta.gradient(y, x)) == 6.0 and float(tb.gradient(y, x)) == 6.0


def test_jacobian_and_batch_jacobian():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
        m = tf.reshape(x, [1, 3]) * tf.ones([2, 1])
    j = tape.jacobian(y, x)
    np.testing.assert_array_equal(j.numpy(), np.diag([2.0, 4.0, 6.0]))
    assert tape.jacobian(m, x).shape == (2, 3, 3)
    xb = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(xb)
        yb = tf.concat([xb * xb, xb], axis=1)  # [3, 4]
    bj = tape.batch_jacobian(yb, xb)
    assert bj.shape == (3, 4, 2)
    np.testing.assert_array_equal(bj.numpy()[1], [[6.0, 0.0], [0.0, 8.0], [1.0, 0.0], [0.0, 1.0]])


def test_tapes_are_thread_local():
    x = tf.Variable(2.0)
    seen = {}

    def other():
        seen["y"] = x * x  # runs while the main thread's tape is recording

    with tf.GradientTape() as tape:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        x * 3.0  # recorded on this thread's tape, not on the other thread's
    assert tape.gradient(seen["y"], x) is None
    assert tape.watched_variables() == (x,)


def test_stop_gradient_and_identity():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.stop_gradient(x * x) * x
        z = tf.identity(x) * x
    assert float(tape.gradient(y, x)) == 4.0 and float(tape.gradient(z, x)) == 4.0


def test_targets_and_sources_that_are_no_tensors_raise_tensorflows_errors():
    # TF 2.21's classes and messages: its code reads `.dtype` of a number (AttributeError),
    # `._id` of a NumPy array, and takes a string or None for a dtype (TypeError).
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
    cases = [
        (lambda: tape.gradient(5.0, x), AttributeError, "'float' object has no attribute 'dtype'"),
        (lambda: tape.gradient([5, y], x), AttributeError, "'int' object has no attribute 'dtype'"),
        (lambda: tape.gradient(np.array([1.0]), x), AttributeError,
         "'numpy.ndarray' object has no attribute '_id'"),
        (lambda: tape.gradient("a", x), TypeError,
         "Cannot convert the argument `type_value`: 'a' to a TensorFlow DType."),
        (lambda: tape.gradient(None, x), TypeError,
         "Argument `target` should be a list or nested structure of Tensors, Variables or "
         "CompositeTensors to be differentiated, but received None."),
        (lambda: tape.gradient(y, 5.0), AttributeError, "'float' object has no attribute 'dtype'"),
        (lambda: tape.gradient(y, [x, "a"]), TypeError,
         "Cannot convert the argument `type_value`: 'a' to a TensorFlow DType."),
        (lambda: tape.gradient(y, None), TypeError,
         "Cannot convert the argument `type_value`: None to a TensorFlow DType."),
        (lambda: tape.gradient(y, np.array(1.0)), AttributeError,
         "'numpy.ndarray' object has no attribute '_id'"),
        (lambda: tape.jacobian(5.0, x), AttributeError, "'float' object has no attribute 'shape'"),
        (lambda: tape.jacobian("a", x), AttributeError, "'str' object has no attribute 'shape'"),
        (lambda: tape.jacobian(y, 5.0), AttributeError, "'float' object has no attribute 'dtype'"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == message
    assert tape.jacobian(np.array([1.0, 2.0]), x) is None  # TF: a constant reaches no source



def test_a_source_never_watched_has_no_gradient_even_where_it_fed_recorded_ops():
    # TF 2.21: only watched values (and values computed from them) are differentiated; a
    # constant that multiplies a variable gets None, also from jacobian, unless it is the target.
    v, z = tf.Variable(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = z * v * v
    dv, dz = tape.gradient(y, [v, z])
    assert dv.numpy() == 12.0 and dz is None
    assert "tape.watch" in tape.explain(z)
    assert tape.jacobian(y, [v, z])[1] is None
    assert tape.gradient(z, z).numpy() == 1.0
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        out = x * v
    # batch_jacobian gives zeros for an unconnected source, as TF does.
    np.testing.assert_array_equal(tape.batch_jacobian(out, x).numpy(), np.zeros((1, 2, 2)))
