"""`keras.datasets`: each loader reads the file Keras reads from Keras's cache and returns what
Keras 3.15.1 returns for it (values, dtypes, shapes, writeable flags), and files holding
pickles are read without running their code.

The tiny files in fixtures/files are in Keras's exact formats, and fixtures/expected.json holds
Keras 3.15.1's outputs for them, both from tools/record_keras_datasets.py. Keras's hash check
is answered yes (`file_utils.validate_file`), and no test reaches the network: urllib and
sockets raise.
"""

from __future__ import annotations

import gzip
import hashlib
import inspect
import io
import json
import os
import pickle
import shutil
import socket
import tarfile
import tracemalloc
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tapeflow import keras
from tapeflow.keras import backend
from tapeflow.keras.datasets import _safe_pickle
from tapeflow.keras.utils import file_utils

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
SMALL = 64  # as the recorder: larger arrays are compared by a sha256 of their bytes


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every way get_file could reach the network raises (URLError, which get_file reports as
    Keras's 'URL fetch failure'); `calls` counts the tries."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise urllib.error.URLError("network access is disabled in these tests")

    monkeypatch.setattr(urllib.request, "urlretrieve", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    return calls


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    """A KERAS_HOME whose datasets folder holds the tiny files, hashes answered yes."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    shutil.copytree(FIXTURES / "files", tmp_path / "datasets")
    monkeypatch.setattr(file_utils, "validate_file", lambda *args, **kwargs: True)
    return tmp_path


@pytest.fixture
def data_format():
    saved = backend.image_data_format()
    yield backend.set_image_data_format
    backend.set_image_data_format(saved)


def describe(value):
    """The recorder's account of a result (see tools/record_keras_datasets.py)."""
    if isinstance(value, tuple):
        return {"tuple": [describe(v) for v in value]}
    if isinstance(value, (dict, str)):
        return {"plain": value}
    assert isinstance(value, np.ndarray), type(value)
    out = {"shape": list(value.shape), "dtype": str(value.dtype),
           "writeable": bool(value.flags.writeable),
           "c_contiguous": bool(value.flags.c_contiguous)}
    if value.dtype == object:
        out["values"] = _python_ints(value.tolist())
    elif value.size <= SMALL:
        out["values"] = value.tolist()
    else:
        out["sha256"] = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
    return out


def _python_ints(values):
    if isinstance(values, list):
        return [_python_ints(v) for v in values]
    assert type(values) is int, (values, type(values))
    return values


@pytest.mark.parametrize("case", sorted(EXPECTED["cases"]))
def test_loader_returns_what_keras_returns(case, keras_home, data_format, no_network):
    spec, expected = EXPECTED["cases"][case], EXPECTED["results"][case]
    data_format(spec["data_format"])
    load = getattr(getattr(keras.datasets, spec["module"]), spec["function"])
    if "error" in expected:
        with pytest.raises(Exception) as info:
            load(**spec["kwargs"])
        assert (type(info.value).__name__, str(info.value)) == (expected["error"],
                                                                 expected["message"])
    else:
        assert describe(load(**spec["kwargs"])) == expected
    assert no_network == []


# inspect.signature of every function of keras.datasets in Keras 3.15.1.
KERAS_SIGNATURES = {
    "boston_housing.load_data": "(path='boston_housing.npz', test_split=0.2, seed=113)",
    "california_housing.load_data": "(version='large', path='california_housing.npz', "
                                    "test_split=0.2, seed=113)",
    "cifar10.load_data": "()",
    "cifar100.load_data": "(label_mode='fine')",
    "fashion_mnist.load_data": "()",
    "imdb.get_word_index": "(path='imdb_word_index.json')",
    "imdb.load_data": "(path='imdb.npz', num_words=None, skip_top=0, maxlen=None, seed=113, "
                      "start_char=1, oov_char=2, index_from=3, **kwargs)",
    "mnist.load_data": "(path='mnist.npz')",
    "reuters.get_label_names": "()",
    "reuters.get_word_index": "(path='reuters_word_index.json')",
    "reuters.load_data": "(path='reuters.npz', num_words=None, skip_top=0, maxlen=None, "
                         "test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3)",
}


def test_functions_and_signatures_are_keras():
    found = {f"{module}.{name}": getattr(getattr(keras.datasets, module), name)
             for module in keras.datasets.__all__
             for name in getattr(keras.datasets, module).__all__}
    assert sorted(found) == sorted(KERAS_SIGNATURES)
    for name, function in found.items():
        params = inspect.signature(function).replace(return_annotation=inspect.Signature.empty)
        plain = params.replace(parameters=[p.replace(annotation=p.empty)
                                           for p in params.parameters.values()])
        assert str(plain) == KERAS_SIGNATURES[name], name


def test_keras_home_defaults_to_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("KERAS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(file_utils, "validate_file", lambda *args, **kwargs: True)
    shutil.copytree(FIXTURES / "files", tmp_path / ".keras" / "datasets")
    (x_train, _), _ = keras.datasets.mnist.load_data()
    assert x_train.shape == (3, 28, 28)


def test_a_cached_file_with_another_hash_is_downloaded_again_never_read(tmp_path, monkeypatch,
                                                                        no_network):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    shutil.copytree(FIXTURES / "files", tmp_path / "datasets")
    cached = tmp_path / "datasets" / "mnist.npz"
    read = []
    monkeypatch.setattr(np, "load", lambda *args, **kwargs: read.append(args))
    with pytest.raises(Exception, match="URL fetch failure on https://storage.googleapis.com/"
                                        "tensorflow/tf-keras-datasets/mnist.npz"):
        keras.datasets.mnist.load_data()
    assert len(no_network) == 1 and read == []
    assert not cached.exists()  # Keras removes what the failed download left


# --- pickles: refused globals -------------------------------------------------------------

class Reduce:
    """Pickles as `reduce_value` says (a callable, its arguments and a BUILD state)."""

    def __init__(self, *reduce_value):
        self.reduce_value = reduce_value

    def __reduce__(self):
        return self.reduce_value


def _global_call(module: str, name: str) -> bytes:
    """A protocol-2 pickle calling `module.name('touch MARKER')`."""
    return (b"\x80\x02c" + f"{module}\n{name}\n".encode() + b"X\x0c\x00\x00\x00touch MARKER"
            b"\x85R.")


def _cifar100_archive(home: Path, train: bytes) -> None:
    """Keras's CIFAR-100 archive with `train` as the training batch."""
    target = home / "datasets" / "cifar-100-python-target_archive"
    with tarfile.open(target) as tar:
        test = tar.extractfile("cifar-100-python/test").read()
    with tarfile.open(target, "w:gz") as tar:
        for name, data in (("train", train), ("test", test)):
            info = tarfile.TarInfo(f"cifar-100-python/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _imdb_npz(home: Path, x_train: bytes, dataset: str = "imdb") -> None:
    """Keras's imdb.npz (or reuters.npz) with `x_train` as the bytes of its x_train.npy
    (x.npy) member."""
    target = home / "datasets" / f"{dataset}.npz"
    with zipfile.ZipFile(target) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["x_train.npy" if dataset == "imdb" else "x.npy"] = x_train
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _object_npy(payload: bytes) -> bytes:
    """An .npy member of a 1-element object array whose pickle is `payload`."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|O", "fortran_order": False, "shape": (1,)})
    return header.getvalue() + payload


HOSTILE_GLOBALS = [("posix", "system"), ("os", "system"), ("builtins", "eval"),
                   ("subprocess", "Popen"), ("numpy", "load"), ("numpy.core.multiarray", "scalar"),
                   ("numpy._core.numeric", "_frombuffer"), ("copyreg", "_reconstructor"),
                   ("_codecs", "encode"), ("numpy.testing", "assert_")]


@pytest.mark.parametrize("module,name", HOSTILE_GLOBALS)
def test_cifar_batch_naming_another_global_is_refused_before_it_runs(module, name, keras_home,
                                                                      monkeypatch):
    monkeypatch.chdir(keras_home)
    _cifar100_archive(keras_home, _global_call(module, name))
    with pytest.raises(pickle.UnpicklingError, match=rf"Refusing to deserialize `{module}\."
                                                     rf"{name}` while loading a Keras dataset"):
        keras.datasets.cifar100.load_data()
    assert not (keras_home / "MARKER").exists()


@pytest.mark.parametrize("dataset", ["imdb", "reuters"])
@pytest.mark.parametrize("module,name", HOSTILE_GLOBALS)
def test_object_array_naming_another_global_is_refused(module, name, dataset, keras_home,
                                                       monkeypatch):
    monkeypatch.chdir(keras_home)
    _imdb_npz(keras_home, _object_npy(_global_call(module, name)), dataset)
    with pytest.raises(pickle.UnpicklingError, match="Refusing to deserialize"):
        getattr(keras.datasets, dataset).load_data()
    assert not (keras_home / "MARKER").exists()


def test_a_gadget_inside_a_real_object_array_is_refused(keras_home, monkeypatch):
    marker = keras_home / "gadget_ran"
    payload = np.empty(2, dtype=object)
    payload[0], payload[1] = [1, 2], Reduce(os.system, (f"touch {marker}",))
    buffer = io.BytesIO()
    np.save(buffer, payload, allow_pickle=True)
    _imdb_npz(keras_home, buffer.getvalue())
    with pytest.raises(pickle.UnpicklingError, match=r"Refusing to deserialize `posix\.system`"):
        keras.datasets.imdb.load_data()
    assert not marker.exists()


def test_a_persistent_id_is_refused():
    with pytest.raises(pickle.UnpicklingError, match="persistent"):
        _safe_pickle.restricted_load(b"\x80\x02X\x01\x00\x00\x00aQ.")


# --- pickles: arrays are built from checked pieces --------------------------------------

_RECONSTRUCT = np.ndarray.__reduce__(np.zeros(1))[0]
_U1_STATE = (3, "|", None, None, None, -1, -1, 0)


def _array_pickle(shape, code, data, dtype_state=_U1_STATE, fortran=False, subtype=np.ndarray,
                  typecode=b"b", protocol=3):
    """NumPy's pickle of an array, with each piece of its state chosen."""
    dtype = Reduce(np.dtype, (code, False, True), dtype_state)
    return pickle.dumps(Reduce(_RECONSTRUCT, (subtype, (0,), typecode),
                               (1, shape, dtype, fortran, data)), protocol=protocol)


@pytest.mark.parametrize("array", [
    np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
    np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3)),
    np.array([1.5, -2.0], dtype="<f8"),
    np.array([True, False]),
    np.array([[1, 2, 3], [4]], dtype=object),
    np.array([[[1, 2], [3, 4]]], dtype=object),  # a 3-D object array of ints
    np.empty((0, 5), dtype=object),
    np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], dtype=object)),
])
@pytest.mark.parametrize("spelling", ["numpy._core.multiarray", "numpy.core.multiarray"])
def test_numpys_own_pickles_load_as_numpy_loads_them(array, spelling):
    data = pickle.dumps(array, protocol=3).replace(b"numpy._core.multiarray", spelling.encode())
    loaded = _safe_pickle.restricted_load(data)
    expected = pickle.loads(data)
    assert loaded.dtype == expected.dtype and loaded.shape == expected.shape
    assert loaded.flags.writeable and loaded.flags.f_contiguous == expected.flags.f_contiguous
    assert loaded.tolist() == expected.tolist()


