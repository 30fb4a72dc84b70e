"""Keras 3.15 parameters of the initializers (input_axes/output_axes), losses
(SparseCategoricalCrossentropy's axis, deserialize's name), callbacks (LambdaCallback's
hooks) and saving (save_model's zipped, save_weights' max_shard_size), against Keras's
answers and files recorded by tools/record_keras_optimizer_options.py into
fixtures/api_params_misc.json + .npz, fixtures/keras_unzipped_model/ and
fixtures/keras_sharded/."""

import json
import os

import h5py
import numpy as np
import pytest

from tapeflow import keras

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "api_params_misc.json")) as f:
    META = json.load(f)
DATA = np.load(os.path.join(FIXTURES, "api_params_misc.npz"))
KERAS_DIR = os.path.join(FIXTURES, "keras_unzipped_model")
KERAS_SHARDS = os.path.join(FIXTURES, "keras_sharded")
FILES = META["files"]


# -- initializers ---------------------------------------------------------------------------

SNAKE = {"VarianceScaling": "variance_scaling", "GlorotNormal": "glorot_normal",
         "GlorotUniform": "glorot_uniform", "HeNormal": "he_normal", "HeUniform": "he_uniform",
         "LecunNormal": "lecun_normal", "LecunUniform": "lecun_uniform"}


def _initializer(name, config, alias=False):
    cls = getattr(keras.initializers, SNAKE[name] if alias else name)
    if name == "VarianceScaling":
        return cls(scale=1.5, mode="fan_avg", distribution="uniform", seed=config["seed"],
                   input_axes=config["input_axes"], output_axes=config["output_axes"])
    return cls(seed=config["seed"], input_axes=config["input_axes"],
               output_axes=config["output_axes"])


@pytest.mark.parametrize("alias", [False, True], ids=["class", "lowercase"])
@pytest.mark.parametrize("key", sorted(META["initializers"]["values"]))
def test_initializer_fans_from_axes_match_keras(key, alias):
    """The fans come from the sizes along input_axes/output_axes (both given; one alone is
    ignored), so the seeded draw is Keras's; the config keeps both axes."""
    spec = META["initializers"]["values"][key]
    name = key.split("/")[0]
    init = _initializer(name, spec["config"], alias)
    np.testing.assert_array_equal(init(tuple(spec["shape"])).numpy(), DATA[f"init/{key}"])
    assert init.get_config() == spec["config"]
    again = type(init).from_config(init.get_config())
    assert again.get_config() == spec["config"]


def test_lowercase_initializer_names_are_the_classes():
    for name, same in META["initializers"]["aliases"].items():
        assert (getattr(keras.initializers, SNAKE[name]) is
                getattr(keras.initializers, name)) == same


@pytest.mark.parametrize("case", META["initializers"]["fans"], ids=str)
def test_compute_fans_matches_keras(case):
    shape, input_axes, output_axes, fans = case
    assert list(keras.initializers.compute_fans(tuple(shape), input_axes, output_axes)) == fans


def test_initializer_with_axes_goes_through_a_layer_config():
    layer = keras.layers.Dense(3, kernel_initializer=keras.initializers.HeUniform(
        seed=2, input_axes=[0], output_axes=[1]))
    again = keras.layers.Dense.from_config(layer.get_config())
    assert again.kernel_initializer.get_config() == {"seed": 2, "input_axes": [0],
                                                     "output_axes": [1]}


# -- losses ---------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 2])
def test_sparse_categorical_crossentropy_along_the_last_axis(axis):
    """axis=-1 or the last axis by number: Keras's values; the config has no axis."""
    sce = META["sparse_ce"]
    loss = keras.losses.SparseCategoricalCrossentropy(axis=axis)
    assert float(loss(DATA["sce_labels"], DATA["sce_pred"])) == \
        pytest.approx(sce[f"axis{axis}"], rel=1e-6)
    assert loss.get_config() == sce[f"config{axis}"]
    np.testing.assert_allclose(keras.losses.sparse_categorical_crossentropy(
        DATA["sce_labels"], DATA["sce_pred"], axis=axis).numpy(), sce[f"fn{axis}"], rtol=1e-6)


def test_sparse_categorical_crossentropy_other_axis_raises_keras_error():
    """Keras's TensorFlow backend computes along the last axis only."""
    cls, text = META["sparse_ce"]["axis1_error"]
    with pytest.raises(getattr(__builtins__, cls, ValueError), match=text.replace("=", ".")):
        keras.losses.SparseCategoricalCrossentropy(axis=1)(DATA["sce_labels"], DATA["sce_pred"])


