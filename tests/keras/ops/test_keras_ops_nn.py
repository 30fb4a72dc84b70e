"""`tapeflow.keras.ops.nn` against Keras 3.15.1 (TensorFlow 2.21 backend), registry-driven.

The fixture (tools/record_keras_ops_core_nn.py) holds each case's inputs, call and Keras's
output values, dtypes and shapes (or the class of the error Keras raised), and every name of
keras.ops.nn with its parameter names.
"""

from __future__ import annotations

import inspect
import warnings

import _keras_ops_core_nn_cases as kc
import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import ops

NN_NAMES = sorted(kc.SIGNATURES["nn"])
RNG = np.random.default_rng(11)


def _u(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape)


@pytest.mark.parametrize("case", kc.cases_of(NN_NAMES), ids=lambda c: c["id"])
def test_recorded_case_matches_keras(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_case(case)


def test_every_keras_nn_name_exists_with_its_parameters():
    assert sorted(ops.nn.__all__) == NN_NAMES
    for name, params in kc.SIGNATURES["nn"].items():
        assert list(inspect.signature(getattr(ops.nn, name)).parameters) == params, name
        assert getattr(ops, name) is getattr(ops.nn, name), name


def test_every_nn_op_has_recorded_cases():
    assert {c["op"] for c in kc.cases_of(NN_NAMES)} == set(NN_NAMES)


_LABELS = np.array([2, 0, 1])
_ONE_HOT = np.eye(3)[_LABELS]
_PROBS = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.25, 0.5, 0.25]])

