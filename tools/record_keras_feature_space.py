"""Records Keras 3's `keras.utils.FeatureSpace` (TensorFlow backend) into
tests/keras/fixtures/feature_space.json, feature_space.npz and feature_space.keras.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras_feature_space.py

A synthetic table of 48 rows (fixed seed, stored in the npz as `data/<column>` and `labels`
for the test to read) is encoded by the FeatureSpaces of `SPACES` (their text, `FS` being
keras.utils.FeatureSpace): each is adapted (on the batched features, the unbatched rows or the
dict of columns: `ADAPT`), then called on the whole table, on one unbatched row and mapped
over the batched dataset. The json keeps the configs, vocabularies, output dtypes and shapes,
the errors of bad input and the losses of a short `fit` on the encoded features (the keras.io
example, shortened); the npz keeps the outputs and the model's initial weights.
`feature_space.keras` is the main space as `FeatureSpace.save` writes it (its vocabularies in
the assets), `feature_space_saved.keras` the space `SAVED_SPACE` (its state in the weights).
"""

from __future__ import annotations

import json
import os

import numpy as np

ROWS = 48
THAL = np.array(["normal", "fixed", "reversible"])
CITIES = np.array(["paris", "rome", "oslo", "lima", "kiev"])


def table() -> tuple:
    """The synthetic (features, labels): a dict of NumPy columns and int64 labels."""
    rng = np.random.default_rng(7)
    data = {
        "sex": rng.integers(0, 2, ROWS),
        "cp": rng.integers(0, 5, ROWS),
        "ca": rng.integers(0, 4, ROWS),
        "thal": THAL[rng.integers(0, 3, ROWS)],
        "age": rng.uniform(29, 77, ROWS).astype(np.float32),
        "chol": rng.normal(240, 50, ROWS).astype(np.float32),
        "oldpeak": rng.uniform(0, 6, ROWS).astype(np.float32),
        "thalach": rng.normal(1.5, 0.3, ROWS).astype(np.float32),
        "zip": rng.integers(1000, 1020, ROWS),
        "city": CITIES[rng.integers(0, 5, ROWS)],
    }
    labels = rng.integers(0, 2, ROWS)
    return data, labels


# name -> the FeatureSpace's text (FS is FeatureSpace)
SPACES = {
    "concat": """FS(features={
        "sex": FS.integer_categorical(name="sex"),
        "cp": FS.integer_categorical(max_tokens=4, name="cp"),
        "ca": FS.integer_categorical(num_oov_indices=2, name="ca"),
        "thal": FS.string_categorical(name="thal"),
        "age": FS.float_discretized(num_bins=8, name="age"),
        "chol": FS.float_normalized(name="chol"),
        "oldpeak": FS.float_rescaled(scale=0.5, offset=1.0, name="oldpeak"),
        "thalach": FS.float(name="thalach"),
        "zip": FS.integer_hashed(num_bins=16, name="zip"),
        "city": FS.string_hashed(num_bins=8, name="city"),
    }, crosses=[FS.cross(feature_names=("sex", "age"), crossing_dim=16),
                FS.cross(feature_names=("thal", "ca"), crossing_dim=8)],
    output_mode="concat", name="fs_concat")""",
    "dict_int": """FS(features={
        "sex": FS.integer_categorical(output_mode="int", name="sex"),
        "thal": FS.string_categorical(output_mode="int", name="thal"),
        "age": FS.float_discretized(num_bins=5, output_mode="int", name="age"),
        "chol": FS.float_normalized(name="chol"),
        "city": FS.string_hashed(num_bins=8, output_mode="int", name="city"),
    }, crosses=[FS.cross(("sex", "thal"), crossing_dim=4, output_mode="int"),
                FS.cross(("city", "age"), crossing_dim=6)],
    output_mode="dict", name="fs_dict")""",
    "strings": """FS(features={
        "sex": "integer_categorical", "thal": "string_categorical",
        "age": "float_discretized", "chol": "float_normalized", "oldpeak": "float_rescaled",
        "thalach": "float", "zip": "integer_hashed", "city": "string_hashed",
    }, crosses=[("sex", "thal"), ("zip", "city")], crossing_dim=10, hashing_dim=12,
    num_discretization_bins=6, name="fs_strings")""",
    "custom": """FS(features={
        "thal": FS.feature(preprocessor=keras.layers.StringLookup(name="thal_lookup"),
                           dtype="string", output_mode="one_hot"),
        "chol": FS.feature(preprocessor=keras.layers.Normalization(mean=240.0,
                           variance=2500.0, name="chol_norm"), dtype="float32",
                           output_mode="float"),
        "cp": FS.feature(preprocessor=keras.layers.IntegerLookup(max_tokens=4,
                         name="cp_lookup"), dtype="int32", output_mode="one_hot"),
    }, name="fs_custom")""",
}

