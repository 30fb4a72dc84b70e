"""Keras 3's model conventions, as Keras's guides use them: a custom `train_step`'s dict is
the logs, `metrics` (overridable) is what fit logs and resets, a layer's input passed by
keyword, `outputs=[y]`, one loss for several outputs, `compute_loss` without `training`,
the endpoint-layer pattern, `stateless_call`, `add_weight`'s arguments, the `tf` namespaces
TF 2.21 adds, TF's padding names, and ModelCheckpoint of whole models.

Every number here was measured with TF 2.21 / Keras 3.15.1 (same seeds, same data)."""

import json
import warnings

import h5py
import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.framework.errors import InvalidArgumentError

ops = keras.ops


def _regression_data(n=64):
    x = np.random.RandomState(0).rand(n, 3).astype("float32")
    return x, x.sum(1, keepdims=True)


# -- 1. the dict a custom train_step / test_step / predict_step returns ----------------------

class _OwnLogs(keras.Model):
    """Returns its own keys from each step (the GAN/VAE guides' pattern)."""

    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(1)

    def call(self, x):
        return self.d(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = ops.mean((y - y_pred) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"reconstruction_loss": loss, "d_loss": loss * 2}

    def test_step(self, data):
        x, y = data
        return {"my_loss": ops.mean((y - self(x, training=False)) ** 2)}

    def predict_step(self, data):
        return {"out": self(data, training=False)}


def _own_logs_model():
    keras.utils.set_random_seed(1)
    model = _OwnLogs()
    model.compile(optimizer="adam")
    return model


def test_fit_logs_the_dict_train_step_returns(capsys):
    model = _own_logs_model()
    x, y = _regression_data()
    # Keras 3.15.1 prints '... - d_loss: 1.5553 - reconstruction_loss: 0.7776 - val_my_loss:
    # 1.0119' (tapeflow printed 'loss: 0.0000e+00', the unused compiled loss tracker).
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=2, validation_data=(x, y))
    assert list(history.history) == ["d_loss", "reconstruction_loss", "val_my_loss"]
    np.testing.assert_allclose(history.history["d_loss"], [1.5552725791931152, 1.5209342241287231],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["reconstruction_loss"],
                               [0.7776362895965576, 0.7604671120643616], rtol=1e-5)
    np.testing.assert_allclose(history.history["val_my_loss"],
                               [1.0118837356567383, 0.9930517077445984], rtol=1e-5)
    lines = [line for line in capsys.readouterr().out.splitlines() if "/step" in line]
    assert lines[0].endswith("d_loss: 1.5553 - reconstruction_loss: 0.7776 - val_my_loss: 1.0119")
    assert lines[1].endswith("d_loss: 1.5209 - reconstruction_loss: 0.7605 - val_my_loss: 0.9931")
    assert model.history is history


def test_evaluate_and_predict_return_what_the_steps_return():
    model = _own_logs_model()
    x, y = _regression_data()
    model.fit(x, y, epochs=2, batch_size=16, verbose=0, validation_data=(x, y))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.8811801671981812, rel=1e-5)
    assert model.evaluate(x, y, verbose=0, return_dict=True) == \
        {"my_loss": pytest.approx(0.8811801671981812, rel=1e-5)}
    predicted = model.predict(x, verbose=0, batch_size=16)
    assert isinstance(predicted, dict) and predicted["out"].shape == (64, 1)
    assert model.train_on_batch(x, y, return_dict=True).keys() == {"d_loss", "reconstruction_loss"}


