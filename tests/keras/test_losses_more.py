"""Keras 3's losses against its numbers (tests/keras/fixtures/losses_more.json, recorded by
tools/record_keras_losses_more.py): values, dtypes and shapes eagerly and under tf.function,
gradients with respect to y_pred, configs and their round trip, errors, `get` by name, and
models compiled with these losses fit and evaluated with sample weights."""

import json
import os
import re
import types

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

with open(os.path.join(os.path.dirname(__file__), "fixtures", "losses_more.json")) as f:
    FIX = json.load(f)
INPUTS = {k: np.array(v["value"], v["dtype"]) for k, v in FIX["inputs"].items()}
L, M = tf.keras.losses, tf.keras.metrics
TOL = dict(rtol=2e-5, atol=2e-5)


def _run(case, y_pred):
    obj = eval(case["expr"])
    weight = case["sample_weight"]
    y_true = tf.constant(INPUTS[case["y_true"]])
    if isinstance(obj, L.Loss):
        return obj, obj(y_true, y_pred, sample_weight=None if weight is None
                        else tf.constant(INPUTS[weight]))
    return obj, obj(y_true, y_pred, **case["options"].get("kwargs", {}))


LOSS_CASES = sorted(k for k, v in FIX["losses"].items() if "error" not in v)


@pytest.mark.parametrize("name", LOSS_CASES)
def test_loss_value_dtype_and_gradient(name):
    case = FIX["losses"][name]
    y_pred = tf.Variable(INPUTS[case["y_pred"]])
    with tf.GradientTape() as tape:
        obj, out = _run(case, y_pred)
        total = tf.reduce_sum(out)
    assert out.dtype.name == case["dtype"]
    assert list(out.shape) == case["shape"]
    np.testing.assert_allclose(out.numpy(), np.array(case["value"]), **TOL)
    grad = tape.gradient(total, y_pred)
    np.testing.assert_allclose(grad.numpy(), np.array(case["grad"]), rtol=1e-4, atol=1e-4)
    if case["config"] is not None:
        config = obj.get_config()
        expected = {**case["config"], **_kept_beyond_keras(obj)}
        assert _lists(config) == expected
        assert _lists(type(obj).from_config(config).get_config()) == expected


def _kept_beyond_keras(obj):
    """Keras 3's CosineSimilarity config drops `axis` (a reload computes along -1);
    tapeflow keeps it, which Keras's constructor accepts."""
    return {"axis": obj.axis} if type(obj).__name__ == "CosineSimilarity" else {}


@pytest.mark.parametrize("name", LOSS_CASES)
def test_loss_under_tf_function(name):
    case = FIX["losses"][name]
    traced = tf.function(lambda y: _run(case, y)[1])(tf.constant(INPUTS[case["y_pred"]]))
    np.testing.assert_allclose(traced.numpy(), np.array(case["traced"]), **TOL)


def test_keras_rejects_these_shapes_too():
    case = FIX["losses"]["msle_sum"]
    assert case["error"] == "InvalidArgumentError"  # TF 2.21: weights (3, 4) on losses (3,)
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(case, tf.constant(INPUTS[case["y_pred"]]))


@pytest.mark.parametrize("name", sorted(FIX["errors"]))
def test_errors_as_keras(name):
    case = FIX["errors"][name]
    with pytest.raises(getattr(tf.errors, case["class"], None) or eval(case["class"])) as e:
        eval(case["expr"])
    assert _sorted_sets(str(e.value)) == _sorted_sets(case["message"])


