"""Keras `.weights.h5` files from strangers: each case is a file crafted with h5py under
tmp_path from a valid file that tapeflow wrote, loaded with `model.load_weights`.

A file may not make tapeflow open another file (external links, external raw storage, virtual
datasets), follow a soft link, or allocate more than the model's own size (shape bombs, wide
items); each refusal is Keras's ValueError with Keras's text, and loading is all or nothing:
after a refused or failed load every variable (the optimizer's too) keeps its old value.
Keras's classes and texts were measured with TF 2.21 / Keras 3.15.1 on the same crafted files
(noted where used). Files Keras loads still load, with Keras's values.
"""

import contextlib
import ctypes
import os
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import tapeflow as tf

h5py = pytest.importorskip("h5py")
keras = tf.keras

KERNEL = "layers/dense/vars/0"   # the first Dense's kernel, shape (4, 3) float32
SECRET = 7.0                     # what every file outside the target holds
OLD = -1.0                       # every variable's value before a load
MIB = 1 << 20


def _model():
    """Dense(3) then Dense(2) on 4 inputs, with a built Adam (10 variables), all set to OLD."""
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_variables)
    for v in _variables(model):
        v.assign(np.full(v.shape, OLD, v.dtype.as_numpy_dtype))
    return model


def _variables(model):
    return list(model.weights) + list(model.optimizer.variables)


def _values(model):
    return [np.array(v.numpy()) for v in _variables(model)]


def _unchanged(model):
    return all(np.all(value == OLD) for value in _values(model))


@pytest.fixture
def saved(tmp_path):
    """A valid weights file (tapeflow's writer: Keras's layout) and the values it holds."""
    model = _model()
    for i, v in enumerate(_variables(model)):
        v.assign(np.full(v.shape, i + 1, v.dtype.as_numpy_dtype))
    path = tmp_path / "good.weights.h5"
    model.save_weights(str(path))
    return path, _values(model)


def _crafted(saved, tmp_path, edit, name="crafted"):
    """A copy of the valid file, edited with h5py (`edit(f)`)."""
    path = tmp_path / f"{name}.weights.h5"
    path.write_bytes(saved[0].read_bytes())
    with h5py.File(path, "a") as f:
        edit(f)
    return str(path)


def _replace(f, path, **kwargs):
    del f[path]
    return f.create_dataset(path, **kwargs)


def _outside_h5(tmp_path):
    """Another HDF5 file, its every dataset SECRET, that links may point at."""
    path = tmp_path / "outside.h5"
    with h5py.File(path, "w") as o:
        o["data"] = np.full((4, 3), SECRET, np.float32)
        o["vars/0"] = np.full((4, 3), SECRET, np.float32)
        o["vars/1"] = np.full((3,), SECRET, np.float32)
    return str(path)


# -- whether a file was opened: Linux's inotify (HDF5 opens files in C, unseen by audit hooks)
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_IN_OPEN, _IN_ACCESS, _IN_NONBLOCK = 0x20, 0x1, 0o4000


@contextlib.contextmanager
def _watch(path):
    """Yields a list that holds, after the block, True when `path` was opened or read."""
    if _libc is None:
        pytest.skip("needs Linux's inotify")
    fd = _libc.inotify_init1(_IN_NONBLOCK)
    assert fd >= 0 and _libc.inotify_add_watch(fd, os.fsencode(path), _IN_OPEN | _IN_ACCESS) >= 0
    opened = []
    try:
        yield opened
        try:
            opened.append(len(os.read(fd, 4096)) > 0)
        except BlockingIOError:
            opened.append(False)
    finally:
        os.close(fd)


def test_the_watch_sees_hdf5_open_a_file(tmp_path):
    outside = _outside_h5(tmp_path)
    with _watch(outside) as opened:
        with h5py.File(outside, "r") as f:
            f["data"][()]
    assert opened == [True]


def _refused(model, path, *texts, skip_mismatch=False):
    """Loads `path`, expecting Keras's ValueError with `texts`; asserts no variable changed."""
    with pytest.raises(ValueError) as info:
        model.load_weights(path, skip_mismatch=skip_mismatch)
    for text in texts:
        assert text in str(info.value)
    assert _unchanged(model), "a refused load changed a variable"
    return str(info.value)


