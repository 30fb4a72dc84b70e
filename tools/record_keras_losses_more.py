"""Records Keras 3's losses and its loss-wrapping metrics into
tests/keras/fixtures/losses_more.json (run with a Python that has Keras 3 + TensorFlow;
tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_losses_more.py

`inputs` are fixed arrays (name -> value, dtype). `losses`: a loss class or function (an
expression evaluated with `L` = tf.keras.losses, the text the test evaluates with tapeflow's)
called on named inputs (and a sample weight), eagerly and under tf.function: the value, its
dtype and shape, the gradient of sum(value) with respect to y_pred, and a class's config.
`metrics`: a metric (`M` = tf.keras.metrics) updated with several (y_true, y_pred,
sample_weight) batches: the result after each, its dtype, the config, the result after
reset_state. `errors`: Keras's error class and message. `fit`: a Dense model with fixed
weights compiled with a loss and metrics given by name or object, fit for 2 epochs with
sample weights: History and evaluate's results.
"""

from __future__ import annotations

import json
import os
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "losses_more.json")


def _merged(*modules):
    """keras.losses' names plus tf.keras's legacy aliases ('mape', 'KLD'): tapeflow's
    tf.keras.losses has both."""
    names = {}
    for module in modules:
        names.update({k: getattr(module, k) for k in dir(module) if not k.startswith("_")})
    return types.SimpleNamespace(**names)


L = _merged(keras.losses, tf.keras.losses)
M = _merged(keras.metrics, tf.keras.metrics)


def _inputs() -> dict:
    rng = np.random.default_rng(7)
    f = np.float32
    probs = rng.random((3, 4)).astype(f) + 0.05
    emb = rng.normal(size=(6, 3)).astype(f)
    seg_p = rng.random((2, 4, 4)).astype(f)
    return {
        "reg_t": (rng.random((3, 4)) * 2 - 0.5).astype(f),
        "reg_p": (rng.random((3, 4)) * 2 - 0.5).astype(f),
        "reg_t0": np.array([[0.0, 1.0, -2.0, 0.5], [3.0, 0.0, 1e-9, 2.0],
                            [1.0, 1.0, 1.0, 1.0]], f),
        "big_err": np.array([[30.0, -40.0, 0.1, 200.0], [0.0, 1.0, 2.0, 3.0],
                             [-1.0, -90.0, 5.0, 0.5]], f),
        "vec_t": rng.random(5).astype(f), "vec_p": rng.random(5).astype(f),
        "col_p": rng.random((5, 1)).astype(f),
        "onehot": np.eye(4, dtype=f)[[1, 3, 0]],
        "probs": probs / probs.sum(-1, keepdims=True),
        "probs_raw": probs,
        "probs_edge": np.array([[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0],
                                [1e-9, 0.3, 0.3, 0.4]], f),
        "logits": (rng.normal(size=(3, 4)) * 3).astype(f),
        "bin_t": rng.integers(0, 2, (3, 4)).astype(f),
        "bin_p": rng.random((3, 4)).astype(f),
        "bin_logits": np.array([[25.0, -30.0, 0.5, -0.2], [3.0, -4.0, 80.0, -1.0],
                                [0.0, 1.5, -2.5, 12.0]], f),
        "pm1_t": rng.choice([-1.0, 1.0], (3, 4)).astype(f),
        "nonbin_t": np.array([[0.5, 1.0, 0.0, -1.0], [1.0, 0.0, 1.0, 0.0],
                              [2.0, 0.0, 1.0, 1.0]], f),
        "scores": (rng.normal(size=(3, 4))).astype(f),
        "sw": np.array([0.5, 2.0, 1.0], f), "sw0": np.array([0.0, 0.0, 0.0], f),
        "sw2": rng.random((3, 4)).astype(f), "sw5": np.array([1.0, 0.0, 2.0, 1.0, 0.5], f),
        "int_t": np.array([1, 3, 0], np.int32), "int_col": np.array([[2], [0], [1]], np.int32),
        "seg_t": rng.integers(0, 2, (2, 4, 4)).astype(f), "seg_p": seg_p,
        "emb": emb / np.linalg.norm(emb, axis=-1, keepdims=True),
        "emb_labels": np.array([0, 0, 1, 1, 2, 0], np.int32),
        "emb_unique": np.array([0, 1, 2, 3, 4, 5], np.int32),
        "ctc_t": np.array([[1, 2, 2, 0], [3, 1, 0, 0]], np.int32),
        "ctc_p": rng.normal(size=(2, 6, 4)).astype(f),
        "sw_ctc": np.array([1.0, 3.0], f), "sw_seg": np.array([2.0, 0.5], f),
        "emb_sw": np.array([1.0, 2.0, 0.0, 1.0, 1.0, 3.0], f),
    }


