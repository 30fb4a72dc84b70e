"""Records Keras 3.15's answers for the optimizer options (use_ema, ema_momentum,
ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps, given positionally
as Keras's signatures order them) and for the other parameters tests/keras/
test_api_params_misc.py checks (initializers' input_axes/output_axes,
SparseCategoricalCrossentropy's axis, losses.deserialize(name=...), LambdaCallback's hooks,
save_model(zipped=False), save_weights(max_shard_size=...)). Run with a Python that has
Keras 3 + TensorFlow; tapeflow's tests only read the results:

  KERAS_BACKEND=tensorflow python tools/record_keras_optimizer_options.py

Writes, under tests/keras/fixtures/:
- optimizer_options.json / .npz: per case, the positional arguments, `get_config()`, the
  optimizer's variable names, `iterations` after each step, and (npz) the two variables and
  every optimizer variable after each eager `apply_gradients` step on fixed gradients, then
  the variables after `finalize_variable_values`; a `fit` with every option (final weights,
  optimizer variables, loss history); the base `Optimizer`'s config from positional args.
- optimizer_options_adam.keras: that fitted model, saved by Keras (its optimizer's slots).
- api_params_misc.json / .npz: the initializers' values and configs, `compute_fans`, sparse
  cross-entropy along `axis`, the LambdaCallback's calls in a `fit`, the files and errors of
  `zipped=False` and of sharded weights.
- keras_unzipped_model/: a model saved by Keras with zipped=False.
- keras_sharded/: that model's weights saved by Keras with max_shard_size (index + shards).
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")

# Each optimizer's own arguments (not the defaults, so a misplaced positional shows).
CUSTOM = {
    "SGD": dict(learning_rate=0.05, momentum=0.9, nesterov=True),
    "Adam": dict(learning_rate=0.01, beta_1=0.8, beta_2=0.95, amsgrad=True),
    "AdamW": dict(learning_rate=0.01, weight_decay=0.1, beta_1=0.8),
    "RMSprop": dict(learning_rate=0.01, rho=0.8, momentum=0.5, centered=True),
    "Adagrad": dict(learning_rate=0.1, initial_accumulator_value=0.2),
    "Adadelta": dict(learning_rate=0.5, rho=0.8, epsilon=1e-5),
    "Adamax": dict(learning_rate=0.02, beta_1=0.7, beta_2=0.9, epsilon=1e-4),
    "Nadam": dict(learning_rate=0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-5),
    "Lion": dict(learning_rate=0.003, beta_1=0.95, beta_2=0.9),
    "Ftrl": dict(learning_rate=0.05, learning_rate_power=-0.7, initial_accumulator_value=0.3,
                 l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                 l2_shrinkage_regularization_strength=0.03, beta=0.1),
}
OPTIONS = {
    # every option at once: two steps per update, an overwrite every third step
    "all": dict(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3,
                loss_scale_factor=4.0, gradient_accumulation_steps=2, name="opt_all"),
    # the moving average alone, then `finalize_variable_values`
    "ema": dict(use_ema=True, ema_momentum=0.8),
    # accumulation with a loss scale and an overwrite on the accumulated count
    "accum_lsf": dict(loss_scale_factor=0.5, gradient_accumulation_steps=3, use_ema=True,
                      ema_overwrite_frequency=2),
}
STEPS = 7


def positional(cls: type, kwargs: dict) -> list:
    """`kwargs` as the positional arguments of `cls` (Keras's parameter order), defaults
    filling the gaps, up to the last one given."""
    params = [p for p in inspect.signature(cls.__init__).parameters.values()
              if p.name != "self" and p.kind == p.POSITIONAL_OR_KEYWORD]
    last = max(i for i, p in enumerate(params) if p.name in kwargs)
    return [kwargs.get(p.name, p.default) for p in params[:last + 1]]


def record_steps(arrays: dict) -> dict:
    rng = np.random.default_rng(7)
    grads_kernel = rng.normal(size=(STEPS, 3, 4)).astype("float32")
    grads_bias = rng.normal(size=(STEPS, 4)).astype("float32")
    init_kernel = rng.normal(size=(3, 4)).astype("float32")
    init_bias = rng.normal(size=(4,)).astype("float32")
    arrays.update(grads_kernel=grads_kernel, grads_bias=grads_bias, init_kernel=init_kernel,
                  init_bias=init_bias)
    cases = {}
    for name, custom in CUSTOM.items():
        cls = getattr(keras.optimizers, name)
        for option, extra in OPTIONS.items():
            case = f"{name}_{option}"
            args = positional(cls, {**custom, **extra})
            opt = cls(*args)
            kernel = keras.Variable(init_kernel, name="kernel")
            bias = keras.Variable(init_bias, name="bias")
            history, iterations = [], []
            for i in range(STEPS):
                opt.apply_gradients([(keras.ops.convert_to_tensor(grads_kernel[i]), kernel),
                                     (keras.ops.convert_to_tensor(grads_bias[i]), bias)])
                history.append([kernel.numpy(), bias.numpy()] +
                               [v.numpy() for v in opt.variables])
                iterations.append(int(opt.iterations))
            for j in range(len(history[0])):
                key = f"{case}/var{j}" if j < 2 else f"{case}/opt{j - 2}"
                arrays[key] = np.stack([h[j] for h in history])
            opt.finalize_variable_values([kernel, bias])
            arrays[f"{case}/final0"], arrays[f"{case}/final1"] = kernel.numpy(), bias.numpy()
            cases[case] = {"class": name, "args": args, "iterations": iterations,
                           "config": opt.get_config(),
                           "variables": [[v.name, list(v.shape), str(v.dtype)]
                                         for v in opt.variables]}
    return cases


def fit_model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    # Named, so the optimizer's slot names ('options_model_hidden_kernel_average') do not
    # depend on how many models the process made before.
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1), name="hidden"),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros", name="out")],
        name="options_model")


FIT_KWARGS = dict(learning_rate=0.05, use_ema=True, ema_momentum=0.7, ema_overwrite_frequency=2,
                  loss_scale_factor=8.0, gradient_accumulation_steps=2)


def record_fit(arrays: dict) -> dict:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = rng.normal(size=(16, 2)).astype("float32")
    arrays.update(fit_x=x, fit_y=y)
    model = fit_model()
    opt = keras.optimizers.Adam(**FIT_KWARGS)
    model.compile(optimizer=opt, loss="mse")
    hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for i, w in enumerate(model.get_weights()):
        arrays[f"fit/w{i}"] = w
    for i, v in enumerate(opt.variables):
        arrays[f"fit/opt{i}"] = v.numpy()
    path = os.path.join(OUT, "optimizer_options_adam.keras")
    model.save(path)
    # Loaded, the layers are built outside the model's name scope: the slots' names differ.
    loaded = keras.saving.load_model(path).optimizer
    return {"kwargs": FIT_KWARGS, "loss": hist.history["loss"], "config": opt.get_config(),
            "iterations": int(opt.iterations),
            "variables": [[v.name, list(v.shape)] for v in opt.variables],
            "loaded_config": loaded.get_config(),
            "loaded_variables": [[v.name, list(v.shape)] for v in loaded.variables]}


def record_base_optimizer() -> dict:
    args = [0.1, 0.01, None, 0.5, None, True, 0.9, 3, 2.0, 2, "base"]
    return {"args": args, "config": keras.optimizers.Optimizer(*args).get_config()}


# -- the other parameters -----------------------------------------------------------------

INITIALIZERS = ["VarianceScaling", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform",
                "LecunNormal", "LecunUniform"]
SNAKE = ["variance_scaling", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
         "lecun_normal", "lecun_uniform"]
AXES = [((3, 4, 5), [0], [1, 2]), ((3, 4, 5), [0, 1], [-1]), ((6, 2, 7), [2], [0]),
        ((3, 4, 5), [0], None)]


def record_initializers(arrays: dict) -> dict:
    out = {"values": {}, "fans": []}
    for name in INITIALIZERS:
        cls = getattr(keras.initializers, name)
        for k, (shape, inp, outp) in enumerate(AXES):
            init = cls(seed=11, input_axes=inp, output_axes=outp) if name != "VarianceScaling" \
                else cls(scale=1.5, mode="fan_avg", distribution="uniform", seed=11,
                         input_axes=inp, output_axes=outp)
            arrays[f"init/{name}/{k}"] = keras.ops.convert_to_numpy(init(shape))
            out["values"][f"{name}/{k}"] = {"shape": list(shape), "config": init.get_config()}
    from keras.src.initializers.random_initializers import compute_fans
    for shape, inp, outp in AXES + [((2, 3, 4, 5), [0, 1, 2], [3]), ((7,), [0], [0])]:
        out["fans"].append([list(shape), inp, outp, list(compute_fans(shape, inp, outp))])
    # the lowercase names are the same classes
    out["aliases"] = {n: getattr(keras.initializers, snake) is getattr(keras.initializers, n)
                      for n, snake in zip(INITIALIZERS, SNAKE)}
    return out


def record_sparse_ce(arrays: dict) -> dict:
    rng = np.random.default_rng(5)
    pred = rng.uniform(0.05, 1.0, size=(2, 3, 4)).astype("float32")
    pred /= pred.sum(-1, keepdims=True)
    labels = np.array([[0, 3, 1], [2, 2, 0]])
    arrays.update(sce_pred=pred, sce_labels=labels)
    out = {}
    for axis in (-1, 2):
        loss = keras.losses.SparseCategoricalCrossentropy(axis=axis)
        out[f"axis{axis}"] = float(loss(labels, pred))
        out[f"config{axis}"] = loss.get_config()
        out[f"fn{axis}"] = keras.ops.convert_to_numpy(
            keras.losses.sparse_categorical_crossentropy(labels, pred, axis=axis)).tolist()
    try:
        keras.losses.SparseCategoricalCrossentropy(axis=1)(labels, pred)
    except Exception as e:  # noqa: BLE001 - recording the class and text
        out["axis1_error"] = [type(e).__name__, str(e)]
    return out


def record_deserialize() -> dict:
    loss = keras.losses.deserialize(name="mean_squared_error")
    obj = keras.losses.deserialize(name={"class_name": "Huber", "config": {"delta": 2.0}})
    return {"string": getattr(loss, "__name__", type(loss).__name__),
            "dict": [type(obj).__name__, obj.get_config()]}


def record_lambda_callback() -> list:
    calls: list = []
    cb = keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda e, logs: calls.append(["epoch_begin", e]),
        on_epoch_end=lambda e, logs: calls.append(["epoch_end", e]),
        on_train_begin=lambda logs: calls.append(["train_begin"]),
        on_train_end=lambda logs: calls.append(["train_end"]),
        on_train_batch_begin=lambda b, logs: calls.append(["batch_begin", b]),
        on_train_batch_end=lambda b, logs: calls.append(["batch_end", b]),
        on_test_end=lambda logs: calls.append(["test_end"]),
        note="extra")
    calls.append(["note", cb.note])
    model = fit_model()
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 3), "float32")
    model.fit(x, np.ones((8, 2), "float32"), batch_size=4, epochs=2, verbose=0,
              validation_data=(x, np.ones((8, 2), "float32")), callbacks=[cb])
    return calls


def _errors(fn, directory: str) -> list:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording the class and text
        return [type(e).__name__, str(e).replace(directory, "DIR")]
    return ["no error", ""]


def record_files(arrays: dict) -> dict:
    model = fit_model()
    model.compile(optimizer=keras.optimizers.Adam(use_ema=True, name="adam_ema"), loss="mse")
    model.fit(arrays["fit_x"], arrays["fit_y"], batch_size=8, epochs=1, shuffle=False,
              verbose=0)
    for i, w in enumerate(model.get_weights()):
        arrays[f"files/w{i}"] = w
    for i, v in enumerate(model.optimizer.variables):
        arrays[f"files/opt{i}"] = v.numpy()
    out: dict = {}
    directory = os.path.join(OUT, "keras_unzipped_model")
    shutil.rmtree(directory, ignore_errors=True)
    model.save(os.path.abspath(directory), zipped=False)
    out["unzipped_files"] = sorted(os.listdir(directory))
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:   # Keras makes 'assets' in its temporary directory for a relative path
            model.save("rel", zipped=False)
            out["unzipped_files_relative_path"] = sorted(os.listdir("rel"))
        finally:
            os.chdir(cwd)
    sharded = os.path.join(OUT, "keras_sharded")
    shutil.rmtree(sharded, ignore_errors=True)
    os.makedirs(sharded)
    # 300 bytes a shard: the layers in the first, the optimizer's slots split over several
    model.save_weights(os.path.join(sharded, "m.weights.json"), max_shard_size=300 / 1024 ** 3)
    out["sharded_files"] = sorted(os.listdir(sharded))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w")
        out["errors"] = {
            "zipped_false_keras": _errors(lambda: model.save(path + ".keras", zipped=False),
                                          tmp),
            "unknown_argument": _errors(lambda: keras.saving.save_model(
                model, path + ".keras", True, None, compress=True), tmp),
            "json_without_shards": _errors(lambda: model.save_weights(path + ".weights.json"),
                                           tmp),
            "shards_bad_suffix": _errors(lambda: model.save_weights(path + ".h5",
                                                                    max_shard_size=1), tmp),
            "shard_too_small": _errors(lambda: model.save_weights(path + ".weights.json",
                                                                  max_shard_size=1e-8), tmp),
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.save_weights(path + ".weights.h5", max_shard_size=1)
        out["rename_warning"] = [str(w.message).replace(tmp, "DIR") for w in caught
                                 if "sharded" in str(w.message)]
        out["renamed_files"] = sorted(os.listdir(tmp))
    return out


def main() -> None:
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "cases": record_steps(arrays),
            "fit": record_fit(arrays), "base": record_base_optimizer()}
    np.savez_compressed(os.path.join(OUT, "optimizer_options.npz"), **arrays)
    with open(os.path.join(OUT, "optimizer_options.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    misc_arrays: dict = {"fit_x": arrays["fit_x"], "fit_y": arrays["fit_y"]}
    misc = {"keras_version": keras.__version__,
            "initializers": record_initializers(misc_arrays),
            "sparse_ce": record_sparse_ce(misc_arrays),
            "deserialize": record_deserialize(),
            "lambda_callback": record_lambda_callback(),
            "files": record_files(misc_arrays)}
    np.savez_compressed(os.path.join(OUT, "api_params_misc.npz"), **misc_arrays)
    with open(os.path.join(OUT, "api_params_misc.json"), "w") as f:
        json.dump(misc, f, indent=1, sort_keys=True)
    print("wrote", len(meta["cases"]), "optimizer cases")


if __name__ == "__main__":
    main()