def _refused_in_bounded_memory(model, path, *texts):
    """`_refused`, with the load's traced memory under 4 MiB (`model` is built before)."""
    tracemalloc.start()
    try:
        _refused(model, path, *texts)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MIB


# -- other files: external storage, external and soft links, virtual datasets -----------------

@pytest.mark.parametrize("skip_mismatch", [False, True])
def test_external_raw_storage_is_refused_and_never_read(saved, tmp_path, skip_mismatch):
    secret = tmp_path / "secret.bin"
    np.full((4, 3), SECRET, np.float32).tofile(secret)
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, KERNEL, shape=(4, 3), dtype="f4", external=[(str(secret), 0, 48)]))
    model = _model()
    with _watch(secret) as opened:
        # Keras 3.15.1: ValueError "A total of 1 objects could not be loaded. ... Not allowed:
        # H5 file with external Dataset: [('.../secret.bin', 0, 48)]" (Keras warns instead
        # under skip_mismatch=True; a hostile file is never skipped in tapeflow).
        _refused(model, path, "A total of 1 objects could not be loaded",
                 "Not allowed: H5 file with external Dataset", str(secret),
                 skip_mismatch=skip_mismatch)
    assert opened == [False]


def test_external_link_to_a_dataset_is_refused_and_not_followed(saved, tmp_path):
    outside = _outside_h5(tmp_path)
    path = _crafted(saved, tmp_path, lambda f: (
        f.__delitem__(KERNEL), f.__setitem__(KERNEL, h5py.ExternalLink(outside, "/data"))))
    model = _model()
    with _watch(outside) as opened:
        # Keras 3.15.1: wrapped, "... Not allowed: H5 file with ExternalLink"
        _refused(model, path, "A total of 1 objects could not be loaded",
                 "Not allowed: H5 file with ExternalLink")
    assert opened == [False]


@pytest.mark.parametrize("linked", ["layers/dense/vars", "layers/dense", "layers"])
def test_external_link_to_a_group_is_refused_and_not_followed(saved, tmp_path, linked):
    outside = _outside_h5(tmp_path)
    target = "/vars" if linked.endswith("vars") else "/"
    path = _crafted(saved, tmp_path, lambda f: (
        f.__delitem__(linked), f.__setitem__(linked, h5py.ExternalLink(outside, target))))
    model = _model()
    with _watch(outside) as opened:
        # Keras 3.15.1: ValueError("Not allowed: H5 file with ExternalLink"), not wrapped
        message = _refused(model, path, "Not allowed: H5 file with ExternalLink")
    assert message == "Not allowed: H5 file with ExternalLink"
    assert opened == [False]


def test_external_link_to_a_missing_file_is_refused_the_same(saved, tmp_path):
    """The refusal reads the link, never its target: a target that does not exist changes
    nothing (Keras, which looks the path up first, would find nothing and load the rest)."""
    path = _crafted(saved, tmp_path, lambda f: (
        f.__delitem__("layers/dense/vars"),
        f.__setitem__("layers/dense/vars", h5py.ExternalLink(str(tmp_path / "none.h5"), "/"))))
    _refused(_model(), path, "Not allowed: H5 file with ExternalLink")


def test_soft_link_to_a_dataset_outside_its_group_is_refused(saved, tmp_path):
    def edit(f):
        f["elsewhere"] = np.full((4, 3), SECRET, np.float32)
        del f[KERNEL]
        f[KERNEL] = h5py.SoftLink("/elsewhere")
    # Keras 3.15.1: wrapped, "... Not allowed: H5 file with SoftLink"
    _refused(_model(), _crafted(saved, tmp_path, edit), "A total of 1 objects could not be "
             "loaded", "Not allowed: H5 file with SoftLink")


def test_soft_link_to_a_group_is_refused(saved, tmp_path):
    def edit(f):
        f["elsewhere/vars/0"] = np.full((4, 3), SECRET, np.float32)
        f["elsewhere/vars/1"] = np.full((3,), SECRET, np.float32)
        del f["layers/dense/vars"]
        f["layers/dense/vars"] = h5py.SoftLink("/elsewhere/vars")
    # Keras 3.15.1: ValueError("Not allowed: H5 file with SoftLink"), not wrapped
    message = _refused(_model(), _crafted(saved, tmp_path, edit),
                       "Not allowed: H5 file with SoftLink")
    assert message == "Not allowed: H5 file with SoftLink"


