"""Timeseries forecasting for weather prediction
(keras.io/examples/timeseries/timeseries_weather_forecasting).

Shortened: a Jena-climate-shaped synthetic table (hourly-ish readings of a few features with
daily cycles and noise), normalised by the training split's mean and std, windows made by
keras.utils.timeseries_dataset_from_array with a sampling rate, an LSTM of 8 units, two epochs.
"""

import numpy as np

import keras

keras.utils.set_random_seed(5)
rng = np.random.default_rng(5)

titles = ["Pressure", "Temperature", "Saturation vapor pressure", "Vapor pressure deficit",
          "Specific humidity"]
n_rows = 1200
t = np.arange(n_rows)
daily = np.sin(2 * np.pi * t / 144.0)
features = np.stack(
    [
        1000.0 + 5.0 * np.sin(2 * np.pi * t / 700.0) + rng.normal(0, 0.5, n_rows),
        10.0 + 6.0 * daily + rng.normal(0, 0.8, n_rows),
        12.0 + 4.0 * daily + rng.normal(0, 0.5, n_rows),
        3.0 + 2.0 * daily + rng.normal(0, 0.3, n_rows),
        6.0 + 1.5 * np.cos(2 * np.pi * t / 144.0) + rng.normal(0, 0.2, n_rows),
    ],
    axis=1,
)

split_fraction = 0.715
train_split = int(split_fraction * int(n_rows))
step = 6

past = 72
future = 12
learning_rate = 0.001
batch_size = 32
epochs = 2


def normalize(data, train_split):
    data_mean = data[:train_split].mean(axis=0)
    data_std = data[:train_split].std(axis=0)
    return (data - data_mean) / data_std


print("The selected parameters are:", ", ".join(titles))
features = normalize(features, train_split)

train_data = features[0 : train_split - 1]
val_data = features[train_split:]

start = past + future
end = start + train_split

x_train = train_data[:, :]
y_train = features[start:end][:, [1]]

sequence_length = int(past / step)

dataset_train = keras.utils.timeseries_dataset_from_array(
    x_train,
    y_train,
    sequence_length=sequence_length,
    sampling_rate=step,
    batch_size=batch_size,
)

x_end = len(val_data) - past - future

label_start = train_split + past + future

x_val = val_data[:x_end][:, :]
y_val = features[label_start:][:, [1]]

dataset_val = keras.utils.timeseries_dataset_from_array(
    x_val,
    y_val,
    sequence_length=sequence_length,
    sampling_rate=step,
    batch_size=batch_size,
)

for batch in dataset_train.take(1):
    inputs, targets = batch

print("Input shape:", tuple(inputs.numpy().shape))
print("Target shape:", tuple(targets.numpy().shape))

inputs = keras.layers.Input(shape=(inputs.shape[1], inputs.shape[2]))
lstm_out = keras.layers.LSTM(8)(inputs)
outputs = keras.layers.Dense(1)(lstm_out)

model = keras.Model(inputs=inputs, outputs=outputs)
model.compile(optimizer=keras.optimizers.Adam(learning_rate=learning_rate), loss="mse")
print("Parameters:", model.count_params())

path_checkpoint = "model_checkpoint.weights.h5"
es_callback = keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=0, patience=5)

modelckpt_callback = keras.callbacks.ModelCheckpoint(
    monitor="val_loss",
    filepath=path_checkpoint,
    verbose=1,
    save_weights_only=True,
    save_best_only=True,
)

history = model.fit(
    dataset_train,
    epochs=epochs,
    validation_data=dataset_val,
    callbacks=[es_callback, modelckpt_callback],
    verbose=2,
)
print("Validation loss:", [round(v, 6) for v in history.history["val_loss"]])

for x, y in dataset_val.take(3):
    prediction = model.predict(x, verbose=0)[0]
    print("True:", round(float(y[0].numpy()[0]), 6), "Predicted:", round(float(prediction[0]), 6))
