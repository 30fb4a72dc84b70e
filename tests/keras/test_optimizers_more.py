"""Nadam, Adamax, Lion, Adadelta and Ftrl, and `gradient_accumulation_steps` /
`loss_scale_factor` on every optimizer, against Keras 3.15's numbers (TensorFlow backend)
recorded by tools/record_keras_optimizers.py into fixtures/optimizers.npz + .json.

The steps are bitwise equal to Keras's except where an op of TensorFlow rounds differently
from NumPy (see `MAX_ULP`): TF's float32 Pow (Eigen's) is not correctly rounded (1-2 ulp off
NumPy's powf on ~30% of inputs: Nadam's 0.96**t and beta**t, Adam's beta_1**4, Ftrl's
accumulator**-learning_rate_power, which Ftrl's `clip(z) - z` then amplifies), and TF's
reduce_sum adds 12 elements in another order (clipnorm)."""

import json
import os
import re
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _optimizer_steps import make, ulps  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "optimizers")
with open(FIXTURES + ".json") as f:
    META = json.load(f)
DATA = np.load(FIXTURES + ".npz")
CASES = META["cases"]
SPARSE_ROWS = [2, 0, 2]

# Measured against the fixture (the maximum over all steps and variables).
MAX_ULP = {"Nadam": 2, "Nadam_clipnorm": 32, "Adamax_clipnorm": 4, "Lion_clipnorm": 8,
           "Adadelta_clipnorm": 2, "Adam_accum_clip_wd": 2, "AdamW_lsf": 1}
# Ftrl: its pow's last-place error (TF's float32 pow is not correctly rounded, and NumPy's
# differs between releases: 4 ulp on NumPy 2.4, 142 ulp on a small weight on 2.0) is
# amplified by clip(z) - z, so its cases compare relatively.
FTRL_RTOL = 2e-4


def check(case, got, expected):
    if np.asarray(expected).dtype.kind != "f":
        np.testing.assert_array_equal(got, expected)
    elif case.startswith("Ftrl"):
        np.testing.assert_allclose(got, expected, rtol=FTRL_RTOL, atol=1e-7)
    else:
        limit = MAX_ULP.get(case, MAX_ULP.get(case.split("_")[0], 0))
        assert ulps(got, expected) <= limit, (case, got, expected)


def run_case(case, traced=False):
    """Runs the case's steps; yields (step, [kernel, bias, *optimizer variables], opt)."""
    spec = CASES[case]
    opt = make(spec["class"], spec["kwargs"])
    kernel = keras.Variable(DATA["init_kernel"], name="kernel")
    bias = keras.Variable(DATA["init_bias"], name="bias")

    def step(gk, gb):
        opt.apply_gradients([(gk, kernel), (gb, bias)])

    if traced:
        step = tf.function(step)
    for i in range(spec["steps"]):
        gk = tf.constant(DATA["grads_kernel"][i])
        if case.endswith("_sparse"):
            gk = tf.IndexedSlices(gk, tf.constant(SPARSE_ROWS), tf.constant([3, 4]))
        step(gk, tf.constant(DATA["grads_bias"][i]))
        yield i, [kernel.numpy(), bias.numpy()] + [v.numpy() for v in opt.variables], opt


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_match_keras(case):
    for i, values, _ in run_case(case):
        expected = [DATA[f"{case}/var0"][i], DATA[f"{case}/var1"][i]] + [
            DATA[f"{case}/opt{j}"][i] for j in range(len(CASES[case]["variables"]))]
        assert len(values) == len(expected)
        for got, want in zip(values, expected):
            check(case, got, want)


TRACED = sorted(c for c in CASES if "accum" in c or c.endswith(("_default", "_ema", "_sparse")))


@pytest.mark.parametrize("case", TRACED)
def test_traced_steps_match_keras(case):
    """Inside tf.function (accumulation as a traced cond, as in `fit`)."""
    for i, values, _ in run_case(case, traced=True):
        check(case, values[0], DATA[f"{case}/var0"][i])
        check(case, values[1], DATA[f"{case}/var1"][i])


