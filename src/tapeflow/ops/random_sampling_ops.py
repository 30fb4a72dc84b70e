"""Gamma, Poisson and binomial samples as TensorFlow's CPU kernels draw them: `tf.random.gamma`,
`poisson`, `stateless_gamma`, `stateless_poisson`, `stateless_binomial` (and the sampler of
`tf.random.Generator.binomial`).

TensorFlow's samplers take a variable number of Philox draws per output, so output `i` (counted
parameter-major: all samples of the first parameter, then the next) reads its own sub-stream,
the fill's generator skipped by 256 * i draws (42 * i for the binomial's inversion method).
There, `NormalDistribution<double>` and `UniformDistribution<double>` each take one draw for
two numbers and hand them out last first. The rejection loops below run all pending outputs
a round at a time (`_SubStreams` keeps each one's place), so they take exactly the draws the
kernel takes, in its order, and store sample `s` of parameter `p` at `s * params + p`.

The kernels compute in double with glibc's `log`, `log1p`, `pow`, `exp` and `lgamma`, which
`libm.py` calls (NumPy's own versions round differently); where the C library is glibc, the
numbers are TensorFlow's bit for bit.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray, dims_text
from tapeflow.framework.context import context
from tapeflow.framework.convert import cpp_name, enum_name
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops import libm, philox
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import reads_static, static_value
from tapeflow.ops.array_ops import _shape_tuple, broadcast_to, reshape
from tapeflow.ops.math_ops import maximum
from tapeflow.ops.random_ops import (_FLOATS, _STATE, Stream, _check_shape, _float_dtype,
                                     _operand, drawn_shape, run_time_shape)
from tapeflow.ops.reduce_ops import reduce_sum
from tapeflow.ops.stateless_random_ops import _key_counter, _key_counter_impl, _words

_RESERVED = philox.RESERVED_WORDS_PER_OUTPUT   # draws skipped per output (kReservedSamples...)
_INVERSION_RESERVED = 42                       # the binomial inversion's skip per output


def _distinct(fn: Callable, x: np.ndarray) -> np.ndarray:
    """`fn` over `x`, called once per distinct value (per-parameter constants)."""
    values, where = np.unique(x, return_inverse=True)
    return fn(values)[where.reshape(-1)]


# -- sub-streams ---------------------------------------------------------------------------------

class _SubStreams:
    """The per-output generators of one fill: output `i` starts `starts[i]` draws into the
    stream at (key, counter). `take` gives the next uniform or normal double of the given
    outputs, each distribution keeping the second number of a draw for the next call."""

    def __init__(self, key: tuple, counter: tuple, starts: np.ndarray) -> None:
        self.key, self.counter = key, counter
        self.next = np.asarray(starts, np.uint64).copy()      # each output's next draw
        n = len(self.next)
        self.kept = {kind: (np.empty((n, 2)), np.zeros(n, np.int8)) for kind in "un"}

    def take(self, kind: str, rows: np.ndarray) -> np.ndarray:
        """The next number of distribution `kind` ("u" uniform, "n" normal) for `rows`."""
        values, left = self.kept[kind]
        empty = rows[left[rows] == 0]
        if empty.size:
            words = philox.draws_at(self.key, self.counter, self.next[empty])
            self.next[empty] += np.uint64(1)
            values[empty] = _normal_pair(words) if kind == "n" else np.stack(
                [philox.uint32_pair_to_double(words[:, 0], words[:, 1]),
                 philox.uint32_pair_to_double(words[:, 2], words[:, 3])], axis=1)
            left[empty] = 2
        left[rows] -= 1
        return values[rows, left[rows]]


def _normal_pair(words: np.ndarray) -> np.ndarray:
    """TensorFlow's BoxMullerDouble: two normal doubles per row of four words."""
    return np.stack(philox.box_muller_double(*words.T), axis=1)


def _per_output(params: np.ndarray, samples: int) -> np.ndarray:
    """Each output's parameter, in the kernels' order (parameter-major)."""
    return np.repeat(np.asarray(params).reshape(-1), samples)


def _to_layout(values: np.ndarray, params: int, samples: int) -> np.ndarray:
    """Parameter-major results laid out as the kernels store them (sample-major)."""
    return values.reshape(params, samples).T.reshape(-1)


def _cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    # Eigen's half converts a double through float.
    if dtype == np.float16:
        values = values.astype(np.float32)
    return values.astype(dtype)


# -- gamma ---------------------------------------------------------------------------------------

