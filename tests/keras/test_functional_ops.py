"""Operators on KerasTensors, Conv2DTranspose/DepthwiseConv2D, Sequential.pop and traced fit
steps, checked against Keras 3 (values from the reference Keras 3 / TF 2.21)."""

import re

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.keras as keras


def test_residual_block_add_layer_equals_operator():
    inp = keras.Input((4,))
    h = keras.layers.Dense(4, kernel_initializer="ones")(inp)
    by_layer = keras.Model(inp, keras.layers.Add()([inp, h]))
    by_operator = keras.Model(inp, inp + h)
    x = np.arange(8, dtype="float32").reshape(2, 4)
    expected = x + x.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(by_layer(x)), expected)
    np.testing.assert_allclose(np.asarray(by_operator(x)), expected)
    # as Keras 3: the op is a graph node but not one of model.layers
    assert [type(layer).__name__ for layer in by_operator.layers] == ["InputLayer", "Dense"]


def test_operator_chain_matches_keras():
    inp = keras.Input((4,), name="x")
    y = keras.layers.Dense(3, kernel_initializer="ones")(inp)
    z = (-(y + 1.0) * 2) @ np.ones((3, 2), "float32")
    v = z[:, 0]
    assert z.shape == (None, 2) and v.shape == (None,)
    assert (y > 0).dtype == "bool"
    model = keras.Model(inp, v)
    np.testing.assert_allclose(np.asarray(model(np.ones((2, 4), "float32"))), [-30., -30.])
    lines = []
    model.summary(print_fn=lines.append, line_length=79)
    text = "\n".join(lines)
    for name, kind in (("add", "Add"), ("negative", "Negative"), ("multiply", "Multiply"),
                       ("matmul", "Matmul"), ("get_item", "GetItem")):
        assert re.search(rf"{name}(_\d+)? \({kind}\)", text), kind


def test_operator_model_trains_with_gradients():
    inp = keras.Input((2,))
    out = keras.layers.Dense(1)(inp) * 2.0 - inp[:, :1]
    model = keras.Model(inp, out)
    model.compile("sgd", "mse")
    x = np.ones((4, 2), "float32")
    before = model.evaluate(x, np.zeros((4, 1)), verbose=0)
    model.fit(x, np.zeros((4, 1)), epochs=5, verbose=0)
    assert model.evaluate(x, np.zeros((4, 1)), verbose=0) < before


def test_tf_ops_on_keras_tensors_raise_as_keras():
    inp = keras.Input((3,))
    with pytest.raises(ValueError, match="A KerasTensor cannot be used as input to a "
                                         "TensorFlow function"):
        tf.nn.relu(inp)


def test_conv2d_transpose_matches_keras():
    cases = [
        (dict(strides=2, padding="valid"), (2, 11, 11, 4), -44.3107795715332, 6798.47119140625),
        (dict(strides=2, padding="same"), (2, 10, 10, 4), 467.08343505859375, 4881.55810546875),
        (dict(strides=(2, 1), padding="same", output_padding=(1, 0)), (2, 10, 5, 4),
         -164.439697265625, 4792.36328125),
        (dict(strides=1, padding="valid", dilation_rate=2), (2, 9, 9, 4), -308.2699890136719,
         4287.08642578125),
    ]
    # the reference drew x, then each case's weights, from this one generator
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 5, 3)).astype("float32")
    for kwargs, shape, total, squares in cases:
        layer = keras.layers.Conv2DTranspose(4, 3, **kwargs)
        layer.build(x.shape)
        assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 4, 3), (4,)]
        layer.set_weights([rng.standard_normal(w.shape).astype("float32")
                           for w in layer.weights])
        y = np.asarray(layer(x))
        assert y.shape == shape
        np.testing.assert_allclose([y.sum(), (y ** 2).sum()], [total, squares], rtol=1e-5)
    with pytest.raises(ValueError, match="`output_padding` must be strictly less than `strides`"):
        keras.layers.Conv2DTranspose(1, 3, strides=2, output_padding=2)


