"""The reverse of tests/keras/test_keras_assets.py: tapeflow writes `.keras` files with adapted
lookup vocabularies in their assets, real Keras 3 reads them.

  python tools/check_keras_reads_tapeflow_assets.py [--keras-python /tmp/tfenv/bin/python]

With tapeflow, builds every case of tools/record_keras_assets.py (`CASES`: StringLookup,
IntegerLookup, TextVectorization; int / count / one-hot / multi-hot / tf-idf outputs, mask
and OOV tokens, inverted lookups, a given vocabulary), adapts it, saves `<case>.keras` and an
unzipped `<case>_dir` (absolute path) into a temporary folder with its outputs; and the
FeatureSpace 'concat' of tools/record_keras_feature_space.py (four adapted lookups). Then, with
the Python that has Keras (never imported by tapeflow or its tests), loads each file and
directory, calls it on the same data and compares with tapeflow's outputs and with Keras's
own recorded ones (tests/keras/fixtures/keras_assets/record.json). Exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_keras_assets as rec  # noqa: E402 - beside this script
import record_keras_feature_space as rfs  # noqa: E402 - beside this script

FS_FIXTURES = os.path.join(HERE, "..", "tests", "keras", "fixtures")

DEFAULT_KERAS_PYTHON = "/tmp/tfenv/bin/python"


def write_with_tapeflow(folder: str) -> None:
    import tapeflow as tf
    outputs = {}
    for name in rec.CASES:
        tf.keras.utils.clear_session()
        model = rec.build(tf.keras, name)
        outputs[name] = rec.as_json(model(rec.call_data(name)))
        model.save(os.path.join(folder, f"{name}.keras"))
        model.save(os.path.join(folder, f"{name}_dir"), zipped=False)
    with open(os.path.join(folder, "tapeflow.json"), "w", encoding="utf-8") as f:
        json.dump(outputs, f, ensure_ascii=False)
    write_feature_space(tf, folder)


def write_feature_space(tf: object, folder: str) -> None:
    """The FeatureSpace 'concat' (learned vocabularies) of record_keras_feature_space.py,
    adapted by tapeflow on the recorded table and saved, with the table."""
    arrays = dict(np.load(os.path.join(FS_FIXTURES, "feature_space.npz")))
    data = {k[len("data/"):]: v for k, v in arrays.items() if k.startswith("data/")}
    fs = eval(rfs.SPACES["concat"], {"FS": tf.keras.utils.FeatureSpace, "keras": tf.keras})
    data = {k: v for k, v in data.items() if k in fs.features}
    fs.adapt(rfs.adapt_data("concat", data, tf))
    np.savez(os.path.join(folder, "fs_io.npz"), out=np.asarray(fs(data)),
             **{f"data/{k}": v for k, v in data.items()})
    fs.save(os.path.join(folder, "feature_space.keras"))


def _same(a: list, b: list) -> bool:
    if a and isinstance(a[0], list) and a[0] and isinstance(a[0][0], str):
        return a == b
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-6, atol=1e-7)


def read_with_keras(folder: str) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    with open(os.path.join(folder, "tapeflow.json"), encoding="utf-8") as f:
        ours = json.load(f)
    with open(os.path.join(rec.OUT, "record.json"), encoding="utf-8") as f:
        theirs = json.load(f)["cases"]
    failed = 0
    for name in rec.CASES:
        for suffix in (".keras", "_dir"):
            keras.utils.clear_session()
            model = keras.models.load_model(os.path.join(folder, name + suffix))
            got = rec.as_json(model(rec.call_data(name)))
            ok = _same(got, ours[name]) and _same(got, theirs[name]["output"])
            failed += not ok
            print(f"{name + suffix:36s} Keras reads tapeflow's file: "
                  f"{'same outputs' if ok else 'DIFFERENT outputs'}")
    io = dict(np.load(os.path.join(folder, "fs_io.npz")))
    space = keras.models.load_model(os.path.join(folder, "feature_space.keras"))
    got = np.asarray(space({k[5:]: v for k, v in io.items() if k.startswith("data/")}))
    expected = dict(np.load(os.path.join(FS_FIXTURES, "feature_space.npz")))["concat/full/"]
    ok = got.shape == expected.shape and np.allclose(got, io["out"]) and \
        np.allclose(got, expected, rtol=1e-6, atol=1e-6)
    failed += not ok
    print(f"{'feature_space.keras':36s} Keras reads tapeflow's file: "
          f"{'same outputs' if ok else 'DIFFERENT outputs'} (max |diff| vs Keras's own "
          f"{np.abs(got - expected).max() if got.shape == expected.shape else 'shape'})")
    total = 2 * len(rec.CASES) + 1
    print(f"{total - failed} of {total} files give the same outputs")
    sys.exit(1 if failed else 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keras-python", default=DEFAULT_KERAS_PYTHON)
    parser.add_argument("--read", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read:
        return read_with_keras(args.read)
    with tempfile.TemporaryDirectory() as folder:
        write_with_tapeflow(folder)
        result = subprocess.run([args.keras_python, os.path.abspath(__file__), "--read",
                                 folder], check=False)
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