@pytest.mark.parametrize("case", sorted(CASES))
def test_variables_are_named_and_ordered_as_keras(case):
    *_, (_, _, opt) = run_case(case)
    got = [(v.name.split(":")[0], list(v.shape), v.dtype.name) for v in opt.variables]
    # Keras numbers Nadam's unnamed scalar ('variable_3'), each one made in the process.
    want = [(re.sub(r"^variable_\d+$", "variable", n), s, d) for n, s, d in
            CASES[case]["variables"]]
    assert got == want


@pytest.mark.parametrize("case", sorted(c for c in CASES if "accum" in c))
def test_iterations_count_applied_updates(case):
    got = [int(np.asarray(opt.iterations)) for _, _, opt in run_case(case)]
    assert got == CASES[case]["iterations"]


def _without_name(config):
    return {k: v for k, v in config.items() if k != "name"}


@pytest.mark.parametrize("case", sorted(c for c in CASES if "schedule" not in c))
def test_get_config_matches_keras_and_round_trips(case):
    spec = CASES[case]
    opt = make(spec["class"], spec["kwargs"])
    config = opt.get_config()
    assert _without_name(config) == _without_name(spec["config"])
    again = type(opt).from_config(config)
    assert again.get_config() == config


@pytest.mark.parametrize("name", ["Nadam", "Adamax", "Lion", "Adadelta", "Ftrl"])
def test_get_by_name_and_serialize(name):
    opt = keras.optimizers.get(name.lower())
    assert type(opt).__name__ == name
    assert opt.name.startswith(name.lower())
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(opt))
    assert type(restored) is type(opt)


def test_bad_arguments_raise_keras_errors():
    with pytest.raises(ValueError, match=r"`gradient_accumulation_steps` must be an integer "
                                         r">= 2. Received: gradient_accumulation_steps=1"):
        keras.optimizers.Adam(gradient_accumulation_steps=1)
    with pytest.raises(ValueError, match=r"Argument `beta_1` must be in the \[0, 1\] range"):
        keras.optimizers.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="`learning_rate_power` needs to be negative or zero. "
                                         "Received: learning_rate_power=0.5."):
        keras.optimizers.Ftrl(learning_rate_power=0.5)
    for arg in ["initial_accumulator_value", "l1_regularization_strength",
                "l2_regularization_strength", "l2_shrinkage_regularization_strength"]:
        with pytest.raises(ValueError, match=f"`{arg}` needs to be positive or zero. "
                                             f"Received: {arg}=-1.0."):
            keras.optimizers.Ftrl(**{arg: -1.0})


def test_scale_loss_multiplies_by_the_factor():
    assert float(keras.optimizers.SGD(loss_scale_factor=4.0).scale_loss(tf.constant(1.5))) == 6.0
    loss = tf.constant(1.5)
    assert keras.optimizers.SGD().scale_loss(loss) is loss


# -- fit ------------------------------------------------------------------------------------

def _fit_model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1)),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros")])


def _fit_data():
    rng = np.random.default_rng(1)
    return (rng.normal(size=(16, 3)).astype("float32"),
            rng.normal(size=(16, 2)).astype("float32"))


@pytest.mark.parametrize("case", sorted(META["fit"]))
def test_fit_matches_keras(case):
    spec = META["fit"][case]
    model = _fit_model()
    model.compile(optimizer=make(spec["class"], spec["kwargs"]), loss="mse")
    x, y = _fit_data()
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, DATA[f"fit/{case}/w{i}"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(history.history["loss"], spec["loss"], rtol=1e-5)
    assert len(model.optimizer.variables) == len(spec["variables"])


@pytest.mark.parametrize("name", ["Nadam", "Ftrl"])
def test_keras_file_keeps_the_slots(tmp_path, name):
    """A .keras file stores `optimizer.variables` in order (Nadam's product scalar last, the
    gradient accumulators after the averages), and loading restores them."""
    model = _fit_model()
    opt = make(name, {"learning_rate": 0.05, "gradient_accumulation_steps": 2,
                      "use_ema": True})
    model.compile(optimizer=opt, loss="mse")
    x, y = _fit_data()
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.optimizer) is type(opt)
    assert loaded.optimizer.get_config() == opt.get_config()
    for a, b in zip(loaded.optimizer.variables, opt.variables, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
