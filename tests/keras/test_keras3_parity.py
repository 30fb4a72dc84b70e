"""Keras 3 behaviours checked against Keras 3.15 (TF backend); the hard-coded numbers are
Keras's answers, recorded from runs of the same programs in Keras."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def _sigmoid_model():
    m = keras.Sequential([keras.Input((2,)),
                          keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")])
    m.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    return m


X2 = np.array([[1., 1.], [2., 2.]], "float32")
ONES, ZEROS = np.ones((2, 1), "float32"), np.zeros((2, 1), "float32")


def test_train_on_batch_reports_its_own_batch():
    # Keras 3 resets the metrics at each train_on_batch/test_on_batch call.
    m = _sigmoid_model()
    np.testing.assert_allclose(m.train_on_batch(X2, ONES), [0.07253896445035934, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.train_on_batch(X2, ZEROS), [3.075385570526123, 0.0], rtol=1e-6)
    logs = m.train_on_batch(X2, ONES, return_dict=True)
    assert list(logs) == ["accuracy", "loss"]
    np.testing.assert_allclose(logs["loss"], 0.07526902109384537, rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ONES), [0.07508876919746399, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ZEROS), [3.029237985610962, 0.0], rtol=1e-6)
    assert m.test_on_batch(X2, ZEROS, return_dict=True)["accuracy"] == 0.0
    p = m.predict_on_batch(X2)
    assert isinstance(p, np.ndarray) and p.dtype == np.float32 and p.shape == (2, 1)


def test_train_on_batch_class_and_sample_weight_message():
    m = _sigmoid_model()
    with pytest.raises(ValueError, match="Arguments `sample_weight` and `class_weight` cannot"):
        m.train_on_batch(X2, ONES, sample_weight=np.ones(2), class_weight={0: 1.0})


def _frozen_dense(when):
    d = keras.layers.Dense(2, kernel_initializer="ones", trainable=(when != "constructor"))
    d.build((None, 3))
    if when == "after_build":
        d.trainable = False
    return d


@pytest.mark.parametrize("when", ["constructor", "after_build"])
def test_frozen_layer_kernel_still_has_a_gradient(when):
    # Keras 3 (TF backend): the wrapped tf.Variable stays trainable=True, so the tape watches
    # a frozen kernel; only the KerasVariable's flag and trainable_weights change.
    d = _frozen_dense(when)
    assert d.kernel.trainable is False and d.bias.trainable is False
    assert d.trainable_weights == [] and len(d.non_trainable_weights) == 2
    x = np.array([[1., 2., 3.]], "float32")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d(x))
    gk, gb = tape.gradient(y, [d.kernel, d.bias])
    np.testing.assert_array_equal(gk, [[1., 1.], [2., 2.], [3., 3.]])
    np.testing.assert_array_equal(gb, [1., 1.])
    d.trainable = True
    assert d.kernel.trainable is True and len(d.trainable_weights) == 2


def test_non_trainable_add_weight_is_not_watched():
    # Keras 3: add_weight(trainable=False) makes a non-trainable tf.Variable: gradient None.
    class Scale(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(3,), initializer="ones", trainable=False, name="w")

        def call(self, x):
            return x * self.w

    layer = Scale()
    layer.build((None, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(np.ones((1, 3), "float32")))
    assert tape.gradient(y, layer.w) is None
    layer.trainable = True  # unfreezing the layer does not make such a weight trainable
    assert layer.w.trainable is False


def test_fit_leaves_a_frozen_layer_alone():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones"),
                          keras.layers.Dense(1, kernel_initializer="ones")])
    m.layers[0].trainable = False
    m.compile(keras.optimizers.SGD(0.1), "mse")
    h = m.fit(np.array([[1., 2., 3.]], "float32"), np.array([[1.]], "float32"), epochs=2,
              verbose=0)
    np.testing.assert_allclose(h.history["loss"], [121.0, 22380.158203125], rtol=1e-6)
    np.testing.assert_array_equal(m.layers[0].kernel.numpy(), np.ones((3, 2)))
    np.testing.assert_allclose(m.layers[1].kernel.numpy(), [[167.32000732421875]] * 2,
                               rtol=1e-6)
    assert len(m.trainable_variables) == 2 and len(m.non_trainable_variables) == 2


def test_frozen_batch_normalization_runs_in_inference_mode():
    xb = np.array([[1., 2.], [3., 6.]], "float32")
    bn = keras.layers.BatchNormalization(trainable=False)
    np.testing.assert_allclose(bn(xb, training=True),
                               [[0.9995003938674927, 1.9990007877349854],
                                [2.9985013008117676, 5.997002601623535]], rtol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [0., 0.])
    assert len(bn.trainable_weights) == 0 and len(bn.non_trainable_weights) == 4
    bn = keras.layers.BatchNormalization()
    bn(xb, training=True)
    bn(xb, training=True)
    bn.trainable = False
    np.testing.assert_allclose(bn(xb, training=True),
                               [[0.959720253944397, 1.8646416664123535],
                                [2.958721160888672, 5.748502731323242]], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.0398, 0.0796], rtol=1e-6)


# -- input_spec: Keras 3.15's messages, verbatim -----------------------------------------------
L = keras.layers


def _incompatible(layer, what):
    return f"Input 0 with name 'None' of layer '{layer}' is incompatible with the layer: {what}"


def test_dense_input_spec_checks_last_axis_and_rank():
    keras.backend.clear_session()
    d = L.Dense(4)
    assert repr(d.input_spec) == "InputSpec(min_ndim=2)"
    d.build((None, 3))
    assert repr(d.input_spec) == "InputSpec(min_ndim=2, axes={-1: 3})"
    with pytest.raises(ValueError) as e:
        d(np.ones((2, 5), "float32"))
    assert str(e.value) == _incompatible("dense", "expected axis -1 of input shape to have "
                                         "value 3, but received input with shape (2, 5)")
    with pytest.raises(ValueError, match=r"expected axis -1 .* value 3, but received input "
                                         r"with shape \(None, 5\)"):
        d(keras.Input((5,)))
    fresh = L.Dense(4)
    with pytest.raises(ValueError) as e:
        fresh(np.ones((3,), "float32"))
    assert str(e.value) == _incompatible("dense_1", "expected min_ndim=2, found ndim=1. Full "
                                         "shape received: (3,)")
    assert not fresh.built and fresh.weights == []  # a failed call builds nothing


def test_conv_pool_flatten_batchnorm_input_specs():
    keras.backend.clear_session()
    c = L.Conv2D(2, 3)
    with pytest.raises(ValueError) as e:
        c(np.ones((1, 5, 5), "float32"))
    assert str(e.value) == _incompatible("conv2d", "expected min_ndim=4, found ndim=3. Full "
                                         "shape received: (1, 5, 5)")
    assert not c.built and c.weights == []
    c(np.ones((1, 5, 5, 3), "float32"))
    assert repr(c.input_spec) == "InputSpec(min_ndim=4, axes={-1: 3})"
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3, but "
                                         r"received input with shape \(1, 5, 5, 2\)"):
        c(np.ones((1, 5, 5, 2), "float32"))
    with pytest.raises(ValueError) as e:
        L.MaxPooling2D()(np.ones((1, 4, 4), "float32"))
    assert str(e.value) == _incompatible("max_pooling2d", "expected ndim=4, found ndim=3. Full "
                                         "shape received: (1, 4, 4)")
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        L.MaxPooling1D()(np.ones((1, 4, 4, 1), "float32"))
    with pytest.raises(ValueError, match="'global_average_pooling2d' .* expected ndim=4"):
        L.GlobalAveragePooling2D()(np.ones((1, 4, 4), "float32"))
    with pytest.raises(ValueError, match="expected min_ndim=1, found ndim=0"):
        L.Flatten()(np.float32(1.0))
    assert L.Flatten()(np.ones((3,), "float32")).shape == (3, 1)
    bn = L.BatchNormalization()
    bn(np.ones((2, 3), "float32"))
    assert repr(bn.input_spec) == "InputSpec(ndim=2, axes={-1: 3})"
    with pytest.raises(ValueError, match=r"expected ndim=2, found ndim=3. Full shape received: "
                                         r"\(2, 2, 3\)"):
        bn(np.ones((2, 2, 3), "float32"))
    with pytest.raises(ValueError, match="min_ndim=4"):
        L.Conv2DTranspose(2, 3)(np.ones((1, 5, 5), "float32"))
    assert L.LayerNormalization().input_spec is None and L.Embedding(3, 2).input_spec is None


def test_merge_layers_validate_shapes_on_build():
    with pytest.raises(ValueError) as e:
        L.Add()([np.ones((2, 3), "float32"), np.ones((2, 4), "float32")])
    assert str(e.value) == "Inputs have incompatible shapes. Received shapes (3,) and (4,)"
    with pytest.raises(ValueError) as e:
        L.Add()(np.ones((2, 3), "float32"))
    assert str(e.value) == ("A merge layer should be called on a list of inputs. Received: "
                            "input_shape=(2, 3) (not a list of shapes)")
    with pytest.raises(ValueError) as e:
        L.Concatenate()([np.ones((2, 3), "float32"), np.ones((3, 4), "float32")])
    assert str(e.value) == ("A `Concatenate` layer requires inputs with matching shapes except "
                            "for the concatenation axis. Received: input_shape=[(2, 3), (3, 4)]")
    with pytest.raises(ValueError, match=r"exactly 2 inputs. Received: input_shape=\[\(2, 3\), "):
        L.Subtract()([np.ones((2, 3), "float32")] * 3)
    # Different ranks: the lower one gains axes after the batch axis (Keras's reshape).
    y = L.Add()([np.ones((2, 3), "float32"), np.array([1., 2.], "float32")])
    np.testing.assert_array_equal(y, [[2., 2., 2.], [3., 3., 3.]])
    np.testing.assert_array_equal(L.Add()([np.ones((2, 3), "float32"),
                                           np.array([[1.], [2.]], "float32")]),
                                  [[2., 2., 2.], [3., 3., 3.]])


def test_functional_input_spec_and_rank_adjustment():
    keras.backend.clear_session()
    i = keras.Input((3,), name="x")
    f = keras.Model(i, L.Dense(2, kernel_initializer="ones")(i))
    assert repr(f.input_spec) == "[InputSpec(shape=(None, 3), ndim=2)]"
    with pytest.raises(ValueError) as e:
        f(np.ones((2, 5), "float32"))
    assert str(e.value) == ("Input 0 with name 'x' of layer 'functional' is incompatible with "
                            "the layer: expected shape=(None, 3), found shape=(2, 5)")
    np.testing.assert_array_equal(f(np.ones((2, 3, 1), "float32")), np.full((2, 2), 3.))
    with pytest.raises(ValueError, match=r"Invalid input shape for input \[1. 1. 1.\] with name "
                                         r"'x' and path ''. Expected shape \(None, 3\), but "
                                         r"input has incompatible shape \(3,\)"):
        f(np.ones((3,), "float32"))
    a, b = keras.Input((2,), name="a"), keras.Input((3,), name="b")
    f3 = keras.Model([a, b], L.Concatenate()([a, b]))
    with pytest.raises(ValueError) as e:
        f3(np.ones((2, 2), "float32"))
    assert str(e.value) == ("Layer \"functional_1\" expects 2 named input(s) with keys ['a', "
                            "'b'], but it received 1 input tensors. Pass inputs as a dict, e.g. "
                            "`layer({'a': ..., 'b': ...})`.")
    with pytest.raises(ValueError, match="Input 1 with name 'b' of layer 'functional_1' is "
                                         r"incompatible .* expected shape=\(None, 3\), found "
                                         r"shape=\(2, 4\)"):
        f3([np.ones((2, 2), "float32"), np.ones((2, 4), "float32")])
    s = keras.Sequential([keras.Input((3,)), L.Dense(2, kernel_initializer="ones")])
    np.testing.assert_array_equal(s(np.ones((2, 3, 1), "float32")), np.full((2, 2), 3.))
    with pytest.raises(ValueError, match="of layer 'dense_1' is incompatible"):
        s.predict(np.ones((2, 5), "float32"), verbose=0)


def test_input_spec_class():
    spec = keras.layers.InputSpec(shape=(None, 3), dtype="float32")
    assert repr(spec) == "InputSpec(dtype=float32, shape=(None, 3), ndim=2)"
    assert keras.layers.InputSpec(ndim=2, axes={-1: 3}).get_config() == {
        "dtype": None, "shape": None, "ndim": 2, "max_ndim": None, "min_ndim": None,
        "axes": {-1: 3}, "optional": False}
    with pytest.raises(ValueError, match="Axis 3 is greater than the maximum allowed value: 1"):
        keras.layers.InputSpec(ndim=2, axes={3: 1})
    with pytest.raises(TypeError, match="Argument `axes` must be a dict with integer keys"):
        keras.layers.InputSpec(axes={"a": 1})

    class Squeezy(L.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = L.InputSpec(shape=(None, 3, 1), allow_last_axis_squeeze=True)

        def call(self, x):
            return x

    assert Squeezy()(np.ones((2, 3), "float32")).shape == (2, 3)
    with pytest.raises(ValueError, match=r"expected shape=\(None, 3, 1\), found shape=\(2, 4\)"):
        Squeezy()(np.ones((2, 4), "float32"))

    class Pair(L.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = [L.InputSpec(ndim=2), L.InputSpec(ndim=2)]

        def call(self, xs):
            return xs[0]

    with pytest.raises(ValueError, match='expects 2 input\\(s\\), but it received 1 input'):
        Pair()(np.ones((2, 3), "float32"))


def test_layer_without_call_raises_like_keras():
    class NoCall(L.Layer):
        pass

    with pytest.raises(NotImplementedError,
                       match="Layer NoCall does not have a `call` method implemented."):
        NoCall()(np.ones((2, 3), "float32"))


# -- attribute tracking and positional arguments ------------------------------------------------

class _PlainVariables(L.Layer):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.ones((3, 2), "float32"), name="w")
        self.f = tf.Variable(np.ones((2,), "float32"), trainable=False, name="f")
        self.lst = [tf.Variable(1.0, name="l0")]
        self.kv = keras.Variable(np.zeros((2,), "float32"), name="kv")

    def call(self, x):
        return tf.matmul(x, self.w) + self.f + self.kv


def test_plain_tf_variable_attributes_are_not_layer_weights():
    # Keras 3 (TF backend): a tf.Variable attribute is not tracked (variables == [], summary
    # 0 params, fit leaves it alone); a keras.Variable attribute is.
    keras.backend.clear_session()
    layer = _PlainVariables()
    assert [v.name for v in layer.weights] == ["kv"]
    m = keras.Sequential([keras.Input((3,)), layer])
    lines = []
    m.summary(print_fn=lines.append)
    assert " Trainable params: 2 (8.00 B)" in lines[0]
    m.compile("sgd", "mse")
    m.fit(np.ones((2, 3), "float32"), np.zeros((2, 2), "float32"), verbose=0)
    np.testing.assert_array_equal(layer.w.numpy(), np.ones((3, 2)))
    assert not np.array_equal(layer.kv.numpy(), np.zeros(2))


def test_tf_module_tracks_variables_in_attributes_lists_and_dicts():
    # TF 2.21: ['a:0', 'b:0', 'c:0', 'z:0'], trainable ['a:0', 'b:0', 'z:0'], 1 submodule; a
    # Keras layer attribute is not a tf.Module and its weights are not listed.
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.a = tf.Variable(1.0, name="a")
            self.l = [tf.Variable(2.0, name="b"),
                      {"k": tf.Variable(3.0, name="c", trainable=False)}]
            self.sub = tf.Module(name="inner")
            self.sub.z = tf.Variable(4.0, name="z")
            self.d = L.Dense(2)

    m = M()
    m.d.build((None, 3))
    assert [v.name for v in m.variables] == ["a:0", "b:0", "c:0", "z:0"]
    assert [v.name for v in m.trainable_variables] == ["a:0", "b:0", "z:0"]
    assert len(m.submodules) == 1


def test_only_tensors_may_be_passed_positionally():
    class Scale(L.Layer):
        def call(self, x, k):
            return x * k

    x = np.ones((2,), "float32")
    with pytest.raises(ValueError) as e:
        Scale()(x, 3)
    assert str(e.value) == ("Only input tensors may be passed as positional arguments. The "
                            "following argument value should be passed as a keyword argument: "
                            "3 (of type <class 'int'>)")
    with pytest.raises(ValueError, match="keyword argument: b \\(of type <class 'str'>\\)"):
        Scale()(keras.Input((2,)), "b")
    with pytest.raises(ValueError, match="keyword argument: 1.0"):
        L.Dense(2)([[1., 2.]])
    np.testing.assert_array_equal(Scale()(x, k=3), [3., 3.])
    np.testing.assert_array_equal(Scale()(x, np.float32(3.0)), [3., 3.])  # arrays are fine
    np.testing.assert_array_equal(Scale()(x, tf.constant(3.0)), [3., 3.])


# -- fit / evaluate with sample weights ---------------------------------------------------------

def _fit_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 3)).astype("float32")
    return x, (x[:, :1] > 0).astype("float32"), np.linspace(0.5, 1.5, 10).astype("float32")


def _two_dense():
    return keras.Sequential([
        keras.Input((3,)),
        L.Dense(4, activation="relu", kernel_initializer=keras.initializers.Constant(0.1)),
        L.Dense(1, activation="sigmoid", kernel_initializer=keras.initializers.Constant(-0.2))])


def test_fit_evaluate_history_and_unweighted_metrics():
    x, y, sw = _fit_data()
    m = _two_dense()
    m.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy", "mae"])
    h = m.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_data=(x[:4], y[:4]),
              shuffle=False)
    expected = {"accuracy": [0.4, 0.6], "loss": [0.708514, 0.688923],
                "mae": [0.507102, 0.496079], "val_accuracy": [0.75, 0.75],
                "val_loss": [0.673269, 0.655083], "val_mae": [0.489513, 0.479295]}
    assert list(h.history) == list(expected) and h.epoch == [0, 1]
    for key, values in expected.items():
        np.testing.assert_allclose(h.history[key], values, atol=2e-6)
    assert h.params == {"verbose": 0, "epochs": 2, "steps": 3}
    np.testing.assert_allclose(m.evaluate(x, y, batch_size=4, verbose=0),
                               [0.6799863576889038, 0.6000000238418579, 0.4917179048061371],
                               rtol=1e-6)
    # Keras 3 weights the loss by sample_weight, but not the `metrics=` (accuracy stays 0.6).
    logs = m.evaluate(x, y, sample_weight=sw, batch_size=4, verbose=0, return_dict=True)
    np.testing.assert_allclose([logs["accuracy"], logs["loss"], logs["mae"]],
                               [0.6000000238418579, 0.6855205297470093, 0.4917179048061371],
                               rtol=1e-6)


def test_weighted_metrics_use_the_sample_weights():
    x, y, sw = _fit_data()
    m = _two_dense()
    m.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"],
              weighted_metrics=["accuracy"])
    h = m.fit(x, y, sample_weight=sw, batch_size=4, epochs=1, verbose=0, shuffle=False)
    assert sorted(h.history) == ["accuracy", "loss", "weighted_accuracy"]
    np.testing.assert_allclose(h.history["accuracy"], [0.3], rtol=1e-6)
    np.testing.assert_allclose(h.history["weighted_accuracy"], [0.35], rtol=1e-6)
    np.testing.assert_allclose(h.history["loss"], [0.706791], atol=2e-6)


@pytest.mark.parametrize("make", [
    lambda: L.Dense(3, activation="relu", use_bias=False,
                    kernel_initializer=keras.initializers.Constant(0.3)),
    lambda: L.Conv2D(3, 2, strides=2, padding="same", activation="tanh"),
    lambda: L.Conv1D(2, 3, dilation_rate=2),
    lambda: L.Conv2DTranspose(2, 3, strides=2, output_padding=1),
    lambda: L.DepthwiseConv2D(3, depth_multiplier=2),
    lambda: L.MaxPooling2D(3, strides=1, padding="same"),
    lambda: L.GlobalAveragePooling1D(keepdims=True),
    lambda: L.BatchNormalization(momentum=0.9, epsilon=1e-5, center=False),
    lambda: L.LayerNormalization(epsilon=1e-6, rms_scaling=True),
    lambda: L.Dropout(0.3, seed=1),
    lambda: L.Embedding(5, 2, mask_zero=True),
    lambda: L.Flatten(), lambda: L.Reshape((2, 2)), lambda: L.Activation("tanh"),
    lambda: L.Concatenate(axis=1),
])
def test_get_config_round_trips(make):
    # Keras 3 configs hold every constructor argument, so from_config rebuilds the same layer.
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config


def test_from_config_keeps_the_initializer():
    d = L.Dense(2, kernel_initializer=keras.initializers.Constant(0.3))
    clone = L.Dense.from_config(d.get_config())
    np.testing.assert_allclose(clone(np.ones((1, 2), "float32")), [[0.6, 0.6]], rtol=1e-6)
    config = L.Conv2D(3, 2, padding="same").get_config()
    assert (config["filters"], config["kernel_size"], config["padding"]) == (3, (2, 2), "same")
