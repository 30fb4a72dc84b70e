"""Newton's method with exact derivatives from tapes: a minimum and a nonlinear system.

1. The 10-dimensional Rosenbrock function, minimized by Newton's method with the exact
   Hessian (a `tape.jacobian` of the gradient, taken with nested tapes) and a backtracking
   line search, from the origin. The known minimum is x = (1, ..., 1); the printed error
   shrinks quadratically (its exponent doubles) in the last iterations. The tape's Hessian is
   also checked against SciPy's analytic `rosen_hess`.
2. The Bratu problem u'' + lam * exp(u) = 0 on (0, 1), u(0) = u(1) = 0, discretized by
   central differences on 100 interior points and solved by Newton's method with the
   Jacobian of the residual (`tape.jacobian`). Checked against the known solution
   u(x) = -2 log(cosh((x - 1/2) theta / 2) / cosh(theta / 4)), where theta solves
   theta = sqrt(2 lam) cosh(theta / 4) (found with SciPy), to the O(h^2) of the grid, and
   against SciPy's own root of the same discrete system.

Run: `python examples/newton.py` (a few seconds). The last line is the distance of Newton's
minimum from the known one and of the Bratu solution from SciPy's root.
"""

import math
import time

import numpy as np

import tapeflow as tf

from _plotting import save_plot  # examples/_plotting.py


def rosenbrock(x):
    """sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2; its minimum is 0 at x = (1, ..., 1)."""
    return tf.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def value_grad_hessian(f, x):
    """f(x), its gradient and its Hessian, all exact, by a tape inside a tape."""
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return y, g, outer.jacobian(g, x)


def newton_minimize(f, x0, known=None, iterations=60, tol=1e-10, log=print):
    """Newton's method with a backtracking (Armijo) line search, stopping when the gradient's
    norm is below `tol`. Returns (x, history): history holds (f, |gradient|, max |x - known|)
    per iteration; `known` is the true minimizer, if known (else the error is nan)."""
    x = tf.constant(x0, tf.float64)
    history = []
    for it in range(iterations):
        y, g, h = value_grad_hessian(f, x)
        gnorm = float(tf.norm(g))
        error = math.nan if known is None else float(np.abs(x.numpy() - known).max())
        history.append((float(y), gnorm, error))
        shown = "" if known is None else f"   max|x - x*| = {error:.1e}"
        log(f"  iter {it:2d}  f = {float(y):.3e}   |grad| = {gnorm:.1e}{shown}")
        if gnorm < tol:
            break
        step = tf.linalg.solve(h, -g[:, None])[:, 0]
        slope = float(tf.reduce_sum(step * g))
        if slope >= 0:  # the Hessian is not positive definite here: descend instead
            step, slope = -g, -gnorm ** 2
        t = 1.0
        while float(f(x + t * step)) > float(y) + 1e-4 * t * slope:
            t *= 0.5
        x = x + t * step
    return x.numpy(), history


def hessian_error(dim=10, points=5, seed=0):
    """Max relative error of the tape's Hessian against SciPy's analytic `rosen_hess`."""
    from scipy.optimize import rosen_hess
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(points):
        x = rng.uniform(-2, 2, dim)
        exact = rosen_hess(x)
        got = value_grad_hessian(rosenbrock, tf.constant(x))[2].numpy()
        worst = max(worst, np.abs(got - exact).max() / np.abs(exact).max())
    return float(worst)


def bratu_residual(u, lam):
    """Central-difference residual of u'' + lam exp(u) = 0 with zero boundary values."""
    n = u.shape[0]
    h = 1.0 / (n + 1)
    padded = tf.concat([tf.zeros([1], u.dtype), u, tf.zeros([1], u.dtype)], axis=0)
    return (padded[:-2] - 2.0 * padded[1:-1] + padded[2:]) / h ** 2 + lam * tf.exp(u)


def newton_solve(residual, u0, iterations=20, tol=1e-9, log=print):
    """Newton's method for residual(u) = 0 with the exact Jacobian; returns (u, norms)."""
    u = tf.constant(u0, tf.float64)
    norms = []
    for it in range(iterations):
        with tf.GradientTape() as tape:
            tape.watch(u)
            r = residual(u)
        norms.append(float(tf.norm(r)))
        log(f"  iter {it:2d}  |F(u)| = {norms[-1]:.3e}")
        if norms[-1] < tol:
            break
        u = u - tf.linalg.solve(tape.jacobian(r, u), r[:, None])[:, 0]
    return u.numpy(), norms


def bratu_exact(x, lam):
    """The lower-branch analytic solution of the continuous Bratu problem."""
    from scipy.optimize import brentq
    theta = brentq(lambda t: t - math.sqrt(2 * lam) * math.cosh(t / 4), 0.0, 4.0)
    return -2.0 * np.log(np.cosh((x - 0.5) * theta / 2) / np.cosh(theta / 4))


def bratu_scipy(n, lam):
    """SciPy's root of the same discrete system, from the same start (the independent solve)."""
    from scipy.optimize import root
    h = 1.0 / (n + 1)

    def residual(u):
        p = np.concatenate([[0.0], u, [0.0]])
        return (p[:-2] - 2 * p[1:-1] + p[2:]) / h ** 2 + lam * np.exp(u)

    return root(residual, np.zeros(n), tol=1e-13).x


def run_rosenbrock(dim=10, log=print):
    """Newton from the origin; returns (max |x - 1| at the end, history)."""
    x, history = newton_minimize(rosenbrock, np.zeros(dim), known=np.ones(dim), log=log)
    return float(np.abs(x - 1.0).max()), history


def run_bratu(n=100, lam=1.0, log=print):
    """Returns (max |u - exact|, max |u - SciPy's root|, residual norms per iteration)."""
    u, norms = newton_solve(lambda u: bratu_residual(u, lam), np.zeros(n), log=log)
    grid = np.arange(1, n + 1) / (n + 1)
    return (float(np.abs(u - bratu_exact(grid, lam)).max()),
            float(np.abs(u - bratu_scipy(n, lam)).max()), norms)


def main() -> None:
    start = time.perf_counter()
    print("Newton on the 10-D Rosenbrock function from the origin (minimum x* = 1):")
    ros_err, ros_history = run_rosenbrock()
    print(f"  tape Hessian vs SciPy's rosen_hess: max relative error {hessian_error():.1e}")
    print("Newton on the Bratu problem, lam = 1, 100 interior points:")
    exact_err, scipy_err, bratu_norms = run_bratu()
    print(f"  max |u - analytic solution| = {exact_err:.2e} (the grid's O(h^2) error)")

    def draw(plt):
        _, grads, errors = zip(*ros_history)
        plt.subplot(1, 2, 1)
        plt.semilogy(errors, "o-", label="max |x - x*|")
        plt.semilogy(grads, "s-", label="|gradient|")
        plt.title("10-D Rosenbrock (exact Hessian)")
        plt.xlabel("Newton iteration")
        plt.legend()
        plt.subplot(1, 2, 2)
        plt.semilogy(bratu_norms, "o-", label="|F(u)|")
        plt.xticks(range(len(bratu_norms)))
        plt.title("Bratu problem (exact Jacobian)")
        plt.xlabel("Newton iteration")
        plt.legend()

    save_plot("newton.png", draw, figsize=(10, 4))  # the last iterate's exact 0 is off-scale
    print(f"({time.perf_counter() - start:.1f}s)")
    print(f"Rosenbrock minimum error {ros_err:.1e}; Bratu vs SciPy's root {scipy_err:.1e}")


if __name__ == "__main__":
    main()
