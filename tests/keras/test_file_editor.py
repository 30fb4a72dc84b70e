"""keras.saving.KerasFileEditor on files made by real Keras 3.15.1: what it prints, what
`compare` returns, its errors and the file `save` writes, each against what Keras's own
editor did on the same files (tools/record_keras_file_editor.py ->
fixtures/keras_file_editor/editor.json)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

import h5py
import numpy as np
import pytest

import tapeflow.keras as keras
from tapeflow.keras.saving.file_editor import _wrap

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "keras_file_editor")
with open(os.path.join(FIXTURES, "editor.json")) as _f:
    KERAS = json.load(_f)
Editor = keras.saving.KerasFileEditor


@pytest.fixture(autouse=True)
def in_copy(tmp_path, monkeypatch):
    """Runs in a copy of the Keras-made files, opened by relative name as recorded."""
    for name in ("model.keras", "model.weights.h5", "bf16.weights.h5"):
        shutil.copy(os.path.join(FIXTURES, name), tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)


def captured(fn) -> dict:
    """As the recording tool captures Keras's editor: printed text, result or error."""
    out = io.StringIO()
    record: dict = {}
    with contextlib.redirect_stdout(out):
        try:
            result = fn()
            if isinstance(result, dict):
                record["result"] = result
        except Exception as e:  # noqa: BLE001 - compared with Keras's error
            record["error"] = [type(e).__name__, str(e)]
    record["printed"] = out.getvalue()
    return record


def sequential(units: int = 2):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3),
                             keras.layers.Dense(units)])


def quiet(fn):
    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


def test_opening_prints_the_file_and_keras_version():
    assert captured(lambda: Editor("model.keras")) == KERAS["open_keras"]
    assert captured(lambda: Editor("model.weights.h5")) == KERAS["open_h5"]
    editor = quiet(lambda: Editor("model.keras"))
    assert editor.metadata["keras_version"] == "3.15.1"
    assert editor.config["class_name"] == "Sequential"


@pytest.mark.parametrize("name", ["model.keras", "model.weights.h5"])
def test_summary_prints_keras_tree(name):
    editor = quiet(lambda: Editor(name))
    key = "summary_keras" if name.endswith(".keras") else "summary_h5"
    assert captured(editor.summary) == KERAS[key]


def test_weights_are_the_files_arrays():
    editor = quiet(lambda: Editor("model.weights.h5"))
    with h5py.File("model.weights.h5", "r") as f:
        np.testing.assert_array_equal(editor.weights_dict["layers"]["dense"]["0"],
                                      f["layers/dense/vars/0"][()])
        assert editor.weights_dict["optimizer"]["0"] == f["optimizer/vars/0"][()]


@pytest.mark.parametrize("case, name, reference", [
    ("compare_h5_same", "model.weights.h5", lambda: sequential()),
    ("compare_h5_units", "model.weights.h5", lambda: sequential(units=5)),
    ("compare_keras_uncompiled", "model.keras", lambda: sequential()),
    ("compare_keras_loaded", "model.keras",
     lambda: keras.saving.load_model("model.keras")),
    ("compare_keras_one_layer", "model.keras",
     lambda: keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])),
])
def test_compare_prints_and_counts_as_keras(case, name, reference):
    editor = quiet(lambda: Editor(name))
    model = reference()
    assert captured(lambda: editor.compare(model)) == KERAS[case]


def edits(editor) -> None:
    editor.rename_object("layers/dense_1", "renamed")
    editor.delete_object("optimizer")
    editor.add_object("layers/extra", {"0": np.arange(4, dtype="float32").reshape(2, 2)})
    editor.delete_weight("dense", "1")
    editor.add_weights("dense", {"1": np.full((3,), 0.5, dtype="float32")})


def test_edits_then_summary_and_save_match_keras():
    editor = quiet(lambda: Editor("model.keras"))
    assert captured(lambda: edits(editor)) == KERAS["edits"]
    assert captured(editor.summary) == KERAS["summary_edited"]
    assert {k: list(v) for k, v in editor.weights_dict.items()} == KERAS["weights_dict_keys"]
    editor.save("edited.weights.h5")
    layout: dict = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            layout[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                            "values": np.asarray(obj[()]).ravel().tolist()}
        else:
            layout[name] = {"attrs": {k: str(v) for k, v in obj.attrs.items()}}
    with h5py.File("edited.weights.h5", "r") as f:
        f.visititems(visit)
    assert layout == KERAS["saved_layout"]


def test_saved_file_loads_into_the_model():
    editor = quiet(lambda: Editor("model.keras"))
    editor.delete_object("optimizer")
    editor.resave_weights("plain.weights.h5")
    model = sequential()
    model.load_weights("plain.weights.h5")
    np.testing.assert_array_equal(model.layers[1].kernel.numpy(),
                                  editor.weights_dict["layers"]["dense_1"]["0"])