def _gamma_samples(key: tuple, counter: tuple, alpha: np.ndarray, samples: int) -> np.ndarray:
    """Marsaglia and Tsang's transformation-rejection, as TensorFlow's RandomGamma: parameter-
    major float64 samples for each alpha (alpha == 1: -log1p(-u))."""
    a = _per_output(alpha.astype(np.float64), samples)
    streams = _SubStreams(key, counter, np.arange(a.size, dtype=np.uint64) * np.uint64(_RESERVED))
    out = np.empty(a.size)
    exponential = np.nonzero(a == 1.0)[0]
    if exponential.size:
        out[exponential] = -libm.log1p(-streams.take("u", exponential))
    small = a < 1.0
    d = a + np.where(small, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    pending = np.nonzero(a != 1.0)[0]
    while pending.size:
        x = streams.take("n", pending)
        v = 1 + c[pending] * x
        retry = v <= 0                           # NaN goes on, as in the kernel
        rows, x, v = pending[~retry], x[~retry], v[~retry]
        v = v * v * v
        u = streams.take("u", rows)
        dr = d[rows]
        accept = u < 1 - 0.0331 * (x * x) * (x * x)
        slow = np.nonzero(~accept)[0]            # past the squeeze: the two logs
        if slow.size:
            xs, vs = x[slow], v[slow]
            accept[slow] = libm.log(u[slow]) < 0.5 * xs * xs + dr[slow] * (1 - vs + libm.log(vs))
        done, value = rows[accept], dr[accept] * v[accept]
        boost = np.nonzero(small[done])[0]       # alpha < 1: times u ** (1 / alpha)
        if boost.size:
            b = streams.take("u", done[boost])
            value[boost] *= libm.pow(b, 1 / a[done[boost]])
        out[done] = value
        pending = np.concatenate([pending[retry], rows[~accept]])
    return out


def _gamma_fill(key: tuple, counter: tuple, alpha: np.ndarray, shape: tuple) -> np.ndarray:
    """A gamma fill of `shape`, which ends with alpha's shape."""
    params = alpha.size
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(shape, alpha.dtype)
    samples = size // params
    values = _gamma_samples(key, counter, alpha.reshape(-1), samples)
    return _cast(_to_layout(values, params, samples), alpha.dtype).reshape(shape)


# `dims`, where given, is a shape known only when the graph runs (`random_ops.run_time_shape`).

def _gamma_kernel(alpha: np.ndarray, *dims: np.ndarray, shape: tuple,
                  stream: Stream) -> np.ndarray:
    full = tuple(drawn_shape(dims, shape, "RandomGamma")) + alpha.shape
    if context.graph is not None:   # tracing: the stream moves when the graph runs
        return np.zeros(full, alpha.dtype)
    size = int(np.prod(full, dtype=np.int64))
    if size == 0:
        return np.zeros(full, alpha.dtype)
    return _gamma_fill(*stream.reserve(size), alpha, full)


def _ends_with(shape: tuple, tail: tuple, op_name: str) -> None:
    if len(tail) > len(shape) or tuple(shape[len(shape) - len(tail):]) != tuple(tail):
        raise InvalidArgumentError(f"Shape passed in must end with broadcasted shape. "
                                   f"[Op:{op_name}]")


def _stateless_gamma_kernel(key: np.ndarray, counter: np.ndarray, alpha: np.ndarray,
                            *dims: np.ndarray, shape: tuple) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomGammaV3")
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return np.zeros(shape, alpha.dtype)
    _ends_with(shape, alpha.shape, "StatelessRandomGammaV3")
    return _gamma_fill(*_words(key, counter), alpha, tuple(shape))


def _gamma_shape(alpha: ShapedArray, *dims: ShapedArray, shape: Optional[tuple],
                 stream: Stream) -> ShapedArray:
    full = None if alpha.shape is None or shape is None else \
        tuple(shape) + tuple(alpha.shape)
    return ShapedArray(full, alpha.dtype)


def _drawn(*inputs: ShapedArray, shape: Optional[tuple], dtype: np.dtype) -> ShapedArray:
    # `shape`: None dims (or None) where a run-time dims input, the last, decides them
    return ShapedArray(None if shape is None else tuple(shape), dtype)


# -- the gamma's gradient: Eigen's implicit derivative dx/dalpha = -(dP/dalpha) / (dP/dx) --------

def _gamma_grad_kernel(alpha: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """TensorFlow's RandomGammaGrad: Eigen's gamma_sample_der_alpha (forward-mode derivative
    of its incomplete-gamma series and continued fraction), in the inputs' precision."""
    from scipy import special
    dtype = np.result_type(alpha, sample)
    a, x = np.broadcast_arrays(alpha.astype(dtype), sample.astype(dtype))
    a, x = a.reshape(-1), x.reshape(-1)
    out = np.full(a.shape, np.nan, dtype)
    out[x == 0] = 0
    valid = (x > 0) & (a > 0)
    fraction = valid & (x > 1) & (x > a)
    series = valid & ~fraction
    with np.errstate(all="ignore"):
        if series.any():
            out[series] = _igamma_series_der(a[series], x[series], special)
        if fraction.any():
            out[fraction] = _igammac_cf_der(a[fraction], x[fraction], special)
    return out.reshape(np.broadcast_shapes(alpha.shape, sample.shape))


def _iterations(dtype: np.dtype) -> int:
    return 200 if dtype == np.float32 else 500


def _igamma_series_der(a: np.ndarray, x: np.ndarray, special: Any) -> np.ndarray:
    dtype = a.dtype.type
    machep = dtype(np.finfo(a.dtype).eps / 2)
    one = dtype(1)
    r, c, ans = a.copy(), np.ones_like(a), np.ones_like(a)
    dc_da, dans_da = np.zeros_like(a), np.zeros_like(a)
    live = np.ones(a.shape, bool)
    for _ in range(_iterations(a.dtype)):
        if not live.any():
            break
        r = np.where(live, r + one, r)
        term = x / r
        dterm_da = -x / (r * r)
        dc_da = np.where(live, term * dc_da + dterm_da * c, dc_da)
        dans_da = np.where(live, dans_da + dc_da, dans_da)
        c = np.where(live, c * term, c)
        ans = np.where(live, ans + c, ans)
        live &= ~(np.abs(dc_da) <= machep * np.abs(dans_da))
    dlogax_da = np.log(x) - special.digamma(a + one).astype(a.dtype)
    return -(dans_da + ans * dlogax_da) * x / a


def _igammac_cf_der(a: np.ndarray, x: np.ndarray, special: Any) -> np.ndarray:
    dtype = a.dtype.type
    one, two = dtype(1), dtype(2)
    machep = dtype(np.finfo(a.dtype).eps / 2)
    big = dtype(2 / np.finfo(a.dtype).eps) if a.dtype == np.float32 else \
        dtype(1 / np.finfo(a.dtype).eps)
    biginv = dtype(np.finfo(a.dtype).eps / 2) if a.dtype == np.float32 else \
        dtype(np.finfo(a.dtype).eps)
    y = one - a
    z = x + y + one
    c = np.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x.copy(), x + one, z * x
    ans = pkm1 / qkm1
    dpkm2, dqkm2, dpkm1, dqkm1 = (np.zeros_like(a), np.zeros_like(a), np.zeros_like(a), -x)
    dans = (dpkm1 - ans * dqkm1) / qkm1
    live = ~np.isinf(x)
    for _ in range(_iterations(a.dtype)):
        if not live.any():
            break
        c, y, z = c + one, y + one, z + two
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        update = live & (qk != 0)
        new_ans = np.where(update, pk / qk, ans)
        new_dans = np.where(update, (dpk - new_ans * dqk) / qk, dans)
        converged = update & (np.abs(new_dans - dans) <= machep)
        ans, dans = new_ans, new_dans
        step = live & ~converged
        pkm2, pkm1 = np.where(step, pkm1, pkm2), np.where(step, pk, pkm1)
        qkm2, qkm1 = np.where(step, qkm1, qkm2), np.where(step, qk, qkm1)
        dpkm2, dpkm1 = np.where(step, dpkm1, dpkm2), np.where(step, dpk, dpkm1)
        dqkm2, dqkm1 = np.where(step, dqkm1, dqkm2), np.where(step, dqk, dqkm1)
        rescale = step & (np.abs(pk) > big)
        scale = np.where(rescale, biginv, one)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm2 * scale, dpkm1 * scale, dqkm2 * scale, dqkm1 * scale
        live = step
    dlogax_da = np.log(x) - special.digamma(a).astype(a.dtype)
    value = (dans + ans * dlogax_da) * x          # -(-(...)): igamma is 1 - igammac
    return np.where(np.isinf(x), np.zeros((), a.dtype), value)


def _gamma_grad_shape(alpha: ShapedArray, sample: ShapedArray) -> ShapedArray:
    if alpha.shape is None or sample.shape is None:
        return ShapedArray(None, sample.dtype)
    return ShapedArray(np.broadcast_shapes(alpha.shape, sample.shape), sample.dtype)


_GAMMA_GRAD = Primitive("RandomGammaGrad", _gamma_grad_kernel, differentiable=False,
                        shape_rule=_gamma_grad_shape)


def _gamma_partial(alpha: Tensor, sample: Tensor, sample_dims: int) -> Tensor:
    """dsample/dalpha, alpha given leading unit dimensions for the sample dimensions."""
    lead = reshape(alpha, [1] * sample_dims + list(alpha.shape))
    return bind(_GAMMA_GRAD, (lead, sample))


def _gamma_alpha_grad(g: Tensor, ans: Tensor, alpha: Tensor) -> Tensor:
    """The gradient w.r.t. alpha of samples `ans`, whose leading dims are the sample dims."""
    sample_dims = ans.shape.rank - alpha.shape.rank
    partial = _gamma_partial(alpha, ans, sample_dims)
    return reduce_sum(g * partial, axis=list(range(sample_dims)))


def _gamma_vjp(g: Tensor, ans: Tensor, alpha: Tensor, *dims: Tensor, shape: tuple,
               stream: Stream) -> Any:
    grad = _gamma_alpha_grad(g, ans, alpha)
    return (grad, None) if dims else grad


def _stateless_gamma_vjp(g: Tensor, ans: Tensor, key: Tensor, counter: Tensor, alpha: Tensor,
                         *dims: Tensor, shape: tuple) -> tuple:
    return (None, None, _gamma_alpha_grad(g, ans, alpha)) + (None,) * len(dims)


_GAMMA = Primitive("RandomGamma", _gamma_kernel, stateful=True, shape_rule=_gamma_shape)
_GAMMA.defvjp(_gamma_vjp)
_STATELESS_GAMMA = Primitive("StatelessRandomGammaV3", _stateless_gamma_kernel,
                             shape_rule=lambda key, counter, alpha, *dims, shape: _drawn(
                                 shape=shape, dtype=alpha.dtype))
_STATELESS_GAMMA.defvjp(_stateless_gamma_vjp)


# -- Poisson -------------------------------------------------------------------------------------

def _highest(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max)


def _poisson_samples(key: tuple, counter: tuple, rate: np.ndarray, samples: int,
                     highest: float) -> np.ndarray:
    """TensorFlow's Poisson sampler (parameter-major float64): Knuth's product of uniforms
    below rate 10, Hormann's transformed rejection (PTRS) from 10 up."""
    rate = rate.astype(np.float64).reshape(-1)
    r = _per_output(rate, samples)
    streams = _SubStreams(key, counter, np.arange(r.size, dtype=np.uint64) * np.uint64(_RESERVED))
    out = np.empty(r.size)
    knuth = np.nonzero(r < 10)[0]
    if knuth.size:
        _knuth(streams, knuth, _per_output(libm.exp(-rate), samples)[knuth], highest, out)
    ptrs = np.nonzero(~(r < 10))[0]
    if ptrs.size:
        _ptrs(streams, ptrs, r[ptrs], highest, out)
    return out


def _knuth(streams: _SubStreams, rows: np.ndarray, limit: np.ndarray, highest: float,
           out: np.ndarray) -> None:
    prod, count = np.ones(rows.size), np.zeros(rows.size)
    while rows.size:
        prod = prod * streams.take("u", rows)
        done = (prod <= limit) & (count <= highest)
        out[rows[done]] = count[done]
        more = ~done
        rows, limit, prod, count = rows[more], limit[more], prod[more], count[more] + 1


def _ptrs(streams: _SubStreams, rows: np.ndarray, rate: np.ndarray, highest: float,
          out: np.ndarray) -> None:
    log_rate = _distinct(libm.log, rate)
    b = 0.931 + 2.53 * np.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    box = 0.9277 - 3.6224 / (b - 2)
    live = np.arange(rows.size)
    while live.size:
        u = streams.take("u", rows[live]) - 0.5
        v = streams.take("u", rows[live])
        us = 0.5 - np.abs(u)
        al, bl, rl = a[live], b[live], rate[live]
        k = np.floor((2 * al / us + bl) * u + rl + 0.43)
        fits = ~(k > highest)
        accept = fits & (us >= 0.07) & (v <= box[live])
        test = np.nonzero(fits & ~accept & ~((k < 0) | ((us < 0.013) & (v > us))))[0]
        if test.size:
            t_live = live[test]
            s = libm.log(v[test] * inv_alpha[t_live]
                         / (al[test] / (us[test] * us[test]) + bl[test]))
            t = -rl[test] + k[test] * log_rate[t_live] - libm.lgamma_distinct(k[test] + 1)
            accept[test] = s <= t
        out[rows[live[accept]]] = k[accept]
        live = live[~accept]


def _check_rates(rate: np.ndarray, dtype: np.dtype, op_name: str) -> None:
    """TensorFlow's kernel never returns for these rates (it retries forever): say so."""
    r = rate.astype(np.float64)
    bad = (r >= 10) & ~(r <= _highest(dtype)) | np.isnan(r)
    if bad.any():
        raise InvalidArgumentError(
            f"rate {r[bad].reshape(-1)[0]} gives no Poisson sample that fits {cpp_name(dtype)} "
            f"(TensorFlow's kernel loops forever on it) [Op:{op_name}]")


def _poisson_fill(key: tuple, counter: tuple, rate: np.ndarray, shape: tuple,
                  dtype: np.dtype, op_name: str) -> np.ndarray:
    params = rate.size
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(shape, dtype)
    _check_rates(rate, dtype, op_name)
    samples = size // params
    values = _poisson_samples(key, counter, rate, samples, _highest(dtype))
    return _cast(_to_layout(values, params, samples), dtype).reshape(shape)


def _poisson_kernel(rate: np.ndarray, *dims: np.ndarray, shape: tuple, dtype: np.dtype,
                    stream: Stream) -> np.ndarray:
    full = tuple(drawn_shape(dims, shape, "RandomPoissonV2")) + rate.shape
    size = int(np.prod(full, dtype=np.int64))
    if context.graph is not None or size == 0:
        return np.zeros(full, dtype)
    return _poisson_fill(*stream.reserve(size), rate, full, dtype, "RandomPoissonV2")


def _seed_words(seed: np.ndarray, op_name: str) -> tuple:
    """The Philox key and counter of a v1 stateless kernel's seed (TensorFlow's
    GenerateKey: the same scramble as StatelessRandomGetKeyCounter)."""
    if seed.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not "
                                   f"[{','.join(map(str, seed.shape))}] [Op:{op_name}]")
    return _words(*_key_counter_impl(seed))


def _stateless_poisson_kernel(seed: np.ndarray, rate: np.ndarray, *dims: np.ndarray,
                              shape: tuple, dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomPoisson")
    key, counter = _seed_words(seed, "StatelessRandomPoisson")
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return np.zeros(shape, dtype)
    _ends_with(shape, rate.shape, "StatelessRandomPoisson")
    return _poisson_fill(key, counter, rate, tuple(shape), dtype, "StatelessRandomPoisson")


_POISSON = Primitive("RandomPoissonV2", _poisson_kernel, differentiable=False, stateful=True,
                     shape_rule=lambda rate, *dims, shape, dtype, stream: ShapedArray(
                         None if rate.shape is None or shape is None else
                         tuple(shape) + tuple(rate.shape), dtype))
_STATELESS_POISSON = Primitive("StatelessRandomPoisson", _stateless_poisson_kernel,
                               differentiable=False, shape_rule=_drawn)


# -- binomial ------------------------------------------------------------------------------------

_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287])