class _OwnMetrics(keras.Model):
    """The guide's first example: its own trackers, listed by a `metrics` override."""

    def __init__(self):
        super().__init__()
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.d = keras.layers.Dense(1)

    def call(self, x):
        return self.d(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = keras.losses.mean_squared_error(y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_a_metrics_override_is_logged_and_reset_each_epoch():
    keras.utils.set_random_seed(1)
    model = _OwnMetrics()
    model.compile(optimizer="adam")
    x, y = _regression_data()
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    # Reset each epoch by fit (the per-epoch means differ from running means).
    np.testing.assert_allclose(history.history["loss"],
                               [0.8115100264549255, 0.7947404384613037, 0.7782242894172668],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["mae"],
                               [0.7840468883514404, 0.7740485668182373, 0.7641457319259644],
                               rtol=1e-5)
    assert model.metrics_names == ["loss", "mae"]


class _LoopsOverMetrics(keras.Model):
    """The guide's `compute_loss` + `for metric in self.metrics` example."""

    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(1)

    def call(self, x):
        return self.d(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)   # CompileMetrics takes (y, y_pred) too
        return {m.name: m.result() for m in self.metrics}


def test_compile_metrics_update_from_a_custom_train_step():
    keras.utils.set_random_seed(1)
    model = _LoopsOverMetrics()
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = _regression_data()
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    # The step's dict holds 'compile_metrics' (a dict): Keras logs it flattened, keys sorted.
    assert list(history.history) == ["mae", "loss"]
    np.testing.assert_allclose(history.history["mae"], [0.7840468883514404, 0.7740485668182373],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"], [0.8115100264549255, 0.7947404384613037],
                               rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0),
                               [0.7845683097839355, 0.7678946852684021], rtol=1e-5)


class _GAN(keras.Model):
    """keras.io's GAN `train_step` (two optimizers, a SeedGenerator), on vectors."""

    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator, self.generator, self.latent_dim = discriminator, generator, latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self.seed_generator = keras.random.SeedGenerator(1337)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

    def train_step(self, real):
        batch_size = tf.shape(real)[0]
        latent = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        combined = tf.concat([self.generator(latent), real], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * keras.random.uniform(tf.shape(labels), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
        latent = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(tf.zeros((batch_size, 1)),
                                  self.discriminator(self.generator(latent)))
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def test_gan_guide_train_step_with_two_optimizers():
    keras.utils.set_random_seed(1)
    layers = keras.layers
    discriminator = keras.Sequential([keras.Input((6,)), layers.Dense(8, activation="relu"),
                                      layers.Dense(1)])
    generator = keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu"),
                                  layers.Dense(6)])
    gan = _GAN(discriminator, generator, latent_dim=4)
    gan.compile(d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                loss_fn=keras.losses.BinaryCrossentropy(from_logits=True))
    data = np.random.RandomState(0).rand(64, 6).astype("float32")
    history = gan.fit(data, epochs=3, batch_size=16, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["d_loss"],
                               [0.7463253140449524, 0.7488927841186523, 0.7466838359832764],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["g_loss"],
                               [0.814539909362793, 0.8194852471351624, 0.8014876246452332],
                               rtol=1e-5)


def test_a_step_that_returns_no_dict_is_refused():
    class Returns(keras.Model):
        def __init__(self, value):
            super().__init__()
            self.d, self.value = keras.layers.Dense(1), value

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            self(data[0])
            return self.value(data[0])

    x, y = _regression_data(8)
    for value, error, words in [(lambda x: tf.reduce_mean(x), AttributeError, "items"),
                                (lambda x: None, ValueError, "must return a dict")]:
        model = Returns(value)
        model.compile(optimizer="sgd", loss="mse")
        with pytest.raises(error, match=words):
            model.fit(x, y, epochs=1, verbose=0)


def test_attribute_metrics_are_listed_after_the_compiled_ones():
    class WithTracker(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)
            self.seen = keras.metrics.Sum(name="seen")

        def call(self, x):
            return self.d(x)

    model = WithTracker()
    assert [m.name for m in model.metrics] == ["seen"]
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics", "seen"]


# -- 2. a layer's input passed by keyword ------------------------------------------------------

class _Endpoint(keras.layers.Layer):
    def call(self, logits, targets=None, training=None):
        return logits * 2 if targets is None else logits - targets


def test_a_layer_takes_the_first_call_argument_by_keyword():
    x = np.ones((2, 3), "float32")
    layer = _Endpoint()
    np.testing.assert_array_equal(layer(logits=x), 2 * x)
    np.testing.assert_array_equal(layer(targets=x, logits=x), 0 * x)
    dense = keras.layers.Dense(2, kernel_initializer="ones")
    np.testing.assert_array_equal(dense(inputs=x), np.full((2, 2), 3.0))
    inp = keras.Input((3,))
    model = keras.Model(inp, layer(logits=inp))
    np.testing.assert_array_equal(model(inputs=x), 2 * x)
    # Keras 3.15.1: inspect's TypeError, naming the missing argument.
    with pytest.raises(TypeError, match="missing a required argument: 'logits'"):
        layer(targets=x)
    with pytest.raises(TypeError, match="missing a required argument: 'inputs'"):
        dense()


# -- 3. outputs=[y] and one loss over several outputs -----------------------------------------

def test_a_one_element_output_list_is_one_output():
    keras.utils.set_random_seed(3)
    inp = keras.Input((4,))
    y = keras.layers.Dense(3, kernel_initializer="ones")(inp)
    model = keras.Model(inputs=[inp], outputs=[y])
    assert isinstance(model.output, list) and isinstance(model(inp), list)  # symbolic: a list
    x = np.arange(32, dtype="float32").reshape(8, 4) / 32
    assert not isinstance(model(x), list) and model.predict(x, verbose=0).shape == (8, 3)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, np.array([0, 1, 2, 0, 1, 2, 0, 1]).reshape(8, 1), epochs=2,
                        batch_size=4, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [1.0986123085021973, 1.0938910245895386],
                               rtol=1e-5)
    assert history.history["accuracy"] == [0.375, 0.375]


