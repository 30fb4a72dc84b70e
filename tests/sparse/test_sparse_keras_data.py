"""SparseTensors through Keras 3 and tf.data, against TensorFlow 2.21: every snippet of
cases_keras_data.py prints what TF printed (fixtures/keras_data_tf221.json, recorded by
tools/record_sparse_keras_data_fixtures.py): a sparse Input and Dense under a seed (call,
predict, the kernel's IndexedSlices gradient, fit), and tf.data's slicing, batching,
unbatching, mapping (VarLenFeature parsing included) and element_specs of SparseTensors."""

import json
import os
import sys

import numpy as np
import pytest

import tapeflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _runner import assert_prints, run_case  # noqa: E402
from cases_keras_data import CASES, SETUP  # noqa: E402

with open(os.path.join(HERE, "fixtures", "keras_data_tf221.json")) as f:
    EXPECTED = json.load(f)


# Adam's update of the IndexedSlices gradient rounds differently from TF's in float32's last
# place: the text must match with the numbers compared to a relative 1e-6.
APPROX = {"keras_fit_adam"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_prints_what_tf_prints(name):
    assert_prints(run_case(tf, SETUP, CASES[name]), EXPECTED[name], name in APPROX)


def _sparse():
    return tf.sparse.SparseTensor(indices=[[0, 0], [0, 1], [2, 2], [2, 3]],
                                  values=[1., 2., 3., -1.], dense_shape=[3, 4])


def test_dense_on_sparse_input_equals_dense_on_its_dense_form():
    tf.keras.utils.set_random_seed(3)
    layer = tf.keras.layers.Dense(5, activation="tanh")
    sp = _sparse()
    np.testing.assert_allclose(layer(sp).numpy(), layer(tf.sparse.to_dense(sp)).numpy(),
                               rtol=1e-6)


def test_dense_kernel_gradient_on_sparse_input_is_the_dense_inputs_gradient():
    tf.keras.utils.set_random_seed(3)
    layer = tf.keras.layers.Dense(2)
    sp = _sparse()
    grads = []
    for x in (sp, tf.sparse.to_dense(sp)):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x) ** 2)
        grads.append(tape.gradient(loss, layer.kernel))
    # Keras's sparse product (an embedding lookup) gives the kernel rows it used.
    assert isinstance(grads[0], tf.IndexedSlices)
    assert grads[0].indices.numpy().tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(tf.convert_to_tensor(grads[0]).numpy(), grads[1].numpy(),
                               rtol=1e-6)


def test_fit_on_sparse_input_trains_as_on_its_dense_form():
    weights = []
    for x in (_sparse(), tf.sparse.to_dense(_sparse())):
        tf.keras.utils.set_random_seed(0)
        inputs = tf.keras.Input(shape=(4,), sparse=isinstance(x, tf.SparseTensor))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x, np.ones((3, 1), np.float32), epochs=3, batch_size=2, verbose=0)
        weights.append(model.get_weights()[0])
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6)


def test_sparse_rows_takes_rows_in_order_of_unordered_indices():
    from tapeflow.framework.sparse_tensor import sparse_rows
    sp = tf.sparse.SparseTensor([[2, 1], [0, 3], [2, 0], [1, 1]], [1, 2, 3, 4], [3, 4])
    rows = sparse_rows(sp, np.array([2, 0, 2]))
    assert rows.indices.numpy().tolist() == [[0, 1], [0, 0], [1, 3], [2, 1], [2, 0]]
    assert rows.values.numpy().tolist() == [1, 3, 2, 1, 3]
    assert rows.dense_shape.numpy().tolist() == [3, 4]


def test_symbolic_sparse_input_keeps_sparse_through_a_layer_that_returns_one():
    class Twice(tf.keras.layers.Layer):
        def call(self, x):
            return x * 2

    x = tf.keras.Input(shape=(4,), sparse=True)
    y = Twice()(x)
    assert y.sparse and y.shape == (None, 4)
    assert not tf.keras.layers.Dense(2)(y).sparse


def test_a_traced_functions_sparse_result_has_its_dense_shape_as_static_shape():
    # TF 2.21: the eager result of a tf.function shows its dense shape, though the trace saw
    # (None, None).
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def sparse_of(x):
        result = tf.sparse.from_dense(x)
        seen.append(result.shape.as_list())
        return result

    assert sparse_of(tf.constant([[1, 0, 0, 2], [0, 3, 0, 0]])).shape.as_list() == [2, 4]
    assert seen == [[None, None]]
