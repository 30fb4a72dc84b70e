"""Keras losses: values checked against Keras 3 (TF 2.21 reference), reductions, weights."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import losses

YT = np.array([[0., 1.], [1., 0.]], np.float32)
YP = np.array([[0.2, 0.8], [0.6, 0.4]], np.float32)

# (loss, value, value with sample_weight=[1, 0.5]) from keras 3 on the reference.
CASES = [
    (losses.MeanSquaredError, {}, 0.099999994, 0.06),
    (losses.MeanAbsoluteError, {}, 0.29999998, 0.19999999),
    (losses.Huber, {}, 0.049999997, 0.03),
    (losses.BinaryCrossentropy, {}, 0.36698455, 0.23927817),
    (losses.CategoricalCrossentropy, {}, 0.36698455, 0.23927817),
    (losses.CategoricalCrossentropy, {"from_logits": True}, 0.51781344, 0.3682787),
    (losses.BinaryCrossentropy, {"from_logits": True}, 0.6299357, 0.46112278),
]


@pytest.mark.parametrize("cls, kwargs, value, weighted", CASES)
def test_values_match_keras(cls, kwargs, value, weighted):
    loss = cls(**kwargs)
    out = loss(YT, YP)
    assert out.dtype == tf.float32 and out.shape == ()
    np.testing.assert_allclose(out.numpy(), value, rtol=1e-5)
    np.testing.assert_allclose(loss(YT, YP, sample_weight=[1., 0.5]).numpy(), weighted, rtol=1e-5)


def test_sparse_categorical_crossentropy_matches_keras():
    labels = np.array([1, 0])
    np.testing.assert_allclose(losses.SparseCategoricalCrossentropy()(labels, YP).numpy(),
                               0.36698455, rtol=1e-5)
    per_example = losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)(labels, YP)
    np.testing.assert_allclose(per_example.numpy(), [0.437488, 0.59813887], rtol=1e-5)


def test_reductions():
    np.testing.assert_allclose(losses.MeanSquaredError(reduction="sum")(YP, YP * 2).numpy(),
                               0.6, rtol=1e-6)
    none = losses.MeanSquaredError(reduction="none")(YP, YP * 2)
    np.testing.assert_allclose(none.numpy(), [0.34, 0.26], rtol=1e-5)
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="avg")


def test_function_forms_are_per_example():
    np.testing.assert_allclose(losses.mean_squared_error(YP, YP * 2).numpy(), [0.34, 0.26],
                               rtol=1e-5)
    assert losses.get("mse") is losses.mean_squared_error
    assert isinstance(losses.get("CategoricalCrossentropy"), losses.CategoricalCrossentropy)
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        losses.get("nope")


def test_gradient_flows_through_losses():
    p = tf.Variable(YP)
    with tf.GradientTape() as tape:
        loss = losses.CategoricalCrossentropy(from_logits=True)(YT, p)
    g = tape.gradient(loss, p).numpy()
    soft = np.exp(YP) / np.exp(YP).sum(1, keepdims=True)
    np.testing.assert_allclose(g, (soft - YT) / 2, rtol=1e-5)


def test_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match="must have the same shape"):
        losses.categorical_crossentropy(np.ones((2, 3), "float32"), YP)


def test_names_and_defaults():
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.Huber().name == "huber_loss"
    assert losses.BinaryCrossentropy().reduction == "sum_over_batch_size"


@pytest.mark.parametrize("cls", [losses.MeanSquaredError, losses.BinaryCrossentropy])
def test_mean_reduction_under_a_batch_of_unknown_size(cls):
    # The count to divide by is known only when the graph runs (it raised at trace before).
    loss = cls()

    @tf.function(input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None, 2])])
    def traced(y_true, y_pred):
        return loss(y_true, y_pred)

    for rows in (2, 1, 0):
        expected = loss(YT[:rows], YP[:rows]).numpy() if rows else 0.0
        np.testing.assert_allclose(traced(YT[:rows], YP[:rows]).numpy(), expected, rtol=1e-6)


def test_loss_objects_squeeze_a_trailing_axis_of_one_as_keras():
    # Keras 3's LossFunctionWrapper makes ranks equal first: labels (n,) with logits (n, 1)
    # give Keras's 0.48858532 (TF 2.21), where the bare function would refuse the ranks.
    labels = np.array([1.0, 0.0, 1.0], np.float32)
    logits = np.array([[0.3], [-0.2], [1.0]], np.float32)
    bce = losses.BinaryCrossentropy(from_logits=True)
    np.testing.assert_allclose(bce(labels, logits).numpy(), 0.48858532, rtol=1e-6)
    np.testing.assert_allclose(bce(labels[:, None], logits[:, 0]).numpy(), 0.48858532,
                               rtol=1e-6)
