"""Records Keras 3.15's `keras.saving.KerasFileEditor` on small files into
tests/keras/fixtures/keras_file_editor/ (run with a Python that has Keras 3 + TensorFlow;
tapeflow's tests only read the results):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_file_editor.py

Writes `model.keras` (a Sequential Dense(3), Dense(2) on 4 features, compiled with Adam and
trained one step, so the file holds optimizer slots), `model.weights.h5` (its weights
alone) and `bf16.weights.h5` (a bfloat16 Dense), all made by real Keras, and `editor.json`:
for each scenario the text the editor prints (stdout not a terminal, 80 columns),
`compare`'s result, the error class and message of each refused call, and the layout of the
file `save` writes.

  python tools/record_keras_file_editor.py --check FILE.weights.h5

prints what Keras's own editor reads from a file tapeflow's editor wrote, and loads it into
the scenario's model (the check that Keras reads tapeflow's files).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.pop("COLUMNS", None)  # rich's width: 80 when stdout is not a terminal
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "keras_file_editor")


def sequential(units: int = 2, compiled: bool = False) -> keras.Model:
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3),
                              keras.layers.Dense(units)])
    if compiled:
        model.compile(optimizer="adam", loss="mse")
    return model


def captured(fn) -> dict:
    """What `fn()` prints, its result (or error class and message)."""
    out = io.StringIO()
    record: dict = {}
    with contextlib.redirect_stdout(out):
        try:
            result = fn()
            if isinstance(result, dict):
                record["result"] = result
        except Exception as e:  # noqa: BLE001 - the error is what is recorded
            record["error"] = [type(e).__name__, str(e)]
    record["printed"] = out.getvalue()
    return record


def layout(path: str) -> dict:
    """Every dataset of an HDF5 file: shape, dtype, values; and every group's attributes."""
    import h5py
    result: dict = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            result[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                            "values": np.asarray(obj[()]).ravel().tolist()}
        else:
            result[name] = {"attrs": {k: str(v) for k, v in obj.attrs.items()}}
    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return result


def edits(editor) -> None:
    editor.rename_object("layers/dense_1", "renamed")
    editor.delete_object("optimizer")
    editor.add_object("layers/extra", {"0": np.arange(4, dtype="float32").reshape(2, 2)})
    editor.delete_weight("dense", "1")
    editor.add_weights("dense", {"1": np.full((3,), 0.5, dtype="float32")})


def scenarios(editor_cls) -> dict:
    records: dict = {}
    records["open_keras"] = captured(lambda: editor_cls("model.keras"))
    editor = editor_cls("model.keras")
    records["summary_keras"] = captured(editor.summary)
    records["open_h5"] = captured(lambda: editor_cls("model.weights.h5"))
    weights = editor_cls("model.weights.h5")
    records["summary_h5"] = captured(weights.summary)
    records["compare_h5_same"] = captured(lambda: weights.compare(sequential()))
    records["compare_h5_units"] = captured(lambda: weights.compare(sequential(units=5)))
    records["compare_keras_uncompiled"] = captured(lambda: editor.compare(sequential()))
    records["compare_keras_loaded"] = captured(
        lambda: editor.compare(keras.saving.load_model("model.keras")))
    records["compare_keras_one_layer"] = captured(lambda: editor.compare(
        keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])))
    records["edit_errors"] = {
        "bad_extension": captured(lambda: editor_cls("model.h5")),
        "target_path": captured(lambda: editor.rename_object("dense", "a/b")),
        "missing_path": captured(lambda: editor.rename_object("layers/nope", "x")),
        "missing_parent": captured(lambda: editor.delete_object("nope/dense")),
        "ambiguous": captured(lambda: editor.delete_object("0")),
        "missing_name": captured(lambda: editor.delete_object("nope")),
        "add_not_dict": captured(lambda: editor.add_object("layers/x", [1])),
        "add_missing_parent": captured(lambda: editor.add_object("nope/x", {})),
        "delete_missing_weight": captured(lambda: editor.delete_weight("dense", "7")),
        "add_weights_not_dict": captured(lambda: editor.add_weights("dense", 3)),
        "save_extension": captured(lambda: editor.save("edited.keras")),
    }
    half = editor_cls("bf16.weights.h5")
    records["summary_bf16"] = captured(half.summary)
    records["save_bf16"] = captured(lambda: half.save("half.weights.h5"))
    if os.path.exists("half.weights.h5"):  # Keras leaves the file it failed to write
        os.remove("half.weights.h5")
    edited = editor_cls("model.keras")
    records["edits"] = captured(lambda: edits(edited))
    records["summary_edited"] = captured(edited.summary)
    edited.save("edited.weights.h5")
    records["saved_layout"] = layout("edited.weights.h5")
    os.remove("edited.weights.h5")
    records["weights_dict_keys"] = {k: list(v) for k, v in edited.weights_dict.items()}
    return records


def make_files() -> None:
    keras.utils.set_random_seed(0)
    model = sequential(compiled=True)
    x = np.linspace(-1, 1, 32, dtype="float32").reshape(8, 4)
    y = np.linspace(0, 1, 16, dtype="float32").reshape(8, 2)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    model.save("model.keras")
    model.save_weights("model.weights.h5")
    half = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, dtype="bfloat16")])
    half.save_weights("bf16.weights.h5")


def check(path: str) -> None:
    """Keras reads a file written by tapeflow's editor (after the scenario's edits undone)."""
    path = os.path.abspath(path)
    editor = keras.saving.KerasFileEditor(path)
    editor.summary()
    model = sequential()
    print(editor.compare(model))
    model.load_weights(path)
    print("loaded:", [w.shape for w in model.get_weights()])


def main() -> None:
    if sys.argv[1:2] == ["--check"]:
        return check(sys.argv[2])
    os.makedirs(OUT, exist_ok=True)
    os.chdir(OUT)
    make_files()
    records = scenarios(keras.saving.KerasFileEditor)
    with open("editor.json", "w") as f:
        json.dump(records, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
