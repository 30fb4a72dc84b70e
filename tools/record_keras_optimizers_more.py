"""Records Keras 3.15's Adafactor, Lamb, Muon and ScheduleFreeAdamW updates, the
PolynomialDecay and CosineDecayRestarts schedules, and the optimizers' name lookups into
tests/keras/fixtures/optimizers_more.npz + .json, and one `.keras` file per optimizer
(fixtures/optimizers_more_<Name>.keras). Run with a Python that has Keras 3 + TensorFlow;
tapeflow's tests only read the results:

  KERAS_BACKEND=tensorflow python tools/record_keras_optimizers_more.py

Steps: as tools/record_keras_optimizers.py: for each case, `apply_gradients` (eager) on the
float32 variables 'kernel' (3, 4) and 'bias' (4,) with the fixed gradients of each step; after
every step the npz holds both variables (`<case>/var0`, `<case>/var1`) and every optimizer
variable (`<case>/opt<i>`, in `optimizer.variables` order), stacked over the steps; the json
the arguments, `get_config()`, the variables' names/shapes/dtypes and `iterations`. In the
`_sparse` cases the kernel's gradient is IndexedSlices (row 2 twice, row 1 absent). The `cube`
cases step a (2, 3, 4) variable alone (`<case>/0` the variable, then the optimizer's).

Fit: a Sequential named 'net' (Dense 'hidden' (4, relu) -> Dense 'head' (2)) with constant
initial weights, `fit` (mse, batch_size=4, 2 epochs, no shuffling); the npz holds the final
weights and optimizer variables, the json the loss history. The `.keras` files are these
models saved after fitting (Keras's own files, for tapeflow to load).

Schedules: each schedule's value at float steps (`<schedule case>/values`).

MultiOptimizer: `multi_optimizer()` in the same `fit` (`multi/` in the npz, `multi` in the json,
fixtures/optimizers_more_MultiOptimizer.keras).
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from record_keras_optimizers import make  # noqa: E402 - one recipe for both fixtures

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")

NEW = ["Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"]
CUSTOM = {
    "Adafactor": dict(learning_rate=0.05, beta_2_decay=-0.6, epsilon_1=1e-20, epsilon_2=1e-2,
                      clip_threshold=0.5, relative_step=False),
    "Lamb": dict(learning_rate=0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-5),
    "Muon": dict(learning_rate=0.01, adam_beta_1=0.8, adam_beta_2=0.95, epsilon=1e-5,
                 weight_decay=0.01, adam_weight_decay=0.02, momentum=0.9, ns_steps=3,
                 nesterov=False, rms_rate=0.3, adam_lr_ratio=0.5),
    "ScheduleFreeAdamW": dict(learning_rate=0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-6,
                              warmup_steps=3),
}
FEATURES = {
    "accum": dict(gradient_accumulation_steps=3),
    "lsf": dict(loss_scale_factor=3.0),
    "ema": dict(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=2),
    "clipnorm": dict(clipnorm=0.5),
    "clipvalue": dict(clipvalue=0.3),
    "gclip": dict(global_clipnorm=0.7),
    "wd": dict(weight_decay=0.05),
}
ACCUM_STEPS = 7
STEPS = 5
SPARSE_ROWS = [2, 0, 2]
SCHEDULE_LR = {"class_name": "PolynomialDecay",
               "config": {"initial_learning_rate": 0.05, "decay_steps": 4, "power": 2.0}}


def cases() -> dict:
    out = {}
    for name in NEW:
        out[f"{name}_default"] = (name, {})
        out[f"{name}_custom"] = (name, CUSTOM[name])
        for feature, kwargs in FEATURES.items():
            out[f"{name}_{feature}"] = (name, {**CUSTOM[name], **kwargs})
        out[f"{name}_sparse"] = (name, CUSTOM[name])
        out[f"{name}_schedule"] = (name, {**CUSTOM[name], "learning_rate": SCHEDULE_LR})
    out["Adafactor_relative"] = ("Adafactor", {"learning_rate": 0.8})
    out["Muon_no_rms"] = ("Muon", {"learning_rate": 0.02, "rms_rate": None})
    out["Muon_exclude"] = ("Muon", {"learning_rate": 0.02, "exclude_layers": ["ker"]})
    out["Muon_no_wd"] = ("Muon", {"learning_rate": 0.02, "weight_decay": None,
                                  "adam_weight_decay": None})
    return out


FIT_CASES = {
    **{name: (name, {"learning_rate": 0.05}) for name in NEW},
    "Muon_exclude_head": ("Muon", {"learning_rate": 0.05, "exclude_layers": ["head"]}),
    "Adafactor_default": ("Adafactor", {}),
    "Lamb_schedule": ("Lamb", {"learning_rate": {
        "class_name": "CosineDecayRestarts",
        "config": {"initial_learning_rate": 0.1, "first_decay_steps": 3, "t_mul": 1.5,
                   "m_mul": 0.8, "alpha": 0.1}}}),
    "ScheduleFreeAdamW_accum_ema": ("ScheduleFreeAdamW", {
        "learning_rate": 0.05, "gradient_accumulation_steps": 2, "use_ema": True}),
}

SCHEDULES = {
    "poly": ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10}),
    "poly_power": ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 7,
                                       "end_learning_rate": 0.01, "power": 0.5}),
    "poly_cycle": ("PolynomialDecay", {"initial_learning_rate": 1.0, "decay_steps": 6,
                                       "end_learning_rate": 0.2, "power": 2.0,
                                       "cycle": True}),
    "restarts": ("CosineDecayRestarts", {"initial_learning_rate": 0.1,
                                         "first_decay_steps": 5}),
    "restarts_custom": ("CosineDecayRestarts", {"initial_learning_rate": 1.0,
                                                "first_decay_steps": 4, "t_mul": 1.5,
                                                "m_mul": 0.7, "alpha": 0.05}),
    "restarts_tmul1": ("CosineDecayRestarts", {"initial_learning_rate": 0.5,
                                               "first_decay_steps": 3, "t_mul": 1.0,
                                               "m_mul": 0.5, "alpha": 0.1}),
}
SCHEDULE_STEPS = [0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 9.5, 10.0, 11.0, 12.0, 13.0,
                  17.0, 25.0, 40.0, 100.0, 1234.0]
NAMES = ["adafactor", "Adafactor", "lamb", "Lamb", "muon", "Muon", "schedulefreeadamw",
         "ScheduleFreeAdamW"]


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
                           bias_initializer=c(0.1), name="hidden"),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros",
                           name="head")], name="net")


def record_steps(arrays: dict, meta: dict) -> None:
    for case, (name, kwargs) in cases().items():
        opt = make(name, kwargs)
        kernel = keras.Variable(arrays["init_kernel"], name="kernel")
        bias = keras.Variable(arrays["init_bias"], name="bias")
        steps = ACCUM_STEPS if "gradient_accumulation_steps" in kwargs else STEPS
        history, iterations = [], []
        for i in range(steps):
            grad = keras.ops.convert_to_tensor(arrays["grads_kernel"][i])
            if case.endswith("_sparse"):
                grad = tf.IndexedSlices(grad, tf.constant(SPARSE_ROWS), tf.constant([3, 4]))
            opt.apply_gradients([(grad, kernel),
                                 (keras.ops.convert_to_tensor(arrays["grads_bias"][i]), bias)])
            history.append([kernel.numpy(), bias.numpy()] + [v.numpy() for v in opt.variables])
            iterations.append(int(opt.iterations))
        for j in range(len(history[0])):
            key = f"{case}/var{j}" if j < 2 else f"{case}/opt{j - 2}"
            arrays[key] = np.stack([h[j] for h in history])
        meta["cases"][case] = {
            "class": name, "kwargs": kwargs, "steps": steps, "iterations": iterations,
            "config": opt.get_config(),
            "variables": [[v.name, list(v.shape), str(v.dtype)] for v in opt.variables]}


CUBE_CASES = {"Adafactor_cube": ("Adafactor", {}),
              "Adafactor_cube_custom": ("Adafactor", CUSTOM["Adafactor"]),
              "Muon_cube": ("Muon", {"learning_rate": 0.02})}


def record_cube(arrays: dict, meta: dict) -> None:
    """A (2, 3, 4) variable 'cube' alone: Adafactor factors its last two axes, Muon gives it
    AdamW's step."""
    rng = np.random.default_rng(2)
    arrays["cube/init"] = rng.normal(size=(2, 3, 4)).astype("float32")
    arrays["cube/grads"] = rng.normal(size=(STEPS, 2, 3, 4)).astype("float32")
    for case, (name, kwargs) in CUBE_CASES.items():
        opt = make(name, kwargs)
        cube = keras.Variable(arrays["cube/init"], name="cube")
        history = []
        for i in range(STEPS):
            opt.apply_gradients([(keras.ops.convert_to_tensor(arrays["cube/grads"][i]), cube)])
            history.append([cube.numpy()] + [v.numpy() for v in opt.variables])
        for j in range(len(history[0])):
            arrays[f"{case}/{j}"] = np.stack([h[j] for h in history])
        meta["cube"][case] = {
            "class": name, "kwargs": kwargs, "count": len(history[0]),
            "variables": [[v.name, list(v.shape), str(v.dtype)] for v in opt.variables]}


