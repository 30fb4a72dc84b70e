"""examples/molecular_forces.py: tape forces of a Lennard-Jones cluster against the analytic
pair force, BFGS to LJ38's known minimum, and velocity Verlet's second-order energy error."""

import numpy as np


def test_tape_forces_match_the_analytic_force(load_example):
    md = load_example("molecular_forces")
    assert md.force_error(seed=1) < 1e-12  # float64 rounding of the same sums: measured 6e-16


def test_bfgs_with_tape_gradients_finds_the_lj38_global_minimum(load_example):
    md = load_example("molecular_forces")
    result = md.relax(md.truncated_octahedron())
    # The Cambridge Cluster Database lists -173.928427 (6 decimals); BFGS gets -173.9284266.
    assert abs(result.fun - md.LJ38_MINIMUM) < 2e-6
    assert np.abs(result.jac).max() < 1e-4  # a stationary point: the forces vanish


def test_velocity_verlet_energy_error_is_second_order_in_dt(load_example):
    md = load_example("molecular_forces")
    x = md.truncated_octahedron()
    v = md.thermal_velocities(len(x), temperature=0.1)
    drifts = []
    for dt, steps in ((0.004, 25), (0.002, 50)):  # the same time span, 0.1
        totals = md.velocity_verlet(x, v, steps, dt)[2].numpy()
        drifts.append(np.abs(totals - totals[0]).max())
    # Verlet's energy error is O(dt^2): halving dt divides it by ~4 (measured 4.01 from the
    # lattice start). Forces that are not -dE/dx break that relation and the energy drifts.
    assert 3.0 < drifts[0] / drifts[1] < 5.0, drifts
    assert drifts[1] < 5e-3
