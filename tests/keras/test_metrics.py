"""Keras metrics: accumulated values checked against Keras 3 (TF 2.21 reference)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import metrics

YT = np.array([0, 1, 1, 0, 1], np.float32)
YP = np.array([0.1, 0.8, 0.4, 0.6, 0.9], np.float32)
PC = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.3, 0.5]], np.float32)


def _result(metric, *updates):
    for args, kwargs in updates:
        metric.update_state(*args, **kwargs)
    return float(metric.result().numpy())


def test_auc_roc_pr_and_minoring_match_keras():
    assert _result(metrics.AUC(), ((YT, YP), {})) == pytest.approx(0.8333334, rel=1e-6)
    assert _result(metrics.AUC(curve="PR"), ((YT, YP), {})) == pytest.approx(0.904106, rel=1e-5)
    m = metrics.AUC(num_thresholds=7, summation_method="minoring")
    assert _result(m, ((YT, YP), {"sample_weight": [1, 2, 1, 1, 0.5]})) == pytest.approx(
        0.85714287, rel=1e-6)


def test_accuracies_match_keras():
    assert _result(metrics.BinaryAccuracy(), ((YT, YP), {})) == pytest.approx(0.6)
    assert _result(metrics.SparseCategoricalAccuracy(),
                   ((np.array([1, 2, 2]), PC), {})) == pytest.approx(2 / 3)
    assert _result(metrics.CategoricalAccuracy(),
                   ((np.eye(3, dtype="float32")[[1, 0, 0]], PC), {})) == pytest.approx(2 / 3)
    assert _result(metrics.Accuracy(), (([1, 2, 3], [1, 2, 4]), {})) == pytest.approx(2 / 3)


def test_mean_accumulates_with_weights_and_resets():
    m = metrics.Mean()
    value = _result(m, (([1., 2., 3.],), {}), (([[4.], [5.]],), {"sample_weight": [1., 3.]}))
    assert value == pytest.approx(3.5714285)  # (6 + 4 + 15) / (3 + 4)
    m.reset_state()
    assert float(m.result().numpy()) == 0.0


def test_mse_metric_and_call_form():
    m = metrics.MeanSquaredError()
    assert float(m(PC, PC * 2).numpy()) == pytest.approx(0.20666666, rel=1e-6)


def test_names():
    assert metrics.Accuracy().name == "accuracy"
    assert metrics.SparseCategoricalAccuracy().name == "sparse_categorical_accuracy"
    assert metrics.Mean().name == "mean"
    assert metrics.AUC().name.startswith("auc")
    assert isinstance(metrics.get("AUC"), metrics.AUC)
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        metrics.get("nope")


def test_metrics_take_floatx_as_their_dtype():
    # TF 2.21 / Keras 3.15's answers under set_floatx("float64"): float64 state and results;
    # a float32 input is cast up (1/3 in float32, then float64).
    keras = tf.keras
    keras.backend.set_floatx("float64")
    try:
        mean = keras.metrics.Mean()
        mean.update_state(np.float32(1 / 3))
        assert mean.result().dtype == tf.float64
        assert mean.result().numpy() == np.float64(np.float32(1 / 3))
        accuracy = keras.metrics.Accuracy()
        accuracy.update_state(np.array([1, 2]), np.array([1, 3]))
        assert accuracy.result().dtype == tf.float64
        assert keras.metrics.binary_accuracy(np.array([1.0, 0.0]),
                                             np.array([0.7, 0.7])).dtype == tf.float64
        assert keras.metrics.MeanSquaredError().variables[0].dtype == tf.float64
    finally:
        keras.backend.set_floatx("float32")
    assert keras.metrics.Mean().result().dtype == tf.float32


def test_auc_config_is_kerass_and_round_trips():
    # Keras 3.15's AUC configs (thresholds listed only where given).
    auc = tf.keras.metrics.AUC(name="auc")
    assert auc.get_config() == {
        "name": "auc", "dtype": "float32", "num_thresholds": 200, "curve": "ROC",
        "summation_method": "interpolation", "multi_label": False, "num_labels": None,
        "label_weights": None, "from_logits": False}
    given = tf.keras.metrics.AUC(thresholds=[0.3, 0.7], name="auc_pr", curve="PR").get_config()
    assert given["num_thresholds"] == 4 and given["thresholds"] == [0.3, 0.7]
    assert tf.keras.metrics.AUC.from_config(given).get_config() == given