def record_fit(arrays: dict, meta: dict) -> None:
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
                             "config": opt.get_config(),
                             "variables": [[v.name, list(v.shape)] for v in opt.variables]}
        if case in NEW:
            path = os.path.join(OUT, f"optimizers_more_{case}.keras")
            model.save(path)
            loaded = keras.models.load_model(path)
            meta["fit"][case]["loaded_variables"] = [
                [v.name, list(v.shape)] for v in loaded.optimizer.variables]
        if name == "ScheduleFreeAdamW":
            record_eager_loop(arrays, case, name, kwargs)


def record_eager_loop(arrays: dict, case: str, name: str, kwargs: dict) -> None:
    """`fit`'s batches through `apply_gradients` (eager), then `finalize_variable_values`:
    Keras's ScheduleFreeAdamW as it builds outside `fit` (its 'momentum' slots start as
    copies of the variables; inside Keras 3.15's TF `fit` that copy is lost and they start
    at 0)."""
    x, y = fit_data()
    model = fit_model()
    opt = make(name, kwargs)
    variables = model.trainable_variables
    for _ in range(2):
        for start in range(0, len(x), 4):
            with tf.GradientTape() as tape:
                loss = keras.losses.mean_squared_error(y[start:start + 4],
                                                       model(x[start:start + 4]))
                loss = keras.ops.mean(loss)
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    opt.finalize_variable_values(variables)
    for i, w in enumerate(model.get_weights()):
        arrays[f"loop/{case}/w{i}"] = w


