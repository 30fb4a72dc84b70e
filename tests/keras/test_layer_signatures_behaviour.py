"""The parameters tapeflow's layers share with Keras 3.15 do what Keras's do
(tests/keras/fixtures/keras_layer_params.*, recorded by tools/record_keras_layer_params.py):
the transposed convolutions' parameters passed positionally in Keras's order, the merge
layers' base keywords, batch renormalization over several training calls, LayerNormalization's
deprecated `rms_scaling`, LoRA on Dense, Embedding and EinsumDense (`lora_rank`,
`lora_alpha`, `enable_lora`), EinsumDense's `gptq_unpacked_column_size`, and the recurrent
cells' initializers, regularizers, dropouts and seeds. Each case compares outputs, gradients,
regularization losses, the weights after the calls, weight paths, the trainable weights and
the config with Keras's; the errors Keras raises are compared too."""

import json
import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("keras_layer_params")
TOL = dict(rtol=2e-5, atol=2e-5)
_KERAS_ONLY: dict = {}


def _make(name):
    """Case `name`'s layer built as the recorder built it, with Keras's fixed weights set."""
    case = META["cases"][name]
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # rms_scaling's deprecation
        layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    shapes = [tuple(s) for s in case["shapes"]]
    layer.build(shapes[0] if len(shapes) == 1 else shapes)
    if case["after"] is not None:
        exec(case["after"], {"layer": layer})  # noqa: S102 - the fixture's statements
    return case, layer


def _call(layer, xs, training):
    args = xs[0] if len(xs) == 1 else xs
    return layer(args) if training is None else layer(args, training=training)


def _check_step(name, step, layer, training, n_outputs):
    prefix = f"{name}/s{step}"
    xts = [tf.constant(ARRAYS[f"{prefix}/x{i}"])
           for i in range(fc.count(ARRAYS, prefix, "x"))]
    floats = [t for t in xts if t.dtype.is_floating]
    with tf.GradientTape() as tape:
        for t in floats:
            tape.watch(t)
        outputs = tf.nest.flatten(_call(layer, xts, training))
        loss = tf.add_n([tf.reduce_sum(o * ARRAYS[f"{prefix}/cot{k}"])
                         for k, o in enumerate(outputs)])
    assert len(outputs) == n_outputs
    fc.assert_outputs_match(ARRAYS, prefix, outputs, TOL)
    grads = tape.gradient(loss, floats + list(layer.trainable_weights))
    for j, g in enumerate(grads):
        got = np.zeros(()) if g is None else tf.convert_to_tensor(g).numpy()
        np.testing.assert_allclose(got, ARRAYS[f"{prefix}/grad{j}"], **TOL,
                                   err_msg=f"{prefix} gradient {j}")
    losses = sum(float(v) for v in layer.losses)
    np.testing.assert_allclose(losses, ARRAYS[f"{prefix}/losses"], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer = _make(name)
    assert [w.path for w in layer.weights] == case["paths"]
    assert [w.path for w in layer.trainable_weights] == case["trainable"]
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(fc.count(ARRAYS, name, "w"))])
    for step, training in enumerate(case["trainings"]):
        _check_step(name, step, layer, training, case["n_outputs"][step])
    for i, w in enumerate(layer.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{name}/final{i}"], **TOL,
                                   err_msg=f"{name} weight {w.path} after the calls")