# name -> (expression, y_true, y_pred, sample_weight, options)
CASES = {
    # regression
    "mape_cls": ("L.MeanAbsolutePercentageError()", "reg_t", "reg_p", None, {}),
    "mape_zero": ("L.MeanAbsolutePercentageError()", "reg_t0", "reg_p", "sw", {}),
    "mape_fn": ("L.mean_absolute_percentage_error", "reg_t", "reg_p", None, {}),
    "MAPE": ("L.MAPE", "reg_t", "reg_p", None, {}),
    "msle_cls": ("L.MeanSquaredLogarithmicError()", "reg_t", "reg_p", "sw", {}),
    "msle_fn": ("L.msle", "reg_t0", "reg_p", None, {}),
    "msle_sum": ("L.MeanSquaredLogarithmicError(reduction='sum')", "reg_t", "reg_p", "sw2", {}),
    "cos_cls": ("L.CosineSimilarity()", "reg_t", "reg_p", "sw", {}),
    "cos_axis0": ("L.CosineSimilarity(axis=0)", "reg_t", "reg_p", None, {}),
    "cos_fn": ("L.cosine_similarity", "reg_t", "reg_p", None, {}),
    "cos_none": ("L.CosineSimilarity(reduction=None)", "reg_t0", "reg_p", None, {}),
    "logcosh_cls": ("L.LogCosh()", "reg_t", "reg_p", "sw", {}),
    "logcosh_big": ("L.LogCosh(reduction='none')", "reg_t", "big_err", None, {}),
    "logcosh_fn": ("L.logcosh", "reg_t", "big_err", None, {}),
    "logcosh_f64": ("L.LogCosh(dtype='float64')", "reg_t", "reg_p", None, {}),
    "logcosh_rank1": ("L.LogCosh()", "vec_t", "col_p", None, {}),
    "logcosh_rank1_fn": ("L.logcosh", "vec_t", "vec_p", None, {}),
    "poisson_cls": ("L.Poisson()", "bin_t", "bin_p", "sw", {}),
    "poisson_fn": ("L.poisson", "reg_t", "probs", None, {}),
    "kld_cls": ("L.KLDivergence()", "onehot", "probs", "sw", {}),
    "kld_edge": ("L.KLDivergence(reduction='sum')", "probs", "probs_edge", None, {}),
    "kld_fn": ("L.kld", "probs_edge", "probs", None, {}),
    "kullback_leibler_divergence": ("L.kullback_leibler_divergence", "probs", "probs_raw",
                                    None, {}),
    "KLD": ("L.KLD", "onehot", "probs", None, {}),
    # hinge
    "hinge_pm1": ("L.Hinge()", "pm1_t", "scores", None, {}),
    "hinge_binary": ("L.Hinge()", "bin_t", "scores", "sw", {}),
    "hinge_nonbinary": ("L.hinge", "nonbin_t", "scores", None, {}),
    "hinge_mwsw": ("L.Hinge(reduction='mean_with_sample_weight')", "bin_t", "scores", "sw",
                   {}),
    "squared_hinge_cls": ("L.SquaredHinge()", "bin_t", "scores", "sw", {}),
    "squared_hinge_fn": ("L.squared_hinge", "pm1_t", "scores", None, {}),
    "categorical_hinge_cls": ("L.CategoricalHinge()", "onehot", "scores", "sw", {}),
    "categorical_hinge_fn": ("L.categorical_hinge", "onehot", "probs", None, {}),
    # focal
    "bfce_default": ("L.BinaryFocalCrossentropy()", "bin_t", "bin_p", None, {}),
    "bfce_balanced": ("L.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, "
                      "gamma=1.5)", "bin_t", "bin_p", "sw", {}),
    "bfce_logits": ("L.BinaryFocalCrossentropy(from_logits=True)", "bin_t", "bin_logits",
                    "sw", {}),
    "bfce_logits_smooth": ("L.BinaryFocalCrossentropy(from_logits=True, label_smoothing=0.2, "
                           "gamma=0.0)", "bin_t", "bin_logits", None, {}),
    "bfce_axis0": ("L.BinaryFocalCrossentropy(axis=0, reduction=None)", "bin_t", "bin_p",
                   None, {}),
    "bfce_fn": ("L.binary_focal_crossentropy", "bin_t", "bin_p", None,
                {"kwargs": {"gamma": 3.0}}),
    "cfce_default": ("L.CategoricalFocalCrossentropy()", "onehot", "probs", None, {}),
    "cfce_alpha_list": ("L.CategoricalFocalCrossentropy(alpha=[0.1, 0.2, 0.3, 0.4], "
                        "gamma=1.0)", "onehot", "probs_raw", "sw", {}),
    "cfce_logits": ("L.CategoricalFocalCrossentropy(from_logits=True, label_smoothing=0.1)",
                    "onehot", "logits", "sw", {}),
    "cfce_edge": ("L.CategoricalFocalCrossentropy(reduction='sum')", "onehot", "probs_edge",
                  None, {}),
    "cfce_fn": ("L.categorical_focal_crossentropy", "onehot", "logits", None,
                {"kwargs": {"from_logits": True}}),
    # sequence / segmentation / similarity
    "ctc_cls": ("L.CTC()", "ctc_t", "ctc_p", None, {}),
    "ctc_sw": ("L.CTC(reduction='sum')", "ctc_t", "ctc_p", "sw_ctc", {}),
    "ctc_fn": ("L.ctc", "ctc_t", "ctc_p", None, {}),
    "dice_cls": ("L.Dice()", "seg_t", "seg_p", None, {}),
    "dice_axis": ("L.Dice(axis=(1, 2))", "seg_t", "seg_p", "sw_seg", {}),
    "dice_fn_axis": ("L.dice", "seg_t", "seg_p", None, {"kwargs": {"axis": (1, 2)}}),
    "dice_sw": ("L.Dice()", "seg_t", "seg_p", "sw_seg", {}),
    "tversky_cls": ("L.Tversky()", "seg_t", "seg_p", None, {}),
    "tversky_ab": ("L.Tversky(alpha=0.3, beta=0.7, axis=(1, 2))", "seg_t", "seg_p", "sw_seg",
                   {}),
    "tversky_fn": ("L.tversky", "seg_t", "seg_p", None, {"kwargs": {"alpha": 0.9,
                                                                     "beta": 0.1}}),
    "circle_cls": ("L.Circle()", "emb_labels", "emb", None, {}),
    "circle_params": ("L.Circle(gamma=2.0, margin=0.25)", "emb_labels", "emb", "emb_sw", {}),
    "circle_keep_diag": ("L.Circle(gamma=4.0, remove_diagonal=False, reduction='sum')",
                         "emb_labels", "emb", None, {}),
    "circle_unique": ("L.Circle(gamma=3.0)", "emb_unique", "emb", None, {}),
    "circle_fn": ("L.circle", "emb_labels", "emb", None, {"kwargs": {"gamma": 5}}),
    "circle_none": ("L.Circle(gamma=3.0, reduction=None)", "emb_labels", "emb", None, {}),
    "cgce_cls": ("L.CategoricalGeneralizedCrossEntropy()", "int_t", "probs", None, {}),
    "cgce_q": ("L.CategoricalGeneralizedCrossEntropy(q=0.2)", "int_t", "probs", "sw", {}),
    "cgce_fn": ("L.categorical_generalized_cross_entropy", "int_t", "probs", None,
                {"kwargs": {"q": 0.7}}),
    # masks made by a loss (ignore_class): the mean is over the kept entries
    "scce_ignore": ("L.SparseCategoricalCrossentropy(ignore_class=0)", "int_t", "probs", None,
                    {}),
    "scce_ignore_sw": ("L.SparseCategoricalCrossentropy(ignore_class=3, from_logits=True)",
                       "int_t", "logits", "sw", {}),
}

