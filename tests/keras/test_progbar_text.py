"""The text `fit`, `evaluate` and `predict` print through `ProgbarLogger`, against Keras 3.15.

The expected text was printed by real Keras 3.15 (TensorFlow backend) running the cases
below with the same model and data, its `keras.src.utils.progbar.time` replaced by the same
`Clock` (every `time()` call 0.3 s later), so the times are fixed too. It is written with
escapes shortened by `_readable`: <b> bold, </> reset, <g> green, <w> white, '━6' six bar
characters, <BS67> 67 backspaces.
"""

import re
import warnings

import numpy as np
import pytest

from tapeflow import keras
from tapeflow.keras.utils import progbar as progbar_module


class Clock:
    """A stand-in for the `time` module: each `time()` is `step` seconds after the last."""

    def __init__(self, step):
        self.now = 1000.0
        self.step = step

    def time(self):
        self.now += self.step
        return self.now


def _readable(text):
    text = re.sub(r"\x08+", lambda m: f"<BS{len(m.group())}>", text)
    text = re.sub(r"━+", lambda m: f"━{len(m.group())}", text)
    for escape, short in (("\x1b[1m", "<b>"), ("\x1b[0m", "</>"), ("\x1b[32m", "<g>"),
                          ("\x1b[37m", "<w>")):
        text = text.replace(escape, short)
    return text


rng = np.random.default_rng(0)
X = rng.normal(size=(10, 3)).astype("float32")
Y = rng.normal(size=(10, 2)).astype("float32")


def _model(metrics=("mae",)):
    init = keras.initializers.Constant(np.arange(6).reshape(3, 2) / 10.)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer=init)])
    model.compile(optimizer="sgd", loss="mse", metrics=list(metrics))
    return model


def _generator():
    for _ in range(3):
        yield X[:4], Y[:4]


CASES = {
    "fit_v1": lambda m: m.fit(X, Y, batch_size=4, epochs=2, verbose=1, shuffle=False),
    "fit_v1_val": lambda m: m.fit(X, Y, batch_size=4, epochs=1, verbose=1, shuffle=False,
                                  validation_data=(X, Y)),
    "fit_v2_val": lambda m: m.fit(X, Y, batch_size=4, epochs=2, verbose=2, shuffle=False,
                                  validation_data=(X, Y)),
    "evaluate_v1": lambda m: m.evaluate(X, Y, batch_size=4, verbose=1),
    "evaluate_v2": lambda m: m.evaluate(X, Y, batch_size=4, verbose=2),
    "predict_v1": lambda m: m.predict(X, batch_size=4, verbose=1),
    "predict_v2": lambda m: m.predict(X, batch_size=4, verbose=2),
    "fit_generator": lambda m: m.fit(_generator(), epochs=1, verbose=1, shuffle=False),
    "fit_tiny_loss": lambda m: m.fit(X * 0, Y * 0, batch_size=4, epochs=1, verbose=1,
                                     shuffle=False),
    "evaluate_sorted": lambda m: m.evaluate(X, Y, batch_size=4, verbose=1),
}

# Keras 3.15's text (see the module docstring).
KERAS_TEXT = {
    'fit_v1': (
        'Epoch 1/2\n'
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - loss: 0.3240 - mae: 0.4696<BS67>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - loss: 1.0482 - mae: 0.7998<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - loss: 1.4952 - mae: 0.9977<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 1.4952 - mae: 0.9977\n'
        'Epoch 2/2\n'
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - loss: 0.3247 - mae: 0.4622<BS67>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - loss: 1.0045 - mae: 0.7839<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - loss: 1.4413 - mae: 0.9796<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 1.4413 - mae: 0.9796\n'
    ),
    'fit_v1_val': (
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - loss: 0.3240 - mae: 0.4696<BS67>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - loss: 1.0482 - mae: 0.7998<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - loss: 1.4952 - mae: 0.9977<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 1.4952 - mae: 0.9977'
        ' - val_loss: 1.4456 - val_mae: 0.9809\n'
    ),
    'fit_v2_val': (
        'Epoch 1/2\n'
        '3/3 - 0s - 100ms/step - loss: 1.4952 - mae: 0.9977 - val_loss: 1.4456'
        ' - val_mae: 0.9809\n'
        'Epoch 2/2\n'
        '3/3 - 0s - 100ms/step - loss: 1.4413 - mae: 0.9796 - val_loss: 1.3948'
        ' - val_mae: 0.9632\n'
    ),
    'evaluate_v1': (
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - loss: 0.3240 - mae: 0.4696<BS67>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - loss: 1.0484 - mae: 0.7996<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - loss: 1.5003 - mae: 0.9992<BS67>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 1.5003 - mae: 0.9992\n'
    ),
    'evaluate_v2': (
        '3/3 - 0s - 100ms/step - loss: 1.5003 - mae: 0.9992\n'
    ),
    'predict_v1': (
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step<BS38>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step<BS38>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step<BS38>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step\n'
    ),
    'predict_v2': (
        '3/3 - 0s - 100ms/step\n'
    ),
    'fit_generator': (
        '\r      1/Unknown <b>0s</> 300ms/step - loss: 0.3240 - mae: 0.4696<BS58>'
        '\r      2/Unknown <b>1s</> 300ms/step - loss: 0.3221 - mae: 0.4680<BS58>'
        '\r      3/Unknown <b>1s</> 300ms/step - loss: 0.3202 - mae: 0.4663<BS58>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 0.3202 - mae: 0.4663\n'
    ),
    'fit_tiny_loss': (
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - loss: 0.0000e+00'
        ' - mae: 0.0000e+00<BS75>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - loss: 0.0000e+00'
        ' - mae: 0.0000e+00<BS75>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - loss: 0.0000e+00'
        ' - mae: 0.0000e+00<BS75>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - loss: 0.0000e+00 - mae: 0.0000e+00\n'
    ),
    'evaluate_sorted': (
        '\r<b>1/3</> <g>━6</><w>━14</> <b>0s</> 300ms/step - accuracy: 0.5000'
        ' - loss: 0.3240 - mse: 0.3240<BS86>'
        '\r<b>2/3</> <g>━13</><w>━7</> <b>0s</> 300ms/step - accuracy: 0.2500'
        ' - loss: 1.0484 - mse: 1.0484<BS86>'
        '\r<b>3/3</> <g>━20</><w></> <b>0s</> 300ms/step - accuracy: 0.4000 - loss: 1.5003'
        ' - mse: 1.5003<BS86>'
        '\r<b>3/3</> <g>━20</><w></> <b>1s</> 450ms/step - accuracy: 0.4000 - loss: 1.5003'
        ' - mse: 1.5003\n'
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_printed_text_is_keras(case, capsys, monkeypatch):
    model = _model(("mse", "accuracy") if case == "evaluate_sorted" else ("mae",))
    monkeypatch.setattr(progbar_module, "time", Clock(0.3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generator's warnings go to stderr, as Keras's
        CASES[case](model)
    assert _readable(capsys.readouterr().out) == "".join(KERAS_TEXT[case])
