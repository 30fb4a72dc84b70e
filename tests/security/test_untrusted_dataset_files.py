"""`tf.data.Dataset.load(path)` and `cache(filename)` on files someone else wrote: each case is
a crafted file under tmp_path.

Nothing in such a file runs: a pickle (the format of tapeflow before 2026-12, or one planted
under the new names) is refused unread; a crafted or corrupt archive raises DataLossError (TF's
class for a corrupt snapshot) before any element is built; a missing one NotFoundError.
Round trips of every element kind give equal elements. TensorFlow's answers were measured with
TF 2.21 / Keras 3.15.1 (noted where used).
"""

import collections
import io
import json
import os
import pickle
import random
import tracemalloc
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework import npz_format as _format

from _audit_paths import paths_touched

D = tf.data.Dataset
FILE = "tapeflow-dataset.npz"
P = collections.namedtuple("P", ["a", "b"])

class _Marker:
    """Unpickling one creates the file `path`: the proof that a pickle ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _save(tmp_path, dataset, name="saved"):
    path = str(tmp_path / name)
    dataset.save(path)
    return path


def _arrays(path):
    """The arrays of a saved dataset, without the archive's own `__format__`/`__keys__`."""
    with np.load(os.path.join(path, FILE), allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files if k not in ("__format__", "__keys__")}


def _meta(arrays):
    return json.loads(str(arrays["__meta__"]))


def _rewrite(path, arrays, meta=None):
    """Writes `arrays` (with `meta` as `__meta__` where given) as the dataset at `path`."""
    arrays = dict(arrays)
    if meta is not None:
        arrays["__meta__"] = np.array(json.dumps(meta))
    # as _format.write_arrays writes them, without its fsync (the fuzz writes hundreds)
    np.savez(os.path.join(path, FILE), __format__=np.array(_format.FORMAT),
             __keys__=np.array(sorted(arrays), dtype=np.str_), **arrays)


def _values(dataset):
    """The elements as plain Python values (nests of lists, bytes, numbers)."""
    def plain(leaf):
        if isinstance(leaf, tf.SparseTensor):
            return ("sparse", leaf.indices.numpy().tolist(), leaf.values.numpy().tolist(),
                    leaf.dense_shape.numpy().tolist())
        if isinstance(leaf, tf.RaggedTensor):
            return ("ragged", leaf.to_list())
        return np.asarray(leaf.numpy()).tolist()
    return [tf.nest.map_structure(plain, e) for e in dataset]


# -- code never runs ------------------------------------------------------------------------

