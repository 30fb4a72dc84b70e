"""tf.function speed beside hand-written NumPy, as ratios measured in one run.

The same training step (Dense layers with ReLU, MSE loss, Adam as Keras 3 updates it) three
ways: tapeflow eager, tapeflow under `tf.function` (traced once, run as generated straight-line
NumPy), and by hand in NumPy with in-place updates (the floor). Two sizes:
  small: the seed model, Dense 10-64-32-1, batch 32
  large: Dense 784-1024-1024-10, batch 256
Targets (issue 4): tf.function within 1.3x of NumPy on small, 1.1x on large.
JAX/TensorFlow/PyTorch are not installed here; they would join the table when present.

Run: `PYTHONPATH=src python benchmarks/bench_function.py [--quick]`
"""

from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402
from tapeflow.keras import layers, losses, models, optimizers  # noqa: E402

LR, B1, B2, EPS = 0.001, 0.9, 0.999, 1e-7


def make_data(sizes: list, batch: int, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in sizes:
        params.append(rng.normal(0, np.sqrt(2.0 / fan_in), (fan_in, fan_out)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    x = rng.normal(size=(batch, sizes[0][0])).astype(np.float32)
    y = rng.normal(size=(batch, sizes[-1][1])).astype(np.float32)
    return params, x, y


class NumpyAdamStep:
    """The step by hand: forward, backward and Keras's Adam update, in place."""

    def __init__(self, params: list) -> None:
        self.params = [p.copy() for p in params]
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def __call__(self, x: np.ndarray, y: np.ndarray) -> float:
        params = self.params
        n_layers = len(params) // 2
        acts = [x]
        h = x
        for i in range(n_layers):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n_layers - 1:
                np.maximum(h, 0, out=h)
            acts.append(h)
        diff = h - y
        loss = float(np.mean(diff * diff))
        g = diff * (2.0 / diff.size)
        grads = [None] * len(params)
        for i in reversed(range(n_layers)):
            grads[2 * i] = acts[i].T @ g
            grads[2 * i + 1] = g.sum(0)
            if i > 0:
                g = g @ params[2 * i].T
                g *= acts[i] > 0
        self.t += 1
        alpha = LR * np.sqrt(1 - B2 ** self.t) / (1 - B1 ** self.t)
        for p, gr, m, v in zip(params, grads, self.m, self.v):
            m += (gr - m) * (1 - B1)
            v += (gr * gr - v) * (1 - B2)
            p -= (m * alpha) / (np.sqrt(v) + EPS)
        return loss


def keras_step(sizes: list, params: list) -> tuple:
    model = models.Sequential(
        [layers.Dense(fan_out, activation="relu" if i < len(sizes) - 1 else None)
         for i, (_, fan_out) in enumerate(sizes)])
    model.build((None, sizes[0][0]))
    for var, value in zip(model.trainable_variables, params):
        var.assign(value)
    optimizer = optimizers.Adam(learning_rate=LR)
    loss_fn = losses.MeanSquaredError()

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def best_of(fn, repeat: int, number: int) -> float:
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def bench(name: str, sizes: list, batch: int, number: int, repeat: int, target: float) -> None:
    params, x, y = make_data(sizes, batch)
    numpy_step = NumpyAdamStep(params)
    eager = keras_step(sizes, params)
    compiled = tf.function(keras_step(sizes, params))
    xt, yt = tf.constant(x), tf.constant(y)
    # Same numbers: the first losses of the three agree.
    losses_seen = [numpy_step(x, y), float(eager(xt, yt)), float(compiled(xt, yt))]
    # Interleaved rounds, best of each: machine noise hits the three alike.
    t_numpy = t_eager = t_fn = float("inf")
    for _ in range(repeat):
        t_numpy = min(t_numpy, best_of(lambda: numpy_step(x, y), 3, number))
        t_eager = min(t_eager, best_of(lambda: eager(xt, yt), 3, number))
        t_fn = min(t_fn, best_of(lambda: compiled(xt, yt), 3, number))
    print(f"{name}: first losses numpy/eager/function = "
          + " / ".join(f"{v:.6f}" for v in losses_seen))
    print(f"  numpy (floor)      {t_numpy * 1e3:9.3f} ms   1.00x")
    print(f"  tapeflow eager     {t_eager * 1e3:9.3f} ms   {t_eager / t_numpy:5.2f}x")
    print(f"  tapeflow function  {t_fn * 1e3:9.3f} ms   {t_fn / t_numpy:5.2f}x   "
          f"(target {target}x)")


def main() -> None:
    quick = "--quick" in sys.argv
    bench("small 10-64-32-1, batch 32", [(10, 64), (64, 32), (32, 1)], 32,
          number=50 if quick else 100, repeat=3 if quick else 7, target=1.3)
    bench("large 784-1024-1024-10, batch 256", [(784, 1024), (1024, 1024), (1024, 10)], 256,
          number=2 if quick else 3, repeat=2 if quick else 4, target=1.1)


if __name__ == "__main__":
    main()