def test_one_loss_applies_to_each_output_and_sums():
    keras.utils.set_random_seed(3)
    inp = keras.Input((4,))
    a = keras.layers.Dense(3, kernel_initializer="ones", name="a")(inp)
    b = keras.layers.Dense(3, kernel_initializer="ones", name="b")(inp)
    model = keras.Model(inputs=[inp], outputs=[a, b])
    model.compile(optimizer="sgd", loss="mse")
    x = np.arange(32, dtype="float32").reshape(8, 4) / 32
    target = np.ones((8, 3), "float32")
    history = model.fit(x, [target, target * 2], epochs=1, batch_size=4, verbose=0)
    # tapeflow took one mean over both outputs where Keras sums the two outputs' losses.
    assert history.history == {"a_loss": [pytest.approx(2.1774563789367676, rel=1e-5)],
                               "b_loss": [pytest.approx(1.3189671039581299, rel=1e-5)],
                               "loss": [pytest.approx(3.4964234828948975, rel=1e-5)]}


# -- 4. compute_loss overrides, add_loss, dict data, deprecated names, stateless_call ----------

def test_compute_loss_override_without_training_argument():
    class OwnLoss(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

        def compute_loss(self, x, y, y_pred, sample_weight):  # no `training` (Keras < 3.3)
            return tf.reduce_mean((y - y_pred) ** 2)

    keras.utils.set_random_seed(5)
    model = OwnLoss()
    model.compile(optimizer="sgd")
    x, y = _regression_data()
    history = model.fit(x, y, epochs=2, verbose=0, batch_size=16)
    # tapeflow passed `training=` to it: TypeError.
    np.testing.assert_allclose(history.history["loss"], [1.3458969593048096, 1.022101640701294],
                               rtol=1e-5)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.8592262268066406, rel=1e-5)


