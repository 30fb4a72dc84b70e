"""Shared machinery of the Keras-fixture tests (tests/keras/fixtures/<stem>.json/.npz, recorded
by tools/record_keras_*.py): load a fixture, run a layer under a GradientTape with the recorded
cotangents, and compare outputs, gradients, initial weights, configs and errors with Keras's."""

import copy
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.saving import serialize_keras_object

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def load(stem):
    """The fixture `stem`: its JSON metadata and its arrays (an NpzFile)."""
    with open(os.path.join(FIXTURES, f"{stem}.json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(FIXTURES, f"{stem}.npz"))


def count(arrays, prefix, kind):
    """How many arrays are recorded under `prefix/kind...` (e.g. the weights w0, w1, ...)."""
    return len([k for k in arrays.files if k.startswith(f"{prefix}/{kind}")])


def seeded_case(meta, arrays, name, scope):
    """Case `name`'s layer, made from its expression (evaluated in `scope`, the test module's
    globals) after set_random_seed(0) and clear_session as the recorder did, and its inputs."""
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    case = meta["cases"][name]
    layer = eval(case["expr"], scope)  # noqa: S307 - the fixture's expressions
    xts = [tf.constant(arrays[f"{name}/x{i}"]) for i in range(len(case["shapes"]))]
    return case, layer, xts


def run_with_cotangents(arrays, prefix, call, inputs, weights):
    """`call()` under a GradientTape watching `inputs`; the loss is the sum of each flattened
    output times its recorded cotangent `prefix/cot{i}`. Returns the outputs and the
    gradients with respect to `inputs` then `weights`."""
    with tf.GradientTape() as tape:
        for t in inputs:
            tape.watch(t)
        outputs = tf.nest.flatten(call())
        cots = [arrays[f"{prefix}/cot{i}"] for i in range(len(outputs))]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    return outputs, tape.gradient(loss, list(inputs) + list(weights))


def assert_outputs_match(arrays, prefix, outputs, tol):
    """Each output equals Keras's `prefix/out{i}` within `tol`."""
    for i, o in enumerate(outputs):
        np.testing.assert_allclose(o.numpy(), arrays[f"{prefix}/out{i}"], **tol,
                                   err_msg=f"{prefix} output {i}")


def check_layer_case(arrays, name, case, layer, xts, call, tol):
    """The built layer's weight paths and trainable count are Keras's; with Keras's weights
    set, `call()` gives Keras's outputs and gradients (a None gradient must be recorded as
    zero). Returns the outputs."""
    assert [w.path for w in layer.weights] == case["paths"]
    assert len(layer.trainable_weights) == case["n_trainable"]
    layer.set_weights([arrays[f"{name}/w{i}"] for i in range(count(arrays, name, "w"))])
    outputs, grads = run_with_cotangents(arrays, name, call, xts, layer.trainable_weights)
    assert len(outputs) == case["n_outputs"]
    assert_outputs_match(arrays, name, outputs, tol)
    for i, g in enumerate(grads):
        expected = arrays[f"{name}/grad{i}"]
        got = np.zeros(()) if g is None else tf.convert_to_tensor(g).numpy()
        np.testing.assert_allclose(got, expected, **tol, err_msg=f"{name} gradient {i}")
    return outputs


def assert_initial_weights_match(arrays, name, layer):
    """After keras.utils.set_random_seed(0) the weights are Keras's `name/init{i}`."""
    for i, w in enumerate(layer.weights):
        np.testing.assert_allclose(w.numpy(), arrays[f"{name}/init{i}"], rtol=1e-6,
                                   atol=1e-7, err_msg=f"{name} weight {w.path}")


def without_keras_only(config, keras_only):
    """`config` less the Keras-only entries that hold their 'off' value (`keras_only` maps
    each such key to that value), at any depth."""
    if isinstance(config, dict):
        return {k: without_keras_only(v, keras_only) for k, v in config.items()
                if not (k in keras_only and v == keras_only[k])}
    if isinstance(config, list):
        return [without_keras_only(v, keras_only) for v in config]
    return config


def serialized(layer):
    """The layer's serialized config as JSON would carry it."""
    return json.loads(json.dumps(serialize_keras_object(layer)["config"]))


def assert_config_round_trips(layer, recorded, keras_only, prepare, loadable=None):
    """The layer's config is Keras's `recorded` one (less the Keras-only entries); a clone
    from get_config and a layer from Keras's config (`loadable`, by default a copy of
    `recorded`) serialize the same, each after `prepare(layer)` (a call or a build)."""
    config = serialized(layer)
    assert config == without_keras_only(recorded, keras_only)
    clone = type(layer).from_config(layer.get_config())
    prepare(clone)
    assert serialized(clone) == config
    if loadable is None:
        loadable = copy.deepcopy(recorded)
    from_keras = type(layer).from_config(loadable)  # Keras's own config
    prepare(from_keras)
    assert serialized(from_keras) == config


def assert_raises_as_keras(error, run):
    """After clear_session, `run()` raises Keras's error: the same class name and message."""
    keras.backend.clear_session()
    with pytest.raises(Exception) as info:
        run()
    assert type(info.value).__name__ == error["class"]
    assert str(info.value) == error["message"]


def assert_model_matches(arrays, prefix, model, x, tol):
    """With a loss of the output times the cotangent `prefix/cot0`, the model's output and
    its gradients with respect to the trainable weights are Keras's."""
    with tf.GradientTape() as tape:
        out = model(x)
        loss = tf.reduce_sum(out * arrays[f"{prefix}/cot0"])
    np.testing.assert_allclose(out.numpy(), arrays[f"{prefix}/out0"], **tol)
    for i, g in enumerate(tape.gradient(loss, model.trainable_weights)):
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), arrays[f"{prefix}/grad{i}"],
                                   **tol, err_msg=f"gradient {i}")
