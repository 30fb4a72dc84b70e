"""Records Keras 3's text and lookup layers and tf.lookup tables (TensorFlow backend) into
tests/keras/fixtures/text_layers.json.

    TF_CPP_MIN_LOG_LEVEL=3 KERAS_BACKEND=tensorflow /work/tfenv/venv/bin/python \
        tools/record_keras_text.py

Each case of CASES is a snippet run with `tf`, `keras`, `L` (keras.layers) and `np`; it sets
`out` to a tensor, a list of tensors, or plain values (a vocabulary, a config). The test runs
the same snippet on tapeflow and compares. `TUTORIAL` is the text-classification program
(TextVectorization + Embedding + GlobalAveragePooling1D + Dense); its printed lines are
recorded under "tutorial".
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import numpy as np

CORPUS = ["The cat sat on the mat.", "A dog barked; the cat ran!", "Dogs and cats: friends?",
          "the mat, the cat, the hat", "Rain, rain, go away", "Sunny days are great days"]

CASES = {
    "string_lookup_int": "l = L.StringLookup(vocabulary=['a', 'b', 'c'])\n"
                         "out = [l(tf.constant([['a', 'z'], ['c', 'b']])), l.get_vocabulary(),"
                         " l.vocabulary_size()]",
    "string_lookup_mask_oov": "l = L.StringLookup(vocabulary=['a', 'b'], mask_token='',"
                              " num_oov_indices=2)\n"
                              "out = [l(tf.constant(['a', '', 'q', 'zz', 'b'])), "
                              "l.get_vocabulary(), l.get_vocabulary(False)]",
    "string_lookup_salt": "l = L.StringLookup(vocabulary=['a', 'b'], num_oov_indices=3, "
                          "salt=5)\nout = l(tf.constant(['a', 'q', 'r', 'zz']))",
    "string_lookup_invert": "l = L.StringLookup(vocabulary=['a', 'b'], invert=True)\n"
                            "out = l(tf.constant([0, 1, 2, 5]))",
    "string_lookup_multi_hot": "l = L.StringLookup(vocabulary=['a', 'b', 'c'], "
                               "output_mode='multi_hot')\n"
                               "out = l(tf.constant([['a', 'z'], ['c', 'c']]))",
    "string_lookup_one_hot": "l = L.StringLookup(vocabulary=['a', 'b', 'c'], "
                             "output_mode='one_hot')\nout = l(tf.constant(['a', 'z']))",
    "string_lookup_count_mask": "l = L.StringLookup(vocabulary=['a', 'b', 'c'], "
                                "output_mode='count', mask_token='')\n"
                                "out = l(tf.constant([['a', '', 'a']]))",
    "string_lookup_tf_idf": "l = L.StringLookup(vocabulary=['a', 'b'], output_mode='tf_idf', "
                            "idf_weights=[0.5, 2.0])\nout = l(tf.constant([['a', 'b', 'b', "
                            "'q']]))",
    "string_lookup_pad_max": "l = L.StringLookup(max_tokens=6, pad_to_max_tokens=True, "
                             "output_mode='multi_hot')\nl.adapt(['a', 'b', 'a', 'c'])\n"
                             "out = [l(tf.constant([['a', 'c']])), l.get_vocabulary()]",
    "string_lookup_adapt": "l = L.StringLookup()\n"
                           "l.adapt(np.array([['b', 'a', 'c'], ['a', 'd', 'b'], ['e', 'c', "
                           "'a']]))\nout = [l.get_vocabulary(), l(tf.constant(['a', 'e', "
                           "'x']))]",
    "string_lookup_adapt_max": "l = L.StringLookup(max_tokens=4)\n"
                               "l.adapt(tf.data.Dataset.from_tensor_slices(['x', 'y', 'z', "
                               "'y', 'w', 'z', 'q']).batch(3))\nout = l.get_vocabulary()",
    "string_lookup_adapt_tf_idf": "l = L.StringLookup(output_mode='tf_idf')\n"
                                  "l.adapt(np.array([['a', 'b'], ['a', 'a'], ['c', 'a']]))\n"
                                  "out = [l.get_vocabulary(), l(tf.constant([['a', 'c', 'c', "
                                  "'z']]))]",
    "string_lookup_config": "l = L.StringLookup(vocabulary=['a', 'b'], mask_token='[M]', "
                            "name='sl')\nc = l.get_config()\nc.pop('dtype', None)\nout = c",
    "string_lookup_ragged": "l = L.StringLookup(vocabulary=['a', 'b'])\n"
                            "out = l(tf.ragged.constant([['a', 'b', 'q'], ['b']])).to_list()",
    "string_lookup_file": "p = os.path.join(TMP, 'vocab.txt')\nopen(p, 'w').write('x\\ny\\nz\\n')"
                          "\nl = L.StringLookup(vocabulary=p)\n"
                          "out = [l(tf.constant(['y', 'q', 'z'])), l.get_vocabulary()]",
    "integer_lookup_adapt": "l = L.IntegerLookup()\n"
                            "l.adapt(np.array([3, 3, 5, 7, 7, 7, -1, 0]))\n"
                            "out = [[int(v) for v in l.get_vocabulary()], "
                            "l(np.array([3, 9, 0, -1]))]",
    "integer_lookup_mask_oov": "l = L.IntegerLookup(mask_token=0, num_oov_indices=2, "
                               "vocabulary=[10, 20])\n"
                               "out = [[int(v) for v in l.get_vocabulary()], "
                               "l(tf.constant([10, 0, 33, 34, -1], tf.int64))]",
    "integer_lookup_farmhash": "l = L.IntegerLookup(num_oov_indices=3, vocabulary=[10, 20], "
                               "oov_method='farmhash')\n"
                               "out = l(tf.constant([10, 7, 8, 9, 1000], tf.int64))",
    "integer_lookup_invert": "l = L.IntegerLookup(vocabulary=[10, 20], invert=True)\n"
                             "out = l(tf.constant([0, 1, 2, 3], tf.int64))",
    "integer_lookup_count": "l = L.IntegerLookup(vocabulary=[4, 5, 6], output_mode='count')\n"
                            "out = l(tf.constant([[4, 4, 6, 9], [5, 5, 5, 5]], tf.int64))",
    "integer_lookup_config": "l = L.IntegerLookup(vocabulary=[4, 5], mask_token=0, "
                             "name='il')\nc = l.get_config()\nc.pop('dtype', None)\nout = c",
    "hashing": "out = L.Hashing(num_bins=7)(tf.constant([['a', 'b'], ['cat', 'a']]))",
    "hashing_int": "out = L.Hashing(num_bins=5)(tf.constant([[1, 2], [300, -4]]))",
    "hashing_float": "out = L.Hashing(num_bins=5)(tf.constant([1.7, -2.2]))",
    "hashing_mask": "out = L.Hashing(num_bins=4, mask_value='')(tf.constant(['', 'a', 'b']))",
    "hashing_salt": "out = L.Hashing(num_bins=100, salt=[133, 137])(tf.constant(['a', 'b', "
                    "'hello']))",
    "hashing_salt_int": "out = L.Hashing(num_bins=100, salt=7)(tf.constant([1, 2, 3]))",
    "hashing_multi_hot": "out = L.Hashing(5, output_mode='multi_hot')(tf.constant([['a', "
                         "'b']]))",
    "hashing_config": "c = L.Hashing(5, salt=3, name='h').get_config()\nc.pop('dtype', None)\n"
                      "out = c",
    "hashed_crossing": "out = L.HashedCrossing(num_bins=10)((tf.constant(['a', 'b', 'c']), "
                       "tf.constant([1, 2, 3])))",
    "hashed_crossing_one_hot": "out = L.HashedCrossing(num_bins=4, output_mode='one_hot')("
                               "(tf.constant([['a'], ['b']]), tf.constant([['x'], ['y']])))",
    "text_vectorization_int": "t = L.TextVectorization()\nt.adapt(CORPUS)\n"
                              "out = [t.get_vocabulary(), t(tf.constant(['the cat', "
                              "'A hat, a MAT!', 'unseen words here zz']))]",
    "text_vectorization_seq": "t = L.TextVectorization(max_tokens=8, "
                              "output_sequence_length=4)\nt.adapt(CORPUS)\n"
                              "out = [t.get_vocabulary(), t(tf.constant([['the cat sat on "
                              "the mat'], ['rain']]))]",
    "text_vectorization_dataset": "t = L.TextVectorization(output_sequence_length=5)\n"
                                  "t.adapt(tf.data.Dataset.from_tensor_slices(CORPUS)."
                                  "batch(2))\nds = tf.data.Dataset.from_tensor_slices(CORPUS)"
                                  ".batch(3).map(t)\nout = [t.get_vocabulary(), "
                                  "[b for b in ds]]",
    "text_vectorization_ngrams": "t = L.TextVectorization(ngrams=2, standardize='lower')\n"
                                 "t.adapt(CORPUS[:2])\nout = [t.get_vocabulary(), "
                                 "t(tf.constant(['the cat sat']))]",
    "text_vectorization_character": "t = L.TextVectorization(split='character', "
                                    "standardize=None)\nt.adapt(['abca', 'bb'])\n"
                                    "out = [t.get_vocabulary(), t(tf.constant(['cab', 'q']))]",
    "text_vectorization_multi_hot": "t = L.TextVectorization(output_mode='multi_hot')\n"
                                    "t.adapt(CORPUS)\nout = t(tf.constant(['the cat the cat',"
                                    " 'zz']))",
    "text_vectorization_count": "t = L.TextVectorization(output_mode='count', max_tokens=6)\n"
                                "t.adapt(CORPUS)\nout = t(tf.constant(['the cat the cat', "
                                "'zz']))",
    "text_vectorization_tf_idf": "t = L.TextVectorization(output_mode='tf_idf')\n"
                                 "t.adapt(CORPUS)\nout = [t(tf.constant(['the cat the cat', "
                                 "'rain zz']))]",
    "text_vectorization_ragged": "t = L.TextVectorization(ragged=True, "
                                 "standardize='strip_punctuation')\nt.adapt(CORPUS)\n"
                                 "out = t(tf.constant(['The cat', 'rain, rain, rain'])).to_list()",
    "text_vectorization_vocab": "t = L.TextVectorization(vocabulary=['cat', 'dog'], "
                                "output_sequence_length=3)\nout = [t.get_vocabulary(), "
                                "t(tf.constant(['dog cat bird', 'cat']))]",
    "text_vectorization_config": "t = L.TextVectorization(max_tokens=10, ngrams=(1, 2), "
                                 "name='tv')\nt.adapt(CORPUS[:2])\nc = t.get_config()\n"
                                 "c.pop('dtype', None)\nout = c",
    "text_vectorization_from_config": "t = L.TextVectorization(vocabulary=['cat', 'dog'], "
                                      "output_sequence_length=3, name='tv2')\n"
                                      "t2 = L.TextVectorization.from_config(t.get_config())\n"
                                      "out = [t2.get_vocabulary(), t2(tf.constant(['dog x']))]",
    "text_vectorization_callable": "t = L.TextVectorization(standardize=lambda x: "
                                   "tf.strings.regex_replace(x, 'a', 'A'), split=lambda x: "
                                   "tf.strings.split(x, sep='A'))\nt.adapt(['bAnAnA', 'cAt'])\n"
                                   "out = [t.get_vocabulary(), t(tf.constant(['nab']))]",
    "text_vectorization_function": "t = L.TextVectorization(output_sequence_length=4)\n"
                                   "t.adapt(CORPUS)\nf = tf.function(lambda x: t(x))\n"
                                   "out = f(tf.constant(['the cat ran', 'go away rain']))",
    "text_vectorization_model": "t = L.TextVectorization(output_sequence_length=4)\n"
                                "t.adapt(CORPUS)\ninp = keras.Input(shape=(1,), "
                                "dtype='string')\nm = keras.Model(inp, t(inp))\n"
                                "out = m.predict(tf.constant([['the cat ran'], ['dogs']]), "
                                "verbose=0)",
    "lookup_static": "init = tf.lookup.KeyValueTensorInitializer(['a', 'b', 'c'], "
                     "tf.constant([1, 2, 3], tf.int64))\nt = tf.lookup.StaticHashTable(init, "
                     "-1)\nout = [t.lookup(tf.constant(['a', 'z', 'c'])), t.size()]",
    "lookup_vocabulary": "init = tf.lookup.KeyValueTensorInitializer(['a', 'b', 'c'], "
                         "tf.constant([0, 1, 2], tf.int64))\nt = tf.lookup."
                         "StaticVocabularyTable(init, 3)\nout = [t.lookup(tf.constant(['a', "
                         "'zz', 'q', 'c'])), t.size()]",
    "lookup_vocabulary_int": "init = tf.lookup.KeyValueTensorInitializer(tf.constant([5, 7], "
                             "tf.int64), tf.constant([0, 1], tf.int64))\nt = tf.lookup."
                             "StaticVocabularyTable(init, 2)\nout = t.lookup(tf.constant([5, "
                             "9, 10], tf.int64))",
    "lookup_mutable_function": "m = tf.lookup.experimental.MutableHashTable(tf.string, "
                               "tf.int64, -1)\nm.insert(tf.constant(['a', 'b']), "
                               "tf.constant([5, 6], tf.int64))\nm.remove(tf.constant(['a']))\n"
                               "@tf.function\ndef f(x):\n    m.insert(x, tf.constant([9], "
                               "tf.int64))\n    return m.lookup(tf.constant(['a', 'b', 'q']))"
                               "\nout = [f(tf.constant(['q'])), m.size()]",
    "lookup_text_file": "p = os.path.join(TMP, 'table.txt')\nopen(p, 'w').write('x\\t1\\ny\\t2"
                        "\\n')\nt = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(p, "
                        "tf.string, 0, tf.int64, 1), -1)\nout = t.lookup(tf.constant(['y', "
                        "'x', 'q']))",
    "lookup_dataset_map": "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer("
                          "['a', 'b'], tf.constant([1, 2], tf.int64)), 0)\nds = tf.data."
                          "Dataset.from_tensor_slices(['a', 'q', 'b']).map(t.lookup)\n"
                          "out = [x for x in ds]",
    "strings_ngrams": "out = [tf.strings.ngrams(tf.ragged.constant([['a', 'b', 'c'], ['d'], "
                      "[]]), (1, 2)).to_list(), tf.strings.ngrams(tf.constant([['a', 'b', "
                      "'c']]), 2)]",
    "strings_hash": "out = [tf.strings.to_hash_bucket(['a', 'hello world', '', 'x' * 70], "
                    "1000), tf.strings.to_hash_bucket_strong(['a', 'hello world', '', "
                    "'x' * 70], 1000, [1, 2])]",
}

TUTORIAL = '''
tf.random.set_seed(7)
keras.utils.set_random_seed(7)
texts = np.array(["a great movie, loved it", "terrible plot and bad acting",
                  "loved the acting!", "bad, bad movie", "great fun and great actors",
                  "boring and terrible"])
labels = np.array([[1], [0], [1], [0], [1], [0]], np.float32)
vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=6)
vectorize.adapt(texts)
print(vectorize.get_vocabulary())
print(vectorize(texts[:2]).numpy().tolist())
ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(3)
ds = ds.map(lambda x, y: (vectorize(x), y))
for x, y in ds.take(1):
    print(x.numpy().tolist(), y.numpy().tolist())
model = keras.Sequential([keras.Input(shape=(6,), dtype="int64"), L.Embedding(20, 4),
                          L.GlobalAveragePooling1D(), L.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(0.5),
              loss=keras.losses.BinaryCrossentropy(from_logits=True))
history = model.fit(ds, epochs=3, verbose=0)
print([round(v, 5) for v in history.history["loss"]])
export = keras.Sequential([keras.Input(shape=(1,), dtype="string"), vectorize, model,
                           L.Activation("sigmoid")])
print(np.round(export.predict(tf.constant([["loved it"], ["bad acting"]]),
                                  verbose=0), 5).tolist())
'''


def encode(value, tf):
    """A JSON form of an output (`tf`: the library that made it): tensors as {dtype, shape,
    value}, bytes as text."""
    if isinstance(value, (tf.Tensor, tf.Variable, np.ndarray)) or hasattr(value, "numpy") \
            and not isinstance(value, (list, dict)):
        array = np.asarray(value)
        dtype = tf.as_dtype(value.dtype).name if hasattr(value, "dtype") else str(array.dtype)
        return {"dtype": "string" if array.dtype == object else dtype,
                "shape": list(array.shape), "value": encode(array.tolist(), tf)}
    if isinstance(value, bytes):
        return {"bytes": value.decode("utf-8", "backslashreplace")}
    if isinstance(value, (list, tuple)):
        return [encode(v, tf) for v in value]
    if isinstance(value, dict):
        return {k: encode(v, tf) for k, v in value.items()}
    if isinstance(value, (np.integer, np.floating, np.str_)):
        return value.item()
    return value


def run_case(source, tf, keras, tmp):
    env = {"tf": tf, "keras": keras, "L": keras.layers, "np": np, "os": os, "TMP": tmp,
           "CORPUS": CORPUS}
    exec(source, env)
    return env["out"]


def run_tutorial(tf, keras):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(TUTORIAL, {"tf": tf, "keras": keras, "L": keras.layers, "np": np})
    return buffer.getvalue().splitlines()


def main():
    import tempfile
    import tensorflow as tf
    import keras
    tmp = tempfile.mkdtemp()
    cases = {}
    for name, source in CASES.items():
        cases[name] = {"source": source, "out": encode(run_case(source, tf, keras, tmp), tf)}
    record = {"keras_version": keras.__version__, "tf_version": tf.__version__,
              "cases": cases, "tutorial": {"source": TUTORIAL,
                                           "lines": run_tutorial(tf, keras)}}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                        "text_layers.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
