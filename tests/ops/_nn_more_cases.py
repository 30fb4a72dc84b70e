"""Cases for tf.nn's layout, pooling, morphology, loss and CTC ops, run by both
tools/record_nn_more_fixtures.py (in TensorFlow, recording its answers) and
tests/ops/test_nn_more.py (in tapeflow, comparing). Each case takes the `tf` module and
returns a list of arrays: values and, where the op is differentiable, gradients.
"""

import numpy as np

def _seeded(shape):
    """A generator seeded by the shape, so a case's inputs do not depend on which cases ran
    before it."""
    return np.random.default_rng([20, *shape])


def _f32(*shape):
    return _seeded(shape).normal(size=shape).astype(np.float32)


def _u(*shape):
    return _seeded(shape).uniform(size=shape).astype(np.float32)


_X = _f32(2, 6, 6, 4)
_FILTER = _f32(3, 3, 4)
_SMALL = _f32(2, 5, 7, 3)
_LOGITS = _f32(8, 3, 6)
_LABELS = np.array([[1, 2, 2, 0], [3, 1, 4, 5], [2, 0, 0, 0]], np.int32)
_LABEL_LEN = np.array([3, 4, 1], np.int32)
_LOGIT_LEN = np.array([8, 6, 3], np.int32)


def _grad(tf, f, *xs):
    """[f(*xs), d sum(f * w) / d xs...] with a fixed weighting w of f's elements."""
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
        w = tf.constant(np.linspace(-1, 1, int(np.prod(y.shape))).astype(
            y.dtype.as_numpy_dtype).reshape(y.shape))
        loss = tf.reduce_sum(y * w)
    return [y] + list(tape.gradient(loss, xs))


def _sparse_labels(tf):
    return tf.sparse.from_dense(tf.constant([[1, 2, 2, 0], [3, 1, 4, 5], [2, 0, 0, 0]]))


def _decoded(result):
    decoded, log_probs = result
    out = []
    for sp in decoded:
        out += [sp.indices, sp.values, sp.dense_shape]
    return out + [log_probs]


