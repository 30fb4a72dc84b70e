"""Memory stays flat over many tape-and-gradient steps, and a non-persistent tape frees its
intermediates once `gradient` has run."""

import gc
import tracemalloc
import weakref

import numpy as np

import tapeflow as tf


def _model():
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.normal(size=(4, 8)).astype(np.float32))
    b1 = tf.Variable(np.zeros(8, np.float32))
    w2 = tf.Variable(rng.normal(size=(8, 1)).astype(np.float32))
    x = tf.constant(rng.normal(size=(16, 4)).astype(np.float32))
    return [w1, b1, w2], x


def _step(variables, x):
    w1, b1, w2 = variables
    with tf.GradientTape() as tape:
        h = tf.maximum(tf.matmul(x, w1) + b1, 0.0)  # relu from math_ops
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - 1.0))
    grads = tape.gradient(loss, variables)
    for v, g in zip(variables, grads):
        v.assign_sub(0.001 * g)


def test_memory_flat_over_10000_steps():
    variables, x = _model()
    for _ in range(100):  # warm caches
        _step(variables, x)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(1000):
            _step(variables, x)
        gc.collect()
        after_1000, _ = tracemalloc.get_traced_memory()
        for _ in range(9000):
            _step(variables, x)
        gc.collect()
        after_10000, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A leak of even one small tensor per step would add far more than this.
    assert after_10000 - after_1000 < 64 * 1024, (after_1000, after_10000)


def test_non_persistent_tape_frees_intermediates():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        intermediate = tf.sin(x) * 2.0
        loss = tf.reduce_sum(intermediate * intermediate)
    ref = weakref.ref(intermediate)
    grad = tape.gradient(loss, x)
    del intermediate, loss
    gc.collect()
    assert ref() is None
    np.testing.assert_allclose(grad.numpy(), 8 * np.sin([1.0, 2.0, 3.0]) * np.cos([1.0, 2.0, 3.0]),
                               rtol=1e-5)


def test_persistent_tape_keeps_intermediates_until_deleted():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        intermediate = tf.exp(x)
        loss = tf.reduce_sum(intermediate)
    ref = weakref.ref(intermediate)
    tape.gradient(loss, x)
    del intermediate, loss
    gc.collect()
    assert ref() is not None  # a second gradient call may still need it
    del tape
    gc.collect()
    assert ref() is None


def test_compiled_function_frees_each_intermediate_after_its_last_use():
    # A chain of eight 256 x 256 products in tf.function: a compiled run holds the input, the
    # product being made and the one it reads, not all eight intermediates until it returns.
    @tf.function
    def chain(x):
        for _ in range(8):
            x = tf.matmul(x, x) * 0.01
        return tf.reduce_sum(x)

    x = tf.constant(np.eye(256, dtype=np.float32))
    chain(x)   # trace and compile outside the measurement
    gc.collect()
    tracemalloc.start()
    try:
        chain(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    matrix = 256 * 256 * 4
    assert peak < 4 * matrix, peak / matrix