def _stirling_tail(k: np.ndarray) -> np.ndarray:
    """log(k!) minus its Stirling approximation (TensorFlow's stirling_approx_tail)."""
    kp1sq = (k + 1) * (k + 1)
    far = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    near = _TAIL[np.clip(np.trunc(np.where(k <= 9, k, 0)), 0, 9).astype(np.int64)]
    return np.where(k <= 9, near, far)


def _ceil_quotient_log(u: np.ndarray, divisor: np.ndarray) -> np.ndarray:
    """log(u) / divisor, with the C library's log where it can change the ceiling: NumPy's
    log is within 1 ulp of glibc's, so the quotients differ by a few ulp at most and only
    those near a whole number are recomputed."""
    quotient = np.log(u) / divisor
    near = np.nonzero(np.abs(quotient - np.rint(quotient)) <= 1e-12 * np.abs(quotient))[0]
    if near.size:
        quotient[near] = libm.log(u[near]) / divisor[near]
    return quotient


def _inversion(streams: _SubStreams, rows: np.ndarray, count: np.ndarray, prob: np.ndarray,
               out: np.ndarray) -> None:
    """Binomial inversion: geometric waiting times summed until they pass `count`."""
    log_q = _distinct(libm.log1p, -prob)
    total, successes = np.zeros(rows.size), np.zeros(rows.size)
    while rows.size:
        total += np.ceil(_ceil_quotient_log(streams.take("u", rows), log_q))
        done = total > count
        out[rows[done]] = successes[done]
        more = ~done
        rows, count, log_q, total = rows[more], count[more], log_q[more], total[more]
        successes = successes[more] + 1