def test_virtual_dataset_is_refused_and_its_source_not_opened(saved, tmp_path):
    outside = _outside_h5(tmp_path)

    def edit(f):
        layout = h5py.VirtualLayout(shape=(4, 3), dtype="f4")
        layout[:] = h5py.VirtualSource(outside, "data", shape=(4, 3))
        del f[KERNEL]
        f.create_virtual_dataset(KERNEL, layout)
    path = _crafted(saved, tmp_path, edit)
    model = _model()
    with _watch(outside) as opened:
        # Keras 3.15.1: wrapped, "... Not allowed: H5 file with virtual Dataset"
        _refused(model, path, "Not allowed: H5 file with virtual Dataset")
    assert opened == [False]


def test_links_nothing_walks_to_are_not_looked_at(saved, tmp_path):
    """As Keras 3.15.1 (which loads this file): only the model's own paths are read."""
    outside = _outside_h5(tmp_path)
    path = _crafted(saved, tmp_path,
                    lambda f: f.__setitem__("unused", h5py.ExternalLink(outside, "/data")))
    model = _model()
    with _watch(outside) as opened:
        model.load_weights(path)
    assert opened == [False]
    assert all(np.array_equal(a, b) for a, b in zip(_values(model), saved[1]))


# -- sizes: variable counts, shapes, dtypes and declared bytes, checked before reading --------

def test_a_count_that_differs_is_refused_before_reading(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: f.__setitem__(
        "layers/dense/vars/2", np.zeros((3,), np.float32)))
    # Keras 3.15.1: "Layer 'dense' expected 2 variables, but received 3 variables during
    # loading. Expected: ['kernel', 'bias']" wrapped in "A total of 1 objects ..."
    _refused(_model(), path, "A total of 1 objects could not be loaded", "expected 2 variables,"
             " but received 3 variables during loading. Expected: ['kernel', 'bias']")


def test_a_missing_dataset_name_is_keras_key_error_text(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: f.move("layers/dense/vars/1",
                                                      "layers/dense/vars/x"))
    # Keras 3.15.1: the KeyError '1' inside "A total of 1 objects could not be loaded"
    message = _refused(_model(), path, "A total of 1 objects could not be loaded")
    assert "\n\n'1'\n\n" in message


@pytest.mark.parametrize("shape", [(2 ** 31,), (2 ** 16, 2 ** 15)])
def test_a_shape_bomb_is_refused_without_allocating(saved, tmp_path, shape):
    """8 GiB declared, nothing stored (chunked, compressed, never written)."""
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, KERNEL, shape=shape, dtype="f4", chunks=(1024,) * len(shape), compression="gzip"))
    assert os.path.getsize(path) < 64 * 1024
    # Keras 3.15.1: "Not allowed: H5 dataset '0' declares 8.00 GB but only 0.00 B are
    # stored on disk; refusing to load a potential decompression/shape bomb."
    _refused_in_bounded_memory(_model(), path, "Not allowed: H5 dataset '0' declares 8.00 GB but "
                               "only 0.00 B are stored on disk; refusing to load a potential "
                               "decompression/shape bomb.")


def test_a_wrong_shape_under_kerass_bomb_floor_is_refused_without_reading(saved, tmp_path):
    """400 MB declared (Keras 3.15.1 reads it all, then fails on the shape): refused from
    the dataset's metadata with Keras's shape error."""
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, KERNEL, shape=(10 ** 8,), dtype="f4", chunks=(MIB,), compression="gzip"))
    _refused_in_bounded_memory(_model(), path, "The shape of the target variable and the shape of "
                               "the target value in `variable.assign(value)` must match. "
                               "variable.shape=(4, 3), Received: value.shape=(100000000,)")


def test_wide_items_are_refused_without_allocating(saved, tmp_path):
    """(4, 3) items of 100 MB each: Keras 3.15.1 allocates 1.2 GB, then fails to parse."""
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, KERNEL, shape=(4, 3), dtype="S100000000", chunks=(1, 1), compression="gzip"))
    _refused_in_bounded_memory(_model(), path, "Not allowed: H5 dataset '0' has dtype |S100000000")


