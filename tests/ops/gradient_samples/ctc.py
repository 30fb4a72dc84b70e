"""Gradient-check cases for the CTC loss primitive (ops/ctc_ops.py).

Its rule hands on the gradient the kernel stored (as TensorFlow's CTC does), which a second
tape sees as a constant: TF has no second derivative of ctc_loss either, so second order is
off. float64 logits reach the primitive directly (tf.nn.ctc_loss refuses them, as TF's
dense path does).
"""

import numpy as np

from tapeflow.autodiff.core import bind

_rng = np.random.default_rng(7)


def _ctc(exact):
    import tapeflow as tf
    from tapeflow.ops.ctc_ops import _ctc_loss
    labels = tf.constant([[1, 2, 2], [3, 1, 0]], dtype=tf.int32)
    lengths = (tf.constant([3, 2], dtype=tf.int32), tf.constant([6, 4], dtype=tf.int32))
    return lambda x: bind(_ctc_loss, (x, labels) + lengths, {"exact": exact})[0]


SAMPLES = {
    "CTCLoss": [(_ctc(False), [_rng.normal(size=(6, 2, 4))], {"second_order": False}),
                (_ctc(True), [_rng.normal(size=(6, 2, 4))], {"second_order": False})],
}