def _btrs(streams: _SubStreams, rows: np.ndarray, count: np.ndarray, prob: np.ndarray,
          out: np.ndarray) -> None:
    """Hormann's transformed rejection (BTRS), as TensorFlow writes it."""
    stddev = np.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * prob)
    live = np.arange(rows.size)
    while live.size:
        u = streams.take("u", rows[live])
        v = streams.take("u", rows[live])
        u = u - 0.5
        us = 0.5 - np.abs(u)
        al, n = a[live], count[live]
        k = np.floor((2 * al / us + b[live]) * u + c[live])
        accept = (us >= 0.07) & (v <= v_r[live])
        test = np.nonzero(~accept & ~((k < 0) | (k > n)))[0]
        if test.size:
            t, kt, nt, mt, rt = live[test], k[test], n[test], m[live][test], r[live][test]
            vt = libm.log(v[test] * alpha[t] / (al[test] / (us[test] * us[test]) + b[t]))
            bound = ((mt + 0.5) * libm.log((mt + 1) / (rt * (nt - mt + 1)))
                     + (nt + 1) * libm.log((nt - mt + 1) / (nt - kt + 1))
                     + (kt + 0.5) * libm.log(rt * (nt - kt + 1) / (kt + 1))
                     + _stirling_tail(mt) + _stirling_tail(nt - mt)
                     - _stirling_tail(kt) - _stirling_tail(nt - kt))
            accept[test] = vt <= bound
        out[rows[live[accept]]] = k[accept]
        live = live[~accept]


