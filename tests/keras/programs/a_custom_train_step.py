"""keras.io/guides/custom_train_step_in_tensorflow, shortened: a Model subclass with its own
train_step and test_step, loss and metric trackers, sample weights, 3 epochs."""
import numpy as np
import tensorflow as tf
import keras
from keras import layers

keras.utils.set_random_seed(17)
rng = np.random.default_rng(17)

loss_tracker = keras.metrics.Mean(name="loss")
mae_metric = keras.metrics.MeanAbsoluteError(name="mae")


class CustomModel(keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        loss_tracker.update_state(loss)
        mae_metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {"loss": loss_tracker.result(), "mae": mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        loss_tracker.update_state(loss)
        mae_metric.update_state(y, y_pred)
        return {"loss": loss_tracker.result(), "mae": mae_metric.result()}

    @property
    def metrics(self):
        return [loss_tracker, mae_metric]


inputs = keras.Input(shape=(32,))
hidden = layers.Dense(16, activation="relu")(inputs)
outputs = layers.Dense(1)(hidden)
model = CustomModel(inputs, outputs)
model.compile(optimizer="adam", loss="mse")

x = rng.random((160, 32)).astype("float32")
y = rng.random((160, 1)).astype("float32")
sw = rng.random((160, 1)).astype("float32")
model.fit(x, y, epochs=3, batch_size=32, verbose=2)
model.fit(x, y, sample_weight=sw, epochs=2, batch_size=32, verbose=2)
results = model.evaluate(x, y, verbose=0, return_dict=True)
print("evaluate:", {k: round(float(v), 6) for k, v in sorted(results.items())})
