"""The small CNN training step: tapeflow beside TensorFlow and PyTorch, interleaved in one run.

Keras Sequential Conv2D(32, 3, relu) - MaxPooling2D(2) - Conv2D(64, 3, relu) - Flatten -
Dense(10) on 28x28x1 images, batch 64, sparse softmax cross-entropy from logits, one
GradientTape step with Adam(1e-3) (or SGD, `--sgd`, to see the convolutions without the
optimizer). The same TF-API code (`cnn_step`) runs on tapeflow and on TensorFlow; PyTorch runs
the same model in torch.nn (NCHW, its native layout) with torch.optim. Every system starts
from the same weights and data; the systems take turns, round after round, and the table
gives each one's median.

Target (issue 15): tapeflow `tf.function` ahead of TensorFlow's `tf.function` and of PyTorch
eager.

Run: `PYTHONPATH=src /work/benchenv/bin/python benchmarks/bench_cnn.py [--sgd] [--rounds N]`
(systems not installed are skipped).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

BATCH, FILTERS, CLASSES, LR = 64, (32, 64), 10, 1e-3


def cnn_data(seed: int = 5) -> dict:
    """Weights in Keras's layouts (kernels HWIO), NHWC images in [0, 1), int32 labels."""
    rng = np.random.default_rng(seed)

    def glorot(shape: tuple, fan_in: int, fan_out: int) -> np.ndarray:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape).astype(np.float32)

    c1, c2 = FILTERS
    params = [glorot((3, 3, 1, c1), 9, 9 * c1), np.zeros(c1, np.float32),
              glorot((3, 3, c1, c2), 9 * c1, 9 * c2), np.zeros(c2, np.float32),
              glorot((11 * 11 * c2, CLASSES), 11 * 11 * c2, CLASSES),
              np.zeros(CLASSES, np.float32)]
    return {"params": params,
            "x": rng.uniform(0, 1, (BATCH, 28, 28, 1)).astype(np.float32),
            "labels": rng.integers(0, CLASSES, BATCH).astype(np.int32)}


def cnn_model(lib: Any, params: list) -> Any:
    """The Keras model of a TF-API module `lib` (tapeflow or tensorflow), weights `params`."""
    keras = lib.keras
    layers = keras.layers
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        layers.Conv2D(FILTERS[0], 3, activation="relu"),
        layers.MaxPooling2D(2),
        layers.Conv2D(FILTERS[1], 3, activation="relu"),
        layers.Flatten(),
        layers.Dense(CLASSES)])
    model.set_weights([p.copy() for p in params])
    return model


def cnn_step(lib: Any, compiled: bool = True, optimizer: str = "adam",
             params: list | None = None) -> Callable:
    """One training step of the CNN for TF-API module `lib`: `step(x, labels)` returns the
    loss; `compiled` wraps it in `lib.function`."""
    model = cnn_model(lib, cnn_data()["params"] if params is None else params)
    opt = lib.keras.optimizers.Adam(LR) if optimizer == "adam" else \
        lib.keras.optimizers.SGD(LR)
    loss_fn = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x: Any, labels: Any) -> Any:
        with lib.GradientTape() as tape:
            loss = loss_fn(labels, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return lib.function(step) if compiled else step


def torch_step(torch: Any, optimizer: str = "adam", params: list | None = None) -> Callable:
    """The same model and step in PyTorch eager (NCHW): `step(x, labels)` on torch tensors."""
    nn = torch.nn
    params = cnn_data()["params"] if params is None else params
    c1, c2 = FILTERS
    model = nn.Sequential(nn.Conv2d(1, c1, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(c1, c2, 3), nn.ReLU(), nn.Flatten(),
                          nn.Linear(11 * 11 * c2, CLASSES))
    with torch.no_grad():  # Keras's HWIO kernels as OIHW; Flatten order NHWC -> NCHW
        model[0].weight.copy_(torch.from_numpy(params[0].transpose(3, 2, 0, 1).copy()))
        model[0].bias.copy_(torch.from_numpy(params[1]))
        model[3].weight.copy_(torch.from_numpy(params[2].transpose(3, 2, 0, 1).copy()))
        model[3].bias.copy_(torch.from_numpy(params[3]))
        dense = params[4].reshape(11, 11, c2, CLASSES).transpose(3, 2, 0, 1)
        model[6].weight.copy_(torch.from_numpy(dense.reshape(CLASSES, -1).copy()))
        model[6].bias.copy_(torch.from_numpy(params[5]))
    opt = torch.optim.Adam(model.parameters(), LR, eps=1e-7) if optimizer == "adam" else \
        torch.optim.SGD(model.parameters(), LR)
    loss_fn = nn.CrossEntropyLoss()

    def step(x: Any, labels: Any) -> Any:
        opt.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        return loss

    return step


def _try_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def systems(optimizer: str, eager: bool) -> dict:
    """name -> zero-argument callable running one step on that system's copy of the data."""
    data = cnn_data()
    x, labels = data["x"], data["labels"]
    out = {}
    import tapeflow
    tf_x, tf_y = tapeflow.constant(x), tapeflow.constant(labels)
    step = cnn_step(tapeflow, True, optimizer)
    out["tapeflow tf.function"] = lambda: step(tf_x, tf_y)
    if eager:
        eager_step = cnn_step(tapeflow, False, optimizer)
        out["tapeflow eager"] = lambda: eager_step(tf_x, tf_y)
    torch = _try_import("torch")
    if torch is not None:
        px = torch.from_numpy(x.transpose(0, 3, 1, 2).copy())
        py = torch.from_numpy(labels.astype(np.int64))
        t_step = torch_step(torch, optimizer)
        t_step(px, py)  # its lazy imports (triton) crash once TensorFlow is loaded
        out["PyTorch eager"] = lambda: t_step(px, py)
    else:
        print("PyTorch not installed: skipped")
    tf = _try_import("tensorflow")
    if tf is not None:
        tx, ty = tf.constant(x), tf.constant(labels)
        tf_step = cnn_step(tf, True, optimizer)
        out["TensorFlow tf.function"] = lambda: tf_step(tx, ty)
    else:
        print("TensorFlow not installed: skipped")
    return out


def interleaved(runs: dict, rounds: int, number: int, pause: float = 0.3) -> dict:
    """Median seconds per step of each system, the systems taking turns each round. A pause
    follows each turn: the worker threads of BLAS, OpenMP and TensorFlow spin a while after
    their work, and on a small machine would take the cores from the next system."""
    for run in runs.values():  # warm up: traces, first-call allocations
        for _ in range(3):
            run()
    times: dict = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            for _ in range(number):
                run()
            times[name].append((time.perf_counter() - start) / number)
            time.sleep(pause)
    return {name: float(np.median(t)) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sgd", action="store_true", help="SGD instead of Adam")
    parser.add_argument("--eager", action="store_true", help="also tapeflow eager")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=3, help="steps per timing")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between turns")
    args = parser.parse_args()
    optimizer = "sgd" if args.sgd else "adam"
    medians = interleaved(systems(optimizer, args.eager), args.rounds, args.number,
                          args.pause)
    base = medians["tapeflow tf.function"]
    print(f"CNN step, {optimizer}, batch {BATCH}: median of {args.rounds} rounds")
    for name, seconds in medians.items():
        print(f"  {name:24s} {seconds * 1e3:8.2f} ms   tapeflow tf.function / it: "
              f"{base / seconds:.2f}")


if __name__ == "__main__":
    main()