# A space whose state is all in its config and weights (no learned vocabulary, which Keras keeps
# in the file's assets): saved as feature_space_saved.keras, with its encoding of the table.
SAVED_SPACE = """FS(features={
    "age": FS.float_discretized(num_bins=6, name="age"), "chol": FS.float_normalized(name="chol"),
    "oldpeak": FS.float_rescaled(scale=0.5, name="oldpeak"), "thalach": FS.float(name="thalach"),
    "zip": FS.integer_hashed(num_bins=16, name="zip"),
    "city": FS.string_hashed(num_bins=8, name="city"),
}, crosses=[FS.cross(("zip", "city"), crossing_dim=8)], name="fs_saved")"""

# How each space is adapted: on the batched dataset (the default), the unbatched one (rows of
# scalars, which the space batches by 32 itself), or the dict of columns.
ADAPT = {"strings": "dict", "custom": "unbatched"}


def adapt_data(name: str, data: dict, tf: object) -> object:
    """What the space `name` is adapted on (`tf` is TensorFlow or tapeflow)."""
    how = ADAPT.get(name, "batched")
    if how == "dict":
        return data
    ds = tf.data.Dataset.from_tensor_slices(data)
    return ds if how == "unbatched" else ds.batch(16)


# name -> (text that must raise, run with FS, data, ds)
ERRORS = {
    "empty_features": "FS(features={})",
    "bad_output_mode": 'FS(features={"a": "float"}, output_mode="list")',
    "bad_feature_type": 'FS(features={"a": "double"})',
    "unknown_cross": 'FS(features={"a": "float", "b": "float"}, crosses=[("a", "c")])',
    "cross_without_dim": 'FS(features={"a": "integer_categorical", "b": "string_categorical"},'
                         ' crosses=[("a", "b")], crossing_dim=0)',
    "bad_feature_mode": 'FS.integer_categorical(output_mode="multi_hot")',
    "bad_cross_mode": 'FS.cross(("a", "b"), crossing_dim=4, output_mode="float")',
    "not_adapted": 'FS(features={"chol": "float_normalized"}).get_encoded_features()',
    "not_adapted_call": 'FS(features={"chol": "float_normalized"})({"chol": data["chol"]})',
    "adapt_list": 'FS(features={"chol": "float_normalized"}).adapt([1.0, 2.0])',
    "call_not_dict": 'FS(features={"thalach": "float"})(data["thalach"])',
    "one_hot_float": 'FS(features={"chol": FS.feature(preprocessor=keras.layers.Normalization('
                     'mean=0.0, variance=1.0), dtype="float32", output_mode="one_hot")})'
                     '.get_encoded_features()',
    "concat_int": 'FS(features={"sex": FS.integer_categorical(output_mode="int"), "chol": '
                  '"float"}).adapt(data)',
    "extra_key": 'FS(features={"thalach": "float"})({"thalach": data["thalach"], '
                 '"chol": data["chol"]})',
    "adapt_static_vocabulary": 'FS(features={"cp": FS.feature(preprocessor=keras.layers.'
                               'IntegerLookup(vocabulary=[0, 1]), dtype="int32", '
                               'output_mode="int")}, output_mode="dict").adapt(data)',
    "one_hot_unknown": 'FS(features={"sex": FS.feature(preprocessor=keras.layers.Rescaling('
                       '1.0, dtype="int32"), dtype="int32", output_mode="one_hot")})'
                       '.get_encoded_features()',
}

FIT = dict(batch_size=16, epochs=3, units=8, learning_rate=0.01)


def _np(x: object) -> np.ndarray:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _outputs(out: object, prefix: str, arrays: dict, record: dict) -> None:
    """Stores a concat tensor or a dict of tensors under `prefix`."""
    items = out.items() if isinstance(out, dict) else [("", out)]
    record[prefix] = {}
    for key, value in items:
        value = _np(value)
        arrays[f"{prefix}/{key}"] = value
        record[prefix][key] = {"dtype": value.dtype.name, "shape": list(value.shape)}


def _preprocessor_state(fs: object) -> dict:
    state = {}
    for name, layer in fs.preprocessors.items():
        if hasattr(layer, "get_vocabulary"):
            state[name] = [v if isinstance(v, str) else int(v) for v in layer.get_vocabulary()]
        elif hasattr(layer, "bin_boundaries") and layer.bin_boundaries is not None:
            state[name] = [float(v) for v in layer.bin_boundaries]
        elif type(layer).__name__ == "Normalization":
            state[name] = [float(_np(layer.mean).ravel()[0]), float(_np(layer.variance).ravel()[0])]
    return state


