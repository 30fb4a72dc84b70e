"""Timeseries classification from scratch (keras.io/examples/timeseries/timeseries_classification_from_scratch).

Shortened: FordA-shaped synthetic series (univariate, labels -1/1 read from the first
column, as the UCR files give them), 64 steps instead of 500, three epochs; the best model is
saved by ModelCheckpoint and reloaded for the test evaluation.
"""

import numpy as np

import keras

keras.utils.set_random_seed(3)
rng = np.random.default_rng(3)


def readucr_like(n, length=64):
    """Rows as the UCR file reader gives them: a label column (-1 or 1), then the series."""
    labels = rng.choice([-1, 1], size=n)
    t = np.linspace(0.0, 4.0 * np.pi, length)
    frequency = np.where(labels > 0, 1.0, 1.6)[:, None]
    series = np.sin(frequency * t[None, :] + rng.uniform(0, np.pi, size=(n, 1)))
    series += 0.3 * rng.standard_normal((n, length))
    data = np.concatenate([labels[:, None], series], axis=1)
    y = data[:, 0]
    x = data[:, 1:]
    return x, y.astype(int)


x_train, y_train = readucr_like(160)
x_test, y_test = readucr_like(48)

classes = np.unique(np.concatenate((y_train, y_test), axis=0))
print("Classes:", classes.tolist())

x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))

num_classes = len(np.unique(y_train))

idx = np.random.RandomState(3).permutation(len(x_train))
x_train = x_train[idx]
y_train = y_train[idx]

y_train[y_train == -1] = 0
y_test[y_test == -1] = 0
print("Train shape:", x_train.shape, "positives:", int(y_train.sum()))


def make_model(input_shape):
    input_layer = keras.layers.Input(input_shape)

    conv1 = keras.layers.Conv1D(filters=16, kernel_size=3, padding="same")(input_layer)
    conv1 = keras.layers.BatchNormalization()(conv1)
    conv1 = keras.layers.ReLU()(conv1)

    conv2 = keras.layers.Conv1D(filters=16, kernel_size=3, padding="same")(conv1)
    conv2 = keras.layers.BatchNormalization()(conv2)
    conv2 = keras.layers.ReLU()(conv2)

    conv3 = keras.layers.Conv1D(filters=16, kernel_size=3, padding="same")(conv2)
    conv3 = keras.layers.BatchNormalization()(conv3)
    conv3 = keras.layers.ReLU()(conv3)

    gap = keras.layers.GlobalAveragePooling1D()(conv3)

    output_layer = keras.layers.Dense(num_classes, activation="softmax")(gap)

    return keras.models.Model(inputs=input_layer, outputs=output_layer)


model = make_model(input_shape=x_train.shape[1:])
print("Parameters:", model.count_params())

epochs = 3
batch_size = 32

callbacks = [
    keras.callbacks.ModelCheckpoint("best_model.keras", save_best_only=True, monitor="val_loss"),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=0.0001),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=5, verbose=1),
]
model.compile(
    optimizer="adam",
    loss="sparse_categorical_crossentropy",
    metrics=["sparse_categorical_accuracy"],
)
history = model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    callbacks=callbacks,
    validation_split=0.2,
    verbose=2,
)
print("Learning rates:", [round(float(v), 8) for v in history.history["learning_rate"]])

model = keras.models.load_model("best_model.keras")

test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)

print("Test accuracy", round(test_acc, 6))
print("Test loss", round(test_loss, 6))
