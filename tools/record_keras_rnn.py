"""Records Keras 3's recurrent layers into tests/keras/fixtures/rnn.npz + rnn.json (run with a
Python that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_rnn.py

Each case is a layer expression (evaluated with `L` = keras.layers, the same text the test
evaluates with tapeflow's), call options (a `mask=` argument, initial states, training), and
records: the input, the weights (set to fixed values), the outputs, the gradients of
sum(outputs * cotangents) with respect to the input and every weight, the config, and the
weights' paths. Model cases (masks from Masking / Embedding(mask_zero=True)) record the same
for a Sequential model; `summary` is a small LSTM model's `summary()` text.
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
L = keras.layers

# name -> (layer expression, call options). Options: "mask" (pass the fixed mask as `mask=`),
# "initial_state" (pass fixed initial states), "training", "calls" (stateful: calls in a row).
CASES = {
    "simple_rnn": ("L.SimpleRNN(4)", {}),
    "simple_rnn_seq_state": ("L.SimpleRNN(4, return_sequences=True, return_state=True)", {}),
    "simple_rnn_relu_back": ("L.SimpleRNN(3, activation='relu', go_backwards=True)", {}),
    "lstm": ("L.LSTM(4)", {}),
    "lstm_seq_state": ("L.LSTM(4, return_sequences=True, return_state=True)", {}),
    "lstm_backwards": ("L.LSTM(4, return_sequences=True, go_backwards=True)", {}),
    "lstm_no_bias": ("L.LSTM(3, use_bias=False, activation='relu', "
                     "recurrent_activation='hard_sigmoid')", {}),
    "lstm_unroll": ("L.LSTM(4, unroll=True, return_sequences=True)", {}),
    "lstm_initial_state": ("L.LSTM(4, return_state=True)", {"initial_state": True}),
    "gru": ("L.GRU(4, return_sequences=True)", {}),
    "gru_reset_before": ("L.GRU(4, reset_after=False, return_state=True)", {}),
    "gru_backwards": ("L.GRU(4, go_backwards=True)", {}),
    "gru_no_bias": ("L.GRU(3, use_bias=False, return_sequences=True)", {}),
    "bidi_concat": ("L.Bidirectional(L.LSTM(3, return_sequences=True))", {}),
    "bidi_sum": ("L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode='sum')", {}),
    "bidi_mul": ("L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode='mul')", {}),
    "bidi_ave": ("L.Bidirectional(L.SimpleRNN(3), merge_mode='ave')", {}),
    "bidi_none": ("L.Bidirectional(L.LSTM(3), merge_mode=None)", {}),
    "bidi_state": ("L.Bidirectional(L.GRU(3, return_state=True))", {}),
    "bidi_backward_layer": ("L.Bidirectional(L.LSTM(3), backward_layer=L.SimpleRNN(3, "
                            "go_backwards=True))", {}),
    "stacked": ("L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_sequences=True)", {}),
    "rnn_cell_state": ("L.RNN(L.SimpleRNNCell(3), return_state=True)", {}),
    "rnn_gru_cell_back": ("L.RNN(L.GRUCell(3, reset_after=False), go_backwards=True)", {}),
    "time_distributed": ("L.TimeDistributed(L.Dense(3, activation='tanh'))", {}),
    "lstm_mask": ("L.LSTM(4)", {"mask": True}),
    "lstm_mask_seq_back": ("L.LSTM(4, return_sequences=True, go_backwards=True)",
                           {"mask": True}),
    "gru_mask_seq_state": ("L.GRU(4, return_sequences=True, return_state=True)",
                           {"mask": True}),
    "simple_rnn_mask": ("L.SimpleRNN(3, return_sequences=True)", {"mask": True}),
    "bidi_mask": ("L.Bidirectional(L.LSTM(3, return_sequences=True))", {"mask": True}),
    "bidi_mask_last": ("L.Bidirectional(L.GRU(3))", {"mask": True}),
    "stacked_mask": ("L.RNN([L.SimpleRNNCell(3), L.LSTMCell(2)])", {"mask": True}),
    "lstm_dropout": ("L.LSTM(4, return_sequences=True, dropout=0.5, seed=3)",
                     {"training": True}),
    "gru_dropouts": ("L.GRU(4, dropout=0.3, recurrent_dropout=0.4, seed=5)",
                     {"training": True}),
    "lstm_dropouts": ("L.LSTM(3, dropout=0.2, recurrent_dropout=0.3, seed=7)",
                      {"training": True}),
    "simple_rnn_dropouts": ("L.SimpleRNN(3, dropout=0.25, recurrent_dropout=0.5, seed=9)",
                            {"training": True}),
    "lstm_dropout_inference": ("L.LSTM(4, dropout=0.5, recurrent_dropout=0.5, seed=3)", {}),
    "lstm_stateful": ("L.LSTM(3, stateful=True)", {"calls": 2}),
}

# Sequential models whose masks come from a layer. Inputs: float (Masking) or ids.
MODEL_CASES = {
    "masking_lstm": ("[L.Input((6, 3)), L.Masking(), L.LSTM(4, return_sequences=True), "
                     "L.TimeDistributed(L.Dense(2))]", "float"),
    "embedding_gru": ("[L.Input((6,), dtype='int32'), L.Embedding(10, 3, mask_zero=True), "
                      "L.GRU(4)]", "ids"),
    "embedding_bidi": ("[L.Input((6,), dtype='int32'), L.Embedding(10, 3, mask_zero=True), "
                       "L.Bidirectional(L.LSTM(3, return_sequences=True)), L.LSTM(2)]", "ids"),
}

SUMMARY_MODEL = ("[L.Input((10, 5)), L.LSTM(8, return_sequences=True), "
                 "L.Bidirectional(L.GRU(4)), L.Dense(3)]")

BATCH, TIME, FEATURES = 2, 6, 3
# Keras's mask of the `mask=` cases: the first example loses its last two steps, the second
# its first step (a masked step at the start, which backwards layers see last).
MASK = np.array([[1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 1]], bool)
IDS = np.array([[3, 1, 4, 1, 0, 0], [5, 9, 2, 6, 5, 3]], np.int32)


def _inputs(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-1, 1, (BATCH, TIME, FEATURES)).astype(np.float32)


def _set_weights(layer, rng: np.random.Generator) -> list:
    values = [rng.uniform(-0.6, 0.6, w.shape).astype(np.float32) for w in layer.weights]
    layer.set_weights(values)
    return values


def _record(arrays: dict, name: str, outputs: list, cotangents: list, grads: list) -> None:
    for i, (o, c) in enumerate(zip(outputs, cotangents)):
        arrays[f"{name}/out{i}"] = np.asarray(o)
        arrays[f"{name}/cot{i}"] = c
    for i, g in enumerate(grads):
        arrays[f"{name}/grad{i}"] = np.asarray(tf.convert_to_tensor(g))  # IndexedSlices too


def _run_case(name: str, expr: str, options: dict, rng, arrays: dict) -> dict:
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()  # automatic names (in the paths) count from zero
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    x = _inputs(rng)
    arrays[f"{name}/x"] = x
    kwargs = {}
    if options.get("mask"):
        kwargs["mask"] = tf.constant(MASK)
    if options.get("training"):
        kwargs["training"] = True
    layer.build(x.shape)
    if options.get("initial_state"):
        states = [rng.uniform(-1, 1, (BATCH, 4)).astype(np.float32) for _ in range(2)]
        arrays[f"{name}/state0"], arrays[f"{name}/state1"] = states
        kwargs["initial_state"] = [tf.constant(s) for s in states]
    weights = _set_weights(layer, rng)
    for i, w in enumerate(weights):
        arrays[f"{name}/w{i}"] = w
    xt = tf.constant(x)
    for call in range(options.get("calls", 1)):
        with tf.GradientTape() as tape:
            tape.watch(xt)
            outputs = tf.nest.flatten(layer(xt, **kwargs))
            cots = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outputs]
            loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
        grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
        _record(arrays, name if call == 0 else f"{name}/call{call}", outputs, cots, grads)
    if options.get("calls"):
        layer.reset_states()
        arrays[f"{name}/after_reset"] = np.asarray(layer(xt))
    return {"expr": expr, "options": options, "n_outputs": len(outputs),
            "config": layer.get_config(), "paths": [w.path for w in layer.weights]}


def _run_model(name: str, expr: str, kind: str, rng, arrays: dict) -> dict:
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    model = keras.Sequential(eval(expr))  # noqa: S307
    if kind == "float":
        x = _inputs(rng)
        x[0, 4:] = 0.0  # masked by Masking (all features equal mask_value)
        x[1, 0] = 0.0
    else:
        x = IDS
    arrays[f"{name}/x"] = x
    for i, w in enumerate(_set_weights(model, rng)):
        arrays[f"{name}/w{i}"] = w
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        out = model(xt)
        cot = rng.uniform(-1, 1, out.shape).astype(np.float32)
        loss = tf.reduce_sum(out * cot)
    grads = tape.gradient(loss, model.trainable_weights)
    _record(arrays, name, [out], [cot], grads)
    return {"expr": expr, "kind": kind, "paths": [w.path for w in model.weights]}


def _summary() -> str:
    keras.backend.clear_session()
    model = keras.Sequential(eval(SUMMARY_MODEL))  # noqa: S307
    lines: list = []
    model.summary(print_fn=lambda line, **_: lines.append(line))
    return "\n".join(lines)


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "mask": MASK.tolist(), "cases": {},
            "models": {}}
    for name, (expr, options) in CASES.items():
        meta["cases"][name] = _run_case(name, expr, options, rng, arrays)
    for name, (expr, kind) in MODEL_CASES.items():
        meta["models"][name] = _run_model(name, expr, kind, rng, arrays)
    meta["summary"] = {"expr": SUMMARY_MODEL, "text": _summary()}
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "rnn.npz"), **arrays)
    with open(os.path.join(OUT, "rnn.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} layer cases, {len(MODEL_CASES)} models")


if __name__ == "__main__":
    main()
