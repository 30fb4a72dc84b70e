"""TensorBoard, CSVLogger, ReduceLROnPlateau and BackupAndRestore as Keras 3.15: the event
files' directories, tags, steps and plugins (read with TensorBoard's own reader), the CSV
columns, the printed messages, and resuming an interrupted fit."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras


def _model_and_data():
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(12, 2)
    y = (x[:, :1] * 2 - x[:, 1:]).astype(np.float32)
    keras.backend.clear_session()   # layer names (the histogram tags) start afresh
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    return model, x, y


def _events(directory):
    from tensorboard.backend.event_processing import event_file_loader
    (name,) = os.listdir(directory)
    return [(event.step, value.tag, value.metadata.plugin_data.plugin_name)
            for event in event_file_loader.LegacyEventFileLoader(
                os.path.join(directory, name)).Load() for value in event.summary.value]


def test_tensorboard_csvlogger_and_reduce_lr_write_what_keras_writes(tmp_path, capsys):
    pytest.importorskip("tensorboard", reason="needs the tensorboard extra; CI installs it")
    model, x, y = _model_and_data()
    cbs = [keras.callbacks.TensorBoard(str(tmp_path / "tb"), histogram_freq=1, update_freq=2,
                                       write_graph=False),
           keras.callbacks.CSVLogger(str(tmp_path / "log.csv")),
           keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, factor=0.5, verbose=1,
                                             min_delta=10)]
    model.fit(x, y, batch_size=4, epochs=2, validation_data=(x, y), callbacks=cbs, verbose=0)
    # Keras 3.15 on TF 2.21 wrote exactly these (step, tag, plugin) events for this fit: with
    # update_freq=2 its record_if also drops epoch 0's epoch summaries (last batch 3 is odd).
    assert _events(tmp_path / "tb" / "train") == [
        (2, "batch_loss", "scalars"), (2, "batch_mae", "scalars"), (4, "batch_loss", "scalars"),
        (4, "batch_mae", "scalars"), (6, "batch_loss", "scalars"), (6, "batch_mae", "scalars"),
        (1, "epoch_loss", "scalars"), (1, "epoch_mae", "scalars"),
        (1, "epoch_learning_rate", "scalars"),
        (1, "sequential/dense/kernel/histogram", "histograms"),
        (1, "sequential/dense/bias/histogram", "histograms"),
        (1, "sequential/dense_1/kernel/histogram", "histograms"),
        (1, "sequential/dense_1/bias/histogram", "histograms")]
    assert _events(tmp_path / "tb" / "validation") == [
        (6, "evaluation_loss_vs_iterations", "scalars"),
        (6, "evaluation_mae_vs_iterations", "scalars"),
        (1, "epoch_loss", "scalars"), (1, "epoch_mae", "scalars")]
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0] == "epoch,loss,mae,val_loss,val_mae" and len(lines) == 3
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "1"]
    # Keras's message: epoch 1 sets the best, epoch 2 (no improvement of 10) halves the rate
    assert "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.05000000074505806.\n" \
        in capsys.readouterr().out
    assert float(np.asarray(model.optimizer.learning_rate)) == pytest.approx(0.05)


def test_tensorboard_epoch_scalars_and_values(tmp_path):
    pytest.importorskip("tensorboard", reason="needs the tensorboard extra; CI installs it")
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.util import tensor_util
    model, x, y = _model_and_data()
    history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, validation_data=(x, y),
                        callbacks=[keras.callbacks.TensorBoard(str(tmp_path))])
    acc = event_accumulator.EventAccumulator(str(tmp_path / "validation"))
    acc.Reload()
    logged = [float(tensor_util.make_ndarray(t.tensor_proto)) for t in acc.Tensors("epoch_loss")]
    np.testing.assert_allclose(logged, history.history["val_loss"], rtol=1e-6)
    acc = event_accumulator.EventAccumulator(str(tmp_path / "train"))
    acc.Reload()
    assert [t.step for t in acc.Tensors("epoch_learning_rate")] == [0, 1, 2]


def test_csvlogger_append_keeps_one_header(tmp_path):
    model, x, y = _model_and_data()
    path = str(tmp_path / "log.csv")
    for _ in range(2):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.CSVLogger(
            path, append=True, separator=";")])
    lines = open(path).read().splitlines()
    # no validation data: Keras adds the val_ columns, filled with NA
    assert lines[0] == "epoch;loss;mae;val_loss;val_mae"
    assert len(lines) == 3 and lines[1].endswith(";NA;NA") and lines[2].startswith("0;")


def test_reduce_lr_on_plateau_rejects_factor_one():
    with pytest.raises(ValueError, match="does not support a factor >= 1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=1.0)


class _Interrupt(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if epoch == 1:
            raise RuntimeError("interrupted")


def _weights(model):
    return [np.asarray(w) for w in model.get_weights()]


def test_backup_and_restore_restores_model_optimizer_and_epoch(tmp_path):
    backup = str(tmp_path / "backup")
    model, x, y = _model_and_data()
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(x, y, batch_size=4, epochs=4, verbose=0, shuffle=False,
                  callbacks=[keras.callbacks.BackupAndRestore(backup), _Interrupt()])
    with open(os.path.join(backup, "training_metadata.json")) as f:
        assert json.load(f) == {"epoch": 2, "batch": 0}   # Keras's metadata
    saved, iterations = _weights(model), int(model.optimizer.iterations.numpy())
    fresh, _, _ = _model_and_data()
    fresh(x[:1])
    fresh.optimizer.build(fresh.trainable_variables)
    callback = keras.callbacks.BackupAndRestore(backup)
    callback.set_model(fresh)
    callback.on_train_begin()
    assert fresh._initial_epoch == 2
    assert int(fresh.optimizer.iterations.numpy()) == iterations == 6
    for a, b in zip(_weights(fresh), saved):
        np.testing.assert_array_equal(a, b)


def test_backup_and_restore_resumes_fit_at_the_next_epoch(tmp_path):
    backup = str(tmp_path / "backup")
    model, x, y = _model_and_data()
    with pytest.raises(RuntimeError):
        model.fit(x, y, batch_size=4, epochs=4, verbose=0, shuffle=False,
                  callbacks=[keras.callbacks.BackupAndRestore(backup), _Interrupt()])
    history = model.fit(x, y, batch_size=4, epochs=4, verbose=0, shuffle=False,
                        callbacks=[keras.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3]
    assert not os.path.exists(backup)   # deleted when fit ends