def test_a_dataset_in_the_old_pickle_format_is_refused_unread(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "old"
    path.mkdir()
    (path / "tapeflow-dataset.pickle").write_bytes(pickle.dumps(_Marker(str(marker)), 4))
    with paths_touched() as opened, pytest.raises(tf.errors.DataLossError,
                                                  match="old file format.*format changed"):
        D.load(str(path))
    assert not marker.exists()
    assert str(path / "tapeflow-dataset.pickle") not in opened


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_pickle_under_the_new_name_is_refused_unread(tmp_path, protocol):
    marker = tmp_path / "ran"
    path = tmp_path / "planted"
    path.mkdir()
    (path / FILE).write_bytes(pickle.dumps(_Marker(str(marker)), protocol))
    with pytest.raises(tf.errors.DataLossError, match="Python pickle"):
        D.load(str(path))
    assert not marker.exists()


def test_a_pickled_object_array_inside_the_archive_is_refused(tmp_path):
    marker = tmp_path / "ran"
    path = _save(tmp_path, D.range(3))
    arrays = _arrays(path)
    arrays["l0.p0.data"] = np.array([_Marker(str(marker))], dtype=object)
    buffer = io.BytesIO()
    keys = np.array(sorted(arrays), dtype=np.str_)
    np.savez(buffer, __format__=np.array(_format.FORMAT), __keys__=keys, **arrays)
    (tmp_path / "saved" / FILE).write_bytes(buffer.getvalue())
    with pytest.raises(tf.errors.DataLossError, match="Unable to read the dataset file"):
        D.load(path)
    assert not marker.exists()


def test_a_cache_file_holding_a_pickle_is_refused_unread(tmp_path):
    marker = tmp_path / "ran"
    filename = str(tmp_path / "c")
    with open(filename + ".tapeflow-cache", "wb") as f:
        pickle.dump({"format": "tapeflow-cache-v1", "x": _Marker(str(marker))}, f, protocol=4)
    with pytest.raises(tf.errors.DataLossError, match="format changed"):
        list(D.range(3).cache(filename))
    assert not marker.exists()


def test_load_opens_only_the_dataset_file(tmp_path):
    path = _save(tmp_path, D.from_tensor_slices({"s": [b"x", b"y"], "n": [1, 2]}))
    with paths_touched() as opened:
        D.load(path)
    assert {p for p in opened if p.startswith(str(tmp_path))} == {os.path.join(path, FILE)}


# -- missing and corrupt files -------------------------------------------------------------

def test_a_missing_or_empty_directory_is_not_found(tmp_path):
    # TF 2.21: NotFoundError for both (its text names its own dataset_spec.pb)
    with pytest.raises(tf.errors.NotFoundError, match="Could not find metadata file"):
        D.load(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(tf.errors.NotFoundError, match="Could not find metadata file"):
        D.load(str(tmp_path / "empty"))
    (tmp_path / "empty" / "dataset_spec.pb").write_bytes(b"\n\x00")   # TF's snapshot
    with pytest.raises(tf.errors.NotFoundError, match="holds a TensorFlow snapshot"):
        D.load(str(tmp_path / "empty"))


def test_a_truncated_archive_is_data_loss(tmp_path):
    # TF 2.21: a truncated snapshot shard raises DataLossError ("truncated record")
    path = _save(tmp_path, D.from_tensor_slices(([1.0, 2.0], [b"a", b"bc"])))
    data = open(os.path.join(path, FILE), "rb").read()
    for cut in (0, 1, 10, len(data) // 3, len(data) // 2, len(data) - 22, len(data) - 1):
        with open(os.path.join(path, FILE), "wb") as f:
            f.write(data[:cut])
        with pytest.raises(tf.errors.DataLossError, match="Unable to read the dataset file"):
            D.load(path)


@pytest.mark.parametrize("dtype", ["object", "float128", "__import__", "os.system", 7, None,
                                   "DType"])
def test_an_unknown_dtype_name_is_data_loss(tmp_path, dtype):
    path = _save(tmp_path, D.range(3))
    arrays = _arrays(path)
    meta = _meta(arrays)
    meta["element_spec"]["dtype"] = dtype
    _rewrite(path, arrays, meta)
    with pytest.raises(tf.errors.DataLossError, match="is not one of tapeflow's dtypes"):
        D.load(path)


def _strings_file(tmp_path):
    path = _save(tmp_path, D.from_tensor_slices([b"ab\x00", b"", b"cde"]))
    return path, _arrays(path)


@pytest.mark.parametrize("lengths", [[3, 0, 2], [3, 0, 4], [3, 3], [3, 0, 3, 0], [-1, 4, 3],
                                     [2**62, 2**62, 2**62 - 6], [7, 0, -1]])
def test_string_lengths_that_do_not_match_the_bytes_are_data_loss(tmp_path, lengths):
    path, arrays = _strings_file(tmp_path)
    arrays["l0.p0.lengths"] = np.array(lengths, np.int64)
    _rewrite(path, arrays)
    with pytest.raises(tf.errors.DataLossError, match="string lengths"):
        D.load(path)


@pytest.mark.parametrize("ranks, dims", [([1, 0, 0], [1]),        # () specs, a (1,) element
                                         ([0, 0], []),              # two elements for three
                                         ([0, 0, 65], [1] * 65),    # beyond NumPy's rank
                                         ([0, 0, 1], [-1]),
                                         ([0, 0, 1], [])])
def test_shapes_that_do_not_match_the_spec_are_data_loss(tmp_path, ranks, dims):
    path = _save(tmp_path, D.range(3))
    arrays = _arrays(path)
    arrays["l0.p0.ranks"] = np.array(ranks, np.int64)
    arrays["l0.p0.dims"] = np.array(dims, np.int64)
    _rewrite(path, arrays)
    with pytest.raises(tf.errors.DataLossError,
                       match="does not match its spec|shapes|dims|values"):
        D.load(path)


def test_a_shape_claiming_huge_data_is_refused_before_allocating(tmp_path):
    path = _save(tmp_path, D.range(2).map(lambda x: tf.fill([2], x)))
    arrays = _arrays(path)
    arrays["l0.p0.dims"] = np.array([2**31, 2**31, 2, 2], np.int64)
    arrays["l0.p0.ranks"] = np.array([2, 2], np.int64)
    meta = _meta(arrays)
    meta["element_spec"]["shape"] = None
    _rewrite(path, arrays, meta)
    tracemalloc.start()
    try:
        with pytest.raises(tf.errors.DataLossError, match="its shapes need"):
            D.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20   # the claim is 2**65 values; the file is a few hundred bytes


@pytest.mark.parametrize("change", [
    lambda a: a.update({"l0.p0.data": a["l0.p0.data"].astype(">i8")}),    # byte order
    lambda a: a.update({"l0.p0.data": a["l0.p0.data"].astype(np.int32)}),
    lambda a: a.update({"l0.p0.data": a["l0.p0.data"].reshape(1, -1)}),
    lambda a: a.update({"l0.p0.data": a["l0.p0.data"][:-1]}),
    lambda a: a.update({"extra": np.zeros(1)}),
    lambda a: a.pop("l0.p0.dims"),
    lambda a: a.pop("__meta__"),
    lambda a: a.update({"__meta__": np.array(b"{}")}),
    lambda a: a.update({"__meta__": np.array("not json")}),
    lambda a: a.update({"__meta__": np.array("[" * 100000 + "]" * 100000)}),
], ids=["big-endian", "int32", "2-d", "short", "extra", "no-dims", "no-meta", "bytes-meta",
        "not-json", "deep-json"])
def test_crafted_arrays_are_data_loss(tmp_path, change):
    path = _save(tmp_path, D.range(3))
    arrays = _arrays(path)
    change(arrays)
    _rewrite(path, arrays)
    with pytest.raises(tf.errors.DataLossError, match="Unable to read the dataset file"):
        D.load(path)


@pytest.mark.parametrize("edit, words", [
    (lambda m: m.update(version=1), "version"),
    (lambda m: m.update(version=3), "version"),
    (lambda m: m.update(format="tapeflow-cache"), "not a 'tapeflow-dataset' file"),
    (lambda m: m.update(num_elements=-1), "not a count"),
    (lambda m: m.update(num_elements=True), "not a count"),
    (lambda m: m.update(num_elements=4), "ranks or dims"),
    (lambda m: m.update(extra=1), "exactly the keys"),
    (lambda m: m["element_spec"].update(type="pickle"), "no known type"),
    (lambda m: m["element_spec"].update(shape=[3]), "does not match its spec"),
    (lambda m: m["element_spec"].update(shape=[2**63]), "not a list of sizes"),
    (lambda m: m["element_spec"].update(shape="()"), "not a list of sizes"),
    (lambda m: m.update(element_spec={"type": "tuple", "items": [m["element_spec"]] * 2}),
     "do not match its element_spec"),
    (lambda m: m.update(element_spec=_nested(m["element_spec"], 150)), "nested deeper"),
    (lambda m: m.update(element_spec={"type": "dict", "items": [["a", m["element_spec"]],
                                                                [1, m["element_spec"]]]}),
     "mix strings and ints"),
])
def test_crafted_metadata_is_data_loss(tmp_path, edit, words):
    path = _save(tmp_path, D.range(3))
    arrays = _arrays(path)
    meta = _meta(arrays)
    edit(meta)
    _rewrite(path, arrays, meta)
    with pytest.raises(tf.errors.DataLossError, match=words):
        D.load(path)


def _nested(leaf, depth):
    for _ in range(depth):
        leaf = {"type": "tuple", "items": [leaf]}
    return leaf


@pytest.mark.parametrize("name, fields", [
    ("os.system", ["a", "b"]), ("__import__", ["a", "b"]), ("P", ["a", "a"]),
    ("P", ["_a", "b"]), ("P", ["class", "b"]), ("P", "a b"), (7, ["a", "b"]),
    ("P", ["a"]), ("P", ["a", "b", "c"])])
def test_hostile_namedtuple_names_are_data_loss(tmp_path, name, fields):
    path = _save(tmp_path, D.from_tensor_slices(P([1, 2], [3.0, 4.0])))
    arrays = _arrays(path)
    meta = _meta(arrays)
    meta["element_spec"].update(name=name, fields=fields)
    _rewrite(path, arrays, meta)
    with pytest.raises(tf.errors.DataLossError, match="namedtuple"):
        D.load(path)


def test_a_namedtuple_is_rebuilt_as_a_new_class_never_looked_up(tmp_path):
    path = _save(tmp_path, D.from_tensor_slices(P([1, 2], [3.0, 4.0])))
    arrays = _arrays(path)
    meta = _meta(arrays)
    meta["element_spec"].update(name="OrderedDict", fields=["a", "b"])
    _rewrite(path, arrays, meta)
    spec = D.load(path).element_spec
    assert type(spec).__name__ == "OrderedDict" and type(spec) is not collections.OrderedDict
    assert type(spec)._fields == ("a", "b")


def test_invalid_sparse_and_ragged_components_are_data_loss(tmp_path):
    sparse = _save(tmp_path, D.from_tensor_slices(
        tf.sparse.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])), "sparse")
    arrays = _arrays(sparse)
    arrays["l0.p0.data"] = np.array([7, 0], np.int64)    # index 7 of a dense shape [3]
    _rewrite(sparse, arrays)
    with pytest.raises(tf.errors.DataLossError, match="out of bounds"):
        D.load(sparse)
    ragged = _save(tmp_path, D.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]])),
                   "ragged")
    arrays = _arrays(ragged)
    arrays["l0.p1.data"] = arrays["l0.p1.data"][::-1].copy()   # splits not starting at 0
    _rewrite(ragged, arrays)
    with pytest.raises(tf.errors.DataLossError, match="row splits are invalid"):
        D.load(ragged)


