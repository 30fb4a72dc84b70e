"""keras.io/examples/keras_recipes/endpoint_layer_pattern, shortened: a LogisticEndpoint layer
that adds the loss (add_loss) and tracks a metric, a model compiled without a loss, 3 epochs."""
import numpy as np
import keras

keras.utils.set_random_seed(19)
rng = np.random.default_rng(19)


class LogisticEndpoint(keras.layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
        self.accuracy_metric = keras.metrics.BinaryAccuracy(name="accuracy")

    def call(self, logits, targets=None, sample_weight=None):
        if targets is not None:
            loss = self.loss_fn(targets, logits, sample_weight)
            self.add_loss(loss)
            self.accuracy_metric.update_state(targets, logits, sample_weight)
        return keras.ops.softmax(logits)


inputs = keras.Input((764,), name="inputs")
logits = keras.layers.Dense(1)(inputs)
targets = keras.Input((1,), name="targets")
sample_weight = keras.Input((1,), name="sample_weight")
preds = LogisticEndpoint()(logits, targets, sample_weight)
model = keras.Model([inputs, targets, sample_weight], preds)

data = {
    "inputs": rng.random((64, 764)).astype("float32"),
    "targets": rng.integers(0, 2, (64, 1)).astype("float32"),
    "sample_weight": rng.random((64, 1)).astype("float32"),
}

model.compile(keras.optimizers.Adam(1e-3))
history = model.fit(data, epochs=3, batch_size=16, verbose=2)
print("losses:", [round(v, 6) for v in history.history["loss"]])
print("history keys:", sorted(history.history))
