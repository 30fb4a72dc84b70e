"""Adafactor, Lamb, Muon and ScheduleFreeAdamW, and the PolynomialDecay / CosineDecayRestarts
schedules, against Keras 3.15.1's numbers (TensorFlow 2.21 backend) recorded by
tools/record_keras_optimizers_more.py into fixtures/optimizers_more.npz + .json (and Keras's
own `.keras` files, fixtures/optimizers_more_<Name>.keras).

Steps are compared in float32 units in the last place (`MAX_ULP`, measured): TF's float32
Pow, its reductions' summation order and its matmul's differ from NumPy's in the last place,
which Muon's Newton-Schulz iteration and Lamb's trust ratio carry on."""

import json
import os
import re
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.optimizers import schedules

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _optimizer_steps import make, ulps  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "optimizers_more")
with open(FIXTURES + ".json") as f:
    META = json.load(f)
DATA = np.load(FIXTURES + ".npz")
CASES = META["cases"]
SPARSE_ROWS = [2, 0, 2]
NEW = ["Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"]

# Measured against the fixture (the maximum over all steps and variables). Adafactor_relative's
# 24: a 1-ulp difference in a step of ~0.5 subtracted from a weight of ~0.04 (cancellation).
# Lamb_sparse: 1 on NumPy 2.4, 32 on the lowest supported NumPy (2.0.2), whose float32 sums
# for the trust ratio's norms round otherwise; the ratio amplifies it, as for Lamb_clipnorm.
MAX_ULP = {"Adafactor": 6, "Adafactor_relative": 24, "Lamb": 1, "Lamb_sparse": 32,
           "Lamb_clipnorm": 32, "Muon": 5, "Muon_clipnorm": 16, "ScheduleFreeAdamW": 2}


def check(case, got, expected):
    if np.asarray(expected).dtype.kind != "f":
        np.testing.assert_array_equal(got, expected)
    else:
        limit = MAX_ULP.get(case, MAX_ULP.get(case.split("_")[0], 0))
        assert ulps(got, expected) <= limit, (case, ulps(got, expected), got, expected)


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


def expected_values(case, i):
    return [DATA[f"{case}/var0"][i], DATA[f"{case}/var1"][i]] + [
        DATA[f"{case}/opt{j}"][i] for j in range(len(CASES[case]["variables"]))]


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_match_keras(case):
    for i, values, _ in run_case(case):
        expected = expected_values(case, i)
        assert len(values) == len(expected)
        for got, want in zip(values, expected):
            check(case, got, want)


TRACED = sorted(c for c in CASES if c.endswith(("_default", "_accum", "_ema", "_sparse",
                                                "_schedule")))


@pytest.mark.parametrize("case", TRACED)
def test_traced_steps_match_keras(case):
    """Inside tf.function (accumulation as a traced cond, as in `fit`)."""
    for i, values, _ in run_case(case, traced=True):
        for got, want in zip(values, expected_values(case, i)):
            check(case, got, want)


@pytest.mark.parametrize("case", sorted(CASES))
def test_variables_are_named_and_ordered_as_keras(case):
    *_, (_, _, opt) = run_case(case)
    got = [(v.name.split(":")[0], list(v.shape), v.dtype.name) for v in opt.variables]
    assert got == [tuple(v) for v in CASES[case]["variables"]]


@pytest.mark.parametrize("case", sorted(c for c in CASES if "accum" in c))
def test_iterations_count_applied_updates(case):
    got = [int(np.asarray(opt.iterations)) for _, _, opt in run_case(case)]
    assert got == CASES[case]["iterations"]


