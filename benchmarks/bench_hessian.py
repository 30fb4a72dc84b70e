"""Hessian of f(x) = sum(sin(x) * sum(x**2)) for 100 float32 values, several ways, one run.

Reports milliseconds per Hessian and ratios to tapeflow's vectorized nested-tape jacobian
(target: under 5 ms here; for scale, JAX eager jax.hessian ~11 ms, TF nested-tape jacobian
~97 ms on this machine). Peers run only where installed. Not a test: no assertions on time.

    PYTHONPATH=src python3 benchmarks/bench_hessian.py
"""

from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402
from tapeflow.autodiff import hessian  # noqa: E402

N = 100


def f(x):
    return tf.reduce_sum(tf.sin(x) * tf.reduce_sum(x ** 2))


def nested_tapes(x, use_pfor=True):
    with tf.GradientTape(persistent=not use_pfor) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x, experimental_use_pfor=use_pfor)


def numpy_floor(x):
    # Hand-written Hessian: H = diag(-sin x) s + 2 (cos x) x^T + 2 x (cos x)^T + 2 sum(sin x) I
    s = np.sum(x * x)
    c = np.cos(x)
    return (np.diag(-np.sin(x) * s) + 2 * np.outer(c, x) + 2 * np.outer(x, c)
            + 2 * np.sum(np.sin(x)) * np.eye(x.size, dtype=x.dtype))


def _time(fn, number: int) -> float:
    fn()
    best = min(timeit.repeat(fn, number=number, repeat=3))
    return best / number * 1e3


def main() -> None:
    xv = np.linspace(-1.0, 1.0, N).astype(np.float32)
    x = tf.constant(xv)
    reference = nested_tapes(x).numpy()
    assert np.allclose(reference, numpy_floor(xv), rtol=1e-4, atol=1e-4)
    results = {
        "numpy (hand-written)": _time(lambda: numpy_floor(xv), 200),
        "tapeflow nested tapes, vectorized jacobian": _time(lambda: nested_tapes(x), 50),
        "tapeflow.autodiff.hessian": _time(lambda: hessian(f, x), 50),
        "tapeflow nested tapes, loop jacobian (pfor=False)":
            _time(lambda: nested_tapes(x, use_pfor=False), 3),
    }
    try:
        import jax
        import jax.numpy as jnp
        jf = jax.hessian(lambda v: jnp.sum(jnp.sin(v) * jnp.sum(v ** 2)))
        xj = jnp.asarray(xv)
        results["jax.hessian (eager)"] = _time(lambda: jf(xj).block_until_ready(), 10)
    except ImportError:
        pass
    base = results["tapeflow nested tapes, vectorized jacobian"]
    print(f"Hessian of sum(sin(x) * sum(x**2)), x: {N} float32")
    for name, ms in results.items():
        print(f"  {name:50s} {ms:9.3f} ms   x{ms / base:7.2f}")


if __name__ == "__main__":
    main()
