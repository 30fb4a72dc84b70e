"""Jacobians of a function with matrix products: vectorized (pfor) against the per-row loop.

f(x) = tanh(x @ W1) @ W2 with x (64, 100), W1 (100, 200), W2 (200, 50), float32:
`tape.jacobian(y, x)` (3200 rows), `tape.batch_jacobian(y, x)` (50 rows of 64 examples) and
the same product written with `transpose_a`/`transpose_b`, and `jacobian(y, W2)`.
Each vectorized jacobian is timed interleaved with the loop (`experimental_use_pfor=False`)
on the same data; reports medians and the ratio vectorized / loop (target: at most 1).
Not a test: no assertions on time.

    PYTHONPATH=src python3 benchmarks/bench_jacobian.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402

rng = np.random.default_rng(0)
X = tf.constant(rng.standard_normal((64, 100)).astype(np.float32))
W1 = tf.constant((rng.standard_normal((100, 200)) / 10).astype(np.float32))
W2 = tf.constant((rng.standard_normal((200, 50)) / 14).astype(np.float32))


def mlp(x):
    return tf.matmul(tf.tanh(tf.matmul(x, W1)), W2)


def mlp_transposed(x):
    # the same numbers through transpose_a / transpose_b: (W1^T x^T)^T = x W1
    h = tf.tanh(tf.matmul(W1, x, transpose_a=True, transpose_b=True))   # (200, 64)
    return tf.matmul(h, W2, transpose_a=True)                            # (64, 50)


def jacobian(f, source, pfor, batch=False):
    def run():
        with tf.GradientTape(persistent=not pfor) as tape:
            tape.watch(source)
            y = f()
        if batch:
            return tape.batch_jacobian(y, source, experimental_use_pfor=pfor)
        return tape.jacobian(y, source, experimental_use_pfor=pfor)
    return run


def median_ms(fns: dict, rounds: int) -> dict:
    """Each function timed once per round, in alternation; medians in milliseconds."""
    times: dict = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


WORKLOADS = {
    "jacobian d tanh(x@W1)@W2 / dx  [3200 x 6400]": (lambda: mlp(X), X, False),
    "  same, transpose_a/transpose_b": (lambda: mlp_transposed(X), X, False),
    "batch_jacobian d y / dx  [64 x 50 x 100]": (lambda: mlp(X), X, True),
    "jacobian d y[:4] / dW2  [4x50 x 200x50]": (lambda: mlp(X[:4]), W2, False),
}


def main(rounds: int = 7) -> None:
    print("tanh(x @ W1) @ W2, x (64, 100), W1 (100, 200), W2 (200, 50), float32; "
          f"median of {rounds} interleaved rounds")
    for name, (f, source, batch) in WORKLOADS.items():
        vec, loop = jacobian(f, source, True, batch), jacobian(f, source, False, batch)
        np.testing.assert_allclose(vec().numpy(), loop().numpy(), rtol=1e-5, atol=1e-6)
        ms = median_ms({"vectorized": vec, "loop": loop}, rounds)
        print(f"  {name:46s} vectorized {ms['vectorized']:9.2f} ms   loop {ms['loop']:9.2f} ms"
              f"   ratio {ms['vectorized'] / ms['loop']:5.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
