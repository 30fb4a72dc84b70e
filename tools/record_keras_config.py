"""Records what Keras 3's `set_epsilon`, `set_image_data_format` and Flatten's layouts give
into tests/keras/fixtures/keras_config.json (run with a Python that has Keras 3 +
TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_config.py

What tests/keras/_config_cases.py's `run` returns.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "keras"))
from _config_cases import run  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "keras", "fixtures", "keras_config.json")


def main() -> None:
    with open(OUT, "w") as f:
        json.dump({"keras": keras.__version__, "record": run(tf)}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
