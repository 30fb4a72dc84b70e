"""Checkpoints written by TensorFlow 2.21 / Keras 3.15 (tests/train/fixtures/tf/, recorded by
tools/record_tf_checkpoints.py with what TF read back) restore in tapeflow to the same values,
list the same keys, shapes and dtypes, and tapeflow writes the same files for the same objects;
the deferred restoration of a model first built inside a tf.function gives TF's numbers."""

import json
import os
import pathlib
import shutil
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.train import _object_graph, _tensor_bundle

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tools.record_tf_checkpoints import X, build_keras, build_module, train_step  # noqa: E402

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "tf"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
keras = tf.keras


def _plain(value):
    value = np.asarray(value)
    if value.dtype == object or value.dtype.kind == "S":
        return [v.decode() if isinstance(v, bytes) else v for v in value.reshape(-1)]
    return value.tolist()


@pytest.mark.parametrize("name", ["module", "keras", "nested"])
def test_the_reader_lists_and_reads_what_tensorflow_does(name):
    record = EXPECTED[name]
    directory = str(FIXTURES / name)
    assert [[k, s] for k, s in tf.train.list_variables(directory)] == record["list_variables"]
    reader = tf.train.load_checkpoint(directory)
    assert {k: d.name for k, d in reader.get_variable_to_dtype_map().items()} == \
        record["dtypes"]
    for key, value in record["values"].items():
        assert _plain(reader.get_tensor(key)) == value, key
        assert reader.has_tensor(key)
    assert not reader.has_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    path = tf.train.latest_checkpoint(directory)
    assert path == str(FIXTURES / name / "ckpt-1") and tf.train.checkpoint_exists(path)
    assert _plain(tf.train.load_variable(directory, "save_counter/.ATTRIBUTES/VARIABLE_VALUE")) \
        == 1


def test_a_module_restores_every_value():
    net = build_module(tf)
    for v in net.variables:
        v.assign(tf.zeros_like(v) if v.dtype != tf.string else "")
    ckpt = tf.train.Checkpoint(model=net)
    ckpt.restore(tf.train.latest_checkpoint(str(FIXTURES / "module"))).assert_consumed()
    values = EXPECTED["module"]["values"]
    assert net.dense_1.w.numpy().tolist() == values["model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE"]
    assert net.dense_1.b.numpy().tolist() == values["model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE"]
    assert int(net.vs[0].numpy()) == 7 and net.vs[1].numpy().tolist() == [1.5, 2.5]
    assert bool(net.table["flag"].numpy()) is True
    assert net.table["odd.name/x"].numpy() == b"text"
    assert int(ckpt.save_counter.numpy()) == 1


def test_a_keras_model_and_adam_restore_and_train_on_as_tensorflows():
    record = EXPECTED["keras"]
    model, optimizer = build_keras(keras)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        str(FIXTURES / "keras" / "ckpt-1"))
    status.assert_existing_objects_matched()
    np.testing.assert_allclose(model(X).numpy(), record["predictions"], rtol=1e-6)
    assert int(optimizer.iterations.numpy()) == 3
    train_step(tf, model, optimizer)   # builds the slots: restored, then one more step
    status.assert_consumed()
    for got, want in zip(model.weights, record["weights_after_next_step"]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-7)


def test_an_unbuilt_model_waits_for_its_build_as_tensorflow():
    model = keras.Sequential([keras.layers.Dense(2, name="d1"), keras.layers.Dense(1)])
    status = tf.train.Checkpoint(model=model).restore(str(FIXTURES / "keras" / "ckpt-1"))
    with pytest.raises(AssertionError) as info:
        status.assert_consumed()
    assert str(info.value).splitlines()[0] == EXPECTED["keras"]["unbuilt_assert_consumed"]
    np.testing.assert_allclose(model(X).numpy(), EXPECTED["keras"]["predictions"], rtol=1e-6)


def test_nested_checkpoints_restore():
    inner = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0, 0.0]))
    outer = tf.train.Checkpoint(inner=inner, w=tf.Variable(0.0, dtype=tf.float64))
    outer.restore(str(FIXTURES / "nested" / "ckpt-1")).assert_consumed()
    assert inner.v.numpy().tolist() == [1.0, 2.0, 3.0] and float(outer.w.numpy()) == 4.0


def test_a_model_first_built_inside_a_function_runs_on_the_restored_values(tmp_path):
    saved = keras.Sequential([keras.layers.Dense(1, kernel_initializer="ones",
                                                 bias_initializer="ones")])
    saved(np.ones((1, 1), np.float32))
    path = tf.train.Checkpoint(model=saved).save(str(tmp_path / "c"))
    later = keras.Sequential([keras.layers.Dense(1)])
    tf.train.Checkpoint(model=later).restore(path)
    out = tf.function(lambda x: later(x))(tf.constant([[1.0]]))
    assert out.numpy().tolist() == EXPECTED["deferred"]["in_function"] == [[2.0]]


def test_restoring_nothing_is_initialization_only(tmp_path):
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(
        tf.train.latest_checkpoint(str(tmp_path)))
    assert type(status).__name__ == "InitializationOnlyStatus"
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()


