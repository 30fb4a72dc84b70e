"""Keras optimizers: lockstep against NumPy implementations of Keras 3's published update
formulas (keras/src/optimizers/*.py), plus the API behaviour users rely on."""


import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import optimizers


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.normal(size=(3, 2))
    b0 = rng.normal(size=(2,))
    batches = [(rng.normal(size=(4, 3)), rng.normal(size=(4, 2))) for _ in range(20)]
    return w0, b0, batches


def _grads_np(w, b, x, y):
    """Gradients of mean((x w + b - y)^2) in NumPy."""
    r = x @ w + b - y
    g = 2 * r / r.size
    return x.T @ g, g.sum(0)


def _run_tapeflow(opt, dtype="float64"):
    w0, b0, batches = _problem()
    w, b = tf.Variable(w0.astype(dtype)), tf.Variable(b0.astype(dtype))
    for x, y in batches:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x.astype(dtype), w) + b - y.astype(dtype)))
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
    return w.numpy(), b.numpy()


def _run_numpy(update, state_init):
    w0, b0, batches = _problem()
    params = [w0.copy(), b0.copy()]
    states = [state_init(p) for p in params]
    for t, (x, y) in enumerate(batches, start=1):
        grads = _grads_np(params[0], params[1], x, y)
        for i, g in enumerate(grads):
            params[i], states[i] = update(params[i], g, states[i], t)
    return params


def _adam(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    def update(p, g, s, t):
        m, v = s
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        return p - m * alpha / (np.sqrt(v) + eps), (m, v)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p))


def _sgd(lr=0.05, momentum=0.9, nesterov=False):
    def update(p, g, m, t):
        m = momentum * m - lr * g
        if nesterov:
            return p + momentum * m - lr * g, m
        return p + m, m
    return update, np.zeros_like


def _rmsprop(lr=0.01, rho=0.9, eps=1e-7, momentum=0.0, centered=False):
    def update(p, g, s, t):
        vel, mom, avg = s
        vel = rho * vel + (1 - rho) * g * g
        if centered:
            avg = rho * avg + (1 - rho) * g
            denom = vel - avg * avg + eps
        else:
            denom = vel + eps
        inc = lr * g / np.sqrt(denom)
        if momentum > 0:
            mom = momentum * mom + inc
            return p - mom, (vel, mom, avg)
        return p - inc, (vel, mom, avg)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p), np.zeros_like(p))


def _adagrad(lr=0.1, init=0.1, eps=1e-7):
    def update(p, g, acc, t):
        acc = acc + g * g
        return p - lr * g / np.sqrt(acc + eps), acc
    return update, lambda p: np.full_like(p, init)


@pytest.mark.parametrize("make_opt, reference", [
    (lambda: optimizers.Adam(learning_rate=0.01), _adam()),
    (lambda: optimizers.SGD(learning_rate=0.05, momentum=0.9), _sgd()),
    (lambda: optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True), _sgd(nesterov=True)),
    (lambda: optimizers.SGD(learning_rate=0.05), _sgd(momentum=0.0)),
    (lambda: optimizers.RMSprop(learning_rate=0.01), _rmsprop()),
    (lambda: optimizers.RMSprop(learning_rate=0.01, momentum=0.5, centered=True),
     _rmsprop(momentum=0.5, centered=True)),
    (lambda: optimizers.Adagrad(learning_rate=0.1), _adagrad()),
], ids=["adam", "sgd_momentum", "sgd_nesterov", "sgd", "rmsprop", "rmsprop_centered_momentum",
        "adagrad"])
def test_lockstep_with_numpy_reference_20_steps(make_opt, reference):
    update, init = reference
    got = _run_tapeflow(make_opt())
    want = _run_numpy(update, init)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_adamw_decays_weights_before_the_adam_step():
    update, init = _adam(lr=0.01)

    def decayed(p, g, s, t):
        return update(p - p * 0.004 * 0.01, g, s, t)
    got = _run_tapeflow(optimizers.AdamW(learning_rate=0.01))
    want = _run_numpy(decayed, init)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_float32_adam_tracks_the_float64_reference():
    got = _run_tapeflow(optimizers.Adam(learning_rate=0.01), dtype="float32")
    want = _run_numpy(*_adam())
    assert got[0].dtype == np.float32
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-5)


def test_defaults_match_keras():
    adam = optimizers.Adam()
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    assert float(adam.learning_rate.numpy()) == pytest.approx(0.001)
    assert float(optimizers.SGD().learning_rate.numpy()) == pytest.approx(0.01)
    assert optimizers.RMSprop().rho == 0.9
    assert optimizers.Adagrad().initial_accumulator_value == 0.1
    assert optimizers.AdamW().weight_decay == 0.004


def test_slots_are_created_lazily_and_iterations_count_steps():
    opt = optimizers.Adam()
    assert not opt.built and len(opt.variables) == 2  # iterations, learning_rate
    v = tf.Variable([1.0, 2.0])
    opt.apply_gradients([(tf.constant([0.1, 0.1]), v)])
    assert opt.built and len(opt.variables) == 4  # + momentum, velocity
    opt.apply_gradients([(tf.constant([0.1, 0.1]), v)])
    assert int(opt.iterations.numpy()) == 2
    assert opt.iterations.dtype == tf.int64


