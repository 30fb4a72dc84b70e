"""tapeflow's own round trips through Keras 3's formats: model.save/load_model, save_weights/
load_weights (errors, skip_mismatch, old npz files, file modes), configs, JSON, clone, pickle."""

import os
import pickle
import stat

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras.saving import _legacy

keras = tf.keras
X = np.random.default_rng(0).normal(size=(6, 4)).astype("float32")
Y = np.random.default_rng(1).normal(size=(6, 2)).astype("float32")


@keras.saving.register_keras_serializable(package="tests")
class Doubler(keras.layers.Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = keras.layers.Dense(units)

    def call(self, x):
        return 2.0 * self.inner(x)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


class Net(keras.Model):  # not registered: found through custom_objects
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.a = keras.layers.Dense(3, activation="relu")
        self.b = Doubler(2)

    def call(self, x):
        return self.b(self.a(x))


def _models():
    seq = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                            keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    inputs = keras.Input((4,))
    h = keras.layers.Dense(3)(inputs)
    out = keras.layers.Add()([Doubler(3)(h), h])
    func = keras.Model(inputs, keras.layers.Dense(2)(out))
    sub = Net()
    sub(X)
    return {"sequential": seq, "functional": func, "subclassed": sub}


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_save_load_model_round_trip_continues_training(kind, tmp_path):
    model = _models()[kind]
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.train_on_batch(X, Y)
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.models.load_model(path, custom_objects={"Net": Net})
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert int(loaded.optimizer.iterations.numpy()) == 1
    model.train_on_batch(X, Y)
    loaded.train_on_batch(X, Y)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0),
                               atol=1e-6)


def test_load_model_compile_false_has_no_optimizer(tmp_path):
    model = _models()["sequential"]
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras", compile=False)
    assert not getattr(loaded, "compiled", False)


def test_unknown_class_needs_custom_objects(tmp_path):
    class Local(keras.Model):  # neither registered nor reachable from its module
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.a = keras.layers.Dense(2)

        def call(self, x):
            return self.a(x)
    model = Local()
    model(X)
    model.save(tmp_path / "m.keras")
    with pytest.raises(TypeError, match="Could not locate class 'Local'"):
        keras.models.load_model(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras", custom_objects={"Local": Local})
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))


def test_lambda_layer_refused_unless_safe_mode_false(tmp_path):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Lambda(lambda x: x * 3.0)])
    model.save(tmp_path / "m.keras")
    with pytest.raises(ValueError, match="Requested the deserialization of a `Lambda` layer"):
        keras.models.load_model(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras", safe_mode=False)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), X * 3.0)


def test_save_weights_is_hdf5_and_round_trips(tmp_path):
    model = _models()["functional"]
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89HDF\r\n\x1a\n"
    other = _models()["functional"]
    other.load_weights(path)
    np.testing.assert_array_equal(other.predict(X, verbose=0), model.predict(X, verbose=0))


def test_saved_files_get_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        model = _models()["sequential"]
        model.save_weights(tmp_path / "w.weights.h5")
        model.save(tmp_path / "m.keras")
        model.save_weights(tmp_path / "w.weights.npz")
    finally:
        os.umask(old)
    for name in ("w.weights.h5", "m.keras", "w.weights.npz"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o644, name
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []  # no temporaries


def test_mismatched_architecture_names_layer_and_shapes(tmp_path):
    small = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    small.save_weights(tmp_path / "w.weights.h5")
    big = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5)])
    with pytest.raises(ValueError, match=r"could not be loaded(.|\n)*variable.shape=\(4, 5\), "
                                         r"Received: value.shape=\(4, 3\)"):
        big.load_weights(tmp_path / "w.weights.h5")
    before = big.get_weights()
    with pytest.warns(UserWarning, match="could not be loaded"):
        big.load_weights(tmp_path / "w.weights.h5", skip_mismatch=True)
    np.testing.assert_array_equal(big.get_weights()[0], before[0])


def test_missing_layer_count_error(tmp_path):
    one = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, use_bias=False)])
    one.save_weights(tmp_path / "w.weights.h5")
    two = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="Layer 'dense.*' expected 2 variables, but received 1"):
        two.load_weights(tmp_path / "w.weights.h5")


def test_old_npz_weights_stay_readable(tmp_path):
    model = _models()["sequential"]
    for name in ("old.weights.h5", "old.weights.npz"):  # npz under both names, as before
        _legacy.save_weights(model, str(tmp_path / name))
        other = _models()["sequential"]
        other.load_weights(tmp_path / name)
        np.testing.assert_array_equal(other.predict(X, verbose=0), model.predict(X, verbose=0))