def test_losses_deserialize_takes_name():
    want = META["deserialize"]
    assert keras.losses.deserialize(name="mean_squared_error").__name__ == want["string"]
    obj = keras.losses.deserialize(name={"class_name": "Huber", "config": {"delta": 2.0}})
    assert type(obj).__name__ == want["dict"][0]
    # Keras 3.15's Huber config leaves `delta` out; tapeflow's keeps it.
    assert want["dict"][1].items() <= obj.get_config().items()


# -- callbacks ------------------------------------------------------------------------------

def _model():
    k1 = (np.arange(12).reshape(3, 4) / 10. - 0.5).astype("float32")
    k2 = (np.arange(8).reshape(4, 2) / 8. - 0.4).astype("float32")
    c = keras.initializers.Constant
    return keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_initializer=c(k1),
                           bias_initializer=c(0.1), name="hidden"),
        keras.layers.Dense(2, kernel_initializer=c(k2), bias_initializer="zeros", name="out")],
        name="options_model")


def test_lambda_callback_hooks_are_called_as_keras():
    """The six named hooks, another hook and a plain attribute given as keywords: called in
    Keras's order during a fit with validation."""
    calls: list = []
    cb = keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda e, logs: calls.append(["epoch_begin", e]),
        on_epoch_end=lambda e, logs: calls.append(["epoch_end", e]),
        on_train_begin=lambda logs: calls.append(["train_begin"]),
        on_train_end=lambda logs: calls.append(["train_end"]),
        on_train_batch_begin=lambda b, logs: calls.append(["batch_begin", b]),
        on_train_batch_end=lambda b, logs: calls.append(["batch_end", b]),
        on_test_end=lambda logs: calls.append(["test_end"]),
        note="extra")
    calls.append(["note", cb.note])
    model = _model()
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((8, 3), "float32"), np.ones((8, 2), "float32")
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_data=(x, y), callbacks=[cb])
    assert calls == META["lambda_callback"]


def test_lambda_callback_takes_hooks_positionally():
    seen = []
    cb = keras.callbacks.LambdaCallback(lambda e, logs: seen.append(e))
    cb.on_epoch_begin(3, {})
    cb.on_epoch_end(3, {})   # not given: the base class's no-op
    assert seen == [3]


# -- save_model(zipped=False) -----------------------------------------------------------------

def _fitted():
    model = _model()
    model.compile(optimizer=keras.optimizers.Adam(use_ema=True, name="adam_ema"), loss="mse")
    model.fit(DATA["fit_x"], DATA["fit_y"], batch_size=8, epochs=1, shuffle=False, verbose=0)
    return model


def _same_state(a, b):
    for x, y in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(a.optimizer.variables, b.optimizer.variables, strict=True):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_unzipped_model_directory_is_keras_layout(tmp_path, monkeypatch):
    """Keras's files; 'assets' (empty) only for an absolute path, as Keras's asset store
    lands in its temporary directory for a relative one. It loads back whole."""
    model = _fitted()
    absolute = str(tmp_path / "abs_model")
    keras.models.save_model(model, absolute, True, False)   # positionally: overwrite, zipped
    assert sorted(os.listdir(absolute)) == FILES["unzipped_files"]
    monkeypatch.chdir(tmp_path)
    model.save("rel", zipped=False)
    assert sorted(os.listdir("rel")) == FILES["unzipped_files_relative_path"]
    with open(os.path.join(absolute, "config.json")) as f:
        assert json.load(f)["class_name"] == "Sequential"
    for path in (absolute, "rel"):
        _same_state(model, keras.saving.load_model(path))


def test_unzipped_model_written_by_keras_loads():
    model = keras.saving.load_model(KERAS_DIR)
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, DATA[f"files/w{i}"])
    for i, v in enumerate(model.optimizer.variables):
        np.testing.assert_array_equal(v.numpy(), DATA[f"files/opt{i}"])


def test_unzipped_model_refuses_a_keras_name(tmp_path):
    cls, text = FILES["errors"]["zipped_false_keras"]
    with pytest.raises(ValueError) as e:
        _model().save(str(tmp_path / "w.keras"), zipped=False)
    assert str(e.value) == text.replace("DIR", str(tmp_path))


def test_save_model_refuses_unknown_arguments_and_saves_legacy_h5(tmp_path):
    """`keras.saving.save_model` is Keras's: other keywords are refused, a '.h5' path
    writes the legacy HDF5 file."""
    model = _fitted()
    cls, text = FILES["errors"]["unknown_argument"]
    with pytest.raises(ValueError) as e:
        keras.saving.save_model(model, str(tmp_path / "w.keras"), True, None, compress=True)
    assert str(e.value) == text
    keras.saving.save_model(model, str(tmp_path / "w.h5"))
    for a, b in zip(model.get_weights(), keras.saving.load_model(str(tmp_path / "w.h5"))
                    .get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


# -- save_weights(max_shard_size=...) ---------------------------------------------------------

SHARD_SIZE = 300 / 1024 ** 3   # what the fixture used: 300 bytes a shard


def _layout(path):
    """Every group and dataset of an HDF5 file: name, attributes, shape and dtype."""
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.append(
            (n, {k: str(v) for k, v in o.attrs.items()},
             getattr(o, "shape", None), str(getattr(o, "dtype", "")))))
    return out


