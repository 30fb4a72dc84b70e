"""A character-level LSTM language model, trained with Keras `fit` on the repository's own
README.md (read at run time), then sampled.

Embedding(chars, 16) - LSTM(64) - Dense(chars) predicts the character that follows each
window of SEQ characters (sparse softmax cross-entropy from logits, Adam). The loss printed
per epoch falls; the sample at the end continues a prompt one character at a time, drawing
from the model's softmax (at temperature 0.5) with a seeded NumPy generator, so every run
prints the same text. About 30 s of CPU time.

Run: `python examples/char_lstm.py` (`--epochs N`, `--chars N` to change the budget).
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from tapeflow import keras

SEQ, STRIDE = 24, 3
TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")


def load_text(n_chars: int) -> str:
    """The first `n_chars` characters of README.md, with runs of whitespace made one space
    (a smaller alphabet, and the model spends its steps on words)."""
    with open(TEXT, encoding="utf-8") as f:
        text = " ".join(f.read().split())
    return text[:n_chars]


def windows(text: str, vocab: list) -> tuple:
    """(inputs (n, SEQ) of character ids, targets (n,): the character after each window)."""
    index = {c: i for i, c in enumerate(vocab)}
    ids = np.array([index[c] for c in text], np.int32)
    starts = np.arange(0, len(ids) - SEQ, STRIDE)
    x = np.stack([ids[s:s + SEQ] for s in starts])
    return x, ids[starts + SEQ]


def build_model(n_vocab: int) -> keras.Model:
    model = keras.Sequential([keras.Input((SEQ,), dtype="int32"),
                              keras.layers.Embedding(n_vocab, 16),
                              keras.layers.LSTM(64),
                              keras.layers.Dense(n_vocab)])
    model.compile(keras.optimizers.Adam(1e-2),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def sample(model: keras.Model, vocab: list, prompt: str, length: int,
           temperature: float = 0.5, seed: int = 0) -> str:
    """`prompt` continued by `length` characters drawn from the model."""
    rng = np.random.default_rng(seed)
    index = {c: i for i, c in enumerate(vocab)}
    ids = [index[c] for c in prompt]
    for _ in range(length):
        window = np.array([ids[-SEQ:]], np.int32)
        logits = model(window).numpy()[0].astype(np.float64) / temperature
        p = np.exp(logits - logits.max())
        ids.append(int(rng.choice(len(vocab), p=p / p.sum())))
    return "".join(vocab[i] for i in ids)


def main(epochs: int = 6, n_chars: int = 4500, sample_length: int = 80) -> dict:
    keras.utils.set_random_seed(0)
    text = load_text(n_chars)
    vocab = sorted(set(text))
    x, y = windows(text, vocab)
    print(f"{len(text)} characters of README.md, {len(vocab)} distinct; {len(x)} windows "
          f"of {SEQ}")
    model = build_model(len(vocab))
    history = model.fit(x, y, batch_size=64, epochs=epochs, shuffle=True, verbose=0)
    for epoch, loss in enumerate(history.history["loss"], 1):
        print(f"epoch {epoch}: loss {loss:.4f}")
    text_out = sample(model, vocab, text[:SEQ], sample_length)
    print(f"sample: {text_out!r}")
    return {"losses": history.history["loss"], "sample": text_out}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--chars", type=int, default=4500)
    args = parser.parse_args()
    main(args.epochs, args.chars)
