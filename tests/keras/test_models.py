"""keras.Sequential, the functional API and subclassed models: structure, names, calls,
summary() text (compared with Keras 3's at 80 columns), and training through Trainer."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import layers, models


@pytest.fixture(autouse=True)
def fresh_names(monkeypatch):
    keras.backend.clear_session()
    monkeypatch.setenv("COLUMNS", "80")  # Keras sizes the table to the terminal


SEQUENTIAL_SUMMARY = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 64)             │           704 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (None, 32)             │         2,080 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_2 (Dense)                 │ (None, 1)              │            33 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 2,817 (11.00 KB)
 Trainable params: 2,817 (11.00 KB)
 Non-trainable params: 0 (0.00 B)
"""

FUNCTIONAL_SUMMARY = """\
Model: "functional_1"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ input_layer_1       │ (None, 8, 8, 3)   │          0 │ -                 │
│ (InputLayer)        │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ conv2d (Conv2D)     │ (None, 8, 8, 4)   │        112 │ input_layer_1[0]… │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ batch_normalization │ (None, 8, 8, 4)   │         16 │ conv2d[0][0]      │
│ (BatchNormalizatio… │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ max_pooling2d       │ (None, 4, 4, 4)   │          0 │ batch_normalizat… │
│ (MaxPooling2D)      │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ flatten (Flatten)   │ (None, 64)        │          0 │ max_pooling2d[0]… │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dropout (Dropout)   │ (None, 64)        │          0 │ flatten[0][0]     │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense_3 (Dense)     │ (None, 2)         │        130 │ dropout[0][0]     │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense_4 (Dense)     │ (None, 2)         │        130 │ dropout[0][0]     │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ add (Add)           │ (None, 2)         │          0 │ dense_3[0][0],    │
│                     │                   │            │ dense_4[0][0]     │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ concatenate         │ (None, 4)         │          0 │ dense_3[0][0],    │
│ (Concatenate)       │                   │            │ add[0][0]         │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 388 (1.52 KB)
 Trainable params: 380 (1.48 KB)
 Non-trainable params: 8 (32.00 B)
"""


def seed_model():
    return models.Sequential([layers.Dense(64, activation="relu", input_shape=(10,)),
                              layers.Dense(32, activation="relu"), layers.Dense(1)])


def branchy_model():
    inp = keras.Input((8, 8, 3))
    c = layers.Conv2D(4, 3, padding="same")(inp)
    c = layers.BatchNormalization()(c)
    c = layers.MaxPooling2D()(c)
    c = layers.Flatten()(c)
    c = layers.Dropout(0.5)(c)
    a, b = layers.Dense(2)(c), layers.Dense(2)(c)
    s = layers.Add()([a, b])
    return keras.Model(inp, [s, layers.Concatenate()([a, s])])


def test_sequential_summary_matches_keras(capsys):
    seed_model().summary()
    assert capsys.readouterr().out == SEQUENTIAL_SUMMARY


def test_functional_summary_matches_keras(capsys):
    seed_model()  # Keras's Sequential uses the names 'input_layer' and 'functional'
    branchy_model().summary()
    assert capsys.readouterr().out == FUNCTIONAL_SUMMARY


def test_summary_print_fn_receives_the_text():
    lines = []
    seed_model().summary(print_fn=lines.append)
    assert lines == [SEQUENTIAL_SUMMARY]  # Keras 3 passes the text with its final newline


def test_sequential_structure_and_variables():
    m = seed_model()
    assert m.built and m.name == "sequential"
    assert [l.name for l in m.layers] == ["dense", "dense_1", "dense_2"]
    assert [v.path for v in m.trainable_variables][:2] == ["sequential/dense/kernel",
                                                           "sequential/dense/bias"]
    assert [tuple(v.shape) for v in m.trainable_variables] == [(10, 64), (64,), (64, 32),
                                                               (32,), (32, 1), (1,)]
    assert m.count_params() == 2817 and m.get_layer("dense_1") is m.layers[1]
    assert m.get_layer(index=2).name == "dense_2"
    assert m(np.ones((5, 10), "float32")).shape == (5, 1)