def test_a_chunk_larger_than_its_dataset_is_refused_before_hdf5_inflates_it(saved, tmp_path):
    """A (4, 3) kernel in one gzip chunk of 64 MiB (64 KiB on disk): reading 48 bytes would
    make HDF5 inflate the whole chunk in its own (untraced) memory; Keras 3.15.1 does. A
    4 GiB chunk takes a 4 MiB file."""
    import zlib
    rows, cols = 2 ** 14, 2 ** 10   # float32: 64 MiB

    def edit(f):
        dataset = _replace(f, KERNEL, shape=(4, 3), maxshape=(None, None), dtype="f4",
                           chunks=(rows, cols), compression="gzip")
        deflate, zeros = zlib.compressobj(9), bytes(MIB)
        body = b"".join(deflate.compress(zeros) for _ in range(rows * cols * 4 // MIB))
        dataset.id.write_direct_chunk((0, 0), body + deflate.flush())
    path = _crafted(saved, tmp_path, edit)
    assert os.path.getsize(path) < MIB
    _refused(_model(), path, "Not allowed: H5 dataset '0' declares chunks of 64.00 MB for "
             "48.00 B of data; refusing to load a potential decompression bomb.")


@pytest.mark.parametrize("data", [
    np.zeros((4, 3), dtype=[("a", "f4"), ("b", "f4")]),   # Keras: numpy's cast TypeError text
    np.array([[b"1"] * 3] * 4, dtype=object),              # Keras parses these; unbounded bytes
])
def test_records_and_variable_length_items_are_refused(saved, tmp_path, data):
    kwargs = {"dtype": h5py.string_dtype()} if data.dtype == object else {}
    path = _crafted(saved, tmp_path, lambda f: _replace(f, KERNEL, data=data, **kwargs))
    _refused(_model(), path, "A total of 1 objects could not be loaded",
             "a variable loads from numbers only")


def test_text_that_is_no_number_fails_as_in_keras(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, KERNEL, data=np.array([[b"a"] * 3] * 4, dtype="S1")))
    # Keras 3.15.1: wrapped, "could not convert string to float: np.bytes_(b'a')"
    _refused(_model(), path, "could not convert string to float: np.bytes_(b'a')")


@pytest.mark.parametrize("data, expected", [
    # measured with Keras 3.15.1: these load, converted to the kernel's float32
    (np.arange(12, dtype=np.int64).reshape(4, 3), np.arange(12).reshape(4, 3)),
    (np.full((4, 3), 0.5, np.float64), np.full((4, 3), 0.5)),
    (np.ones((4, 3), bool), np.ones((4, 3))),
    (np.array([[b"1.5"] * 3] * 4, dtype="S3"), np.full((4, 3), 1.5)),
])
def test_dtypes_keras_loads_load_with_kerass_values(saved, tmp_path, data, expected):
    path = _crafted(saved, tmp_path, lambda f: _replace(f, KERNEL, data=data))
    model = _model()
    model.load_weights(path)
    kernel = model.layers[0].kernel.numpy()
    assert kernel.dtype == np.float32 and np.array_equal(kernel, expected.astype(np.float32))


@pytest.mark.parametrize("marked", [True, False])
def test_bfloat16_loads_only_with_kerass_mark(saved, tmp_path, marked):
    """Keras writes bfloat16 as 2 opaque bytes with attribute dtype='bfloat16' and reads it
    back as bfloat16 (1.5 here, measured with Keras 3.15.1); opaque bytes without it are no
    number."""
    ml_dtypes = pytest.importorskip("ml_dtypes")

    def edit(f):
        dataset = _replace(f, KERNEL, data=np.full((4, 3), 1.5, ml_dtypes.bfloat16))
        if marked:
            dataset.attrs["dtype"] = "bfloat16"
    path = _crafted(saved, tmp_path, edit)
    model = _model()
    if marked:
        model.load_weights(path)
        assert np.array_equal(model.layers[0].kernel.numpy(), np.full((4, 3), 1.5, np.float32))
    else:
        _refused(model, path, "Not allowed: H5 dataset '0' has dtype |V2")


# -- damaged structure -------------------------------------------------------------------------

def test_a_dataset_where_a_group_belongs_is_refused(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: (
        f.__delitem__("layers/dense/vars"), f.__setitem__("layers/dense/vars", np.zeros(3))))
    # Keras 3.15.1: ValueError, not wrapped
    _refused(_model(), path, "Invalid H5 file, expected Group but received <class "
             "'h5py._hl.dataset.Dataset'>")


def test_a_group_where_a_dataset_belongs_is_refused(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: (f.__delitem__(KERNEL), f.create_group(KERNEL)))
    # Keras 3.15.1: wrapped
    _refused(_model(), path, "Invalid H5 file, expected Dataset, received <class "
             "'h5py._hl.group.Group'>")


# -- all or nothing --------------------------------------------------------------------------

def test_a_failure_in_a_later_layer_assigns_nothing(saved, tmp_path):
    """Keras 3.15.1 assigns the first Dense, then raises for the second; tapeflow's load is
    all or nothing."""
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, "layers/dense_1/vars/0", data=np.ones((9, 2), np.float32)))
    _refused(_model(), path, "A total of 1 objects could not be loaded",
             "variable.shape=(3, 2), Received: value.shape=(9, 2)")