def _binomial_samples(key: tuple, counter: tuple, counts: np.ndarray, probs: np.ndarray,
                      samples: int) -> np.ndarray:
    """TensorFlow's binomial sampler (parameter-major float64) for per-batch `counts` and
    `probs` of the parameters' dtype T: the tests are made in T, the sampling in double."""
    one, ten = counts.dtype.type(1), counts.dtype.type(10)
    high = probs > 0.5                          # sample failures: count - B(count, 1 - p)
    p = np.where(high, one - probs, probs)      # T(1) - prob, in T
    method_btrs = counts * p >= ten             # in T, as the kernel
    count = _per_output(counts.astype(np.float64), samples)
    prob = _per_output(p.astype(np.float64), samples)
    zero = _per_output((counts.astype(np.float64) <= 0) | (probs <= 0), samples)
    full = _per_output(probs >= 1, samples) & ~zero
    nan = _per_output(np.isnan(probs), samples) & ~zero
    sampled = ~(zero | full | nan)
    use_btrs = _per_output(method_btrs, samples) & sampled
    flip = _per_output(high, samples)
    index = np.arange(count.size, dtype=np.uint64)
    starts = index * np.where(use_btrs, np.uint64(_RESERVED), np.uint64(_INVERSION_RESERVED))
    streams = _SubStreams(key, counter, starts)
    out = np.zeros(count.size)
    rows = np.nonzero(use_btrs)[0]
    if rows.size:
        _btrs(streams, rows, count[rows], prob[rows], out)
    rows = np.nonzero(sampled & ~use_btrs)[0]
    if rows.size:
        _inversion(streams, rows, count[rows], prob[rows], out)
    out = np.where(sampled & flip, count - out, out)
    out[full] = count[full]
    out[nan] = np.nan
    return out