GRADIENT_CASES = {
    **{name: (getattr(ops.nn, name), (_u(2, 3, lo=-3, hi=3),)) for name in [
        "relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "log_sigmoid",
        "leaky_relu", "hard_sigmoid", "hard_silu", "elu", "selu", "gelu", "celu", "hard_tanh",
        "hard_shrink", "soft_shrink", "tanh_shrink", "squareplus", "sparse_plus",
        "sparse_sigmoid", "softmax", "log_softmax", "sparsemax"]},
    "gelu_exact": (lambda x: ops.gelu(x, approximate=False), (_u(2, 3),)),
    "elu_alpha": (lambda x: ops.elu(x, alpha=0.5), (_u(2, 3),)),
    "glu": (ops.glu, (_u(2, 4),)),
    "threshold": (lambda x: ops.threshold(x, 0.3, -1.0), (_u(2, 3),)),
    "softmax_axes": (lambda x: ops.softmax(x, axis=(0, 2)), (_u(2, 2, 3),)),
    "log_softmax_none": (lambda x: ops.log_softmax(x, axis=None), (_u(2, 3),)),
    "categorical_crossentropy": (ops.categorical_crossentropy, (_ONE_HOT, _PROBS)),
    "categorical_crossentropy_logits": (
        lambda t, o: ops.categorical_crossentropy(t, o, from_logits=True), (_ONE_HOT, _u(3, 3))),
    "sparse_categorical_crossentropy": (
        lambda o: ops.sparse_categorical_crossentropy(_LABELS, o), (_PROBS,)),
    "sparse_categorical_crossentropy_logits": (
        lambda o: ops.sparse_categorical_crossentropy(_LABELS, o, from_logits=True),
        (_u(3, 3),)),
    "binary_crossentropy": (ops.binary_crossentropy, (_u(2, 3, lo=0, hi=1), _u(2, 3, lo=.1, hi=.9))),
    "binary_crossentropy_logits": (
        lambda t, o: ops.binary_crossentropy(t, o, from_logits=True),
        (_u(2, 3, lo=0, hi=1), _u(2, 3))),
    "moments": (lambda x: ops.moments(x, [0, 2]), (_u(2, 3, 2),)),
    "batch_normalization": (lambda x, m, v, b, s: ops.batch_normalization(x, m, v, 1, b, s),
                            (_u(2, 3, 2), _u(3), _u(3, lo=.5, hi=2), _u(3), _u(3))),
    "layer_normalization": (lambda x, g, b: ops.layer_normalization(x, g, b),
                            (_u(3, 4), _u(4), _u(4))),
    "rms_normalization": (lambda x, s: ops.rms_normalization(x, s, axis=(1, 2)),
                          (_u(2, 2, 3), _u(2, 3))),
    "normalize": (ops.normalize, (_u(3, 4),)),
    "normalize_l1": (lambda x: ops.normalize(x, order=1, axis=0), (_u(3, 4),)),
    "psnr": (lambda a, b: ops.psnr(a, b, 2.0), (_u(2, 3), _u(2, 3))),
    "polar": (ops.polar, (_u(3, lo=.5, hi=2), _u(3))),
    "dot_product_attention": (ops.dot_product_attention, (_u(1, 3, 2, 2), _u(1, 4, 2, 2),
                                                         _u(1, 4, 2, 2))),
    "dot_product_attention_masked": (
        lambda q, k, v, b: ops.dot_product_attention(q, k, v, bias=b, is_causal=True,
                                                     mask=np.tril(np.ones((3, 3), bool))),
        (_u(1, 3, 2, 2), _u(1, 3, 2, 2), _u(1, 3, 2, 2), _u(1, 2, 3, 3))),
    "conv1d": (lambda x, k: ops.conv(x, k, padding="same", strides=2), (_u(1, 5, 2), _u(3, 2, 2))),
    "conv2d": (lambda x, k: ops.conv(x, k, dilation_rate=2), (_u(1, 5, 4, 2), _u(2, 2, 2, 1))),
    "conv2d_first": (lambda x, k: ops.conv(x, k, data_format="channels_first"),
                     (_u(1, 2, 4, 3), _u(2, 2, 2, 2))),
    "conv3d": (ops.conv, (_u(1, 3, 3, 3, 1), _u(2, 2, 2, 1, 2))),
    "conv2d_grouped": (ops.conv, (_u(1, 3, 3, 4), _u(2, 2, 2, 2))),
    "depthwise_conv": (lambda x, k: ops.depthwise_conv(x, k, padding="same"),
                       (_u(1, 4, 4, 2), _u(2, 2, 2, 1))),
    "depthwise_conv_strided_dilated": (
        lambda x, k: ops.depthwise_conv(x, k, strides=2, dilation_rate=2, padding="same"),
        (_u(1, 5, 5, 1), _u(2, 2, 1, 2))),
    "separable_conv": (ops.separable_conv, (_u(1, 4, 4, 2), _u(2, 2, 2, 1), _u(1, 1, 2, 2))),
    "conv_transpose": (lambda x, k: ops.conv_transpose(x, k, strides=2),
                       (_u(1, 3, 3, 2), _u(2, 2, 1, 2))),
    "conv_transpose_1d": (lambda x, k: ops.conv_transpose(x, k, padding="same"),
                          (_u(1, 4, 2), _u(3, 2, 2))),
    "max_pool": (lambda x: ops.max_pool(x, 2), (_u(1, 4, 4, 1),)),
    "average_pool": (lambda x: ops.average_pool(x, 3, strides=2, padding="same"),
                     (_u(1, 5, 4, 1),)),
    "adaptive_average_pool": (lambda x: ops.adaptive_average_pool(x, (2, 3)),
                              (_u(1, 1, 5, 4),)),
    "adaptive_max_pool": (lambda x: ops.adaptive_max_pool(x, 3, data_format="channels_last"),
                          (_u(1, 5, 2),)),
    "depth_to_space": (lambda x: ops.depth_to_space(x, 2), (_u(1, 1, 2, 4),)),
    "space_to_depth": (lambda x: ops.space_to_depth(x, 2), (_u(1, 2, 2, 2),)),
    "unfold": (lambda x: ops.unfold(x, 2, padding=1, stride=2), (_u(1, 2, 3, 3),)),
    "fold": (lambda x: ops.fold(x, (3, 4), 2), (_u(1, 4, 6),)),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_inside_tf_function_matches_eager(name):
    fn, arrays = GRADIENT_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_traced_gradient(fn, *arrays)


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_matches_finite_differences(name):
    fn, arrays = GRADIENT_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_gradient(fn, *arrays)


def test_every_differentiable_nn_op_has_a_gradient_check():
    not_differentiable = {"one_hot", "multi_hot", "ctc_decode",
                          "ctc_loss"}  # computed in float32 by Keras: no float64 check
    covered = {name.split("_")[0] if name.startswith(("conv1d", "conv2d", "conv3d")) else name
               for name in GRADIENT_CASES}
    covered |= {n for n in NN_NAMES for c in GRADIENT_CASES if c.startswith(n)}
    assert set(NN_NAMES) - not_differentiable - {"swish", "hard_swish"} <= covered


@pytest.mark.parametrize("case", kc.first_cases(NN_NAMES), ids=lambda c: c["id"])
def test_traced_matches_eager(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_traced(case)


# traced with the batch unknown: Keras's TF backend compares these ops' two inputs' static
# shapes (None != 2 refuses), as tapeflow does
STATIC_SHAPE_PAIRS = {"psnr"}


@pytest.mark.parametrize("case", [c for c in kc.first_cases(NN_NAMES) if c["args"]
                                  and c["op"] not in STATIC_SHAPE_PAIRS],
                         ids=lambda c: c["id"])
def test_traced_with_unknown_batch_matches_eager(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kc.check_traced(case, unknown_batch=True)


def test_ctc_loss_gradient_flows_to_the_logits():
    logits = tf.Variable(_u(2, 5, 4))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(ops.ctc_loss(np.array([[1, 2], [3, 1]]), logits,
                                          np.array([2, 2]), np.array([5, 4])))
    grad = tape.gradient(loss, logits)
    assert grad.shape == (2, 5, 4) and np.isfinite(np.asarray(grad)).all()
    assert np.all(np.asarray(grad)[1, 4] == 0)  # past the second sequence's length


def test_conv_whose_output_is_empty_raises_keras_error():
    # Keras's designed refusal; TF 2.21's CPU kernel instead returns a (1, 2, 2, 3) tensor
    with pytest.raises(ValueError, match="resulted in an empty output"):
        ops.conv(np.ones((1, 2, 2, 3), "float32"), np.ones((3, 3, 3, 2), "float32"))


def test_crossentropy_of_a_softmax_output_uses_its_logits():
    logits = tf.constant([[1000.0, 0.0, -1000.0]])
    probs = ops.softmax(logits)
    # from the probabilities the loss would be -log(1e-7); from the logits it is exact
    loss = ops.categorical_crossentropy(np.array([[0.0, 0.0, 1.0]], "float32"), probs)
    np.testing.assert_allclose(np.asarray(loss), [2000.0])
    with pytest.warns(UserWarning, match="does not represent logits"):
        ops.categorical_crossentropy(np.array([[0.0, 1.0, 0.0]], "float32"), probs,
                                     from_logits=True)


def test_keras_tensor_input_builds_a_graph_node():
    x = keras.Input((4, 6))
    y = ops.dot_product_attention(x[:, :, None, :], x[:, :, None, :], x[:, :, None, :],
                                  is_causal=True)
    z = ops.layer_normalization(ops.gelu(y), axis=-1)
    model = keras.Model(x, z)
    data = _u(2, 4, 6).astype("float32")
    want = ops.layer_normalization(ops.gelu(ops.dot_product_attention(
        data[:, :, None, :], data[:, :, None, :], data[:, :, None, :], is_causal=True)))
    np.testing.assert_allclose(np.asarray(model(data)), np.asarray(want), rtol=1e-6)


def test_moments_traced_with_unknown_batch():
    fn = tf.function(lambda x: ops.moments(x, [0]),
                     input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    data = _u(5, 3).astype("float32")
    mean, var = fn(tf.constant(data))
    np.testing.assert_allclose(np.asarray(mean), data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(var), data.var(0), rtol=1e-5)


def test_multi_hot_takes_the_old_num_tokens_name():
    out = ops.multi_hot(np.array([[0, 2]]), num_tokens=3)
    np.testing.assert_array_equal(np.asarray(out), [[1.0, 0.0, 1.0]])


def test_sparse_one_hot_and_multi_hot_are_keras_sparse_tensors():
    # measured with Keras 3.15.1 / TF 2.21: one entry per input, 0 for a negative index
    s = ops.one_hot(np.array([[1, -1], [2, 0]]), 3, sparse=True)
    assert isinstance(s, tf.SparseTensor) and s.dtype == tf.float32
    assert np.asarray(s.indices).tolist() == [[0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 1, 0]]
    assert np.asarray(s.values).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert np.asarray(s.dense_shape).tolist() == [2, 2, 3]
    s = ops.one_hot(np.array([1, -1, 2]), 3, axis=0, sparse=True)
    assert np.asarray(s.indices).tolist() == [[1, 0], [0, 1], [2, 2]]
    m = ops.multi_hot(np.array([[1, 2], [0, 0]]), 3, sparse=True)
    assert np.asarray(m.indices).tolist() == [[0, 1], [0, 2], [1, 0]]
    assert np.asarray(m.values).tolist() == [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(ops.convert_to_numpy(m), [[0, 1, 1], [1, 0, 0]])
