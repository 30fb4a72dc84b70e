"""Records Keras 3's optimizer updates into tests/keras/fixtures/optimizers.npz + .json (run
with a Python that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_optimizers.py

Steps: for each case (an optimizer class and its arguments), `apply_gradients` (eager) on two
float32 variables, 'kernel' (3, 4) and 'bias' (4,), with the fixed gradients `grads_kernel`
[i] and `grads_bias`[i] of step i. After every step the npz holds both variables
(`<case>/var0`, `<case>/var1`, stacked over the steps) and every optimizer variable
(`<case>/opt<i>`, in `optimizer.variables` order); the json holds each case's arguments,
`get_config()`, its variables' names/shapes/dtypes and `iterations` after each step. In the
`<name>_sparse` cases the kernel's gradient is `IndexedSlices(grads_kernel[i],
indices=SPARSE_ROWS, dense_shape=(3, 4))` (row 2 twice, row 1 absent).

Fit: for each fit case, a Dense(4, relu) -> Dense(2) model with constant initial weights,
`fit` (mean squared error, batch_size=4, 2 epochs, no shuffling) on fixed data; the npz
holds the final weights (`fit/<case>/w<i>`) and the json the loss history.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")

NEW = ["Nadam", "Adamax", "Lion", "Adadelta", "Ftrl"]
CUSTOM = {
    "Nadam": dict(learning_rate=0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-5),
    "Adamax": dict(learning_rate=0.02, beta_1=0.7, beta_2=0.9, epsilon=1e-4),
    "Lion": dict(learning_rate=0.003, beta_1=0.95, beta_2=0.9),
    "Adadelta": dict(learning_rate=0.5, rho=0.8, epsilon=1e-5),
    "Ftrl": dict(learning_rate=0.05, learning_rate_power=-0.7, initial_accumulator_value=0.3,
                 l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                 l2_shrinkage_regularization_strength=0.03, beta=0.1),
    "SGD": dict(learning_rate=0.05, momentum=0.9, nesterov=True),
    "Adam": dict(learning_rate=0.01, amsgrad=True),
    "AdamW": dict(learning_rate=0.01, weight_decay=0.1),
    "RMSprop": dict(learning_rate=0.01, momentum=0.5, centered=True),
    "Adagrad": dict(learning_rate=0.1),
}
# Every base-class option, on every new optimizer; accumulation and loss scaling on all.
FEATURES = {
    "accum": dict(gradient_accumulation_steps=3),
    "lsf": dict(loss_scale_factor=3.0),
    "ema": dict(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=2),
    "clipnorm": dict(clipnorm=0.5),
    "clipvalue": dict(clipvalue=0.3),
    "gclip": dict(global_clipnorm=0.7),
    "wd": dict(weight_decay=0.05),
}
ACCUM_STEPS = 7   # two applied updates (steps 3 and 6) and one step accumulated after them
STEPS = 5
SPARSE_ROWS = [2, 0, 2]   # the three rows of a step's kernel gradient: IndexedSlices values


def cases() -> dict:
    out = {}
    for name in NEW:
        out[f"{name}_default"] = (name, {})
        out[f"{name}_custom"] = (name, CUSTOM[name])
        for feature, kwargs in FEATURES.items():
            out[f"{name}_{feature}"] = (name, {**CUSTOM[name], **kwargs})
        out[f"{name}_accum_ema"] = (name, {**CUSTOM[name], "gradient_accumulation_steps": 3,
                                           "use_ema": True, "ema_overwrite_frequency": 2})
    for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]:
        out[f"{name}_accum"] = (name, {**CUSTOM[name], "gradient_accumulation_steps": 3})
        out[f"{name}_lsf"] = (name, {**CUSTOM[name], "loss_scale_factor": 3.0})
    for name in NEW:   # the kernel's gradient as IndexedSlices with a repeated row
        out[f"{name}_sparse"] = (name, CUSTOM[name])
    out["Adam_accum_clip_wd"] = ("Adam", {"learning_rate": 0.01, "gradient_accumulation_steps": 2,
                                         "clipnorm": 0.5, "weight_decay": 0.05})
    out["SGD_accum_schedule"] = ("SGD", {"gradient_accumulation_steps": 2, "learning_rate": {
        "class_name": "ExponentialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 2, "decay_rate": 0.5}}})
    return out


def make(name: str, kwargs: dict):
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        kwargs["learning_rate"] = getattr(keras.optimizers.schedules, lr["class_name"])(
            **lr["config"])
    return getattr(keras.optimizers, name)(**kwargs)


FIT_CASES = {
    **{name: (name, {"learning_rate": 0.05}) for name in NEW},
    "Ftrl_custom": ("Ftrl", CUSTOM["Ftrl"]),
    "Adam_accum_lsf": ("Adam", {"learning_rate": 0.05, "gradient_accumulation_steps": 3,
                                "loss_scale_factor": 3.0}),
    "Nadam_accum": ("Nadam", {"learning_rate": 0.05, "gradient_accumulation_steps": 3}),
    "SGD_lsf": ("SGD", {"learning_rate": 0.05, "loss_scale_factor": 3.0}),
    "Lion_ema_accum": ("Lion", {"learning_rate": 0.05, "use_ema": True,
                                "gradient_accumulation_steps": 2}),
}


def fit_data() -> tuple:
    rng = np.random.default_rng(1)
    return (rng.normal(size=(16, 3)).astype("float32"),
            rng.normal(size=(16, 2)).astype("float32"))


def fit_model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1)),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros")])


def main() -> None:
    rng = np.random.default_rng(0)
    grads_kernel = rng.normal(size=(ACCUM_STEPS, 3, 4)).astype("float32")
    grads_bias = rng.normal(size=(ACCUM_STEPS, 4)).astype("float32")
    init_kernel = rng.normal(size=(3, 4)).astype("float32")
    init_bias = rng.normal(size=(4,)).astype("float32")
    arrays = dict(grads_kernel=grads_kernel, grads_bias=grads_bias, init_kernel=init_kernel,
                  init_bias=init_bias)
    meta: dict = {"keras_version": keras.__version__, "cases": {}, "fit": {}}
    for case, (name, kwargs) in cases().items():
        opt = make(name, kwargs)
        kernel = keras.Variable(init_kernel, name="kernel")
        bias = keras.Variable(init_bias, name="bias")
        steps = ACCUM_STEPS if "gradient_accumulation_steps" in kwargs else STEPS
        history, iterations = [], []
        for i in range(steps):
            grad = keras.ops.convert_to_tensor(grads_kernel[i])
            if case.endswith("_sparse"):
                grad = tf.IndexedSlices(grad, tf.constant(SPARSE_ROWS), tf.constant([3, 4]))
            opt.apply_gradients([(grad, kernel),
                                 (keras.ops.convert_to_tensor(grads_bias[i]), bias)])
            history.append([kernel.numpy(), bias.numpy()] + [v.numpy() for v in opt.variables])
            iterations.append(int(opt.iterations))
        for j in range(len(history[0])):
            key = f"{case}/var{j}" if j < 2 else f"{case}/opt{j - 2}"
            arrays[key] = np.stack([h[j] for h in history])
        meta["cases"][case] = {
            "class": name, "kwargs": kwargs, "steps": steps, "iterations": iterations,
            "config": opt.get_config(),
            "variables": [[v.name, list(v.shape), str(v.dtype)] for v in opt.variables]}
    x, y = fit_data()
    for case, (name, kwargs) in FIT_CASES.items():
        model = fit_model()
        opt = make(name, kwargs)
        model.compile(optimizer=opt, loss="mse")
        hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        for i, w in enumerate(model.get_weights()):
            arrays[f"fit/{case}/w{i}"] = w
        for i, v in enumerate(opt.variables):
            arrays[f"fit/{case}/opt{i}"] = v.numpy()
        meta["fit"][case] = {"class": name, "kwargs": kwargs, "loss": hist.history["loss"],
                             "variables": [[v.name, list(v.shape)] for v in opt.variables]}
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "optimizers.npz"), **arrays)
    with open(os.path.join(OUT, "optimizers.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print("wrote", len(meta["cases"]), "step cases and", len(meta["fit"]), "fit cases")


if __name__ == "__main__":
    main()