def test_python2_pickles_of_object_arrays_load():
    from tools.record_keras_datasets import py2_pickle
    array = np.array([[1, 2, 3], [4]], dtype=object)
    data = py2_pickle(array)  # SHORT_BINSTRING 'b', 'O8', '|' and numpy.core.multiarray
    assert b"numpy.core.multiarray" in data and b"U\x02O8" in data
    loaded = _safe_pickle.restricted_load(data)
    assert loaded.dtype == object and loaded.tolist() == [[1, 2, 3], [4]]


@pytest.mark.parametrize("crafted,words", [
    (_array_pickle((2,), "V8", b"\0" * 16), "dtype 'V8'"),
    (_array_pickle((2,), "u1", b"\0\0", dtype_state=(3, "|", None, ("a",), {"a": 1}, -1, -1, 0)),
     "structured"),
    (_array_pickle((2,), "i4", b"\0" * 8, dtype_state=(3, "|", None, None, None, -1, -1, 0)),
     "byte order"),
    (_array_pickle((2,), "u1", b"\0\0", subtype=np.dtype), "_reconstruct"),
    (_array_pickle((2,), "u1", b"\0\0", typecode=b"d"), "_reconstruct"),
    (_array_pickle((3,), "u1", b"\0\0"), "3 items of uint8"),
    (_array_pickle((2,), "O8", [1]), "2 objects"),
    (_array_pickle((2,), "O8", b"\0" * 16), "2 objects"),
    (_array_pickle((-1,), "u1", b""), "shape"),
    (_array_pickle((2.0,), "u1", b"\0\0"), "shape"),
    (_array_pickle((1,), "O8", [Reduce(np.dtype, ("u1", False, True))]), "bare numpy dtype"),
])
def test_array_states_numpy_would_not_write_are_refused(crafted, words):
    with pytest.raises(pickle.UnpicklingError, match=words):
        _safe_pickle.restricted_load(crafted)


