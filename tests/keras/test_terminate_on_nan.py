"""keras.callbacks.TerminateOnNaN as Keras 3.15: the first NaN/Inf batch loss prints Keras's
line and ends fit after that epoch (History holds it, on_train_end runs), or raises."""

import math

import numpy as np
import pytest

from tapeflow import keras

X = np.array([[1.], [2.], [np.nan], [4.], [5.], [6.]], np.float32)
Y = np.array([[1.], [2.], [3.], [4.], [5.], [6.]], np.float32)


def _model():
    model = keras.Sequential([keras.Input((1,)),
                              keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", "mse")
    return model


class _Ends(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches, self.train_ended = [], False

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append(batch)

    def on_train_end(self, logs=None):
        self.train_ended = True


def test_nan_loss_stops_fit_after_the_batch(capsys):
    model, ends = _model(), _Ends()
    history = model.fit(X, Y, batch_size=2, epochs=3, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.TerminateOnNaN(), ends])
    # Keras 3.15's answers: batch 1 holds the NaN; the epoch's logs are kept.
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"
    assert list(history.history) == ["loss"] and math.isnan(history.history["loss"][0])
    assert len(history.history["loss"]) == 1 and history.epoch == [0]
    assert model.stop_training is True
    assert ends.batches == [0, 1] and ends.train_ended


def test_inf_loss_stops_fit(capsys):
    model = _model()
    x = np.array([[1.], [np.inf]], np.float32)
    history = model.fit(x, Y[:2], batch_size=1, epochs=2, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.TerminateOnNaN()])
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"
    assert history.history["loss"] == [math.inf]   # Keras 3.15's answer


def test_raise_error_stops_at_once():
    model, ends = _model(), _Ends()
    callback = keras.callbacks.TerminateOnNaN(raise_error=True)
    assert callback.raise_error is True and keras.callbacks.TerminateOnNaN().raise_error is False
    with pytest.raises(RuntimeError) as info:
        model.fit(X, Y, batch_size=2, epochs=3, shuffle=False, verbose=0,
                  callbacks=[callback, ends])
    # Keras 3.15's answer; the batch's later callbacks and on_train_end do not run.
    assert str(info.value) == ("NaN or Inf loss encountered at batch 1. Loss value: nan. "
                               "Terminating training immediately.")
    assert ends.batches == [0] and not ends.train_ended


def test_finite_losses_train_every_epoch(capsys):
    model = _model()
    history = model.fit(X[:2], Y[:2], batch_size=1, epochs=3, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.TerminateOnNaN()])
    assert capsys.readouterr().out == ""
    assert len(history.history["loss"]) == 3 and not model.stop_training
