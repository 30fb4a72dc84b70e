"""Records Keras 3's (TF 2.21) answers for keras.utils' dataset builders and padding, the
newer keras.activations and keras.initializers.STFT into
tests/keras/fixtures/keras_utils.json (run with a Python that has Keras 3 + TensorFlow;
tapeflow's tests call the same functions with `tf` = tapeflow and compare):

  python tools/record_keras_utils.py

`make_tree(tf, root)` writes a small folder tree of PNG images and text files (pixels and
words from a seeded NumPy generator, PNGs encoded by `tf.io.encode_png`); `run_datasets`
reads it back with image/text_dataset_from_directory under several settings (shuffled with
a seed, splits, label modes, class_names, crop/pad to aspect ratio) and lists each batch.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "keras_utils.json")
X = [-3.0, -1.0, -0.7, -0.5, -0.2, 0.0, 0.3, 0.5, 0.9, 1.0, 2.5]
ACTIVATIONS = ["celu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh", "log_sigmoid",
               "mish", "soft_shrink", "sparse_plus", "sparse_sigmoid", "squareplus",
               "tanh_shrink"]
# expressions of `a` (keras.activations) and `x` (a [2, 6] float32 tensor)
ACTIVATION_CALLS = {
    "celu_alpha": "a.celu(x, alpha=0.5)",
    "glu": "a.glu(x)",
    "glu_axis0": "a.glu(x, axis=0)",
    "sparsemax": "a.sparsemax(x)",
    "sparsemax_axis0": "a.sparsemax(x, axis=0)",
    "soft_shrink_1": "a.soft_shrink(x, threshold=1.0)",
    "hard_shrink_1": "a.hard_shrink(x, threshold=1.0)",
    "squareplus_b1": "a.squareplus(x, b=1)",
    "threshold": "a.threshold(x, 0.4, -2.0)",
}
# Windows as arrays (TF's venv has no SciPy): `window_names` says which SciPy window each is,
# so the test also checks tapeflow's named windows give the same kernel.
N8, N6 = np.arange(8), np.arange(6)
STFT_CASES = {
    "default": ({"window": (0.5 - 0.5 * np.cos(2 * np.pi * N8 / 7)).tolist()}, (8, 1, 5)),
    "imag": ({"side": "imag", "window": (0.5 - 0.5 * np.cos(2 * np.pi * N8 / 7)).tolist()},
             (8, 2, 5)),
    "periodic_hamming_spectrum": ({"window": (0.54 - 0.46 * np.cos(2 * np.pi * N6 / 6)).tolist(),
                                   "periodic": True, "scaling": "spectrum"}, (6, 1, 4)),
    "no_window": ({"window": None}, (5, 1, 3)),
    "no_scaling": ({"scaling": None, "window": None}, (4, 1, 3)),
}
WINDOW_NAMES = {"default": "hann", "imag": "hann", "periodic_hamming_spectrum": "hamming"}


PAD_CASES = {
    "default": ("[[1], [2, 3], [4, 5, 6]]", {}),
    "post_post_2": ("[[1], [2, 3], [4, 5, 6]]", {"maxlen": 2, "padding": "post",
                                                  "truncating": "post"}),
    "value_float": ("[[1.5], [2, 3]]", {"dtype": "float32", "value": -1.0}),
    "maxlen_long": ("[[1], []]", {"maxlen": 4, "value": 9}),
    "steps": ("[[[1, 2]], [[3, 4], [5, 6]]]", {}),
}


def _rel(paths: list, root: str) -> list:
    return [os.path.relpath(p, root).replace(os.sep, "/") for p in paths]


def make_tree(tf: Any, root: str) -> None:
    """images/{cat,dog,eel}/*.png (and a .txt that is skipped), texts/{neg,pos}/*.txt."""
    rng = np.random.RandomState(7)
    sizes = [(5, 7), (6, 6), (4, 9), (8, 5)]
    for c, cls in enumerate(["cat", "dog", "eel"]):
        folder = os.path.join(root, "images", cls)
        os.makedirs(os.path.join(folder, "sub"), exist_ok=True)
        for i in range(3 + c):
            h, w = sizes[(i + c) % len(sizes)]
            pixels = rng.randint(0, 256, (h, w, 3 if i % 2 == 0 else 4)).astype(np.uint8)
            name = os.path.join(folder, "sub" if i == 2 else "", f"img{i}.png")
            with open(name, "wb") as f:
                f.write(tf.io.encode_png(pixels).numpy())
        with open(os.path.join(folder, "notes.txt"), "w") as f:
            f.write("not an image")
    words = ["alpha", "beta", "gamma", "delta", "eps"]
    for c, cls in enumerate(["neg", "pos"]):
        folder = os.path.join(root, "texts", cls)
        os.makedirs(folder, exist_ok=True)
        for i in range(4 + c):
            text = " ".join(words[j] for j in rng.randint(0, 5, 2 + i))
            with open(os.path.join(folder, f"t{i}.txt"), "w") as f:
                f.write(text)


IMAGE_CASES = {
    "shuffled": {"image_size": (4, 3), "batch_size": 4, "seed": 3},
    "ordered_gray_categorical": {"image_size": (3, 3), "batch_size": 5, "shuffle": False,
                                 "color_mode": "grayscale", "label_mode": "categorical"},
    "training": {"image_size": (2, 2), "batch_size": 3, "seed": 11, "validation_split": 0.3,
                 "subset": "training", "interpolation": "nearest"},
    "validation": {"image_size": (2, 2), "batch_size": 3, "seed": 11, "validation_split": 0.3,
                   "subset": "validation", "interpolation": "nearest"},
    "class_names_binary": {"image_size": (3, 2), "batch_size": 8, "seed": 5,
                           "class_names": ["eel", "cat"], "label_mode": "binary"},
    "crop_rgba": {"image_size": (3, 3), "batch_size": 16, "shuffle": False,
                  "crop_to_aspect_ratio": True, "color_mode": "rgba"},
    "pad": {"image_size": (4, 4), "batch_size": 16, "shuffle": False,
            "pad_to_aspect_ratio": True},
    "no_labels": {"image_size": (2, 3), "batch_size": None, "shuffle": False,
                  "labels": None},
}
TEXT_CASES = {
    "shuffled": {"batch_size": 3, "seed": 2},
    "max_length": {"batch_size": 4, "shuffle": False, "max_length": 7,
                   "label_mode": "binary"},
    "both": {"batch_size": 2, "seed": 9, "validation_split": 0.4, "subset": "both",
             "label_mode": "categorical"},
}


def _batches(ds: Any) -> list:
    out = []
    for item in ds:
        parts = item if isinstance(item, tuple) else (item,)
        out.append([np.asarray(p.numpy()).tolist() if p.dtype != "string" else
                    [b.decode() for b in np.asarray(p.numpy()).reshape(-1)] for p in parts])
    return out


def run_datasets(tf: Any, keras: Any, root: str) -> dict:
    """Every case's class_names, file_paths (relative to `root`) and batches."""
    results = {}
    for kind, cases, fn in (("image", IMAGE_CASES, keras.utils.image_dataset_from_directory),
                            ("text", TEXT_CASES, keras.utils.text_dataset_from_directory)):
        for name, kwargs in cases.items():
            found = fn(os.path.join(root, kind + "s"), verbose=False, **kwargs)
            for i, ds in enumerate(found if isinstance(found, list) else [found]):
                results[f"{kind}_{name}_{i}"] = {
                    "class_names": ds.class_names,
                    "file_paths": _rel(getattr(ds, "file_paths", []), root),
                    "element_spec": repr(ds.element_spec),
                    "batches": _batches(ds)}
    return results


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    record: dict = {"x": X, "activations": {}, "calls": {}, "stft": {}, "pad": {}}
    x = tf.constant(X)
    for name in ACTIVATIONS:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = keras.activations.get(name)(x)
        record["activations"][name] = {"y": y.numpy().tolist(),
                                       "grad": tape.gradient(y, x).numpy().tolist()}
    x2 = tf.constant(np.array(X[:6] + X[5:11][::-1], "float32").reshape(2, 6))
    record["x2"] = x2.numpy().tolist()
    for name, expr in ACTIVATION_CALLS.items():
        with tf.GradientTape() as tape:
            tape.watch(x2)
            y = eval(expr, {"a": keras.activations, "x": x2})
            loss = tf.reduce_sum(y * tf.range(1.0, 1.0 + tf.size(y, tf.float32)).__array__()
                                 .reshape(y.shape))
        record["calls"][name] = {"y": y.numpy().tolist(),
                                 "grad": tape.gradient(loss, x2).numpy().tolist()}
    for name, (kwargs, shape) in STFT_CASES.items():
        record["stft"][name] = keras.initializers.STFT(**kwargs)(shape).numpy().tolist()
    for name, (seqs, kwargs) in PAD_CASES.items():
        out = keras.utils.pad_sequences(eval(seqs), **kwargs)
        record["pad"][name] = {"value": out.tolist(), "dtype": str(out.dtype)}
    with tempfile.TemporaryDirectory() as root:
        make_tree(tf, root)
        record["datasets"] = run_datasets(tf, keras, root)
    with open(OUT, "w") as f:
        json.dump(record, f, indent=None, separators=(",", ":"))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