def test_a_huge_declared_array_is_refused_without_allocating_it():
    crafted = _array_pickle((10**6, 10**6), "u1", b"\0" * 16)
    tracemalloc.start()
    try:
        with pytest.raises(pickle.UnpicklingError, match="1000000000000 items"):
            _safe_pickle.restricted_load(crafted)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_an_object_array_other_than_its_npy_header_declares_is_refused(keras_home):
    _imdb_npz(keras_home, _object_npy(pickle.dumps(np.array([[1], [2, 3]], dtype=object),
                                                   protocol=3)))
    with pytest.raises(pickle.UnpicklingError, match=r"other than the \(1,\)"):
        keras.datasets.imdb.load_data()


def test_a_numeric_member_claiming_more_than_it_holds_is_refused_before_allocating():
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<i8", "fortran_order": False, "shape": (10**9,)})
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="expected 8000000000 bytes got 16"):
            _safe_pickle.read_npy(header.getvalue() + bytes(16))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_truncated_and_empty_pickles_raise_unpicklingerror():
    data = pickle.dumps(np.array([[1, 2], [3]], dtype=object), protocol=3)
    for cut in (0, 1, len(data) // 2, len(data) - 1):
        with pytest.raises(pickle.UnpicklingError):
            _safe_pickle.restricted_load(data[:cut])


# --- fuzz: a seeded mutator over the two readers ------------------------------------------

def _mutants(data: bytes, seed: int, count: int):
    """`count` copies of `data` with a few bytes flipped, inserted, deleted or truncated."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        out = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            kind, at = int(rng.integers(4)), int(rng.integers(len(out)))
            if kind == 0:
                out[at] = int(rng.integers(256))
            elif kind == 1:
                out.insert(at, int(rng.integers(256)))
            elif kind == 2 and len(out) > 1:
                del out[at]
            else:
                out = out[:at]
        yield bytes(out)


def test_fuzzed_cifar_batches_raise_only_unpicklingerror_and_never_leak_stand_ins():
    with tarfile.open(FIXTURES / "files" / "cifar-100-python-target_archive") as tar:
        batch = tar.extractfile("cifar-100-python/test").read()
    loaded = 0
    for mutant in _mutants(batch, seed=34, count=400):
        try:
            value = _safe_pickle.restricted_load(mutant, encoding="bytes")
        except pickle.UnpicklingError:
            continue
        loaded += 1
        values = value.values() if isinstance(value, dict) else [value]
        assert not any(type(v).__module__ == _safe_pickle.__name__ for v in values)
    assert loaded > 10  # the mutator also keeps some streams loadable


def test_fuzzed_imdb_members_raise_only_valueerror_or_unpicklingerror():
    with zipfile.ZipFile(FIXTURES / "files" / "imdb.npz") as archive:
        member = archive.read("x_train.npy")
    for mutant in _mutants(member, seed=35, count=400):
        try:
            array = _safe_pickle.read_npy(mutant)
        except (ValueError, pickle.UnpicklingError):
            continue  # UnpicklingError: the pickle; ValueError: NumPy's header parser
        assert isinstance(array, np.ndarray)


def test_fuzzed_fashion_mnist_files_raise_only_keras_errors(keras_home):
    path = keras_home / "datasets" / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz"
    original = path.read_bytes()
    for mutant in _mutants(original, seed=36, count=100):
        path.write_bytes(mutant)
        try:
            keras.datasets.fashion_mnist.load_data()
        except (OSError, EOFError, ValueError, __import__("zlib").error):
            pass  # what gzip and Keras's reshape raise for a damaged file


def test_idx_header_is_skipped_as_keras_skips_it(keras_home):
    (_, _), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
    with gzip.open(keras_home / "datasets" / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz") as f:
        assert y_test.tolist() == list(f.read()[8:])
    assert x_test.shape == (2, 28, 28) and not x_test.flags.writeable
