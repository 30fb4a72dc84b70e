"""The 2-layer LSTM training step: tapeflow beside TensorFlow and PyTorch, interleaved in one run.

Keras Sequential LSTM(64, return_sequences=True) - LSTM(64) - Dense(10) on inputs of batch 32,
50 time steps, 32 features; sparse softmax cross-entropy from logits, one GradientTape step
with Adam(1e-3). The same TF-API code (`lstm_step`) runs on tapeflow (eager and tf.function)
and on TensorFlow (eager and tf.function); PyTorch runs torch.nn.LSTM eagerly with
torch.optim.Adam. Every system starts from the same weights and data (Keras's gate order
i, f, c, o is torch's i, f, g, o); the systems take turns, round after round, and the table
gives each one's median.

Run: `PYTHONPATH=src /work/benchenv/bin/python benchmarks/bench_lstm.py [--rounds N]
[--threads N] [--per-step]` (systems not installed are skipped). `--threads` caps BLAS's
threads (threadpoolctl) and TensorFlow's intra-op threads: on a loaded 2-core machine
OpenBLAS's 2-thread GEMMs stall waiting for a core, so compare at 1 thread too.
`--per-step` adds tapeflow's per-step LSTM path (the composite of ~40 ops a step that the
fused sequence op replaced; what masks and other activations still run).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Any, Callable, Iterator

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
try:
    from benchmarks.bench_cnn import _try_import, interleaved
except ImportError:  # run as a script from benchmarks/
    from bench_cnn import _try_import, interleaved

BATCH, TIME, FEATURES, UNITS, CLASSES, LR = 32, 50, 32, 64, 10, 1e-3


def lstm_data(seed: int = 7) -> dict:
    """Weights in Keras's layouts (kernel, recurrent_kernel, bias per LSTM; Dense's kernel
    and bias), inputs in [-1, 1), int32 labels."""
    rng = np.random.default_rng(seed)

    def uniform(shape: tuple, limit: float) -> np.ndarray:
        return rng.uniform(-limit, limit, shape).astype(np.float32)

    params = []
    for fan_in in (FEATURES, UNITS):
        bias = np.zeros(4 * UNITS, np.float32)
        bias[UNITS:2 * UNITS] = 1.0  # unit_forget_bias
        params += [uniform((fan_in, 4 * UNITS), np.sqrt(6 / (fan_in + 4 * UNITS))),
                   uniform((UNITS, 4 * UNITS), np.sqrt(3 / UNITS)), bias]
    params += [uniform((UNITS, CLASSES), np.sqrt(6 / (UNITS + CLASSES))),
               np.zeros(CLASSES, np.float32)]
    return {"params": params,
            "x": rng.uniform(-1, 1, (BATCH, TIME, FEATURES)).astype(np.float32),
            "labels": rng.integers(0, CLASSES, BATCH).astype(np.int32)}


def lstm_model(lib: Any, params: list) -> Any:
    """The Keras model of a TF-API module `lib` (tapeflow or tensorflow), weights `params`."""
    keras = lib.keras
    layers = keras.layers
    model = keras.Sequential([keras.Input((TIME, FEATURES)),
                              layers.LSTM(UNITS, return_sequences=True),
                              layers.LSTM(UNITS), layers.Dense(CLASSES)])
    model.set_weights([p.copy() for p in params])
    return model


def lstm_step(lib: Any, compiled: bool = True, params: list | None = None) -> Callable:
    """One training step of the LSTM model for TF-API module `lib`: `step(x, labels)` returns
    the loss; `compiled` wraps it in `lib.function`."""
    model = lstm_model(lib, lstm_data()["params"] if params is None else params)
    opt = lib.keras.optimizers.Adam(LR)
    loss_fn = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x: Any, labels: Any) -> Any:
        with lib.GradientTape() as tape:
            loss = loss_fn(labels, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return lib.function(step) if compiled else step


def torch_step(torch: Any, params: list | None = None) -> Callable:
    """The same model and step with torch.nn.LSTM (batch first), eager."""
    nn = torch.nn
    params = lstm_data()["params"] if params is None else params

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm1 = nn.LSTM(FEATURES, UNITS, batch_first=True)
            self.lstm2 = nn.LSTM(UNITS, UNITS, batch_first=True)
            self.dense = nn.Linear(UNITS, CLASSES)

        def forward(self, x: Any) -> Any:
            h, _ = self.lstm1(x)
            h, _ = self.lstm2(h)
            return self.dense(h[:, -1])

    model = Model()
    with torch.no_grad():  # Keras's (in, 4u) kernels transposed; its one bias as bias_ih
        for lstm, (k, r, b) in zip((model.lstm1, model.lstm2), (params[0:3], params[3:6])):
            lstm.weight_ih_l0.copy_(torch.from_numpy(k.T.copy()))
            lstm.weight_hh_l0.copy_(torch.from_numpy(r.T.copy()))
            lstm.bias_ih_l0.copy_(torch.from_numpy(b))
            lstm.bias_hh_l0.zero_()
        model.dense.weight.copy_(torch.from_numpy(params[6].T.copy()))
        model.dense.bias.copy_(torch.from_numpy(params[7]))
    opt = torch.optim.Adam(model.parameters(), LR, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()

    def step(x: Any, labels: Any) -> Any:
        opt.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        return loss

    return step


@contextlib.contextmanager
def _per_step_lstm(on: bool) -> Iterator[None]:
    """With `on`, tapeflow's LSTM layers run their per-step path instead of the fused op."""
    from tapeflow.keras.layers import rnn_cells
    fused = rnn_cells.LSTMCell._fused_ok
    if on:
        rnn_cells.LSTMCell._fused_ok = lambda self, *args: False
    try:
        yield
    finally:
        rnn_cells.LSTMCell._fused_ok = fused


