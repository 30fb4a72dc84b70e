"""tf.config.run_functions_eagerly: while on, every tf.function (Keras's train step too) runs
its Python function eagerly and unconverted; get_concrete_function still traces (TF 2.21)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


@pytest.fixture
def eagerly():
    tf.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        tf.config.run_functions_eagerly(False)


def test_flag_round_trips():
    assert tf.config.functions_run_eagerly() is False
    tf.config.run_functions_eagerly(1)   # TF 2.21: any truthy value turns it on
    try:
        assert tf.config.functions_run_eagerly() is True
    finally:
        tf.config.run_functions_eagerly(False)
    assert tf.config.functions_run_eagerly() is False


def test_functions_run_the_python_function_eagerly(eagerly):
    seen = []

    @tf.function
    def f(x):
        seen.append((tf.executing_eagerly(), type(x).__name__))
        return x * 2
    assert f(tf.constant(1.0)).numpy() == 2.0
    assert f(tf.constant(1.0)).numpy() == 2.0
    # TF 2.21's answers: every call runs the Python function, nothing traces.
    assert seen == [(True, "Tensor"), (True, "Tensor")]
    assert f.experimental_get_tracing_count() == 0
    concrete = f.get_concrete_function(tf.constant(1.0))   # still traces, as TF
    assert seen[-1] == (False, "SymbolicTensor")
    assert f.experimental_get_tracing_count() == 1
    assert concrete(tf.constant(3.0)).numpy() == 6.0
    for i in range(7):
        assert f(i) == 2 * i   # Python values pass through untouched
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_is_not_enforced(eagerly):
    @tf.function(input_signature=[tf.TensorSpec([2])])
    def s(x):
        return x
    # TF 2.21's answers.
    np.testing.assert_array_equal(s(tf.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 2.0, 3.0])
    assert s([1.0, 2.0]) == [1.0, 2.0]


def test_python_control_flow_is_not_converted(eagerly):
    @tf.function
    def f(x):
        # Eagerly, a Python loop over a tensor's value is plain Python.
        total = 0.0
        for v in x.numpy():
            total += v
        return total
    assert f(tf.constant([1.0, 2.0])) == 3.0


def test_keras_train_step_runs_eagerly(eagerly):
    seen = []

    class Model(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            seen.append(tf.executing_eagerly())
            return super().train_step(data)
    model = Model()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=1,
              batch_size=2, verbose=0)
    assert seen == [True, True]