class _LogisticEndpoint(keras.layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

    def call(self, logits, targets=None, sample_weight=None):
        if targets is not None:
            self.add_loss(self.loss_fn(targets, logits, sample_weight))
        return tf.nn.softmax(logits)


def _endpoint_model():
    keras.utils.set_random_seed(5)
    inputs = keras.Input((3,), name="inputs")
    targets = keras.Input((10,), name="targets")
    logits = keras.layers.Dense(10)(inputs)
    sample_weight = keras.Input((1,), name="sample_weight")
    preds = _LogisticEndpoint()(logits, targets, sample_weight)
    model = keras.Model([inputs, targets, sample_weight], preds)
    model.compile(keras.optimizers.Adam(1e-3))
    return model


def test_endpoint_layer_pattern_fits_on_a_dict_of_inputs():
    model = _endpoint_model()
    data = {"inputs": np.random.RandomState(0).random((1000, 3)).astype("float32"),
            "targets": np.random.RandomState(1).random((1000, 10)).astype("float32"),
            "sample_weight": np.random.RandomState(2).random((1000, 1)).astype("float32")}
    history = model.fit(data, epochs=2, verbose=0)
    # The dict is matched to the Inputs by name (tapeflow flattened it in key order, which
    # handed 'sample_weight' to the 'targets' Input).
    np.testing.assert_allclose(history.history["loss"], [0.34588879346847534, 0.3439616560935974],
                               rtol=1e-5)
    assert model.history is history
    assert model.evaluate(data, verbose=0) == pytest.approx(0.34312841296195984, rel=1e-5)


def test_a_dict_without_an_inputs_name_is_refused():
    model = _endpoint_model()
    data = {"inputs": np.ones((4, 3), "float32"), "target": np.ones((4, 10), "float32"),
            "sample_weight": np.ones((4, 1), "float32")}
    with pytest.raises(ValueError, match='Missing data for input "targets"'):
        model.predict(data, verbose=0)
    with pytest.raises(ValueError, match='Missing data for input "targets"'):
        model(data)


def test_keras2_compiled_loss_and_compiled_metrics_still_train():
    class Keras2Style(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    keras.utils.set_random_seed(1)
    model = Keras2Style()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = _regression_data(32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    texts = " ".join(str(w.message) for w in caught)
    assert "`model.compiled_loss()` is deprecated" in texts
    assert "`model.compiled_metrics()` is deprecated" in texts
    # Keras's deprecated update feeds y_pred to the 'loss' Mean: its 'loss' is mean(y_pred).
    np.testing.assert_allclose(history.history["loss"], [0.7329646944999695, 0.8275851011276245],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["mae"], [0.6995080709457397, 0.6086252927780151],
                               rtol=1e-5)


def test_stateless_call_leaves_the_variables_as_they_were():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2),
                              keras.layers.BatchNormalization()])
    x = np.arange(12, dtype="float32").reshape(4, 3)
    trainable = [np.ones(v.shape, "float32") for v in model.trainable_variables]
    non_trainable = [np.asarray(v) for v in model.non_trainable_variables]
    before = [np.array(v) for v in model.variables]
    out, state = model.stateless_call(trainable, non_trainable, x, training=True)
    np.testing.assert_allclose(out, [[-0.3416] * 2, [0.5528] * 2, [1.4472] * 2, [2.3416] * 2],
                               atol=1e-4)
    np.testing.assert_allclose(state, [[0.175, 0.175], [2.0025, 2.0025]], atol=1e-4)
    assert all(np.array_equal(a, np.asarray(b)) for a, b in zip(before, model.variables))
    with pytest.raises(ValueError, match="Received list with length 1, but expected 2"):
        model.stateless_call(trainable, non_trainable[:1], x)
    with pytest.raises(ValueError, match="must be built"):
        keras.Sequential([keras.layers.Dense(2)]).stateless_call([], [], x)


