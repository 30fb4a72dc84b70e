"""The options every Keras 3.15 optimizer takes (use_ema, ema_momentum, ema_overwrite_frequency,
loss_scale_factor, gradient_accumulation_steps), given positionally in Keras's parameter
order, against Keras's numbers recorded by tools/record_keras_optimizer_options.py into
fixtures/optimizer_options.json + .npz and fixtures/optimizer_options_adam.keras.

The steps are bitwise Keras's except where a TensorFlow op rounds differently from NumPy
(see `MAX_ULP`; the same ops as in test_optimizers_more.py: TF's float32 Pow in Nadam's
bias corrections, Ftrl's accumulator ** -learning_rate_power amplified by its
clip(z) - z, which is compared relatively)."""

import json
import os
import re
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _optimizer_steps import ulps  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "optimizer_options.json")) as f:
    META = json.load(f)
DATA = np.load(os.path.join(FIXTURES, "optimizer_options.npz"))
CASES = META["cases"]
KERAS_FILE = os.path.join(FIXTURES, "optimizer_options_adam.keras")

# Measured against the fixture (the largest distance over all steps and variables). Adam's
# and AdamW's bias corrections raise beta to the step in float32: NumPy 2.0's power rounds
# 1 ulp away from 2.4's (and TF's) there, so on the lowest supported NumPy they are 1 ulp
# off, and their moving averages of the weights (use_ema) 2 (bitwise on NumPy 2.4).
MAX_ULP = {"Nadam": 1, "Adam": 2, "AdamW": 2}
# fit: TF's backward pass of the mean squared error sums in another order than NumPy's; the
# largest distance (16 ulp) is on a hidden bias of 0.0023, 2e-9 absolute.
FIT_MAX_ULP = 16
FTRL_RTOL = 2e-4


def check(case, got, expected, what):
    if np.asarray(expected).dtype.kind != "f":
        np.testing.assert_array_equal(got, expected, err_msg=f"{case} {what}")
    elif case.startswith("Ftrl"):
        np.testing.assert_allclose(got, expected, rtol=FTRL_RTOL, atol=1e-7,
                                   err_msg=f"{case} {what}")
    else:
        limit = MAX_ULP.get(case.split("_")[0], 0)
        assert ulps(got, expected) <= limit, (case, what, got, expected)


def make(case):
    """The case's optimizer, built from Keras's positional arguments."""
    spec = CASES[case]
    return getattr(keras.optimizers, spec["class"])(*spec["args"])


def run(case, traced=False):
    """Runs the case's steps; returns (optimizer, kernel, bias, per-step states)."""
    opt = make(case)
    kernel = keras.Variable(DATA["init_kernel"], name="kernel")
    bias = keras.Variable(DATA["init_bias"], name="bias")

    def step(gk, gb):
        opt.apply_gradients([(gk, kernel), (gb, bias)])

    if traced:
        step = tf.function(step)
    states = []
    for i in range(len(CASES[case]["iterations"])):
        step(tf.constant(DATA["grads_kernel"][i]), tf.constant(DATA["grads_bias"][i]))
        states.append((int(opt.iterations.numpy()),
                       [kernel.numpy(), bias.numpy()] + [v.numpy() for v in opt.variables]))
    return opt, kernel, bias, states


def expected_state(case, step, index):
    key = f"{case}/var{index}" if index < 2 else f"{case}/opt{index - 2}"
    return DATA[key][step]


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_match_keras(case):
    """Every variable, slot, moving average and accumulator after every step; `iterations`
    counts applied updates; `finalize_variable_values` swaps the averages in."""
    opt, kernel, bias, states = run(case)
    for step, (iterations, values) in enumerate(states):
        assert iterations == CASES[case]["iterations"][step], (case, step)
        assert len(values) == 2 + len(CASES[case]["variables"])
        for index, value in enumerate(values):
            check(case, value, expected_state(case, step, index), f"step {step} #{index}")
    opt.finalize_variable_values([kernel, bias])
    check(case, kernel.numpy(), DATA[f"{case}/final0"], "finalized kernel")
    check(case, bias.numpy(), DATA[f"{case}/final1"], "finalized bias")


