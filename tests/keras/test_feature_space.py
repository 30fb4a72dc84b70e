"""keras.utils.FeatureSpace against Keras 3.15.1 (TensorFlow backend), recorded by
tools/record_keras_feature_space.py into fixtures/feature_space.{json,npz,keras}: the same
spaces on the same 48-row table give Keras's encodings (values, dtypes, shapes, the order of
the concatenated features), learned vocabularies and bins, inputs, configs and errors; a
functional model on the encoded features trains to Keras's losses (the keras.io example,
shortened); a space saved to a `.keras` file loads back."""

from __future__ import annotations

import copy
import importlib.util
import json
import os

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras
FS = keras.utils.FeatureSpace
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
with open(os.path.join(FIXTURES, "feature_space.json")) as _f:
    RECORD = json.load(_f)
ARRAYS = dict(np.load(os.path.join(FIXTURES, "feature_space.npz")))
DATA = {k[len("data/"):]: v for k, v in ARRAYS.items() if k.startswith("data/")}
LABELS = ARRAYS["labels"]


def _recorder():
    """The recording script (its SPACES, ERRORS and FIT texts; it imports no Keras)."""
    path = os.path.join(HERE, "..", "..", "tools", "record_keras_feature_space.py")
    spec = importlib.util.spec_from_file_location("_record_keras_feature_space", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REC = _recorder()


def make_space(name: str):
    return eval(REC.SPACES[name], {"FS": FS, "keras": keras})


def adapted(name: str) -> tuple:
    """The space `name` adapted on its columns of the table as recorded (`REC.ADAPT`)."""
    keras.utils.clear_session()
    fs = make_space(name)
    data = {k: v for k, v in DATA.items() if k in fs.features}
    fs.adapt(REC.adapt_data(name, data, tf))
    return fs, data


def check_outputs(out, prefix: str) -> None:
    """`out` (a tensor or a dict) equals Keras's in dtype, shape and values."""
    items = out.items() if isinstance(out, dict) else [("", out)]
    recorded = RECORD["spaces"][prefix.split("/")[0]][prefix]
    assert [k for k, _ in items] == list(recorded) or sorted(k for k, _ in items) == \
        sorted(recorded)
    for key, value in items:
        expected = ARRAYS[f"{prefix}/{key}"]
        value = np.asarray(value)
        assert value.dtype == expected.dtype, (prefix, key)
        assert value.shape == expected.shape, (prefix, key)
        np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", sorted(REC.SPACES))
def test_encodings_match_keras(name: str) -> None:
    fs, data = adapted(name)
    check_outputs(fs(data), f"{name}/full")
    check_outputs(fs({k: v[3] for k, v in data.items()}), f"{name}/row")
    batches = list(tf.data.Dataset.from_tensor_slices(data).batch(16).map(fs))
    if isinstance(batches[0], dict):
        mapped = {k: np.concatenate([np.asarray(b[k]) for b in batches]) for k in batches[0]}
    else:
        mapped = np.concatenate([np.asarray(b) for b in batches])
    check_outputs(mapped, f"{name}/mapped")


@pytest.mark.parametrize("name", sorted(REC.SPACES))
def test_learned_state_inputs_and_encoded_features(name: str) -> None:
    fs, _ = adapted(name)
    record = RECORD["spaces"][name]
    for feature, expected in record["state"].items():
        layer = fs.preprocessors[feature]
        if hasattr(layer, "get_vocabulary"):
            assert [v if isinstance(v, str) else int(v) for v in layer.get_vocabulary()] == \
                expected
        elif isinstance(layer, keras.layers.Normalization):
            np.testing.assert_allclose([np.ravel(layer.mean)[0], np.ravel(layer.variance)[0]],
                                       expected, rtol=1e-6)
        else:
            np.testing.assert_allclose(layer.bin_boundaries, expected, rtol=1e-6)
    inputs = fs.get_inputs()
    assert {k: {"shape": list(v.shape), "dtype": v.dtype, "name": v.name}
            for k, v in inputs.items()} == record["inputs"]
    encoded = fs.get_encoded_features()
    items = encoded.items() if isinstance(encoded, dict) else [("", encoded)]
    assert {k: {"shape": list(v.shape), "dtype": v.dtype} for k, v in items} == \
        record["encoded"]
    assert {k: v.name for k, v in fs.preprocessors.items()} == record["preprocessor_names"]
    assert sorted(fs.crossers) == record["crosser_names"]


def _comparable(config):
    """A config as JSON reads it back (tuples as lists)."""
    return json.loads(json.dumps(config, default=str))


# tapeflow builds these layers when they are made, so they record no build shape; Keras builds
# them at their first call and records (None, 1). Nothing is built from it: they hold no weights.
_BUILT_AT_CONSTRUCTION = ("Rescaling", "Hashing", "Discretization")


def _without_unrecorded_build_shapes(config: dict, build: dict) -> tuple:
    for name, feature in config["features"].items():
        preprocessor = feature["config"]["preprocessor"]
        if preprocessor["class_name"] in _BUILT_AT_CONSTRUCTION:
            preprocessor.pop("build_config", None)
            build[name] = {}
    return config, build


@pytest.mark.parametrize("name", sorted(REC.SPACES))
def test_config_matches_keras(name: str) -> None:
    fs, _ = adapted(name)
    expected = RECORD["spaces"][name]["config"]
    assert (_comparable(fs.get_config()), _comparable(fs.get_build_config())) == \
        _without_unrecorded_build_shapes(copy.deepcopy(expected["config"]),
                                         dict(expected["build_config"]))


@pytest.mark.parametrize("name", sorted(REC.SPACES))
def test_from_config_rebuilds_the_space(name: str) -> None:
    """A space from its config has the same features, crosses and preprocessor configs."""
    fs, _ = adapted(name)
    config = _comparable(fs.get_config())
    clone = FS.from_config(config)
    assert _comparable(clone.get_config()) == config
    assert list(clone.features) == list(fs.features)
    assert [c.name for c in clone.crosses] == [c.name for c in fs.crosses]


@pytest.mark.parametrize("case", sorted(REC.ERRORS))
def test_errors_match_keras(case: str) -> None:
    expected = RECORD["errors"][case]
    keras.utils.clear_session()
    with pytest.raises(Exception) as info:
        eval(REC.ERRORS[case], {"FS": FS, "keras": keras, "data": DATA})
    assert type(info.value).__name__ == expected["class"]
    message = str(info.value)
    if case == "adapt_static_vocabulary":  # the layer's automatic name is numbered per session
        message = message.replace("integer_lookup_1", "integer_lookup")
    assert message == expected["message"]


def test_default_names_number_as_keras() -> None:
    keras.utils.clear_session()
    first, second = FS.float_normalized(), FS.float_normalized()
    assert first.preprocessor.name == "float_normalized_preprocessor"
    assert second.preprocessor.name == "float_normalized_1_preprocessor"


def test_model_on_encoded_features_trains_as_keras() -> None:
    """The keras.io example, shortened: a model on `get_encoded_features()` fit on the
    mapped dataset gives Keras's losses; the end-to-end model on `get_inputs()` predicts as
    Keras's."""
    fs, _ = adapted("concat")
    encoded = fs.get_encoded_features()
    hidden = keras.layers.Dense(REC.FIT["units"], activation="relu")(encoded)
    out = keras.layers.Dense(1, activation="sigmoid")(hidden)
    model = keras.Model(inputs=encoded, outputs=out)
    model.set_weights([ARRAYS[f"fit/initial/{i}"] for i in range(4)])
    model.compile(optimizer=keras.optimizers.Adam(REC.FIT["learning_rate"]),
                  loss="binary_crossentropy", metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((DATA, LABELS)).batch(REC.FIT["batch_size"])
    history = model.fit(ds.map(lambda x, y: (fs(x), y)), epochs=REC.FIT["epochs"], verbose=0)
    for key, values in RECORD["fit"].items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5, atol=1e-6)
    end_to_end = keras.Model(inputs=fs.get_inputs(), outputs=out)
    columns = {k: tf.constant(v[:, None]) for k, v in DATA.items()}
    np.testing.assert_allclose(end_to_end.predict(columns, verbose=0),
                               ARRAYS["fit/predictions"], rtol=1e-5, atol=1e-6)


def test_save_and_load_round_trip(tmp_path) -> None:
    """A space without learned vocabularies (normalized, discretized, rescaled, hashed and
    crossed features) saved to `.keras` loads back and encodes as before."""
    keras.utils.clear_session()
    fs = eval(REC.SAVED_SPACE, {"FS": FS})
    data = {k: v for k, v in DATA.items() if k in fs.features}
    fs.adapt(data)
    path = str(tmp_path / "featurespace.keras")
    fs.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is FS
    assert json.dumps(loaded.get_config(), default=str) == \
        json.dumps(fs.get_config(), default=str)
    np.testing.assert_array_equal(np.asarray(loaded(data)), np.asarray(fs(data)))
    np.testing.assert_allclose(np.asarray(loaded(data)), ARRAYS["saved/full"], rtol=1e-6,
                               atol=1e-6)


def test_keras_file_loads_and_encodes_as_keras() -> None:
    """The space Keras saved (`REC.SAVED_SPACE`) loads and encodes the table as Keras did."""
    keras.utils.clear_session()
    loaded = keras.saving.load_model(os.path.join(FIXTURES, "feature_space_saved.keras"))
    assert type(loaded) is FS
    out = np.asarray(loaded({k: v for k, v in DATA.items() if k in loaded.features}))
    np.testing.assert_allclose(out, ARRAYS["saved/full"], rtol=1e-6, atol=1e-6)
    assert out.dtype == ARRAYS["saved/full"].dtype


def test_keras_file_with_vocabularies_loads_and_encodes_as_keras() -> None:
    """Keras's file keeps the adapted vocabularies in its assets
    ('assets/preprocessors/<lookup>/vocabulary.txt'): the space loads with them and encodes
    the table as Keras's adapted space did, no category turned out-of-vocabulary."""
    keras.utils.clear_session()
    loaded = keras.saving.load_model(os.path.join(FIXTURES, "feature_space.keras"))
    assert type(loaded) is FS
    data = {k: v for k, v in DATA.items() if k in loaded.features}
    check_outputs(loaded(data), "concat/full")
    fresh, _ = adapted("concat")
    for name, preprocessor in fresh.preprocessors.items():
        if hasattr(preprocessor, "get_vocabulary"):
            assert [str(t) for t in loaded.preprocessors[name].get_vocabulary()] == \
                [str(t) for t in preprocessor.get_vocabulary()], name


def test_learned_vocabularies_round_trip_as_keras_writes_them(tmp_path) -> None:
    """A space with learned vocabularies saves them in its assets with Keras's names and
    contents (those of Keras's file for the same space) and loads back to the same
    encodings."""
    import zipfile
    fs, data = adapted("concat")
    path = tmp_path / "featurespace.keras"
    fs.save(str(path))
    with zipfile.ZipFile(path) as ours, \
            zipfile.ZipFile(os.path.join(FIXTURES, "feature_space.keras")) as theirs:
        names = sorted(n for n in theirs.namelist() if n.startswith("assets/"))
        assert sorted(n for n in ours.namelist() if n.startswith("assets/")) == names
        for name in names:
            assert ours.read(name) == theirs.read(name), name
    keras.utils.clear_session()
    loaded = keras.saving.load_model(str(path))
    check_outputs(loaded(data), "concat/full")


@pytest.mark.parametrize("name", ["get_file", "load_img", "image_dataset_from_directory",
                                  "Progbar", "set_random_seed"])
def test_a_config_cannot_reach_keras_utils_beyond_feature_space(name) -> None:
    """Of keras.utils, a file may name FeatureSpace only: its downloads and file readers (and
    anything else there) are not modeling objects, whatever module the config gives."""
    for module in ("keras.utils", "keras.layers", "keras.src.utils.file_utils"):
        config = {"module": module, "class_name": name, "registered_name": None, "config": {}}
        with pytest.raises((TypeError, ValueError)):
            keras.saving.deserialize_keras_object(config)