def test_add_weight_takes_every_keras_argument():
    layer = keras.layers.Layer(name="lay")
    w = layer.add_weight(shape=(2,), initializer="ones", dtype="float32", trainable=False,
                         autocast=False, regularizer="l2", constraint="non_neg",
                         aggregation="mean", overwrite_with_gradient=False, name="w")
    assert (w.path, w.trainable, w.aggregation.name, w.overwrite_with_gradient) == \
        ("lay/w", False, "MEAN", False)
    assert type(w.regularizer).__name__ == "L2" and type(w.constraint).__name__ == "NonNeg"
    assert len(layer.non_trainable_weights) == 1 and layer.losses == []
    with pytest.raises(ValueError, match="Invalid value for argument `aggregation`"):
        layer.add_weight(aggregation="bogus")
    with pytest.raises(ValueError, match="Negative dimensions are not allowed"):
        layer.add_weight(shape=(-1,))
    # tapeflow's optimizers would apply such a gradient as an update: refused, not wrong.
    with pytest.raises(NotImplementedError, match="overwrite_with_gradient"):
        layer.add_weight(shape=(1,), overwrite_with_gradient=True)
    assert len(layer.weights) == 1


# -- 5. namespaces and TF's padding names ------------------------------------------------------

def test_tf_namespaces_as_tf_2_21_exposes_them():
    assert tf.initializers is keras.initializers
    assert tf.initializers.glorot_uniform is tf.initializers.GlorotUniform
    assert tf.keras.preprocessing.__name__ == "tapeflow.keras.preprocessing"
    assert tf.keras.applications.ResNet50 is keras.applications.resnet50.ResNet50


_X2, _K2 = np.ones((1, 4, 4, 1), "float32"), np.ones((2, 2, 1, 1), "float32")
_X1, _K1 = np.ones((1, 4, 1), "float32"), np.ones((2, 1, 1), "float32")
_X3, _K3 = np.ones((1, 4, 4, 4, 1), "float32"), np.ones((2, 2, 2, 1, 1), "float32")
_EXPLICIT = '"SAME", "VALID", "EXPLICIT"'
_PLAIN = '"SAME", "VALID"'
# Each op with TF 2.21's list of allowed paddings in its InvalidArgumentError.
_PADDED_OPS = {
    "conv1d": (lambda p: tf.nn.conv1d(_X1, _K1, 1, p), _EXPLICIT),
    "conv2d": (lambda p: tf.nn.conv2d(_X2, _K2, 1, p), _EXPLICIT),
    "conv3d": (lambda p: tf.nn.conv3d(_X3, _K3, [1] * 5, p), _PLAIN),
    "convolution": (lambda p: tf.nn.convolution(_X2, _K2, padding=p), _EXPLICIT),
    "depthwise_conv2d": (lambda p: tf.nn.depthwise_conv2d(_X2, _K2, [1] * 4, p), _EXPLICIT),
    "separable_conv2d": (lambda p: tf.nn.separable_conv2d(
        _X2, _K2, np.ones((1, 1, 1, 1), "float32"), [1] * 4, p), _EXPLICIT),
    "conv2d_transpose": (lambda p: tf.nn.conv2d_transpose(_X2, _K2, [1, 4, 4, 1], 1, p),
                         _EXPLICIT),
    "conv1d_transpose": (lambda p: tf.nn.conv1d_transpose(_X1, _K1, [1, 4, 1], 1, p),
                         _EXPLICIT),
    "conv3d_transpose": (lambda p: tf.nn.conv3d_transpose(_X3, _K3, [1, 4, 4, 4, 1], 1, p),
                         _PLAIN),
    "max_pool2d": (lambda p: tf.nn.max_pool2d(_X2, 2, 1, p), _EXPLICIT),
    "avg_pool2d": (lambda p: tf.nn.avg_pool2d(_X2, 2, 1, p), _PLAIN),
    "max_pool1d": (lambda p: tf.nn.max_pool1d(_X1, 2, 1, p), _EXPLICIT),
    "avg_pool1d": (lambda p: tf.nn.avg_pool1d(_X1, 2, 1, p), _PLAIN),
    "max_pool3d": (lambda p: tf.nn.max_pool3d(_X3, 2, 1, p), _PLAIN),
    "avg_pool3d": (lambda p: tf.nn.avg_pool3d(_X3, 2, 1, p), _PLAIN),
    "pool": (lambda p: tf.nn.pool(_X2, [2, 2], "MAX", padding=p), _EXPLICIT),
    "dilation2d": (lambda p: tf.nn.dilation2d(_X2, np.ones((2, 2, 1), "float32"), [1] * 4, p,
                                              "NHWC", [1] * 4), _PLAIN),
    "erosion2d": (lambda p: tf.nn.erosion2d(_X2, np.ones((2, 2, 1), "float32"), [1] * 4, p,
                                            "NHWC", [1] * 4), _PLAIN),
    "max_pool_with_argmax": (lambda p: tf.nn.max_pool_with_argmax(_X2, 2, 1, p), _PLAIN),
}


