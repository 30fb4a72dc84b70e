"""Core-engine speed beside hand-written NumPy, as ratios measured in one run.

1. A training step of the seed model (Dense 10-64-32-1, ReLU, MSE, batch 32): forward,
   gradient and a plain gradient-descent update; tapeflow eager vs the same step written by
   hand in NumPy (the floor), and vs TensorFlow / PyTorch / JAX / autograd where installed.
2. A chain of 200 scalar ops with its gradient.
3. `python -c "import tapeflow"` wall time.

Run: `PYTHONPATH=src python benchmarks/bench_core.py`
"""

from __future__ import annotations

import os
import subprocess
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402

SIZES = [(10, 64), (64, 32), (32, 1)]
BATCH = 32
LR = 0.01


def init_params(seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in SIZES:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        params.append(rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    return params


def data(seed: int = 1) -> tuple:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((BATCH, 10)).astype(np.float32),
            rng.standard_normal((BATCH, 1)).astype(np.float32))


# -- hand-written NumPy: the floor -------------------------------------------------------------

def numpy_step(params: list, x: np.ndarray, y: np.ndarray) -> float:
    w1, b1, w2, b2, w3, b3 = params
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    out = h2 @ w3 + b3
    diff = out - y
    loss = np.mean(diff * diff)
    d_out = (2.0 / diff.size) * diff
    g_w3 = h2.T @ d_out
    g_b3 = d_out.sum(0)
    d_h2 = (d_out @ w3.T) * (z2 > 0)
    g_w2 = h1.T @ d_h2
    g_b2 = d_h2.sum(0)
    d_h1 = (d_h2 @ w2.T) * (z1 > 0)
    g_w1 = x.T @ d_h1
    g_b1 = d_h1.sum(0)
    for p, g in zip(params, (g_w1, g_b1, g_w2, g_b2, g_w3, g_b3)):
        p -= LR * g
    return float(loss)


# -- tapeflow eager ----------------------------------------------------------------------------

def tapeflow_step_fn(params: list):
    variables = [tf.Variable(p) for p in params]
    relu = getattr(getattr(tf, "nn", None), "relu", None) or (lambda h: tf.maximum(h, 0.0))

    def step(x: tf.Tensor, y: tf.Tensor) -> float:
        w1, b1, w2, b2, w3, b3 = variables
        with tf.GradientTape() as tape:
            h = relu(tf.matmul(x, w1) + b1)
            h = relu(tf.matmul(h, w2) + b2)
            out = tf.matmul(h, w3) + b3
            loss = tf.reduce_mean(tf.square(out - y))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(LR * g)
        return loss
    return step


def peers_step_fns(params: list, x: np.ndarray, y: np.ndarray) -> dict:
    """Optional peers, only where installed."""
    fns = {}
    try:
        import torch
        ps = [torch.tensor(p, requires_grad=True) for p in params]
        tx, ty = torch.tensor(x), torch.tensor(y)

        def torch_step() -> None:
            w1, b1, w2, b2, w3, b3 = ps
            h = torch.relu(tx @ w1 + b1)
            h = torch.relu(h @ w2 + b2)
            loss = ((h @ w3 + b3 - ty) ** 2).mean()
            grads = torch.autograd.grad(loss, ps)
            with torch.no_grad():
                for p, g in zip(ps, grads):
                    p -= LR * g
        fns["PyTorch eager"] = torch_step
    except ImportError:
        pass
    try:
        import tensorflow as real_tf  # the reference, where installed (never a dependency)
        tvars = [real_tf.Variable(p) for p in params]
        ttx, tty = real_tf.constant(x), real_tf.constant(y)

        def tf_step() -> None:
            w1, b1, w2, b2, w3, b3 = tvars
            with real_tf.GradientTape() as tape:
                h = real_tf.nn.relu(real_tf.matmul(ttx, w1) + b1)
                h = real_tf.nn.relu(real_tf.matmul(h, w2) + b2)
                loss = real_tf.reduce_mean(real_tf.square(real_tf.matmul(h, w3) + b3 - tty))
            for v, g in zip(tvars, tape.gradient(loss, tvars)):
                v.assign_sub(LR * g)
        fns["TensorFlow eager"] = tf_step
    except ImportError:
        pass
    try:
        import autograd
        import autograd.numpy as anp

        def loss_fn(ps: list) -> float:
            w1, b1, w2, b2, w3, b3 = ps
            h = anp.maximum(x @ w1 + b1, 0)
            h = anp.maximum(h @ w2 + b2, 0)
            return anp.mean((h @ w3 + b3 - y) ** 2)
        grad_fn = autograd.grad(loss_fn)
        aps = [p.copy() for p in params]

        def autograd_step() -> None:
            for p, g in zip(aps, grad_fn(aps)):
                p -= LR * g
        fns["autograd"] = autograd_step
    except ImportError:
        pass
    return fns


def scalar_chain_fn():
    x = tf.Variable(0.5)

    def run() -> None:
        with tf.GradientTape() as tape:
            y = x
            for _ in range(50):
                y = tf.sin(y) * 1.01 + y * 0.5 - 0.1 * y * y
                # 4 binary ops + 1 unary = ~5 ops per round; 50 rounds ≈ 200+ ops
        tape.gradient(y, x)
    return run


def timed(fn, number: int) -> float:
    """Best of many short repeats, seconds per call (the minimum is the least noisy
    estimate on a shared machine)."""
    return min(timeit.repeat(fn, number=number, repeat=25)) / number


def interleaved(fns: dict, number: int, rounds: int = 5) -> dict:
    """Times several functions in alternation, so that machine noise hits all alike."""
    best = {name: float("inf") for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            best[name] = min(best[name], timed(fn, number))
    return best


def report(times: dict, skip_floor: bool = False) -> None:
    floor = times["hand-written NumPy"]
    for name, t in times.items():
        if not (skip_floor and name == "hand-written NumPy"):
            print(f"  {name:<20} {t * 1e6:8.1f} us   {t / floor:.2f}x")


def import_time() -> float:
    code = "import time; t = time.perf_counter(); import tapeflow; print(time.perf_counter() - t)"
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "src"))
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 env=env, check=True).stdout) for _ in range(5)]
    return min(runs)


def main() -> None:
    x, y = data()
    numpy_params = init_params()
    step = tapeflow_step_fn(init_params())
    tx, ty = tf.constant(x), tf.constant(y)
    floor_fn = {"hand-written NumPy": lambda: numpy_step(numpy_params, x, y)}
    # tapeflow beside the floor first, before any peer is imported: TensorFlow's runtime,
    # once loaded, slows all Python code in the process (the scalar-op chain below ran
    # 45-60% slower after it), which is not what a tapeflow program pays. Each peer is then
    # timed beside the floor again, in the same run.
    times = interleaved({**floor_fn, "tapeflow eager": lambda: step(tx, ty)}, number=50)
    print(f"Seed model training step (Dense 10-64-32-1, ReLU, MSE, batch {BATCH}, SGD):")
    report(times)
    peers = peers_step_fns(init_params(), x, y)
    if peers:
        print("  peers, each beside the floor measured again:")
        report(interleaved({**floor_fn, **peers}, number=50), skip_floor=True)
    chain = timed(scalar_chain_fn(), 10)
    print(f"Chain of ~250 scalar ops + gradient: {chain * 1e3:.2f} ms "
          f"({chain / 250 * 1e6:.1f} us per op, forward and backward)")
    print(f"import tapeflow: {import_time() * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
