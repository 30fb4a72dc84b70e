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


SAMPLES = {
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
