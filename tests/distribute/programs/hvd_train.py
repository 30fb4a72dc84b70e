"""A Horovod-style training script: `mpiexec -n N python hvd_train.py MODE...`, or alone (N = 1).

MODE (one or more): tape_sgd, tape_adam (custom loop with DistributedGradientTape), fit_sgd,
fit_adam (DistributedOptimizer + fit + the callbacks), fit_warmup (SGD with
LearningRateWarmupCallback: records the learning rate of every batch). Every rank starts from its own random weights
(rank 0's are broadcast), reads its contiguous share of each global batch, and saves the final
weights (and per-batch learning rates) as rank{r}.npz in TAPEFLOW_TEST_OUT. float64 throughout,
so N ranks must match one process on the global batch to 1e-6.
"""

import os
import sys

import numpy as np

import tapeflow as tf
import tapeflow.horovod as hvd
import tapeflow.horovod.keras as hvd_keras

GLOBAL_BATCH, STEPS, FEATURES = 8, 6, 5
hvd.init()
r, n = hvd.rank(), hvd.size()

data = np.random.default_rng(0)
x_all = data.normal(size=(GLOBAL_BATCH * STEPS, FEATURES))
y_all = np.sin(x_all @ data.normal(size=(FEATURES, 2)))
per_rank = GLOBAL_BATCH // n


def shard(a):
    """This rank's rows of every global batch, in order."""
    return np.concatenate([a[s * GLOBAL_BATCH + r * per_rank:s * GLOBAL_BATCH + (r + 1) * per_rank]
                           for s in range(STEPS)])


x, y = shard(x_all), shard(y_all)


def run(mode):
    """Trains from fresh weights; returns this rank's results."""
    tf.keras.utils.set_random_seed(100 + r)  # different on every rank: the broadcast fixes it
    if mode.startswith("tape"):
        init = np.random.default_rng(100 + r)
        w1 = tf.Variable(init.normal(size=(FEATURES, 4)), name="w1")
        b1 = tf.Variable(np.zeros(4), name="b1")
        w2 = tf.Variable(init.normal(size=(4, 2)), name="w2")
        variables = [w1, b1, w2]
        opt = tf.keras.optimizers.SGD(0.1, momentum=0.5) if mode == "tape_sgd" \
            else tf.keras.optimizers.Adam(0.05)
        hvd.broadcast_variables(variables, root_rank=0)  # every rank starts from rank 0's
        for step in range(STEPS):
            xb = x[step * per_rank:(step + 1) * per_rank]
            yb = y[step * per_rank:(step + 1) * per_rank]
            with tf.GradientTape() as tape:
                pred = tf.matmul(tf.tanh(tf.matmul(xb, w1) + b1), w2)
                loss = tf.reduce_mean(tf.square(pred - yb))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, variables)
            opt.apply_gradients(zip(grads, variables))
            if step == 0:  # Horovod's recipe: the optimizer's slots exist after the first step
                hvd.broadcast_variables(opt.variables, root_rank=0)
        out = {v.name.split(":")[0]: v.numpy() for v in variables}
        out["dtype"] = np.array(str(grads[0].dtype))
    else:
        inputs = tf.keras.Input(shape=(FEATURES,), dtype="float64")
        hidden = tf.keras.layers.Dense(4, activation="tanh", dtype="float64")(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, dtype="float64")(hidden))
        base = tf.keras.optimizers.SGD(0.1, momentum=0.5) if mode == "fit_sgd" \
            else tf.keras.optimizers.Adam(0.05)
        model.compile(optimizer=hvd_keras.DistributedOptimizer(base), loss="mse")
        rates = []

        class RecordRate(tf.keras.callbacks.Callback):
            def on_batch_begin(self, batch, logs=None):
                rates.append(float(np.asarray(self.model.optimizer.learning_rate)))

        callbacks = [hvd_keras.callbacks.BroadcastGlobalVariablesCallback(0),
                     hvd_keras.callbacks.MetricAverageCallback()]
        if mode == "fit_warmup":
            callbacks.append(hvd_keras.callbacks.LearningRateWarmupCallback(
                initial_lr=0.1, warmup_epochs=2))
        callbacks.append(RecordRate())
        history = model.fit(x, y, batch_size=per_rank, epochs=2, shuffle=False, verbose=0,
                            callbacks=callbacks)
        out = {f"w{i}": w for i, w in enumerate(model.get_weights())}
        out["rates"] = np.array(rates)
        out["loss"] = np.array(history.history["loss"])

    return out


results = {}
for mode in sys.argv[1:]:
    results.update({f"{mode}/{k}": v for k, v in run(mode).items()})
np.savez(os.path.join(os.environ["TAPEFLOW_TEST_OUT"], f"rank{r}.npz"), **results)
