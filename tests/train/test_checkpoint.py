"""tf.train.Checkpoint / CheckpointManager: round trips, optimizer state, crash safety,
corrupted files (TensorFlow's `.index` + `.data-00000-of-00001` format, and tapeflow's older
`.npz` files, which still restore)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import optimizers
from tapeflow.train import Checkpoint, CheckpointManager, latest_checkpoint

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def _train(v, opt, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(v - 3.0))
        opt.apply_gradients([(tape.gradient(loss, v), v)])


def test_round_trip_restores_variables_and_optimizer_state(tmp_path):
    v, opt = tf.Variable([1.0, 2.0]), optimizers.Adam(0.1)
    _train(v, opt, 3)
    ckpt = Checkpoint(model=v, optimizer=opt)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1") and latest_checkpoint(str(tmp_path)) == path
    _train(v, opt, 2)
    expected = v.numpy()

    # A fresh optimizer (no slots yet) gets iterations now and its slots when built.
    v2, opt2 = tf.Variable([0.0, 0.0]), optimizers.Adam(0.1)
    Checkpoint(model=v2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 3
    _train(v2, opt2, 2)
    np.testing.assert_allclose(v2.numpy(), expected, rtol=1e-6)
    assert int(opt2.iterations.numpy()) == 5


def test_write_read_and_status(tmp_path):
    a = tf.Variable(np.arange(6.0).reshape(2, 3))
    ckpt = Checkpoint(a=a)
    prefix = ckpt.write(str(tmp_path / "exact"))
    a.assign(np.zeros((2, 3)))
    ckpt.read(prefix).assert_consumed()
    np.testing.assert_array_equal(a.numpy(), np.arange(6.0).reshape(2, 3))
    with pytest.raises(AssertionError):
        Checkpoint(b=tf.Variable(np.zeros((2, 3)))).read(prefix).assert_consumed()


def test_manager_keeps_max_to_keep(tmp_path):
    v = tf.Variable(0.0)
    manager = CheckpointManager(Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    paths = []
    for i in range(4):
        v.assign(float(i))
        paths.append(manager.save())
    assert manager.checkpoints == paths[2:]
    assert manager.latest_checkpoint == paths[-1] == latest_checkpoint(str(tmp_path))
    assert not os.path.exists(paths[0] + ".index")
    assert not os.path.exists(paths[0] + ".data-00000-of-00001")
    again = CheckpointManager(Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    assert again.checkpoints == paths[2:]
    v.assign(-1.0)
    assert again.restore_or_initialize() == paths[-1] and float(v.numpy()) == 3.0


def test_missing_and_corrupted_files_raise_tf_errors(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = Checkpoint(v=v)
    with pytest.raises(tf.errors.NotFoundError):
        ckpt.restore(str(tmp_path / "nothing-1"))
    path = ckpt.save(str(tmp_path / "ckpt"))
    with open(path + ".index", "rb") as f:
        data = f.read()
    with open(path + ".index", "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(tf.errors.DataLossError, match="not an sstable"):
        ckpt.restore(path)
    path = ckpt.save(str(tmp_path / "ckpt"))
    os.remove(path + ".data-00000-of-00001")
    with pytest.raises(tf.errors.NotFoundError, match="ckpt-2.data-00000-of-00001"):
        ckpt.restore(path)
    np.savez(str(tmp_path / "foreign.npz"), x=np.ones(2))
    with pytest.raises(tf.errors.DataLossError, match="not a tapeflow checkpoint"):
        ckpt.read(str(tmp_path / "foreign"))


def test_a_process_killed_mid_save_leaves_the_previous_checkpoint(tmp_path):
    # The child saves once, then dies (os._exit) in the middle of writing the second save.
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.abspath(SRC)!r})
        import numpy as np
        import tapeflow as tf
        from tapeflow.train import Checkpoint, _tensor_bundle
        v = tf.Variable([1.0, 2.0])
        ckpt = Checkpoint(v=v)
        ckpt.save({str(tmp_path / "ckpt")!r})
        v.assign([9.0, 9.0])
        real_write = _tensor_bundle.atomic_write
        def dying_write(path, write, targets=None):
            def half(f):
                write(f)
                f.flush()
                f.truncate(f.tell() // 2)   # half-written file on disk
                os._exit(3)                 # killed before the rename
            real_write(path, half, targets)
        _tensor_bundle.atomic_write = dying_write
        ckpt.save({str(tmp_path / "ckpt")!r})
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    latest = latest_checkpoint(str(tmp_path))
    assert latest == str(tmp_path / "ckpt-1")
    v = tf.Variable([0.0, 0.0])
    Checkpoint(v=v).restore(latest).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert not os.path.exists(str(tmp_path / "ckpt-2.index"))
    assert not os.path.exists(str(tmp_path / "ckpt-2.data-00000-of-00001"))


def test_no_pickles_are_loaded(tmp_path):
    path = str(tmp_path / "evil")
    np.savez(path + ".npz", __format__=np.array("tapeflow-checkpoint-v1"),
             **{"v/0": np.array([object()], dtype=object)})
    with pytest.raises(tf.errors.DataLossError):
        Checkpoint(v=tf.Variable([1.0])).read(path)


_SUFFIXES = (".index", ".data-00000-of-00001")


def _saved_pair(tmp_path):
    """{suffix: bytes} of the two files of a checkpoint of two variables."""
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable(3, dtype=tf.int64)
    path = tf.train.Checkpoint(v=v, w=w).save(str(tmp_path / "ck"))
    files = {}
    for suffix in _SUFFIXES:
        with open(path + suffix, "rb") as f:
            files[suffix] = f.read()
    return files


def _write_pair(prefix, files):
    for suffix, data in files.items():
        with open(prefix + suffix, "wb") as f:
            f.write(data)


def _restore_into_fresh(prefix):
    v = tf.Variable([[0.0, 0.0], [0.0, 0.0]])
    w = tf.Variable(0, dtype=tf.int64)
    tf.train.Checkpoint(v=v, w=w).restore(prefix)
    return v, w


@pytest.mark.parametrize("suffix", _SUFFIXES)
def test_a_file_truncated_at_any_offset_raises_data_loss(tmp_path, suffix):
    files = _saved_pair(tmp_path)
    bad = str(tmp_path / "bad")
    for n in range(len(files[suffix])):
        _write_pair(bad, {**files, suffix: files[suffix][:n]})
        with pytest.raises(tf.errors.DataLossError):
            _restore_into_fresh(bad)


@pytest.mark.parametrize("suffix", _SUFFIXES)
def test_random_corruption_raises_data_loss_or_restores_the_saved_values(tmp_path, suffix):
    import random
    files = _saved_pair(tmp_path)
    bad = str(tmp_path / "bad")
    rng = random.Random(0)
    for _ in range(600):
        blob = bytearray(files[suffix])
        for _ in range(rng.randint(1, 3)):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
        _write_pair(bad, {**files, suffix: bytes(blob)})
        try:
            v, w = _restore_into_fresh(bad)
        except tf.errors.DataLossError:
            pass
        else:  # the byte hit bytes nothing checks (the footer's padding): values intact
            assert v.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]] and int(w.numpy()) == 3


def test_a_stale_temporary_is_removed_by_the_next_save(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    manager.save()
    # What a save killed mid-write leaves: a dead writer's temporary, untouched for minutes.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".ckpt-2.index.tmp-{dead}-abcd1234"
    fresh = tmp_path / f".ckpt-2.index.tmp-{os.getpid()}-efgh5678"   # a live writer's
    other = tmp_path / f".other-2.index.tmp-{dead}-ijkl9012"          # another prefix's
    for temp in (stale, fresh, other):
        temp.write_bytes(b"x" * 1000)
        os.utime(temp, (0, os.path.getmtime(temp) - 600))
    os.utime(fresh, None)
    manager.save()
    assert not stale.exists()
    assert fresh.exists() and other.exists()


def test_a_failed_restore_changes_nothing(tmp_path):
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    path = tf.train.Checkpoint(a=a, b=b).save(str(tmp_path / "ck"))
    a2, b2 = tf.Variable([9.0, 9.0]), tf.Variable([9.0, 9.0, 9.0])   # b's shape differs
    target = tf.train.Checkpoint(a=a2, b=b2)
    with pytest.raises(ValueError):
        target.restore(path)
    assert a2.numpy().tolist() == [9.0, 9.0] and b2.numpy().tolist() == [9.0, 9.0, 9.0]
    assert int(target.save_counter.numpy()) == 0


def test_a_damaged_file_is_closed_after_the_failed_restore(tmp_path):
    import gc
    import warnings

    files = _saved_pair(tmp_path)
    bad = str(tmp_path / "bad")
    data = files[".data-00000-of-00001"]
    _write_pair(bad, {**files, ".data-00000-of-00001": data[: len(data) - 10]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(tf.errors.DataLossError):
            _restore_into_fresh(bad)
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