def test_sequential_add_with_input_and_lazy_build():
    m = keras.Sequential()
    m.add(keras.Input((3,)))
    m.add(layers.Dense(2))
    assert m.built and [w.path for w in m.weights] == ["sequential/dense/kernel",
                                                       "sequential/dense/bias"]
    lazy = keras.Sequential([layers.Dense(2)])
    assert not lazy.built
    lazy(np.ones((1, 3)))
    assert lazy.built and [w.path for w in lazy.weights] == ["sequential_1/dense_1/kernel",
                                                             "sequential_1/dense_1/bias"]


def test_functional_model_replays_the_graph():
    m = branchy_model()
    assert [l.name for l in m.layers][:3] == ["input_layer", "conv2d", "batch_normalization"]
    assert m.count_params() == 388 and len(m.non_trainable_weights) == 2
    x = np.random.default_rng(0).standard_normal((3, 8, 8, 3)).astype("float32")
    s, cc = m(x)
    assert s.shape == (3, 2) and cc.shape == (3, 4)
    # The concatenation is [a, a + b]: its second half equals the Add output.
    np.testing.assert_allclose(cc.numpy()[:, 2:], s.numpy(), rtol=1e-6)


def test_functional_multiple_inputs_and_shared_layer():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    shared = layers.Dense(2, kernel_initializer="ones", name="shared")
    out = layers.Subtract()([shared(a), shared(b)])
    m = keras.Model(inputs=[a, b], outputs=out)
    assert [l.name for l in m.layers] == ["a", "b", "shared", "subtract"]
    assert len(m.weights) == 2
    y = m([np.ones((1, 3)), np.zeros((1, 3))])
    np.testing.assert_array_equal(y.numpy(), [[3.0, 3.0]])
    assert "Connected to" in keras.models.summary_text(m)


def test_keras_tensor_shapes():
    inp = keras.Input(shape=(4,), name="x")
    assert repr(inp) == ("<KerasTensor shape=(None, 4), dtype=float32, sparse=False, "
                         "ragged=False, name=x>")
    h = layers.Reshape((2, 2))(layers.Dense(4)(inp))
    assert h.shape == (None, 2, 2)


def test_subclassed_model_trains_with_a_tape():
    class Regressor(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(8, activation="tanh")
            self.out = layers.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))

    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32"))
    m = Regressor()
    losses = []
    for _ in range(60):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((m(x) - y) ** 2)
        grads = tape.gradient(loss, m.trainable_variables)
        for v, g in zip(m.trainable_variables, grads):
            v.assign_sub(0.1 * g)
        losses.append(float(loss.numpy()))
    assert len(m.trainable_variables) == 4
    assert losses[-1] < 0.2 * losses[0]


def test_compile_and_fit_through_trainer():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 4)).astype("float32")
    y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
    m = keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu"),
                          layers.Dense(1, activation="sigmoid")])
    m.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy")
    history = m.fit(x, y, epochs=15, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert m.predict(x, verbose=0).shape == (64, 1)


def test_model_errors():
    m = seed_model()
    with pytest.raises(ValueError, match="No such layer: nope"):
        m.get_layer("nope")
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        m.add(3)


def test_functional_layers_and_weights_follow_keras_depth_order():
    # Keras orders a graph's layers by depth from the outputs (checked with Keras 3), not by
    # creation: get_weights/set_weights lists depend on it.
    x = keras.Input((2,), name="x")
    h1 = layers.Dense(2, name="a")(x)
    h2 = layers.Dense(3, name="b")(x)
    h3 = layers.Dense(4, name="c")(h1)
    out = layers.Concatenate(name="cat")([h3, h2])
    unused = keras.Input((1,), name="u")
    m = keras.Model([x, unused], out)
    assert [layer.name for layer in m.layers] == ["x", "a", "c", "b", "u", "cat"]
    assert [v.path for v in m.weights] == ["a/kernel", "a/bias", "c/kernel", "c/bias",
                                           "b/kernel", "b/bias"]
    assert [layer.name for layer in keras.Model(x, [h2, h3]).layers] == ["x", "a", "b", "c"]