# name -> (expression, [(y_true, y_pred, sample_weight), ...])
METRICS = {
    "BinaryCrossentropy": ("M.BinaryCrossentropy()", [("bin_t", "bin_p", None),
                                                     ("bin_t", "bin_p", "sw")]),
    "BinaryCrossentropy_logits": ("M.BinaryCrossentropy(from_logits=True, label_smoothing=0.1)",
                                  [("bin_t", "bin_logits", "sw"), ("bin_t", "scores", None)]),
    "CategoricalCrossentropy": ("M.CategoricalCrossentropy()",
                                [("onehot", "probs", "sw"), ("onehot", "probs_edge", None)]),
    "CategoricalCrossentropy_logits": ("M.CategoricalCrossentropy(from_logits=True, "
                                       "label_smoothing=0.2)",
                                       [("onehot", "logits", None), ("onehot", "scores", "sw")]),
    "SparseCategoricalCrossentropy": ("M.SparseCategoricalCrossentropy()",
                                      [("int_t", "probs", "sw"), ("int_col", "probs", None)]),
    "SparseCategoricalCrossentropy_ignore": (
        "M.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)",
        [("int_t", "logits", "sw"), ("int_col", "scores", None)]),
    "Hinge": ("M.Hinge()", [("bin_t", "scores", "sw"), ("pm1_t", "scores", None)]),
    "SquaredHinge": ("M.SquaredHinge()", [("bin_t", "scores", None), ("pm1_t", "scores", "sw")]),
    "CategoricalHinge": ("M.CategoricalHinge()", [("onehot", "scores", "sw"),
                                                 ("onehot", "probs", "sw0")]),
    "KLDivergence": ("M.KLDivergence()", [("onehot", "probs", "sw"), ("probs", "probs_edge",
                                                                     None)]),
    "Poisson": ("M.Poisson()", [("bin_t", "bin_p", "sw"), ("reg_t", "probs", None)]),
    "LogCoshError": ("M.LogCoshError()", [("reg_t", "reg_p", "sw"), ("reg_t", "big_err", None)]),
    "MeanAbsolutePercentageError": ("M.MeanAbsolutePercentageError()",
                                    [("reg_t", "reg_p", "sw"), ("reg_t0", "reg_p", None)]),
    "MeanSquaredLogarithmicError": ("M.MeanSquaredLogarithmicError()",
                                    [("reg_t", "reg_p", None), ("reg_t0", "reg_p", "sw")]),
    "CosineSimilarity": ("M.CosineSimilarity()", [("reg_t", "reg_p", "sw"),
                                                 ("reg_t0", "reg_p", None)]),
    "CosineSimilarity_axis0": ("M.CosineSimilarity(axis=0)", [("reg_t", "reg_p", None)]),
    "RootMeanSquaredError": ("M.RootMeanSquaredError()",
                             [("reg_t", "reg_p", "sw"), ("vec_t", "col_p", "sw5"),
                              ("reg_t", "big_err", "sw2")]),
    "RootMeanSquaredError_f64": ("M.RootMeanSquaredError(dtype='float64')",
                                 [("reg_t", "reg_p", None)]),
    "MeanMetricWrapper_hinge": ("M.MeanMetricWrapper(L.hinge)", [("bin_t", "scores", "sw")]),
    "KLD_fn": ("M.MeanMetricWrapper(M.kld, name='kld')",
               [("onehot", "probs", "sw"), ("probs", "probs_raw", None)]),
    "huber_fn": ("M.MeanMetricWrapper(M.huber, delta=0.5)", [("reg_t", "big_err", "sw")]),
}