# -- round trips ----------------------------------------------------------------------------

ROUND_TRIPS = {
    "int": lambda: D.range(5),
    "float": lambda: D.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2)),
    "float64-complex-bool": lambda: D.from_tensor_slices(
        (np.array([1.5, -2.0]), np.array([1 + 2j, 3j], np.complex64), [True, False])),
    "string-with-nuls": lambda: D.from_tensor_slices([b"a\x00b", b"", "h\u00e9llo", b"\x00"]),
    "string-matrix": lambda: D.from_tensors([[b"x", b"yy"], [b"", b"\x00z"]]),
    "nested-dict-tuple": lambda: D.from_tensor_slices(
        {"x": [1, 2], "y": {"z": [b"q", b"r"]}, "t": ([1.0, 2.0], [3, 4])}),
    "int-keys": lambda: D.from_tensor_slices({2: [1, 2], 1: [3, 4]}),
    "variable-length": lambda: D.range(4).map(lambda x: tf.range(x)),
    "unknown-rank": lambda: D.from_generator(lambda: iter([np.zeros((2, 1)), np.ones(3)]),
                                             output_signature=tf.TensorSpec(None, tf.float64)),
    "empty": lambda: D.range(0),
    "bfloat16": lambda: D.from_tensor_slices(tf.constant([1.5, 2.0], tf.bfloat16)),
    "sparse": lambda: D.from_tensor_slices(
        tf.sparse.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])),
    "sparse-strings": lambda: D.from_tensor_slices(
        tf.sparse.SparseTensor([[0, 1], [1, 0]], [b"x", b"y\x00"], [2, 3])),
    "ragged": lambda: D.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]])),
    "ragged-batched": lambda: D.from_tensor_slices(tf.ragged.constant([[1, 2], [3]])).batch(2),
    "ragged-uniform-inner": lambda: D.from_tensor_slices(
        tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_round_trips_give_equal_elements(tmp_path, name):
    dataset = ROUND_TRIPS[name]()
    loaded = D.load(_save(tmp_path, dataset))
    assert loaded.element_spec == dataset.element_spec
    assert _values(loaded) == _values(dataset)


def test_a_namedtuple_comes_back_as_a_namedtuple_of_its_name_and_fields(tmp_path):
    # TF 2.21: Dataset.load gives a namedtuple class made from the saved name and fields
    # (module nested_structure_coder), not the class that was saved.
    loaded = D.load(_save(tmp_path, D.from_tensor_slices(P([1, 2], [3.0, 4.0]))))
    spec = loaded.element_spec
    assert type(spec) is not P and type(spec).__name__ == "P" and spec._fields == ("a", "b")
    assert [tuple(v.numpy() for v in e) for e in loaded] == [(1, 3.0), (2, 4.0)]
    assert all(type(e) is type(spec) for e in loaded)


def test_load_with_an_element_spec_checks_and_repacks(tmp_path):
    path = _save(tmp_path, D.range(3).map(lambda x: (x, x)))
    spec = {"a": tf.TensorSpec([], tf.int64), "b": tf.TensorSpec([], tf.int64)}
    # TF 2.21 gives the saved components in the requested structure
    assert _values(D.load(path, element_spec=spec))[1] == {"a": 1, "b": 1}
    # TF 2.21's texts (it raises them on the first element read)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Data type mismatch at component 1: expected int32 but got int64"):
        D.load(path, element_spec=(tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int32)))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes at component 0: expected \[2\] but got \[\]"):
        D.load(path, element_spec=(tf.TensorSpec([2], tf.int64), tf.TensorSpec([], tf.int64)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Number of components mismatch"):
        D.load(path, element_spec=tf.TensorSpec([], tf.int64))


# -- cache(filename) ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["string-with-nuls", "nested-dict-tuple", "sparse", "ragged",
                                  "variable-length"])