def _without_name(config):
    return {k: v for k, v in config.items() if k != "name"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_get_config_matches_keras_and_round_trips(case):
    spec = CASES[case]
    opt = make(spec["class"], spec["kwargs"])
    config = opt.get_config()
    want = _without_name(spec["config"])
    if isinstance(want["learning_rate"], dict):   # Keras writes the schedule's full form
        lr = want["learning_rate"]
        want["learning_rate"] = {"class_name": lr["class_name"], "config": lr["config"]}
    assert _without_name(config) == want
    again = type(opt).from_config(config)
    assert again.get_config() == config


# -- names, serialization ------------------------------------------------------------------

@pytest.mark.parametrize("ident", sorted(META["get"]))
def test_get_by_name_as_keras(ident):
    """Keras 3.15's `get` knows Adafactor, Muon and ScheduleFreeAdamW by name, not Lamb."""
    want = META["get"][ident]
    if isinstance(want, list):
        with pytest.raises(getattr(__builtins__, want[0], None) or ValueError,
                           match=re.escape(want[1])):
            keras.optimizers.get(ident)
    else:
        assert type(keras.optimizers.get(ident)).__name__ == want


@pytest.mark.parametrize("name", NEW)
def test_serialize_matches_keras_and_deserializes(name):
    opt = getattr(keras.optimizers, name)(name="opt")
    config = keras.optimizers.serialize(opt)
    want = META["serialized"][name]
    assert config["class_name"] == want["class_name"]
    assert config["config"] == want["config"]
    restored = keras.optimizers.deserialize(want)   # Keras's dict, module and all
    assert type(restored) is type(opt)
    assert restored.get_config() == opt.get_config()


def test_bad_schedule_arguments_raise_keras_errors():
    with pytest.raises(ValueError, match=r"Argument `decay_steps` must be > 0. "
                                         r"Received: decay_steps=0"):
        schedules.PolynomialDecay(0.1, 0)
    with pytest.raises(ValueError, match=r"Argument `first_decay_steps` must be > 0. "
                                         r"Received: first_decay_steps=-2"):
        schedules.CosineDecayRestarts(0.1, -2)


# -- schedules -------------------------------------------------------------------------------

SCHEDULE_ULP = 4   # CosineDecayRestarts: TF's float32 log, pow and cos (measured: <= 3)


@pytest.mark.parametrize("case", sorted(META["schedules"]))
def test_schedule_values_match_keras(case):
    spec = META["schedules"][case]
    schedule = getattr(schedules, spec["class"])(**spec["kwargs"])
    steps = META["schedule_steps"]
    floats = [schedule(tf.constant(s)).numpy() for s in steps]
    ints = [schedule(tf.constant(int(s), tf.int64)).numpy() for s in steps]
    python = [schedule(s).numpy() for s in steps]
    assert np.asarray(floats).dtype.name == spec["dtype"]
    assert ulps(floats, DATA[f"schedule/{case}/values"]) <= SCHEDULE_ULP
    assert ulps(ints, DATA[f"schedule/{case}/int_values"]) <= SCHEDULE_ULP
    assert ulps(python, DATA[f"schedule/{case}/values"]) <= SCHEDULE_ULP


@pytest.mark.parametrize("case", sorted(META["schedules"]))
def test_schedule_traced_and_serialized_as_keras(case):
    spec = META["schedules"][case]
    schedule = getattr(schedules, spec["class"])(**spec["kwargs"])
    traced = tf.function(schedule)
    steps = META["schedule_steps"]
    values = [traced(tf.constant(s)).numpy() for s in steps]
    assert ulps(values, DATA[f"schedule/{case}/values"]) <= SCHEDULE_ULP
    assert schedule.get_config() == spec["config"]
    assert schedules.serialize(schedule) == spec["serialized"]
    again = schedules.deserialize(spec["serialized"])
    assert type(again) is type(schedule) and again.get_config() == spec["config"]
    short = schedules.deserialize({"class_name": spec["class"], "config": spec["config"]})
    assert short.get_config() == spec["config"]


def test_deserialize_refuses_an_unknown_schedule():
    # Keras 3.15 returns the string 'Nope' here; a schedule that is not one is refused.
    with pytest.raises(ValueError, match="Could not interpret decay identifier"):
        schedules.deserialize({"class_name": "Nope", "config": {}})


# -- fit and .keras files ----------------------------------------------------------------------

def _fit_model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1), name="hidden"),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros",
                           name="head")], name="net")


def _fit_data():
    rng = np.random.default_rng(1)
    return (rng.normal(size=(16, 3)).astype("float32"),
            rng.normal(size=(16, 2)).astype("float32"))


