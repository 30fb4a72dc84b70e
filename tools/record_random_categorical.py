"""Records TensorFlow 2.21's tf.random.categorical / stateless_categorical samples and
tf.random.experimental.index_shuffle values for tapeflow's tests (run where TensorFlow is
installed; CI does not):

    python tools/record_random_categorical.py   # writes tests/ops/fixtures/random_categorical.json

TensorFlow's CPU categorical kernel splits the batch rows into blocks for its intra-op thread
pool, and each block reads the random stream from its own offset, so the samples depend on the
pool's size: each PROGRAM runs in a fresh TensorFlow process per thread count (0: TF's default,
recorded with the CPU count it saw). Small results are kept whole; large ones as SHA-256
digests of their int64 bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ops" / "fixtures" / \
    "random_categorical.json"
THREADS = [1, 2, 4, 8, 0]
SEEDS = [[0, 0], [1, 2], [-7, 123456789], [2**31 - 1, -(2**31)]]


def logits(batch: int, classes: int, dtype: str) -> np.ndarray:
    """Deterministic logits in [-5, 5) with some -inf (exact float64 arithmetic, then cast);
    the tests build the same ones."""
    i, j = np.meshgrid(np.arange(batch), np.arange(classes), indexing="ij")
    values = ((i * 7919 + j * 104729) % 1000) / 100.0 - 5.0
    values[((i + 2 * j) % 11 == 0) & (j > 0)] = -np.inf
    return values.astype(dtype)


# Stateful steps: ["set_seed", s] or [batch, classes, num_samples, logits dtype, out dtype,
# op seed] (eagerly) or ["function", step]: a tf.function of the step, called twice.
PROGRAM = [
    ["set_seed", 5], [2, 3, 7, "float32", "int64", 3], [2, 3, 7, "float32", "int64", 3],
    [3, 5, 4, "float64", "int64", 3], [2, 3, 7, "float32", "int64", 3],
    [2, 3, 7, "float32", "int32", 3], [1, 4, 9, "float16", "int64", None],
    [4, 2, 0, "float32", "int64", 3], [0, 3, 4, "float32", "int64", 3],
    [2, 3, 1, "float32", "int64", 3],
    [300, 10, 5, "float32", "int64", 11], [300, 10, 5, "float32", "int64", 11],
    [157, 10, 5, "float32", "int64", None], [1001, 3, 1, "float64", "int32", 4],
    [4099, 7, 3, "float32", "int64", 4], [513, 100, 8, "float16", "int64", 4],
    [64, 1000, 2, "float32", "int64", None], [2000, 2, 17, "float32", "int64", 9],
    ["set_seed", 0], [5, 6, 3, "float32", "int64", None],
    ["set_seed", 1234], ["function", [700, 9, 6, "float32", "int64", None]],
    ["function", [3, 4, 5, "float64", "int32", 2]], [3, 4, 5, "float32", "int64", None],
]

# Stateless: [batch, classes, num_samples, logits dtype, out dtype, seed].
STATELESS = [[b, c, n, d, o, s] for s in SEEDS for b, c, n, d, o in [
    (1, 3, 5, "float32", "int64"), (2, 7, 3, "float64", "int32"), (3, 2, 8, "float16", "int64"),
    (5, 1, 2, "float32", "int64"), (400, 10, 5, "float32", "int64"),
    (1001, 5, 3, "float64", "int64"), (97, 300, 4, "float16", "int32")]]

SMALL = 64   # results with more numbers are kept as digests

# index_shuffle: [index dtype, seed dtype, seed, max_index, indices (None: all of them)].
_TOPS = {"int32": [0, 1, 3, 9, 100, 65535, 65536, 2**20 + 3, 2**31 - 1],
         "uint32": [5, 2**17, 2**32 - 1], "int64": [7, 2**33 + 5, 2**53 + 7, 2**63 - 1],
         "uint64": [11, 2**40, 2**64 - 1]}
INDEX_SHUFFLE = [[dtype, seed_dtype, seed, top, None if top < 200 else
                  [0, 1, 2, top // 3, top // 2, top - 1, top]]
                 for dtype, tops in _TOPS.items() for top in tops
                 for seed_dtype, seed in [("int32", [5, 9]), ("int64", [-7, 2**40 + 3]),
                                          ("uint32", [2**32 - 1, 0]), ("uint64", [3, 2**63])]
                 if seed_dtype[0] != "u" or dtype in ("int32", "uint64")]


def packed(array: np.ndarray) -> dict:
    if array.size <= SMALL:
        return {"values": array.reshape(-1).tolist()}
    return {"sha256": hashlib.sha256(array.astype(np.int64).tobytes()).hexdigest()}


def record(threads: int) -> dict:
    import tensorflow as tf
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)

    def draw(step: list) -> tf.Tensor:
        batch, classes, num, dtype, out, seed = step
        return tf.random.categorical(tf.constant(logits(batch, classes, dtype)), num,
                                     dtype=out, seed=seed)

    program = []
    for step in PROGRAM:
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
            program.append({"step": step})
        elif step[0] == "function":
            fn = tf.function(lambda s=step[1]: draw(s))
            program.append({"step": step, "results": [packed(fn().numpy()) for _ in range(2)]})
        else:
            program.append({"step": step, **packed(draw(step).numpy())})
    stateless = []
    for step in STATELESS:
        batch, classes, num, dtype, out, seed = step
        result = tf.random.stateless_categorical(tf.constant(logits(batch, classes, dtype)),
                                                 num, seed=seed, dtype=out)
        stateless.append({"step": step, **packed(result.numpy())})
    return {"threads": threads, "cpus": len(os.sched_getaffinity(0)), "program": program,
            "stateless": stateless}


def index_shuffles() -> list:
    import tensorflow as tf
    out = []
    for dtype, seed_dtype, seed, top, indices in INDEX_SHUFFLE:
        indices = list(range(top + 1)) if indices is None else indices
        shuffle = tf.random.experimental.index_shuffle
        vector = shuffle(tf.constant(indices, dtype), tf.constant(seed, seed_dtype),
                         tf.constant(top, dtype))
        scalar = shuffle(tf.constant(indices[-1], dtype), tf.constant(seed, seed_dtype),
                         tf.constant(top, dtype))
        out.append({"case": [dtype, seed_dtype, seed, top, indices],
                    "values": vector.numpy().tolist(), "scalar": scalar.numpy().tolist()})
    return out


def main() -> None:
    runs = []
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    for threads in THREADS:   # a fresh process each: the pool is sized once
        text = subprocess.run([sys.executable, __file__, str(threads)], env=env, check=True,
                              capture_output=True, text=True).stdout
        runs.append(json.loads(text))
    import tensorflow as tf
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "runs": runs,
                               "index_shuffle": index_shuffles()}) + "\n")
    print(f"wrote {len(runs)} runs to {OUT}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(record(int(sys.argv[1]))))
    else:
        main()
