"""tf.nn.ctc_loss and the CTC decoders: TensorFlow 2.21's errors and behaviours (checked in
TF 2.21 and hard-coded here); values and gradients against TF are in test_nn_more.py."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

_LOGITS = np.random.default_rng(0).normal(size=(6, 2, 5)).astype(np.float32)
_LABELS = np.array([[1, 2, 2, 0], [3, 1, 0, 0]], np.int32)


def test_ctc_loss_values_of_tf():
    # TF 2.21: [8.453879, 5.6574783]; with the blank last [7.5187583, 5.179038].
    loss = tf.nn.ctc_loss(_LABELS, _LOGITS, [3, 2], [6, 4])
    np.testing.assert_allclose(loss, [8.453879, 5.6574783], rtol=1e-6)
    loss = tf.nn.ctc_loss(_LABELS, _LOGITS, [3, 2], [6, 4], blank_index=-1)
    np.testing.assert_allclose(loss, [7.5187583, 5.179038], rtol=1e-6)


def test_dense_impossible_alignment_is_tfs_finite_loss_sparse_is_inf():
    # TF 2.21: dense labels weight impossible states by log(1e-307): 712.547; sparse: inf.
    dense = tf.nn.ctc_loss(np.array([[1, 1, 1, 1]]), _LOGITS[:, :1], [4], [6])
    np.testing.assert_allclose(dense, [712.547], rtol=1e-6)
    sparse = tf.sparse.from_dense(tf.constant([[1, 1, 1, 1]]))
    assert np.isinf(tf.nn.ctc_loss(sparse, _LOGITS[:, :1], None, [6], blank_index=0)[0])
    # TF 2.21: no frames at all gives -log(1e-307) in float32.
    np.testing.assert_allclose(tf.nn.ctc_loss(np.array([[1, 2]]), _LOGITS[:, :1], [2], [0]),
                               [706.8936], rtol=1e-6)


def test_errors_as_tf():
    sparse = tf.sparse.from_dense(tf.constant([[1, 2, 3, 1, 2, 3, 4]]))
    with pytest.raises(ValueError, match="`blank_index` must be provided"):
        tf.nn.ctc_loss(sparse, _LOGITS[:, :1], None, [6])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Not enough time for target transition sequence \(required: "
                             r"7, available: 6\)"):
        tf.nn.ctc_loss(sparse, _LOGITS[:, :1], None, [6], blank_index=0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expected to be a double tensor but is a float tensor"):
        tf.nn.ctc_loss(_LABELS, _LOGITS.astype(np.float64), [3, 2], [6, 4])


def test_float16_and_sparse_float64():
    # TF 2.21: float16 logits are computed in float32 and cast back; sparse labels take
    # float64 (4.98508215).
    loss = tf.nn.ctc_loss(np.array([[1, 2]]), _LOGITS[:, :1].astype(np.float16), [2], [6])
    assert loss.dtype == tf.float16
    sparse = tf.sparse.from_dense(tf.constant([[1, 2]]))
    loss = tf.nn.ctc_loss(sparse, _LOGITS[:, :1].astype(np.float64), None, [6], blank_index=0)
    assert loss.dtype == tf.float64
    np.testing.assert_allclose(loss, [4.98508215], rtol=1e-8)


def test_gradient_is_zero_past_logit_length_and_traces():
    logits = tf.constant(_LOGITS)

    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.nn.ctc_loss(_LABELS, x, [3, 2], [6, 4]))
        return loss, tape.gradient(loss, x)

    loss, g = grad(logits)
    np.testing.assert_allclose(loss, 8.453879 + 5.6574783, rtol=1e-6)
    assert np.all(g.numpy()[4:, 1] == 0)
    # Each frame's gradient is softmax - posterior: it sums to 0 over the classes.
    np.testing.assert_allclose(g.numpy().sum(-1), 0, atol=1e-6)


def test_decoders_return_sparse_tensors():
    decoded, log_probs = tf.nn.ctc_greedy_decoder(_LOGITS, [6, 4])
    assert isinstance(decoded[0], tf.SparseTensor) and decoded[0].values.dtype == tf.int64
    assert log_probs.shape == (2, 1)
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(_LOGITS, [6, 4], beam_width=4,
                                                       top_paths=2)
    assert len(decoded) == 2 and log_probs.shape == (2, 2)
    # Best first.
    assert np.all(log_probs.numpy()[:, 0] >= log_probs.numpy()[:, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="more paths than the beam width"):
        tf.nn.ctc_beam_search_decoder(_LOGITS, [6, 4], beam_width=2, top_paths=3)