def _fitted(case, epochs=2):
    spec = META["fit"][case]
    model = _fit_model()
    model.compile(optimizer=make(spec["class"], spec["kwargs"]), loss="mse")
    x, y = _fit_data()
    history = model.fit(x, y, batch_size=4, epochs=epochs, shuffle=False, verbose=0)
    return model, history


def _names_and_shapes(opt):
    return [[v.name.split(":")[0], list(v.shape)] for v in opt.variables]


# Keras 3.15's TF `fit` builds the optimizer while it traces a step it then discards, which
# loses ScheduleFreeAdamW's copy of the variables into its 'momentum' slots (they start at 0
# and the first step sets every weight to about +-lr). tapeflow keeps the copy, as Keras's
# own `apply_gradients` does: its `fit` is compared with `fit`'s batches applied eagerly
# in Keras (`loop/` in the fixture).
FIT_AS_KERAS_LOOP = sorted(c for c in META["fit"] if c.startswith("ScheduleFreeAdamW"))


@pytest.mark.parametrize("case", sorted(META["fit"]))
def test_fit_matches_keras(case):
    """A traced `fit` (the train step a tf.function): weights, optimizer variables (names and
    values) and losses as Keras's."""
    spec = META["fit"][case]
    model, history = _fitted(case)
    opt = model.optimizer
    assert _names_and_shapes(opt) == spec["variables"]
    if case in FIT_AS_KERAS_LOOP:
        for i, w in enumerate(model.get_weights()):
            np.testing.assert_allclose(w, DATA[f"loop/{case}/w{i}"], rtol=1e-5, atol=1e-7)
        return
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, DATA[f"fit/{case}/w{i}"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(history.history["loss"], spec["loss"], rtol=1e-5)
    for i, v in enumerate(opt.variables):
        np.testing.assert_allclose(v.numpy(), DATA[f"fit/{case}/opt{i}"], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", NEW)
def test_loads_keras_file_with_its_optimizer(name):
    """Keras's own `.keras` file: the optimizer comes back with its config and every variable
    in Keras's order, and training goes on from there."""
    path = os.path.join(os.path.dirname(__file__), "fixtures", f"optimizers_more_{name}.keras")
    model = keras.models.load_model(path)
    opt = model.optimizer
    assert type(opt).__name__ == name
    assert _without_name(opt.get_config()) == _without_name(META["fit"][name]["config"])
    # Named as Keras names them after loading: the model's name is not in the paths.
    assert _names_and_shapes(opt) == META["fit"][name]["loaded_variables"]
    for i, v in enumerate(opt.variables):
        np.testing.assert_array_equal(v.numpy(), DATA[f"fit/{name}/opt{i}"])
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, DATA[f"fit/{name}/w{i}"])
    x, y = _fit_data()
    before = int(opt.iterations.numpy())
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert int(opt.iterations.numpy()) == before + 4


@pytest.mark.parametrize("name", NEW)
def test_keras_file_round_trip_keeps_the_slots(tmp_path, name):
    model, _ = _fitted(name, epochs=1)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.optimizer) is type(model.optimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables, strict=True):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- gradients of another shape ------------------------------------------------------------------