def test_sharded_weights_are_keras_files(tmp_path):
    """The same index (JSON text) and shards (groups, attributes, datasets) as Keras writes
    for this model, split at the same variables."""
    _fitted().save_weights(str(tmp_path / "m.weights.json"), max_shard_size=SHARD_SIZE)
    assert sorted(os.listdir(tmp_path)) == FILES["sharded_files"]
    for name in FILES["sharded_files"]:
        ours, keras_file = tmp_path / name, os.path.join(KERAS_SHARDS, name)
        if name.endswith(".json"):
            assert ours.read_text() == open(keras_file).read()
        else:
            assert _layout(ours) == _layout(keras_file)


def test_sharded_weights_round_trip(tmp_path):
    model = _fitted()
    model.save_weights(str(tmp_path / "m.weights.json"), max_shard_size=SHARD_SIZE)
    other = _model()
    other.compile(optimizer=keras.optimizers.Adam(use_ema=True), loss="mse")
    other.optimizer.build(other.trainable_variables)
    other.load_weights(str(tmp_path / "m.weights.json"))
    _same_state(model, other)


def test_sharded_weights_written_by_keras_load():
    model = _model()
    model.compile(optimizer=keras.optimizers.Adam(use_ema=True), loss="mse")
    model.optimizer.build(model.trainable_variables)
    keras.saving.load_weights(model, os.path.join(KERAS_SHARDS, "m.weights.json"))
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, DATA[f"files/w{i}"])
    for i, v in enumerate(model.optimizer.variables):
        np.testing.assert_array_equal(v.numpy(), DATA[f"files/opt{i}"])


@pytest.mark.parametrize("case,call", [
    ("json_without_shards", lambda m, p: m.save_weights(p + ".weights.json")),
    ("shards_bad_suffix", lambda m, p: m.save_weights(p + ".h5", max_shard_size=1)),
    ("shard_too_small", lambda m, p: m.save_weights(p + ".weights.json", max_shard_size=1e-8)),
])
def test_sharded_weights_errors_are_keras(tmp_path, case, call):
    cls, text = FILES["errors"][case]
    with pytest.raises(ValueError) as e:
        call(_fitted(), str(tmp_path / "w"))
    assert str(e.value) == text.replace("DIR", str(tmp_path))
    assert not [n for n in os.listdir(tmp_path) if not n.startswith(".")]


def test_sharded_weights_h5_name_is_renamed_with_keras_warning(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    with pytest.warns(UserWarning) as caught:
        _fitted().save_weights(path, max_shard_size=1)
    texts = [str(w.message) for w in caught if "sharded" in str(w.message)]
    assert texts == [t.replace("DIR", str(tmp_path)) for t in FILES["rename_warning"]]
    assert sorted(os.listdir(tmp_path)) == FILES["renamed_files"]


def test_sharded_index_naming_other_files_is_refused(tmp_path):
    model = _fitted()
    index = tmp_path / "m.weights.json"
    model.save_weights(str(index), max_shard_size=SHARD_SIZE)
    data = json.loads(index.read_text())
    data["weight_map"]["/optimizer/vars"] = ["../elsewhere.weights.h5"]
    index.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="is not the name of a file beside it"):
        model.load_weights(str(index))


def test_sharded_weights_load_all_or_nothing(tmp_path):
    """A shard whose dataset has another shape than the model's variable: Keras's error,
    raised before any variable (in this or another shard) changes."""
    model = _fitted()
    index = tmp_path / "m.weights.json"
    model.save_weights(str(index), max_shard_size=SHARD_SIZE)
    last = sorted(n for n in os.listdir(tmp_path) if n.endswith(".h5"))[-1]
    with h5py.File(tmp_path / last, "a") as f:
        group = f["optimizer/vars"]
        name = sorted(group, key=int)[-1]
        del group[name]
        group[name] = np.zeros((7,), "float32")
    other = _model()
    other.compile(optimizer=keras.optimizers.Adam(use_ema=True), loss="mse")
    other.optimizer.build(other.trainable_variables)
    before = [w.copy() for w in other.get_weights()]
    with pytest.raises(ValueError, match="could not be loaded"):
        other.load_weights(str(index))
    for a, b in zip(other.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)
