"""examples/newton.py: Newton with tape Hessians and Jacobians against known minima and roots."""


def quiet(*_):
    pass


def test_rosenbrock_newton_reaches_the_known_minimum_quadratically(load_example):
    newton = load_example("newton")
    error, history = newton.run_rosenbrock(dim=10, log=quiet)
    assert error < 1e-10  # x* = 1 exactly; SciPy's rosen_hess gives the same 26 iterations
    assert history[-1][2] == error  # the per-iteration error the plot shows ends at x
    grads = [g for _, g, _ in history if g > 0]
    # Quadratic convergence: near the end |g_{k+1}| <= C |g_k|^2 (measured C ~ 3 for
    # 5.3e-5 -> 8.8e-9); a wrong Hessian converges linearly at best and fails this.
    assert grads[-1] <= 10 * grads[-2] ** 2


def test_tape_hessian_matches_scipy_rosen_hess(load_example):
    newton = load_example("newton")
    assert newton.hessian_error(dim=6, points=3) < 1e-13  # float64 rounding: measured 2e-16


def test_bratu_newton_matches_scipy_root_and_the_analytic_solution(load_example):
    newton = load_example("newton")
    coarse, coarse_scipy, norms = newton.run_bratu(n=20, log=quiet)
    fine, fine_scipy, _ = newton.run_bratu(n=40, log=quiet)
    assert max(coarse_scipy, fine_scipy) < 1e-10  # the same discrete root as SciPy's solver
    assert len(norms) <= 6  # Newton from u = 0 converges in 4 iterations
    # The central-difference scheme is second order: halving h (n + 1 = 21 -> 41) divides
    # the error against the analytic solution by (41/21)^2 = 3.8.
    assert 3.3 < coarse / fine < 4.3, coarse / fine