def _sorted_sets(message):
    """The message with each {...} set's items sorted (Python prints sets in hash order)."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", ")))
                  + "}", message)


def test_get_by_name_as_keras():
    for key, expected in FIX["gets"].items():
        kind, name = key.split(".", 1)
        obj = (L if kind == "losses" else M).get(name)
        got = type(obj).__name__ if isinstance(obj, (L.Loss, M.Metric)) else obj.__name__
        assert got == expected, key


def test_reduction_keys():
    assert L.Reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")
    assert L.Reduction.SUM_OVER_BATCH_SIZE == "sum_over_batch_size"
    L.Reduction.validate("auto")


def test_aliases_are_keras_functions():
    assert L.kld is L.KLD is L.kullback_leibler_divergence is L.kl_divergence
    assert L.logcosh is L.log_cosh and L.logcosh.__name__ == "log_cosh"
    assert L.mape is L.MAPE is L.mean_absolute_percentage_error
    assert L.msle is L.MSLE is L.mean_squared_logarithmic_error
    for name in ("binary_focal_crossentropy", "categorical_focal_crossentropy",
                 "categorical_hinge", "hinge", "huber", "kld", "kullback_leibler_divergence",
                 "logcosh", "mape", "msle", "poisson", "squared_hinge", "binary_crossentropy",
                 "categorical_crossentropy", "sparse_categorical_crossentropy"):
        assert getattr(M, name) is getattr(L, name), name


def test_circle_masks_zero_losses_out_of_the_mean():
    # Keras divides by the number of rows with a positive loss, not the batch size.
    case = FIX["losses"]["circle_cls"]
    per_row = FIX["losses"]["circle_none"]["value"]
    assert 0.0 in per_row
    loss = L.Circle(gamma=3.0)(INPUTS["emb_labels"], INPUTS["emb"])
    positive = [v for v in per_row if v > 0]
    np.testing.assert_allclose(float(loss), sum(positive) / len(positive), rtol=1e-5)
    assert case["value"] > 0


def test_keras_mask_on_predictions_weights_the_loss():
    # A Keras mask on y_pred (e.g. from Embedding(mask_zero=True)) drops the masked entries
    # from the mean, as Keras's Loss.__call__ does.
    from tapeflow.keras.layers.layer import set_keras_mask
    y_true = tf.constant([[1.0], [2.0], [3.0], [4.0]])
    y_pred = tf.constant([[0.0], [0.0], [0.0], [0.0]])
    set_keras_mask(y_pred, tf.constant([True, False, True, True]))
    assert float(L.MeanSquaredError()(y_true, y_pred)) == pytest.approx((1 + 9 + 16) / 3)
    assert float(L.MeanSquaredError(reduction="sum")(y_true, y_pred)) == 26.0
    metric = M.MeanSquaredError()
    metric.update_state(y_true, y_pred)
    assert float(metric.result()) == pytest.approx(26 / 3)


def _lists(x):
    if isinstance(x, (list, tuple)):
        return [_lists(v) for v in x]
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    return x


def _model(case):
    data = FIX["fit_data"]
    arr = {k: np.array(v["value"], v["dtype"]) for k, v in data.items() if k != "targets"}
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(
        case["units"], activation=case["activation"])])
    model.layers[0].set_weights([arr["kernel"], arr["bias"]])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss=eval(case["loss"]),
                  metrics=eval(case["metrics"]))
    target = data["targets"][case["target"]]
    return model, arr["x"], np.array(target["value"], target["dtype"]), arr["sw"]


@pytest.mark.parametrize("name", sorted(FIX["fit"]))
def test_fit_and_evaluate_as_keras(name):
    case = FIX["fit"][name]
    model, x, y, sw = _model(case)
    history = model.fit(x, y, sample_weight=sw, batch_size=4, epochs=2, shuffle=False,
                        verbose=0)
    assert sorted(history.history) == sorted(case["history"])
    for key, values in case["history"].items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-4, atol=1e-5,
                                   err_msg=key)
    evaluated = model.evaluate(x, y, sample_weight=sw, batch_size=4, verbose=0,
                               return_dict=True)
    for key, value in case["evaluate"].items():
        np.testing.assert_allclose(evaluated[key], value, rtol=1e-4, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("loss", [
    "L.BinaryFocalCrossentropy(from_logits=True, gamma=1.0)", "L.Tversky(alpha=0.2, beta=0.8)",
    "L.CategoricalFocalCrossentropy(alpha=[0.2, 0.3, 0.5])", "L.Circle(gamma=4.0)",
    "L.CategoricalGeneralizedCrossEntropy(q=0.3)", "L.LogCosh()", "L.CTC()"])
def test_saved_keras_file_keeps_the_loss(tmp_path, loss):
    model, *_ = _model({"units": 3, "activation": None, "loss": loss, "metrics": "[]",
                        "target": "pos"})
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    original = eval(loss)
    assert type(loaded.loss) is type(original)
    assert _lists(loaded.loss.get_config()) == _lists(original.get_config())


def test_mixed_namespace():
    assert isinstance(L, types.ModuleType) and L.Loss is keras.losses.Loss


def test_masked_sequence_model_loss_and_metrics_as_keras():
    # Embedding(mask_zero=True) -> SimpleRNN(return_sequences=True): the RNN's output mask
    # drops the padded steps from the loss and the loss-metrics' means (Keras 3; the values
    # are TF 2.21's answers). RootMeanSquaredError ignores masks, as Keras's does.
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [1, 1, 2, 3]], np.int32)
    y = np.arange(12, dtype=np.float32).reshape(3, 4, 1) / 10
    model = keras.Sequential([keras.Input((4,), dtype="int32"),
                              keras.layers.Embedding(5, 2, mask_zero=True),
                              keras.layers.SimpleRNN(1, return_sequences=True)])
    model.layers[0].set_weights([np.arange(10, dtype=np.float32).reshape(5, 2) / 7])
    model.layers[1].set_weights([np.array([[0.3], [-0.2]], np.float32),
                                 np.array([[0.5]], np.float32), np.array([0.1], np.float32)])
    model.compile("sgd", "mse", metrics=["mae", M.RootMeanSquaredError(), M.LogCoshError()])
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    expected = {"logcosh": 0.16257524490356445, "loss": 0.35565194487571716,
                "mae": 0.5028640627861023, "root_mean_squared_error": 0.5096675753593445}
    for key, value in expected.items():
        assert logs[key] == pytest.approx(value, rel=1e-5), key
    history = model.fit(x, y, epochs=2, verbose=0, batch_size=2, shuffle=False).history
    np.testing.assert_allclose(history["loss"], [0.21715731918811798, 0.19055302441120148],
                               rtol=1e-5)
    np.testing.assert_allclose(history["mae"], [0.5020314455032349, 0.4783804416656494],
                               rtol=1e-5)
