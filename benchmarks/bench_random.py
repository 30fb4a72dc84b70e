"""Random numbers drawn as TensorFlow draws them (Philox4x32-10 in NumPy) beside NumPy's own
generator and, where it is installed, TensorFlow's kernels, as ratios in one run; and the time
to build a large Keras model's weights.

Run: `PYTHONPATH=src python benchmarks/bench_random.py [--quick]`. TensorFlow is timed only when
the interpreter can import it (e.g. a throwaway venv with tensorflow-cpu); it is never a
dependency.
"""

from __future__ import annotations

import os
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402

try:
    import tensorflow as real_tf
except ImportError:
    real_tf = None


def best(fn, number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main(quick: bool = False) -> None:
    repeat = 3 if quick else 7
    rng = np.random.default_rng(0)
    shape = (1000, 1000)
    rows = [
        ("normal float32", lambda: rng.standard_normal(shape, dtype=np.float32),
         lambda lib: lib.random.normal(shape)),
        ("uniform float32", lambda: rng.random(shape, dtype=np.float32),
         lambda lib: lib.random.uniform(shape)),
        ("normal float64", lambda: rng.standard_normal(shape),
         lambda lib: lib.random.normal(shape, dtype=lib.float64)),
    ]
    print(f"{shape[0]} x {shape[1]} draws (min of {repeat}), as multiples of NumPy's time:")
    for label, numpy_fn, draw in rows:
        t_numpy, t_tapeflow = best(numpy_fn, 3, repeat), best(lambda draw=draw: draw(tf), 3, repeat)
        line = (f"  {label:16s} NumPy {t_numpy * 1e3:6.1f} ms   tapeflow {t_tapeflow * 1e3:6.1f} ms"
                f" {t_tapeflow / t_numpy:4.1f}x")
        if real_tf is not None:
            t_tf = best(lambda draw=draw: draw(real_tf).numpy(), 3, repeat)
            line += f"   TensorFlow {t_tf * 1e3:6.1f} ms {t_tf / t_numpy:4.1f}x"
        print(line)
    keras = tf.keras
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model = keras.Sequential([keras.layers.Dense(1024, activation="relu"),
                                  keras.layers.Dense(1024, activation="relu"),
                                  keras.layers.Dense(10)])
        model.build((None, 784))
        times.append(time.perf_counter() - start)
    print(f"building a 784-1024-1024-10 Keras model's weights: {min(times) * 1e3:.1f} ms")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
