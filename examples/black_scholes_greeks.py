"""Black-Scholes Greeks by automatic differentiation, checked against the closed forms.

Prices a batch of 10,000 European calls and puts in float64 and takes their Greeks with
`tf.GradientTape` (delta, vega, theta, rho), nested tapes (gamma, vanna, volga) and
`tf.autodiff.ForwardAccumulator` (vega again, in forward mode). Each is printed beside the
closed-form Greek with the maximum relative error over the batch (below 1e-5 is the target;
float64 gives about 1e-13). Then a Monte Carlo arithmetic-average Asian call: pathwise delta
and vega (the tape differentiates through every simulated path) with their standard errors,
beside central finite differences on the same random numbers.

Run: `python examples/black_scholes_greeks.py` (under 10 s). The last line is the largest
relative error of any Greek over the batch.
"""

import math
import time

import numpy as np

import tapeflow as tf

from _plotting import save_plot  # examples/_plotting.py

SQRT2 = math.sqrt(2.0)


def norm_cdf(x):
    """The standard normal CDF, differentiable to any order (erfc's gradient is a tapeflow op)."""
    return 0.5 * tf.math.erfc(-x / SQRT2)


def bs_price(spot, strike, expiry, rate, vol, call=True):
    """Black-Scholes price of a European call (or put) on a non-dividend-paying stock."""
    sd = vol * tf.sqrt(expiry)
    d1 = (tf.math.log(spot / strike) + (rate + 0.5 * vol * vol) * expiry) / sd
    d2 = d1 - sd
    discount = strike * tf.exp(-rate * expiry)
    if call:
        return spot * norm_cdf(d1) - discount * norm_cdf(d2)
    return discount * norm_cdf(-d2) - spot * norm_cdf(-d1)


def closed_form_greeks(S, K, T, r, v, call=True):
    """The textbook Greeks, in NumPy (the independent answer). Theta is -dV/dT (per year)."""
    from scipy.stats import norm
    sd = v * np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * v * v) * T) / sd
    d2 = d1 - sd
    pdf, disc = norm.pdf(d1), K * np.exp(-r * T)
    sign = 1.0 if call else -1.0
    return {
        "price": sign * (S * norm.cdf(sign * d1) - disc * norm.cdf(sign * d2)),
        "delta": norm.cdf(d1) if call else norm.cdf(d1) - 1.0,
        "gamma": pdf / (S * sd),
        "vega": S * pdf * np.sqrt(T),
        "theta": -S * pdf * v / (2 * np.sqrt(T)) - sign * r * disc * norm.cdf(sign * d2),
        "rho": sign * T * disc * norm.cdf(sign * d2),
        "vanna": -pdf * d2 / v,
        "volga": S * pdf * np.sqrt(T) * d1 * d2 / v,
    }


def tape_greeks(S, K, T, r, v, call=True):
    """All Greeks of a batch by autodiff. Options are independent, so the gradient of the
    summed price with respect to each input vector is the vector of per-option derivatives."""
    S, T, r, v = (tf.Variable(x) for x in (S, T, r, v))
    K = tf.constant(K)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            price = bs_price(S, K, T, r, v, call)
        delta, vega, dT, rho = inner.gradient(price, [S, v, T, r])
    gamma, vanna = outer.gradient(delta, [S, v])
    volga = outer.gradient(vega, v)
    del outer
    with tf.autodiff.ForwardAccumulator(v, tf.ones_like(v)) as acc:
        forward_price = bs_price(S, K, T, r, v, call)
    return {"price": price, "delta": delta, "gamma": gamma, "vega": vega, "theta": -dT,
            "rho": rho, "vanna": vanna, "volga": volga,
            "vega (forward mode)": acc.jvp(forward_price)}


