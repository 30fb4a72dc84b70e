"""Records TensorFlow's answers to the cases of tests/ops/_nn_more_cases.py (tf.nn's
layout, pooling, morphology, loss and CTC ops).

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_nn_more_fixtures.py

It writes tests/ops/fixtures/nn_more.npz: for case NAME with outputs 0..k-1, the arrays
NAME/0 ... NAME/k-1 (each in its dtype), and tf_version.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES_FILE = os.path.join(ROOT, "tests", "ops", "_nn_more_cases.py")
OUT = os.path.join(ROOT, "tests", "ops", "fixtures", "nn_more.npz")


def _load_cases() -> dict:
    spec = importlib.util.spec_from_file_location("_nn_more_cases", CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def main() -> None:
    arrays = {}
    for name, case in _load_cases().items():
        for index, value in enumerate(case(tf)):
            arrays[f"{name}/{index}"] = np.asarray(value)
    arrays["tf_version"] = np.asarray(tf.__version__)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(arrays) - 1} arrays to {OUT}")


if __name__ == "__main__":
    main()
