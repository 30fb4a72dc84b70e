"""Checkpoints, their `checkpoint` state file and the temporaries of atomic writes, as an
attacker (or a crash) leaves them: each case is a crafted directory under tmp_path.

A planted state file must not make a CheckpointManager delete, or a restore read, anything but
the manager's own checkpoints; a crafted checkpoint raises TensorFlow's error class before
anything is assigned or allocated; a writer killed mid-write leaves a temporary that the next
write of the same target removes, while a live writer's temporary and unrelated files stay.
TensorFlow's answers were measured with TF 2.21 / Keras 3.15.1 (noted where used).
"""

import hashlib
import io
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework import npz_format as _format

from _audit_paths import paths_touched

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


# -- recording which files a call opens, removes or renames (Python's audit events) ----------

def _touched():
    """Yields the list of paths opened, removed or renamed inside the block."""
    return paths_touched(("open", "os.remove", "os.rename", "os.rmdir"))


def _outside(paths, root, inside):
    """The paths under `root` (the test's tmp_path) that are not under `inside`."""
    root, inside = str(root), str(inside)
    return [p for p in paths if p.startswith(root + os.sep) and
            not (p == inside or p.startswith(inside + os.sep))]


def _snapshot(root, skip):
    """{path: sha256} of every file under `root` except those under `skip`."""
    found = {}
    for directory, _, names in os.walk(root):
        if directory == str(skip) or directory.startswith(str(skip) + os.sep):
            continue
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                found[path] = hashlib.sha256(f.read()).hexdigest()
    return found


def _dead_pid():
    """The pid of a process that has exited (the state a crashed writer leaves)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _age(path, seconds):
    """Sets `path`'s mtime `seconds` back, as if its writer stopped writing that long ago."""
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


# -- a planted `checkpoint` state file ------------------------------------------------------
def _victims(tmp_path):
    """Real checkpoints a planted state file may name: outside the directory, and inside it
    under another prefix."""
    ck = tmp_path / "ck"
    ck.mkdir()
    writer = tf.train.Checkpoint(v=tf.Variable(5.0))
    (tmp_path / "outside").mkdir()
    writer.write(str(tmp_path / "outside" / "x"))
    writer.write(str(tmp_path / "abs"))
    writer.write(str(ck / "other-3"))
    writer.write(str(ck / "ckpt-01"))        # a name `save` never writes
    (tmp_path / "outside" / "notes.txt").write_text("keep me")
    return ck


OUTSIDE_ENTRIES = ["../outside/x", "{root}/abs", "ckpt-1/../../outside/x", "sub/../../abs",
                   "../ck/../outside/x"]
HOSTILE_ENTRIES = OUTSIDE_ENTRIES + ["other-3", "ckpt-01"]


def _plant_state(ck, root, latest, entries, timestamps=True):
    lines = [f'model_checkpoint_path: "{latest.format(root=root)}"']
    lines += [f'all_model_checkpoint_paths: "{e.format(root=root)}"' for e in entries]
    if timestamps:   # what TF writes; with them TF's manager tracks (and deletes) every entry
        lines += ["all_model_checkpoint_timestamps: 1000.0"] * len(entries)
        lines += ["last_preserved_timestamp: 1.0"]
    (ck / "checkpoint").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("timestamps", [True, False])
def test_a_manager_deletes_only_its_own_checkpoints_whatever_the_state_file_lists(
        tmp_path, timestamps):
    ck = _victims(tmp_path)
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.write(str(ck / "ckpt-1"))
    _plant_state(ck, tmp_path, "ckpt-1", HOSTILE_ENTRIES + ["ckpt-1"], timestamps)
    before = _snapshot(tmp_path, ck)
    others = {name: (ck / name).read_bytes() for name in os.listdir(ck)
              if name.startswith(("other-3.", "ckpt-01."))}

    with _touched() as touched:
        manager = tf.train.CheckpointManager(ckpt, str(ck), max_to_keep=1)
        # TF 2.21 lists (with timestamps) '<ck>/../outside/x', '<root>/abs', '<ck>/other-3'
        # and 'ckpt-1' here, and its sweep then deletes all four: tapeflow tracks only its own.
        assert manager.checkpoints == [str(ck / "ckpt-1")]
        for _ in range(3):
            manager.save()
    assert manager.checkpoints == [str(ck / "ckpt-3")]   # the counter started at 0
    assert sorted(os.listdir(ck)) == [
        "checkpoint", "ckpt-01.data-00000-of-00001", "ckpt-01.index",
        "ckpt-3.data-00000-of-00001", "ckpt-3.index", "other-3.data-00000-of-00001",
        "other-3.index"]
    assert _snapshot(tmp_path, ck) == before           # nothing outside ck/ changed
    assert {name: (ck / name).read_bytes() for name in others} == others   # nor others here
    assert _outside(touched, tmp_path, ck) == []        # nor was opened or removed
    state = (ck / "checkpoint").read_text()
    assert state == 'model_checkpoint_path: "ckpt-3"\nall_model_checkpoint_paths: "ckpt-3"\n'