ERRORS = {
    "cgce_q": "L.CategoricalGeneralizedCrossEntropy(q=1.5)",
    "cgce_q0": "L.CategoricalGeneralizedCrossEntropy(q=0)",
    "reduction_validate": "L.Reduction.validate('mean')",
    "ctc_rank_true": "L.ctc(np.zeros((2, 3, 1), np.int32), np.zeros((2, 3, 4), np.float32))",
    "ctc_rank_pred": "L.ctc(np.zeros((2, 3), np.int32), np.zeros((2, 3), np.float32))",
    "bfce_shape": "L.binary_focal_crossentropy(np.zeros((2, 3)), np.zeros((2, 4)))",
    "cfce_axis_bool": "L.categorical_focal_crossentropy(np.zeros((2, 3)), np.ones((2, 3)), "
                      "axis=True)",
    "metrics_get": "M.get('logcosh')",
    "losses_get": "L.get('kullback_leibler_divergence')",
    "bad_reduction": "L.Hinge(reduction='avg')",
}

GETS = {"losses": ["kld", "KLD", "kl_divergence", "log_cosh", "mape", "MAPE", "msle", "MSLE",
                   "poisson", "hinge", "squared_hinge", "categorical_hinge", "cosine_similarity",
                   "binary_focal_crossentropy", "categorical_focal_crossentropy", "ctc", "dice",
                   "tversky", "circle", "bce", "BCE", "Hinge", "LogCosh", "KLDivergence",
                   "Poisson", "CTC", "Dice", "Tversky", "Circle", "BinaryFocalCrossentropy",
                   "CategoricalFocalCrossentropy", "MeanAbsolutePercentageError",
                   "MeanSquaredLogarithmicError", "CosineSimilarity", "SquaredHinge",
                   "CategoricalHinge"],
        "metrics": ["mse", "mean_squared_error", "mae", "mape", "MAPE", "msle", "bce", "BCE",
                    "binary_crossentropy", "categorical_crossentropy",
                    "sparse_categorical_crossentropy", "hinge", "squared_hinge",
                    "categorical_hinge", "kl_divergence", "KLDivergence", "poisson",
                    "log_cosh_error", "LogCoshError", "cosine_similarity",
                    "root_mean_squared_error", "RootMeanSquaredError",
                    "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
                    "accuracy", "Accuracy", "auc", "mean"]}

