"""tf.random.gamma / poisson, stateless_gamma / stateless_poisson / stateless_binomial and
tf.random.Generator.binomial draw TensorFlow 2.21's numbers: the recorded fixture
(tools/record_random_distributions.py) holds TF's samples for several seeds, shapes and
dtypes, a program of stateful draws (eager and tf.function, set_seed again), the generator's
state after each binomial call and SHA-256 digests of 10^5-sample draws. Every sample is
bit-exact; the gamma's gradient (Eigen's implicit derivative) is checked to a tolerance.
"""

import hashlib
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "random_distributions.json").read_text())
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _check(got, dtype, recorded, label):
    dtype = np.dtype(dtype)
    got = np.asarray(got.numpy()).reshape(-1)
    assert got.dtype == dtype, label
    if dtype.kind != "f":
        assert got.tolist() == recorded, label
        return
    want = np.array(recorded, _BITS[dtype.itemsize])
    assert got.view(want.dtype).tolist() == want.tolist(), (label, got, want.view(dtype))


def _stateless(op, shape, seed, param, extra, dtype, param_dtype):
    def cast(v):
        return tf.constant(v, param_dtype)

    if op == "stateless_gamma":
        return tf.random.stateless_gamma(shape, seed, alpha=param, beta=extra, dtype=dtype)
    if op == "stateless_poisson":
        return tf.random.stateless_poisson(shape, seed, cast(param), dtype=dtype)
    return tf.random.stateless_binomial(shape, seed, cast(param), cast(extra),
                                        output_dtype=dtype)


@pytest.mark.parametrize("op", ["stateless_gamma", "stateless_poisson", "stateless_binomial"])
def test_stateless_samplers_give_tensorflows_numbers(op):
    cases = [c for c in FIXTURE["stateless"] if c["case"][0] == op]
    assert len(cases) >= 30
    for entry in cases:
        case = entry["case"]
        _check(_stateless(*case), case[5], entry["values"], case)


def test_stateless_samplers_are_the_same_inside_tf_function():
    entry = next(c for c in FIXTURE["stateless"] if c["case"][0] == "stateless_gamma")
    case = entry["case"]
    fn = tf.function(lambda seed: tf.random.stateless_gamma(case[1], seed, case[3],
                                                            dtype=case[5]))
    for _ in range(2):   # a traced seed is read when the graph runs
        _check(fn(tf.constant(case[2])), case[5], entry["values"], case)


def _stateful(step):
    op, shape, param, dtype, seed = step
    if op == "gamma":
        return tf.random.gamma(shape, param, dtype=dtype, seed=seed)
    return tf.random.poisson(shape, param, dtype=dtype, seed=seed)


def test_a_program_of_stateful_draws_gives_tensorflows_numbers():
    for entry in FIXTURE["program"]:
        step = entry["step"]
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
        elif step[0] == "function":
            fn = tf.function(lambda steps=step[1]: [_stateful(s) for s in steps])
            for call in entry["values"]:   # the graph's streams carry on between calls
                for s, got, recorded in zip(step[1], fn(), call):
                    _check(got, s[3], recorded, s)
        else:
            _check(_stateful(step), step[3], entry["values"], step)


def test_generator_binomial_gives_tensorflows_numbers_and_state():
    recorded = FIXTURE["generator"]
    gen = tf.random.Generator.from_seed(recorded["seed"])
    calls = iter(recorded["calls"])
    for entry in [([5, 4], [10.0, 20.0, 100.0, 300.0], [0.3, 0.9, 0.5, 0.02], "int32"),
                  ([3], 40.0, 0.25, "int64"), ([0], 5.0, 0.5, "int32"),
                  ([2, 3], [[4.0], [60.0]], [0.5, 0.7, 0.05], "float32")]:
        want = next(calls)
        _check(gen.binomial(*entry[:3], dtype=entry[3]), entry[3], want["values"], entry)
        assert gen.state.numpy().tolist() == want["state"], entry
    inner = [([4], 30.0, 0.5, "int32"), ([2], 3.0, 0.2, "float64")]
    fn = tf.function(lambda: [gen.binomial(s, c, p, dtype=d) for s, c, p, d in inner])
    for _ in range(2):   # the state variable moves inside the graph too
        want = next(calls)
        for (s, _, _, d), got, values in zip(inner, fn(), want["values"]):
            _check(got, d, values, s)
        assert gen.state.numpy().tolist() == want["state"]


def test_large_draws_match_tensorflows_digests():
    counts = [5.0, 20.0, 40.0, 100.0, 1000.0, 7.0, 33.0, 250.0, 10000.0, 64.0]
    probs = [0.5, 0.05, 0.3, 0.7, 0.5, 0.95, 0.41, 0.999, 0.002, 0.62]
    for entry in FIXTURE["digests"]:
        op, shape, param, dtype, seed = (entry[k] for k in ("op", "shape", "param", "dtype",
                                                            "seed"))
        if op == "stateless_gamma":
            t = tf.random.stateless_gamma(shape, seed, param, dtype=dtype)
        elif op == "stateless_poisson":
            t = tf.random.stateless_poisson(shape, seed, param, dtype=dtype)
        else:
            t = tf.random.stateless_binomial(shape, seed, counts, probs, output_dtype=dtype)
        assert hashlib.sha256(t.numpy().tobytes()).hexdigest() == entry["sha256"], op