@pytest.mark.parametrize("case", sorted(c for c in CASES if not c.endswith("_ema")))
def test_traced_steps_match_keras(case):
    """The same steps inside one tf.function (the accumulation and overwrite conds traced)."""
    _, _, _, states = run(case, traced=True)
    for step, (iterations, values) in enumerate(states):
        assert iterations == CASES[case]["iterations"][step]
        for index, value in enumerate(values):
            check(case, value, expected_state(case, step, index), f"traced step {step} #{index}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_variables_and_config_are_keras(case):
    """Keras's variable names, shapes and order (iterations, learning rate, averages,
    accumulators, then the slots) and its `get_config()`, which rebuilds the optimizer."""
    opt, _, _, _ = run(case)
    got = [[v.name.split(":")[0], list(v.shape), v.dtype.name] for v in opt.variables]
    # Keras numbers Nadam's unnamed scalar ('variable_3'), each one made in the process.
    want = [[re.sub(r"^variable_\d+$", "variable", n), s, d]
            for n, s, d in CASES[case]["variables"]]
    assert got == want
    assert _comparable(case, opt.get_config()) == _comparable(case, CASES[case]["config"])
    again = type(opt).from_config(opt.get_config())
    assert again.get_config() == opt.get_config()


def _comparable(case, config):
    # An optimizer made without a name is auto-numbered by how many came before it.
    return config if case.endswith("_all") else {k: v for k, v in config.items()
                                                  if k != "name"}


def test_base_optimizer_takes_keras_positional_arguments():
    """`keras.optimizers.Optimizer(*args, **kwargs)` hands them to the base's parameters."""
    base = META["base"]
    assert keras.optimizers.Optimizer(*base["args"]).get_config() == base["config"]
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized"):
        keras.optimizers.Optimizer(0.1, nonsense=1)


def _fit_model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    # Named, so the optimizer's slot names ('options_model_hidden_kernel_average') do not
    # depend on how many models the process made before.
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1), name="hidden"),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros", name="out")],
        name="options_model")


def _fitted():
    model = _fit_model()
    model.compile(optimizer=keras.optimizers.Adam(**META["fit"]["kwargs"]), loss="mse")
    history = model.fit(DATA["fit_x"], DATA["fit_y"], batch_size=4, epochs=2, shuffle=False,
                        verbose=0)
    return model, history


def test_fit_with_every_option_matches_keras():
    """`fit` scales the loss, accumulates two batches per update, keeps and overwrites the
    moving averages and ends with them in the model, as Keras's."""
    model, history = _fitted()
    fit = META["fit"]
    np.testing.assert_allclose(history.history["loss"], fit["loss"], rtol=1e-6)
    for i, w in enumerate(model.get_weights()):
        assert ulps(w, DATA[f"fit/w{i}"]) <= FIT_MAX_ULP, i
    assert int(model.optimizer.iterations.numpy()) == fit["iterations"]
    assert [[v.name.split(":")[0], list(v.shape)] for v in model.optimizer.variables] == \
        fit["variables"]
    for i, v in enumerate(model.optimizer.variables):
        got, want = v.numpy(), DATA[f"fit/opt{i}"]
        if want.dtype.kind == "f":
            assert ulps(got, want) <= FIT_MAX_ULP, (v.name, got, want)
        else:
            np.testing.assert_array_equal(got, want)
    assert _comparable("fit", model.optimizer.get_config()) == _comparable("fit", fit["config"])


def test_keras_file_restores_every_option_and_slot():
    """A `.keras` file Keras wrote of that model: the optimizer comes back with Keras's
    config and every slot (averages, accumulators, moments), bitwise."""
    model = keras.saving.load_model(KERAS_FILE)
    opt = model.optimizer
    assert opt.get_config() == META["fit"]["loaded_config"]
    assert [[v.name.split(":")[0], list(v.shape)] for v in opt.variables] == \
        META["fit"]["loaded_variables"]
    for i, v in enumerate(opt.variables):
        np.testing.assert_array_equal(v.numpy(), DATA[f"fit/opt{i}"])
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, DATA[f"fit/w{i}"])


def test_keras_file_round_trip_keeps_the_state(tmp_path):
    """Saved by tapeflow and loaded again: the same config, slots and iterations, and the
    next step continues as the original optimizer's does."""
    model, _ = _fitted()
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert len(model.optimizer.variables) == len(loaded.optimizer.variables)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    x, y = DATA["fit_x"][:4], DATA["fit_y"][:4]
    for m in (model, loaded):
        m.train_on_batch(x, y)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
