"""tf.Variable's API and printing, checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tapeflow as tf


def test_names_and_flags():
    assert tf.Variable(1.0).name == "Variable:0"
    assert tf.Variable(1.0, name="w").name == "w:0"
    assert tf.Variable(1.0).trainable and not tf.Variable(1.0, trainable=False).trainable
    assert tf.Variable(1).dtype == tf.int32
    assert tf.Variable(np.float64(1.0)).dtype == tf.float64
    assert tf.Variable(tf.constant([1, 2])).dtype == tf.int32
    assert tf.Variable(1, dtype=tf.float32).dtype == tf.float32
    assert tf.Variable(lambda: tf.ones([2])).shape == (2,)


def test_assign_family():
    v = tf.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    assert v.numpy().tolist() == [3.0, 4.0]
    assert v.assign_add([1.0, 1.0]).numpy().tolist() == [4.0, 5.0]
    assert v.assign_sub([0.5, 0.5]).numpy().tolist() == [3.5, 4.5]
    assert v.read_value().numpy().tolist() == [3.5, 4.5]
    assert isinstance(v.value(), tf.Tensor)


def test_read_tensor_keeps_old_value_after_assign():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([5.0, 6.0])
    assert before.numpy().tolist() == [1.0, 2.0]


def test_assign_errors():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Cannot assign value to variable ' Variable:0': Shape "
                                         r"mismatch.The variable shape \(2,\), and the assigned "
                                         r"value shape \(3,\) are incompatible."):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="to EagerTensor of dtype int32"):
        tf.Variable([1, 2]).assign([1.5, 2.5])


def test_operators_and_conversions():
    v = tf.Variable([1.0, 2.0])
    assert repr(v + 1) == \
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 3.], dtype=float32)>"
    assert repr(v[0]) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert [str(a) for a in v] == ["tf.Tensor(1.0, shape=(), dtype=float32)",
                                   "tf.Tensor(2.0, shape=(), dtype=float32)"]
    assert float(tf.Variable(2.0)) == 2.0 and bool(tf.Variable(1.0))
    assert np.asarray(v).tolist() == [1.0, 2.0]


def test_unhashable_with_ref():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError, match=r"Variable is unhashable. Instead, use variable.ref\(\) "
                                        r"as the key. \(Variable: <tf.Variable 'Variable:0'"):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1


@pytest.mark.parametrize("make, text", [
    (lambda: str(tf.Variable(1.5)), "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.5>"),
    (lambda: repr(tf.Variable([1.0, 2.0])),
     "<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"),
    (lambda: repr(tf.Variable([[1, 2]], name="w")),
     "<tf.Variable 'w:0' shape=(1, 2) dtype=int32, numpy=array([[1, 2]], dtype=int32)>"),
    (lambda: repr(tf.Variable(1, dtype=tf.float32)),
     "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"),
])
def test_printing(make, text):
    assert make() == text


def test_variable_has_no_len():
    # TF's variables define no len() (tensors do), even with a leading dimension.
    with pytest.raises(TypeError, match=r"^object of type 'ResourceVariable' has no len\(\)$"):
        len(tf.Variable([1., 2., 3.]))
    assert len(tf.constant([1., 2., 3.])) == 3
    assert [float(v) for v in tf.Variable([1., 2.])] == [1., 2.]  # iteration still works


def test_initial_value_is_unavailable_eagerly_as_in_tensorflow():
    with pytest.raises(RuntimeError, match="not supported when eager execution is enabled"):
        tf.Variable(1.0).initial_value  # noqa: B018 - reading the attribute raises


def test_variable_scatter_methods_match_tf():
    # Values from TF 2.21; repeated indices accumulate, as TF's scatter kernels do.
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    v.scatter_sub(tf.IndexedSlices(tf.constant([[1., 1.], [1., 1.]]), tf.constant([2, 2])))
    assert v.numpy().tolist() == [[1., 2.], [3., 4.], [3., 4.]]
    v.scatter_add(tf.IndexedSlices(tf.constant([[10., 10.]]), tf.constant([0])))
    v.scatter_update(tf.IndexedSlices(tf.constant([[0., 0.]]), tf.constant([1])))
    assert v.numpy().tolist() == [[11., 12.], [0., 0.], [3., 4.]]
    v.scatter_nd_update([[0, 1]], [9.])
    v.scatter_nd_add([[0, 1], [0, 1]], [1., 1.])
    assert v.scatter_nd_sub([[2, 0]], [1.]) is v
    assert v.numpy().tolist() == [[11., 11.], [0., 0.], [2., 4.]]
    with pytest.raises(TypeError, match="must be a `tf.IndexedSlices`"):
        v.scatter_add(tf.constant([1.]))


def test_sparse_sgd_step_with_scatter_sub_in_tf_function():
    emb = tf.Variable(tf.ones((4, 2)))

    @tf.function
    def step(ids):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(emb, ids) ** 2)
        g = tape.gradient(loss, emb)
        emb.scatter_sub(tf.IndexedSlices(0.1 * g.values, g.indices))
        return loss

    assert float(step(tf.constant([0, 2]))) == pytest.approx(4.0)
    assert float(step(tf.constant([2, 3]))) == pytest.approx(2 * 0.64 + 2.0)
    np.testing.assert_allclose(emb.numpy(), [[0.8, 0.8], [1, 1], [0.64, 0.64], [0.8, 0.8]],
                               rtol=1e-6)


def test_sliced_variable_assignment_as_tensorflow():
    # Values from TF 2.21: v[0, 1:].assign([9, 9]); v[1].assign(0.).
    v = tf.Variable([[1., 2., 3.], [4., 5., 6.]])
    v[0, 1:].assign([9., 9.])
    v[1].assign(0.)
    np.testing.assert_array_equal(v.numpy(), [[1, 9, 9], [0, 0, 0]])

    @tf.function
    def set_first_column(x):
        v[:, 0].assign(x)
        return v.read_value()
    np.testing.assert_array_equal(set_first_column(tf.constant([7., 8.])).numpy(),
                                  [[7, 9, 9], [8, 0, 0]])
    np.testing.assert_array_equal(set_first_column(tf.constant([1., 2.])).numpy(),
                                  [[1, 9, 9], [2, 0, 0]])
    with pytest.raises(AttributeError, match="no attribute 'assign'"):
        tf.constant([1., 2.])[0].assign(3.)


# -- concurrent updates --------------------------------------------------------------------------

@pytest.mark.parametrize("update", [
    lambda v: v.assign_add([1.0]),
    lambda v: v.assign_sub([-1.0]),
    lambda v: v.scatter_nd_add([[0]], [1.0]),
    lambda v: v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))),
])
def test_concurrent_updates_are_atomic(update, hammer):
    # TF 2.21: two threads doing 5,000 increments each end at exactly 10,000.
    v = tf.Variable([0.0])
    hammer(lambda: update(v))
    assert v.numpy().tolist() == [10000.0]


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_assigning_a_tensor_of_another_dtype_is_tensorflows_value_error(method):
    # TF 2.21 converts the value to the variable's dtype first: a ValueError, value unchanged.
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for "
                                         "Tensor with dtype float64"):
        getattr(v, method)(tf.constant(2.0, tf.float64))
    assert v.numpy() == 1.0
