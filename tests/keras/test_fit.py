"""compile / fit / evaluate / predict on a minimal Trainer model, and the printed text."""

import re
import sys

import numpy as np
import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _tiny_model import TinyModel  # noqa: E402

import tapeflow as tf  # noqa: E402
from tapeflow.keras import optimizers  # noqa: E402


def _data(n=200):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 4)).astype("float32")
    y = (x[:, :1] + x[:, 1:2] > 0).astype("float32")
    return x, y


def _model(**compile_kwargs):
    m = TinyModel(4, 1, hidden=8, activation="sigmoid")
    m.compile(**{"optimizer": optimizers.Adam(0.05), "loss": "binary_crossentropy",
                 "metrics": ["accuracy"], **compile_kwargs})
    return m


def test_fit_learns_and_history_has_keras_keys():
    x, y = _data()
    m = _model()
    h = m.fit(x, y, epochs=5, batch_size=32, validation_split=0.2, verbose=0)
    assert list(h.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert h.epoch == [0, 1, 2, 3, 4] and m.history is h
    assert h.history["loss"][-1] < h.history["loss"][0]
    assert h.history["accuracy"][-1] > 0.85
    loss, acc = m.evaluate(x, y, verbose=0)
    assert acc > 0.85 and isinstance(loss, float)
    assert m.evaluate(x, y, verbose=0, return_dict=True) == {"accuracy": acc, "loss": loss}
    p = m.predict(x[:70], batch_size=32, verbose=0)
    assert p.shape == (70, 1) and p.dtype == np.float32


def test_evaluate_loss_equals_the_mean_of_the_loss_over_samples():
    x, y = _data(50)
    m = _model(metrics=None)
    p = np.clip(m.predict(x, verbose=0), 1e-7, 1 - 1e-7)
    expected = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    # Batches of 32 and 18 are weighted by their size, as Keras's loss tracker does.
    assert m.evaluate(x, y, batch_size=32, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_accuracy_resolves_by_shapes():
    x, _ = _data(40)
    labels = (x[:, 0] > 0).astype("int64")
    m = TinyModel(4, 2, activation="softmax")
    m.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    m.fit(x, labels, epochs=1, verbose=0)
    # Keras 3.15's: model.metrics is the loss tracker and one CompileMetrics.
    assert [type(metric).__name__ for metric in m.metrics] == ["Mean", "CompileMetrics"]
    assert [type(metric).__name__ for metric in m.metrics[1].metrics] == [
        "SparseCategoricalAccuracy"]
    m.compile("sgd", "categorical_crossentropy", metrics=["acc", "mae"])
    assert m.metrics_names == ["loss", "compile_metrics"]   # from compile on, as Keras's
    logs = m.fit(x, np.eye(2, dtype="float32")[labels], epochs=1, verbose=0).history
    kinds = [type(metric).__name__ for metric in m.metrics[1].metrics]
    assert kinds == ["CategoricalAccuracy", "MeanAbsoluteError"]
    assert sorted(logs) == ["acc", "loss", "mae"]


def test_verbose_2_prints_one_line_per_epoch(capsys):
    x, y = _data(64)
    _model().fit(x, y, epochs=2, batch_size=32, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    pattern = r"2/2 - \d+s - \d+(ms|us|s)/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}$"
    assert re.match(pattern, lines[1]) and re.match(pattern, lines[3])


def test_verbose_1_draws_a_keras_style_bar(capsys):
    x, y = _data(64)
    _model().fit(x, y, epochs=1, batch_size=32, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch" not in out  # Keras prints "Epoch i/n" only when epochs > 1
    final = out.split("\r")[-1]
    assert re.match(r"\x1b\[1m2/2\x1b\[0m \x1b\[32m━{20}\x1b\[0m\x1b\[37m\x1b\[0m "
                    r"\x1b\[1m\d+s\x1b\[0m \d+(ms|us|s)/step - accuracy: \d\.\d{4} - "
                    r"loss: \d\.\d{4}\s*\n$", final), repr(final)


def test_verbose_0_is_silent(capsys):
    x, y = _data(64)
    m = _model()
    m.fit(x, y, epochs=2, verbose=0)
    m.evaluate(x, y, verbose=0)
    m.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


def test_validation_data_shuffle_and_initial_epoch():
    x, y = _data()
    m = _model()
    h = m.fit(x, y, epochs=3, initial_epoch=1, validation_data=(x[:20], y[:20]), shuffle=False,
              verbose=0)
    assert h.epoch == [1, 2] and len(h.history["val_loss"]) == 2


def test_fit_before_compile_is_an_error():
    x, y = _data(8)
    with pytest.raises(ValueError, match="must call `compile\\(\\)` before calling `fit\\(\\)`"):
        TinyModel(4, 1).fit(x, y, verbose=0)


def test_train_and_test_on_batch():
    x, y = _data(32)
    m = _model(metrics=None)
    before = m.test_on_batch(x, y)
    for _ in range(10):
        m.train_on_batch(x, y)
    assert m.test_on_batch(x, y) < before
    assert m.predict_on_batch(x).shape == (32, 1)


def test_save_and_load_weights_round_trip(tmp_path):
    x, y = _data(64)
    m = _model()
    m.fit(x, y, epochs=1, verbose=0)
    path = str(tmp_path / "model.weights.h5")
    m.save_weights(path)
    other = _model()
    # The file holds the trained optimizer's slots; the new model's is not built (Keras warns).
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
        other.load_weights(path)
    np.testing.assert_array_equal(other.predict(x, verbose=0), m.predict(x, verbose=0))
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        m.save_weights(str(tmp_path / "model.h5"))
    with pytest.raises(ValueError, match="could not be loaded"):
        TinyModel(4, 1).load_weights(path)


def test_fit_builds_an_unbuilt_model_inside_the_traced_step():
    # No input shape: the first traced train step creates the weights, so the variables to
    # differentiate must be read after the forward pass (as Keras's train_step does) and the
    # optimizer's slots are made in that first trace, not in a later one.
    from tapeflow import keras
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 20, size=(32, 4))
    labels = (tokens.sum(1) % 2).astype("int64")
    model = keras.Sequential([keras.layers.Embedding(20, 4), keras.layers.Flatten(),
                              keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(tokens, labels, epochs=2, batch_size=16, verbose=0)
    assert len(model.trainable_variables) == 3 and len(history.history["loss"]) == 2


def _two_output_model():
    from tapeflow import keras
    x_in = keras.Input((2,), name="x")
    h = keras.layers.Dense(2, name="h")(x_in)
    reg = keras.layers.Dense(1, name="reg")(h)
    cls = keras.layers.Dense(2, activation="softmax", name="cls")(h)
    m = keras.Model(x_in, [reg, cls])
    m.set_weights([np.array([[0.5, -0.2], [0.1, 0.3]], "float32"), np.zeros(2, "float32"),
                   np.array([[1.0], [-1.0]], "float32"), np.zeros(1, "float32"),
                   np.array([[0.2, -0.2], [0.4, 0.1]], "float32"), np.zeros(2, "float32")])
    x = np.array([[1., 2.], [-1., 0.5], [0.3, -0.7], [2., 1.]], "float32")
    y1 = np.array([[0.5], [1.0], [-0.5], [0.0]], "float32")
    return m, x, y1, np.array([0, 1, 1, 0])


def test_multi_output_dict_losses_weights_and_metrics_log_per_output():
    # Values from Keras 3: unweighted '<output>_loss' trackers, '<output>_<metric>' metrics,
    # the list form ordered loss, output losses, then the per-output metrics sorted.
    m, x, y1, y2 = _two_output_model()
    assert m.output_names == ["reg", "cls"]
    m.compile("sgd", loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
              loss_weights={"reg": 2.0, "cls": 1.0},
              metrics={"cls": ["accuracy"], "reg": ["mae"]})
    logs = m.evaluate(x, {"reg": y1, "cls": y2}, verbose=0, return_dict=True)
    assert list(logs) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae"]
    np.testing.assert_allclose([logs[k] for k in logs],
                               [1.0, 0.58683169, 3.30808163, 1.36062491, 1.01250005], rtol=1e-6)
    np.testing.assert_allclose(m.evaluate(x, [y1, y2], verbose=0),
                               [3.30808163, 1.36062491, 0.58683169, 1.0, 1.01250005], rtol=1e-6)
    h = m.fit(x, [y1, y2], epochs=1, verbose=0)
    assert sorted(h.history) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae"]


def test_multi_output_list_loss_with_none_has_no_per_output_tracker():
    m, x, y1, y2 = _two_output_model()
    m.compile("sgd", loss=["mse", None], metrics=[None, ["accuracy"]])
    logs = m.evaluate(x, [y1, y2], verbose=0, return_dict=True)
    assert list(logs) == ["cls_accuracy", "loss"]
    np.testing.assert_allclose(logs["loss"], 1.36062491, rtol=1e-6)


def test_a_custom_train_step_unpacks_x_y_from_data():
    # Keras hands train_step/test_step `(x, y)` when there are no sample weights.
    seen = []

    class Custom(TinyModel):
        def train_step(self, data):
            x, y = data
            seen.append(len(data))
            return super().train_step(data)

        def test_step(self, data):
            x, y, sw = data
            seen.append(len(data))
            return super().test_step(data)

    x, y = _data(8)
    m = Custom(4, 1, activation="sigmoid")
    m.compile(optimizers.SGD(0.1), "binary_crossentropy")
    m.fit(x, y, epochs=1, batch_size=4, verbose=0)
    m.evaluate(x, y, sample_weight=np.ones(8, "float32"), verbose=0)
    assert seen == [2, 3]  # traced once per step function


def test_repeated_metric_names_log_numbered_as_keras():
    # Keras 3.15's History keys for two metrics of one name (and a weighted one of a taken
    # name): the second is 'name_1', the weighted 'weighted_name'.
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    y = (x[:, :1] > 0.5).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, "sigmoid")])
    model.compile("sgd", "binary_crossentropy",
                  metrics=["binary_crossentropy", tf.keras.metrics.BinaryCrossentropy(), "mae",
                           "mae"], weighted_metrics=["mae"])
    history = model.fit(x, y, epochs=1, verbose=0, validation_data=(x, y)).history
    assert sorted(history) == [
        "binary_crossentropy", "binary_crossentropy_1", "loss", "mae", "mae_1",
        "val_binary_crossentropy", "val_binary_crossentropy_1", "val_loss", "val_mae",
        "val_mae_1", "val_weighted_mae", "weighted_mae"]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["binary_crossentropy"] == logs["binary_crossentropy_1"] == logs["loss"]