@pytest.mark.parametrize("op", sorted(_PADDED_OPS))
@pytest.mark.parametrize("padding", ["valid", "same", "Valid", "bogus"])
def test_padding_must_be_spelled_as_tf_spells_it(op, padding):
    call, allowed = _PADDED_OPS[op]
    with pytest.raises(InvalidArgumentError) as caught:
        call(padding)
    assert f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: " \
           f"{allowed}" in str(caught.value)
    assert np.asarray(call("SAME")).size > 0  # the spelling TF takes


def test_atrous_conv2d_padding_is_a_value_error():
    for padding in ["valid", "bogus"]:
        with pytest.raises(ValueError, match=f"`padding` must be one of 'SAME' or 'VALID'. "
                                             f"Received: padding={padding}"):
            tf.nn.atrous_conv2d(_X2, _K2, 2, padding)


# -- 6. ModelCheckpoint of whole models ---------------------------------------------------------

def _checkpointed_model():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    return model


def test_model_checkpoint_saves_the_best_whole_model(tmp_path, capsys):
    model = _checkpointed_model()
    x, y = _regression_data(32)
    path = str(tmp_path / "best.keras")
    model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.ModelCheckpoint(
        path, save_best_only=True, monitor="loss", verbose=1)])
    assert "Epoch 2: loss improved from 0.71834 to 0.71448, saving model to" in \
        capsys.readouterr().out
    restored = keras.models.load_model(path)
    np.testing.assert_allclose(restored.predict(x[:2], verbose=0), model.predict(x[:2], verbose=0))
    assert int(restored.optimizer.iterations.numpy()) == 2


