"""Records Keras 3's confusion-matrix, F-score, R2, correlation, Sum, top-k and IoU metrics
into tests/keras/fixtures/metrics_more.json (run with a Python that has Keras 3 +
TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_metrics_more.py

Each case is a metric expression (evaluated with `M` = keras.metrics, the text the test
evaluates with tapeflow's) and a kind of data (INPUTS, seeded, stored in the fixture). The
metric is updated with the first batch, then with the second and its sample weights; the
results after each update, the result's dtype, the config and the variables' shapes and
dtypes are recorded, then the result after `reset_state` and after one more update.
`functions` holds the metric functions' values, `errors` Keras's error class and message for
bad arguments, `get` the class and name `keras.metrics.get` gives for string names, and
`model` the logs of evaluate / fit of a small fixed-weight model compiled with metrics by
name and by object.
"""

from __future__ import annotations

import json
import os
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "metrics_more.json")
M = keras.metrics


def _inputs() -> dict:
    """Two batches of each kind of data: (y_true, y_pred) and (y_true, y_pred, weights)."""
    rng = np.random.RandomState(0)
    n, c = 6, 4

    def scores():
        s = rng.rand(n, c).astype("float32")
        return (s / s.sum(-1, keepdims=True)).round(4)

    def batch(kind):
        weights = rng.choice([0.0, 0.5, 1.0, 2.0], n).astype("float32")
        if kind == "binary":
            yt, yp = rng.randint(0, 2, n), rng.rand(n).round(3)
        elif kind == "binary_wide":  # predictions outside [0, 1], and exactly on thresholds
            yt, yp = rng.randint(0, 2, n), np.array([-0.5, 0.0, 0.5, 1.0, 1.5, 0.25])
        elif kind == "binary_2d":
            yt, yp = rng.randint(0, 2, (n, 1)), rng.rand(n, 1).round(3)
        elif kind == "multilabel":
            yt, yp = rng.randint(0, 2, (n, c)), rng.rand(n, c).round(3)
        elif kind == "onehot":
            yt, yp = np.eye(c)[rng.randint(0, c, n)], scores()
        elif kind == "sparse":
            yt, yp = rng.randint(0, c, n), scores()
        elif kind == "sparse_col":
            yt, yp = rng.randint(0, c, (n, 1)), scores()
        elif kind == "sorted_ids":
            yt = rng.randint(0, c, n)
            yp = np.stack([rng.permutation(c) for _ in range(n)]).astype("float32")
        elif kind == "regress":
            yt = rng.randn(n, 3).round(3)
            yp = (yt + 0.5 * rng.randn(n, 3)).round(3)
        elif kind == "ids":
            yt, yp = rng.randint(-1, c + 1, n), rng.randint(0, c, n)
        elif kind == "values":
            yt, yp = rng.randn(n, 2).round(3), None
        else:
            raise ValueError(kind)
        return [_list(yt), _list(yp), _list(weights)]
    kinds = ("binary", "binary_wide", "binary_2d", "multilabel", "onehot", "sparse",
             "sparse_col", "sorted_ids", "regress", "ids", "values")
    return {kind: [batch(kind), batch(kind)] for kind in kinds}


def _list(x):
    return None if x is None else np.asarray(x).tolist()


