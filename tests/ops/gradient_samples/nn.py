"""Gradient-check cases for the primitives of ops/nn_ops.py.

Relu points stay away from 0 (its kink); softmax-family cases use several axes and labels
that are not one-hot, so both cotangents of the cross-entropy are exercised.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(2024)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _away_from_zero(*shape):
    """Values in +-[0.2, 1.5]: no point near Relu's kink."""
    return _u(0.2, 1.5, *shape) * _rng.choice([-1.0, 1.0], size=shape)


def _probabilities(*shape):
    p = _u(0.1, 1.0, *shape)
    return p / p.sum(axis=-1, keepdims=True)


_LABELS = tf.constant([2, 0, 1], dtype=tf.int32)

def _relu_backward(g: tf.Tensor) -> tf.Tensor:
    """ReluGrad on its own: the cotangent g masked by a fixed relu output."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops.nn_ops import _relu_grad
    y = tf.constant([[0.0, 0.7, 0.0], [1.2, 0.0, 0.3]], dtype=tf.float64)
    return bind(_relu_grad, (g * g, y))


def _grad_op(prim_name: str, features, **attrs):
    """A grad op (Relu6Grad, LeakyReluGrad) on its own: cotangent g * g at fixed features."""
    from tapeflow.autodiff.core import bind
    from tapeflow.ops import nn_ops
    prim = {"Relu6Grad": nn_ops._relu6_grad, "LeakyReluGrad": nn_ops._leaky_relu_grad,
            "EluGrad": nn_ops._elu_grad, "SeluGrad": nn_ops._selu_grad}[prim_name]
    x = tf.constant(features, dtype=tf.float64)
    return lambda g: bind(prim, (g * g, x), attrs)


# Features away from Relu6's kinks at 0 and 6 and LeakyRelu's at 0.
_FEATURES = [[-1.0, 0.5, 3.0], [6.5, -0.3, 5.2]]

SAMPLES = {
    "Relu6": [(lambda x: tf.nn.relu6(x), [_u(0.2, 5.8, 2, 3) * _rng.choice([-1.0, 1.0], (2, 3))]),
              (lambda x: tf.nn.relu6(x * 3) * x, [_away_from_zero(5)])],
    "Relu6Grad": [(_grad_op("Relu6Grad", _FEATURES), [_away_from_zero(2, 3)])],
    "LeakyRelu": [(lambda x: tf.nn.leaky_relu(x, alpha=0.3), [_away_from_zero(2, 3)]),
                  (lambda x: tf.nn.leaky_relu(tf.sin(x)) * x, [_away_from_zero(5)])],
    "LeakyReluGrad": [(_grad_op("LeakyReluGrad", _FEATURES, alpha=0.3), [_away_from_zero(2, 3)])],
    "Elu": [(lambda x: tf.nn.elu(x), [_away_from_zero(2, 3)]),
            (lambda x: tf.nn.elu(tf.sin(x)) * x, [_away_from_zero(5)])],
    "Selu": [(lambda x: tf.nn.selu(x), [_away_from_zero(2, 3)]),
             (lambda x: tf.nn.selu(tf.sin(x)) * x, [_away_from_zero(5)])],
    # EluGrad/SeluGrad take the forward *output*: negative entries are in (-1, 0) / (-1.76, 0).
    "EluGrad": [(_grad_op("EluGrad", [[-0.6, 0.5, 3.0], [6.5, -0.3, 5.2]]),
                 [_away_from_zero(2, 3)])],
    "SeluGrad": [(_grad_op("SeluGrad", [[-1.2, 0.5, 3.0], [6.5, -0.3, 5.2]]),
                  [_away_from_zero(2, 3)])],
    "Softsign": [(lambda x: tf.nn.softsign(x), [_u(-3, 3, 2, 3)]),
                 (lambda x: tf.nn.softsign(x * x) * x, [_away_from_zero(4)])],
    "ReluGrad": [(_relu_backward, [_away_from_zero(2, 3)])],
    "Relu": [(lambda x: tf.nn.relu(x), [_away_from_zero(2, 3)]),
             # relu of a smooth function, so the second derivative is not trivially zero
             (lambda x: tf.nn.relu(tf.sin(x)) * x, [_away_from_zero(5)])],
    "Softmax": [(lambda x: tf.nn.softmax(x), [_u(-2, 2, 2, 3)]),
                (lambda x: tf.nn.softmax(x, axis=0), [_u(-2, 2, 3, 2)]),
                (lambda x: tf.nn.softmax(x * x, axis=1), [_u(-2, 2, 2, 3, 2)])],
    "LogSoftmax": [(lambda x: tf.nn.log_softmax(x), [_u(-2, 2, 2, 3)]),
                   (lambda x: tf.nn.log_softmax(x, axis=0), [_u(-2, 2, 3, 2)])],
    "SoftmaxCrossEntropyWithLogits": [
        (lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels, logits),
         [_probabilities(3, 4), _u(-2, 2, 3, 4)]),
        (lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels, logits, axis=0),
         [_probabilities(2, 3).T, _u(-2, 2, 3, 2)]),
    ],
    "SparseSoftmaxCrossEntropyWithLogits": [
        (lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(_LABELS, logits),
         [_u(-2, 2, 3, 4)]),
        (lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(_LABELS, logits * logits),
         [_u(-2, 2, 3, 3)]),
    ],
}