def _binomial_fill(key: tuple, counter: tuple, counts: np.ndarray, probs: np.ndarray,
                   shape: tuple, dtype: np.dtype, op_name: str) -> np.ndarray:
    batch = _batch_shape(counts.shape, probs.shape, op_name)
    _ends_with(shape, batch, op_name)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(shape, dtype)
    counts_b = np.broadcast_to(counts, batch).reshape(-1)
    probs_b = np.broadcast_to(probs, batch).reshape(-1)
    _check_binomial(counts_b, probs_b, dtype, op_name)
    params = counts_b.size
    samples = size // params
    values = _binomial_samples(key, counter, counts_b, probs_b, samples)
    return _cast(_to_layout(values, params, samples), dtype).reshape(shape)


def _check_binomial(counts: np.ndarray, probs: np.ndarray, dtype: np.dtype,
                    op_name: str) -> None:
    """Where TensorFlow's kernel has no defined answer, an error instead of a number."""
    sampled = (counts.astype(np.float64) > 0) & (probs > 0) & (probs < 1)
    if (sampled & ~np.isfinite(counts)).any():
        raise InvalidArgumentError(f"counts must be finite where 0 < probs < 1 "
                                   f"[Op:{op_name}]")
    if dtype.kind != "f" and ((counts.astype(np.float64) > 0) & np.isnan(probs)).any():
        raise InvalidArgumentError(f"a NaN probability has no {cpp_name(dtype)} sample "
                                   f"(TensorFlow's kernel casts NaN to an integer, which is "
                                   f"undefined) [Op:{op_name}]")


def _batch_shape(counts: tuple, probs: tuple, op_name: str) -> tuple:
    try:
        return tuple(np.broadcast_shapes(tuple(counts), tuple(probs)))
    except ValueError:
        raise InvalidArgumentError(
            f"counts and probs must have compatible batch dimensions: {dims_text(counts)} vs. "
            f"{dims_text(probs)} [Op:{op_name}]") from None


def _binomial_batches(shape: tuple, counts: tuple, probs: tuple, op_name: str) -> tuple:
    """(batches, samples per batch) of a binomial fill, with the kernel's checks."""
    batch = _batch_shape(counts, probs, op_name)
    _ends_with(shape, batch, op_name)
    lead = len(shape) - len(batch)
    return (int(np.prod(shape[lead:], dtype=np.int64)),
            int(np.prod(shape[:lead], dtype=np.int64)))