def test_skip_mismatch_loads_every_object_but_the_failed_one(saved, tmp_path):
    path = _crafted(saved, tmp_path, lambda f: _replace(
        f, "layers/dense_1/vars/0", data=np.ones((9, 2), np.float32)))
    model = _model()
    with pytest.warns(UserWarning, match="A total of 1 objects could not be loaded"):
        model.load_weights(path, skip_mismatch=True)
    values, expected = _values(model), saved[1]
    dense_1 = [2, 3]   # its kernel and bias: neither assigned
    for i, (value, want) in enumerate(zip(values, expected)):
        assert np.all(value == OLD) if i in dense_1 else np.array_equal(value, want)


# -- the optimizer: only what Keras reads ---------------------------------------------------

@pytest.mark.parametrize("extra", ["zeros", "bomb", "external_link", "group"])
def test_an_optimizer_count_that_differs_skips_it_unread(saved, tmp_path, extra):
    """Keras 3.15.1 loads these files: it warns, skips the optimizer and reads none of its
    datasets, so neither does tapeflow (the model's weights load)."""
    outside = _outside_h5(tmp_path)

    def edit(f):
        name = "optimizer/vars/10"
        if extra == "zeros":
            f[name] = np.zeros(3, np.float32)
        elif extra == "bomb":
            f.create_dataset(name, shape=(2 ** 31,), dtype="f4", chunks=(MIB,), compression="gzip")
        elif extra == "external_link":
            f[name] = h5py.ExternalLink(outside, "/data")
        else:
            f.create_group(name)
    path = _crafted(saved, tmp_path, edit)
    model = _model()
    with _watch(outside) as opened, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.load_weights(path)
    assert opened == [False]
    assert any("Skipping variable loading for optimizer 'adam" in str(w.message) and
               "it has 10 variables whereas the saved optimizer has 11 variables" in
               str(w.message) for w in caught)
    values, expected = _values(model), saved[1]
    assert all(np.array_equal(v, e) for v, e in zip(values[:4], expected[:4]))
    assert all(np.all(v == OLD) for v in values[4:])


# -- the same reader behind `.keras` archives and tapeflow's older npz weights ----------------

def test_a_keras_archive_with_an_external_link_is_refused(tmp_path):
    import zipfile
    outside = _outside_h5(tmp_path)
    archive = tmp_path / "model.keras"
    _model().save(str(archive))
    weights = tmp_path / "inner.weights.h5"
    with zipfile.ZipFile(archive) as z:
        members = {name: z.read(name) for name in z.namelist()}
    weights.write_bytes(members["model.weights.h5"])
    with h5py.File(weights, "a") as f:
        del f["layers/dense/vars"]
        f["layers/dense/vars"] = h5py.ExternalLink(outside, "/vars")
    members["model.weights.h5"] = weights.read_bytes()
    with zipfile.ZipFile(archive, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with _watch(outside) as opened, pytest.raises(ValueError,
                                                   match="Not allowed: H5 file with ExternalLink"):
        keras.saving.load_model(str(archive))
    assert opened == [False]


def test_older_npz_weights_load_all_or_nothing(tmp_path):
    other = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(5)])
    path = str(tmp_path / "other.weights.npz")
    other.save_weights(path)
    model = _model()
    with pytest.raises(ValueError, match="has shape"):
        model.load_weights(path)   # the first Dense matches, the second does not
    assert _unchanged(model)
