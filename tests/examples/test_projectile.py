"""examples/projectile.py: gradient descent through an RK4 simulation against SciPy's shooting
solution of the same drag problem."""

import math


def test_gradient_descent_through_rk4_matches_the_shooting_solution(load_example):
    projectile = load_example("projectile")
    angle, speed, misses = projectile.aim(iterations=50, steps=100, log=lambda *_: None)
    ref_angle, ref_speed = projectile.shooting_solution()
    # With 100 RK4 steps (dt = 0.04 s) the discretization error is ~1e-8 (measured: 5e-9 deg,
    # 8e-9 m/s from solve_ivp at rtol 1e-12); a wrong gradient through the loop would stall
    # gradient descent metres away or send it elsewhere.
    assert misses[-1] < 1e-6 and misses[0] > 30
    assert all(b < a for a, b in zip(misses, misses[1:11]))  # descent, from the first step
    assert abs(math.degrees(angle - ref_angle)) < 1e-6
    assert abs(speed - ref_speed) < 1e-6