def _stateless_binomial_kernel(seed: np.ndarray, counts: np.ndarray, probs: np.ndarray,
                               *dims: np.ndarray, shape: tuple, dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomBinomial")
    key, counter = _seed_words(seed, "StatelessRandomBinomial")
    return _binomial_fill(key, counter, counts, probs, tuple(shape), dtype,
                          "StatelessRandomBinomial")


def _stateful_binomial_kernel(key: np.ndarray, counter: np.ndarray, counts: np.ndarray,
                              probs: np.ndarray, *dims: np.ndarray, shape: tuple,
                              dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatefulRandomBinomial")
    return _binomial_fill(*_words(key, counter), counts, probs, tuple(shape), dtype,
                          "StatefulRandomBinomial")


_STATELESS_BINOMIAL = Primitive("StatelessRandomBinomial", _stateless_binomial_kernel,
                                differentiable=False, shape_rule=_drawn)
STATEFUL_BINOMIAL = Primitive("StatefulRandomBinomial", _stateful_binomial_kernel,
                              differentiable=False, shape_rule=_drawn)


def binomial_state_skip(shape: tuple, counts: tuple, probs: tuple) -> int:
    """How many outputs' worth (256 draws each) StatefulRandomBinomial moves the generator's
    state: TensorFlow's `num_batches * 2 * 100 * (samples_per_batch + 3) / 4`, checking the
    shapes first, as the kernel does before it moves the state."""
    batches, samples = _binomial_batches(tuple(shape), counts, probs, "StatefulRandomBinomial")
    return batches * 2 * 100 * (samples + 3) // 4


def binomial_params(counts: Any, probs: Any, op_name: str, input_index: int) -> tuple:
    """`counts` and `probs` as tensors of one float dtype, with TensorFlow's errors."""
    counts, probs = convert_to_tensor(counts), convert_to_tensor(probs)
    if counts.dtype != probs.dtype:
        raise InvalidArgumentError(
            f"cannot compute {op_name} as input #{input_index}(zero-based) was expected to "
            f"be a {cpp_name(counts.dtype)} tensor but is a {cpp_name(probs.dtype)} tensor "
            f"[Op:{op_name}]")
    return counts, probs


def _check_binomial_types(t: _dtypes.DType, out: _dtypes.DType, op_name: str,
                          error: type) -> None:
    if out.name not in _SAMPLE_TYPES:
        raise InvalidArgumentError(_attr_error("dtype", out, op_name))
    if t.name not in _FLOATS:
        raise error(f"No OpKernel was registered to support Op '{op_name}' with these attrs: "
                    f"[dtype={enum_name(out)}, S=DT_INT32, T={enum_name(t)}]; its kernels "
                    f"take counts and probs of half, float or double [Op:{op_name}]")


def _attr_error(attr: str, dtype: _dtypes.DType, op_name: str) -> str:
    return (f"Value for attr '{attr}' of {cpp_name(dtype)} is not in the list of allowed "
            f"values: half, float, double, int32, int64\n\t; NodeDef: {{{{node {op_name}}}}} "
            f"[Op:{op_name}]")


# -- public ops ----------------------------------------------------------------------------------

_SAMPLE_TYPES = ("float16", "float32", "float64", "int32", "int64")


def _shape_vector(shape: Any, op_name: str) -> tuple:
    if isinstance(shape, (int, np.integer)) or (hasattr(shape, "shape") and
                                                len(shape.shape) == 0):
        raise InvalidArgumentError(f"shape must be a vector of {{int32,int64}}, got shape: "
                                   f"Tensor<type: int32 shape: [] values: {int(shape)}> "
                                   f"[Op:{op_name}]")
    return static_value(shape, f"{op_name}: shape", _shape_tuple)


def _shape_operand(shape: Any, op_name: str, check: bool = True) -> tuple:
    """(inputs, shape attr) of a sampler's `shape`: a traced one is an input read when the
    graph runs (the kernel checks it), a static one an attr (checked here where `check`)."""
    traced = run_time_shape(shape)
    if traced is not None:
        return (traced[1],), traced[0]
    shape = _shape_vector(shape, op_name)
    if check:
        _check_shape(shape, op_name)
    return (), shape


def _alpha_beta(alpha: Any, beta: Any, dtype: _dtypes.DType) -> tuple:
    """alpha broadcast against beta (TensorFlow's BroadcastArgs), and beta."""
    alpha = _operand(alpha, dtype, "alpha")
    beta = _operand(1 if beta is None else beta, dtype, "beta")
    try:
        shape = np.broadcast_shapes(tuple(alpha.shape), tuple(beta.shape))
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(tuple(alpha.shape))} vs. "
                                   f"{dims_text(tuple(beta.shape))} [Op:BroadcastArgs]") from None
    if tuple(alpha.shape) != tuple(shape):
        alpha = broadcast_to(alpha, list(shape))
    return alpha, beta


def _scaled_gamma(draw: Tensor, beta: Tensor, dtype: _dtypes.DType) -> Tensor:
    """max(tiny, draw / beta), as TensorFlow's wrapper (zero samples become the smallest
    normal number)."""
    tiny = convert_to_tensor(np.finfo(dtype._np).tiny, dtype=dtype)
    return maximum(tiny, draw / beta)


@tf_export("random.gamma")
@reads_static
def gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = _dtypes.float32,
          seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """`shape` samples from each Gamma(alpha, beta) distribution (beta: the inverse scale):
    a `shape + broadcast(alpha, beta).shape` tensor of TensorFlow's numbers, differentiable
    with respect to alpha (implicit reparameterization) and beta."""
    dtype = _float_dtype(dtype, alpha)
    dims, shape = _shape_operand(shape, "RandomGamma", check=False)
    alpha, beta = _alpha_beta(alpha, beta, dtype)
    if not dims:
        _check_shape(shape, "RandomGamma")
    stream = _STATE.stream("RandomGamma", _STATE.seeds(seed), dtype._np)
    draw = bind(_GAMMA, (alpha, *dims), {"shape": shape, "stream": stream})
    return _scaled_gamma(draw, beta, dtype)


@tf_export("random.stateless_gamma")
@reads_static
def stateless_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                    dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """Gamma(alpha, beta) samples that depend only on `seed`; `shape` ends with the shape of
    broadcast(alpha, beta). TensorFlow's numbers for the same seed."""
    dtype = _float_dtype(dtype, alpha)
    dims, shape = _shape_operand(shape, "StatelessRandomGammaV3", check=False)
    alpha, beta = _alpha_beta(alpha, beta, dtype)
    key, counter = _key_counter(seed)
    draw = bind(_STATELESS_GAMMA, (key, counter, alpha, *dims), {"shape": shape})
    return _scaled_gamma(draw, beta, dtype)


def _sample_type(dtype: Any, op_name: str) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in _SAMPLE_TYPES:
        raise InvalidArgumentError(_attr_error("dtype", dtype, op_name))
    return dtype