# name -> (loss, metrics, y_true, activation, units)
FITS = {
    "hinge": ("'hinge'", "['kl_divergence', 'poisson', 'mape', 'root_mean_squared_error']",
              "pm1", None, 3),
    "squared_hinge_obj": ("L.SquaredHinge()", "[M.Hinge(), M.SquaredHinge(), "
                          "M.CategoricalHinge()]", "bin", None, 3),
    "kld": ("'kld'", "['categorical_crossentropy', M.KLDivergence(), 'log_cosh_error']",
            "onehot", "softmax", 3),
    "poisson": ("'poisson'", "['msle', M.LogCoshError(), M.CosineSimilarity()]", "pos", "softplus",
                3),
    "mape": ("'mape'", "['mse', 'cosine_similarity', M.RootMeanSquaredError()]", "pos", None, 3),
    "msle": ("L.MeanSquaredLogarithmicError()", "['mape', M.Poisson()]", "pos", "relu", 3),
    "logcosh": ("L.LogCosh()", "['hinge', 'squared_hinge']", "pos", None, 3),
    "bfce": ("'binary_focal_crossentropy'", "['binary_crossentropy', 'bce', "
             "M.BinaryCrossentropy(label_smoothing=0.1, name='bce_smooth')]", "bin", "sigmoid", 3),
    "bfce_logits": ("L.BinaryFocalCrossentropy(from_logits=True, apply_class_balancing=True)",
                    "[M.BinaryCrossentropy(from_logits=True)]", "bin", None, 3),
    "cfce": ("L.CategoricalFocalCrossentropy(from_logits=True)",
             "[M.CategoricalCrossentropy(from_logits=True)]", "onehot", None, 3),
    "categorical_hinge": ("'categorical_hinge'", "['categorical_hinge']", "onehot", None, 3),
    "cosine": ("'cosine_similarity'", "[M.CosineSimilarity()]", "pos", None, 3),
    "dice": ("L.Dice()", "['mse']", "bin", "sigmoid", 3),
    "tversky": ("L.Tversky(alpha=0.7, beta=0.3, axis=-1)", "[]", "bin", "sigmoid", 3),
    "cgce": ("L.CategoricalGeneralizedCrossEntropy(q=0.4)",
             "[M.SparseCategoricalCrossentropy()]", "int", "softmax", 3),
}


def _arr(x: np.ndarray) -> dict:
    return {"value": x.tolist(), "dtype": str(x.dtype)}


def _jsonable(x):
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return x


def _loss_case(inputs, expr, yt, yp, sw, options):
    obj = eval(expr)
    kwargs = options.get("kwargs", {})
    y_true = tf.constant(inputs[yt])
    y_pred = tf.Variable(inputs[yp])
    weight = None if sw is None else tf.constant(inputs[sw])

    def run(y_pred):
        if isinstance(obj, L.Loss):
            return obj(y_true, y_pred, sample_weight=weight)
        return obj(y_true, y_pred, **kwargs)

    with tf.GradientTape() as tape:
        out = run(y_pred)
        total = tf.reduce_sum(out)
    grad = tape.gradient(total, y_pred)
    traced = tf.function(run)(y_pred)
    return {"value": np.asarray(out).tolist(), "dtype": out.dtype.name,
            "shape": list(out.shape), "traced": np.asarray(traced).tolist(),
            "grad": None if grad is None else np.asarray(grad).tolist(),
            "config": _jsonable(obj.get_config()) if isinstance(obj, L.Loss) else None}


