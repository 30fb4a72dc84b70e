"""Writes tiny dataset files in Keras's exact on-disk formats and records what Keras 3.15.1's
loaders return for them, into tests/keras/datasets/fixtures/.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras_datasets.py

The files (named as Keras's cache names them under `$KERAS_HOME/datasets`):
- mnist.npz, boston_housing.npz, california_housing.npz: plain npz (no pickles);
- fashion-mnist/*.gz: gzipped IDX files (big-endian magic and sizes, then uint8 bytes);
- imdb.npz, reuters.npz: npz whose `x*` members are object arrays of lists (pickled by
  `np.save`, protocol 3);
- cifar-10-batches-py-target_archive, cifar-100-python-target_archive: tar.gz archives of
  Python 2 pickles (protocol 2, byte strings as BINSTRING, `numpy.core.multiarray`), as the
  real archives hold. CIFAR-10's loader requires 10,000 images per batch, so its batches are
  full size, from a short repeating pattern that gzip compresses;
- imdb_word_index.json, reuters_word_index.json.

Each case of CASES calls `keras.datasets.<module>.<function>(**kwargs)` under the given image
data format, in a fresh KERAS_HOME holding those files, with Keras's hash check answered yes
(`keras.src.utils.file_utils.validate_file`) and the network refused; expected.json stores
`describe()` of the result (arrays as shape, dtype, writeable flag and values, or a sha256 of
their bytes when large) or the error's class and message.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import pickle
import shutil
import struct
import sys
import tarfile
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "keras", "datasets", "fixtures")
SMALL = 64  # arrays of at most this many items are stored by value

CASES = {
    "mnist": ("mnist", "load_data", {}, "channels_last"),
    "fashion_mnist": ("fashion_mnist", "load_data", {}, "channels_last"),
    "cifar10": ("cifar10", "load_data", {}, "channels_last"),
    "cifar100_fine": ("cifar100", "load_data", {}, "channels_last"),
    "cifar100_coarse": ("cifar100", "load_data", {"label_mode": "coarse"}, "channels_last"),
    "cifar100_channels_first": ("cifar100", "load_data", {}, "channels_first"),
    "cifar100_bad_label_mode": ("cifar100", "load_data", {"label_mode": "medium"},
                                "channels_last"),
    "imdb": ("imdb", "load_data", {}, "channels_last"),
    "imdb_vocabulary": ("imdb", "load_data", {"num_words": 12, "skip_top": 5},
                        "channels_last"),
    "imdb_maxlen_equal_lengths": ("imdb", "load_data", {"maxlen": 5}, "channels_last"),
    "imdb_maxlen_ragged": ("imdb", "load_data", {"maxlen": 7, "seed": 3}, "channels_last"),
    "imdb_maxlen_too_small": ("imdb", "load_data", {"maxlen": 2}, "channels_last"),
    "imdb_no_start": ("imdb", "load_data", {"start_char": None, "oov_char": None,
                                            "num_words": 9, "seed": 0}, "channels_last"),
    "imdb_raw_words": ("imdb", "load_data", {"start_char": None, "index_from": 0},
                       "channels_last"),
    "imdb_extra_kwarg": ("imdb", "load_data", {"nb_words": 5, "index_from": 1},
                         "channels_last"),
    "imdb_word_index": ("imdb", "get_word_index", {}, "channels_last"),
    "reuters": ("reuters", "load_data", {}, "channels_last"),
    "reuters_split": ("reuters", "load_data", {"test_split": 0.5, "seed": 5, "num_words": 10,
                                               "skip_top": 4, "oov_char": 0}, "channels_last"),
    "reuters_maxlen": ("reuters", "load_data", {"maxlen": 6, "oov_char": None, "num_words": 8},
                       "channels_last"),
    "reuters_raw_words": ("reuters", "load_data", {"start_char": None, "index_from": 0,
                                                   "test_split": 0.0}, "channels_last"),
    "reuters_word_index": ("reuters", "get_word_index", {}, "channels_last"),
    "reuters_label_names": ("reuters", "get_label_names", {}, "channels_last"),
    "boston": ("boston_housing", "load_data", {}, "channels_last"),
    "boston_split": ("boston_housing", "load_data", {"test_split": 0.5, "seed": 1},
                     "channels_last"),
    "boston_no_test": ("boston_housing", "load_data", {"test_split": 0, "seed": 0},
                       "channels_last"),
    "boston_bad_split": ("boston_housing", "load_data", {"test_split": 1.0}, "channels_last"),
    "california": ("california_housing", "load_data", {}, "channels_last"),
    "california_small": ("california_housing", "load_data", {"version": "small",
                                                             "test_split": 0.25, "seed": 9},
                         "channels_last"),
    "california_bad_version": ("california_housing", "load_data", {"version": "medium"},
                               "channels_last"),
    "california_bad_split": ("california_housing", "load_data", {"test_split": -0.1},
                             "channels_last"),
}


# --- the files ------------------------------------------------------------------------------

class _Py2Pickler(pickle._Pickler):
    """Protocol 2 as Python 2 wrote it: every str and bytes a byte string (BINSTRING), and
    NumPy's _reconstruct under its NumPy 1 module."""

    dispatch = pickle._Pickler.dispatch.copy()

    def save_py2_string(self, obj) -> None:
        data = obj.encode("latin1") if isinstance(obj, str) else obj
        if len(data) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(data)]) + data)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(data)) + data)
        self.memoize(obj)

    dispatch[bytes] = save_py2_string
    dispatch[str] = save_py2_string

    def save_global(self, obj, name=None) -> None:
        module = obj.__module__.replace("numpy._core", "numpy.core")
        self.write(pickle.GLOBAL + f"{module}\n{obj.__name__}\n".encode())
        self.memoize(obj)


