"""Records what Keras 3 gives for model inputs of another dtype than their Input into
tests/keras/fixtures/input_dtypes.json (run with a Python that has Keras 3 + TensorFlow;
tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_input_dtypes.py

For each case of tests/keras/_input_dtype_cases.py: the output of a direct call and of
`predict`, as a nested list, with its dtype.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "keras"))
from _input_dtype_cases import cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "keras", "fixtures", "input_dtypes.json")


def main() -> None:
    record = {"keras": keras.__version__, "cases": {}}
    for name, (build, x) in cases(keras).items():
        model = build()
        called = np.asarray(model(x))
        predicted = np.asarray(model.predict(x, verbose=0))
        record["cases"][name] = {
            "call": called.tolist(), "call_dtype": str(called.dtype),
            "predict": predicted.tolist(), "predict_dtype": str(predicted.dtype)}
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
