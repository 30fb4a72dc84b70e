"""tf.gradients and tf.hessians inside tf.function, against TF 2.21's answers (each expected
value below was checked in TF 2.21): ys/xs lists, grad_ys, stop_gradients,
unconnected_gradients, IndexedSlices, variables, second orders, and TF's errors."""

import numpy as np
import pytest

import tapeflow as tf

X = tf.constant([1.0, 2.0, 3.0])


def run(body, *args):
    return tf.function(body)(*(args or (X,)))


def values(grads):
    return [None if g is None else g.numpy().tolist() for g in grads]


def test_eagerly_both_raise_tf_runtime_error():
    text = ("tf.gradients is not supported when eager execution is enabled. Use "
            "tf.GradientTape instead.")
    with pytest.raises(RuntimeError, match=text):
        tf.gradients(X * 2.0, X)
    with pytest.raises(RuntimeError, match=text):
        tf.hessians(X * 2.0, X)


def test_gradient_of_the_sum_of_ys_for_each_x():
    assert values(run(lambda x: tf.gradients(tf.reduce_sum(x ** 3), x))) == [[3, 12, 27]]
    grads = run(lambda x: tf.gradients([tf.reduce_sum(x * 2.0), tf.sin(x)], [x, x * 2.0]))
    # TF: [2.5403023, 1.5838531, 1.0100075] (cos + 2) and None for a fresh x * 2.0.
    np.testing.assert_allclose(grads[0].numpy(), [2.5403023, 1.5838531, 1.0100075], rtol=1e-6)
    assert grads[1] is None
    grads = run(lambda x: tf.gradients([x * 2.0, x * 2.0], [x, x]))
    assert values(grads) == [[4, 4, 4], [4, 4, 4]]


def test_an_intermediate_x_and_itself():
    def body(x):
        a = x * 2.0
        return tf.gradients([tf.reduce_sum(a), tf.sin(x)], [x, a]) + tf.gradients(x, x)
    assert values(run(body))[1:] == [[1, 1, 1], [1, 1, 1]]


def test_grad_ys():
    grads = run(lambda x: tf.gradients(x * x, x, grad_ys=tf.constant([1.0, 0.0, 2.0])))
    assert values(grads) == [[2, 0, 12]]
    grads = run(lambda x: tf.gradients([x * x, x * 3.0], x,
                                       grad_ys=[None, tf.constant([1.0, 0.0, 2.0])]))
    assert values(grads) == [[5, 4, 12]]


def test_grad_ys_errors():
    with pytest.raises(ValueError, match="Length mismatch. Passed 1 grad_ys for 2 ys"):
        run(lambda x: tf.gradients([x, x], x, grad_ys=[x]))
    with pytest.raises(TypeError):  # TF: TypeError (an int32 cotangent for a float32 y)
        run(lambda x: tf.gradients(x * x, x, grad_ys=tf.constant([1, 2, 3])))


def test_unconnected_gradients():
    z = tf.constant([5.0, 5.0, 5.0])
    assert values(run(lambda x: tf.gradients(x * 2.0, [x, z]))) == [[2, 2, 2], None]
    for mode in (tf.UnconnectedGradients.ZERO, "zero"):
        grads = run(lambda x, m=mode: tf.gradients(x * 2.0, [x, z], unconnected_gradients=m))
        assert values(grads) == [[2, 2, 2], [0, 0, 0]]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'bad'"):
        run(lambda x: tf.gradients(x * x, x, unconnected_gradients="bad"))


def test_integer_xs_and_ys_have_none():
    i = tf.constant([1, 2, 3])
    assert values(run(lambda x: tf.gradients(tf.cast(i, tf.float32) * x, [x, i]))) == \
        [[1, 2, 3], None]
    assert run(lambda x: tf.gradients(tf.cast(x, tf.int32) * 2, x)) == [None]


def test_stop_gradients_stop_the_ops_making_them():
    def stop(x):
        a = x * 2.0
        return tf.gradients(a * a + a, [x, a], stop_gradients=[a])
    assert values(run(stop)) == [None, [5, 9, 13]]

    def doc_example(x):  # TF's docstring: both are constants, each gradient is 1
        a = tf.constant(0.)
        b = 2 * a
        return tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    assert values(run(doc_example)) == [1.0, 1.0]

    def stopped_y(x):
        a = x * 2.0
        return tf.gradients(a, [x, a], stop_gradients=[a])
    assert values(run(stopped_y)) == [None, [1, 1, 1]]
    assert values(run(lambda x: tf.gradients(tf.stop_gradient(x) * x, x))) == [[1, 2, 3]]