def _rate(lam: Any, op_name: str, default: Optional[_dtypes.DType]) -> Tensor:
    rate = convert_to_tensor(lam, dtype_hint=default) if default is not None else \
        convert_to_tensor(lam)
    if rate.dtype.name not in _SAMPLE_TYPES:
        raise InvalidArgumentError(_attr_error("R" if default else "Rtype", rate.dtype,
                                               op_name))
    return rate


@tf_export("random.poisson")
@reads_static
def poisson(shape: Any, lam: Any, dtype: Any = _dtypes.float32, seed: Optional[int] = None,
            name: Optional[str] = None) -> Tensor:
    """`shape` samples from each Poisson(lam) distribution: a `shape + lam.shape` tensor of
    TensorFlow's numbers (no gradient)."""
    dtype = _sample_type(dtype, "RandomPoissonV2")
    dims, shape = _shape_operand(shape, "RandomPoissonV2", check=False)
    rate = _rate(lam, "RandomPoissonV2", _dtypes.float64)   # the op's R defaults to double
    if not dims:
        _check_shape(shape, "RandomPoissonV2")
    stream = _STATE.stream(f"RandomPoissonV2/{rate.dtype.name}", _STATE.seeds(seed), dtype._np)
    return bind(_POISSON, (rate, *dims), {"shape": shape, "dtype": dtype._np,
                                          "stream": stream})


def _seed_tensor(seed: Any, op_name: str, signature: str) -> Tensor:
    seed = convert_to_tensor(seed)
    if seed.dtype not in (_dtypes.int32, _dtypes.int64):
        raise InvalidArgumentError(
            f"Value for attr 'Tseed' of {cpp_name(seed.dtype)} is not in the list of allowed "
            f"values: int32, int64\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}; "
            f"signature={signature}> [Op:{op_name}]")
    return seed


@tf_export("random.stateless_poisson")
@reads_static
def stateless_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = _dtypes.int32,
                      name: Optional[str] = None) -> Tensor:
    """Poisson(lam) samples that depend only on `seed`; `shape` ends with lam's shape.
    TensorFlow's numbers for the same seed."""
    dtype = _sample_type(dtype, "StatelessRandomPoisson")
    dims, shape = _shape_operand(shape, "StatelessRandomPoisson", check=False)
    seed = _seed_tensor(seed, "StatelessRandomPoisson",
                        "shape:T, seed:Tseed, lam:Rtype -> output:dtype")
    rate = _rate(lam, "StatelessRandomPoisson", None)
    return bind(_STATELESS_POISSON, (seed, rate, *dims), {"shape": shape, "dtype": dtype._np})


@tf_export("random.stateless_binomial")
@reads_static
def stateless_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                       output_dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """Binomial(counts, probs) samples that depend only on `seed`; `shape` ends with the
    shape of broadcast(counts, probs). TensorFlow's numbers for the same seed."""
    op_name = "StatelessRandomBinomial"
    out = _dtypes.as_dtype(output_dtype)
    dims, shape = _shape_operand(shape, op_name, check=False)
    probs = convert_to_tensor(probs, dtype_hint=_dtypes.float32)
    counts = convert_to_tensor(counts, dtype_hint=probs.dtype)
    counts, probs = binomial_params(counts, probs, op_name, 3)
    _check_binomial_types(counts.dtype, out, op_name, NotFoundError)
    seed = _seed_tensor(seed, op_name, "shape:S, seed:Tseed, counts:T, probs:T -> output:dtype")
    return bind(_STATELESS_BINOMIAL, (seed, counts, probs, *dims),
                {"shape": shape, "dtype": out._np})


def generator_binomial(advance: Callable, advance_at_run_time: Callable, shape: Any,
                       counts: Any, probs: Any, dtype: Any) -> Tensor:
    """tf.random.Generator.binomial: checks, moves the state by `advance(outputs)` (which
    gives the key and counter read before), then samples from them. A shape known only when
    the graph runs moves it by `advance_at_run_time(dims, op name, outputs)` instead, which
    checks the shape and computes `outputs(shape)` then."""
    op_name = "StatefulRandomBinomial"
    out = _dtypes.as_dtype(dtype)
    counts, probs = binomial_params(counts, probs, op_name, 4)
    _check_binomial_types(counts.dtype, out, op_name, InvalidArgumentError)
    traced = run_time_shape(shape)
    if traced is not None:
        pattern, dims = traced
        outputs = functools.partial(binomial_state_skip, counts=tuple(counts.shape),
                                    probs=tuple(probs.shape))
        key, counter = advance_at_run_time(dims, op_name, outputs)
        return bind(STATEFUL_BINOMIAL, (key, counter, counts, probs, dims),
                    {"shape": pattern, "dtype": out._np})
    shape = _shape_vector(shape, op_name)
    _check_shape(shape, op_name)
    skip = binomial_state_skip(shape, tuple(counts.shape), tuple(probs.shape))
    key, counter = advance(skip)
    return bind(STATEFUL_BINOMIAL, (key, counter, counts, probs),
                {"shape": shape, "dtype": out._np})


__all__ = ["gamma", "stateless_gamma", "poisson", "stateless_poisson", "stateless_binomial",
           "generator_binomial"]
