"""compile() metrics whose log names Keras 3 changes (a repeated metric logs as `name_1`, a
weighted one under a taken name as `weighted_name`, per-output ones as `<output>_name`) while
the metric objects keep their own names; `metrics`' order and `evaluate`'s list follow from
that. Written once for Keras and tapeflow (`record(keras)`); recorded by
tools/record_keras_behaviour.py."""

import numpy as np


def record(keras):
    """What a user sees: history keys, metric object names, `metrics_names`, `evaluate`'s
    list (its values rounded to 5 digits) and the metrics' state variables."""
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.random((8, 3)).astype("float32")
    y = rng.random((8, 1)).astype("float32")
    weights = np.ones(8)
    mae, mae_again = keras.metrics.MeanAbsoluteError(), keras.metrics.MeanAbsoluteError()
    mse = keras.metrics.MeanSquaredError()
    single = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    single.compile("sgd", "mse", metrics=[mae, mae_again], weighted_metrics=[mse, "mae"])
    history = single.fit(x, y, epochs=1, verbose=0, sample_weight=weights)
    evaluated = single.evaluate(x, y, verbose=0, sample_weight=weights)
    seen = {"single": {
        "history": sorted(history.history), "objects": [mae.name, mae_again.name, mse.name],
        "metrics_names": single.metrics_names,
        "evaluate": [round(float(v), 5) for v in evaluated],
        "variables": [[v.name, v.path] for v in single.metrics_variables]}}
    inputs = keras.Input((3,))
    outputs = [keras.layers.Dense(1, name=name)(inputs) for name in ("o1", "o2")]
    multi = keras.Model(inputs, outputs)
    first, second = keras.metrics.MeanAbsoluteError(), keras.metrics.MeanAbsoluteError()
    multi.compile("sgd", ["mse", "mse"], metrics=[[first], [second]])
    history = multi.fit(x, [y, y], epochs=1, verbose=0)
    evaluated = multi.evaluate(x, [y, y], verbose=0)
    seen["multi"] = {
        "history": sorted(history.history), "objects": [first.name, second.name],
        "metrics": [m.name for m in multi.metrics],
        "evaluate": [round(float(v), 5) for v in evaluated]}
    return seen
