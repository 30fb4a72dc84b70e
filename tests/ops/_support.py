"""Helpers shared by the op tests (tests/ops is on sys.path under pytest, so `from _support
import grad`)."""

import numpy as np

import tapeflow as tf


def grads(f, *xs):
    """The gradients of `f(*xs)` with respect to each of `xs` (taken as float64 constants),
    as NumPy arrays."""
    xs = [tf.constant(np.array(x, np.float64)) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


def grad(f, x):
    """The gradient of `f(x)` with respect to `x` (taken as a float64 constant), as NumPy."""
    return grads(f, x)[0]