def test_depthwise_conv2d_matches_keras():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 5, 3)).astype("float32")
    layer = keras.layers.DepthwiseConv2D(3, depth_multiplier=2, strides=2, padding="same",
                                         depthwise_initializer="ones", bias_initializer="ones")
    y = np.asarray(layer(x))
    assert [w.path.split("/")[-1] for w in layer.weights] == ["kernel", "bias"]
    assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 3, 2), (6,)]
    assert y.shape == (2, 3, 3, 6)
    # each output channel c*2+m is the 3x3 window sum of input channel c, plus 1
    window = x[:, 0:2, 0:2, :].sum(axis=(1, 2)) + 1.0  # the top-left 'same' window
    np.testing.assert_allclose(y[:, 0, 0, 0::2], window, rtol=1e-5)
    np.testing.assert_allclose(y[:, 0, 0, 1::2], window, rtol=1e-5)


def test_sequential_pop_leaves_a_built_model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2),
                              keras.layers.Dense(5)])
    popped = model.pop()
    assert isinstance(popped, keras.layers.Dense) and popped.units == 5
    assert model.built and model.output_shape == (None, 2)
    assert len(model.layers) == 1


def _small_fit(run_eagerly):
    np.random.seed(0)
    model = keras.Sequential([keras.Input((4,)),
                              keras.layers.Dense(8, activation="relu",
                                                 kernel_initializer=keras.initializers.
                                                 GlorotUniform(seed=1)),
                              keras.layers.Dense(3, kernel_initializer=keras.initializers.
                                                 GlorotUniform(seed=2))])
    model.compile(keras.optimizers.Adam(0.01),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    x = np.random.default_rng(0).standard_normal((50, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    return model, history.history


def test_traced_fit_equals_eager_and_retraces_once_for_the_last_batch():
    eager, eager_history = _small_fit(True)
    traced, traced_history = _small_fit(False)
    for a, b in zip(eager.get_weights(), traced.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert eager_history == traced_history
    train_function = traced._step_functions["train"]
    assert isinstance(train_function, tf.function(lambda: None).__class__)
    # 50 samples in batches of 16: one signature of a None batch serves every batch, the
    # last (2, 4) included, as Keras's step traced on its dataset's element spec.
    assert len(train_function._cache) == 1
    assert "train" not in eager.__dict__.get("_step_functions", {})


def test_keras_ops_eager_and_symbolic():
    np.testing.assert_array_equal(np.asarray(keras.ops.relu(np.array([-1., 2.], "float32"))),
                                  [0., 2.])
    inp = keras.Input((3,))
    y = keras.layers.Dense(3, kernel_initializer="ones")(inp)
    out = keras.ops.concatenate([keras.ops.relu(y), keras.ops.sum(y, axis=1, keepdims=True)],
                                axis=1)
    assert out.shape == (None, 4)
    np.testing.assert_allclose(np.asarray(keras.Model(inp, out)(np.ones((2, 3), "float32"))),
                               [[3., 3., 3., 9.]] * 2)


@pytest.mark.parametrize("name, expected", [
    ("add", [5.0, 9.0]), ("subtract", [-3.0, -5.0]), ("multiply", [4.0, 14.0]),
    ("average", [2.5, 4.5]), ("maximum", [4.0, 7.0]), ("minimum", [1.0, 2.0])])
def test_merge_functions_as_keras(name, expected):
    """keras.layers.add/subtract/multiply/average/maximum/minimum: the merge layer applied
    to a list, eagerly and as a functional-graph node."""
    a, b = np.array([[1.0, 2.0]], "float32"), np.array([[4.0, 7.0]], "float32")
    merge = getattr(keras.layers, name)
    np.testing.assert_allclose(np.asarray(merge([a, b]))[0], expected)
    x, y = keras.Input((2,)), keras.Input((2,))
    model = keras.Model([x, y], merge([x, y], name=f"my_{name}"))
    assert model.layers[-1].name == f"my_{name}"
    np.testing.assert_allclose(np.asarray(model([a, b]))[0], expected)
