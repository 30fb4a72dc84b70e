"""Records TensorFlow's answers to the tf.signal and complex cases of
tests/signal/_signal_cases.py.

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_signal_fixtures.py

It writes tests/signal/fixtures/signal.npz: for case NAME with outputs 0..k-1, the arrays
NAME/0 ... NAME/k-1 (each in its dtype) and NAME/tf_version.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES_FILE = os.path.join(ROOT, "tests", "signal", "_signal_cases.py")
OUT = os.path.join(ROOT, "tests", "signal", "fixtures", "signal.npz")


def _load_cases() -> dict:
    spec = importlib.util.spec_from_file_location("_signal_cases", CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def main() -> None:
    arrays = {}
    for name, case in _load_cases().items():
        out = case(tf)
        outputs = out if isinstance(out, (list, tuple)) else [out]
        for index, value in enumerate(outputs):
            arrays[f"{name}/{index}"] = np.asarray(value)
    arrays["tf_version"] = np.asarray(tf.__version__)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(arrays) - 1} arrays to {OUT}")


if __name__ == "__main__":
    main()