def test_none_gradients_are_skipped_with_a_warning():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    opt = optimizers.SGD(learning_rate=0.1)
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(tf.constant(1.0), a), (None, b)])
    assert float(a.numpy()) == pytest.approx(0.9) and float(b.numpy()) == 2.0
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, a)])


def test_unknown_variable_after_build_is_rejected():
    opt = optimizers.SGD()
    opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0))])
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0))])


def test_learning_rate_must_be_a_float():
    with pytest.raises(ValueError, match="should be float"):
        optimizers.Adam(learning_rate=1)


def test_clipnorm_clipvalue_and_global_clipnorm():
    g = tf.constant([3.0, 4.0])
    for kwargs, expected in [({"clipnorm": 1.0}, [0.4, 1.2]), ({"clipvalue": 0.5}, [0.5, 1.5]),
                             ({"global_clipnorm": 2.5}, [-0.5, 0.0])]:
        v = tf.Variable([1.0, 2.0])
        optimizers.SGD(learning_rate=1.0, **kwargs).apply_gradients([(g, v)])
        np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="Only one of"):
        optimizers.SGD(clipnorm=1.0, clipvalue=1.0)


def test_schedules_follow_the_step():
    sched = optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    opt = optimizers.SGD(learning_rate=sched)
    v = tf.Variable(0.0)
    seen = []
    for _ in range(3):
        seen.append(float(opt.learning_rate.numpy()))
        opt.apply_gradients([(tf.constant(1.0), v)])
    np.testing.assert_allclose(seen, [0.1, 0.1 * 0.5 ** 0.5, 0.05], rtol=1e-6)
    np.testing.assert_allclose(float(v.numpy()), -sum(seen), rtol=1e-6)
    stair = optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    assert float(stair(3).numpy()) == pytest.approx(0.05)
    cos = optimizers.schedules.CosineDecay(1.0, decay_steps=10, alpha=0.1)
    # Keras: 1.0 * ((1 - 0.1) * 0.5 * (1 + cos(pi * 5/10)) + 0.1) = 0.55
    assert float(cos(5).numpy()) == pytest.approx(0.55, rel=1e-6)
    assert float(cos(20).numpy()) == pytest.approx(0.1, rel=1e-6)
    warm = optimizers.schedules.CosineDecay(0.0, 10, warmup_target=1.0, warmup_steps=4)
    assert float(warm(2).numpy()) == pytest.approx(0.5)


def test_learning_rate_is_settable():
    opt = optimizers.Adam(learning_rate=0.01)
    opt.learning_rate = 0.5
    assert float(opt.learning_rate.numpy()) == pytest.approx(0.5)


def test_get_by_name_and_instance():
    assert isinstance(optimizers.get("adam"), optimizers.Adam)
    assert isinstance(optimizers.get("SGD"), optimizers.SGD)
    assert isinstance(optimizers.get("rmsprop"), optimizers.RMSprop)
    opt = optimizers.Adagrad()
    assert optimizers.get(opt) is opt
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        optimizers.get("nope")


def test_auto_names_are_numbered():
    # Keras 3 snake-cases the class name: 'rm_sprop', 'adam_w', then '_1', '_2', ...
    a, b = optimizers.RMSprop(), optimizers.RMSprop()
    assert a.name.startswith("rm_sprop") and b.name.startswith("rm_sprop_") and a.name != b.name
    assert optimizers.AdamW().name.startswith("adam_w")


def test_piecewise_constant_and_inverse_time_decay_match_keras():
    from tapeflow.keras.optimizers import schedules
    piecewise = schedules.PiecewiseConstantDecay([2, 4], [0.1, 0.05, 0.01])
    got = [float(piecewise(s)) for s in range(7)]
    np.testing.assert_allclose(got, [0.1, 0.1, 0.1, 0.05, 0.05, 0.01, 0.01], rtol=1e-6)
    assert piecewise(3).dtype.name == "float32"
    with pytest.raises(ValueError, match="should be 1 less than the length of values"):
        schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.2])
    inverse = schedules.InverseTimeDecay(0.1, 2, 0.5)
    np.testing.assert_allclose([float(inverse(0)), float(inverse(3))], [0.1, 0.0571429],
                               rtol=1e-5)


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop"])
def test_checkpoint_restored_before_fit_keeps_the_optimizer_state(name, tmp_path):
    """A tf.train.Checkpoint restored into a model whose optimizer is not built yet, then
    `fit`: the slots start from the checkpoint, as in TF (fit's traced step builds the
    optimizer; the restored slots were lost there and training went elsewhere)."""
    x, y = np.ones((8, 2), "float32"), np.zeros((8, 1), "float32")

    def compiled():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.build((None, 2))
        model.compile(getattr(tf.keras.optimizers, name)(0.1, **(
            {"momentum": 0.9} if name == "SGD" else {})), "mse")
        return model

    original = compiled()
    original.fit(x, y, epochs=2, verbose=0)
    path = tf.train.Checkpoint(model=original, optimizer=original.optimizer).save(
        str(tmp_path / "ckpt"))
    restored = compiled()
    tf.train.Checkpoint(model=restored, optimizer=restored.optimizer).restore(path)
    original.fit(x, y, epochs=1, verbose=0)
    restored.fit(x, y, epochs=1, verbose=0)
    for a, b in zip(original.optimizer.variables, restored.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(original.get_weights()[0], restored.get_weights()[0])
