"""AutoGraph's cost: a training loop written with a Python `while` on a tensor inside
`tf.function` (converted by AutoGraph) beside the same loop written with `tf.while_loop` by
hand (`autograph=False`). Conversion happens once, at trace time, so the two graphs should run
at the same speed; the ratio is converted / by hand, per call, measured interleaved in one run.
Trace time (conversion included) is reported separately.

Run: `PYTHONPATH=src python benchmarks/bench_autograph.py [--quick]`
"""

from __future__ import annotations

import os
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402

LR = 0.05


def make_problem(batch: int = 64, features: int = 16, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, features)).astype(np.float32)
    true_w = rng.normal(size=(features, 1)).astype(np.float32)
    y = (x @ true_w + 0.1 * rng.normal(size=(batch, 1))).astype(np.float32)
    return tf.constant(x), tf.constant(y)


def make_converted(w: tf.Variable, b: tf.Variable) -> tf.function:
    @tf.function
    def train(x, y, steps):
        i = tf.constant(0)
        loss = tf.constant(0.0)
        while i < steps:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(LR * grad_w)
            b.assign_sub(LR * grad_b)
            i += 1
        return loss
    return train


def make_by_hand(w: tf.Variable, b: tf.Variable) -> tf.function:
    @tf.function(autograph=False)
    def train(x, y, steps):
        def body(i, loss):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(LR * grad_w)
            b.assign_sub(LR * grad_b)
            return i + 1, loss
        _, loss = tf.while_loop(lambda i, loss: i < steps, body,
                                (tf.constant(0), tf.constant(0.0)))
        return loss
    return train


def main(quick: bool = False) -> None:
    x, y = make_problem()
    steps = tf.constant(20 if quick else 100)
    runs = {}
    for label, make in (("converted", make_converted), ("by hand", make_by_hand)):
        w = tf.Variable(tf.zeros([x.shape[1], 1]))
        b = tf.Variable(tf.zeros([1]))
        train = make(w, b)
        start = time.perf_counter()
        first = train(x, y, steps)
        runs[label] = (train, time.perf_counter() - start, float(first))
    assert abs(runs["converted"][2] - runs["by hand"][2]) < 1e-6, "the two loops disagree"
    repeats, number = (3, 5) if quick else (7, 20)
    best = {label: float("inf") for label in runs}
    for _ in range(repeats):          # interleaved, so drifts in machine load hit both
        for label, (train, _, _) in runs.items():
            seconds = timeit.timeit(lambda f=train: f(x, y, steps), number=number) / number
            best[label] = min(best[label], seconds)
    print(f"training loop of {int(steps)} steps inside tf.function (min of {repeats} x "
          f"{number} calls)")
    for label in runs:
        print(f"  {label:10s} {best[label] * 1e3:8.3f} ms/call   first call (trace) "
              f"{runs[label][1] * 1e3:7.1f} ms")
    print(f"  converted / by hand: {best['converted'] / best['by hand']:.3f}x")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
