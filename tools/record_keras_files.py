"""Writes small model files with real Keras 3 into tests/keras/fixtures/ (run with a Python
that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  python tools/record_keras_files.py

For each of a Sequential, a functional and a subclassed model (with a registered custom
layer): `<name>.keras` (compiled with Adam and trained two steps, so the optimizer holds
slots), `<name>.weights.h5` (Sequential and functional), and `<name>_io.npz` with the fixed
inputs `x`, the targets `y` and Keras's predictions `pred` (plus `pred_after` after one more
training step on x, y from the loaded model, to check that training continues identically).
`keras_layout.json` lists every group, dataset (shape, dtype) and attribute of each HDF5 file.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras_fixture_models import batch, define, hdf5_layout, trained  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")


models = define(keras)


def main() -> None:
    keras.utils.set_random_seed(0)
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(0)
    layouts = {}
    for name, (model, loss, classes) in models().items():
        x, y = batch(rng, loss, classes)
        pred = trained(keras, model, loss, x, y)
        model.save(os.path.join(OUT, f"{name}.keras"))
        if name != "subclassed":  # (kept small: its layout is in its .keras file)
            model.save_weights(os.path.join(OUT, f"{name}.weights.h5"))
            layouts[f"{name}.weights.h5"] = hdf5_layout(os.path.join(OUT, f"{name}.weights.h5"))
        loaded = keras.models.load_model(os.path.join(OUT, f"{name}.keras"))
        loaded.train_on_batch(x, y)
        after = loaded.predict(x, verbose=0)
        np.savez(os.path.join(OUT, f"{name}_io.npz"), x=x, y=y, pred=pred, pred_after=after)
        with zipfile.ZipFile(os.path.join(OUT, f"{name}.keras")) as z, \
                tempfile.TemporaryDirectory() as tmp:
            z.extract("model.weights.h5", tmp)
            layouts[f"{name}.keras"] = hdf5_layout(os.path.join(tmp, "model.weights.h5"))
    with open(os.path.join(OUT, "keras_layout.json"), "w") as f:
        json.dump({"keras_version": keras.__version__, "files": layouts}, f, sort_keys=True)
    print("wrote", sorted(os.listdir(OUT)), file=sys.stderr)


if __name__ == "__main__":
    main()
