"""The TensorFlow-API programs, written once and run with `lib = tapeflow` and
`lib = tensorflow` (Keras from `lib.keras`): eager, and "compiled" under `lib.function`.
Each program is a function and its tensor arguments (passed, not captured, so that a
compiler cannot fold the inputs in as constants)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from benchmarks import workloads as W


def chain(lib: Any, d: dict) -> tuple:
    x = lib.Variable(d["x"])

    def run():
        with lib.GradientTape() as tape:
            y = x
            for _ in range(W.CHAIN_ROUNDS):
                y = lib.sin(y) * 1.01 + y * y * 0.1
        return tape.gradient(y, x)
    return run, ()


def hessian(lib: Any, d: dict) -> tuple:
    """Nested tapes, the outer one's (vectorized) jacobian of the gradient."""
    def run(x):
        with lib.GradientTape() as outer:
            outer.watch(x)
            with lib.GradientTape() as inner:
                inner.watch(x)
                y = lib.reduce_sum(lib.sin(x) * lib.reduce_sum(x ** 2))
            g = inner.gradient(y, x)
        return lib.reduce_sum(outer.jacobian(g, x))
    return run, (lib.constant(d["x"]),)


def train_step(lib: Any, model: Any, loss_fn: Any, params: list, x: Any, y: Any) -> tuple:
    """A Keras training step: forward, loss, GradientTape gradient, Adam.apply_gradients."""
    model.set_weights(params)
    optimizer = lib.keras.optimizers.Adam(learning_rate=W.LR)

    def run(x, y):
        with lib.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return run, (lib.constant(x), lib.constant(y))


def dense_model(lib: Any, sizes: list) -> Any:
    layers = lib.keras.layers
    model = lib.keras.Sequential(
        [layers.Input((sizes[0][0],))]
        + [layers.Dense(out, activation="relu" if i < len(sizes) - 1 else None)
           for i, (_, out) in enumerate(sizes)])
    return model


def mlp(lib: Any, d: dict) -> tuple:
    return train_step(lib, dense_model(lib, W.MLP_SIZES), lib.keras.losses.MeanSquaredError(),
                      d["params"], d["x"], d["y"])


def big(lib: Any, d: dict) -> tuple:
    loss = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return train_step(lib, dense_model(lib, W.BIG_SIZES), loss, d["params"], d["x"],
                      d["labels"])


def cnn(lib: Any, d: dict) -> tuple:
    layers = lib.keras.layers
    c1, c2 = W.CNN_FILTERS
    model = lib.keras.Sequential([
        layers.Input((28, 28, 1)),
        layers.Conv2D(c1, 3, activation="relu"),
        layers.MaxPooling2D(2),
        layers.Conv2D(c2, 3, activation="relu"),
        layers.Flatten(),
        layers.Dense(W.CLASSES),
    ])
    loss = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return train_step(lib, model, loss, d["params"], d["x"], d["labels"])


def lstm(lib: Any, d: dict) -> tuple:
    from benchmarks.bench_lstm import lstm_model
    loss = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return train_step(lib, lstm_model(lib, d["params"]), loss, d["params"], d["x"],
                      d["labels"])


PROGRAMS = {"chain": chain, "mlp": mlp, "big": big, "hessian": hessian, "cnn": cnn,
            "lstm": lstm}


def build(lib: Any, workload: str, mode: str) -> Optional[Callable]:
    """`lib`'s step for `workload`: eager, or under `lib.function` for mode "compiled"."""
    program = PROGRAMS.get(workload)
    if program is None:
        return None
    run, args = program(lib, W.data(workload))
    run = lib.function(run) if mode == "compiled" else run
    return lambda: run(*args)