@pytest.mark.parametrize("entry", OUTSIDE_ENTRIES)
def test_a_latest_checkpoint_outside_the_directory_is_neither_returned_nor_read(tmp_path, entry):
    ck = _victims(tmp_path)
    _plant_state(ck, tmp_path, entry, [entry])
    initialized = []
    v = tf.Variable(1.0)
    with _touched() as touched:
        # TF 2.21 returns '<ck>/../outside/x' (and restores from it).
        assert tf.train.latest_checkpoint(str(ck)) is None
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(ck), max_to_keep=2,
                                             init_fn=lambda: initialized.append(True))
        assert manager.latest_checkpoint is None and manager.checkpoints == []
        assert manager.restore_or_initialize() is None and initialized == [True]
        with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
            tf.train.list_variables(str(ck))   # TF 2.21's error
    assert float(v.numpy()) == 1.0
    assert _outside(touched, tmp_path, ck) == []


def test_a_plain_save_keeps_only_the_state_entries_inside_its_directory(tmp_path):
    ck = _victims(tmp_path)
    _plant_state(ck, tmp_path, "../outside/x", ["../outside/x", "{root}/abs", "other-3"])
    path = tf.train.Checkpoint(v=tf.Variable(2.0)).save(str(ck / "ckpt"))
    assert (ck / "checkpoint").read_text() == (
        'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "other-3"\n'
        'all_model_checkpoint_paths: "ckpt-1"\n')
    assert tf.train.latest_checkpoint(str(ck)) == path


def test_the_latest_checkpoint_is_the_state_files_model_checkpoint_path(tmp_path):
    ck = tmp_path / "ck"
    writer = tf.train.Checkpoint(v=tf.Variable(1.0))
    writer.write(str(ck / "ckpt-1"))
    writer.write(str(ck / "ckpt-2"))
    _plant_state(ck, tmp_path, "ckpt-1", ["ckpt-1", "ckpt-2"], timestamps=False)
    assert tf.train.latest_checkpoint(str(ck)) == str(ck / "ckpt-1")   # as TF 2.21


# -- crafted checkpoint files -----------------------------------------------------------------
def _npz(members, compression=zipfile.ZIP_STORED):
    """A zip of `members` ({name: bytes}), as np.savez lays one out."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buffer.getvalue()


def _npy(array=None, header=None):
    """An .npy file: `array`'s, or `array`'s bytes under another `header` dict."""
    buffer = io.BytesIO()
    if header is None:
        np.save(buffer, array, allow_pickle=True)
        return buffer.getvalue()
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + (b"" if array is None else np.asarray(array).tobytes())


def _checkpoint_members(values):
    """The members of a tapeflow checkpoint holding `values` ({key: array})."""
    members = {"__format__": np.array(_format.FORMAT),
               "__keys__": np.array(sorted(values), dtype=np.str_), **values}
    return [(f"{k}.npy", _npy(np.asarray(v))) for k, v in members.items()]


class _Pwn:
    """Unpickling this would create `path`: proof that a pickle ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def _good():
    return _checkpoint_members({"v/0": np.float32(1.0)})


def _with_v0(npy):
    """A checkpoint whose value 'v/0' is the .npy file `npy` (manifest and format intact)."""
    return _npz(_good()[:2] + [("v/0.npy", npy)])


def _pickled(tmp_path):
    array = np.empty((), dtype=object)
    array[()] = _Pwn(str(tmp_path / "pwned"))
    return _npy(array)


def _npy_v3():
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.float32(1.0), version=(3, 0))
    return buffer.getvalue()