def test_model_checkpoint_refuses_paths_as_keras_does(tmp_path):
    with pytest.raises(ValueError, match="must end in `.keras` \\(Keras model format\\)"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "x.txt"))
    with pytest.raises(ValueError, match="When using `save_weights_only=True`.*`.weights.h5`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "y.keras"), save_weights_only=True)
    assert list(tmp_path.iterdir()) == []


# -- 6b. Keras's legacy HDF5 model file -------------------------------------------------------

_FIXTURES = __file__.rsplit("/", 1)[0] + "/fixtures"


def test_load_model_reads_a_keras_legacy_h5_file():
    # Written by Keras 3.15.1 (tools/record_keras3_conventions.py).
    with open(f"{_FIXTURES}/keras3_legacy.json") as f:
        recorded = json.load(f)
    model = keras.models.load_model(f"{_FIXTURES}/keras3_legacy.h5")
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    np.testing.assert_allclose(model.predict(x[:2], verbose=0), recorded["predictions"],
                               rtol=1e-6)
    assert int(model.optimizer.iterations.numpy()) == recorded["iterations"]
    assert type(model.optimizer).__name__ == "Adam" and model.compiled
    model.fit(x, x[:, :1], epochs=1, verbose=0)  # training goes on from the saved state
    assert int(model.optimizer.iterations.numpy()) == recorded["iterations"] + 1


def test_save_h5_round_trips_weights_config_and_optimizer(tmp_path):
    model = _checkpointed_model()
    x, y = _regression_data(32)
    model.fit(x, y, epochs=1, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    with h5py.File(path) as f:   # Keras's layout
        assert set(f) == {"model_weights", "optimizer_weights"}
        assert json.loads(f.attrs["model_config"])["class_name"] == "Sequential"
        assert json.loads(f.attrs["training_config"])["optimizer_config"]["class_name"] == "Adam"
    restored = keras.models.load_model(path)
    np.testing.assert_array_equal(restored.predict(x, verbose=0), model.predict(x, verbose=0))
    np.testing.assert_array_equal(restored.optimizer.variables[2].numpy(),
                                  model.optimizer.variables[2].numpy())
    restored_again = keras.models.load_model(path, compile=False)
    assert not restored_again.compiled


def test_model_checkpoint_writes_h5_models(tmp_path):
    model = _checkpointed_model()
    x, y = _regression_data(32)
    path = str(tmp_path / "m.h5")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.ModelCheckpoint(path)])
    np.testing.assert_array_equal(keras.models.load_model(path).predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def _tampered_copy(tmp_path, edit):
    path = str(tmp_path / "tampered.h5")
    with open(f"{_FIXTURES}/keras3_legacy.h5", "rb") as src, open(path, "wb") as dst:
        dst.write(src.read())
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


def _swap_kernel_for_link(f):
    group = f["model_weights/d1/d1"]
    del group["kernel"]
    group["kernel"] = h5py.SoftLink("/model_weights/d2/d2/kernel")


def _drop_layer(f):
    names = [n for n in f["model_weights"].attrs["layer_names"] if n not in ("d2", b"d2")]
    f["model_weights"].attrs["layer_names"] = names


def _bigger_kernel(f):
    group = f["model_weights/d1/d1"]
    del group["kernel"]
    group["kernel"] = np.zeros((30, 4), "float32")


@pytest.mark.parametrize("edit, words", [
    (_swap_kernel_for_link, "Not allowed: H5 file with SoftLink"),
    (_drop_layer, "Layer count mismatch when loading weights from file. Model expected 3 "
                  "layers, found 2 saved layers."),
    (_bigger_kernel, "shape"),
])
def test_a_damaged_h5_model_is_refused(tmp_path, edit, words):
    path = _tampered_copy(tmp_path, edit)
    with pytest.raises(ValueError, match=words):
        keras.models.load_model(path)


def test_mutated_h5_models_raise_only_the_documented_classes(tmp_path):
    # A seeded byte mutator over Keras's file: each load returns a model or raises h5py's
    # OSError (HDF5 cannot read it), TypeError (a config that cannot be built, as Keras) or
    # ValueError (any other damage); never KeyError, RuntimeError or anything else.
    with open(f"{_FIXTURES}/keras3_legacy.h5", "rb") as f:
        original = f.read()
    rng = np.random.default_rng(0)
    path = str(tmp_path / "mutated.h5")
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(200):
        data = bytearray(original)
        for position in rng.integers(0, len(data), size=rng.integers(1, 9)):
            data[position] = int(rng.integers(0, 256))
        with open(path, "wb") as f:
            f.write(data)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                keras.models.load_model(path)
            outcomes["loaded"] += 1
        except (OSError, TypeError, ValueError):
            outcomes["refused"] += 1
    assert outcomes["refused"] > 50 and sum(outcomes.values()) == 200


def test_a_model_subclass_built_the_functional_way_is_functional():
    """keras.io's recipes subclass Model for its train_step and build it with inputs and
    outputs: Keras 3 makes such a model functional (it raised NotImplementedError here)."""
    class Custom(keras.Model):
        def train_step(self, data):
            return super().train_step(data)

    inputs = keras.Input((2,))
    model = Custom(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    assert isinstance(model, Custom) and type(model).__name__ == "Custom"
    np.testing.assert_allclose(np.asarray(model(np.ones((1, 2), "float32"))), [[2.0]])
    model.compile("sgd", "mse")
    assert "loss" in model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0).history

    class Plain(keras.Model):      # two positional arguments of its own: not functional
        def __init__(self, units, extra):
            super().__init__()
            self.dense = keras.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

    assert Plain(3, 4)(np.ones((1, 2), "float32")).shape == (1, 3)
