"""keras.mixed_precision against Keras 3.15's numbers (tools/record_keras_mixed.py ->
fixtures/mixed.*): policies, autocast layers, float32 weights and gradients, the dynamic loss
scale over steps (one overflowing), `fit` under mixed_float16, configs and summaries."""

from __future__ import annotations

import io
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
INFO = json.loads((FIXTURES / "mixed.json").read_text())
ARRAYS = np.load(FIXTURES / "mixed.npz")
mp = keras.mixed_precision

@pytest.fixture(autouse=True)
def _float32_after():
    yield
    mp.set_global_policy("float32")


def build_model(policy: str) -> keras.Model:
    mp.set_global_policy(policy)
    model = keras.Sequential([
        keras.Input((6, 6, 2)),
        keras.layers.Conv2D(3, 3, activation="relu", name="conv"),
        keras.layers.Flatten(name="flatten"),
        keras.layers.Dense(5, activation="relu", name="hidden"),
        keras.layers.Dense(3, name="logits"),
        keras.layers.Activation("softmax", dtype="float32", name="probs"),
    ], name="mixed")
    model.set_weights([ARRAYS[f"init/w{i}"] for i in range(len(model.weights))])
    return model


def _tolerance(policy: str) -> dict:
    # float16 keeps 11 bits, bfloat16 8: one rounding of an activation moves outputs this much
    return {"mixed_float16": dict(rtol=2e-3, atol=2e-3),
            "mixed_bfloat16": dict(rtol=2e-2, atol=2e-2)}[policy]


def test_policy_api_as_keras():
    p = mp.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
    assert mp.Policy is mp.DTypePolicy
    assert repr(mp.Policy("mixed_bfloat16")) == INFO["policy_repr"]
    assert keras.layers.Dense(1, dtype=p).get_config()["dtype"] == INFO["policy_config"]
    assert mp.Policy.from_config(p.get_config()) == p
    for bad, error in (("foo", ValueError), (3, TypeError)):
        with pytest.raises(error) as info:
            mp.Policy(bad)
        assert [type(info.value).__name__, str(info.value)] == INFO["errors"][str(bad)]
    assert repr(mp.global_policy()) == '<DTypePolicy "float32">'
    mp.set_global_policy("mixed_float16")
    assert mp.global_policy() == mp.Policy("mixed_float16")
    assert keras.backend.floatx() == "float32"   # Keras leaves floatx alone


def test_layer_dtype_argument_takes_policies():
    mp.set_global_policy("mixed_float16")
    assert keras.layers.Dense(2).dtype_policy == mp.Policy("mixed_float16")
    assert keras.layers.Dense(2, dtype="float32").compute_dtype == "float32"
    layer = keras.layers.Dense(2, dtype=mp.Policy("mixed_bfloat16"))
    assert (layer.compute_dtype, layer.variable_dtype, layer.dtype) == \
        ("bfloat16", "float32", "float32")
    assert keras.layers.Dense.from_config(layer.get_config()).dtype_policy.name == \
        "mixed_bfloat16"


@pytest.mark.parametrize("policy", ["mixed_float16",
                                    "mixed_bfloat16"])
def test_outputs_dtypes_and_gradients(policy):
    case = INFO["policies"][policy]
    model = build_model(policy)
    for layer in model.layers:
        want = case["layers"][layer.name]
        assert (layer.dtype_policy.name, layer.compute_dtype, layer.variable_dtype,
                layer.dtype) == (want["policy"], want["compute_dtype"],
                                 want["variable_dtype"], want["dtype"])
        assert layer.get_config()["dtype"] == want["config_dtype"]
        assert layer.output.dtype == want["output_dtype"]
    assert [[w.path, w.dtype.name] for w in model.weights] == case["weights"]
    out = model(ARRAYS["x"])
    assert out.dtype.name == case["out_dtype"]
    np.testing.assert_allclose(out.numpy(), ARRAYS[f"{policy}/out"], **_tolerance(policy))
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    with tf.GradientTape() as tape:
        loss = loss_fn(ARRAYS["y"], model(ARRAYS["x"]))
    grads = tape.gradient(loss, model.trainable_weights)
    assert loss.dtype.name == case["loss_dtype"]
    assert [g.dtype.name for g in grads] == case["grad_dtypes"]
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), ARRAYS[f"{policy}/grad{i}"], rtol=2e-2,
                                   atol=3e-3 if policy == "mixed_float16" else 3e-2)