# (optimizer, variable shape, gradient shape) -> Keras 3.15.1 / TF 2.21's error and text
# (measured; TF's texts start with '{{function_node ...}} '), or None where it applies it.
SHAPE_CASES = {
    ("Adafactor", (3, 4), (2, 3)): (tf.errors.InvalidArgumentError,
                                    "Incompatible shapes: [3] vs. [2] [Op:AddV2] name: "),
    ("Adafactor", (3, 4), (4,)): (tf.errors.InvalidArgumentError,
                                  "Invalid reduction dimension (-2 for input with 1 "
                                  "dimension(s) [Op:Mean] name: "),
    ("Adafactor", (4,), (3, 4)): (ValueError, "Shape mismatch.The variable shape (4,), and "
                                              "the assigned value shape (3, 4) are "
                                              "incompatible."),
    ("Adafactor", (4,), (2,)): (tf.errors.InvalidArgumentError,
                                "Incompatible shapes: [4] vs. [2] [Op:AddV2] name: "),
    ("Lamb", (3, 4), (2, 3)): (tf.errors.InvalidArgumentError,
                               "Incompatible shapes: [2,3] vs. [3,4] [Op:Sub]"),
    ("Muon", (3, 4), (2, 3)): (tf.errors.InvalidArgumentError,
                               "Incompatible shapes: [2,3] vs. [3,4] [Op:AddV2] name: "),
    ("Muon", (4,), (2,)): (tf.errors.InvalidArgumentError,
                           "Incompatible shapes: [2] vs. [4] [Op:Sub]"),
    ("ScheduleFreeAdamW", (4,), (3, 4)): (tf.errors.InvalidArgumentError,
                                          "Cannot update variable with shape [4] using a "
                                          "Tensor with shape [3,4], shapes must be equal. "
                                          "[Op:AssignAddVariableOp] name: "),
    **{(name, (3, 4), (1, 4)): None for name in NEW},
    **{(name, (4,), (1,)): None for name in NEW},
}


@pytest.mark.parametrize("case", sorted(SHAPE_CASES, key=str))
def test_gradient_of_another_shape_as_keras(case):
    """Refused with Keras's error before anything changes (no slot, no step counted)."""
    name, var_shape, grad_shape = case
    opt = getattr(keras.optimizers, name)()
    variable = keras.Variable(np.ones(var_shape, "float32"), name="kernel")
    refusal = SHAPE_CASES[case]
    if refusal is None:
        opt.apply_gradients([(tf.ones(grad_shape), variable)])
        assert int(opt.iterations.numpy()) == 1
        assert np.all(variable.numpy() < 1)
        return
    with pytest.raises(refusal[0], match=re.escape(refusal[1])):
        opt.apply_gradients([(tf.ones(grad_shape), variable)])
    assert not opt.built and int(opt.iterations.numpy()) == 0
    np.testing.assert_array_equal(variable.numpy(), np.ones(var_shape, "float32"))


# -- MultiOptimizer and OptimizerMap -------------------------------------------------------------

MULTI = META["multi"]


def _multi_optimizer():
    """tools/record_keras_optimizers_more.py's `multi_optimizer()`."""
    return keras.optimizers.MultiOptimizer(keras.optimizers.OptimizerMap(
        keras.optimizers.SGD(0.05, momentum=0.9, name="sgd_inner"),
        {".*head/.*": keras.optimizers.Adam(0.05, name="adam_inner")}), name="multi")


def _paths_and_shapes(opt):
    return [[v.name.split(":")[0], list(v.shape)] for v in opt.variables]


def _multi_fitted():
    model = _fit_model()
    model.compile(optimizer=_multi_optimizer(), loss="mse")
    x, y = _fit_data()
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return model, history


