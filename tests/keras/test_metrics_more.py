"""Keras metrics beyond the basics (confusion-matrix family, F-scores, R2, correlations, Sum,
top-k accuracies, IoU) against Keras 3's answers (TF 2.21 / Keras 3.15, recorded by
tools/record_keras_metrics_more.py into tests/keras/fixtures/metrics_more.json): results
over several update_state calls with sample weights, reset_state, result dtype, config,
variables, errors, `get` by name, and the logs of evaluate / fit."""

import json
import os
import re
import warnings

import numpy as np
import pytest

import tapeflow as tf

M = tf.keras.metrics
FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                      "metrics_more.json")))
INPUTS, CASES = FIXTURE["inputs"], FIXTURE["cases"]


def _array(x):
    """A stored input as the recorder passed it: floats as float32, ints as int64."""
    x = np.asarray(x)
    return x.astype("float32") if x.dtype.kind == "f" else x


def _call(metric, batch, weighted):
    yt, yp, w = batch
    args = [_array(yt)] if yp is None else [_array(yt), _array(yp)]
    metric.update_state(*args, sample_weight=_array(w) if weighted else None)
    return metric.result()


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=2e-6, atol=1e-6)


def _base(name):
    return re.sub(r"_\d+$", "", name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_matches_keras(name):
    case = CASES[name]
    batches = INPUTS[case["kind"]]
    metric = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = _call(metric, batches[0], False)
        _close(first, case["results"][0])
        second = _call(metric, batches[1], True)
    _close(second, case["results"][1])
    assert second.dtype.name == case["dtype"]
    assert sorted({str(w.message) for w in caught}) == case["warnings"]
    config = metric.get_config()
    assert _base(config.pop("name")) == _base(case["config"].pop("name"))
    if not case["expr"].startswith("M.AUC"):  # AUC's own config is not part of these
        assert config == case["config"]
    assert [[v.name.split("/")[-1].split(":")[0], list(v.shape), v.dtype.name]
            for v in metric.variables] == case["variables"]
    metric.reset_state()
    if case["reset"] is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _close(metric.result(), case["reset"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(_call(metric, batches[0], False), case["again"])


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("auc")))
def test_config_round_trips(name):
    metric = eval(CASES[name]["expr"])  # noqa: S307
    config = metric.get_config()
    clone = type(metric).from_config(config)
    assert clone.get_config() == config
    restored = M.deserialize(M.serialize(metric))
    assert type(restored) is type(metric) and restored.get_config() == config


@pytest.mark.parametrize("name", sorted(FIXTURE["functions"]))
def test_metric_functions_match_keras(name):
    case = FIXTURE["functions"][name]
    yt, yp, _ = INPUTS[case["kind"]][0]
    value = eval(case["expr"])(_array(yt), _array(yp), **case["kwargs"])  # noqa: S307
    _close(value, case["value"])
    assert value.dtype == tf.float32


@pytest.mark.parametrize("expr", sorted(FIXTURE["errors"]))
def test_errors_match_keras(expr):
    cls, message = FIXTURE["errors"][expr]
    with pytest.raises(getattr(__builtins__, cls, None) or ValueError) as info:
        eval(expr)  # noqa: S307
    assert type(info.value).__name__ == cls
    assert str(info.value) == message


@pytest.mark.parametrize("name", sorted(FIXTURE["get"]))
def test_get_by_name_matches_keras(name):
    cls, metric_name = FIXTURE["get"][name]
    metric = M.get(name)
    assert type(metric).__name__ == cls
    assert _base(metric.name) == _base(metric_name)


def test_serialize_matches_keras():
    assert M.serialize(M.Precision(thresholds=[0.2, 0.7], name="p")) == FIXTURE["serialize"]
    restored = M.deserialize(FIXTURE["serialize"])
    assert isinstance(restored, M.Precision) and restored.thresholds == [0.2, 0.7]
    assert isinstance(M.deserialize("recall"), M.Recall)


VECTOR = "f1_score"  # average=None: one value per class


def _model(vector=False):
    spec = FIXTURE["model"]
    names = [n for n in spec["names"] if vector or n != VECTOR]
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.Input((3,)),
                                 tf.keras.layers.Dense(4, activation="softmax")])
    model.set_weights([np.array(spec["kernel"], "float32"), np.array(spec["bias"], "float32")])
    objects = [eval(e) for e in spec["objects"]]  # noqa: S307
    model.compile(optimizer="sgd", loss="categorical_crossentropy",
                  metrics=names + objects, weighted_metrics=[eval(spec["weighted"])])
    keys = [k for k in spec["evaluate"] if vector or k != VECTOR]
    return model, spec, keys


