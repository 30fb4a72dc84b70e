"""The reverse of tests/keras/test_saving_keras_files.py: tapeflow writes, real Keras 3 reads.

  python tools/check_keras_reads_tapeflow.py [--keras-python /path/to/venv/bin/python]

With tapeflow, builds a Sequential, a functional and a subclassed model (a registered custom
layer), trains each two steps with Adam, and writes `<name>.keras`, `<name>.weights.h5` and its
inputs and predictions into a temporary folder. Then, with the Python that has Keras 3 (never
imported by tapeflow or its tests), loads each file, predicts, trains one more step on the same
batch as tapeflow does, and prints the largest differences.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

from keras_fixture_models import batch, define, trained   # beside this script

DEFAULT_KERAS_PYTHON = "/work/tfenv/venv/bin/python"
NAMES = ("sequential", "functional", "subclassed")


def write_with_tapeflow(folder: str) -> None:
    import tapeflow as tf
    keras = tf.keras
    rng = np.random.default_rng(1)
    for name, (model, loss, classes) in define(keras, "tapeflow_check")().items():
        x, y = batch(rng, loss, classes)
        pred = trained(keras, model, loss, x, y)
        model.save(os.path.join(folder, f"{name}.keras"))
        model.save_weights(os.path.join(folder, f"{name}.weights.h5"))
        model.train_on_batch(x, y)
        after = model.predict(x, verbose=0)
        np.savez(os.path.join(folder, f"{name}_io.npz"), x=x, y=y, pred=pred, pred_after=after)


def read_with_keras(folder: str) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    fresh = define(keras, "tapeflow_check")
    for name in NAMES:
        io = dict(np.load(os.path.join(folder, f"{name}_io.npz")))
        model = keras.models.load_model(os.path.join(folder, f"{name}.keras"))
        pred = model.predict(io["x"], verbose=0)
        model.train_on_batch(io["x"], io["y"])
        after = model.predict(io["x"], verbose=0)
        other, loss, _ = fresh()[name]
        other.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
        other.optimizer.build(other.trainable_variables)
        other.load_weights(os.path.join(folder, f"{name}.weights.h5"))
        weights_pred = other.predict(io["x"], verbose=0)
        print(f"{name:10s} load_model: max |keras - tapeflow| prediction "
              f"{np.abs(pred - io['pred']).max():.3g}, after one more Adam step "
              f"{np.abs(after - io['pred_after']).max():.3g}; load_weights: "
              f"{np.abs(weights_pred - io['pred']).max():.3g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keras-python", default=DEFAULT_KERAS_PYTHON)
    parser.add_argument("--read", help=argparse.SUPPRESS)  # the Keras half
    args = parser.parse_args()
    if args.read:
        read_with_keras(args.read)
        return
    with tempfile.TemporaryDirectory() as folder:
        write_with_tapeflow(folder)
        subprocess.run([args.keras_python, os.path.abspath(__file__), "--read", folder],
                       check=True)


if __name__ == "__main__":
    sys.exit(main())
