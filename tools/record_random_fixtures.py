"""Records TensorFlow 2.21's random numbers for tapeflow's tests (run where TensorFlow is
installed; CI does not run it):

    python tools/record_random_fixtures.py   # writes tests/ops/fixtures/stateless_random.json

Raw Philox words for explicit keys and counters (including counters whose low words carry);
the stateless ops for several seeds, odd sizes (the last Philox draw only partly used) and
every dtype they take; and a program of stateful draws (`PROGRAM`) with TF's seed rules.
"""

from __future__ import annotations

import hashlib
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


# A program of stateful calls, run in order after its set_seed steps: each step's numbers
# depend on every step before it (op-seed draws, kernels' streams carried between calls).
PROGRAM = [
    ["set_seed", 42], ["normal", [3], "float32", None], ["normal", [3], "float32", None],
    ["uniform", [5], "float32", None], ["uniform_int", [4], "int32", None, -3, 10],
    ["normal", [2], "float64", None], ["truncated_normal", [7], "float32", None],
    ["truncated_normal", [3], "float64", None], ["normal", [5], "float16", None],
    ["set_seed", 42], ["normal", [3], "float32", 7], ["normal", [5], "float32", 7],
    ["uniform", [2], "float32", 7], ["normal", [1], "float32", 7],
    ["truncated_normal", [9], "float32", 7], ["truncated_normal", [2], "float32", 7],
    ["uniform_int", [3], "int64", 7, 0, 2**40], ["uniform", [3], "float16", 7],
    ["uniform", [3], "float64", 7], ["set_seed", 0], ["normal", [2], "float32", 0],
    ["set_seed", 1234], ["function", [["normal", [3], "float32", None],
                                      ["uniform", [2], "float32", None],
                                      ["truncated_normal", [5], "float32", 3]]],
    ["function", [["normal", [3], "float32", None], ["uniform", [2], "float32", None],
                  ["truncated_normal", [5], "float32", 3]]],
    ["normal", [2], "float32", None], ["set_seed", 3], ["shuffle", [10], "int32", 5],
    ["shuffle", [10], "int32", 5], ["shuffle", [6, 2], "int32", 5], ["shuffle", [7], "int64", None],
    ["function", [["shuffle", [5, 3], "int32", None], ["normal", [2], "float32", None]]],
]


def draw(step: list) -> tf.Tensor:
    op, shape, dtype, seed, *bounds = step
    if op == "shuffle":   # the rows of range(size) in the step's shape
        rows = tf.reshape(tf.range(int(np.prod(shape)), dtype=dtype), shape)
        return tf.random.shuffle(rows, seed=seed)
    if op == "uniform_int":
        return tf.random.uniform(shape, minval=bounds[0], maxval=bounds[1], dtype=dtype,
                                 seed=seed)
    fn = {"normal": tf.random.normal, "uniform": tf.random.uniform,
          "truncated_normal": tf.random.truncated_normal}[op]
    return fn(shape, dtype=dtype, seed=seed)


def run_program() -> list:
    """Each step with its numbers; a "function" step is a tf.function of its draws, called
    twice (its graph's streams carry on from the first call to the second)."""
    out = []
    for step in PROGRAM:
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
            out.append({"step": step})
        elif step[0] == "function":
            fn = tf.function(lambda steps=step[1]: [draw(s) for s in steps])
            out.append({"step": step, "values": [[values(t) for t in fn()] for _ in range(2)]})
        else:
            out.append({"step": step, "values": values(draw(step))})
    return out


# Large draws, kept as SHA-256 digests of their bytes: a million float32 normals exercise
# every branch of the float32 log/sin/cos in Box-Muller, 10**5 doubles the C library's log.
DIGESTS = [
    ("normal", [1000, 1000], "float32", [7, 11]),
    ("truncated_normal", [300, 1000], "float32", [3, 5]),
    ("normal", [1001, 7], "float16", [1, 2]),
    ("normal", [100, 1001], "float64", [1, 2]),
    ("truncated_normal", [100, 1001], "float64", [1, 2]),
]


def digests() -> list:
    out = []
    for op, shape, dtype, seed in DIGESTS:
        fn = tf.random.stateless_normal if op == "normal" else \
            tf.random.stateless_truncated_normal
        data = fn(shape, seed=seed, dtype=dtype).numpy().tobytes()
        out.append({"op": op, "shape": shape, "dtype": dtype, "seed": seed,
                    "sha256": hashlib.sha256(data).hexdigest()})
    return out


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
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases,
                               "program": run_program(), "digests": digests()}) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
