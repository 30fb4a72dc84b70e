"""Records Keras 3's mixed precision into tests/keras/fixtures/mixed.npz + .json (run with a
Python that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_mixed.py

For each policy ("mixed_float16", "mixed_bfloat16"), under `set_global_policy(policy)`, the
model Conv2D(3, 3, relu) -> Flatten -> Dense(5, relu) -> Dense(3) -> Activation('softmax',
dtype='float32') on (6, 6, 2) inputs, with the fixed float32 initial weights `init/w<i>`:
- `<policy>/out`: the output on `x`; the json: every layer's output dtype, its policy, compute
  and variable dtypes, the weights' dtypes, `get_config()['dtype']`, and `summary()`'s text;
- `<policy>/grad<i>`: GradientTape gradients of the sparse categorical cross-entropy (from
  probabilities) on (`x`, `y`) w.r.t. the weights (their dtypes in the json);
- `<policy>/fit/w<i>`: the weights after `fit` (SGD(0.1), 3 epochs of batch 4, no shuffling)
  on (`x`, `y`), and the loss history; for mixed_float16 the optimizer `compile` makes (the
  LossScaleOptimizer it wraps SGD in), its config and final scale.
Loss scaling (mixed_float16): LossScaleOptimizer(SGD(0.1), initial_scale=2**10,
dynamic_growth_steps=2) compiled; `train_on_batch` on the batches of `steps_x` (step 2's
inputs are scaled by 1e4 so its float16 gradients overflow); after each step the json holds
`dynamic_scale`, `step_counter`, `iterations` and the npz the weights (`lso/w<i>`, stacked).
"""

from __future__ import annotations

import io
import json
import os
import contextlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")
POLICIES = ("mixed_float16", "mixed_bfloat16")
STEPS = 5
OVERFLOW_STEP = 2


def build_model() -> keras.Model:
    return keras.Sequential([
        keras.Input((6, 6, 2)),
        keras.layers.Conv2D(3, 3, activation="relu", name="conv"),
        keras.layers.Flatten(name="flatten"),
        keras.layers.Dense(5, activation="relu", name="hidden"),
        keras.layers.Dense(3, name="logits"),
        keras.layers.Activation("softmax", dtype="float32", name="probs"),
    ], name="mixed")


def f32(a) -> np.ndarray:
    return np.asarray(tf.cast(a, tf.float32))


def main() -> None:
    rng = np.random.default_rng(19)
    arrays: dict = {"x": rng.normal(size=(8, 6, 6, 2)).astype(np.float32),
                    "y": rng.integers(0, 3, size=(8,)).astype(np.int32)}
    steps_x = rng.normal(size=(STEPS, 4, 6, 6, 2)).astype(np.float32)
    steps_x[OVERFLOW_STEP] *= 1e4
    arrays["steps_x"] = steps_x
    arrays["steps_y"] = rng.integers(0, 3, size=(STEPS, 4)).astype(np.int32)
    keras.mixed_precision.set_global_policy("float32")
    init = [w.numpy() for w in build_model().weights]
    for i, w in enumerate(init):
        arrays[f"init/w{i}"] = (rng.normal(size=w.shape) * 0.4).astype(np.float32)
    init = [arrays[f"init/w{i}"] for i in range(len(init))]
    info: dict = {"policies": {}}
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    for policy in POLICIES:
        keras.mixed_precision.set_global_policy(policy)
        model = build_model()
        model.set_weights(init)
        case: dict = {}
        out = model(arrays["x"])
        arrays[f"{policy}/out"] = f32(out)
        case["out_dtype"] = out.dtype.name
        case["layers"] = {l.name: {"policy": l.dtype_policy.name, "compute_dtype": l.compute_dtype,
                                   "variable_dtype": l.variable_dtype, "dtype": l.dtype,
                                   "config_dtype": l.get_config()["dtype"],
                                   "output_dtype": l.output.dtype}
                          for l in model.layers}
        case["weights"] = [[w.path, w.dtype] for w in model.weights]
        with tf.GradientTape() as tape:
            loss = loss_fn(arrays["y"], model(arrays["x"]))
        grads = tape.gradient(loss, model.trainable_weights)
        case["loss"] = float(loss)
        case["loss_dtype"] = loss.dtype.name
        case["grad_dtypes"] = [g.dtype.name for g in grads]
        for i, g in enumerate(grads):
            arrays[f"{policy}/grad{i}"] = f32(g)
        text = io.StringIO()
        model.summary(print_fn=lambda line, *a, text=text, **k: text.write(line + "\n"))
        case["summary"] = text.getvalue()
        # fit, with the optimizer compile chooses
        model.compile(optimizer=keras.optimizers.SGD(0.1),
                      loss="sparse_categorical_crossentropy")
        case["compiled_optimizer"] = type(model.optimizer).__name__
        case["compiled_optimizer_config"] = model.optimizer.get_config()
        hist = model.fit(arrays["x"], arrays["y"], batch_size=4, epochs=3, shuffle=False,
                         verbose=0)
        case["fit_loss"] = [float(v) for v in hist.history["loss"]]
        if hasattr(model.optimizer, "dynamic_scale"):
            case["fit_dynamic_scale"] = float(model.optimizer.dynamic_scale.numpy())
            case["fit_step_counter"] = int(model.optimizer.step_counter.numpy())
            case["fit_variables"] = [[v.path, v.dtype] for v in model.optimizer.variables]
        for i, w in enumerate(model.weights):
            arrays[f"{policy}/fit/w{i}"] = w.numpy()
        info["policies"][policy] = case
    # the loss scale over steps, one overflowing
    keras.mixed_precision.set_global_policy("mixed_float16")
    model = build_model()
    model.set_weights(init)
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=2.0**10,
                                              dynamic_growth_steps=2)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
    lso: dict = {"dynamic_scale": [], "step_counter": [], "iterations": [], "loss": [],
                 "config": opt.get_config()}
    weights = []
    for step in range(STEPS):
        loss = model.train_on_batch(steps_x[step], arrays["steps_y"][step])
        lso["loss"].append(float(loss))
        lso["dynamic_scale"].append(float(opt.dynamic_scale.numpy()))
        lso["step_counter"].append(int(opt.step_counter.numpy()))
        lso["iterations"].append(int(opt.iterations.numpy()))
        weights.append([w.numpy() for w in model.weights])
    for i in range(len(weights[0])):
        arrays[f"lso/w{i}"] = np.stack([w[i] for w in weights])
    info["lso"] = lso
    keras.mixed_precision.set_global_policy("float32")
    # the policies' own API
    info["policy_repr"] = repr(keras.mixed_precision.Policy("mixed_bfloat16"))
    info["policy_config"] = keras.saving.serialize_keras_object(
        keras.mixed_precision.Policy("mixed_float16"))
    for bad in ("foo", 3):
        try:
            keras.mixed_precision.Policy(bad)
        except Exception as exc:  # noqa: BLE001 - recorded
            info.setdefault("errors", {})[str(bad)] = [type(exc).__name__, str(exc)]
    np.savez_compressed(os.path.join(OUT, "mixed.npz"), **arrays)
    with open(os.path.join(OUT, "mixed.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    with contextlib.redirect_stderr(io.StringIO()):
        main()