# name -> (expression, kind)
CASES = {
    # counts
    "tp": ("M.TruePositives()", "binary"),
    "fp_thresholds": ("M.FalsePositives(thresholds=[0.2, 0.5, 0.8])", "binary"),
    "tn_even": ("M.TrueNegatives(thresholds=[0.0, 0.5, 1.0])", "binary_wide"),
    "fn_scalar": ("M.FalseNegatives(thresholds=0.3)", "multilabel"),
    "tp_float64": ("M.TruePositives(dtype='float64')", "binary"),
    "tp_wide": ("M.TruePositives(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0])", "binary_wide"),
    # precision / recall
    "precision": ("M.Precision()", "binary"),
    "precision_2d": ("M.Precision()", "binary_2d"),
    "precision_even": ("M.Precision(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0])", "binary_wide"),
    "precision_uneven": ("M.Precision(thresholds=[0.0, 0.3, 0.9])", "binary_wide"),
    "precision_top_k": ("M.Precision(top_k=2)", "multilabel"),
    "precision_class_id": ("M.Precision(class_id=1)", "multilabel"),
    "precision_top_k_class": ("M.Precision(top_k=2, class_id=2)", "multilabel"),
    "recall": ("M.Recall()", "binary"),
    "recall_thresholds": ("M.Recall(thresholds=[0.3, 0.6])", "multilabel"),
    "recall_top_k": ("M.Recall(top_k=1)", "onehot"),
    "recall_class_id": ("M.Recall(class_id=0, thresholds=0.2)", "onehot"),
    # at-constraint
    "precision_at_recall": ("M.PrecisionAtRecall(0.5)", "binary"),
    "precision_at_recall_11": ("M.PrecisionAtRecall(0.8, num_thresholds=11)", "multilabel"),
    "recall_at_precision": ("M.RecallAtPrecision(0.6)", "binary"),
    "recall_at_precision_wide": ("M.RecallAtPrecision(0.4, num_thresholds=5)", "binary_wide"),
    "sens_at_spec": ("M.SensitivityAtSpecificity(0.5)", "binary"),
    "sens_at_spec_one": ("M.SensitivityAtSpecificity(0.7, num_thresholds=1)", "binary"),
    "spec_at_sens_class": ("M.SpecificityAtSensitivity(0.5, class_id=1)", "multilabel"),
    "spec_at_sens_2": ("M.SpecificityAtSensitivity(0.3, num_thresholds=2)", "binary"),
    # AUC through the shared confusion counts
    "auc": ("M.AUC()", "binary"),
    "auc_pr_2d": ("M.AUC(curve='PR')", "binary_2d"),
    "auc_multilabel": ("M.AUC(num_thresholds=7)", "multilabel"),
    # F-scores
    "f1": ("M.F1Score()", "onehot"),
    "f1_micro": ("M.F1Score(average='micro')", "multilabel"),
    "f1_macro_threshold": ("M.F1Score(average='macro', threshold=0.4)", "multilabel"),
    "f1_weighted": ("M.F1Score(average='weighted')", "onehot"),
    "f1_float64": ("M.F1Score(dtype='float64')", "onehot"),
    "fbeta": ("M.FBetaScore(beta=2.0)", "onehot"),
    "fbeta_macro": ("M.FBetaScore(average='macro', beta=0.5, threshold=0.3)", "multilabel"),
    # R2
    "r2": ("M.R2Score()", "regress"),
    "r2_raw": ("M.R2Score(class_aggregation=None)", "regress"),
    "r2_variance": ("M.R2Score(class_aggregation='variance_weighted_average')", "regress"),
    "r2_adjusted": ("M.R2Score(num_regressors=2)", "regress"),
    "r2_adjusted_fallback": ("M.R2Score(num_regressors=40)", "regress"),
    # correlations, Sum
    "pearson": ("M.PearsonCorrelation()", "regress"),
    "concordance": ("M.ConcordanceCorrelation()", "regress"),
    "sum": ("M.Sum()", "values"),
    "sum_float64": ("M.Sum(dtype='float64')", "values"),
    # top-k accuracies
    "top_k": ("M.TopKCategoricalAccuracy(k=2)", "onehot"),
    "top_k_default": ("M.TopKCategoricalAccuracy()", "onehot"),
    "sparse_top_k": ("M.SparseTopKCategoricalAccuracy(k=2)", "sparse"),
    "sparse_top_k_col": ("M.SparseTopKCategoricalAccuracy(k=1)", "sparse_col"),
    "sparse_top_k_sorted": ("M.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)",
                            "sorted_ids"),
    # IoU
    "iou": ("M.IoU(num_classes=4, target_class_ids=[0, 2])", "ids"),
    "iou_ignore": ("M.IoU(4, [1, 3], ignore_class=0)", "ids"),
    "mean_iou": ("M.MeanIoU(num_classes=4)", "ids"),
    "mean_iou_float": ("M.MeanIoU(4, dtype='float32')", "ids"),
    "mean_iou_scores": ("M.MeanIoU(4, sparse_y_pred=False)", "sparse"),
    "binary_iou": ("M.BinaryIoU()", "binary"),
    "binary_iou_target": ("M.BinaryIoU(target_class_ids=[1], threshold=0.3)", "binary"),
    "one_hot_iou": ("M.OneHotIoU(num_classes=4, target_class_ids=[0, 1])", "onehot"),
    "one_hot_mean_iou": ("M.OneHotMeanIoU(num_classes=4)", "onehot"),
}

FUNCTIONS = {
    "top_k_categorical_accuracy": ("M.top_k_categorical_accuracy", "onehot", {"k": 2}),
    "sparse_top_k_categorical_accuracy": ("M.sparse_top_k_categorical_accuracy", "sparse",
                                          {"k": 3}),
    "sparse_top_k_sorted": ("M.sparse_top_k_categorical_accuracy", "sorted_ids",
                            {"k": 1, "from_sorted_ids": True}),
    "pearson_correlation": ("M.pearson_correlation", "regress", {}),
    "concordance_correlation": ("M.concordance_correlation", "regress", {}),
    "pearson_axis0": ("M.pearson_correlation", "regress", {"axis": 0}),
}

ERRORS = [
    "M.Precision(thresholds=[0.5, 1.5])",
    "M.SensitivityAtSpecificity(1.5)",
    "M.SpecificityAtSensitivity(-0.1)",
    "M.PrecisionAtRecall(2)",
    "M.RecallAtPrecision(0.5, num_thresholds=0)",
    "M.F1Score(average='mean')",
    "M.FBetaScore(beta=2)",
    "M.FBetaScore(beta=-1.0)",
    "M.F1Score(threshold=1)",
    "M.F1Score(threshold=1.5)",
    "M.R2Score(class_aggregation='sum')",
    "M.R2Score(num_regressors=-1)",
    "M.IoU(3, [0, 3])",
    "M.F1Score().update_state([1.0, 0.0], [0.3, 0.2])",
    "M.R2Score().update_state([1.0, 0.0, 2.0], [0.3, 0.2, 1.0])",
    "M.Precision(class_id=1).update_state([1.0, 0.0], [0.3, 0.2])",
]

