"""Records what Keras 3.15's layer parameters do, for the parameters tapeflow's signatures
gained (tests/keras/test_layer_signatures_behaviour.py reads the results from
tests/keras/fixtures/keras_layer_params.npz + keras_layer_params.json). Run with a Python
that has Keras 3 + TensorFlow:

  KERAS_BACKEND=tensorflow python tools/record_keras_layer_params.py

Each case is a layer expression (evaluated with `L` = keras.layers, the text the test
evaluates with tapeflow's), optionally a statement run on the built layer (`after`, e.g.
`layer.enable_lora(2)`), input shapes and one `training` value per call. The layer is built,
its weights are set to fixed values (positive for variances and stddevs), then called once per
`training` value under a GradientTape with a recorded cotangent: each call's outputs, its
gradients with respect to the float inputs and the trainable weights, and the layer's losses
are recorded; after the calls, its weights, config and weight paths, and the config of a clone
made from that config (and built). `init` records the weights right after building under
keras.utils.set_random_seed(0). `fits` records models trained with fit from fixed weights:
the weights after training, the losses and the predictions. `errors` records the class and
message of the errors Keras raises for statements run with `L` and `keras` in scope.
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
STEM = "keras_layer_params"
L = keras.layers

# name: (expression, input shapes, one `training` value per call, statement after build,
#        integer inputs below this bound (None: float inputs)).
CASES = {
    # Transposed convolutions, every parameter passed positionally (Keras's order).
    "conv2d_transpose_positional": (
        "L.Conv2DTranspose(2, 3, 1, 'valid', None, 'channels_first', 2, 'relu', False)",
        [(2, 3, 5, 4)], [None], None, None),
    "conv1d_transpose_positional": (
        "L.Conv1DTranspose(3, 2, 2, 'same', 1, 'channels_first', 1, 'tanh', True, "
        "'glorot_uniform', 'zeros', 'l2', 'l1', 'l2')", [(2, 4, 5)], [None], None, None),
    "conv3d_transpose_positional": (
        "L.Conv3DTranspose(2, 2, 1, 'valid', 'channels_first', None, (1, 2, 1), 'sigmoid')",
        [(1, 3, 3, 4, 3)], [None], None, None),
    "convolution2d_transpose_alias": (
        "L.Convolution2DTranspose(2, 2, strides=2, output_padding=1, "
        "activity_regularizer='l1', kernel_regularizer='l2')", [(2, 3, 3, 2)], [None], None,
        None),
    # Merge layers: base-layer keywords only.
    "add_named": ("L.Add(name='sum_of_two')", [(2, 3), (2, 3)], [None], None, None),
    "subtract": ("L.Subtract()", [(2, 4), (2, 4)], [None], None, None),
    "average_frozen": ("L.Average(trainable=False)", [(2, 3), (2, 3), (2, 3)], [None], None,
                       None),
    "maximum": ("L.Maximum(name='mx')", [(3, 2), (3, 2)], [None], None, None),
    "minimum": ("L.Minimum()", [(3, 2), (3, 2)], [None], None, None),
    "multiply": ("L.Multiply()", [(2, 3), (2, 3)], [None], None, None),
    # Batch renormalization.
    "bn_renorm": ("L.BatchNormalization(renorm=True, momentum=0.9, renorm_momentum=0.8)",
                  [(6, 4)], [True, True, True, False], None, None),
    "bn_renorm_clipped": (
        "L.BatchNormalization(axis=1, renorm=True, renorm_clipping={'rmax': 1.2, "
        "'rmin': 0.9, 'dmax': 0.1}, renorm_momentum=0.5, center=False)",
        [(5, 3, 4)], [True, True, False], None, None),
    "bn_renorm_no_scale": (
        "L.BatchNormalization(renorm=True, scale=False, epsilon=0.01, "
        "beta_regularizer='l1', beta_constraint='non_neg')", [(4, 3)], [True, True], None,
        None),
    "bn_regularized": ("L.BatchNormalization(gamma_regularizer='l2', beta_regularizer='l1')",
                       [(4, 3)], [True], None, None),
    # LayerNormalization: rms_scaling only through **kwargs (deprecated).
    "ln_rms_scaling": ("L.LayerNormalization(rms_scaling=True, epsilon=0.01)", [(3, 5)],
                       [None], None, None),
    "ln_rms_scaling_axes": (
        "L.LayerNormalization(axis=(1, 2), rms_scaling=True, center=False, scale=False, "
        "gamma_regularizer='l2')", [(2, 3, 4)], [None], None, None),
    "ln_regularized": ("L.LayerNormalization(beta_regularizer='l2', gamma_regularizer='l1')",
                       [(3, 4)], [None], None, None),
    # LoRA (Keras's Dense and Embedding enable it without lora_alpha: it becomes the rank).
    "dense_lora": ("L.Dense(4, lora_rank=2, lora_alpha=8)", [(3, 5)], [None], None, None),
    "dense_enable_lora": ("L.Dense(3, activation='relu', kernel_regularizer='l2')", [(3, 5)],
                          [None], "layer.enable_lora(2, lora_alpha=6)", None),
    "embedding_lora": ("L.Embedding(7, 3, lora_rank=2, lora_alpha=4)", [(2, 5)], [None],
                       None, 7),
    "embedding_enable_lora": ("L.Embedding(6, 2, mask_zero=True)", [(3, 4)], [None],
                              "layer.enable_lora(3, lora_alpha=1.5)", 6),
    "einsum_lora": ("L.EinsumDense('abc,cd->abd', (None, 4), bias_axes='d', lora_rank=2, "
                    "lora_alpha=3)", [(2, 3, 5)], [None], None, None),
    "einsum_lora_3d_kernel": ("L.EinsumDense('ab,bcd->acd', (3, 4), lora_rank=2)",
                              [(2, 5)], [None], None, None),
    "einsum_gptq_column_size": ("L.EinsumDense('ab,bc->ac', 4, gptq_unpacked_column_size=5)",
                                [(2, 5)], [None], None, None),
    # Cells with every constructor parameter (positional ones in Keras's order).
    "lstm_cell_dropout": ("L.RNN(L.LSTMCell(3, dropout=0.2, seed=1), return_sequences=True)",
                          [(2, 4, 5)], [True], None, None),
    "lstm_cell_positional": (
        "L.RNN(L.LSTMCell(3, 'tanh', 'sigmoid', True, 'ones', 'zeros', 'zeros', False, None, "
        "None, None, None, None, None, 0.3, 0.4, 7), return_sequences=True)",
        [(2, 4, 5)], [True], None, None),
    "gru_cell_dropouts": (
        "L.RNN(L.GRUCell(4, dropout=0.25, recurrent_dropout=0.5, reset_after=False, seed=3))",
        [(2, 3, 5)], [True], None, None),
    "gru_cell_positional": (
        "L.RNN(L.GRUCell(2, 'relu', 'hard_sigmoid', True, 'ones', 'zeros', 'ones', 'l2', "
        "'l1', 'l2', None, None, None, 0.5, 0.0, True, 5))", [(2, 3, 4)], [True], None, None),
    "simple_rnn_cell_positional": (
        "L.RNN(L.SimpleRNNCell(3, 'relu', True, 'glorot_uniform', 'orthogonal', 'zeros', "
        "'l2', None, 'l1', None, None, None, 0.5, 0.25, 11), return_state=True)",
        [(2, 4, 3)], [True], None, None),
    "simple_rnn_cell_inference": ("L.RNN(L.SimpleRNNCell(3, dropout=0.5, seed=2))",
                                  [(2, 4, 3)], [False], None, None),
}

# Initial weights are compared for the cases whose initializers are all seeded or constant.
INIT_CASES = ("lstm_cell_positional", "gru_cell_positional", "bn_renorm", "dense_lora",
              "einsum_lora")

# Models trained with fit (SGD, no shuffling) from fixed weights: the layers' parameters
# inside Keras's compiled train step (batch renormalization's updates, LoRA's frozen kernel,
# a cell's seeded dropout). name: (layers expression, input shape, output units).
FITS = {
    "fit_bn_renorm": ("[L.Dense(4), L.BatchNormalization(renorm=True, renorm_momentum=0.7, "
                      "renorm_clipping={'rmax': 2.0, 'dmax': 0.5}, beta_constraint='non_neg', "
                      "gamma_regularizer='l2'), L.Dense(2)]", (5,), 2),
    "fit_ln_conv_transpose": ("[L.Reshape((5, 1)), L.Conv1DTranspose(2, 3, 2, 'same', None, "
                              "'channels_last', 1, 'relu', True, 'glorot_uniform', 'zeros', "
                              "'l2', None, None, 'non_neg'), L.Flatten(), "
                              "L.LayerNormalization(gamma_constraint='non_neg', "
                              "beta_regularizer='l1'), L.Dense(2)]", (5,), 2),
    "fit_dense_lora": ("[L.Dense(4, activation='tanh', lora_rank=2, lora_alpha=4), "
                       "L.Dense(2, lora_rank=1)]", (5,), 2),
    "fit_lstm_cell_dropout": ("[L.RNN(L.LSTMCell(3, dropout=0.3, recurrent_dropout=0.2, "
                              "seed=4)), L.Dense(2)]", (4, 3), 2),
}

ERRORS = {
    "renorm_clipping_keys": "L.BatchNormalization(renorm=True, renorm_clipping={'x': 1})",
    "renorm_clipping_rmax": "L.BatchNormalization(renorm=True, "
                            "renorm_clipping={'rmax': 1, 'rmin': 2})",
    "renorm_clipping_dmax": "L.BatchNormalization(renorm=True, renorm_clipping={'dmax': -1})",
    "lora_kernel_constraint": "L.Dense(3, lora_rank=2, kernel_constraint='non_neg')"
                              ".build((2, 4))",
    "lora_unbuilt": "L.Dense(3).enable_lora(2)",
    "lora_twice": "layer = L.Dense(3, lora_rank=1); layer.build((2, 4)); layer.enable_lora(2)",
    "lora_embeddings_constraint": "L.Embedding(5, 2, embeddings_constraint='non_neg', "
                                  "lora_rank=2).build()",
    "einsum_lora_constraint": "L.EinsumDense('ab,bc->ac', 3, lora_rank=1, "
                              "kernel_constraint='non_neg').build((2, 4))",
    "input_ragged_sparse": "keras.Input((3,), ragged=True, sparse=True)",
}


def _fixed_weights(layer, rng: np.random.Generator) -> list:
    """Values for every weight: uniform in +-0.6, in [0.5, 1.5] for variances and stddevs."""
    values = []
    for w in layer.weights:
        positive = "variance" in w.path or "stddev" in w.path
        low, high = (0.5, 1.5) if positive else (-0.6, 0.6)
        values.append(rng.uniform(low, high, w.shape).astype(np.float32))
    layer.set_weights(values)
    return values


def _inputs(shapes: list, int_bound, rng) -> list:
    if int_bound is not None:
        return [rng.integers(0, int_bound, s).astype(np.int32) for s in shapes]
    return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def _make(expr: str, after, shapes: list):
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()  # automatic names (in the paths) count from zero
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    layer.build(shapes[0] if len(shapes) == 1 else list(shapes))
    if after is not None:
        exec(after, {"layer": layer})  # noqa: S102 - the fixture's own statements
    return layer


def _call(layer, xs: list, training):
    args = xs[0] if len(xs) == 1 else xs
    return layer(args) if training is None else layer(args, training=training)


def _run_step(layer, name: str, step: int, xs: list, training, rng, arrays: dict) -> int:
    """One call under a tape; returns the number of outputs."""
    xts = [tf.constant(x) for x in xs]
    floats = [t for t in xts if t.dtype.is_floating]
    with tf.GradientTape() as tape:
        for t in floats:
            tape.watch(t)
        outputs = tf.nest.flatten(_call(layer, xts, training))
        loss = 0.0
        for k, out in enumerate(outputs):
            cot = rng.uniform(-1, 1, out.shape).astype(np.float32)
            arrays[f"{name}/s{step}/cot{k}"] = cot
            arrays[f"{name}/s{step}/out{k}"] = np.asarray(out)
            loss = loss + tf.reduce_sum(out * cot)
    grads = tape.gradient(loss, floats + list(layer.trainable_weights))
    for j, g in enumerate(grads):
        arrays[f"{name}/s{step}/grad{j}"] = np.zeros(()) if g is None else \
            np.asarray(tf.convert_to_tensor(g))
    arrays[f"{name}/s{step}/losses"] = np.asarray(
        sum(float(v) for v in layer.losses), np.float64)
    return len(outputs)


def _run_case(name: str, spec: tuple, rng, arrays: dict) -> dict:
    expr, shapes, trainings, after, int_bound = spec
    layer = _make(expr, after, shapes)
    if name in INIT_CASES:
        for i, w in enumerate(layer.weights):
            arrays[f"{name}/init{i}"] = np.asarray(w.numpy())
    for i, w in enumerate(_fixed_weights(layer, rng)):
        arrays[f"{name}/w{i}"] = w
    n_outputs = []
    for step, training in enumerate(trainings):
        xs = _inputs(shapes, int_bound, rng)
        for i, x in enumerate(xs):
            arrays[f"{name}/s{step}/x{i}"] = x
        n_outputs.append(_run_step(layer, name, step, xs, training, rng, arrays))
    for i, w in enumerate(layer.weights):
        arrays[f"{name}/final{i}"] = np.asarray(w.numpy())
    clone = type(layer).from_config(layer.get_config())
    clone.build(shapes[0] if len(shapes) == 1 else list(shapes))
    return {"expr": expr, "shapes": [list(s) for s in shapes], "trainings": trainings,
            "after": after, "int_bound": int_bound, "n_outputs": n_outputs,
            "config": _config(layer), "clone_config": _config(clone),
            "paths": [w.path for w in layer.weights],
            "trainable": [w.path for w in layer.trainable_weights]}


def _run_fit(name: str, spec: tuple, rng, arrays: dict) -> dict:
    layers, shape, units = spec
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    model = keras.Sequential([L.Input(shape)] + eval(layers))  # noqa: S307
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    for i, w in enumerate(_fixed_weights(model, rng)):
        arrays[f"{name}/w{i}"] = w
    x = rng.uniform(-1, 1, (12,) + shape).astype(np.float32)
    y = rng.uniform(-1, 1, (12, units)).astype(np.float32)
    arrays[f"{name}/x"], arrays[f"{name}/y"] = x, y
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for i, w in enumerate(model.weights):
        arrays[f"{name}/final{i}"] = np.asarray(w.numpy())
    arrays[f"{name}/predict"] = np.asarray(model.predict(x, verbose=0))
    return {"layers": layers, "shape": list(shape), "units": units,
            "loss": [float(v) for v in history.history["loss"]],
            "paths": [w.path for w in model.weights]}


def _config(layer) -> dict:
    """The layer's serialized config as JSON carries it."""
    return json.loads(json.dumps(keras.saving.serialize_keras_object(layer)["config"]))


def _error(statement: str) -> dict:
    keras.backend.clear_session()
    try:
        exec(statement, {"L": L, "keras": keras})  # noqa: S102 - the fixture's statements
    except Exception as exc:  # noqa: BLE001 - recorded
        return {"statement": statement, "class": type(exc).__name__, "message": str(exc)}
    raise AssertionError(f"{statement} raised nothing")


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "cases": {}, "errors": {}}
    for name, spec in CASES.items():
        meta["cases"][name] = _run_case(name, spec, rng, arrays)
    meta["fits"] = {name: _run_fit(name, spec, rng, arrays) for name, spec in FITS.items()}
    for name, statement in ERRORS.items():
        meta["errors"][name] = _error(statement)
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, f"{STEM}.npz"), **arrays)
    with open(os.path.join(OUT, f"{STEM}.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} layer cases, {len(ERRORS)} errors")


if __name__ == "__main__":
    main()