def test_tapeflow_writes_the_bytes_tensorflow_wrote_for_the_same_module(tmp_path):
    net = build_module(tf)
    ckpt = tf.train.Checkpoint(model=net)
    path = ckpt.save(str(tmp_path / "ckpt"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / f"ckpt-1{suffix}").read_bytes() == \
            (FIXTURES / "module" / f"ckpt-1{suffix}").read_bytes(), suffix
    assert (tmp_path / "checkpoint").read_text() == (FIXTURES / "module" / "checkpoint").read_text()
    assert path == str(tmp_path / "ckpt-1")


def test_tapeflow_writes_tensorflows_keys_for_a_keras_model_and_adam(tmp_path):
    model, optimizer = build_keras(keras)
    for _ in range(3):
        train_step(tf, model, optimizer)
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    assert [[k, s] for k, s in tf.train.list_variables(path)] == \
        EXPECTED["keras"]["list_variables"]
    ours = _graph_of(path)
    theirs = _graph_of(str(FIXTURES / "keras" / "ckpt-1"))
    assert [(n.children, [a.checkpoint_key for a in n.attributes]) for n in ours] == \
        [(n.children, [a.checkpoint_key for a in n.attributes]) for n in theirs]


def _graph_of(prefix):
    reader = _tensor_bundle.BundleReader(prefix)
    return _object_graph.decode(reader.read(_object_graph.OBJECT_GRAPH_KEY).item())


def test_a_restore_checks_dtypes_and_shapes_before_assigning(tmp_path):
    shutil.copytree(FIXTURES / "nested", tmp_path / "n")
    v = tf.Variable([0.0, 0.0, 0.0], dtype=tf.float64)
    w = tf.Variable(9.0, dtype=tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype double does not "
                                                             "equal original dtype float"):
        tf.train.Checkpoint(inner=tf.train.Checkpoint(v=v), w=w).restore(
            str(tmp_path / "n" / "ckpt-1"))
    assert float(w.numpy()) == 9.0
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        tf.train.Checkpoint(inner=tf.train.Checkpoint(v=tf.Variable([0.0])), w=w).restore(
            str(tmp_path / "n" / "ckpt-1"))
    assert float(w.numpy()) == 9.0


def test_a_manager_deletes_both_files_of_old_checkpoints(tmp_path):
    v = tf.Variable(1.0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=1)
    manager.save()
    manager.save()
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.data-00000-of-00001",
                                            "ckpt-2.index"]


@pytest.mark.parametrize("case", sorted(EXPECTED["messages"]))
def test_errors_and_assertions_say_what_tensorflow_says(tmp_path, case):
    from tools.record_tf_checkpoints import message_cases
    tf_class, tf_text = EXPECTED["messages"][case]
    ours = message_cases(tf, str(tmp_path))[case]
    assert ours[1] == tf_text
    if ours[0] != tf_class:   # TF raises a bare OpError (code UNKNOWN) for a damaged table,
        # tapeflow its subclass DataLossError: `except tf.errors.OpError` catches both.
        assert (tf_class, ours[0]) == ("OpError", "DataLossError")


def test_the_training_checkpoints_guides_attribute_and_list_restores(tmp_path):
    # The "Training checkpoints" guide's last cells (TF 2.21 prints and asserts the same).
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.0)]
    save.listed.append(tf.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save_path = save.save(str(tmp_path / "tf_list_example"))
    assert [k for k, _ in tf.train.list_variables(save_path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "listed/0/.ATTRIBUTES/VARIABLE_VALUE",
        "listed/1/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.0)
    restore.mapped = {"two": v2}
    restore.restore(save_path)
    assert float(v2.numpy()) == 2.0
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"
    v1 = tf.Variable(0.0)
    restore.listed.append(v1)   # restored now, from the restore above
    assert float(v1.numpy()) == 1.0


def test_a_checkpoint_attribute_added_after_a_restore_is_restored(tmp_path):
    bias = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(net=tf.train.Checkpoint(l1=tf.train.Checkpoint(
        bias=bias, kernel=tf.Variable([[3.0, 4.0]])))).save(str(tmp_path / "c"))
    to_restore = tf.Variable(tf.zeros([2]))
    fake_layer = tf.train.Checkpoint(bias=to_restore)
    status = tf.train.Checkpoint(net=tf.train.Checkpoint(l1=fake_layer)).restore(path)
    assert to_restore.numpy().tolist() == [1.0, 2.0]
    status.assert_existing_objects_matched()
    deferred = tf.Variable(tf.zeros([1, 2]))
    fake_layer.kernel = deferred
    assert deferred.numpy().tolist() == [[3.0, 4.0]]
    status.assert_consumed()


@pytest.mark.parametrize("name", sorted(EXPECTED["layer_keys"]))
def test_keras_layers_have_tensorflows_checkpoint_keys(tmp_path, name):
    from tools.record_tf_checkpoints import layer_keys
    assert layer_keys(tf, keras, str(tmp_path))[name] == EXPECTED["layer_keys"][name]


def test_unrestored_values_are_logged_as_tensorflow_unless_partial_is_expected(tmp_path,
                                                                               caplog):
    import gc
    path = tf.train.Checkpoint(a=tf.Variable(1.0), b=tf.Variable(2.0)).write(str(tmp_path / "c"))

    def restore(partial):
        status = tf.train.Checkpoint(a=tf.Variable(0.0)).read(path)
        if partial:
            status.expect_partial()

    with caplog.at_level("WARNING", logger="tapeflow"):
        restore(partial=True)
        gc.collect()
        assert caplog.messages == []
        restore(partial=False)
        gc.collect()
    assert caplog.messages[0].startswith("Detecting that an object or model or "
                                         "tf.train.Checkpoint is being deleted with unrestored "
                                         "values.")
    assert caplog.messages[1:] == ["Value in checkpoint could not be found in the restored "
                                   "object: (root).b"]
