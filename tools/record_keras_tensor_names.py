"""Records Keras 3's KerasTensor names into tests/keras/fixtures/keras_tensor_names.json (run
with a Python that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_tensor_names.py

For each case of tests/keras/_keras_tensor_name_cases.py: the names (and reprs) it returns.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "keras"))
from _keras_tensor_name_cases import CASES, run  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "keras", "fixtures", "keras_tensor_names.json")


def main() -> None:
    record = {"keras": keras.__version__, "cases": {name: run(keras, name) for name in CASES}}
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
