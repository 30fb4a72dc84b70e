"""tf.nn's layout, pooling, morphology, loss and CTC ops against TensorFlow 2.21's recorded
answers (tests/ops/fixtures/nn_more.npz, from tools/record_nn_more_fixtures.py), values and
gradients; and TensorFlow's errors, checked in TF 2.21 and hard-coded here."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import tapeflow as tf

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_nn_more_cases",
                                               os.path.join(_HERE, "_nn_more_cases.py"))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
CASES = _cases.CASES
FIXTURE = np.load(os.path.join(_HERE, "fixtures", "nn_more.npz"))

# Cases whose float32 results TF computes in another order (oneDNN convolutions, its exp and
# log1p a ulp from NumPy's, CTC's per-frame normalized float32 scan): compared at this
# relative tolerance; all others must agree to 2e-6.
_LOOSE = {"atrous_conv2d": 1e-5, "atrous_conv2d_valid": 1e-5, "atrous_conv2d_transpose": 1e-5,
          "atrous_conv2d_transpose_valid": 1e-5, "conv_transpose_2d": 1e-5,
          "conv_transpose_1d": 1e-5, "ctc_loss_long": 2e-5, "weighted_xent": 1e-6,
          "log_poisson": 1e-6, "lrn": 1e-6, "lrn_defaults": 1e-6, "lrn_beta1": 1e-6}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    outputs = CASES[name](tf)
    expected = [FIXTURE[f"{name}/{i}"] for i in range(len(outputs))]
    assert f"{name}/{len(outputs)}" not in FIXTURE, "tapeflow returned fewer outputs than TF"
    rtol = _LOOSE.get(name, 2e-6)
    for i, (got, want) in enumerate(zip(outputs, expected)):
        got = np.asarray(got)
        assert got.dtype == want.dtype, (name, i, got.dtype, want.dtype)
        assert got.shape == want.shape, (name, i, got.shape, want.shape)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=f"{name}/{i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{name}/{i}")


# -- errors (TF 2.21's classes and messages) -----------------------------------------------------

_X = np.zeros((1, 4, 4, 3), np.float32)


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.nn.space_to_depth(_X, 3), tf.errors.InvalidArgumentError,
     "Image width 4 and height 4 should be divisible by block_size: 3"),
    (lambda: tf.nn.space_to_depth(_X, 1), tf.errors.InvalidArgumentError,
     "Value for attr 'block_size' of 1 must be at least minimum 2"),
    (lambda: tf.nn.space_to_depth(_X, 2, data_format="NCHW"), tf.errors.NotFoundError,
     'Could not find device for node: {{node SpaceToDepth}} = SpaceToDepth[T=DT_FLOAT, '
     'block_size=2, data_format="NCHW"]'),
    (lambda: tf.nn.depth_to_space(_X, 2), tf.errors.InvalidArgumentError,
     "Input depth dimension 3 should be divisible by: 4"),
    (lambda: tf.nn.space_to_depth(_X[0], 2), tf.errors.InvalidArgumentError,
     "Input rank should be 4 instead of 3"),
    (lambda: tf.space_to_batch(np.zeros((1, 3, 3, 1)), [2, 2], [[0, 0], [0, 1]]),
     tf.errors.InvalidArgumentError, "padded_shape[0]=3 is not divisible by block_shape[0]=2"),
    (lambda: tf.space_to_batch_nd(_X, [2, 2], [[0, 0], [0, 0], [0, 0]]),
     tf.errors.InvalidArgumentError, "paddings should have shape [2, 2] instead of [3,2]"),
    (lambda: tf.space_to_batch_nd(_X, [0, 2], [[0, 0], [0, 0]]),
     tf.errors.InvalidArgumentError,
     "All values in block_shape must be positive, got value, 0 at index 0."),
    (lambda: tf.space_to_batch_nd(_X[0, 0], [2, 2], [[0, 0], [0, 0]]),
     tf.errors.InvalidArgumentError, "input rank should be >= 3 instead of 2"),
    (lambda: tf.batch_to_space(np.zeros((3, 3, 3, 1)), [2, 2], [[0, 0], [0, 0]]),
     tf.errors.InvalidArgumentError,
     "Input batch dimension (3) is not divisible by product of block sizes (4)"),
    (lambda: tf.batch_to_space(np.zeros((4, 2, 2, 1)), [2, 2], [[0, 5], [0, 0]]),
     tf.errors.InvalidArgumentError, "cropped_shape[0]=-1 must be non-negative"),
    (lambda: tf.nn.weighted_cross_entropy_with_logits(np.zeros(2), np.zeros(3), 2.0),
     ValueError, "`logits` and `labels` must have the same shape, received ((3,) vs (2,))."),
    (lambda: tf.nn.lrn(_X.astype(np.float64)), tf.errors.InvalidArgumentError,
     "Value for attr 'T' of double is not in the list of allowed values: half, bfloat16, "
     "float"),
    (lambda: tf.nn.lrn(_X[0]), tf.errors.InvalidArgumentError, "in must be 4-dimensional"),
    (lambda: tf.nn.max_pool_with_argmax(_X, 2, 2, "VALID", data_format="NCHW"), ValueError,
     "`data_format` values other  than 'NHWC' are not supported."),
    (lambda: tf.nn.dilation2d(_X, np.zeros((2, 2, 3), np.float32), [2, 1, 1, 1], "VALID",
                              "NHWC", [1, 1, 1, 1]),
     tf.errors.UnimplementedError, "Stride is only supported across spatial dimensions."),
    (lambda: tf.nn.dilation2d(_X, np.zeros((2, 2, 2), np.float32), [1, 1, 1, 1], "VALID",
                              "NHWC", [1, 1, 1, 1]),
     tf.errors.InvalidArgumentError, "input and filter must have the same depth: 3 vs 2"),
    (lambda: tf.nn.conv_transpose(_X, np.zeros((2, 2, 1, 3)), [1, 2, 3, 4, 5, 6], 1),
     ValueError, "`output_shape` must be of length 3, 4 or 5."),
    (lambda: tf.nn.atrous_conv2d(_X, np.zeros((2, 2, 3, 1), np.float32), 0, "VALID"),
     ValueError, "all values of `dilation_rate` must be positive. Received: "
                 "dilation_rate=[0 0]"),
    (lambda: tf.nn.atrous_conv2d_transpose(_X, np.zeros((2, 2, 1, 3), np.float32),
                                           [1, 5, 5, 1], 0, "VALID"),
     ValueError, "`rate` cannot be less than one. Received: rate=0"),
])
def test_errors_as_tf(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_aliases_are_tfs():
    assert tf.math.softmax is tf.nn.softmax and tf.math.log_softmax is tf.nn.log_softmax
    assert tf.math.l2_normalize is tf.nn.l2_normalize is tf.linalg.l2_normalize
    assert tf.math.zero_fraction is tf.nn.zero_fraction
    assert tf.math.softsign is tf.nn.softsign and tf.nn.lrn is tf.nn.local_response_normalization
    assert tf.nn.space_to_batch is tf.space_to_batch
    # TF 2.21: an empty tensor's zero fraction is nan.
    assert np.isnan(tf.math.zero_fraction(tf.zeros([0])))


def test_layout_ops_trace_with_unknown_batch():
    spec = tf.TensorSpec([None, 4, 4, 2], tf.float32)
    f = tf.function(lambda x: tf.nn.depth_to_space(tf.nn.space_to_depth(x, 2), 2),
                    input_signature=[spec])
    x = np.arange(64, dtype=np.float32).reshape(2, 4, 4, 2)
    np.testing.assert_array_equal(f(x), x)
