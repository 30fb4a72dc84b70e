"""Bidirectional LSTM on IMDB (keras.io/examples/nlp/bidirectional_lstm_imdb).

Shortened: keras.datasets.imdb-shaped synthetic reviews (lists of word indices, 1 starts a
review), a 100-word vocabulary, sequences of 24 tokens, small LSTMs, two epochs.
"""

import numpy as np

import keras
from keras import layers

keras.utils.set_random_seed(7)
rng = np.random.default_rng(7)

max_features = 100  # Only consider the top 100 words
maxlen = 24  # Only consider the first 24 words of each movie review


def imdb_like(n):
    labels = rng.integers(0, 2, size=n)
    reviews = []
    for label in labels:
        length = int(rng.integers(8, 40))
        words = rng.integers(3, max_features, size=length)
        # Positive reviews end with words from the top of the vocabulary.
        words[-3:] = rng.integers(80, 100, size=3) if label else rng.integers(3, 23, size=3)
        reviews.append([1] + words.tolist())
    return reviews, labels


# Input for variable-length sequences of integers
inputs = keras.Input(shape=(None,), dtype="int32")
# Embed each integer in a 16-dimensional vector
x = layers.Embedding(max_features, 16)(inputs)
# Add 2 bidirectional LSTMs
x = layers.Bidirectional(layers.LSTM(12, return_sequences=True))(x)
x = layers.Bidirectional(layers.LSTM(12))(x)
# Add a classifier
outputs = layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
print("Parameters:", model.count_params())
print("Layers:", [layer.__class__.__name__ for layer in model.layers])

(x_train, y_train), (x_val, y_val) = imdb_like(160), imdb_like(48)
print(len(x_train), "Training sequences")
print(len(x_val), "Validation sequences")
# Use pad_sequence to standardize sequence length:
# this will truncate sequences longer than 24 words and zero-pad sequences shorter than 24 words.
x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)

model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val), verbose=2)
scores = model.evaluate(x_val, y_val, verbose=0, return_dict=True)
print("Evaluation:", {name: round(value, 6) for name, value in sorted(scores.items())})
print("Predictions:", " ".join(f"{p:.6f}" for p in model.predict(x_val[:4], verbose=0)[:, 0]))
