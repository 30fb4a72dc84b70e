"""StringLookup, IntegerLookup, Hashing, HashedCrossing, TextVectorization and tf.lookup
against Keras 3 on TensorFlow 2.21: each case of tests/keras/fixtures/text_layers.json (written
by tools/record_keras_text.py) runs its snippet here and must give Keras's values, dtypes,
vocabularies and configs; the text-classification program must print what Keras printed."""

import contextlib
import io
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tools.record_keras_text import CORPUS, encode

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "text_layers.json")
RECORD = json.load(open(FIXTURE))
CASES = RECORD["cases"]


def _close(got, want, path="out"):
    """Structural equality; float tensors to float32 rounding."""
    if isinstance(want, dict) and "dtype" in want:
        assert isinstance(got, dict) and got.get("dtype") == want["dtype"], \
            f"{path}: {got} vs {want}"
        assert got["shape"] == want["shape"], f"{path}: shape {got['shape']} vs {want['shape']}"
        if want["dtype"].startswith("float"):
            np.testing.assert_allclose(np.asarray(got["value"], float),
                                       np.asarray(want["value"], float), rtol=2e-6,
                                       atol=1e-7, err_msg=path)
        else:
            assert got["value"] == want["value"], f"{path}: {got['value']} vs {want['value']}"
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got} vs {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), \
            f"{path}: keys {sorted(got)} vs {sorted(want)}"
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    else:
        assert got == want, f"{path}: {got!r} vs {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_keras(name, tmp_path):
    env = {"tf": tf, "keras": keras, "L": keras.layers, "np": np, "os": os,
           "TMP": str(tmp_path), "CORPUS": CORPUS}
    exec(CASES[name]["source"], env)
    _close(encode(env["out"], tf), CASES[name]["out"])


def test_text_classification_program_prints_what_keras_printed():
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(RECORD["tutorial"]["source"], {"tf": tf, "keras": keras, "L": keras.layers,
                                            "np": np})
    lines = buffer.getvalue().splitlines()
    want = RECORD["tutorial"]["lines"]
    assert lines[:3] == want[:3]   # vocabulary, vectorized texts, the first batch
    for got, ref in zip(lines[3:], want[3:]):  # losses and predictions, rounded to 5 digits
        np.testing.assert_allclose(np.ravel(eval(got)), np.ravel(eval(ref)), atol=2e-5)


def test_vocabulary_order_is_by_count_then_token_descending():
    # Keras sorts np.lexsort((tokens, counts))[::-1]: ties by the larger token first (TF
    # 2.21 / Keras 3.15 give ['[UNK]', 'b', 'c', 'a'] here), not by first appearance.
    layer = keras.layers.StringLookup()
    layer.adapt(np.array(["a", "c", "b", "b", "c", "a", "b"]))
    assert layer.get_vocabulary() == ["[UNK]", "b", "c", "a"]


def test_text_vectorization_traced_equals_eager():
    t = keras.layers.TextVectorization(output_mode="count")
    t.adapt(CORPUS)
    x = tf.constant(["the cat and the dog", "rain"])
    np.testing.assert_array_equal(tf.function(t)(x).numpy(), t(x).numpy())


def test_ragged_text_vectorization_refused_inside_tf_function():
    t = keras.layers.TextVectorization(ragged=True)
    t.adapt(CORPUS)
    with pytest.raises(NotImplementedError, match="ragged=True"):
        tf.function(t)(tf.constant(["the cat"]))


def test_num_oov_indices_zero_raises_on_oov():
    layer = keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)
    assert layer(tf.constant(["a"])).numpy().tolist() == [0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        layer(tf.constant(["b"]))


def test_constructor_errors_as_keras():
    with pytest.raises(ValueError, match="`output_mode` must be `'int'` when `invert`"):
        keras.layers.StringLookup(invert=True, output_mode="multi_hot")
    with pytest.raises(ValueError, match="must be greater than 1"):
        keras.layers.StringLookup(max_tokens=1)
    with pytest.raises(ValueError, match="repeated term"):
        keras.layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="num_bins"):
        keras.layers.Hashing(num_bins=0)