def record_schedules(arrays: dict, meta: dict) -> None:
    for case, (name, kwargs) in SCHEDULES.items():
        schedule = getattr(keras.optimizers.schedules, name)(**kwargs)
        arrays[f"schedule/{case}/values"] = np.array(
            [schedule(tf.constant(s)).numpy() for s in SCHEDULE_STEPS])
        arrays[f"schedule/{case}/int_values"] = np.array(
            [schedule(tf.constant(int(s), tf.int64)).numpy() for s in SCHEDULE_STEPS])
        meta["schedules"][case] = {
            "class": name, "kwargs": kwargs, "config": schedule.get_config(),
            "serialized": keras.optimizers.schedules.serialize(schedule),
            "dtype": str(schedule(tf.constant(1.0)).dtype.name)}
    meta["schedule_steps"] = SCHEDULE_STEPS


def multi_optimizer():
    """SGD with momentum for the hidden layer, Adam (the map's pattern; paths lose the model's
    name when a file is loaded, which '.*head/.*' still matches) for the head."""
    return keras.optimizers.MultiOptimizer(keras.optimizers.OptimizerMap(
        keras.optimizers.SGD(0.05, momentum=0.9, name="sgd_inner"),
        {".*head/.*": keras.optimizers.Adam(0.05, name="adam_inner")}), name="multi")


def record_multi(arrays: dict, meta: dict) -> None:
    x, y = fit_data()
    model = fit_model()
    opt = multi_optimizer()
    model.compile(optimizer=opt, loss="mse")
    hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for i, w in enumerate(model.get_weights()):
        arrays[f"multi/w{i}"] = w
    for i, v in enumerate(opt.variables):
        arrays[f"multi/opt{i}"] = v.numpy()
    path = os.path.join(OUT, "optimizers_more_MultiOptimizer.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    meta["multi"] = {"loss": hist.history["loss"], "serialized": keras.optimizers.serialize(opt),
                     "variables": [[v.path, list(v.shape)] for v in opt.variables],
                     "loaded_variables": [[v.path, list(v.shape)]
                                          for v in loaded.optimizer.variables]}
    for i, v in enumerate(loaded.optimizer.variables):
        arrays[f"multi/loaded_opt{i}"] = v.numpy()


def record_names(meta: dict) -> None:
    for ident in NAMES:
        try:
            meta["get"][ident] = type(keras.optimizers.get(ident)).__name__
        except Exception as e:  # noqa: BLE001 - the refusal is what is recorded
            meta["get"][ident] = [type(e).__name__, str(e)]
    for name in NEW:
        meta["serialized"][name] = keras.optimizers.serialize(getattr(keras.optimizers, name)(
            name="opt"))


def main() -> None:
    rng = np.random.default_rng(0)
    arrays = dict(grads_kernel=rng.normal(size=(ACCUM_STEPS, 3, 4)).astype("float32"),
                  grads_bias=rng.normal(size=(ACCUM_STEPS, 4)).astype("float32"),
                  init_kernel=rng.normal(size=(3, 4)).astype("float32"),
                  init_bias=rng.normal(size=(4,)).astype("float32"))
    meta: dict = {"keras_version": keras.__version__, "cases": {}, "fit": {}, "schedules": {},
                  "get": {}, "serialized": {}, "multi": {}, "cube": {}}
    os.makedirs(OUT, exist_ok=True)
    record_steps(arrays, meta)
    record_cube(arrays, meta)
    record_fit(arrays, meta)
    record_schedules(arrays, meta)
    record_names(meta)
    record_multi(arrays, meta)
    np.savez_compressed(os.path.join(OUT, "optimizers_more.npz"), **arrays)
    with open(os.path.join(OUT, "optimizers_more.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print("wrote", len(meta["cases"]), "step cases,", len(meta["fit"]), "fit cases,",
          len(meta["schedules"]), "schedules")


if __name__ == "__main__":
    main()