def random_book(n, seed=0):
    """A batch of n options: spot, strike, expiry, rate and volatility drawn in sane ranges."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(80, 120, n), rng.uniform(90, 110, n), rng.uniform(0.25, 2.0, n),
            rng.uniform(0.0, 0.05, n), rng.uniform(0.15, 0.45, n))


def max_relative_errors(n=10_000, seed=0):
    """{(kind, greek): max relative error of the tape's Greek against the closed form}."""
    book = random_book(n, seed)
    errors = {}
    for call in (True, False):
        got = tape_greeks(*book, call=call)
        want = closed_form_greeks(*book, call=call)
        for name, value in got.items():
            exact = want[name.split(" ")[0]]
            rel = np.abs(value.numpy() - exact) / np.maximum(np.abs(exact), 1e-12)
            errors[("call" if call else "put", name)] = float(rel.max())
    return errors


def asian_call_mc(spot, strike, expiry, rate, vol, paths=20_000, steps=50, seed=1, bump=None):
    """Monte Carlo price of an arithmetic-average Asian call, with pathwise delta and vega.

    Each path gets its own copy of spot and vol, so the tape's gradient with respect to those
    vectors is the per-path derivative: its mean is the estimate and its spread the standard
    error. `bump=(ds, dv)` prices at shifted inputs on the same normals (for finite differences).
    Returns (price, delta, delta_se, vega, vega_se) as floats.
    """
    z = tf.random.stateless_normal([paths, steps], seed=[seed, 0], dtype=tf.float64)
    ds, dv = bump or (0.0, 0.0)
    s0 = tf.Variable(tf.fill([paths, 1], tf.constant(spot + ds, tf.float64)))
    sig = tf.Variable(tf.fill([paths, 1], tf.constant(vol + dv, tf.float64)))
    dt = expiry / steps
    with tf.GradientTape() as tape:
        log_path = tf.cumsum((rate - 0.5 * sig * sig) * dt + sig * math.sqrt(dt) * z, axis=1)
        average = tf.reduce_mean(s0 * tf.exp(log_path), axis=1, keepdims=True)
        payoff = math.exp(-rate * expiry) * tf.nn.relu(average - strike)
    d_spot, d_vol = tape.gradient(payoff, [s0, sig])
    stats = [float(tf.reduce_mean(payoff))]
    for g in (d_spot, d_vol):
        g = g.numpy().ravel()
        stats += [g.mean(), g.std(ddof=1) / math.sqrt(paths)]
    return tuple(stats)


def asian_greeks_vs_fd(paths=20_000, steps=50, h=1e-3):
    """Pathwise delta and vega next to central differences on common random numbers."""
    spot, strike, expiry, rate, vol = 100.0, 100.0, 1.0, 0.03, 0.25
    price, delta, delta_se, vega, vega_se = asian_call_mc(spot, strike, expiry, rate, vol,
                                                           paths, steps)

    def price_at(ds, dv):
        return asian_call_mc(spot, strike, expiry, rate, vol, paths, steps, bump=(ds, dv))[0]

    fd_delta = (price_at(h, 0) - price_at(-h, 0)) / (2 * h)
    fd_vega = (price_at(0, h) - price_at(0, -h)) / (2 * h)
    return {"price": price, "delta": delta, "delta_se": delta_se, "fd_delta": fd_delta,
            "vega": vega, "vega_se": vega_se, "fd_vega": fd_vega}


def draw_delta_gamma(plt):
    """Delta and gamma of a call (K=100, T=1, r=3%, vol=25%) across spot: tape vs closed form."""
    spots = np.linspace(50.0, 150.0, 41)
    K, T, r, v = (np.full_like(spots, x) for x in (100.0, 1.0, 0.03, 0.25))
    got, want = tape_greeks(spots, K, T, r, v), closed_form_greeks(spots, K, T, r, v)
    for panel, name in enumerate(("delta", "gamma"), start=1):
        plt.subplot(1, 2, panel)
        plt.plot(spots, want[name], label="closed form")
        plt.plot(spots, got[name].numpy(), "o", markersize=4, fillstyle="none",
                 label="GradientTape" if name == "delta" else "nested GradientTapes")
        plt.xlabel("spot")
        plt.title(f"call {name}")
        plt.legend()


def main() -> None:
    start = time.perf_counter()
    book = random_book(10_000)
    got, want = tape_greeks(*book), closed_form_greeks(*book)
    print("first call option: S=%.2f K=%.2f T=%.2f r=%.4f vol=%.4f" % tuple(b[0] for b in book))
    print(f"  {'':20s}{'autodiff':>16s}{'closed form':>16s}")
    for name, value in got.items():
        print(f"  {name:20s}{value.numpy()[0]:16.10f}{want[name.split(' ')[0]][0]:16.10f}")
    errors = max_relative_errors()
    print("max relative error over 10,000 options:")
    for (kind, name), err in errors.items():
        print(f"  {kind:4s} {name:20s} {err:.2e}")

    mc = asian_greeks_vs_fd()
    print(f"Asian call (S=K=100, T=1, r=3%, vol=25%, 20,000 paths x 50 dates): "
          f"price {mc['price']:.4f}")
    print(f"  delta pathwise {mc['delta']:.5f} +- {mc['delta_se']:.5f}   "
          f"finite difference {mc['fd_delta']:.5f}")
    print(f"  vega  pathwise {mc['vega']:.5f} +- {mc['vega_se']:.5f}   "
          f"finite difference {mc['fd_vega']:.5f}")
    save_plot("black_scholes_greeks.png", draw_delta_gamma, figsize=(10, 4))
    print(f"({time.perf_counter() - start:.1f}s)")
    print(f"max relative error of any Greek vs closed form: {max(errors.values()):.2e}")


if __name__ == "__main__":
    main()