def _evaluate(vector):
    model, spec, keys = _model(vector)
    x, y = np.array(spec["x"], "float32"), np.array(spec["y"], "float32")
    logs = model.evaluate(x, y, sample_weight=np.array(spec["weights"], "float32"),
                          batch_size=4, return_dict=True, verbose=0)
    assert sorted(logs) == sorted(keys)
    for key in keys:
        _close(logs[key], spec["evaluate"][key])


def test_evaluate_logs_match_keras():
    _evaluate(vector=False)


def test_evaluate_logs_keep_vector_results_as_keras():
    _evaluate(vector=True)


def test_fit_history_names_match_keras():
    model, spec, keys = _model()
    x, y = np.array(spec["x"], "float32"), np.array(spec["y"], "float32")
    history = model.fit(x, y, batch_size=5, epochs=1, verbose=0)
    assert sorted(history.history) == sorted(k for k in spec["history_keys"] if k in keys)


def test_auc_keeps_its_results_and_takes_per_sample_weights_of_2d_predictions():
    # TF 2.21 / Keras 3.15: AUC of (3, 2) predictions with (3,) sample weights weighs each
    # row (0.9166667); (3, 1) predictions with (3,) weights give 1.0. Both raised before.
    m = M.AUC()
    m.update_state(np.array([[0, 1], [1, 0], [1, 1]], "float32"),
                   np.array([[.2, .9], [.6, .4], [.3, .8]], "float32"), sample_weight=[1, 2, 0.5])
    assert float(m.result()) == pytest.approx(0.9166667, rel=1e-6)
    m = M.AUC()
    m.update_state([0, 1, 1], [[0.2], [0.7], [0.4]], sample_weight=[1, 2, 0.5])
    assert float(m.result()) == 1.0


def test_evenly_spread_thresholds_clip_predictions_as_keras():
    # TF 2.21 / Keras 3.15: thresholds [0, .5, 1] are counted by buckets, so 1.5 is not above
    # 1.0 (tp [2, 2, 0]); uneven thresholds compare directly (tp [2, 2, 2]).
    y, p = [0, 1, 1, 0], [0.2, 1.5, 1.0, 0.5]
    even, uneven = M.Precision(thresholds=[0., .5, 1.]), M.Precision(thresholds=[0., .5, .9])
    even.update_state(y, p)
    uneven.update_state(y, p)
    assert even.true_positives.numpy().tolist() == [2, 2, 0]
    assert uneven.true_positives.numpy().tolist() == [2, 2, 2]


def test_metrics_update_inside_tf_function():
    metric = M.F1Score(average="macro")
    yt = np.eye(3, dtype="float32")[[0, 1, 2, 1]]
    yp = np.array([[.7, .2, .1], [.1, .8, .1], [.3, .3, .4], [.5, .4, .1]], "float32")
    metric.update_state(yt, yp)  # builds the state eagerly
    eager = float(metric.result())
    metric.reset_state()

    @tf.function
    def step(a, b):
        metric.update_state(a, b)
        return metric.result()
    assert float(step(yt, yp)) == pytest.approx(eager)
    recall = M.Recall(thresholds=[0.0, 0.5, 1.0])
    step2 = tf.function(lambda a, b: (recall.update_state(a, b), recall.result())[1])
    assert step2(yt, yp).numpy().tolist() == pytest.approx(
        [1.0, 0.5, 0.0])  # buckets under a trace as eagerly


def test_model_with_these_metrics_saves_and_loads(tmp_path):
    model, spec, keys = _model()
    x, y = np.array(spec["x"], "float32"), np.array(spec["y"], "float32")
    path = str(tmp_path / "metrics.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    logs = loaded.evaluate(x, y, sample_weight=np.array(spec["weights"], "float32"),
                           batch_size=4, return_dict=True, verbose=0)
    for key in keys:  # Keras's evaluate logs, from the loaded model's compiled metrics
        _close(logs[key], spec["evaluate"][key])
