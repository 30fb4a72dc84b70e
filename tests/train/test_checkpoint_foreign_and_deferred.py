"""tf.train.Checkpoint: a checkpoint TensorFlow wrote restores; files that are no checkpoint
get an error saying what they are; restoring into a Keras model before it is built restores it
when it builds (TF's deferred restoration)."""

import base64
import zipfile

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras

# The .index and .data files of `tf.train.Checkpoint(v=tf.Variable([1., 2.])).save(...)`,
# written by TensorFlow 2.21.
TF_INDEX = base64.b64decode(
    "AAAGCAEaAggBABwOX0NIRUNLUE9JTlRBQkxFX09CSkVDVF9HUkFQSAgHEgAgECi0ATUfk3eaACcNc2F2ZV9jb3Vu"
    "dGVyLy5BVFRSSUJVVEVTL1ZBUklBQkxFX1ZBTFVFCAkSACAIKAg1AXXeQQAcD3YvLkFUVFJJQlVURVMvVkFSSUFC"
    "TEVfVkFMVUUIARIEEgIIAigINVk85TUAAAAAAQAAAABhbykrAAAAAAEAAAAAwPKhsAABA3cAowEAAAAAAQAAAACq"
    "jqNsqAEItQEPAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFf7gIskdUfb")
TF_DATA = base64.b64decode(
    "AACAPwAAAEABAAAAAAAAAK4Bn+pScgodCgUIARIBdgoQCAISDHNhdmVfY291bnRlcioCCAEKPhI4Cg5WQVJJQUJM"
    "RV9WQUxVRRIIVmFyaWFibGUaHHYvLkFUVFJJQlVURVMvVkFSSUFCTEVfVkFMVUUqAggBCk0SRwoOVkFSSUFCTEVf"
    "VkFMVUUSDHNhdmVfY291bnRlchonc2F2ZV9jb3VudGVyLy5BVFRSSUJVVEVTL1ZBUklBQkxFX1ZBTFVFKgIIAQ==")


def test_a_tensorflow_checkpoint_restores(tmp_path):
    (tmp_path / "ckpt-1.index").write_bytes(TF_INDEX)
    (tmp_path / "ckpt-1.data-00000-of-00001").write_bytes(TF_DATA)
    v = tf.Variable([0.0, 0.0])
    ckpt = tf.train.Checkpoint(v=v)
    ckpt.restore(str(tmp_path / "ckpt-1")).assert_consumed()
    assert v.numpy().tolist() == [1.0, 2.0] and int(ckpt.save_counter.numpy()) == 1
    assert tf.train.list_variables(str(tmp_path / "ckpt-1")) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("v/.ATTRIBUTES/VARIABLE_VALUE", [2])]
    (tmp_path / "other.index").write_bytes(TF_INDEX)   # an index given by its own name
    with pytest.raises(tf.errors.DataLossError, match="a TensorFlow checkpoint"):
        ckpt.restore(str(tmp_path / "other.index"))


@pytest.mark.parametrize("content, kind", [
    (b"\x89HDF\r\n\x1a\n" + b"\0" * 64, "an HDF5 file"),
    (b"hello, not a checkpoint", "unrecognized content"),
])
def test_a_file_given_by_its_own_name_is_described(tmp_path, content, kind):
    path = tmp_path / "model.weights.h5"
    path.write_bytes(content)
    with pytest.raises(tf.errors.DataLossError, match=kind):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(path))


def test_foreign_content_under_the_checkpoint_name_is_described(tmp_path):
    (tmp_path / "ckpt-1.npz").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(tf.errors.DataLossError, match="not a tapeflow checkpoint but an HDF5"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "ckpt-1"))
    with zipfile.ZipFile(tmp_path / "ckpt-2.npz", "w") as z:
        z.writestr("config.json", "{}")
        z.writestr("metadata.json", "{}")
    with pytest.raises(tf.errors.DataLossError, match=r"Keras '\.keras' model archive"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "ckpt-2"))


def test_a_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nothing-1"))


def _sequential():
    return keras.Sequential([keras.layers.Dense(2), keras.layers.Dense(1)])


class _Sub(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(2)
        self.d2 = keras.layers.Dense(1)

    def call(self, x):
        return self.d2(self.d1(x))


@pytest.mark.parametrize("make", [_sequential, _Sub])
def test_restoring_an_unbuilt_model_restores_it_when_built(tmp_path, make):
    x = np.ones((1, 3), np.float32)
    saved = make()
    saved(x)
    path = tf.train.Checkpoint(model=saved).save(str(tmp_path / "m"))
    later = make()
    status = tf.train.Checkpoint(model=later).restore(path)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.model"):
        status.assert_consumed()
    np.testing.assert_array_equal(later(x), saved(x))   # TF 2.21: the built model is restored
    for a, b in zip(later.get_weights(), saved.get_weights()):
        np.testing.assert_array_equal(a, b)
    status.assert_consumed()
    assert type(later) is type(saved)


def test_deferred_restore_checks_shapes_when_built(tmp_path):
    saved = _sequential()
    saved(np.ones((1, 3), np.float32))
    path = tf.train.Checkpoint(model=saved).save(str(tmp_path / "m"))
    later = _sequential()
    tf.train.Checkpoint(model=later).restore(path)
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        later(np.ones((1, 4), np.float32))
