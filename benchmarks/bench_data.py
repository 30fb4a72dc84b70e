"""tf.data input pipelines: one epoch of
`from_tensor_slices((x, y)).shuffle(10000).batch(128).prefetch(AUTOTUNE)` over 60,000 x 784
float32 examples beside the same shuffling and batching by hand in NumPy and, where it is
installed, TensorFlow's own tf.data, as ratios in one run; the peak memory one tapeflow epoch
allocates (tracemalloc), which stays far below the data's size because only indices are
shuffled and each batch is gathered once; and `map(f, num_parallel_calls=AUTOTUNE)` over a
NumPy-heavy `f` beside the sequential map.

Run: `PYTHONPATH=src python benchmarks/bench_data.py [--quick]`. TensorFlow is timed only when
the interpreter can import it (e.g. a throwaway venv with tensorflow-cpu); it is never a
dependency.
"""

from __future__ import annotations

import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tapeflow as tf  # noqa: E402

try:
    import tensorflow as real_tf
except ImportError:
    real_tf = None

N, FEATURES, BUFFER, BATCH = 60_000, 784, 10_000, 128


def best_of(fn, repeat: int) -> float:
    """The fastest of `repeat` runs of `fn()`, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def pipeline(lib, x: np.ndarray, y: np.ndarray):
    ds = lib.data.Dataset.from_tensor_slices((x, y)).shuffle(BUFFER).batch(BATCH)
    prefetch = getattr(ds, "prefetch", None)    # tapeflow's may not be there yet
    return prefetch(lib.data.AUTOTUNE) if prefetch is not None else ds


def epoch(ds) -> int:
    """One pass over `ds`, touching each batch; the number of examples seen."""
    seen = 0
    for _xb, yb in ds:
        seen += int(yb.shape[0])
    return seen


def by_hand(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> int:
    """The same epoch in NumPy: a permutation, then one fancy index per batch."""
    order, seen = rng.permutation(len(x)), 0
    for start in range(0, len(x), BATCH):
        idx = order[start:start + BATCH]
        _xb, yb = x[idx], y[idx]
        seen += len(yb)
    return seen


def by_hand_in_tf_order(x: np.ndarray, y: np.ndarray) -> int:
    """The same epoch in NumPy, in TensorFlow's buffered shuffle order (computed by
    tapeflow's shuffle_ops) instead of a full permutation: what the exact order costs."""
    from tapeflow.data.shuffle_ops import Words, shuffled_indices
    order = np.concatenate(list(shuffled_indices(len(x), BUFFER, Words(1, 2))))
    seen = 0
    for start in range(0, len(x), BATCH):
        idx = order[start:start + BATCH]
        _xb, yb = x[idx], y[idx]
        seen += len(yb)
    return seen


def peak_epoch_memory(ds) -> int:
    """Peak bytes allocated during one epoch of `ds` (tracemalloc sees NumPy's buffers)."""
    tracemalloc.start()
    try:
        epoch(ds)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def shuffle_batch(repeat: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, FEATURES), dtype=np.float32)
    y = rng.integers(0, 10, N)
    ds = pipeline(tf, x, y)
    assert epoch(ds) == N and by_hand(x, y, rng) == N
    t_numpy = best_of(lambda: by_hand(x, y, rng), repeat)
    t_ordered = best_of(lambda: by_hand_in_tf_order(x, y), repeat)
    t_tapeflow = best_of(lambda: epoch(ds), repeat)
    print(f"one epoch of shuffle({BUFFER}).batch({BATCH}).prefetch(AUTOTUNE) over {N} x "
          f"{FEATURES} float32 (min of {repeat}):")
    print(f"  NumPy by hand {t_numpy * 1e3:7.1f} ms   (a permutation, one fancy index per batch)")
    print(f"  NumPy by hand {t_ordered * 1e3:7.1f} ms   (in TF's buffered shuffle order)")
    print(f"  tapeflow      {t_tapeflow * 1e3:7.1f} ms  {t_tapeflow / t_numpy:4.2f}x the first, "
          f"{t_tapeflow / t_ordered:4.2f}x the second")
    if real_tf is not None:
        tf_ds = pipeline(real_tf, x, y)
        epoch(tf_ds)
        t_tf = best_of(lambda: epoch(tf_ds), repeat)
        print(f"  TensorFlow    {t_tf * 1e3:7.1f} ms  {t_tf / t_numpy:4.2f}x NumPy   "
              f"(tapeflow {t_tf / t_tapeflow:4.1f}x faster)")
    peak = peak_epoch_memory(ds)
    print(f"  tapeflow's peak allocation in one epoch: {peak / 2**20:.1f} MiB "
          f"(the data: {x.nbytes / 2**20:.0f} MiB; one batch: "
          f"{BATCH * FEATURES * 4 / 2**20:.2f} MiB)")


def heavy(x):
    """A NumPy-heavy element function: matrix products dominate."""
    for _ in range(4):
        x = tf.matmul(x, x) * 0.01
    return tf.reduce_sum(x)


def parallel_map(repeat: int) -> None:
    elements = np.random.default_rng(1).standard_normal((64, 256, 256), dtype=np.float32)
    base = tf.data.Dataset.from_tensor_slices(elements)
    sequential = base.map(heavy)
    parallel = base.map(heavy, num_parallel_calls=tf.data.AUTOTUNE)
    drain = lambda ds: [None for _ in ds]  # noqa: E731
    drain(sequential), drain(parallel)
    t_seq, t_par = best_of(lambda: drain(sequential), repeat), best_of(lambda: drain(parallel),
                                                                      repeat)
    print(f"map over 64 elements of 256 x 256 (4 matmuls each), {os.cpu_count()} CPUs:")
    print(f"  sequential {t_seq * 1e3:7.1f} ms   num_parallel_calls=AUTOTUNE "
          f"{t_par * 1e3:7.1f} ms   {t_seq / t_par:4.2f}x faster")


def fit_epochs(repeat: int) -> None:
    """Keras fit for one epoch of a 784-128-10 MLP on the pipeline beside fit on the arrays,
    interleaved (one warm-up epoch each)."""
    keras = tf.keras
    rng = np.random.default_rng(2)
    x = rng.standard_normal((N, FEATURES), dtype=np.float32)
    y = rng.integers(0, 10, N)

    def model():
        m = keras.Sequential([keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)])
        m.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return m

    runs = {"arrays": (model(), lambda m: m.fit(x, y, batch_size=BATCH, verbose=0)),
            "dataset": (model(), lambda m: m.fit(pipeline(tf, x, y), verbose=0, shuffle=False))}
    best = {name: float("inf") for name in runs}
    for round_ in range(repeat + 1):
        for name, (m, fit) in runs.items():
            start = time.perf_counter()
            fit(m)
            if round_:
                best[name] = min(best[name], time.perf_counter() - start)
    print(f"fit, one epoch of a 784-128-10 MLP (min of {repeat}): arrays "
          f"{best['arrays']:.3f} s, the pipeline {best['dataset']:.3f} s "
          f"({best['dataset'] / best['arrays']:4.2f}x)")


def main(quick: bool = False) -> None:
    repeat = 2 if quick else 5
    shuffle_batch(repeat)
    parallel_map(repeat)
    fit_epochs(2 if quick else 3)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
