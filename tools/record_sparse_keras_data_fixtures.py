"""Records what TensorFlow 2.21 / Keras 3 prints for tests/sparse/cases_keras_data.py
(SparseTensors through Keras and tf.data) into tests/sparse/fixtures/keras_data_tf221.json.

Run with the TensorFlow venv: /work/tfenv/venv/bin/python tools/record_sparse_keras_data_fixtures.py
"""

import importlib.util
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sparse")
sys.path.insert(0, HERE)
from _runner import run_case  # noqa: E402

spec = importlib.util.spec_from_file_location("cases_keras_data",
                                              os.path.join(HERE, "cases_keras_data.py"))
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)

out = {name: run_case(tf, cases.SETUP, code) for name, code in cases.CASES.items()}
with open(os.path.join(HERE, "fixtures", "keras_data_tf221.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"recorded {len(out)} cases")
