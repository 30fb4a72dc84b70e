"""Text classification with Transformer (keras.io/examples/nlp/text_classification_with_transformer).

Shortened: IMDB-shaped synthetic token sequences (keras.datasets.imdb's layout: 1 starts a
review, 2 is out-of-vocabulary), a small vocabulary and model, two epochs.
"""

import numpy as np

import keras
from keras import layers, ops

keras.utils.set_random_seed(42)
rng = np.random.default_rng(42)


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = ops.shape(x)[-1]
        positions = ops.arange(start=0, stop=maxlen, step=1)
        positions = self.pos_emb(positions)
        x = self.token_emb(x)
        return x + positions


vocab_size = 200  # Only consider the top 200 words
maxlen = 32  # Only consider the first 32 words of each movie review


def imdb_like(n):
    """Reviews as keras.datasets.imdb returns them: lists of word indices of varying length."""
    labels = rng.integers(0, 2, size=n)
    reviews = []
    for label in labels:
        length = int(rng.integers(10, 48))
        words = rng.integers(3, vocab_size, size=length)
        # The label shows in which half of the vocabulary a few cue words fall.
        cues = rng.integers(3, 20, size=4) + (20 if label else 0)
        words[rng.integers(0, length, size=4)] = cues
        reviews.append([1] + words.tolist())
    return reviews, labels


(x_train, y_train), (x_val, y_val) = imdb_like(256), imdb_like(64)
print(len(x_train), "Training sequences")
print(len(x_val), "Validation sequences")
x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)
print("Padded shape:", x_train.shape, "first row:", x_train[0].tolist())

embed_dim = 16  # Embedding size for each token
num_heads = 2  # Number of attention heads
ff_dim = 16  # Hidden layer size in feed forward network inside transformer

inputs = layers.Input(shape=(maxlen,))
embedding_layer = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)
x = embedding_layer(inputs)
transformer_block = TransformerBlock(embed_dim, num_heads, ff_dim)
x = transformer_block(x)
x = layers.GlobalAveragePooling1D()(x)
x = layers.Dropout(0.1)(x)
x = layers.Dense(20, activation="relu")(x)
x = layers.Dropout(0.1)(x)
outputs = layers.Dense(2, activation="softmax")(x)

model = keras.Model(inputs=inputs, outputs=outputs)
print("Parameters:", model.count_params())

model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(
    x_train, y_train, batch_size=32, epochs=3, validation_data=(x_val, y_val), verbose=2
)
print("History loss:", [round(v, 6) for v in history.history["loss"]])
print("Validation accuracy:", [round(v, 6) for v in history.history["val_accuracy"]])
probabilities = model.predict(x_val[:3], verbose=0)
for row in probabilities:
    print("Prediction:", " ".join(f"{p:.6f}" for p in row))
