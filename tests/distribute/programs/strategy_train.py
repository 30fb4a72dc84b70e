"""Trains a small float64 MLP under MultiWorkerMirroredStrategy: a custom loop
(strategy.run + compute_average_loss) and `fit`, each with SGD and Adam; saves every final
weight (and fit's history) per rank. Run by tests/distribute/test_strategy_mpi.py under
`mpiexec -n N` and, for the reference, in one process (`run()`), on the same global batches.

Each rank seeds its initializers with its own rank: the weights agree only because the
strategy broadcasts rank 0's values when the variables are created.
"""

import os
import sys

import numpy as np

import tapeflow as tf
from tapeflow import keras

GLOBAL_BATCH = 8
STEPS = 3


def data() -> tuple:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 5))
    y = np.stack([np.sin(x[:, 0]) + x[:, 1] * x[:, 2], x[:, 3] - x[:, 4] ** 2], axis=1)
    return x, y


def make_model(strategy, rank: int):
    keras.utils.set_random_seed(rank)
    with strategy.scope():
        return keras.Sequential([keras.Input((5,)), keras.layers.Dense(7, activation="tanh"),
                                 keras.layers.Dense(2)])


def make_optimizer(name: str):
    return keras.optimizers.SGD(0.1) if name == "sgd" else keras.optimizers.Adam(0.01)


def custom_loop(strategy, rank: int, name: str) -> list:
    model = make_model(strategy, rank)
    with strategy.scope():
        optimizer = make_optimizer(name)
    x, y = data()
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

    @tf.function
    def train_step(xb, yb):
        def step(xb, yb):
            with tf.GradientTape() as tape:
                per_example = tf.reduce_sum((model(xb, training=True) - yb) ** 2, axis=-1)
                loss = tf.nn.compute_average_loss(per_example)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step, args=(xb, yb)),
                               axis=None)

    losses = [float(train_step(xb, yb)) for xb, yb in dataset]
    return [w.numpy() for w in model.weights] + [np.array(losses)]


def fit(strategy, rank: int, name: str) -> tuple:
    model = make_model(strategy, rank)
    with strategy.scope():
        model.compile(optimizer=make_optimizer(name), loss="mse", metrics=["mae"])
    x, y = data()
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=False, verbose=2)
    logs = np.array([history.history["loss"], history.history["mae"]])
    evaluated = np.array(model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0))
    predicted = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
    return [w.numpy() for w in model.weights] + [logs, evaluated, predicted]


def collectives(strategy, rank: int) -> dict:
    """Cross-worker reductions of rank-dependent values (the test knows their answers)."""
    context_mean = strategy.run(
        lambda: tf.distribute.get_replica_context().all_reduce("MEAN", tf.constant(float(rank))))
    return {
        "coll_sum": strategy.reduce("SUM", tf.constant([rank + 1.0]), axis=None).numpy(),
        "coll_mean_axis": strategy.reduce("MEAN", tf.fill([rank + 1], float(rank)),
                                          axis=0).numpy(),
        "coll_gather": strategy.gather(tf.fill([rank + 1, 2], float(rank)), axis=0).numpy(),
        "coll_context_mean": context_mean.numpy(),
        "coll_replica_id": strategy.run(
            lambda: tf.distribute.get_replica_context().replica_id_in_sync_group).numpy(),
    }


def run(configs: tuple = ("loop_sgd", "fit_sgd", "loop_adam", "fit_adam")) -> dict:
    """The results on this rank of each configuration ('loop_sgd', 'fit_adam', ...), by
    name."""
    keras.backend.set_floatx("float64")
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0  # None in one process, as TF
    results = {}
    for config in configs:
        kind, name = config.split("_")
        for i, value in enumerate((custom_loop if kind == "loop" else fit)(strategy, rank,
                                                                            name)):
            results[f"{config}_{i}"] = value
    results["replicas"] = np.array(strategy.num_replicas_in_sync)
    results.update(collectives(strategy, rank))
    return results


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from _mpi import save_rank
    out = run(tuple(sys.argv[1:]) or ("loop_sgd", "fit_sgd", "loop_adam", "fit_adam"))
    save_rank(tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver.task_id or 0, **out)