def test_cache_files_round_trip(tmp_path, name):
    filename = str(tmp_path / "c")
    first = ROUND_TRIPS[name]().cache(filename)
    expected = _values(first)
    assert os.path.exists(filename + ".tapeflow-cache")
    again = ROUND_TRIPS[name]().cache(filename)     # a new pipeline reads the file
    assert _values(again) == expected


def test_a_cache_file_of_another_dtype_is_refused(tmp_path):
    filename = str(tmp_path / "c")
    list(D.range(3).cache(filename))
    # TF 2.21's text for reading an int64 cache into a float32 pipeline
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Data type mismatch at component 0: expected float but got int64"):
        list(D.range(3).map(lambda x: tf.cast(x, tf.float32)).cache(filename))


def test_a_dataset_file_is_not_a_cache_file(tmp_path):
    path = _save(tmp_path, D.range(3))
    filename = str(tmp_path / "c")
    os.replace(os.path.join(path, FILE), filename + ".tapeflow-cache")
    with pytest.raises(tf.errors.DataLossError, match="not a 'tapeflow-cache' file"):
        list(D.range(3).cache(filename))


# -- fuzz -----------------------------------------------------------------------------------

def _mutate_array(rng, array):
    """A random change to one array: its values, length, dtype or shape."""
    choice = rng.randrange(5)
    if choice == 0 and array.size:
        array = array.copy()
        flat = array.reshape(-1)
        value = np.array(rng.choice([-1, 0, 1, 2**31, -2**62, 255, 7]))
        flat[rng.randrange(flat.size)] = value.astype(array.dtype, casting="unsafe")
        return array
    if choice == 1:
        return array[:rng.randrange(array.size + 1)] if array.ndim else array
    if choice == 2:
        return np.concatenate([array.reshape(-1), array.reshape(-1)])
    if choice == 3:
        return array.astype(rng.choice([np.int32, np.float64, np.uint8, np.int64]))
    return array.reshape(-1, 1) if array.ndim else array.reshape(1)


