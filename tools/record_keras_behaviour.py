"""Records what Keras 3 shows for the behaviour cases in tests/keras/_*_cases.py modules
that define `record(lib)` into tests/keras/fixtures/<fixture>.json (run with a Python that
has Keras 3 + TensorFlow; tapeflow's tests run the same `record` on tapeflow and compare):

  KERAS_BACKEND=tensorflow python tools/record_keras_behaviour.py [fixture ...]

- input_dtypes: model inputs converted to their Input's dtype;
- keras_tensor_names: KerasTensor names;
- metric_names: compiled metrics' log names, `metrics` and `evaluate`'s list;
- keras_config: set_epsilon, set_image_data_format and Flatten's layouts;
- sparse_layers: Flatten, Reshape and Concatenate of SparseTensors.
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

# fixture -> (cases module, whether its `record` takes the tf module rather than keras)
FIXTURES = {"input_dtypes": ("_input_dtype_cases", False),
            "keras_tensor_names": ("_keras_tensor_name_cases", False),
            "metric_names": ("_metric_name_cases", False),
            "keras_config": ("_config_cases", True),
            "sparse_layers": ("_sparse_layer_cases", True)}


def main(names: list) -> None:
    for name in names or FIXTURES:
        module, takes_tf = FIXTURES[name]
        seen = importlib.import_module(module).record(tf if takes_tf else keras)
        with open(os.path.join(TESTS, "fixtures", f"{name}.json"), "w") as f:
            json.dump({"keras": keras.__version__, "record": seen}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
