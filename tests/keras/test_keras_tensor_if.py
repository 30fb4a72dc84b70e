"""A Python `if` on a tensor inside a Keras layer's `call`: Keras 3 does not convert `call`
with AutoGraph, so fit's traced step raises (in Keras's "Exception encountered when calling"
framing), while `run_eagerly=True` or `tf.cond` train. Losses and texts are TF 2.21 / Keras
3's answers for the same programs."""

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras

X = np.ones((8, 3), "float32")
Y = np.ones((8, 1), "float32")
LOSSES = [19.345, 5.8009]   # two epochs of SGD on these data, as Keras 3 prints them


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        if tf.reduce_sum(x) > 0:
            x = x * 2.0
        return self.dense(x)


class Gate(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            return x * 2.0
        return x


class CondGate(keras.layers.Layer):
    def call(self, x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x)


def _fit(model, run_eagerly):
    model.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
    history = model.fit(X, Y, epochs=2, batch_size=4, verbose=0)
    return [round(v, 5) for v in history.history["loss"]]


def test_traced_fit_step_raises_with_keras_framing():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as info:
        _fit(Net(), run_eagerly=False)
    text = str(info.value)
    assert text.startswith("Exception encountered when calling Net.call().\n\n\x1b[1mUsing a "
                           "symbolic `tf.Tensor` as a Python `bool` is not allowed.")
    assert text.endswith("Arguments received by Net.call():\n"
                         "  \u2022 x=tf.Tensor(shape=(4, 3), dtype=float32)")
    assert "in user code" not in text     # Keras's step is not converted code


def test_run_eagerly_trains_the_subclassed_model():
    assert _fit(Net(), run_eagerly=True) == LOSSES


def test_tf_cond_in_call_trains_under_the_traced_step():
    model = keras.Sequential([CondGate(), keras.layers.Dense(1, kernel_initializer="ones")])
    assert _fit(model, run_eagerly=False) == LOSSES


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_sequential_model_fails_its_symbolic_build_in_both_modes(run_eagerly):
    # Keras builds a Sequential model symbolically before the first step, so even
    # run_eagerly=True meets the tensor if in a traced call.
    model = keras.Sequential([Gate(), keras.layers.Dense(1, kernel_initializer="ones")])
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as info:
        _fit(model, run_eagerly)
    text = str(info.value)
    assert text.startswith("Exception encountered when calling Gate.call().\n\n\x1b[1mCould not "
                           "automatically infer the output shape / dtype of 'gate")
    assert "Error encountered:\n\nUsing a symbolic `tf.Tensor` as a Python `bool`" in text
    assert text.endswith("  \u2022 kwargs=<class 'inspect._empty'>")


def test_a_failing_call_leaves_other_errors_their_class_and_adds_arguments():
    class Broken(keras.layers.Layer):
        def call(self, x, scale=2):
            raise ValueError("bad input")

    with pytest.raises(ValueError) as info:
        Broken()(tf.ones([2, 3]))
    assert str(info.value) == ("Exception encountered when calling Broken.call().\n\n"
                               "\x1b[1mbad input\x1b[0m\n\nArguments received by Broken.call():\n"
                               "  \u2022 x=tf.Tensor(shape=(2, 3), dtype=float32)\n"
                               "  \u2022 scale=2")
