"""Forces as the negative gradient of a potential: a 38-atom Lennard-Jones cluster.

The energy E = sum_{i<j} 4 (r_ij^-12 - r_ij^-6) (reduced units) is written once; the forces
are `-tape.gradient(E, x)`. The program

1. checks the tape's forces against the analytic pair force 24 (2 r^-14 - r^-8) (x_i - x_j)
   on a perturbed cluster;
2. relaxes the geometry with SciPy's BFGS (`scipy.optimize.minimize(jac=True)`), fed the
   energy and tape gradient, from the fcc truncated octahedron: it reaches LJ38's known
   global minimum E = -173.928427 (the Cambridge Cluster Database's value);
3. runs 500 steps of velocity-Verlet dynamics (dt = 0.002) at a low temperature inside a
   `tf.function`, printing the total energy's drift, which a wrong force would make large.

Run: `python examples/molecular_forces.py` (a few seconds). The last line is the relaxed
energy beside the known minimum, and the largest force error against the analytic force.
"""

import itertools
import time

import numpy as np

import tapeflow as tf

from _plotting import save_plot  # examples/_plotting.py

LJ38_MINIMUM = -173.928427  # Cambridge Cluster Database, global minimum of LJ38


def truncated_octahedron():
    """The 38 fcc sites with odd coordinate sum, |x|+|y|+|z| <= 3 and max |.| <= 2, scaled so
    nearest neighbours sit at the pair potential's minimum 2^(1/6)."""
    grid = range(-2, 3)
    sites = np.array([p for p in itertools.product(grid, grid, grid)
                      if sum(p) % 2 == 1 and sum(map(abs, p)) <= 3], dtype=np.float64)
    return sites * 2 ** (1 / 6) / np.sqrt(2)


def pair_indices(n):
    """Row and column of each pair i < j (so no atom meets itself at distance zero)."""
    i, j = np.triu_indices(n, k=1)
    return tf.constant(i), tf.constant(j)


def lj_energy(x, pairs):
    """Total Lennard-Jones energy of positions x [n, 3], over the pairs (i < j)."""
    diff = tf.gather(x, pairs[0]) - tf.gather(x, pairs[1])
    inv6 = 1.0 / tf.reduce_sum(diff * diff, axis=1) ** 3
    return tf.reduce_sum(4.0 * (inv6 * inv6 - inv6))


def tape_forces(x, pairs):
    """(energy, forces = -dE/dx) by one tape. The gradient through tf.gather is
    IndexedSlices (as in TensorFlow); convert_to_tensor sums it into a dense [n, 3]."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        energy = lj_energy(x, pairs)
    return energy, -tf.convert_to_tensor(tape.gradient(energy, x))


def analytic_forces(x):
    """The textbook pair force in NumPy, the independent answer: F_i = sum_j 24 (2 r^-14 -
    r^-8) (x_i - x_j)."""
    diff = x[:, None, :] - x[None, :, :]
    r2 = (diff ** 2).sum(-1) + np.eye(len(x))  # the diagonal's diff is 0; avoid 1/0
    scale = 24.0 * (2.0 / r2 ** 7 - 1.0 / r2 ** 4) * (1 - np.eye(len(x)))
    return (scale[..., None] * diff).sum(1)


def force_error(seed=0, jitter=0.05):
    """Max |tape force - analytic force| / max |analytic force| on a perturbed cluster."""
    x = truncated_octahedron()
    x = x + np.random.default_rng(seed).normal(scale=jitter, size=x.shape)
    _, got = tape_forces(tf.constant(x), pair_indices(len(x)))
    exact = analytic_forces(x)
    return float(np.abs(got.numpy() - exact).max() / np.abs(exact).max())


def relax(x0):
    """BFGS on the tape's energy and gradient; returns SciPy's OptimizeResult."""
    from scipy.optimize import minimize
    from threadpoolctl import threadpool_limits
    pairs = pair_indices(len(x0))
    energy_and_grad = tf.function(lambda x: tape_forces(x, pairs))

    def fun(flat):
        energy, forces = energy_and_grad(tf.constant(flat.reshape(-1, 3)))
        return float(energy), -forces.numpy().ravel()

    # BFGS's 114 x 114 updates are too small for BLAS threads, which on a busy machine make
    # them ~15x slower: one thread.
    with threadpool_limits(1):
        return minimize(fun, x0.ravel(), jac=True, method="BFGS", options={"gtol": 1e-8})


def velocity_verlet(x, v, steps, dt):
    """`steps` velocity-Verlet steps (unit masses) in one tf.function; returns the final
    positions and velocities and the total energy after every step."""
    pairs = pair_indices(x.shape[0])

    @tf.function
    def run(x, v):
        energy, f = tape_forces(x, pairs)
        totals = tf.TensorArray(tf.float64, size=steps)
        for step in tf.range(steps):
            v_half = v + 0.5 * dt * f
            x = x + dt * v_half
            energy, f = tape_forces(x, pairs)
            v = v_half + 0.5 * dt * f
            totals = totals.write(step, energy + 0.5 * tf.reduce_sum(v * v))
        return x, v, totals.stack()

    return run(tf.constant(x), tf.constant(v))


def thermal_velocities(n, temperature, seed=0):
    """Maxwell-Boltzmann velocities (unit masses) with no net momentum."""
    v = np.random.default_rng(seed).normal(scale=np.sqrt(temperature), size=(n, 3))
    return v - v.mean(0)


def main() -> None:
    start = time.perf_counter()
    err = force_error()
    print(f"tape forces vs analytic Lennard-Jones forces: max relative error {err:.1e}")

    result = relax(truncated_octahedron())
    x = result.x.reshape(-1, 3)
    gnorm = np.abs(result.jac).max()
    print(f"BFGS relaxation: {result.nit} iterations, {result.nfev} energy+gradient calls, "
          f"E = {result.fun:.6f}, max |force| = {gnorm:.1e}")

    steps, dt = 500, 0.002
    v0 = thermal_velocities(len(x), temperature=0.1)
    _, _, totals = velocity_verlet(x, v0, steps, dt)
    totals = totals.numpy()
    print(f"velocity Verlet, {steps} steps of dt = {dt} at T = 0.1: total energy "
          f"{totals[0]:.6f} -> {totals[-1]:.6f}, max drift "
          f"{np.abs(totals - totals[0]).max():.1e}")

    def draw(plt):
        plt.plot(np.arange(1, steps + 1) * dt, totals - totals[0])
        plt.xlabel("time (reduced units)")
        plt.ylabel("total energy - initial")
        plt.title("LJ38 velocity Verlet energy drift")

    save_plot("molecular_forces.png", draw)
    print(f"({time.perf_counter() - start:.1f}s)")
    print(f"relaxed energy {result.fun:.6f} (known LJ38 minimum {LJ38_MINIMUM}); "
          f"force error {err:.1e}")


if __name__ == "__main__":
    main()
