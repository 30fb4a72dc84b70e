"""Records TensorFlow 2.21's gamma, Poisson and binomial samples for tapeflow's tests (run where
TensorFlow is installed; CI does not run it):

    python tools/record_random_distributions.py

(writes tests/ops/fixtures/random_distributions.json).

The stateless samplers for several seeds, parameter shapes and every dtype they take; a
program of stateful gamma and Poisson draws with TF's seed rules (eagerly and in tf.function,
whose graph's streams carry from call to call); tf.random.Generator.binomial's numbers and the
generator's state after each call; SHA-256 digests of large draws; and gradients of
stateless_gamma with respect to alpha and beta.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import tensorflow as tf

from record_random_fixtures import values

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ops" / "fixtures" / \
    "random_distributions.json"
SEEDS = [[1, 2], [-7, 123456789], [2**31 - 1, -(2**31)]]

# (shape, alpha, beta); alpha 1 is the kernel's exponential branch, alpha < 1 its boost.
GAMMAS = [([7, 4], [0.3, 1.0, 2.5, 40.0], None), ([5, 2, 3], [[0.5], [3.0]], [1.0, 2.0, 0.5]),
          ([3], 1e-3, None), ([1], 7.25, 4.0)]
POISSONS = [([9, 4], [0.5, 4.0, 12.0, 250.0]), ([5], 9.99), ([3, 1, 2], [[10.0, 1e4]])]
BINOMIALS = [([6, 5], [8.0, 30.0, 100.0, 500.0, 0.0], [0.3, 0.9, 0.45, 0.995, 0.5]),
             ([4, 2, 3], [[10.0], [50.0]], [0.1, 0.6, 0.97]), ([5], 25.5, 0.4),
             ([3], 7.0, [0.0, 1.0, 1.5])]

# Stateful steps, run in order: ["set_seed", s], [op, shape, param, dtype, seed], or
# ["function", [steps]] (a tf.function of its steps, called twice).
PROGRAM = [
    ["set_seed", 42], ["gamma", [5], [0.7, 2.0], "float32", None],
    ["gamma", [5], [0.7, 2.0], "float32", None], ["gamma", [3], 1.0, "float64", 9],
    ["gamma", [3], 1.0, "float64", 9], ["gamma", [4], [[0.2, 5.0]], "float16", 9],
    ["poisson", [6], [3.0, 30.0], "float32", None], ["poisson", [6], [3.0, 30.0], "int32", 9],
    ["poisson", [6], [3.0, 30.0], "int32", 9], ["poisson", [4], 150.0, "int64", None],
    ["poisson", [3], 2.5, "float64", 9], ["poisson", [3], 2.5, "float16", 9],
    ["set_seed", 42], ["gamma", [5], [0.7, 2.0], "float32", None],
    ["set_seed", 1234],
    ["function", [["gamma", [3], [0.5, 9.0], "float32", None],
                  ["poisson", [2], [1.0, 60.0], "int32", None],
                  ["gamma", [2], 3.0, "float64", 5]]],
    ["function", [["gamma", [3], [0.5, 9.0], "float32", None],
                  ["poisson", [2], [1.0, 60.0], "int32", None],
                  ["gamma", [2], 3.0, "float64", 5]]],
    ["gamma", [2], 3.0, "float64", 5],
]

# tf.random.Generator.binomial calls: (shape, counts, probs, dtype); a "function" entry wraps
# its calls in a tf.function called twice.
GENERATOR = [([5, 4], [10.0, 20.0, 100.0, 300.0], [0.3, 0.9, 0.5, 0.02], "int32"),
             ([3], 40.0, 0.25, "int64"), ([0], 5.0, 0.5, "int32"),
             ([2, 3], [[4.0], [60.0]], [0.5, 0.7, 0.05], "float32"),
             ("function", [([4], 30.0, 0.5, "int32"), ([2], 3.0, 0.2, "float64")])]

DIGESTS = [("stateless_gamma", [10000, 10], [0.25, 0.9, 1.0, 1.7, 3.0, 12.0, 80.0, 0.6, 5.5,
                                              250.0], "float64", [3, 5]),
           ("stateless_poisson", [10000, 10], [0.3, 2.0, 7.5, 9.9, 10.0, 13.0, 47.0, 130.0,
                                                 1000.0, 20000.0], "int64", [3, 5]),
           ("stateless_binomial", [10000, 10], None, "int32", [3, 5])]
DIGEST_COUNTS = [5.0, 20.0, 40.0, 100.0, 1000.0, 7.0, 33.0, 250.0, 10000.0, 64.0]
DIGEST_PROBS = [0.5, 0.05, 0.3, 0.7, 0.5, 0.95, 0.41, 0.999, 0.002, 0.62]


def stateless(op: str, shape: list, seed: list, param: object, extra: object,
              dtype: str, param_dtype: str) -> tf.Tensor:
    def cast(v):
        return tf.constant(v, param_dtype)

    if op == "stateless_gamma":
        return tf.random.stateless_gamma(shape, seed, alpha=param, beta=extra, dtype=dtype)
    if op == "stateless_poisson":
        return tf.random.stateless_poisson(shape, seed, cast(param), dtype=dtype)
    return tf.random.stateless_binomial(shape, seed, cast(param), cast(extra),
                                        output_dtype=dtype)


def stateless_cases() -> list:
    cases = []
    for seed in SEEDS:
        for dtype in ["float16", "float32", "float64"]:
            for shape, alpha, beta in GAMMAS:
                cases.append(["stateless_gamma", shape, seed, alpha, beta, dtype, dtype])
        for shape, lam in POISSONS:
            for dtype in ["int32", "int64", "float16", "float32", "float64"]:
                cases.append(["stateless_poisson", shape, seed, lam, None, dtype, "float32"])
            cases.append(["stateless_poisson", shape, seed, lam, None, "int32", "float64"])
        for shape, counts, probs in BINOMIALS:
            for out in ["int32", "int64", "float32"]:
                cases.append(["stateless_binomial", shape, seed, counts, probs, out,
                              "float32"])
            for param_dtype in ["float16", "float64"]:
                cases.append(["stateless_binomial", shape, seed, counts, probs, "int32",
                              param_dtype])
    return [{"case": c, "values": values(stateless(*c))} for c in cases]


def stateful(step: list) -> tf.Tensor:
    op, shape, param, dtype, seed = step
    if op == "gamma":
        return tf.random.gamma(shape, param, dtype=dtype, seed=seed)
    return tf.random.poisson(shape, param, dtype=dtype, seed=seed)


def run_program() -> list:
    out = []
    for step in PROGRAM:
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
            out.append({"step": step})
        elif step[0] == "function":
            fn = tf.function(lambda steps=step[1]: [stateful(s) for s in steps])
            out.append({"step": step, "values": [[values(t) for t in fn()] for _ in range(2)]})
        else:
            out.append({"step": step, "values": values(stateful(step))})
    return out


def run_generator() -> dict:
    gen = tf.random.Generator.from_seed(2024)
    calls = []
    for entry in GENERATOR:
        if entry[0] == "function":
            fn = tf.function(lambda calls=entry[1]: [gen.binomial(s, c, p, dtype=d)
                                                     for s, c, p, d in calls])
            for _ in range(2):
                calls.append({"values": [values(t) for t in fn()],
                              "state": gen.state.numpy().tolist()})
        else:
            shape, counts, probs, dtype = entry
            t = gen.binomial(shape, counts, probs, dtype=dtype)
            calls.append({"values": values(t), "state": gen.state.numpy().tolist()})
    return {"seed": 2024, "calls": calls}


def digests() -> list:
    out = []
    for op, shape, param, dtype, seed in DIGESTS:
        if op == "stateless_gamma":
            t = tf.random.stateless_gamma(shape, seed, param, dtype=dtype)
        elif op == "stateless_poisson":
            t = tf.random.stateless_poisson(shape, seed, param, dtype=dtype)
        else:
            t = tf.random.stateless_binomial(shape, seed, DIGEST_COUNTS, DIGEST_PROBS,
                                             output_dtype=dtype)
        out.append({"op": op, "shape": shape, "param": param, "dtype": dtype, "seed": seed,
                    "sha256": hashlib.sha256(t.numpy().tobytes()).hexdigest()})
    return out


def gradients() -> list:
    out = []
    for dtype in ["float32", "float64"]:
        alpha = tf.constant([[0.4, 1.0, 3.0, 25.0]], dtype)
        beta = tf.constant([[2.0], [0.5]], dtype)
        with tf.GradientTape() as tape:
            tape.watch([alpha, beta])
            sample = tf.random.stateless_gamma([3, 2, 4], [5, 6], alpha, beta, dtype=dtype)
            loss = tf.reduce_sum(sample ** 2)
        d_alpha, d_beta = tape.gradient(loss, [alpha, beta])
        out.append({"dtype": dtype, "sample": sample.numpy().reshape(-1).tolist(),
                    "d_alpha": d_alpha.numpy().reshape(-1).tolist(),
                    "d_beta": d_beta.numpy().reshape(-1).tolist()})
    return out


def main() -> None:
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "stateless": stateless_cases(),
                               "program": run_program(), "generator": run_generator(),
                               "digests": digests(), "gradients": gradients()}) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