def record_space(name: str, text: str, keras: object, tf: object, data: dict,
                 arrays: dict) -> dict:
    FS = keras.utils.FeatureSpace  # noqa: N806 (the SPACES' texts name it so)
    fs = eval(text, {"FS": FS, "keras": keras})
    data = {k: v for k, v in data.items() if k in fs.features}  # an unknown key: KeyError
    ds = tf.data.Dataset.from_tensor_slices(data).batch(16)
    fs.adapt(adapt_data(name, data, tf))
    rec: dict = {"state": _preprocessor_state(fs)}
    _outputs(fs(data), f"{name}/full", arrays, rec)
    _outputs(fs({k: v[3] for k, v in data.items()}), f"{name}/row", arrays, rec)
    mapped = list(ds.map(fs))
    if isinstance(mapped[0], dict):
        mapped = {k: np.concatenate([_np(m[k]) for m in mapped]) for k in mapped[0]}
    else:
        mapped = np.concatenate([_np(m) for m in mapped])
    _outputs(mapped, f"{name}/mapped", arrays, rec)
    encoded = fs.get_encoded_features()
    items = encoded.items() if isinstance(encoded, dict) else [("", encoded)]
    rec["encoded"] = {k: {"shape": list(v.shape), "dtype": v.dtype} for k, v in items}
    rec["inputs"] = {k: {"shape": list(v.shape), "dtype": v.dtype, "name": v.name}
                     for k, v in fs.get_inputs().items()}
    rec["config"] = keras.saving.serialize_keras_object(fs)
    rec["preprocessor_names"] = {k: v.name for k, v in fs.preprocessors.items()}
    rec["crosser_names"] = sorted(fs.crossers)
    return rec, fs


def record_fit(fs: object, keras: object, tf: object, data: dict, labels: np.ndarray,
               arrays: dict) -> dict:
    """The keras.io example, shortened: a model on the encoded features, fit on the mapped
    dataset; then the end-to-end model on the raw inputs."""
    encoded = fs.get_encoded_features()
    hidden = keras.layers.Dense(FIT["units"], activation="relu")(encoded)
    out = keras.layers.Dense(1, activation="sigmoid")(hidden)
    model = keras.Model(inputs=encoded, outputs=out)
    for i, w in enumerate(model.get_weights()):
        arrays[f"fit/initial/{i}"] = w
    model.compile(optimizer=keras.optimizers.Adam(FIT["learning_rate"]),
                  loss="binary_crossentropy", metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((data, labels)).batch(FIT["batch_size"])
    train = ds.map(lambda x, y: (fs(x), y))
    history = model.fit(train, epochs=FIT["epochs"], verbose=0)
    end_to_end = keras.Model(inputs=fs.get_inputs(), outputs=out)
    columns = {k: tf.constant(v[:, None]) for k, v in data.items()}
    arrays["fit/predictions"] = end_to_end.predict(columns, verbose=0)
    return {k: [float(v) for v in vals] for k, vals in history.history.items()}


def record_errors(keras: object, data: dict) -> dict:
    FS = keras.utils.FeatureSpace  # noqa: N806
    errors = {}
    for name, text in ERRORS.items():
        try:
            eval(text, {"FS": FS, "keras": keras, "data": data})
        except Exception as e:  # noqa: BLE001 (recording what Keras raises)
            errors[name] = {"class": type(e).__name__, "message": str(e)}
        else:
            errors[name] = None
    return errors


def main() -> None:
    import keras
    import tensorflow as tf

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "keras",
                        "fixtures")
    data, labels = table()
    arrays: dict = {f"data/{k}": v for k, v in data.items()}
    arrays["labels"] = labels
    record: dict = {"keras_version": keras.__version__, "spaces": {}}
    spaces = {}
    for name, text in SPACES.items():
        record["spaces"][name], spaces[name] = record_space(name, text, keras, tf, data, arrays)
    record["fit"] = record_fit(spaces["concat"], keras, tf, data, labels, arrays)
    record["errors"] = record_errors(keras, data)
    spaces["concat"].save(os.path.join(here, "feature_space.keras"))
    saved = eval(SAVED_SPACE, {"FS": keras.utils.FeatureSpace})
    columns = {k: v for k, v in data.items() if k in saved.features}
    saved.adapt(columns)
    arrays["saved/full"] = _np(saved(columns))
    saved.save(os.path.join(here, "feature_space_saved.keras"))
    with open(os.path.join(here, "feature_space.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True, default=str)
    np.savez_compressed(os.path.join(here, "feature_space.npz"), **arrays)


if __name__ == "__main__":
    main()
