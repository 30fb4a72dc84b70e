"""Records Keras 3.15's `.keras` assets (adapted lookup vocabularies) into
tests/keras/fixtures/keras_assets/: one small `<case>.keras` file per entry of `CASES`, made by
real Keras, and `record.json` with each case's inputs, its outputs before saving and after
loading, the archive's member names and its asset files' text.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras_assets.py

Each case is a layer expression (`keras` in scope), the model's input (shape, dtype), the data
it adapts on and the data it is called on; `build` makes the same model with Keras or with
tapeflow (`tf.keras`), so tests/keras/test_keras_assets.py and
tools/check_keras_reads_tapeflow_assets.py use these very definitions. Importing this module
imports no Keras.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "keras", "fixtures", "keras_assets")

WORDS = ["b", "c", "c", "a", "d", "d", "d", "é", "日本", "b", "c"]
SENTENCES = ["The cat sat", "the dog sat down", "a cat, a dog!", "Dogs and cats"]
# name: (layer expression, input shape, input dtype, adapt data, call data, model kind)
CASES: dict = {
    "string_lookup": ("keras.layers.StringLookup()", (1,), "string",
                      WORDS, [["c"], ["a"], ["z"], ["日本"], ["é"]], "functional"),
    "string_lookup_special": (
        "keras.layers.StringLookup(mask_token='[MASK]', num_oov_indices=2, "
        "oov_token='[OOV]', max_tokens=6)", (2,), "string",
        WORDS, [["c", "[MASK]"], ["zz", "a"], ["q", "d"]], "functional"),
    "string_lookup_tf_idf": (
        "keras.layers.StringLookup(output_mode='tf_idf')", (3,), "string",
        [["a", "b", "b"], ["c", "a", "d"], ["b", "b", "e"]],
        [["a", "b", "z"], ["e", "e", "c"]], "functional"),
    "string_lookup_count": (
        "keras.layers.StringLookup(output_mode='count', num_oov_indices=2)", (3,), "string",
        [["a", "b", "b"], ["c", "a", "d"]], [["a", "b", "z"], ["d", "d", "y"]], "sequential"),
    "string_lookup_invert": (
        "keras.layers.StringLookup(invert=True)", (2,), "int64",
        WORDS, [[1, 2], [0, 3], [4, 9]], "functional"),
    "integer_lookup": (
        "keras.layers.IntegerLookup(mask_token=0, num_oov_indices=2, oov_token=-7)", (2,),
        "int64", [5, 3, 3, 9, 9, 9, 12, 0], [[9, 0], [3, 42], [12, 7]], "functional"),
    "integer_lookup_one_hot": (
        "keras.layers.IntegerLookup(output_mode='one_hot')", (1,), "int64",
        [5, 3, 3, 9], [[9], [4], [5]], "sequential"),
    "text_vectorization": (
        "keras.layers.TextVectorization(max_tokens=9, output_sequence_length=5)", (),
        "string", SENTENCES, ["the cat and the dog", "unknown words sat"], "functional"),
    "text_vectorization_tf_idf": (
        "keras.layers.TextVectorization(output_mode='tf_idf', ngrams=2)", (), "string",
        SENTENCES, ["the cat sat down", "a dog"], "functional"),
    "text_vectorization_multi_hot": (
        "keras.layers.TextVectorization(output_mode='multi_hot', standardize='lower')", (),
        "string", SENTENCES, ["the cat sat down", "dogs"], "sequential"),
    "given_vocabulary": (
        "keras.layers.StringLookup(vocabulary=['x', 'y', 'z'])", (1,), "string",
        None, [["y"], ["w"]], "functional"),
}


def build(keras: Any, name: str) -> Any:
    """The case's model, its lookup adapted (Keras's or tapeflow's `keras`)."""
    text, shape, dtype, adapt, _, kind = CASES[name]
    layer = eval(text, {"keras": keras})
    if adapt is not None:
        strings = isinstance(np.asarray(adapt).reshape(-1)[0], str)
        layer.adapt(np.array(adapt, dtype=object if strings else "int64"))
    inp = keras.Input(shape, dtype=dtype)
    if kind == "sequential":
        return keras.Sequential([inp, layer])
    return keras.Model(inp, layer(inp))


def call_data(name: str) -> np.ndarray:
    """The data the case's model is called on."""
    dtype = CASES[name][2]
    return np.array(CASES[name][4], dtype=object if dtype == "string" else dtype)


def as_json(x: Any) -> Any:
    """An output as JSON: numbers as lists, strings decoded."""
    array = np.asarray(x)
    if array.dtype.kind in "OSU":
        return [[v.decode() if isinstance(v, bytes) else str(v) for v in row]
                for row in array.reshape(array.shape[0], -1)]
    return array.tolist()


def archive_record(path: str) -> dict:
    """The archive's member names and the text of its asset files."""
    with zipfile.ZipFile(path) as z:
        return {"members": z.namelist(),
                "assets": {n: z.read(n).decode("utf-8") for n in z.namelist()
                           if n.startswith("assets/")}}


def main() -> None:
    import keras
    os.makedirs(OUT, exist_ok=True)
    record: dict = {"keras_version": keras.__version__, "cases": {}}
    for name in CASES:
        keras.utils.clear_session()
        model = build(keras, name)
        x = call_data(name)
        before = model(x)
        path = os.path.join(OUT, f"{name}.keras")
        model.save(path)
        after = keras.models.load_model(path)(x)
        record["cases"][name] = {"output": as_json(before), "loaded": as_json(after),
                                 "dtype": str(np.asarray(before).dtype),
                                 "vocabulary": [str(v) for v in model.layers[-1]
                                                .get_vocabulary()],
                                 **archive_record(path)}
    with open(os.path.join(OUT, "record.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
    print(f"recorded {len(CASES)} cases into {OUT}")


if __name__ == "__main__":
    main()
