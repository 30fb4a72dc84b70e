"""Data-parallel training of a digits classifier across processes: MultiWorkerMirroredStrategy
over MPI, with Keras `fit`.

Needs the optional extras: `pip install scikit-learn` and, for more than one process,
`pip install 'tapeflow[mpi]'` (mpi4py and Open MPI's `mpiexec`). Run alone, or as 2 processes:

    python examples/distributed_mnist_like.py
    mpiexec -n 2 python examples/distributed_mnist_like.py      # as root: --allow-run-as-root

Each process is one worker (an MPI rank). The model is built in `strategy.scope()`, so its
variables are mirrored: rank 0's initial values are broadcast to every rank. `fit` splits each
global batch of 48 across the ranks (24 each with 2), sums the gradients with an MPI allreduce
and applies the same update everywhere; only rank 0 prints. Training is in float64 and every
global batch is whole (1440 training digits = 30 batches of 48), so the 1- and 2-process runs
differ only in the order of the gradients' summation: their final weights agree to ~1e-12,
and the checksum printed at the end is the same. Reaches ~98% test accuracy in a few seconds.
"""

import argparse
import sys
import time

import numpy as np

import tapeflow as tf
from tapeflow import keras

from _plotting import save_plot  # examples/_plotting.py

try:
    from sklearn.datasets import load_digits
except ImportError:
    sys.exit("This example needs scikit-learn: pip install scikit-learn")

GLOBAL_BATCH = 48  # divides the 1440 training digits, and splits evenly over 1, 2, 3, 4 ranks
TRAIN = 1440


def digits() -> tuple:
    """(x_train, y_train, x_test, y_test): 1440 and 357 shuffled 8x8 digits in [0, 1]."""
    data = load_digits()
    order = np.random.default_rng(0).permutation(len(data.data))
    x, y = data.data[order] / 16.0, data.target[order].astype("int64")
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


def checksum(weights: list) -> float:
    """One number that changes with any weight: sum of w * (1 + its position / size)."""
    flat = np.concatenate([np.ravel(w) for w in weights])
    return float(np.sum(flat * (1.0 + np.arange(flat.size) / flat.size)))


def is_chief(resolver) -> bool:
    """Whether this worker reports (TensorFlow's multi-worker tutorial's test): one process
    alone has no task type; under mpiexec, rank r is worker r and worker 0 is the chief."""
    task_type, task_id = resolver.task_type, resolver.task_id
    return task_type is None or task_type == "chief" or (task_type == "worker" and task_id == 0)


def train(epochs: int) -> dict:
    """Trains under MultiWorkerMirroredStrategy (one worker per MPI rank); every rank returns
    the same history, test results and final weights."""
    keras.backend.set_floatx("float64")
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    x_train, y_train, x_test, y_test = digits()
    # The same seed on every rank: fit shuffles the global batches identically everywhere
    # (the initial weights would agree anyway, being rank 0's).
    keras.utils.set_random_seed(0)
    with strategy.scope():
        model = keras.Sequential([
            keras.Input((64,)),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10, activation="softmax"),
        ])
        model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.005),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    history = model.fit(x_train, y_train, batch_size=GLOBAL_BATCH, epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    # The test set as one global batch, split 179/178: with batches of 48 the last (21 digits)
    # would all go to rank 0, as TensorFlow's rebatching fills the replicas in order, and
    # rank 1's empty share makes the loss NaN.
    loss, accuracy = model.evaluate(x_test, y_test, batch_size=len(x_test), verbose=0)
    return {"strategy": strategy, "history": history.history, "seconds": seconds,
            "test_loss": loss, "test_accuracy": accuracy, "test_size": len(x_test),
            "weights": [w.numpy() for w in model.weights]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args(argv)
    result = train(args.epochs)
    strategy = result["strategy"]
    if not is_chief(strategy.cluster_resolver):
        return  # the other workers trained the same model; the chief (rank 0) reports it
    ranks = strategy.num_replicas_in_sync
    history = result["history"]

    def draw(plt):
        epochs = range(1, len(history["loss"]) + 1)
        for panel, name in enumerate(("loss", "accuracy"), start=1):
            plt.subplot(1, 2, panel)
            plt.plot(epochs, history[name])
            plt.xlabel("epoch")
            plt.title(f"training {name} ({ranks} ranks)")

    save_plot("distributed_mnist_like.png", draw, figsize=(10, 4))
    print(f"ranks: {ranks}; global batch {GLOBAL_BATCH} ({GLOBAL_BATCH / ranks:g} per rank); "
          f"trained in {result['seconds']:.1f}s")
    print(f"test accuracy: {result['test_accuracy']:.4f} (loss {result['test_loss']:.4f}) "
          f"on {result['test_size']} digits")
    print(f"checksum of the final weights: {checksum(result['weights']):.10f}")


if __name__ == "__main__":
    main()