def test_summary_text_as_keras():
    model = build_model("mixed_float16")
    text = io.StringIO()
    model.summary(print_fn=lambda line, *a, **k: text.write(line + "\n"))
    assert text.getvalue() == INFO["policies"]["mixed_float16"]["summary"]


def test_loss_scale_evolution_with_an_overflowing_step():
    lso = INFO["lso"]
    model = build_model("mixed_float16")
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=2.0**10,
                                              dynamic_growth_steps=2)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
    for step in range(len(lso["dynamic_scale"])):
        loss = model.train_on_batch(ARRAYS["steps_x"][step], ARRAYS["steps_y"][step])
        loss = float(np.asarray(loss).reshape(-1)[0])
        assert (float(opt.dynamic_scale.numpy()), int(opt.step_counter.numpy()),
                int(opt.iterations.numpy())) == (lso["dynamic_scale"][step],
                                                 lso["step_counter"][step],
                                                 lso["iterations"][step]), step
        np.testing.assert_allclose(loss, lso["loss"][step], rtol=5e-3)  # NaN on the overflow
        for i, w in enumerate(model.weights):
            assert w.dtype == tf.float32
            np.testing.assert_allclose(w.numpy(), ARRAYS[f"lso/w{i}"][step], rtol=1e-2,
                                       atol=2e-3)


def test_loss_scale_optimizer_config_round_trip():
    want = INFO["lso"]["config"]
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1, name="sgd_2"),
                                              initial_scale=2.0**10, dynamic_growth_steps=2,
                                              name="loss_scale_optimizer")
    assert opt.get_config() == want
    again = keras.optimizers.deserialize({"class_name": "LossScaleOptimizer", "config": want})
    assert again.get_config() == want
    assert mp.LossScaleOptimizer is keras.optimizers.LossScaleOptimizer
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(), clipnorm=1.0)


def test_loss_scale_optimizer_variables_and_skip():
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5))
    v = keras.Variable(np.ones(2, np.float32))
    opt.apply([tf.constant([np.inf, 1.0])], [v])   # skipped, scale halved
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])
    assert float(opt.dynamic_scale.numpy()) == 2.0**14 and int(opt.iterations.numpy()) == 0
    opt.apply([tf.constant([2.0**14, 2.0**15])], [v])  # unscaled to [1, 2]
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.0])
    assert [x.name for x in opt.variables] == ["iteration:0", "learning_rate:0",
                                               "step_counter:0", "dynamic_scale:0",
                                               "iteration:0", "learning_rate:0"]
    assert float(opt.scale_loss(tf.constant(2.0)).numpy()) == 2.0**15


@pytest.mark.parametrize("policy", ["mixed_float16",
                                    "mixed_bfloat16"])
def test_fit_final_weights(policy):
    case = INFO["policies"][policy]
    model = build_model(policy)
    optimizer = keras.optimizers.SGD(0.1)
    if case["compiled_optimizer"] == "LossScaleOptimizer":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer, name="loss_scale_optimizer")
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    hist = model.fit(ARRAYS["x"], ARRAYS["y"], batch_size=4, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], case["fit_loss"], rtol=2e-2)
    if "fit_dynamic_scale" in case:
        assert float(model.optimizer.dynamic_scale.numpy()) == case["fit_dynamic_scale"]
        assert int(model.optimizer.step_counter.numpy()) == case["fit_step_counter"]
    for i, w in enumerate(model.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{policy}/fit/w{i}"], rtol=2e-2,
                                   atol=5e-3)


def test_compile_wraps_the_optimizer_under_mixed_float16():
    model = build_model("mixed_float16")
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    assert type(model.optimizer).__name__ == "LossScaleOptimizer"
    assert model.optimizer.get_config()["inner_optimizer"]["class_name"] == "SGD"
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", auto_scale_loss=False)
    assert type(model.optimizer).__name__ == "SGD"


def test_compile_leaves_the_optimizer_under_mixed_bfloat16():
    model = build_model("mixed_bfloat16")
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    assert type(model.optimizer).__name__ == INFO["policies"]["mixed_bfloat16"][
        "compiled_optimizer"]


def test_float32_policy_layers_make_plain_variables():
    # The autocast read is only paid by layers whose policy mixes dtypes.
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    assert type(layer.kernel) is keras.Variable
