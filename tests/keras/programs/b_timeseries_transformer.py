"""Timeseries classification with a Transformer model
(keras.io/examples/timeseries/timeseries_classification_transformer).

Shortened: FordA-shaped synthetic series of 48 steps, one small transformer block, two
epochs; GlobalAveragePooling1D over channels_first as the example writes it.
"""

import numpy as np

import keras
from keras import layers

keras.utils.set_random_seed(11)
rng = np.random.default_rng(11)


def readucr_like(n, length=48):
    labels = rng.choice([-1, 1], size=n)
    t = np.linspace(0.0, 3.0 * np.pi, length)
    series = np.sin(np.where(labels > 0, 1.0, 2.0)[:, None] * t[None, :])
    series += 0.4 * rng.standard_normal((n, length))
    return series, labels


x_train, y_train = readucr_like(128)
x_test, y_test = readucr_like(32)

x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))

n_classes = len(np.unique(y_train))

idx = np.random.RandomState(11).permutation(len(x_train))
x_train = x_train[idx]
y_train = y_train[idx]

y_train[y_train == -1] = 0
y_test[y_test == -1] = 0


def transformer_encoder(inputs, head_size, num_heads, ff_dim, dropout=0):
    # Attention and Normalization
    x = layers.MultiHeadAttention(key_dim=head_size, num_heads=num_heads, dropout=dropout)(
        inputs, inputs
    )
    x = layers.Dropout(dropout)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    res = x + inputs

    # Feed Forward Part
    x = layers.Conv1D(filters=ff_dim, kernel_size=1, activation="relu")(res)
    x = layers.Dropout(dropout)(x)
    x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    return x + res


def build_model(
    input_shape,
    head_size,
    num_heads,
    ff_dim,
    num_transformer_blocks,
    mlp_units,
    dropout=0,
    mlp_dropout=0,
):
    inputs = keras.Input(shape=input_shape)
    x = inputs
    for _ in range(num_transformer_blocks):
        x = transformer_encoder(x, head_size, num_heads, ff_dim, dropout)

    x = layers.GlobalAveragePooling1D(data_format="channels_first")(x)
    for dim in mlp_units:
        x = layers.Dense(dim, activation="relu")(x)
        x = layers.Dropout(mlp_dropout)(x)
    outputs = layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs)


input_shape = x_train.shape[1:]

model = build_model(
    input_shape,
    head_size=16,
    num_heads=2,
    ff_dim=4,
    num_transformer_blocks=2,
    mlp_units=[16],
    mlp_dropout=0.4,
    dropout=0.25,
)

model.compile(
    loss="sparse_categorical_crossentropy",
    optimizer=keras.optimizers.Adam(learning_rate=1e-3),
    metrics=["sparse_categorical_accuracy"],
)
print("Parameters:", model.count_params())

callbacks = [keras.callbacks.EarlyStopping(patience=10, restore_best_weights=True)]

model.fit(
    x_train,
    y_train,
    validation_split=0.2,
    epochs=3,
    batch_size=16,
    callbacks=callbacks,
    verbose=2,
)

results = model.evaluate(x_test, y_test, verbose=2)
print("Evaluation:", [round(v, 6) for v in results])