def test_gathers_give_indexed_slices_as_tf():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    def body(x):
        g = tf.gradients(tf.reduce_sum(tf.gather(v, [1, 1, 0]) * 2.0), [v])[0]
        k = tf.gradients(tf.reduce_sum(tf.gather(x, [2, 0]) * 3.0), x)[0]
        h = tf.gradients(tf.reduce_sum(tf.gather(x, [2, 0]) * x[1]), x)[0]  # dense: two paths
        assert isinstance(g, tf.IndexedSlices) and isinstance(k, tf.IndexedSlices)
        assert not isinstance(h, tf.IndexedSlices)
        return g.values, g.indices, g.dense_shape, k.values, k.indices, k.dense_shape, h

    out = [t.numpy().tolist() for t in run(body)]
    assert out == [[[2, 2]] * 3, [1, 1, 0], [2, 2], [3, 3], [2, 0], [3], [2, 4, 2]]
    dense = tf.function(lambda: tf.gradients(tf.reduce_sum(v * v), v))()
    assert values(dense) == [[[2, 4], [6, 8]]]


def test_control_flow_and_custom_gradients():
    grads = run(lambda x: tf.gradients(tf.cond(x[0] > 0, lambda: x * 3.0, lambda: x * x), x))
    assert values(grads) == [[3, 3, 3]]

    def custom(x):
        @tf.custom_gradient
        def f(t):
            return t * 1.0, lambda g: g * 10.0
        return tf.gradients(f(x), x)
    assert values(run(custom)) == [[10, 10, 10]]


def test_complex_gradients_are_tf_conjugates():
    def body(x):
        z = tf.complex(x, 2.0 * x)
        return tf.gradients(tf.abs(z * z), z) + tf.gradients(
            tf.math.real(z * tf.constant([1 + 2j, 3j, 1], tf.complex64)), z)
    grads = values(run(body))
    assert grads == [[2 + 4j, 4 + 8j, 6 + 12j], [1 - 2j, -3j, 1]]


def test_second_order_and_a_tape_over_tf_gradients():
    assert values(run(lambda x: tf.gradients(tf.gradients(tf.reduce_sum(x ** 3), x)[0], x))) \
        == [[6, 12, 18]]

    def taped(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            g = tf.gradients(tf.reduce_sum(x ** 3), x)[0]
            z = tf.reduce_sum(g * g)
        return tape.gradient(z, x)
    assert run(taped).numpy().tolist() == [36, 288, 972]


def test_options_tf_checks():
    grads = run(lambda x: tf.gradients(x * x, x, gate_gradients=True,
                                       aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE))
    assert values(grads) == [[2, 4, 6]]
    with pytest.raises(ValueError, match=r"Invalid `aggregation_method` specified bad. "
                                         r"Accepted values are \[0, 1, 2\]."):
        run(lambda x: tf.gradients(x * x, x, aggregation_method="bad"))
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'op'"):
        run(lambda x: tf.gradients(None, x))


def test_hessians():
    h = run(lambda x: tf.hessians(tf.reduce_sum(x ** 3) + x[0] * x[1], x))
    assert values(h) == [[[6, 1, 0], [1, 12, 0], [0, 0, 18]]]
    assert values(run(lambda x: tf.hessians(x ** 2, x))) == [[[2, 0, 0], [0, 2, 0], [0, 0, 2]]]

    def two(x):
        m = tf.reshape(x[:2], [1, 2])
        return tf.hessians(tf.reduce_sum(tf.exp(m) * x[2]), [m, x])
    hm, hx = run(two)
    assert hm.shape == (1, 2, 1, 2) and hx.shape == (3, 3)
    # TF 2.21's values.
    np.testing.assert_allclose(hm.numpy().reshape(2, 2), [[8.154845, 0], [0, 22.167168]],
                               rtol=1e-6)
    np.testing.assert_allclose(hx.numpy(), [[8.154845, 0, 2.7182817], [0, 22.167168, 7.389056],
                                            [2.7182817, 7.389056, 0]], rtol=1e-6)


def test_hessians_errors_as_tf():
    with pytest.raises(ValueError, match="None values not supported."):
        run(lambda x: tf.hessians(tf.reduce_sum(x * 2.0), x))  # a constant gradient
    with pytest.raises(ValueError, match="Tried to convert 'tensor' to a tensor and failed. "
                                         "Error: None values not supported."):
        run(lambda x: tf.hessians(tf.reduce_sum(x * 2.0), tf.constant(1.0)))