@pytest.mark.parametrize("entry", FIXTURE["gradients"], ids=lambda e: e["dtype"])
def test_gamma_gradients_follow_tensorflow(entry):
    dtype = entry["dtype"]
    alpha = tf.constant([[0.4, 1.0, 3.0, 25.0]], dtype)
    beta = tf.constant([[2.0], [0.5]], dtype)
    with tf.GradientTape() as tape:
        tape.watch([alpha, beta])
        sample = tf.random.stateless_gamma([3, 2, 4], [5, 6], alpha, beta, dtype=dtype)
        loss = tf.reduce_sum(sample ** 2)
    d_alpha, d_beta = tape.gradient(loss, [alpha, beta])
    np.testing.assert_array_equal(sample.numpy().reshape(-1),
                                  np.array(entry["sample"], dtype))
    assert d_alpha.shape == alpha.shape and d_beta.shape == beta.shape
    rtol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(d_alpha.numpy().reshape(-1), entry["d_alpha"], rtol=rtol)
    np.testing.assert_allclose(d_beta.numpy().reshape(-1), entry["d_beta"], rtol=rtol)


def test_stateful_gamma_gradient_sums_over_the_sample_dimensions():
    alpha = tf.Variable([0.5, 2.0, 30.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        sample = tf.random.gamma([4, 2], alpha, dtype=tf.float64, seed=3)
    grad = tape.gradient(sample, alpha)
    # dx/dalpha > 0 for every sample (x grows with alpha); TF 2.21 gives a (3,) gradient.
    assert grad.shape == (3,) and np.all(grad.numpy() > 0)


def test_shapes_dtypes_and_special_parameters_as_tensorflow():
    # TF 2.21's answers.
    assert tf.random.gamma([2], [[1.0], [2.0]], beta=[1.0, 2.0, 3.0], seed=3).shape == (2, 2, 3)
    assert tf.random.gamma([0], [1.0, 2.0]).shape == (0, 2)
    assert tf.random.gamma([3], tf.zeros([0])).shape == (3, 0)
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(tf.random.gamma([3], 0.0, seed=1).numpy(), [tiny] * 3)
    assert np.isnan(tf.random.gamma([3], -1.0, seed=1).numpy()).all()
    assert np.isinf(tf.random.gamma([2], float("inf"), seed=1).numpy()).all()
    assert np.isinf(tf.random.gamma([2], 2.0, beta=0.0, seed=1).numpy()).all()
    assert tf.random.gamma([2], 2, seed=3).dtype == tf.float32
    assert tf.random.poisson([3], 3).dtype == tf.float32
    assert tf.random.poisson([3], tf.constant([3])).shape == (3, 1)
    np.testing.assert_array_equal(tf.random.poisson([3], -3.0, seed=2).numpy(), [0, 0, 0])
    assert tf.random.stateless_poisson([0, 2], [1, 2], [1.0, 2.0]).shape == (0, 2)
    assert tf.random.stateless_poisson([2, 2], [1, 2], [1, 20]).dtype == tf.int32
    np.testing.assert_array_equal(
        tf.random.stateless_binomial([2], [1, 2], 5.0, 1.5).numpy(), [5, 5])
    np.testing.assert_array_equal(
        tf.random.stateless_binomial([2], [1, 2], -5.0, 0.5).numpy(), [0, 0])
    assert np.isnan(tf.random.stateless_binomial([2], [1, 2], 5.0, float("nan"),
                                                 output_dtype=tf.float32).numpy()).all()
    assert tf.random.stateless_binomial([2], [1, 2], 5, 0.5).dtype == tf.int32


def test_python_float_rates_are_double_for_poisson_and_float_for_stateless_poisson():
    # RandomPoissonV2's rate defaults to double, StatelessRandomPoisson's to float: 0.1 as
    # float32 and as float64 give different samples, and each op matches its own.
    tf.random.set_seed(8)
    a = tf.random.poisson([200], 0.1, seed=1)
    tf.random.set_seed(8)
    b = tf.random.poisson([200], tf.constant(0.1, tf.float64), seed=1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = tf.random.stateless_poisson([200], [3, 4], 0.1)
    d = tf.random.stateless_poisson([200], [3, 4], tf.constant(0.1, tf.float32))
    np.testing.assert_array_equal(c.numpy(), d.numpy())


def test_tracing_does_not_move_the_streams():
    tf.random.set_seed(3)
    eager = [tf.random.gamma([4], 2.0, seed=11).numpy() for _ in range(2)]
    tf.random.set_seed(3)
    f = tf.function(lambda: tf.random.gamma([4], 2.0, seed=11))
    f.get_concrete_function()
    np.testing.assert_array_equal(f().numpy(), eager[0])
    np.testing.assert_array_equal(f().numpy(), eager[1])


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.random.gamma([2], 2.0, dtype=tf.int32), TypeError,
     "Cannot convert 2.0 to EagerTensor of dtype int32"),
    (lambda: tf.random.gamma([-1], 1.0), tf.errors.InvalidArgumentError,
     "Dimension -1 must be >= 0"),
    (lambda: tf.random.gamma([2], [1.0, 2.0], beta=[1.0, 2.0, 3.0]),
     tf.errors.InvalidArgumentError, r"Incompatible shapes: \[2\] vs. \[3\]"),
    (lambda: tf.random.gamma([2], tf.constant(2.0, tf.float64)), ValueError,
     "alpha: Tensor conversion requested dtype float32 for Tensor with dtype float64"),
    (lambda: tf.random.gamma(2, 2.0), tf.errors.InvalidArgumentError,
     "shape must be a vector of {int32,int64}"),
    (lambda: tf.random.poisson([3], 3.0, dtype=tf.bool), tf.errors.InvalidArgumentError,
     "Value for attr 'dtype' of bool is not in the list of allowed values: half, float, "
     "double, int32, int64"),
    (lambda: tf.random.poisson([-2], [1.0, 2.0]), tf.errors.InvalidArgumentError,
     "Dimension -2 must be >= 0"),
    (lambda: tf.random.stateless_poisson([2, 3], [1, 2], [1.0, 2.0]),
     tf.errors.InvalidArgumentError, "Shape passed in must end with broadcasted shape"),
    (lambda: tf.random.stateless_poisson([2], [1.0, 2.0], 1.0), tf.errors.InvalidArgumentError,
     "Value for attr 'Tseed' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.random.stateless_poisson([2], [1, 2, 3], 1.0), tf.errors.InvalidArgumentError,
     r"seed must have shape \[2\], not \[3\]"),
    (lambda: tf.random.stateless_poisson([2], [1, 2], 1.0, dtype=tf.uint8),
     tf.errors.InvalidArgumentError, "Value for attr 'dtype' of uint8"),
    (lambda: tf.random.stateless_gamma([2, 3], [1, 2], [1.0, 2.0]),
     tf.errors.InvalidArgumentError, "Shape passed in must end with broadcasted shape"),
    (lambda: tf.random.stateless_gamma([3], [1, 2], 2.5, dtype=tf.int32), TypeError,
     "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda: tf.random.stateless_binomial([2, 3], [1, 2], [5.0, 6.0], [0.5, 0.2, 0.1]),
     tf.errors.InvalidArgumentError,
     r"counts and probs must have compatible batch dimensions: \[2\] vs. \[3\]"),
    (lambda: tf.random.stateless_binomial([3, 2], [1, 2], [5.0, 6.0, 7.0], 0.5),
     tf.errors.InvalidArgumentError, "Shape passed in must end with broadcasted shape"),
    (lambda: tf.random.stateless_binomial([2], [1, 2], tf.constant(5.0),
                                          tf.constant(0.5, tf.float64)),
     tf.errors.InvalidArgumentError, r"cannot compute StatelessRandomBinomial as input "
     r"#3\(zero-based\) was expected to be a float tensor but is a double tensor"),
    (lambda: tf.random.stateless_binomial([2], [1, 2], tf.constant(5), tf.constant(1)),
     tf.errors.NotFoundError, "StatelessRandomBinomial"),
    (lambda: tf.random.stateless_binomial([2], [1, 2], 5.0, 0.5, output_dtype=tf.uint8),
     tf.errors.InvalidArgumentError, "Value for attr 'dtype' of uint8"),
])
def test_errors_as_tensorflow(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_generator_binomial_errors_leave_the_state_alone():
    gen = tf.random.Generator.from_seed(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="StatefulRandomBinomial"):
        gen.binomial([2], 5, 0.5)                       # int32 counts: no kernel (TF 2.21)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input #4\(zero-based\) was expected to be a float tensor but "
                             r"is a double tensor"):
        gen.binomial([2], 5.0, tf.constant(0.5, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Shape passed in must end with broadcasted shape"):
        gen.binomial([3], [5.0, 6.0], 0.5)
    assert gen.state.numpy().tolist() == [1, 0, 0]
    gen.binomial([0], 5.0, 0.5)                          # TF 2.21: moves by 150 * 256
    assert gen.state.numpy().tolist() == [38401, 0, 0]


def test_inputs_tensorflow_never_returns_on_raise_instead():
    # TF 2.21's kernels loop forever on these; tapeflow says why instead.
    with pytest.raises(tf.errors.InvalidArgumentError, match="loops forever"):
        tf.random.poisson([2], float("nan"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="loops forever"):
        tf.random.stateless_poisson([2], [1, 2], 1e5, dtype=tf.float16)
    # A NaN probability has no integer sample (TF casts NaN to int: undefined).
    with pytest.raises(tf.errors.InvalidArgumentError, match="NaN probability"):
        tf.random.stateless_binomial([2], [1, 2], 5.0, float("nan"), output_dtype=tf.int64)