def _metric_case(inputs, expr, batches):
    metric = eval(expr)
    results = []
    for yt, yp, sw in batches:
        metric.update_state(inputs[yt], inputs[yp],
                            sample_weight=None if sw is None else inputs[sw])
        results.append(float(metric.result()))
    out = {"results": results, "dtype": metric.result().dtype.name, "name": metric.name,
           "config": _jsonable({k: v for k, v in metric.get_config().items() if k != "fn"})}
    metric.reset_state()
    out["after_reset"] = float(metric.result())
    return out


def _error(expr):
    try:
        eval(expr)
    except Exception as e:  # noqa: BLE001 - recording the class
        return {"class": type(e).__name__, "message": str(e)}
    return None


def _gets():
    out = {}
    for kind, names in GETS.items():
        module = L if kind == "losses" else M
        for name in names:
            obj = module.get(name)
            out[f"{kind}.{name}"] = (type(obj).__name__ if not callable(obj) or
                                     isinstance(obj, (L.Loss, M.Metric)) else obj.__name__)
    return out


def _fit_data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    targets = {"pm1": rng.choice([-1.0, 1.0], (8, 3)).astype(np.float32),
               "bin": rng.integers(0, 2, (8, 3)).astype(np.float32),
               "onehot": np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)],
               "pos": (rng.random((8, 3)) * 2 + 0.1).astype(np.float32),
               "int": rng.integers(0, 3, (8,)).astype(np.int32)}
    sw = rng.random(8).astype(np.float32) + 0.5
    kernel = (rng.normal(size=(4, 3)) * 0.5).astype(np.float32)
    bias = np.array([0.1, -0.2, 0.3], np.float32)
    return x, targets, sw, kernel, bias


def _fit_case(expr_loss, expr_metrics, target, activation, units):
    x, targets, sw, kernel, bias = _fit_data()
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(units,
                                                                    activation=activation)])
    model.layers[0].set_weights([kernel, bias])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss=eval(expr_loss),
                  metrics=eval(expr_metrics))
    history = model.fit(x, targets[target], sample_weight=sw, batch_size=4, epochs=2,
                        shuffle=False, verbose=0)
    evaluated = model.evaluate(x, targets[target], sample_weight=sw, batch_size=4, verbose=0,
                               return_dict=True)
    return {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
            "evaluate": {k: float(v) for k, v in evaluated.items()}}


def main() -> None:
    inputs = _inputs()
    out = {"inputs": {k: _arr(v) for k, v in inputs.items()},
           "losses": {}, "metrics": {}, "errors": {}, "fit": {}}
    for name, (expr, yt, yp, sw, options) in CASES.items():
        try:
            recorded = _loss_case(inputs, expr, yt, yp, sw, options)
        except Exception as e:  # noqa: BLE001 - a case Keras rejects records the class
            recorded = {"error": type(e).__name__}
            print(name, "raises", type(e).__name__)
        out["losses"][name] = {"expr": expr, "y_true": yt, "y_pred": yp, "sample_weight": sw,
                               "options": options, **recorded}
    for name, (expr, batches) in METRICS.items():
        out["metrics"][name] = {"expr": expr, "batches": batches,
                                **_metric_case(inputs, expr, batches)}
    out["errors"] = {name: {"expr": expr, **(_error(expr) or {})}
                     for name, expr in ERRORS.items()}
    out["gets"] = _gets()
    for name, (loss, metrics, target, activation, units) in FITS.items():
        out["fit"][name] = {"loss": loss, "metrics": metrics, "target": target,
                            "activation": activation, "units": units,
                            **_fit_case(loss, metrics, target, activation, units)}
    _, targets, sw, kernel, bias = _fit_data()
    x = _fit_data()[0]
    out["fit_data"] = {"x": _arr(x), "sw": _arr(sw), "kernel": _arr(kernel),
                       "bias": _arr(bias), "targets": {k: _arr(v) for k, v in targets.items()}}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
