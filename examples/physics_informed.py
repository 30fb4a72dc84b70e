"""A physics-informed neural network: a 1-D boundary value problem solved by a network.

The ODE u''(x) = -pi^2 sin(pi x) on (0, 1) with u(0) = u(1) = 0 has the solution
u = sin(pi x). The network never sees that solution: its trial function
u(x) = x (1 - x) N(x) meets the boundary conditions by construction, and the loss is the mean
squared ODE residual u'' + pi^2 sin(pi x) at 64 collocation points. u'' comes from two nested
`GradientTape`s around the network, and a third (outer) tape takes the loss's gradient with
respect to the weights, all inside one `tf.function` training step run by Adam.

Run: `python examples/physics_informed.py` (a few seconds). It prints the residual loss
falling; the last line is the maximum error against sin(pi x) on a fine grid.
"""

import math
import time

import numpy as np

import tapeflow as tf
from tapeflow import keras

from _plotting import save_plot  # examples/_plotting.py


def make_network(width=32, seed=0):
    """N(x): 1 -> width -> width -> 1 with tanh, smooth enough to differentiate twice."""
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input(shape=(1,)),
                             keras.layers.Dense(width, activation="tanh"),
                             keras.layers.Dense(width, activation="tanh"),
                             keras.layers.Dense(1)])


def trial(network, x):
    """u(x) = x (1 - x) N(x): zero at both ends whatever the weights."""
    return x * (1.0 - x) * network(x)


def residual(network, x):
    """u''(x) + pi^2 sin(pi x), with u'' by two nested tapes (x is [n, 1]; each u(x_i)
    depends only on x_i, so the gradient of the sum is the pointwise derivative)."""
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = trial(network, x)
        du = inner.gradient(u, x)
    d2u = outer.gradient(du, x)
    return d2u + math.pi ** 2 * tf.sin(math.pi * x)


def train(steps=3000, points=64, learning_rate=0.003, seed=0, log_every=500, log=print):
    """Adam on the mean squared residual; returns (network, losses)."""
    network = make_network(seed=seed)
    x = tf.constant(np.linspace(0.0, 1.0, points)[:, None], tf.float32)
    optimizer = keras.optimizers.Adam(learning_rate)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(residual(network, x)))
        grads = tape.gradient(loss, network.trainable_variables)
        optimizer.apply_gradients(zip(grads, network.trainable_variables))
        return loss

    losses = []
    for it in range(steps):
        losses.append(float(step()))
        if it % log_every == 0 or it == steps - 1:
            log(f"  step {it:5d}  mean squared residual {losses[-1]:.3e}")
    return network, losses


def max_error(network, points=1001):
    """max |u(x) - sin(pi x)| on a grid finer than the collocation points."""
    x = np.linspace(0.0, 1.0, points)[:, None].astype(np.float32)
    u = trial(network, tf.constant(x)).numpy()
    return float(np.abs(u - np.sin(np.pi * x)).max())


def main() -> None:
    start = time.perf_counter()
    print("u'' = -pi^2 sin(pi x), u(0) = u(1) = 0, by a 1-32-32-1 tanh network:")
    network, losses = train()
    error = max_error(network)

    def draw(plt):
        plt.semilogy(losses)
        plt.xlabel("Adam step")
        plt.ylabel("mean squared ODE residual")

    save_plot("physics_informed.png", draw)
    print(f"({time.perf_counter() - start:.1f}s)")
    print(f"max |u - sin(pi x)| on 1001 points: {error:.1e}")


if __name__ == "__main__":
    main()