def test_multi_optimizer_fit_matches_keras():
    model, history = _multi_fitted()
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, DATA[f"multi/w{i}"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(history.history["loss"], MULTI["loss"], rtol=1e-5)
    opt = model.optimizer
    # Keras's paths are '<optimizer>/<slot>'; tapeflow's slot names are the part after '/'.
    assert _paths_and_shapes(opt) == [[p.split("/")[-1], s] for p, s in MULTI["variables"]]
    for i, v in enumerate(opt.variables):
        np.testing.assert_allclose(v.numpy(), DATA[f"multi/opt{i}"], rtol=1e-5, atol=1e-7)
    assert [o.name for o in opt.optimizers] == ["adam_inner", "sgd_inner"]
    assert int(opt.iterations.numpy()) == 8
    assert [int(o.iterations.numpy()) for o in opt.optimizers] == [8, 8]
    assert not hasattr(opt, "learning_rate")


def test_multi_optimizer_serializes_as_keras():
    opt = _multi_optimizer()
    want = MULTI["serialized"]
    assert keras.optimizers.serialize(opt)["config"] == want["config"]
    restored = keras.optimizers.deserialize(want)
    assert type(restored) is keras.optimizers.MultiOptimizer
    assert keras.optimizers.serialize(restored)["config"] == want["config"]
    assert [o.name for o in restored.optimizers] == ["adam_inner", "sgd_inner"]


def test_multi_optimizer_loads_keras_file():
    path = os.path.join(os.path.dirname(__file__), "fixtures",
                        "optimizers_more_MultiOptimizer.keras")
    model = keras.models.load_model(path)
    opt = model.optimizer
    assert type(opt) is keras.optimizers.MultiOptimizer
    assert _paths_and_shapes(opt) == [[p.split("/")[-1], s] for p, s in
                                      MULTI["loaded_variables"]]
    for i, v in enumerate(opt.variables):
        np.testing.assert_array_equal(v.numpy(), DATA[f"multi/loaded_opt{i}"])


def test_multi_optimizer_keras_file_round_trip(tmp_path):
    model, _ = _multi_fitted()
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_multi_optimizer_with_a_callable_and_loss_scale_factor():
    sgd, adam = keras.optimizers.SGD(0.1), keras.optimizers.Adam(0.1, loss_scale_factor=7.0)
    opt = keras.optimizers.MultiOptimizer(
        lambda v: adam if v.name.startswith("b") else sgd, loss_scale_factor=2.0)
    kernel = keras.Variable(np.ones((2, 2), "float32"), name="kernel")
    bias = keras.Variable(np.ones((2,), "float32"), name="bias")
    opt.apply_gradients([(tf.ones((2, 2)), kernel), (tf.ones((2,)), bias)])
    assert [o.loss_scale_factor for o in opt.optimizers] == [2.0, 2.0]
    np.testing.assert_allclose(kernel.numpy(), np.full((2, 2), 1 - 0.1 / 2), rtol=1e-6)
    assert opt.optimizers == [sgd, adam] and len(opt.variables) == 2 + 2 + 4
    with pytest.raises(ValueError, match="Gradients must match trainable variables one-to-one. "
                                         "Received 1 gradients and 2 variables."):
        opt.apply([tf.ones((2, 2))], [kernel])


def test_optimizer_map_lookups_and_refusals():
    default, adam, sgd = (keras.optimizers.RMSprop(), keras.optimizers.Adam(),
                          keras.optimizers.SGD())
    omap = keras.optimizers.OptimizerMap(default_optimizer=default)
    omap["encoder/layer_0/dense"] = adam
    omap["encoder/.*"] = sgd
    omap["decoder"] = adam
    assert omap["decoder"] is adam and omap["encoder/layer_0/dense"] is adam
    assert omap["encoder/layer_0/attention/query"] is sgd
    assert omap["decoder/layer_0/dense"] is default and len(omap) == 3
    omap["enc.*"] = adam
    with pytest.raises(ValueError, match="Multiple optimizers assigned to variable encoder/x"):
        omap["encoder/x"]
    with pytest.raises(ValueError, match="'decoder' already exists in the OptimizerMap"):
        omap["decoder"] = sgd
    with pytest.raises(ValueError, match="optimizer cannot be LossScaleOptimizer."):
        omap["x"] = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD())
    with pytest.raises(ValueError, match="optimizer cannot be MultiOptimizer."):
        omap["x"] = keras.optimizers.MultiOptimizer(omap)
    with pytest.raises(TypeError, match="default_optimizer must be a Keras Optimizer"):
        keras.optimizers.OptimizerMap("adam")
    with pytest.raises(TypeError, match="optimizer_map must be a dictionary"):
        keras.optimizers.OptimizerMap(default, [("a", adam)])
    del omap["enc.*"]
    assert list(omap) == ["encoder/layer_0/dense", "encoder/.*", "decoder"]


@pytest.mark.parametrize("case", sorted(META["cube"]))
@pytest.mark.parametrize("traced", [False, True])
def test_rank_3_variable_matches_keras(case, traced):
    """Adafactor factors a (2, 3, 4) variable's last two axes ((2, 3) and (2, 4) slots); Muon
    gives it AdamW's step."""
    spec = META["cube"][case]
    opt = make(spec["class"], spec["kwargs"])
    cube = keras.Variable(DATA["cube/init"], name="cube")

    def step(g):
        opt.apply_gradients([(g, cube)])

    if traced:
        step = tf.function(step)
    for i in range(len(DATA["cube/grads"])):
        step(tf.constant(DATA["cube/grads"][i]))
        values = [cube.numpy()] + [v.numpy() for v in opt.variables]
        assert len(values) == spec["count"]
        for j, got in enumerate(values):
            check(case, got, DATA[f"{case}/{j}"][i])
    assert [[v.name.split(":")[0], list(v.shape), v.dtype.name] for v in opt.variables] == \
        spec["variables"]


