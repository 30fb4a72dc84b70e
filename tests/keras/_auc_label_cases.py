"""AUC over several labels: `multi_label=True` (one curve per label, averaged, or weighted
by `label_weights`) and `label_weights` on one pooled curve, with sample weights, every
curve and summation, lazy and given `num_labels`, `reset_state`, configs and the errors.
Written once for Keras and tapeflow (`record(keras)`); recorded by
tools/record_keras_behaviour.py."""

import numpy as np


def _data():
    rng = np.random.default_rng(3)
    y_true = (rng.random((12, 3)) > 0.5).astype("float32")
    y_true[:, 2] = 0.0  # a label with no positives: its ROC AUC has no true-positive rate
    y_true[0, 2] = 1.0
    y_pred = rng.random((12, 3)).astype("float32")
    weights = rng.random(12).astype("float32")
    return y_true, y_pred, weights


def _error(make):
    try:
        make()
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def _config(metric):
    config = dict(metric.get_config())
    weights = config.get("label_weights")
    if weights is not None:
        config["label_weights"] = [float(w) for w in np.asarray(weights)]
    config.pop("dtype", None)
    return config


def record(keras):
    """Each case's result, rounded to float32's digits, and what the errors say."""
    y_true, y_pred, weights = _data()
    seen = {}
    for curve in ("ROC", "PR"):
        for summation in ("interpolation", "minoring", "majoring"):
            for num_labels in (None, 3):
                m = keras.metrics.AUC(num_thresholds=11, curve=curve, multi_label=True,
                                      summation_method=summation, num_labels=num_labels)
                m.update_state(y_true, y_pred)
                m.update_state(y_true[:5], y_pred[:5] ** 2, sample_weight=weights[:5])
                seen[f"multi {curve} {summation} {num_labels}"] = float(m.result())
    beyond = keras.metrics.AUC(num_thresholds=11, multi_label=True)
    beyond.update_state(y_true, y_pred * 1.5 - 0.2)  # clipped to [0, 1], as Keras counts
    seen["multi predictions beyond [0, 1]"] = float(beyond.result())
    label_weights = [0.5, 2.0, 1.0]
    for curve in ("ROC", "PR"):
        multi = keras.metrics.AUC(multi_label=True, label_weights=label_weights, curve=curve)
        multi.update_state(y_true, y_pred, sample_weight=weights)
        seen[f"multi weighted {curve}"] = float(multi.result())
        pooled = keras.metrics.AUC(label_weights=label_weights, curve=curve)
        pooled.update_state(y_true, y_pred, sample_weight=weights)
        seen[f"pooled weighted {curve}"] = float(pooled.result())
    given = keras.metrics.AUC(thresholds=[0.25, 0.5, 0.75], multi_label=True)
    given.update_state(y_true, y_pred)
    seen["given thresholds"] = float(given.result())
    logits = keras.metrics.AUC(multi_label=True, from_logits=True)
    logits.update_state(y_true, (y_pred - 0.5) * 4)
    seen["from logits"] = float(logits.result())
    reset = keras.metrics.AUC(multi_label=True)
    reset.update_state(y_true, y_pred)
    reset.reset_state()
    reset.update_state(y_true, 1 - y_pred)
    seen["after reset"] = float(reset.result())
    seen["counts shape"] = list(np.asarray(reset.true_positives).shape)
    seen["variables"] = [v.name for v in reset.variables]
    seen["config"] = _config(keras.metrics.AUC(multi_label=True, num_labels=3,
                                               label_weights=label_weights, name="auc_ml"))
    round_trip = keras.metrics.AUC.from_config(seen["config"])
    seen["config round trip"] = _config(round_trip)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy",
                  metrics=[keras.metrics.AUC(multi_label=True, name="auc")])
    history = model.fit(y_pred, y_true, epochs=2, batch_size=4, verbose=0)
    seen["fit history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
    seen["num_labels without multi_label"] = _error(
        lambda: keras.metrics.AUC(num_labels=3))
    seen["rank 3 predictions"] = _error(
        lambda: keras.metrics.AUC(multi_label=True).update_state(
            y_true[:, :, None], y_pred[:, :, None]))
    return seen
