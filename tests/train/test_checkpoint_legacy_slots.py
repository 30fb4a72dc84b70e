"""tapeflow's earlier `.npz` checkpoints (read-only since tapeflow writes TensorFlow's format).

Checkpoints written before format v3 held Adam's slots as all momentums, then all
velocities; since v3 (Keras's order) they are each variable's momentum, then its velocity. An
old file must restore each slot into its own variable, also where the shapes are all the same
(a positional restore would swap them without any error)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import optimizers
from tapeflow.framework import npz_format as _format


def _trained(amsgrad=False):
    w1 = tf.Variable([1.0, 2.0, 3.0])
    w2 = tf.Variable([-1.0, 0.5, 4.0])
    opt = optimizers.Adam(0.1, amsgrad=amsgrad)
    for g1, g2 in [([1.0, 2.0, 3.0], [9.0, -8.0, 7.0]), ([0.5, 0.5, 0.5], [2.0, 1.0, 0.0])]:
        opt.apply_gradients([(tf.constant(g1), w1), (tf.constant(g2), w2)])
    return w1, w2, opt


def _write_v3(prefix, **objects):
    """What tapeflow's Checkpoint(**objects).write(prefix) wrote before it wrote TF's format:
    '<prefix>.npz' with each object's variables as '<name>/<i>' (format v3)."""
    arrays = {"save_counter": np.int64(0)}
    for key, obj in objects.items():
        variables = [obj] if isinstance(obj, tf.Variable) else list(obj.variables)
        arrays.update({f"{key}/{i}": v.numpy() for i, v in enumerate(variables)})
    _format.write_arrays(prefix + ".npz", arrays)
    return prefix


def _as_legacy_file(path, n_vars, amsgrad):
    """Rewrites the v3 file at `path` as a v2 file: the optimizer's slots in the old order."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    keys = sorted((k for k in arrays if k.startswith("optimizer/")),
                  key=lambda k: int(k.split("/")[1]))
    values = [arrays[k] for k in keys]
    head, kinds = len(values) - n_vars * (3 if amsgrad else 2), 3 if amsgrad else 2
    pairs = values[head:head + 2 * n_vars]
    old = values[:head] + pairs[0::2] + pairs[1::2] + values[head + 2 * n_vars:]
    assert len(old) == head + kinds * n_vars
    arrays.update(zip(keys, old))
    arrays["__format__"] = np.array("tapeflow-checkpoint-v2")
    np.savez(path, **arrays)


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("built_first", [True, False])
def test_a_v2_file_restores_each_adam_slot_into_its_own_variable(tmp_path, amsgrad,
                                                                 built_first):
    w1, w2, opt = _trained(amsgrad)
    prefix = _write_v3(str(tmp_path / "ckpt"), w1=w1, w2=w2, optimizer=opt)
    _as_legacy_file(prefix + ".npz", 2, amsgrad)
    assert _format.read_arrays(prefix + ".npz").format == "tapeflow-checkpoint-v2"

    v1, v2 = tf.Variable(tf.zeros(3)), tf.Variable(tf.zeros(3))
    fresh = optimizers.Adam(0.1, amsgrad=amsgrad)
    if built_first:
        fresh.build([v1, v2])
    tf.train.Checkpoint(w1=v1, w2=v2, optimizer=fresh).read(prefix)
    if not built_first:   # deferred: the first apply builds the slots and restores them
        fresh.build([v1, v2])
        fresh._restore_deferred()
    for old, new in zip(opt.variables, fresh.variables):
        np.testing.assert_array_equal(new.numpy(), old.numpy(), err_msg=new.name)


def test_a_v3_file_still_restores(tmp_path):
    w1, w2, opt = _trained()
    prefix = _write_v3(str(tmp_path / "ckpt"), w1=w1, w2=w2, optimizer=opt)
    v1, v2, fresh = tf.Variable(tf.zeros(3)), tf.Variable(tf.zeros(3)), optimizers.Adam(0.1)
    status = tf.train.Checkpoint(w1=v1, w2=v2, optimizer=fresh).restore(prefix)
    np.testing.assert_array_equal(v1.numpy(), w1.numpy())
    grads = [(tf.constant([0.5, 0.5, 0.5]), w1), (tf.constant([1.0, 2.0, 3.0]), w2)]
    opt.apply_gradients(grads)
    fresh.apply_gradients([(g, v) for (g, _), v in zip(grads, (v1, v2))])   # slots restored
    status.assert_consumed()
    for old, new in zip(opt.variables, fresh.variables):
        np.testing.assert_array_equal(new.numpy(), old.numpy(), err_msg=new.name)
    assert tf.train.list_variables(prefix)[0] == ("optimizer/0", [])


def test_checkpoints_are_written_in_tensorflows_format_with_the_umask_mode(tmp_path):
    import os
    w1, w2, opt = _trained()
    prefix = tf.train.Checkpoint(w1=w1, optimizer=opt).write(str(tmp_path / "ckpt"))
    assert not os.path.exists(prefix + ".npz")
    mask = os.umask(0o022)
    os.umask(mask)
    for suffix in (".index", ".data-00000-of-00001"):
        assert os.stat(prefix + suffix).st_mode & 0o777 == 0o666 & ~mask