def test_sequential_from_config_round_trip():
    model = _models()["sequential"]
    clone = keras.Sequential.from_config(model.get_config())  # was TypeError 'dtype'
    assert [type(layer) for layer in clone.layers] == [type(layer) for layer in model.layers]
    assert clone.built and clone.get_config() == model.get_config()


@pytest.mark.parametrize("kind", ["sequential", "functional"])
def test_to_json_model_from_json(kind):
    model = _models()[kind]
    clone = keras.models.model_from_json(model.to_json())
    assert clone.count_params() == model.count_params()
    assert clone.to_json() == model.to_json()


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_clone_model_same_architecture_new_weights(kind):
    model = _models()[kind]
    clone = keras.models.clone_model(model)
    clone(X)
    assert [w.shape for w in clone.weights] == [w.shape for w in model.weights]
    assert all(a is not b for a, b in zip(clone.weights, model.weights))


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_models_pickle(kind):
    model = _models()[kind]
    if kind == "subclassed":
        keras.saving.get_custom_objects()["Net"] = Net
    try:
        clone = pickle.loads(pickle.dumps(model))
    finally:
        keras.saving.get_custom_objects().pop("Net", None)
    np.testing.assert_array_equal(clone.predict(X, verbose=0), model.predict(X, verbose=0))


def test_layer_pickles_with_weights():
    layer = keras.layers.Dense(3)
    layer(X)
    clone = pickle.loads(pickle.dumps(layer))
    np.testing.assert_array_equal(clone(X).numpy(), layer(X).numpy())


def _registered_objects():
    """Made when a test runs, not at collection (automatic names of other tests stay)."""
    L, I, R, C = keras.layers, keras.initializers, keras.regularizers, keras.constraints
    S = keras.optimizers.schedules
    return [
        L.Dense(3, kernel_regularizer="l2"), L.Activation("relu"), L.Dropout(0.3, seed=1),
        L.Flatten(), L.Reshape((2, 2)), L.Embedding(5, 2), L.BatchNormalization(),
        L.LayerNormalization(), L.GaussianNoise(0.1), L.GaussianDropout(0.2),
        L.Concatenate(axis=1), L.Add(), L.Subtract(), L.Multiply(), L.Average(), L.Maximum(),
        L.Minimum(), L.Conv2D(2, 3), L.MaxPooling2D(), L.InputLayer(shape=(3,)),
        I.Zeros(), I.Ones(), I.Constant(2.0), I.RandomNormal(seed=1), I.RandomUniform(),
        I.TruncatedNormal(), I.VarianceScaling(), I.GlorotUniform(), I.GlorotNormal(),
        I.HeNormal(), I.HeUniform(), I.LecunNormal(), I.LecunUniform(), I.Orthogonal(),
        I.Identity(), R.L1(0.1), R.L2(0.2), R.L1L2(0.1, 0.2), C.MaxNorm(3), C.NonNeg(),
        C.UnitNorm(), C.MinMaxNorm(0.5, 2.0),
        keras.losses.MeanSquaredError(), keras.losses.MeanAbsoluteError(),
        keras.losses.Huber(), keras.losses.BinaryCrossentropy(from_logits=True),
        keras.losses.CategoricalCrossentropy(), keras.losses.SparseCategoricalCrossentropy(),
        keras.metrics.Mean(), keras.metrics.Accuracy(), keras.metrics.BinaryAccuracy(),
        keras.metrics.CategoricalAccuracy(), keras.metrics.SparseCategoricalAccuracy(),
        keras.metrics.MeanSquaredError(), keras.metrics.MeanAbsoluteError(),
        keras.metrics.AUC(),
        S.ExponentialDecay(0.1, 10, 0.5), S.PiecewiseConstantDecay([1], [0.1, 0.01]),
        S.InverseTimeDecay(0.1, 10, 0.5), S.CosineDecay(0.1, 100),
        keras.optimizers.SGD(0.1, momentum=0.9), keras.optimizers.Adam(0.01),
        keras.optimizers.AdamW(0.01), keras.optimizers.RMSprop(), keras.optimizers.Adagrad(),
        keras.optimizers.Adam(S.ExponentialDecay(0.1, 10, 0.5)),
    ]


def test_config_round_trip_of_every_registered_class():
    for obj in _registered_objects():
        config = keras.saving.serialize_keras_object(obj)
        assert config["module"].startswith("keras"), config
        clone = keras.saving.deserialize_keras_object(config)
        assert type(clone) is type(obj)
        assert keras.saving.serialize_keras_object(clone) == config, type(obj).__name__