CASES = {
    "space_to_depth": lambda tf: _grad(tf, lambda x: tf.nn.space_to_depth(x, 2), _X),
    "space_to_depth_3": lambda tf: [tf.nn.space_to_depth(_X, 3)],
    "depth_to_space": lambda tf: _grad(tf, lambda x: tf.nn.depth_to_space(x, 2), _X),
    "space_to_batch": lambda tf: _grad(
        tf, lambda x: tf.space_to_batch(x, [2, 3], [[1, 1], [0, 2]]), _SMALL[:, :4, :4]),
    "space_to_batch_nd_1d": lambda tf: [tf.space_to_batch_nd(_SMALL, [3], [[1, 0]])],
    "batch_to_space": lambda tf: _grad(
        tf, lambda x: tf.batch_to_space(x, [2, 2], [[0, 1], [1, 0]]), _f32(8, 3, 3, 2)),
    "nn_space_to_batch": lambda tf: [tf.nn.space_to_batch(_X, [2, 2], [[0, 0], [2, 0]])],
    "required_paddings": lambda tf: list(tf.required_space_to_batch_paddings(
        [5, 7], [2, 3], [[1, 0], [0, 2]])),
    "zero_fraction": lambda tf: [tf.math.zero_fraction(np.array([0., 1., 0., 2.], np.float32)),
                                 tf.nn.zero_fraction(np.array([[0, 1], [0, 0]], np.int32))],
    "weighted_xent": lambda tf: _grad(
        tf, lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
        _u(3, 4), _f32(3, 4) * 3),
    "log_poisson": lambda tf: _grad(
        tf, lambda t, x: tf.nn.log_poisson_loss(t, x, compute_full_loss=True),
        np.array([0., 0.5, 1., 2., 7.], np.float32), _f32(5)),
    "crelu": lambda tf: _grad(tf, lambda x: tf.nn.crelu(x, axis=1), _f32(3, 4)),
    "sufficient_statistics": lambda tf: [v for v in tf.nn.sufficient_statistics(
        _SMALL, [0, 2], shift=0.5, keepdims=True) if v is not None],
    "normalize_moments": lambda tf: list(tf.nn.normalize_moments(
        4.0, np.array([4., 6.], np.float32), np.array([10., 20.], np.float32), 0.5)),
    "weighted_moments": lambda tf: list(tf.nn.weighted_moments(
        _SMALL, [1, 2], _u(2, 5, 1, 3))),
    "weighted_moments_grad": lambda tf: _grad(
        tf, lambda x: tf.nn.weighted_moments(x, [0], np.array([[1.], [2.], [0.5]], np.float32))[1],
        _f32(3, 4)),
    "batch_norm_global": lambda tf: [tf.nn.batch_norm_with_global_normalization(
        _SMALL, np.float32([0.1, 0.2, 0.3]), np.float32([1., 2., 3.]), np.float32([0, 1, 2]),
        np.float32([2, 2, 2]), 0.001, True)],
    "lrn": lambda tf: _grad(tf, lambda x: tf.nn.lrn(x, 2, 1.0, 0.5, 0.75), _X),
    "lrn_defaults": lambda tf: _grad(tf, lambda x: tf.nn.local_response_normalization(x), _X),
    "lrn_beta1": lambda tf: _grad(tf, lambda x: tf.nn.lrn(x, 1, 2.0, 0.3, 1.0), _X),
    "collapse_repeated": lambda tf: list(tf.nn.collapse_repeated(
        np.array([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0], [5, 1, 1, 5, 5]], np.int32),
        np.array([5, 3, 4], np.int32))),
    "atrous_conv2d": lambda tf: _grad(
        tf, lambda x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"), _X, _f32(3, 3, 4, 2)),
    "atrous_conv2d_valid": lambda tf: [tf.nn.atrous_conv2d(_X, _f32(2, 2, 4, 3), 3, "VALID")],
    "atrous_conv2d_transpose": lambda tf: _grad(
        tf, lambda x, w: tf.nn.atrous_conv2d_transpose(x, w, [2, 6, 6, 3], 2, "SAME"),
        _f32(2, 6, 6, 2), _f32(3, 3, 3, 2)),
    "atrous_conv2d_transpose_valid": lambda tf: [tf.nn.atrous_conv2d_transpose(
        _f32(2, 3, 3, 2), _f32(2, 2, 3, 2), [2, 5, 5, 3], 2, "VALID")],
    "conv_transpose_2d": lambda tf: [tf.nn.conv_transpose(
        _f32(2, 3, 3, 2), _f32(3, 3, 4, 2), [2, 6, 6, 4], 2)],
    "conv_transpose_1d": lambda tf: [tf.nn.conv_transpose(
        _f32(2, 3, 2), _f32(3, 4, 2), [2, 7, 4], 2, padding="VALID")],
    "max_pool_with_argmax": lambda tf: list(tf.nn.max_pool_with_argmax(
        _SMALL, 3, 2, "SAME")) + _grad(
        tf, lambda x: tf.nn.max_pool_with_argmax(x, 3, 2, "SAME").output, _SMALL)[1:],
    "max_pool_with_argmax_batch": lambda tf: list(tf.nn.max_pool_with_argmax(
        _X, [2, 3], [1, 2], "VALID", output_dtype=tf.int32, include_batch_in_index=True)),
    "max_pool_with_argmax_ties": lambda tf: list(tf.nn.max_pool_with_argmax(
        np.round(_X).astype(np.float32), 2, 1, "SAME")),
    "dilation2d": lambda tf: _grad(
        tf, lambda x, w: tf.nn.dilation2d(x, w, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
        _X, _FILTER),
    "dilation2d_strided": lambda tf: _grad(
        tf, lambda x, w: tf.nn.dilation2d(x, w, [1, 2, 1, 1], "VALID", "NHWC", [1, 1, 2, 1]),
        _X, _FILTER[:2]),
    "dilation2d_rates": lambda tf: [tf.nn.dilation2d(
        _X, _FILTER, [1, 2, 2, 1], "SAME", "NHWC", [1, 2, 2, 1])],
    "erosion2d": lambda tf: _grad(
        tf, lambda x, w: tf.nn.erosion2d(x, w, [1, 1, 2, 1], "SAME", "NHWC", [1, 1, 1, 1]),
        _X, _FILTER),
    "ctc_loss": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(_LABELS, x, _LABEL_LEN, _LOGIT_LEN), _LOGITS),
    "ctc_loss_blank_last": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(_LABELS, x, _LABEL_LEN, _LOGIT_LEN, blank_index=-1),
        _LOGITS),
    "ctc_loss_blank_2": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(np.array([[1, 3, 4], [5, 5, 0], [0, 0, 0]]), x,
                                     [3, 2, 0], _LOGIT_LEN, blank_index=2), _LOGITS),
    "ctc_loss_batch_major": lambda tf: [tf.nn.ctc_loss(
        _LABELS, np.transpose(_LOGITS, (1, 0, 2)), _LABEL_LEN, _LOGIT_LEN,
        logits_time_major=False)],
    "ctc_loss_impossible": lambda tf: [tf.nn.ctc_loss(
        np.array([[1, 1, 1, 1]]), _LOGITS[:, :1] , [4], [6])],
    "ctc_loss_long": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(_rng_labels(), x, [12, 7], [60, 45]), _f32(60, 2, 10) * 2),
    "ctc_loss_sparse": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(_sparse_labels(tf), x, None, _LOGIT_LEN, blank_index=0),
        _LOGITS),
    "ctc_loss_sparse_blank_last": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(_sparse_labels(tf), x, None, _LOGIT_LEN,
                                     blank_index=-1), _LOGITS),
    "ctc_loss_sparse_impossible": lambda tf: _grad(
        tf, lambda x: tf.nn.ctc_loss(tf.sparse.from_dense(tf.constant([[1, 1, 1, 1]])),
                                     x, None, [6], blank_index=0), _LOGITS[:, :1]),
    "ctc_unique_labels": lambda tf: list(tf.nn.ctc_unique_labels(
        np.array([[3, 1, 3, 0], [2, 2, 5, 1]], np.int32))),
    "ctc_greedy": lambda tf: _decoded(tf.nn.ctc_greedy_decoder(_LOGITS, _LOGIT_LEN)),
    "ctc_greedy_no_merge": lambda tf: _decoded(tf.nn.ctc_greedy_decoder(
        np.round(_LOGITS), _LOGIT_LEN, merge_repeated=False, blank_index=0)),
    "ctc_beam": lambda tf: _decoded(tf.nn.ctc_beam_search_decoder(_LOGITS, _LOGIT_LEN)),
    "ctc_beam_narrow": lambda tf: _decoded(tf.nn.ctc_beam_search_decoder(
        _LOGITS * 0.3, _LOGIT_LEN, beam_width=3, top_paths=3)),
    "ctc_beam_peaked": lambda tf: _decoded(tf.nn.ctc_beam_search_decoder(
        _LOGITS * 3, _LOGIT_LEN, beam_width=5, top_paths=2)),
    "ctc_beam_long": lambda tf: _decoded(tf.nn.ctc_beam_search_decoder(
        _f32(30, 2, 5), [30, 17], beam_width=8, top_paths=4)),
}


def _rng_labels():
    return np.random.default_rng(5).integers(1, 10, size=(2, 12)).astype(np.int32)
