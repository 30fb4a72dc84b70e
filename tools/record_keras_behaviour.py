"""Records what Keras 3 shows for the behaviour fixtures of tests/keras/_behaviour_fixtures.py
(each cases module's `record(lib)`) into tests/keras/fixtures/<fixture>.json (run with a
Python that has Keras 3 + TensorFlow; tests/keras/test_keras_behaviour.py runs the same
`record` on tapeflow and compares):

  KERAS_BACKEND=tensorflow python tools/record_keras_behaviour.py [fixture ...]
"""

from __future__ import annotations

import importlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "keras")
sys.path.insert(0, TESTS)
from _behaviour_fixtures import FIXTURES  # noqa: E402


def main(names: list) -> None:
    for name in names or FIXTURES:
        module, takes_tf = FIXTURES[name]
        seen = importlib.import_module(module).record(tf if takes_tf else keras)
        with open(os.path.join(TESTS, "fixtures", f"{name}.json"), "w") as f:
            json.dump({"keras": keras.__version__, "record": seen}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
