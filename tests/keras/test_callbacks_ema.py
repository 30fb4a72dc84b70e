"""`keras.callbacks.SwapEMAWeights`, and how `CallbackList` hands the logs to callbacks.
The expected numbers are Keras 3.15's (TensorFlow backend), printed by real Keras running the
same code."""

import numpy as np
import pytest

from tapeflow import keras


def _data():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(16, 3)).astype("float32"),
            rng.normal(size=(16, 2)).astype("float32"))


def _compiled(use_ema=True):
    init = keras.initializers.Constant(np.arange(6).reshape(3, 2) / 10.)
    model = keras.Sequential([keras.Input((3,)),
                              keras.layers.Dense(2, kernel_initializer=init,
                                                 bias_initializer="zeros")])
    opt = keras.optimizers.SGD(learning_rate=0.1, momentum=0.5, use_ema=use_ema,
                               ema_momentum=0.9)
    model.compile(optimizer=opt, loss="mse")
    return model, opt


def _bias(model):
    return model.get_weights()[1].tolist()


def test_swap_on_epoch_puts_the_averages_in_the_model_between_epochs():
    x, y = _data()
    model, _ = _compiled()
    seen = []
    record = keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(("begin", epoch, _bias(model))),
        on_epoch_end=lambda epoch, logs: seen.append(("end", epoch, _bias(model))))
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False,
                        validation_data=(x[:8], y[:8]),
                        callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=True), record])
    # Keras 3.15's: val_loss is computed with the averages.
    assert history.history == {"loss": [1.1241425275802612, 0.935657262802124],
                               "val_loss": [1.0493309497833252, 0.9793487191200256]}
    assert seen == [("begin", 0, [0.0, 0.0]),
                    ("end", 0, [0.04983144998550415, 0.019083306193351746]),
                    ("begin", 1, [0.17480593919754028, -0.02611815556883812]),
                    ("end", 1, [0.11528080701828003, -0.00070900097489357])]


def test_evaluate_and_predict_swap_as_keras():
    x, y = _data()
    model, opt = _compiled()
    for i in range(4):
        model.train_on_batch(x[4 * i:4 * i + 4], y[4 * i:4 * i + 4])
    weights = [0.17480593919754028, -0.02611815556883812]
    assert _bias(model) == weights
    assert opt._model_variables_moving_average[1].numpy().tolist() == \
        [0.04983144253492355, 0.019083306193351746]
    swap = keras.callbacks.SwapEMAWeights()
    inside = []
    peek = keras.callbacks.LambdaCallback(on_test_begin=lambda logs: inside.append(_bias(model)))
    model.evaluate(x, y, verbose=0, callbacks=[swap, peek])
    # Swapped in by addition and subtraction (TensorFlow backend): the average rounds.
    assert inside == [[0.04983144998550415, 0.019083306193351746]]
    assert _bias(model) == weights
    out = model.predict(x[:1], verbose=0, callbacks=[swap])
    assert out.ravel().tolist() == [0.3029973804950714, 0.2893472909927368]
    # Keras 3.15's on_predict_end swaps back only if the averages are *not* in the model:
    # after predict they stay there.
    assert _bias(model) == [0.04983144998550415, 0.019083306193351746]
    assert opt._model_variables_moving_average[1].numpy().tolist() == weights


def test_swap_without_ema_raises_keras_error():
    x, y = _data()
    model, _ = _compiled(use_ema=False)
    model.train_on_batch(x[:4], y[:4])
    with pytest.raises(ValueError, match="SwapEMAWeights must be used when `use_ema=True`"):
        model.evaluate(x, y, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])


def test_callbacks_get_a_logs_dict_positionally_as_keras_passes_it():
    x, y = _data()
    model, _ = _compiled(use_ema=False)
    calls = []
    record = keras.callbacks.LambdaCallback(
        on_train_begin=lambda logs: calls.append(("train_begin", logs)),
        on_epoch_begin=lambda epoch, logs: calls.append(("epoch_begin", logs)),
        on_train_batch_begin=lambda batch, logs: calls.append(("batch_begin", logs)))
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[record])
    assert calls == [("train_begin", {}), ("epoch_begin", {}), ("batch_begin", {})]


def test_batch_logs_reach_callbacks_sorted_and_flattened():
    got = []

    class Record(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            got.append(list(logs.items()))

    callbacks = keras.callbacks.CallbackList([Record()])
    logs = {"zeta": np.float32(2.5), "alpha": {"inner": 1}, "loss": 0.5}
    callbacks.on_train_batch_end(0, logs)
    assert got == [[("inner", 1.0), ("loss", 0.5), ("zeta", 2.5)]]
    assert type(got[0][2][1]) is float and "zeta" in logs