def _duplicate():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # zipfile warns: "Duplicate name"
        return _npz(_good() + [("v/0.npy", _npy(np.float32(7.0)))])


def _lying_sizes():
    """A member whose zip entry claims 2 GB (stored) and whose header declares a 2 GB array:
    the sizes agree with each other, not with the 1 KB file."""
    header = {"descr": "<f8", "fortran_order": False, "shape": (2 ** 28,)}
    data = bytearray(_with_v0(_npy(np.zeros(4), header)))
    entry = data.rindex(b"PK\x01\x02")   # the central directory's entry for v/0.npy
    data[entry + 20:entry + 28] = struct.pack("<II", 2 ** 31, 2 ** 31)
    return bytes(data)


_HUGE = {"descr": "<f8", "fortran_order": False, "shape": (10 ** 12,)}   # 8 TB
CRAFTED = {   # name: (the file's bytes, from tmp_path; key words of the DataLossError)
    "compressed": (lambda t: _npz(_good(), zipfile.ZIP_DEFLATED), "compressed"),
    "zip_bomb": (lambda t: _npz(_good()[:2] + [("v/0.npy", _npy(np.zeros(10 ** 7, "f4")))],
                                zipfile.ZIP_DEFLATED), "compressed"),
    "huge_shape": (lambda t: _with_v0(_npy(np.zeros(4), _HUGE)), "declares"),
    "lying_sizes": (lambda t: _lying_sizes(), "declares"),
    "not_npy": (lambda t: _npz(_good()[:2] + [("v/0", b"raw bytes")]), "not a .npy"),
    "duplicate": (lambda t: _duplicate(), "twice"),
    "pickle": (lambda t: _with_v0(_pickled(t)), "pickle"),
    "npy_v3": (lambda t: _with_v0(_npy_v3()), "version"),
    "no_format": (lambda t: _npz(_good()[1:]), "not a tapeflow checkpoint"),
    "manifest": (lambda t: _npz(_good()[:2] + [("v/9.npy", _npy(np.float32(1.0)))]),
                 "manifest"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_checkpoint_file_raises_data_loss_before_allocating_or_unpickling(
        tmp_path, name):
    ck = tmp_path / "ck"
    ck.mkdir()
    build, words = CRAFTED[name]
    data = build(tmp_path)
    (ck / "bad.npz").write_bytes(data)
    v = tf.Variable(3.0)
    tracemalloc.start()
    try:
        with _touched() as touched, pytest.raises(tf.errors.DataLossError, match=words):
            tf.train.Checkpoint(v=v).read(str(ck / "bad"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data) + 2_000_000   # the zip bomb's 40 MB, the declared 8 TB: never
    assert float(v.numpy()) == 3.0
    assert not (tmp_path / "pwned").exists()
    assert _outside(touched, tmp_path, ck) == []


def _write_raw(path, values):
    """A tapeflow checkpoint at `path` ('<prefix>.npz') holding exactly `values`."""
    with open(path, "wb") as f:
        f.write(_npz(_checkpoint_members(values)))


def test_value_names_with_dots_or_slashes_name_nothing_on_disk(tmp_path):
    """Member names are keys, never paths: nothing is extracted; such values stay unmatched."""
    ck = tmp_path / "ck"
    ck.mkdir()
    _write_raw(ck / "c.npz", {"v/0": np.float32(2.0), "../../x": np.float32(1.0),
                              "/abs": np.float32(1.0)})
    v = tf.Variable(3.0)
    with _touched() as touched:
        status = tf.train.Checkpoint(v=v).read(str(ck / "c"))
    assert float(v.numpy()) == 2.0
    with pytest.raises(AssertionError, match=r"\['../../x', '/abs'\] were not restored"):
        status.assert_consumed()
    assert _outside(touched, tmp_path, ck) == [] and sorted(os.listdir(tmp_path)) == ["ck"]


class _Pair:
    """An object of two variables."""

    def __init__(self, a, b):
        self.variables = [a, b]


@pytest.mark.parametrize("values, words", [
    ({"v/0": [1.0], "v/00": [2.0]}, "'v/00'"),
    ({"v/0": [1.0], "v/2": [2.0]}, "numbered"),
    ({"v/1": [1.0]}, "numbered"),
    ({"v/0": [1.0], "v/0/x": [2.0]}, "'v/0/x'"),
    ({"v/0": [1.0], "v/\u00b2": [2.0]}, "never writes"),     # a Unicode digit
    ({"v/0": [1.0], "v/-1": [2.0]}, "never writes"),
])
def test_an_object_graph_that_tapeflow_never_writes_is_data_loss(tmp_path, values, words):
    values = {k: np.asarray(v, np.float32) for k, v in values.items()}
    _write_raw(tmp_path / "bad.npz", values)
    a, b = tf.Variable([7.0]), tf.Variable([8.0])
    with pytest.raises(tf.errors.DataLossError, match=words):
        tf.train.Checkpoint(v=_Pair(a, b)).read(str(tmp_path / "bad"))
    assert a.numpy().tolist() == [7.0] and b.numpy().tolist() == [8.0]


@pytest.mark.parametrize("saved, words", [
    # TF 2.21: InvalidArgumentError "tensor_name = v/.ATTRIBUTES/VARIABLE_VALUE; expected
    # dtype float does not equal original dtype double [Op:RestoreV2]" (and "... string").
    (np.float64(1.5), "expected dtype float does not equal original dtype double"),
    (np.array("1.5"), "expected dtype float does not equal original dtype string"),
    (np.complex64(1 + 2j), "original dtype complex64"),
    (np.int32(2), "original dtype int32"),
])
def test_a_value_of_another_dtype_is_refused_as_tensorflow_does(tmp_path, saved, words):
    _write_raw(tmp_path / "bad.npz", {"v/0": saved, "save_counter": np.int64(4)})
    v = tf.Variable(3.0)
    ckpt = tf.train.Checkpoint(v=v)
    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        ckpt.read(str(tmp_path / "bad"))
    assert float(v.numpy()) == 3.0 and int(ckpt.save_counter.numpy()) == 0


def test_a_save_counter_of_another_shape_is_refused_before_anything_is_assigned(tmp_path):
    _write_raw(tmp_path / "bad.npz", {"v/0": np.float32(1.0),
                                      "save_counter": np.zeros(3, np.int64)})
    v = tf.Variable(3.0)
    ckpt = tf.train.Checkpoint(v=v)
    with pytest.raises(ValueError, match="Shape mismatch restoring 'save_counter'"):
        ckpt.read(str(tmp_path / "bad"))
    assert float(v.numpy()) == 3.0 and int(ckpt.save_counter.numpy()) == 0


def test_huge_declared_shapes_in_a_mutated_checkpoint_raise_only_documented_errors(tmp_path):
    """A seeded mutator of each member's declared shape and dtype: every read either restores
    or raises DataLossError / InvalidArgumentError / ValueError, and never allocates much."""
    import random
    rng = random.Random(2026)
    dtypes = ["<f4", "<f8", "<i8", "|b1", "<U3", "|V0", "<c8", "|S0", "<f2"]
    v = tf.Variable([1.0, 2.0])
    tracemalloc.start()
    try:
        for _ in range(300):
            shape = tuple(rng.choice([0, 1, 2, 3, 10 ** 6, 2 ** 40, 10 ** 15])
                          for _ in range(rng.randint(0, 3)))
            header = {"descr": rng.choice(dtypes), "fortran_order": rng.random() < 0.2,
                      "shape": shape}
            members = _checkpoint_members({"v/0": np.float32([1.0, 2.0])})
            members[-1] = ("v/0.npy", _npy(np.float32([5.0, 6.0]), header))
            (tmp_path / "m.npz").write_bytes(_npz(members))
            tracemalloc.reset_peak()
            try:
                tf.train.Checkpoint(v=v).read(str(tmp_path / "m"))
            except (tf.errors.DataLossError, tf.errors.InvalidArgumentError, ValueError):
                pass
            assert tracemalloc.get_traced_memory()[1] < 5_000_000, header
            assert v.numpy().tolist() in ([1.0, 2.0], [5.0, 6.0])
    finally:
        tracemalloc.stop()


# -- temporaries a crashed writer left ---------------------------------------------------------
def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.build((None, 3))
    return model


WRITERS = {
    # target file name -> a write of that target
    "model.weights.h5": lambda d: _model().save_weights(str(d / "model.weights.h5")),
    "model.keras": lambda d: _model().save(str(d / "model.keras")),
    "ckpt-2.npz": lambda d: tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(d / "ckpt-2")),
    "checkpoint": lambda d: tf.train.Checkpoint(v=tf.Variable(1.0)).save(str(d / "ckpt")),
    "notes.bin": lambda d: _format.atomic_write(str(d / "notes.bin"), lambda f: f.write(b"x")),
    "c.tapeflow-cache": lambda d: list(tf.data.Dataset.range(3).cache(str(d / "c"))),
}


@pytest.mark.parametrize("target", sorted(WRITERS))
def test_the_next_write_of_a_target_removes_only_its_stale_temporaries(tmp_path, target):
    d = tmp_path / "d"
    d.mkdir()
    (tmp_path / "outside.txt").write_text("keep me")
    dead, live = _dead_pid(), os.getppid()
    stale = [f".{target}.tmp-{dead}-abcd1234",
             f".{target}.tmp-{dead}"]                       # older tapeflow's state temporary
    kept = [f".{target}.tmp-{live}-abcd1234",               # a live writer's
            f".{target}.tmp-{dead}-abcd123",                # not mkstemp's pattern
            f".{target}.tmp-{dead}-abcd1234.bak",
            f"{target}.tmp-{dead}-abcd1234",
            f".x{target}.tmp-{dead}-abcd1234",              # another target's
            f".{target}x.tmp-{dead}-abcd1234",
            "unrelated.txt"]
    for name in stale + kept:
        (d / name).write_bytes(b"t" * 100)
        _age(d / name, 600)
    fresh = f".{target}.tmp-{dead}-fresh123"   # a dead writer's, written 10 s ago: kept for now
    (d / fresh).write_bytes(b"t")
    _age(d / fresh, 10)
    link = f".{target}.tmp-{dead}-link1234"    # a stale link: removed as a link
    os.symlink(tmp_path / "outside.txt", d / link)
    _age(d / link, 600)

    WRITERS[target](d)
    left = set(os.listdir(d))
    assert not left & set(stale + [link]), left
    assert set(kept + [fresh]) <= left
    assert (tmp_path / "outside.txt").read_text() == "keep me"


def test_a_checkpoint_write_removes_the_stale_temporaries_of_its_numbered_siblings(tmp_path):
    dead = _dead_pid()
    sibling, other = tmp_path / f".ckpt-7.npz.tmp-{dead}-abcd1234", \
        tmp_path / f".ckptx-7.npz.tmp-{dead}-abcd1234"
    for temp in (sibling, other):
        temp.write_bytes(b"t")
        _age(temp, 600)
    tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "ckpt-2"))
    assert not sibling.exists() and other.exists()