ERROR_CALLS = {
    "bad_extension": lambda e: Editor("model.h5"),
    "target_path": lambda e: e.rename_object("dense", "a/b"),
    "missing_path": lambda e: e.rename_object("layers/nope", "x"),
    "missing_parent": lambda e: e.delete_object("nope/dense"),
    "ambiguous": lambda e: e.delete_object("0"),
    "missing_name": lambda e: e.delete_object("nope"),
    "add_not_dict": lambda e: e.add_object("layers/x", [1]),
    "add_missing_parent": lambda e: e.add_object("nope/x", {}),
    # 'dense' is in the tree once, but Keras's count reaches 2 (kept: it decides the error).
    "delete_missing_weight": lambda e: e.delete_weight("dense", "7"),
    "add_weights_not_dict": lambda e: e.add_weights("dense", 3),
    "save_extension": lambda e: e.save("edited.keras"),
}


@pytest.mark.parametrize("case", sorted(ERROR_CALLS))
def test_errors_match_keras(case):
    editor = quiet(lambda: Editor("model.keras"))
    assert captured(lambda: ERROR_CALLS[case](editor)) == KERAS["edit_errors"][case]


def test_bfloat16_reads_raw_and_save_refuses_it_as_keras():
    editor = quiet(lambda: Editor("bf16.weights.h5"))
    assert captured(editor.summary) == KERAS["summary_bf16"]
    assert captured(lambda: editor.save("half.weights.h5")) == KERAS["save_bf16"]


def test_added_bfloat16_array_is_saved_with_keras_mark():
    from ml_dtypes import bfloat16
    editor = quiet(lambda: Editor("model.weights.h5"))
    editor.add_weights("layers/dense", {"0": np.ones((4, 3), bfloat16)})
    editor.save("half.weights.h5")
    with h5py.File("half.weights.h5", "r") as f:
        dataset = f["layers/dense/vars/0"]
        assert dataset.attrs["dtype"] == "bfloat16"
        assert dataset.dtype.kind == "V" and dataset.dtype.itemsize == 2


def test_delete_weight_names_the_weights_found():
    editor = quiet(lambda: Editor("model.weights.h5"))
    with pytest.raises(ValueError, match=r"Weight 7 not found in object layers/dense\. "
                                         r"Weights found: \['0', '1'\]"):
        editor.delete_weight("layers/dense", "7")


def _file_with(make) -> str:
    with h5py.File("bad.weights.h5", "w") as f:
        f.create_group("layers/dense/vars")["0"] = np.zeros(3, "float32")
        make(f)
    return "bad.weights.h5"


@pytest.mark.parametrize("make, text", [
    (lambda f: f["layers"].__setitem__("soft", h5py.SoftLink("/layers/dense")),
     "Not allowed: H5 file with SoftLink"),
    (lambda f: f["layers"].__setitem__("ext", h5py.ExternalLink("other.h5", "/x")),
     "Not allowed: H5 file with ExternalLink"),
    (lambda f: f["layers/dense/vars"].create_dataset("1", (2,), "float32",
                                                     external=[("raw.bin", 0, 8)]),
     "Not allowed: H5 file Dataset with external links"),
    (lambda f: f["layers/dense/vars"].create_dataset("1", data=np.array([b"x" * 64])),
     "a variable loads from numbers only"),
])
def test_unsafe_files_are_refused(make, text):
    """Keras's refusals (its texts, from keras/src/saving/file_editor.py), and tapeflow's
    own (numbers only) before any data is read."""
    path = _file_with(make)
    with pytest.raises(ValueError, match=text):
        quiet(lambda: Editor(path))


def test_missing_archive_member_raises_zipfile_key_error():
    import zipfile
    with zipfile.ZipFile("model.keras") as src, zipfile.ZipFile("cut.keras", "w") as dst:
        dst.writestr("model.weights.h5", src.read("model.weights.h5"))
    with pytest.raises(KeyError, match="config.json"):
        quiet(lambda: Editor("cut.keras"))


@pytest.mark.parametrize("line, width, lines", [
    # rich keeps a line's trailing space when it fits, folds a word longer than the width.
    ("aa bb cc", 5, ["aa bb", "cc"]),
    ("x" * 12, 5, ["xxxxx", "xxxxx", "xx"]),
    ("Keras model file '" + "a" * 10 + "'", 12, ["Keras model ", "file ", "'aaaaaaaaaa'"]),
    ("a" * 4 + "   ", 4, ["aaaa"]),
])
def test_wrap_follows_rich(line, width, lines):
    assert _wrap(line, width) == lines
