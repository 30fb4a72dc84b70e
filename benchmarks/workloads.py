"""The workloads: their names, sizes and data. Every system builds its step from the same
NumPy arrays made here (fixed seeds, float32), so all start from the same data and weights;
the first step's result is compared across systems as a check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LR, BETA_1, BETA_2, EPSILON = 1e-3, 0.9, 0.999, 1e-7   # Keras Adam's defaults, lr 1e-3

CHAIN_ROUNDS = 20          # 5 scalar ops a round: sin, *1.01, y*y, *0.1, +  -> 100 ops
HESSIAN_N = 100
MLP_SIZES = [(10, 64), (64, 32), (32, 1)]
MLP_BATCH = 32
BIG_SIZES = [(784, 1024), (1024, 1024), (1024, 10)]
BIG_BATCH = 256
CNN_BATCH = 64
CNN_FILTERS = (32, 64)
CLASSES = 10


@dataclass(frozen=True)
class Workload:
    """A timed workload. `modes`: "eager" and/or "compiled" (one row of the table each)."""
    name: str
    short: str
    title: str
    modes: tuple = ("eager", "compiled")


WORKLOADS = [
    Workload("chain", f"chain of {5 * CHAIN_ROUNDS} scalar ops",
             f"chain of {5 * CHAIN_ROUNDS} scalar ops + gradient"),
    Workload("mlp", "seed MLP step",
             "seed MLP step (Dense 10-64-32-1, ReLU, MSE, b=32, Adam)"),
    Workload("big", "big step", "big step (Dense 784-1024-1024-10, softmax CE, b=256, Adam)"),
    Workload("hessian", "Hessian", f"Hessian of sum(sin(x)*sum(x**2)), x of {HESSIAN_N} values"),
    Workload("cnn", "small CNN step",
             "small CNN step (Conv32-pool-Conv64-Dense10, 28x28x1, b=64, Adam)"),
    Workload("lstm", "2-layer LSTM step",
             "2-layer LSTM step (LSTM64-LSTM64-Dense10, 50 steps of 32, b=32, Adam)"),
    Workload("gemm", "GEMM floor", "GEMM floor: the big step's 8 matrix products alone (NumPy)",
             ("floor",)),
]
BY_NAME = {w.name: w for w in WORKLOADS}
EXTRA = {   # measured differently: peak memory and import time, in fresh subprocesses
    "memory": "peak RSS growth of the big step (MiB)",
    "import": "import time (s, `python -c \"import X\"`, min of 4, bytecode cached)",
}
NOT_YET: dict = {}


def glorot(rng: np.random.Generator, shape: tuple, fan_in: int, fan_out: int) -> np.ndarray:
    """Keras's glorot_uniform with our own generator (the same arrays for every system)."""
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(np.float32)


def dense_params(sizes: list, seed: int) -> list:
    """[kernel (in, out), bias (out,)] per layer, Keras's layout."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in sizes:
        params += [glorot(rng, (fan_in, fan_out), fan_in, fan_out), np.zeros(fan_out, np.float32)]
    return params


def mlp_data() -> dict:
    rng = np.random.default_rng(1)
    return {"params": dense_params(MLP_SIZES, 0),
            "x": rng.standard_normal((MLP_BATCH, 10)).astype(np.float32),
            "y": rng.standard_normal((MLP_BATCH, 1)).astype(np.float32)}


def big_data() -> dict:
    rng = np.random.default_rng(3)
    return {"params": dense_params(BIG_SIZES, 2),
            "x": rng.uniform(0, 1, (BIG_BATCH, 784)).astype(np.float32),
            "labels": rng.integers(0, CLASSES, BIG_BATCH).astype(np.int32)}


def cnn_data() -> dict:
    """Keras layouts: kernels HWIO, images NHWC; Dense after Flatten of 11x11x64."""
    rng = np.random.default_rng(5)
    c1, c2 = CNN_FILTERS
    params = [glorot(rng, (3, 3, 1, c1), 9, 9 * c1), np.zeros(c1, np.float32),
              glorot(rng, (3, 3, c1, c2), 9 * c1, 9 * c2), np.zeros(c2, np.float32),
              glorot(rng, (11 * 11 * c2, CLASSES), 11 * 11 * c2, CLASSES),
              np.zeros(CLASSES, np.float32)]
    return {"params": params,
            "x": rng.uniform(0, 1, (CNN_BATCH, 28, 28, 1)).astype(np.float32),
            "labels": rng.integers(0, CLASSES, CNN_BATCH).astype(np.int32)}


def lstm_data() -> dict:
    """benchmarks/bench_lstm.py's weights (Keras's LSTM layouts) and data."""
    from benchmarks.bench_lstm import lstm_data as from_bench
    return from_bench()


def hessian_data() -> dict:
    """Not symmetric about 0: the Hessian's sum (the check) is not 0."""
    return {"x": np.linspace(-0.9, 1.1, HESSIAN_N).astype(np.float32)}


def chain_data() -> dict:
    return {"x": np.float32(0.5)}


DATA = {"chain": chain_data, "mlp": mlp_data, "big": big_data, "hessian": hessian_data,
        "cnn": cnn_data, "lstm": lstm_data, "gemm": big_data}


def data(name: str) -> dict:
    """Fresh copies of workload `name`'s arrays."""
    return DATA[name]()