def _comparable(config):
    """`config` less the Keras-only 'off' entries, its floats rounded to float32 (Keras's L1
    keeps its factor as a float32: 0.009999999776482582 for 0.01)."""
    config = fc.without_keras_only(config, _KERAS_ONLY)
    if isinstance(config, dict):
        return {k: _comparable(v) for k, v in config.items()}
    if isinstance(config, list):
        return [_comparable(v) for v in config]
    return float(np.float32(config)) if isinstance(config, float) else config


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    """The config is Keras's; a layer made from it (tapeflow's or Keras's own) and built has
    the config Keras's clone has (Keras's Dense and Embedding re-enable LoRA with
    `lora_alpha` = the rank) and the same weights."""
    case, layer = _make(name)
    assert _comparable(fc.serialized(layer)) == _comparable(case["config"])
    for source in (layer.get_config(), json.loads(json.dumps(case["config"]))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            clone = type(layer).from_config(source)
        shapes = [tuple(s) for s in case["shapes"]]
        clone.build(shapes[0] if len(shapes) == 1 else shapes)
        assert _comparable(fc.serialized(clone)) == _comparable(case["clone_config"])
        assert [w.path.split("/")[-1] for w in clone.weights] == \
            [p.split("/")[-1] for p in case["paths"]]


@pytest.mark.parametrize("name", sorted(k for k in META["cases"]
                                        if fc.count(ARRAYS, k, "init")))
def test_initial_weights_match_keras(name):
    _, layer = _make(name)
    fc.assert_initial_weights_match(ARRAYS, name, layer)


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    error = META["errors"][name]
    fc.assert_raises_as_keras(error, lambda: exec(error["statement"],  # noqa: S102
                                                  {"L": L, "keras": keras}))


@pytest.mark.parametrize("name", sorted(META["fits"]))
def test_fit_matches_keras(name):
    """Trained with fit (SGD, no shuffling) from Keras's fixed weights, the weights, losses and
    predictions are Keras's: batch renormalization's updates, LoRA's frozen kernels and a
    cell's seeded dropouts inside the compiled train step."""
    fit = META["fits"][name]
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    model = keras.Sequential([L.Input(tuple(fit["shape"]))] + eval(fit["layers"]))  # noqa: S307
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    assert [w.path for w in model.weights] == fit["paths"]
    model.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(fc.count(ARRAYS, name, "w"))])
    history = model.fit(ARRAYS[f"{name}/x"], ARRAYS[f"{name}/y"], batch_size=4, epochs=2,
                        shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], fit["loss"], rtol=1e-5)
    for i, w in enumerate(model.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{name}/final{i}"], **TOL,
                                   err_msg=f"{name} weight {w.path}")
    np.testing.assert_allclose(model.predict(ARRAYS[f"{name}/x"], verbose=0),
                               ARRAYS[f"{name}/predict"], **TOL)


def test_lora_trains_only_the_low_rank_factors():
    """With LoRA the kernel is frozen: a training step moves lora_kernel_a/b only, and the
    layer's output is the merged kernel's."""
    keras.utils.set_random_seed(1)
    inputs = keras.Input((5,))
    layer = L.Dense(3, lora_rank=2)
    model = keras.Model(inputs, layer(inputs))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    layer.lora_kernel_b.assign(np.full((2, 3), 0.5, np.float32))
    kernel = layer._kernel.numpy().copy()
    x = np.random.default_rng(0).uniform(-1, 1, (8, 5)).astype("float32")
    y = np.ones((8, 3), "float32")
    before = [layer.lora_kernel_a.numpy().copy(), layer.lora_kernel_b.numpy().copy()]
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    np.testing.assert_array_equal(layer._kernel.numpy(), kernel)
    assert not np.allclose(layer.lora_kernel_a.numpy(), before[0])
    assert not np.allclose(layer.lora_kernel_b.numpy(), before[1])
    merged = kernel + layer.lora_kernel_a.numpy() @ layer.lora_kernel_b.numpy()
    np.testing.assert_allclose(model(x).numpy(), x @ merged + layer.bias.numpy(), rtol=1e-5,
                               atol=1e-6)


def test_input_ragged():
    """`ragged=False` is Keras's default (and in the config); a RaggedTensor input of a
    functional model is not built: NotImplementedError names it."""
    layer = L.InputLayer(shape=(3,), ragged=False)
    assert layer.get_config()["ragged"] is False
    assert keras.Input((3,), ragged=False).shape == (None, 3)
    with pytest.raises(NotImplementedError, match="ragged=True"):
        keras.Input((None,), ragged=True)
    with pytest.raises(NotImplementedError, match="ragged=True"):
        L.InputLayer(shape=(None,), ragged=True)


def test_quantize_is_refused():
    """tapeflow has no quantized kernels: quantizing raises rather than computing otherwise,
    and a quantization_config is refused by the constructors."""
    layer = L.EinsumDense("ab,bc->ac", 4, gptq_unpacked_column_size=5)
    layer.build((2, 5))
    for mode in ("gptq", "int8"):
        with pytest.raises(NotImplementedError, match="quantized"):
            layer.quantize(mode)
    with pytest.raises(NotImplementedError, match="quantization_config"):
        L.Embedding(4, 2, quantization_config={"mode": "int8"})


def test_rms_scaling_warns_as_keras():
    with pytest.warns(UserWarning, match="rms_scaling=True"):
        L.LayerNormalization(rms_scaling=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L.LayerNormalization(rms_scaling=False)
