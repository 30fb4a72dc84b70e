"""A minimal model on the Trainer mixin (a dense layer or a two-layer MLP built from
tf.Variables), so training tests do not depend on keras.layers."""

import numpy as np

import tapeflow as tf
from tapeflow.keras.trainer import Trainer


class TinyModel(Trainer):
    """x -> [relu(x W1 + b1)] -> x W + b -> optional sigmoid/softmax."""

    def __init__(self, n_in, n_out, hidden=None, activation=None, seed=0):
        rng = np.random.default_rng(seed)
        sizes = [n_in] + ([hidden] if hidden else []) + [n_out]
        self._vars = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            limit = np.sqrt(6 / (a + b))
            self._vars.append(tf.Variable(rng.uniform(-limit, limit, (a, b)).astype("float32"),
                                          name=f"kernel_{i}"))
            self._vars.append(tf.Variable(np.zeros(b, "float32"), name=f"bias_{i}"))
        self.activation = activation

    def __call__(self, x, training=False):
        h = tf.convert_to_tensor(x)
        pairs = list(zip(self._vars[::2], self._vars[1::2]))
        for i, (w, b) in enumerate(pairs):
            h = tf.matmul(h, w) + b
            if i < len(pairs) - 1:
                h = tf.nn.relu(h)
        if self.activation == "sigmoid":
            h = tf.sigmoid(h)
        elif self.activation == "softmax":
            h = tf.nn.softmax(h)
        return h

    @property
    def trainable_variables(self):
        return list(self._vars)

    weights = variables = trainable_variables

    def get_weights(self):
        return [v.numpy() for v in self._vars]

    def set_weights(self, weights):
        for v, w in zip(self._vars, weights):
            v.assign(w)
