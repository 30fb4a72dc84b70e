"""Records what TensorFlow 2.21 prints for tests/sparse/cases.py and the sparse tensor guide
(tests/sparse/guide_sparse_tensor.py) into tests/sparse/fixtures/tf221.json.

Run with the TensorFlow venv: /work/tfenv/venv/bin/python tools/record_sparse_fixtures.py
"""

import importlib.util
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sparse")
sys.path.insert(0, HERE)
from _runner import run_case, run_guide  # noqa: E402

spec = importlib.util.spec_from_file_location("cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)

out = {name: run_case(tf, cases.SETUP, code) for name, code in cases.CASES.items()}
out["guide"] = run_guide(tf, os.path.join(HERE, "guide_sparse_tensor.py"))
with open(os.path.join(HERE, "fixtures", "tf221.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"recorded {len(out)} cases")