@pytest.mark.parametrize("make_optimizer", [
    _multi_optimizer, lambda: keras.optimizers.ScheduleFreeAdamW(0.05),
    lambda: keras.optimizers.Adafactor(), lambda: keras.optimizers.Muon(0.02)],
    ids=["MultiOptimizer", "ScheduleFreeAdamW", "Adafactor", "Muon"])
def test_checkpoint_restores_before_the_slots_exist(tmp_path, make_optimizer):
    """tf.train.Checkpoint restored into an optimizer not built yet: `iterations` at once,
    the slots (the inner optimizers' for a MultiOptimizer) when the first step builds them;
    the next steps are then those of the saved optimizer."""
    x, y = _fit_data()
    kernel_init = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)

    def setup():
        kernel = keras.Variable(kernel_init, name="kernel")
        return kernel, make_optimizer()

    def step(kernel, opt, i):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x[4 * i:4 * i + 4], kernel)))
        opt.apply_gradients([(tape.gradient(loss, kernel), kernel)])

    kernel, opt = setup()
    for i in range(2):
        step(kernel, opt, i)
    path = tf.train.Checkpoint(kernel=kernel, optimizer=opt).save(str(tmp_path / "c"))
    step(kernel, opt, 2)
    kernel2, opt2 = setup()
    tf.train.Checkpoint(kernel=kernel2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 2
    step(kernel2, opt2, 2)
    np.testing.assert_array_equal(kernel2.numpy(), kernel.numpy())
    for a, b in zip(opt2.variables, opt.variables, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_multi_optimizer_refuses_a_bad_choice_before_building_anything():
    sgd = keras.optimizers.SGD()
    choices = {"kernel": sgd, "bias": keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD())}
    opt = keras.optimizers.MultiOptimizer(lambda v: choices[v.name])
    kernel = keras.Variable(np.ones((2, 2), "float32"), name="kernel")
    bias = keras.Variable(np.ones((2,), "float32"), name="bias")
    with pytest.raises(ValueError, match="LossScaleOptimizer cannot be used inside an "
                                         "MultiOptimizer."):
        opt.apply_gradients([(tf.ones((2, 2)), kernel), (tf.ones((2,)), bias)])
    assert not opt.built and opt.optimizers == [] and not sgd.built
    np.testing.assert_array_equal(kernel.numpy(), np.ones((2, 2)))
    choices["bias"] = "sgd"
    with pytest.raises(ValueError, match="is not an Optimizer instance."):
        opt.apply_gradients([(tf.ones((2, 2)), kernel), (tf.ones((2,)), bias)])


@pytest.mark.parametrize("warmup_steps, want", [
    # Measured with Keras 3.15.1 / TF 2.21: CosineDecay(0.1, 10, warmup_target=0.5, ...) at
    # steps 0, 2, 3, 5, 20.
    (3, [0.10000000149011612, 0.36666667461395264, 0.5, 0.4522542357444763, 0.0]),
    (0, [0.5, 0.4522542357444763, 0.3969463109970093, 0.2499999850988388, 0.0])])
def test_cosine_decay_warmup_in_a_traced_step(warmup_steps, want):
    """The warmup/decay choice is made on the step as the graph runs (it was a Python branch
    on a traced value)."""
    schedule = schedules.CosineDecay(0.1, 10, warmup_target=0.5, warmup_steps=warmup_steps)
    traced = tf.function(schedule)
    steps = [0, 2, 3, 5, 20]
    assert [float(traced(tf.constant(s, tf.int64))) for s in steps] == want
    assert [float(schedule(s)) for s in steps] == want