def py2_pickle(obj) -> bytes:
    out = io.BytesIO()
    _Py2Pickler(out, protocol=2).dump(obj)
    return out.getvalue()


def _tar_gz(path: str, members: dict) -> None:
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1262304000, 0o644
            tar.addfile(info, io.BytesIO(data))


def _pattern_images(count: int, salt: int) -> np.ndarray:
    """`count` flattened 3x32x32 uint8 images: the first a pattern that differs along every
    axis (so a wrong reshape or transpose shows), the rest one flat value per batch (so gzip
    shrinks CIFAR-10's full-size batches about a thousandfold)."""
    images = np.full((count, 3072), salt * 37 % 256, dtype=np.uint8)
    pixel = np.arange(3072)
    images[0] = (pixel * 7 + pixel // 1024 * 50 + salt * 17) % 256
    return images


def write_cifar10(folder: str) -> None:
    members = {}
    for i in range(1, 7):
        name = f"data_batch_{i}" if i < 6 else "test_batch"
        labels = [(k * 3 + i) % 10 for k in range(10000)]
        members[f"cifar-10-batches-py/{name}"] = py2_pickle({
            "batch_label": f"batch {i} of 5", "labels": labels,
            "data": _pattern_images(10000, i), "filenames": ["x.png"] * 10000})
    members["cifar-10-batches-py/batches.meta"] = py2_pickle(
        {"label_names": [f"class {k}" for k in range(10)], "num_cases_per_batch": 10000,
         "num_vis": 3072})
    _tar_gz(os.path.join(folder, "cifar-10-batches-py-target_archive"), members)


def write_cifar100(folder: str) -> None:
    members = {}
    for name, count in (("train", 7), ("test", 3)):
        fine = [(k * 37 + count) % 100 for k in range(count)]
        members[f"cifar-100-python/{name}"] = py2_pickle({
            "filenames": [f"{k}.png" for k in range(count)], "batch_label": name,
            "fine_labels": fine, "coarse_labels": [f // 5 for f in fine],
            "data": _pattern_images(count, count)})
    members["cifar-100-python/meta"] = py2_pickle(
        {"fine_label_names": ["f"] * 100, "coarse_label_names": ["c"] * 20})
    _tar_gz(os.path.join(folder, "cifar-100-python-target_archive"), members)


def _idx(magic: int, array: np.ndarray) -> bytes:
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape)
    return gzip.compress(header + array.tobytes(), mtime=0)


def _ragged(rng: np.random.Generator, lengths: list, top: int) -> np.ndarray:
    out = np.empty(len(lengths), dtype=object)
    for i, n in enumerate(lengths):
        out[i] = [int(w) for w in rng.integers(1, top, n)]
    return out


def write_files(folder: str) -> None:
    rng = np.random.default_rng(34)
    os.makedirs(os.path.join(folder, "fashion-mnist"), exist_ok=True)
    np.savez(os.path.join(folder, "mnist.npz"),
             x_train=rng.integers(0, 256, (3, 28, 28)).astype(np.uint8),
             y_train=np.array([5, 0, 4], np.uint8),
             x_test=rng.integers(0, 256, (2, 28, 28)).astype(np.uint8),
             y_test=np.array([7, 2], np.uint8))
    fashion = {"train-labels-idx1-ubyte.gz": _idx(2049, np.array([9, 0, 3], np.uint8)),
               "train-images-idx3-ubyte.gz": _idx(2051, rng.integers(0, 256, (3, 28, 28))
                                                  .astype(np.uint8)),
               "t10k-labels-idx1-ubyte.gz": _idx(2049, np.array([1, 8], np.uint8)),
               "t10k-images-idx3-ubyte.gz": _idx(2051, rng.integers(0, 256, (2, 28, 28))
                                                 .astype(np.uint8))}
    for name, data in fashion.items():
        with open(os.path.join(folder, "fashion-mnist", name), "wb") as f:
            f.write(data)
    # Lengths 3 become 4 with the start character: `maxlen=5` keeps only those.
    np.savez(os.path.join(folder, "imdb.npz"),
             x_train=_ragged(rng, [3, 8, 3, 6, 3, 5], 16),
             y_train=np.array([1, 0, 0, 1, 1, 0], np.int64),
             x_test=_ragged(rng, [4, 3, 9, 3, 5], 20),
             y_test=np.array([0, 1, 1, 0, 1], np.int64))
    np.savez(os.path.join(folder, "reuters.npz"),
             x=_ragged(rng, [5, 2, 7, 4, 9, 3, 6, 2, 8, 4], 14),
             y=np.array([3, 4, 3, 19, 1, 45, 3, 8, 4, 11], np.int64))
    np.savez_compressed(os.path.join(folder, "boston_housing.npz"),
                        x=np.round(rng.uniform(0, 100, (20, 13)), 2),
                        y=np.round(rng.uniform(5, 50, 20), 1))
    np.savez_compressed(os.path.join(folder, "california_housing.npz"),
                        x=(rng.integers(0, 64, (700, 8)) / 4).astype(np.float32),
                        y=(rng.integers(10, 500, 700) * 1000).astype(np.float32))
    for name, words in (("imdb_word_index.json", ["the", "and", "a", "of", "brilliant"]),
                        ("reuters_word_index.json", ["the", "of", "to", "said", "mln"])):
        with open(os.path.join(folder, name), "w") as f:
            json.dump({w: i + 1 for i, w in enumerate(words)}, f)
    write_cifar10(folder)
    write_cifar100(folder)


# --- the outputs ----------------------------------------------------------------------------

def describe(value):
    """A JSON-able account of a loader's result (the tests build the same for tapeflow's)."""
    if isinstance(value, tuple):
        return {"tuple": [describe(v) for v in value]}
    if isinstance(value, (dict, str)):
        return {"plain": value}
    if isinstance(value, np.ndarray):
        out = {"shape": list(value.shape), "dtype": str(value.dtype),
               "writeable": bool(value.flags.writeable),
               "c_contiguous": bool(value.flags.c_contiguous)}
        if value.dtype == object:
            out["values"] = _plain(value.tolist())
        elif value.size <= SMALL:
            out["values"] = value.tolist()
        else:
            out["sha256"] = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return out
    raise TypeError(f"unexpected {type(value)}")


def _plain(values):
    """Nested lists of Python ints (fails on any other element type, so a NumPy scalar in a
    sequence would show)."""
    if isinstance(values, list):
        return [_plain(v) for v in values]
    if type(values) is not int:
        raise TypeError(f"element {values!r} of type {type(values)}")
    return values


def record(folder: str, home: str) -> dict:
    import urllib.request

    import keras
    from keras.src.utils import file_utils

    def refuse(*args, **kwargs):
        raise AssertionError("network access while recording")
    urllib.request.urlretrieve = refuse
    file_utils.urlretrieve = refuse
    file_utils.validate_file = lambda *args, **kwargs: True
    results = {}
    for case, (module, function, kwargs, data_format) in CASES.items():
        datasets = os.path.join(home, "datasets")
        shutil.rmtree(datasets, ignore_errors=True)
        shutil.copytree(folder, datasets)
        keras.config.set_image_data_format(data_format)
        try:
            out = getattr(getattr(keras.datasets, module), function)(**kwargs)
            results[case] = describe(out)
        except Exception as e:  # noqa: BLE001 - an error is a result
            results[case] = {"error": type(e).__name__, "message": str(e)}
        print(case, json.dumps(results[case])[:100], file=sys.stderr)
    keras.config.set_image_data_format("channels_last")
    return results


def main() -> None:
    home = tempfile.mkdtemp()
    os.environ["KERAS_HOME"] = home  # Keras reads it once, when it is imported
    files = os.path.join(FIXTURES, "files")
    shutil.rmtree(files, ignore_errors=True)
    os.makedirs(files)
    write_files(files)
    expected = {"keras": __import__("keras").__version__, "cases": {
        case: {"module": m, "function": f, "kwargs": k, "data_format": d}
        for case, (m, f, k, d) in CASES.items()}, "results": record(files, home)}
    shutil.rmtree(home)
    with open(os.path.join(FIXTURES, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