def _mutate_json(rng, node):
    """`node` with one value somewhere replaced by junk."""
    junk = [None, -1, 2**64, "float128", "tuple", [], {}, [None], "x" * 3, 1.5, True]
    if isinstance(node, dict) and node:
        key = rng.choice(sorted(node, key=str))
        return {**node, key: _mutate_json(rng, node[key]) if rng.random() < 0.6
                else rng.choice(junk)}
    if isinstance(node, list) and node:
        i = rng.randrange(len(node))
        return node[:i] + [_mutate_json(rng, node[i])] + node[i + 1:]
    return rng.choice(junk)


FUZZ_SOURCES = ["nested-dict-tuple", "sparse-strings", "ragged", "variable-length"]


def test_fuzzed_arrays_and_metadata_raise_only_data_loss(tmp_path):
    rng = random.Random(8)
    refused = 0
    saved = {name: _save(tmp_path, ROUND_TRIPS[name](), name) for name in FUZZ_SOURCES}
    originals = {name: _arrays(path) for name, path in saved.items()}
    for case in range(320):
        name = FUZZ_SOURCES[case % len(FUZZ_SOURCES)]
        path, arrays = saved[name], dict(originals[name])
        if case % 2:
            key = rng.choice(sorted(k for k in arrays if k != "__meta__"))
            arrays[key] = _mutate_array(rng, arrays[key])
            _rewrite(path, arrays)
        else:
            _rewrite(path, arrays, _mutate_json(rng, _meta(arrays)))
        try:
            _values(D.load(path))
        except tf.errors.DataLossError:
            refused += 1
    assert refused > 200   # most mutations break a checked invariant


def test_fuzzed_bytes_raise_only_data_loss(tmp_path):
    path = _save(tmp_path, D.from_tensor_slices({"s": [b"ab", b"\x00"], "n": [[1, 2], [3, 4]]}))
    original = open(os.path.join(path, FILE), "rb").read()
    rng = random.Random(8)
    for _ in range(250):
        data = bytearray(original)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[:rng.randrange(len(data))]
        with open(os.path.join(path, FILE), "wb") as f:
            f.write(bytes(data))
        try:
            _values(D.load(path))
        except tf.errors.DataLossError:
            pass


def test_a_zip_with_a_compressed_member_is_data_loss(tmp_path):
    path = _save(tmp_path, D.range(3))
    target = os.path.join(path, FILE)
    with zipfile.ZipFile(target) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    with pytest.raises(tf.errors.DataLossError, match="compressed"):
        D.load(path)
