"""`fit` under MultiWorkerMirroredStrategy with BackupAndRestore and ModelCheckpoint: run as
`strategy_backup.py <backup_dir> <checkpoint_dir> [fail_epoch]`; with fail_epoch, rank 1
raises when that epoch begins (the job then fails). Saves the final weights per rank.
Run by tests/distribute/test_strategy_mpi.py; `run()` is the one-process reference.
"""

import os
import sys

import numpy as np

import tapeflow as tf
from tapeflow import keras

EPOCHS = 4


class Failure(RuntimeError):
    """The simulated crash of a worker."""


def run(backup_dir: str, checkpoint_dir: str, fail_epoch: int = -1) -> list:
    """The final weights of an (optionally interrupted) run on this rank, then the epochs
    this run trained."""
    keras.backend.set_floatx("float64")
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0  # None in one process, as TF
    keras.utils.set_random_seed(rank)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(32, 4))
    y = x @ rng.normal(size=(4, 1)) + 0.1 * rng.normal(size=(32, 1))
    with strategy.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="tanh"),
                                  keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")

    def maybe_fail(epoch, logs=None):
        if epoch == fail_epoch and rank == 1:
            raise Failure(f"worker {rank} fails at epoch {epoch}")

    callbacks = [keras.callbacks.BackupAndRestore(backup_dir),
                 keras.callbacks.ModelCheckpoint(
                     os.path.join(checkpoint_dir, "model.weights.h5")),
                 keras.callbacks.LambdaCallback(on_epoch_begin=maybe_fail)]
    history = model.fit(x, y, batch_size=8, epochs=EPOCHS, shuffle=False, verbose=0,
                        callbacks=callbacks)
    return [w.numpy() for w in model.weights] + [np.array(history.epoch)]


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from _mpi import save_rank
    fail = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    *weights, epochs = run(sys.argv[1], sys.argv[2], fail)
    save_rank(tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver.task_id or 0,
              epochs=epochs, **{f"w{i}": w for i, w in enumerate(weights)})
