"""`.keras` assets against Keras 3.15.1, recorded by tools/record_keras_assets.py into
fixtures/keras_assets/: adapted StringLookup / IntegerLookup / TextVectorization vocabularies
(mask and OOV tokens, several OOV indices, int vocabularies, inverted lookups, tf-idf, whose
idf weights Keras keeps in the weights file as 'idf_weights') live in the archive's
'assets/<inner path>/vocabulary.txt'. Keras's files load in tapeflow with Keras's outputs;
tapeflow writes the same members with the same text, and its files load back (zipped,
unzipped, pickled, through ModelCheckpoint) with the outputs the model had."""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "keras_assets")
with open(os.path.join(FIXTURES, "record.json"), encoding="utf-8") as _f:
    RECORD = json.load(_f)


def _recorder():
    """The recording script (its CASES and helpers; it imports no Keras)."""
    path = os.path.join(HERE, "..", "..", "tools", "record_keras_assets.py")
    spec = importlib.util.spec_from_file_location("_record_keras_assets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REC = _recorder()
CASES = sorted(REC.CASES)


def check_output(out, name: str, key: str = "output") -> None:
    """`out` equals Keras's recorded output of case `name` (values and dtype)."""
    recorded = RECORD["cases"][name]
    got = REC.as_json(np.asarray(out))
    if recorded["dtype"] == "object":
        assert got == recorded[key]
        return
    assert str(np.asarray(out).dtype) == recorded["dtype"]
    np.testing.assert_allclose(np.asarray(got, dtype=float),
                               np.asarray(recorded[key], dtype=float), rtol=1e-6, atol=1e-7)


def build(name: str):
    keras.utils.clear_session()
    return REC.build(keras, name)


@pytest.mark.parametrize("name", CASES)
def test_keras_file_loads_with_keras_outputs(name: str) -> None:
    """Keras's file (its vocabulary in the assets, tf-idf weights in the weights) gives
    Keras's outputs: no value silently out-of-vocabulary."""
    keras.utils.clear_session()
    model = keras.saving.load_model(os.path.join(FIXTURES, f"{name}.keras"))
    check_output(model(REC.call_data(name)), name, "loaded")
    vocabulary = [str(t) for t in model.layers[-1].get_vocabulary()]
    assert vocabulary == RECORD["cases"][name]["vocabulary"]


@pytest.mark.parametrize("name", CASES)
def test_tapeflow_writes_keras_assets(name: str, tmp_path) -> None:
    """The same model adapted by tapeflow writes Keras's members with Keras's text, and its
    file loads back with the outputs the model had (Keras's)."""
    model = build(name)
    x = REC.call_data(name)
    check_output(model(x), name)
    path = str(tmp_path / f"{name}.keras")
    model.save(path)
    record = REC.archive_record(path)
    expected = RECORD["cases"][name]
    assert sorted(record["members"]) == sorted(expected["members"])
    assert record["assets"] == expected["assets"]
    keras.utils.clear_session()
    check_output(keras.saving.load_model(path)(x), name)


def test_the_brief_s_example_keeps_its_vocabulary(tmp_path) -> None:
    """The reported silent error: an adapted StringLookup gave [0 0 0] after loading."""
    keras.utils.clear_session()
    layer = keras.layers.StringLookup()
    layer.adapt(np.array(["a", "b", "b", "c"]))
    inp = keras.Input((1,), dtype="string")
    model = keras.Model(inp, layer(inp))
    x = np.array([["b"], ["c"], ["z"]])
    path = str(tmp_path / "sl.keras")
    model.save(path)
    np.testing.assert_array_equal(keras.models.load_model(path)(x), [[1], [2], [0]])


@pytest.mark.parametrize("relative", [False, True])
def test_unzipped_directory_round_trip(relative: bool, tmp_path, monkeypatch) -> None:
    """`zipped=False` keeps the vocabulary in '<dir>/assets/<inner path>/' and loads it
    back (Keras 3.15 loses it for a relative path: tapeflow keeps it there too)."""
    name = "text_vectorization_tf_idf"
    model = build(name)
    monkeypatch.chdir(tmp_path)
    dirpath = "rel_model" if relative else str(tmp_path / "abs_model")
    model.save(dirpath, zipped=False)
    text = RECORD["cases"][name]["assets"]
    for member, content in text.items():
        with open(os.path.join(dirpath, *member.split("/")), encoding="utf-8") as f:
            assert f.read() == content
    keras.utils.clear_session()
    check_output(keras.saving.load_model(dirpath)(REC.call_data(name)), name)


def test_unzipped_directory_without_assets_is_keras_layout(tmp_path, monkeypatch) -> None:
    """A model without asset files: no 'assets' for a relative path; for an absolute path,
    as Keras's, the lookup's directory, empty."""
    name = "given_vocabulary"
    model = build(name)
    model.save(str(tmp_path / "abs"), zipped=False)
    tree = [(os.path.relpath(d, tmp_path / "abs"), sorted(s), f)
            for d, s, f in os.walk(tmp_path / "abs" / "assets")]
    assert tree == [("assets", ["layers"], []), ("assets/layers", ["string_lookup"], []),
                    ("assets/layers/string_lookup", [], [])]
    monkeypatch.chdir(tmp_path)
    model.save("rel", zipped=False)
    assert "assets" not in os.listdir("rel")


def test_pickle_keeps_the_vocabulary() -> None:
    name = "integer_lookup"
    model = build(name)
    check_output(pickle.loads(pickle.dumps(model))(REC.call_data(name)), name)


def test_model_checkpoint_keeps_the_vocabulary(tmp_path) -> None:
    """ModelCheckpoint(save_weights_only=False) writes through the same archive: the
    checkpoint of a model on an adapted lookup predicts as the model."""
    keras.utils.clear_session()
    lookup = keras.layers.StringLookup()
    lookup.adapt(np.array(REC.WORDS, dtype=object))
    inp = keras.Input((2,), dtype="string")
    hidden = keras.layers.Embedding(lookup.vocabulary_size(), 3)(lookup(inp))
    out = keras.layers.Dense(1)(keras.layers.Flatten()(hidden))
    model = keras.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    x = np.array([["c", "a"], ["d", "z"], ["b", "日本"]])
    y = np.array([[1.0], [0.0], [2.0]], np.float32)
    path = str(tmp_path / "ckpt.keras")
    model.train_on_batch(tf.constant(x), y)
    checkpoint = keras.callbacks.ModelCheckpoint(path, save_weights_only=False)
    checkpoint.set_model(model)
    checkpoint.on_epoch_end(0, {"loss": 1.0})
    loaded = keras.saving.load_model(path)
    x = tf.constant(x)
    np.testing.assert_allclose(loaded(x), model(x), rtol=1e-6)
    assert loaded.layers[1].get_vocabulary() == lookup.get_vocabulary()


def test_tf_idf_file_without_idf_weights_is_refused(tmp_path) -> None:
    """A tf-idf lookup whose weights file lacks 'idf_weights' fails to load (Keras's
    "could not be loaded" ValueError), rather than encoding with no weights."""
    import h5py
    source = os.path.join(FIXTURES, "string_lookup_tf_idf.keras")
    path = str(tmp_path / "no_idf.keras")
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "model.weights.h5":
                h5 = tmp_path / "w.h5"
                h5.write_bytes(data)
                with h5py.File(h5, "a") as f:
                    del f["layers/string_lookup/vars/idf_weights"]
                data = h5.read_bytes()
            dst.writestr(info, data)
    with pytest.raises(ValueError, match="could not be loaded"):
        keras.saving.load_model(path)


def test_load_weights_from_a_keras_file_leaves_assets_alone(tmp_path) -> None:
    """As Keras's `load_weights_only`, `model.load_weights('x.keras')` reads the weights
    only: a lookup keeps the vocabulary it has."""
    name = "string_lookup_tf_idf"
    model = build(name)
    before = model.layers[-1].get_vocabulary()
    model.load_weights(os.path.join(FIXTURES, f"{name}.keras"))
    assert model.layers[-1].get_vocabulary() == before
    check_output(model(REC.call_data(name)), name)
