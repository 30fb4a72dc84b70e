"""Records TensorFlow 2.21's random numbers for tapeflow's tests (run where TensorFlow is
installed; CI does not run it):

    python tools/record_random_fixtures.py   # writes tests/ops/fixtures/stateless_random.json

Raw Philox words for explicit keys and counters (including counters whose low words carry),
and the stateless ops for several seeds, odd sizes (the last Philox draw only partly used) and
every dtype they take.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ops" / "fixtures" / \
    "stateless_random.json"
SEEDS = [[0, 0], [1, 2], [-7, 123456789], [2**31 - 1, -(2**31)]]
SHAPES = [[1], [3], [7], [2, 5], [0, 4], [13]]


def values(t: tf.Tensor) -> list:
    array = t.numpy()
    if array.dtype.kind == "f":   # floats as their bit patterns: exact in JSON
        return array.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[array.itemsize]) \
            .reshape(-1).tolist()
    return array.reshape(-1).tolist()


def main() -> None:
    cases = []
    for key, counter in [(12345, [0, 678]), (2**64 - 1, [2**32 - 2, 2**64 - 1]),
                         (7, [2**64 - 3, 5])]:
        bits = tf.raw_ops.StatelessRandomUniformFullIntV2(
            shape=[10], key=tf.constant([key], tf.uint64),
            counter=tf.constant(counter, tf.uint64), alg=1, dtype=tf.uint32)
        cases.append({"op": "philox", "key": key, "counter": counter, "values": values(bits)})
    for seed in SEEDS:
        for shape in SHAPES:
            for dtype in ["float16", "float32", "float64"]:
                for op in ["uniform", "normal"]:
                    fn = tf.random.stateless_uniform if op == "uniform" else \
                        tf.random.stateless_normal
                    cases.append({"op": op, "seed": seed, "shape": shape, "dtype": dtype,
                                  "values": values(fn(shape, seed=seed, dtype=dtype))})
            for dtype, lo, hi in [("int32", -5, 100), ("int32", -2**31, 2**31 - 1),
                                  ("int64", -5, 10**12), ("int64", 0, 3)]:
                cases.append({"op": "uniform_int", "seed": seed, "shape": shape,
                              "dtype": dtype, "minval": lo, "maxval": hi,
                              "values": values(tf.random.stateless_uniform(
                                  shape, seed=seed, minval=lo, maxval=hi, dtype=dtype))})
            for dtype in ["int32", "int64", "uint32", "uint64"]:
                cases.append({"op": "full_int", "seed": seed, "shape": shape, "dtype": dtype,
                              "values": values(tf.random.stateless_uniform(
                                  shape, seed=seed, minval=None, maxval=None, dtype=dtype))})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases}) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
