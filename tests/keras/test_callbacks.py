"""Callbacks in fit: hook order, EarlyStopping, ModelCheckpoint, LearningRateScheduler."""

import sys

import numpy as np
import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _tiny_model import TinyModel  # noqa: E402

from tapeflow.keras import callbacks, optimizers  # noqa: E402


def _setup(lr=0.05):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    m = TinyModel(4, 1, activation="sigmoid")
    m.compile(optimizers.SGD(lr), "binary_crossentropy", metrics=["accuracy"])
    return m, x, y


class Recorder(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def on_train_begin(self, logs=None):
        self.calls.append(("train_begin", self.params["epochs"], self.params["steps"]))

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append(("epoch_begin", epoch))

    def on_train_batch_end(self, batch, logs=None):
        self.calls.append(("batch_end", batch, sorted(logs)))

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append(("epoch_end", epoch, sorted(logs)))

    def on_train_end(self, logs=None):
        self.calls.append(("train_end",))


def test_a_users_callback_sees_keras_hooks_in_order():
    m, x, y = _setup()
    rec = Recorder()
    m.fit(x, y, epochs=2, batch_size=32, callbacks=[rec], validation_data=(x, y), verbose=0)
    assert rec.model is m
    assert rec.calls[0] == ("train_begin", 2, 2)
    assert rec.calls[1] == ("epoch_begin", 0)
    assert rec.calls[2] == ("batch_end", 0, ["accuracy", "loss"])
    assert rec.calls[4] == ("epoch_end", 0, ["accuracy", "loss", "val_accuracy", "val_loss"])
    assert rec.calls[-1] == ("train_end",)


def test_early_stopping_stops_and_restores_best_weights():
    m, x, y = _setup(lr=0.0)  # nothing improves: stops after `patience` epochs
    stop = callbacks.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    # No shuffling: a reordered epoch can average to a loss one ulp lower, an "improvement".
    h = m.fit(x, y, epochs=20, callbacks=[stop], verbose=0, shuffle=False)
    assert len(h.epoch) == 3 and stop.stopped_epoch == 2
    with pytest.raises(ValueError, match="isn't able to automatically determine"):
        m.fit(x, y, epochs=2, callbacks=[callbacks.EarlyStopping(monitor="custom")], verbose=0)


def test_early_stopping_prints_like_keras(capsys):
    m, x, y = _setup(lr=0.0)
    m.fit(x, y, epochs=5, verbose=0, shuffle=False,
          callbacks=[callbacks.EarlyStopping(monitor="loss", patience=1, verbose=1)])
    assert capsys.readouterr().out == "Epoch 2: early stopping\n"


def test_model_checkpoint_saves_best_only(tmp_path):
    m, x, y = _setup()
    pattern = str(tmp_path / "w-{epoch:02d}.weights.h5")
    ckpt = callbacks.ModelCheckpoint(pattern, monitor="loss", save_best_only=True,
                                     save_weights_only=True)
    m.fit(x, y, epochs=3, callbacks=[ckpt], verbose=0)
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved == ["w-01.weights.h5", "w-02.weights.h5", "w-03.weights.h5"]
    restored = TinyModel(4, 1, activation="sigmoid")
    restored.load_weights(str(tmp_path / "w-03.weights.h5"))
    np.testing.assert_array_equal(restored.get_weights()[0], m.get_weights()[0])


def test_learning_rate_scheduler_sets_the_rate_each_epoch():
    m, x, y = _setup()
    seen = []
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: seen.append(lr) or 0.1 / (epoch + 1))
    h = m.fit(x, y, epochs=3, callbacks=[sched], verbose=0)
    np.testing.assert_allclose(h.history["learning_rate"], [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    np.testing.assert_allclose(seen, [0.05, 0.1, 0.05], rtol=1e-6)


def test_model_checkpoint_verbose_prints_both_keras_lines(tmp_path, capsys):
    m, x, y = _setup()
    path = str(tmp_path / "m.weights.h5")
    m.fit(x, y, epochs=1, verbose=0,
          callbacks=[callbacks.ModelCheckpoint(path, monitor="loss", verbose=1,
                                               save_weights_only=True)])
    assert capsys.readouterr().out == (f"\nEpoch 1: saving model to {path}\n"
                                       f"\nEpoch 1: finished saving model to {path}\n")


def test_logs_a_callback_adds_reach_later_callbacks_not_on_train_end():
    # Keras copies the logs for its callbacks: the scheduler's 'learning_rate' is in History
    # (after it) but not in the logs fit passes to on_train_end.
    m, x, y = _setup()
    ends = []
    recorder = callbacks.LambdaCallback(on_train_end=lambda logs: ends.append(sorted(logs)))
    h = m.fit(x, y, epochs=2, verbose=0, callbacks=[
        callbacks.LearningRateScheduler(lambda epoch, lr: lr), recorder])
    assert "learning_rate" in h.history
    assert ends == [["accuracy", "loss"]]
