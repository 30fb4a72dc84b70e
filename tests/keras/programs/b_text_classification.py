"""Text classification from scratch (keras.io/examples/nlp/text_classification_from_scratch).

Shortened: synthetic IMDB-like reviews from a seeded generator, a small vocabulary and
sequence length, two epochs; TextVectorization adapted on the training text, then an
end-to-end model that takes raw strings.
"""

import numpy as np

import keras
from keras import layers

keras.utils.set_random_seed(1337)
rng = np.random.default_rng(1337)

POSITIVE = ["great", "wonderful", "loved", "excellent", "fun", "moving"]
NEGATIVE = ["awful", "boring", "hated", "terrible", "dull", "Waste!"]
NEUTRAL = ["The", "movie", "plot", "actors", "was", "and", "a", "film", "<br />", "it,", "this"]


def make_review(label):
    words = [str(w) for w in rng.choice(NEUTRAL, size=14)]
    cues = POSITIVE if label else NEGATIVE
    for _ in range(3):
        words.insert(int(rng.integers(len(words))), str(rng.choice(cues)))
    return " ".join(words)


def make_split(n):
    labels = rng.integers(0, 2, size=n)
    texts = np.array([make_review(label) for label in labels])
    return texts, labels.astype("float32")


raw_train_x, train_y = make_split(192)
raw_test_x, test_y = make_split(64)
print("Number of training reviews:", len(raw_train_x))
print("Example:", raw_train_x[0])

# Model constants.
max_features = 64
embedding_dim = 16
sequence_length = 24

vectorize_layer = layers.TextVectorization(
    standardize="lower_and_strip_punctuation",
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length,
)
vectorize_layer.adapt(raw_train_x)
print("Vocabulary size:", vectorize_layer.vocabulary_size())
print("Vocabulary head:", [str(w) for w in vectorize_layer.get_vocabulary()[:8]])

train_x = keras.ops.convert_to_numpy(vectorize_layer(raw_train_x))
test_x = keras.ops.convert_to_numpy(vectorize_layer(raw_test_x))
print("Vectorized example:", train_x[0].tolist())

# A integer input for vocab indices.
inputs = keras.Input(shape=(None,), dtype="int64")
x = layers.Embedding(max_features, embedding_dim)(inputs)
x = layers.Dropout(0.5)(x)
# Conv1D + global max pooling
x = layers.Conv1D(16, 5, padding="valid", activation="relu", strides=2)(x)
x = layers.Conv1D(16, 3, padding="valid", activation="relu", strides=2)(x)
x = layers.GlobalMaxPooling1D()(x)
# We add a vanilla hidden layer:
x = layers.Dense(16, activation="relu")(x)
x = layers.Dropout(0.5)(x)
# We project onto a single unit output layer, and squash it with a sigmoid:
predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)

model = keras.Model(inputs, predictions)
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
print("Trainable parameters:", sum(int(np.prod(w.shape)) for w in model.trainable_weights))

model.fit(train_x, train_y, validation_split=0.25, epochs=3, batch_size=32, verbose=2)
loss, acc = model.evaluate(test_x, test_y, batch_size=32, verbose=0)
print(f"Test loss: {loss:.6f} accuracy: {acc:.6f}")

# A string input
inputs = keras.Input(shape=(1,), dtype="string")
# Turn strings into vocab indices
indices = vectorize_layer(inputs)
# Turn vocab indices into predictions
outputs = model(indices)

# Our end to end model
end_to_end_model = keras.Model(inputs, outputs)
end_to_end_model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
# Keras's fit/evaluate take strings from a tf.data pipeline only, so call the model directly.
probabilities = keras.ops.convert_to_numpy(end_to_end_model(raw_test_x[:, None]))[:, 0]
accuracy = float(np.mean((probabilities > 0.5) == (test_y > 0.5)))
print(f"End-to-end accuracy: {accuracy:.6f}")
print("Predictions:", " ".join(f"{p:.6f}" for p in probabilities[:4]))
