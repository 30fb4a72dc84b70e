"""examples/black_scholes_greeks.py: autodiff Greeks against the closed forms (SciPy's norm)."""


def test_greeks_match_closed_form(load_example):
    bs = load_example("black_scholes_greeks")
    errors = bs.max_relative_errors(n=500, seed=3)
    assert len(errors) == 18  # price, 7 Greeks and forward-mode vega, for calls and puts
    # float64 gives ~1e-13; vanna and volga reach ~2e-11 where d2 crosses zero (cancellation
    # in the closed form itself). 1e-9 keeps that margin and still catches any wrong rule,
    # whose error would be O(1).
    worst = max(errors, key=errors.get)
    assert errors[worst] < 1e-9, (worst, errors[worst])

def test_asian_pathwise_greeks_agree_with_finite_differences(load_example):
    bs = load_example("black_scholes_greeks")
    mc = bs.asian_greeks_vs_fd(paths=2000, steps=20)
    # On common random numbers the central difference differs from the pathwise estimate only
    # by O(h^2) and the few paths whose average crosses the strike within h: measured ~1e-5
    # of delta and ~1e-3 of vega, far below one standard error (~0.01 and ~1). A wrong
    # gradient rule on the path (cumsum, exp, relu, the broadcast of spot) misses by O(1).
    assert abs(mc["delta"] - mc["fd_delta"]) < 0.1 * mc["delta_se"]
    assert abs(mc["vega"] - mc["fd_vega"]) < 0.1 * mc["vega_se"]
    assert 0.4 < mc["delta"] < 0.7 and mc["vega"] > 0