def _first_call(name: str, run: Callable) -> Callable:
    """`run`, called once now: its first call's seconds (a tf.function's traces) printed."""
    start = time.perf_counter()
    run()
    print(f"  {name}: first call {time.perf_counter() - start:.2f} s")
    return run


def systems(per_step: bool = False, threads: int | None = None) -> dict:
    """name -> zero-argument callable running one step on that system's copy of the data."""
    data = lstm_data()
    x, labels = data["x"], data["labels"]
    out = {}
    import tapeflow
    tf_x, tf_y = tapeflow.constant(x), tapeflow.constant(labels)
    variants = [(False, "")] + ([(True, " per-step")] if per_step else [])
    for steps, suffix in variants:
        for compiled, kind in ((True, "tf.function"), (False, "eager")):
            step = lstm_step(tapeflow, compiled)

            def run(step: Callable = step, steps: bool = steps) -> Any:
                with _per_step_lstm(steps):
                    return step(tf_x, tf_y)
            name = f"tapeflow{suffix} {kind}"
            out[name] = _first_call(name, run)
    torch = _try_import("torch")
    if torch is not None:
        if threads:
            torch.set_num_threads(threads)
        px, py = torch.from_numpy(x), torch.from_numpy(labels.astype(np.int64))
        t_step = torch_step(torch)
        t_step(px, py)  # its lazy imports (triton) crash once TensorFlow is loaded
        out["PyTorch eager"] = lambda: t_step(px, py)
    else:
        print("PyTorch not installed: skipped")
    tf = _try_import("tensorflow")
    if tf is not None:
        if threads:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        tx, ty = tf.constant(x), tf.constant(labels)
        for compiled, name in ((True, "TensorFlow tf.function"), (False, "TensorFlow eager")):
            step = lstm_step(tf, compiled)
            out[name] = _first_call(name, lambda step=step: step(tx, ty))
    else:
        print("TensorFlow not installed: skipped")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--number", type=int, default=2, help="steps per timing")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between turns")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS and TensorFlow intra-op threads (default: theirs)")
    parser.add_argument("--per-step", action="store_true",
                        help="also tapeflow's per-step LSTM path")
    args = parser.parse_args()
    limits = contextlib.nullcontext()
    if args.threads:
        from threadpoolctl import threadpool_limits
        limits = threadpool_limits(args.threads)
    with limits:
        medians = interleaved(systems(args.per_step, args.threads), args.rounds, args.number,
                              args.pause)
    base = medians["tapeflow tf.function"]
    threads = f", {args.threads} thread(s)" if args.threads else ""
    print(f"2-layer LSTM step, adam, batch {BATCH}, {TIME} steps{threads}: median of "
          f"{args.rounds} rounds")
    for name, seconds in medians.items():
        print(f"  {name:24s} {seconds * 1e3:8.2f} ms   tapeflow tf.function / it: "
              f"{base / seconds:.2f}")


if __name__ == "__main__":
    main()