GET_NAMES = ["precision", "recall", "true_positives", "false_negatives", "f1_score",
             "f_beta_score", "r2_score", "sum", "pearson_correlation",
             "concordance_correlation", "top_k_categorical_accuracy",
             "sparse_top_k_categorical_accuracy", "TopKCategoricalAccuracy", "F1Score",
             "Precision"]


def _array(x):
    """A stored input as the test passes it: floats as float32, ints as int64."""
    x = np.asarray(x)
    return x.astype("float32") if x.dtype.kind == "f" else x


def _call(metric, batch, weighted):
    yt, yp, w = batch
    args = [_array(yt)] if yp is None else [_array(yt), _array(yp)]
    metric.update_state(*args, sample_weight=_array(w) if weighted else None)
    return _value(metric.result())


def _value(x):
    return np.asarray(x).tolist()


def _record_case(expr, batches):
    metric = eval(expr)  # noqa: S307 - the recorder's own expressions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [_call(metric, batches[0], False), _call(metric, batches[1], True)]
    dtype = str(np.asarray(metric.result()).dtype)
    config = metric.get_config()
    variables = [[v.name, list(v.shape), str(v.dtype)] for v in metric.variables]
    metric.reset_state()
    reset = _value(metric.result()) if not expr.startswith(("M.F1", "M.FBeta")) else None
    again = _call(metric, batches[0], False)
    return {"expr": expr, "results": results, "dtype": dtype, "config": config,
            "variables": variables, "reset": reset, "again": again,
            "warnings": sorted({str(w.message) for w in caught})}


def _record_errors():
    out = {}
    for expr in ERRORS:
        try:
            eval(expr)  # noqa: S307
        except Exception as e:  # noqa: BLE001 - recording Keras's class and text
            out[expr] = [type(e).__name__, str(e)]
        else:
            raise AssertionError(f"no error: {expr}")
    return out


def _record_model():
    """A Dense(4, softmax) model with fixed weights, compiled with metrics by name and by
    object: evaluate's logs (batch_size 4: several updates), weighted_metrics with sample
    weights, and the History keys of one epoch of fit."""
    keras.backend.clear_session()  # the objects' automatic names start afresh
    rng = np.random.RandomState(1)
    x = rng.randn(10, 3).astype("float32")
    y = np.eye(4, dtype="float32")[rng.randint(0, 4, 10)]
    weights = rng.choice([0.5, 1.0, 2.0], 10).astype("float32")
    kernel = (3 * rng.randn(3, 4)).round(3).astype("float32")
    bias = rng.randn(4).round(3).astype("float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="softmax")])
    model.set_weights([kernel, bias])
    names = ["precision", "recall", "f1_score", "top_k_categorical_accuracy", "r2_score",
             "true_positives", "pearson_correlation"]
    objects = [M.TopKCategoricalAccuracy(k=2, name="top2"), M.OneHotMeanIoU(4),
               M.PrecisionAtRecall(0.5), M.F1Score(average="macro", name="f1_macro")]
    model.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=names + objects,
                  weighted_metrics=[M.Recall(thresholds=0.3, name="weighted_recall")])
    logs = model.evaluate(x, y, sample_weight=weights, batch_size=4, return_dict=True,
                          verbose=0)
    history = model.fit(x, y, batch_size=5, epochs=1, verbose=0)
    return {"x": x.tolist(), "y": y.tolist(), "weights": weights.tolist(),
            "kernel": kernel.tolist(), "bias": bias.tolist(), "names": names,
            "objects": ["M.TopKCategoricalAccuracy(k=2, name='top2')", "M.OneHotMeanIoU(4)",
                        "M.PrecisionAtRecall(0.5)",
                        "M.F1Score(average='macro', name='f1_macro')"],
            "weighted": "M.Recall(thresholds=0.3, name='weighted_recall')",
            "evaluate": {k: _value(v) for k, v in logs.items()},
            "history_keys": list(history.history)}


def main() -> None:
    inputs = _inputs()
    cases = {name: _record_case(expr, inputs[kind]) | {"kind": kind}
             for name, (expr, kind) in CASES.items()}
    functions = {}
    for name, (expr, kind, kwargs) in FUNCTIONS.items():
        yt, yp, _ = inputs[kind][0]
        functions[name] = {"expr": expr, "kind": kind, "kwargs": kwargs,
                           "value": _value(eval(expr)(_array(yt), _array(yp),  # noqa: S307
                                                      **kwargs))}
    got = {}
    for name in GET_NAMES:
        metric = M.get(name)
        got[name] = [type(metric).__name__, metric.name]
    serialized = M.serialize(M.Precision(thresholds=[0.2, 0.7], name="p"))
    fixture = {"inputs": inputs, "cases": cases, "functions": functions,
               "errors": _record_errors(), "get": got, "serialize": serialized,
               "model": _record_model()}
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