def test_a_save_weights_killed_mid_write_leaves_a_temporary_that_the_next_save_removes(
        tmp_path):
    target = tmp_path / "big.weights.h5"
    child = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {SRC!r})
        import tapeflow as tf
        model = tf.keras.Sequential([tf.keras.layers.Dense(1000)])
        model.build((None, 3000))                     # 12 MB of weights
        def stall(fd):                                # the data is written: crash here
            print("writing", flush=True)
            time.sleep(60)
        os.fsync = stall
        model.save_weights({str(target)!r})
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".big.weights.h5.tmp-")]
    assert len(left) == 1 and left[0].stat().st_size > 12_000_000 and not target.exists()
    _age(left[0], 120)   # the crash was two minutes ago

    model = tf.keras.Sequential([tf.keras.layers.Dense(1000)])
    model.build((None, 3000))
    model.save_weights(str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.weights.h5"]
    restored = tf.keras.Sequential([tf.keras.layers.Dense(1000)])
    restored.build((None, 3000))
    restored.load_weights(str(target))
    np.testing.assert_array_equal(restored.weights[0].numpy(), model.weights[0].numpy())


def test_pickle_is_never_loaded_even_from_a_plain_npz(tmp_path):
    """`read_arrays` keeps `allow_pickle=False`: an object array fails as data loss."""
    pickled = np.empty((), dtype=object)
    pickled[()] = _Pwn(str(tmp_path / "pwned"))
    buffer = io.BytesIO()
    np.savez(buffer, __format__=np.array(_format.FORMAT), __keys__=np.array(["v/0"]),
             **{"v/0": pickled})
    (tmp_path / "p.npz").write_bytes(buffer.getvalue())
    with pytest.raises(tf.errors.DataLossError, match="pickle"):
        _format.read_arrays(str(tmp_path / "p.npz"))
    assert not (tmp_path / "pwned").exists()
