"""tf.data sources: element_spec, repr, values and errors as TensorFlow 2.21 gives them (the
expected texts and values below were measured in TF 2.21)."""

import collections
import gzip

import numpy as np
import pytest

import tapeflow as tf

D = tf.data.Dataset


def values(ds):
    return list(ds.as_numpy_iterator())


def test_tensor_slices_repr_and_dtype_inference():
    assert repr(D.from_tensor_slices([1, 2, 3])) == \
        "<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>"
    assert D.from_tensor_slices([1.0, 2.0]).element_spec == tf.TensorSpec([], tf.float32)
    assert D.from_tensor_slices([1, 2.5]).element_spec.dtype == tf.float32
    assert D.from_tensor_slices([2 ** 40]).element_spec.dtype == tf.int64
    assert D.from_tensor_slices(np.array([1.0, 2.0])).element_spec.dtype == tf.float64
    assert D.from_tensor_slices(["a", "b"]).element_spec.dtype == tf.string
    assert values(D.from_tensor_slices(["a", "b"])) == [b"a", b"b"]


def test_tensor_slices_structures_keep_tf_order():
    ds = D.from_tensor_slices({"b": [1, 2], "a": [[1., 2.], [3, 4]]})
    assert repr(ds.element_spec) == ("{'b': TensorSpec(shape=(), dtype=tf.int32, name=None), "
                                     "'a': TensorSpec(shape=(2,), dtype=tf.float32, name=None)}")
    Pt = collections.namedtuple("Pt", "x y")
    ds = D.from_tensor_slices(Pt([1, 2], [3., 4.]))
    assert repr(ds.element_spec) == ("Pt(x=TensorSpec(shape=(), dtype=tf.int32, name=None), "
                                     "y=TensorSpec(shape=(), dtype=tf.float32, name=None))")
    assert values(ds.map(lambda p: p.x)) == [1, 2]
    nested = D.from_tensor_slices(({"a": [1, 2]}, ([3, 4], [[1], [2]]))).element_spec
    assert nested[1][1] == tf.TensorSpec([1], tf.int32)


def test_tensor_slices_errors():
    with pytest.raises(ValueError, match="Unbatching a tensor is only supported for rank >= 1"):
        D.from_tensor_slices(1)
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        D.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="`element` should not be empty"):
        D.from_tensor_slices(())


def test_from_tensors_and_range():
    ds = D.from_tensors((1, [1., 2.], "s"))
    assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32),
                               tf.TensorSpec([], tf.string))
    assert repr(D.from_tensors([1, 2, 3])) == \
        "<_TensorDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int32, name=None)>"
    assert values(D.range(10, 0, -3)) == [10, 7, 4, 1]
    assert D.range(3, output_type=tf.int32).element_spec.dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match="step must be a non-zero"):
        D.range(1, 3, 0)


def _gen_bad_shape():
    yield [1, 2]
    yield [1, 2, 3]


def test_from_generator_signature_and_errors():
    ds = D.from_generator(lambda: iter([1, 2]), output_signature=tf.TensorSpec((), tf.int32))
    assert repr(ds) == "<_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, " \
        "name=None)>"
    assert values(ds) == [1, 2] and int(ds.cardinality()) == -2
    assert repr(D.from_generator(lambda: iter([1]), output_types=tf.int64).element_spec) == \
        "TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)"
    args = D.from_generator(lambda n: (i for i in range(n)),
                            output_signature=tf.TensorSpec((), tf.int64), args=(3,))
    assert values(args) == [0, 1, 2]
    bad = D.from_generator(_gen_bad_shape, output_signature=tf.TensorSpec((2,), tf.int32))
    it = iter(bad)
    next(it)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`generator` yielded an element "
                       r"of shape \(3,\) where an element of shape \(2,\) was expected"):
        next(it)
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected "
                       r"structure. The expected structure was \(tf.int32, tf.int32\), but "
                       "the yielded element was 3"):
        values(D.from_generator(lambda: iter([3]), output_signature=(
            tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.int32))))
    with pytest.raises(tf.errors.InvalidArgumentError, match="The expected type was int32, "
                       "but the yielded element was x"):
        values(D.from_generator(lambda: iter(["x"]), output_signature=tf.TensorSpec((), tf.int32)))
    with pytest.raises(TypeError, match="either the `output_signature` argument or the "
                       "`output_types` argument"):
        D.from_generator(lambda: iter([1]))


def test_text_lines_and_list_files(tmp_path):
    (tmp_path / "t1.txt").write_text("hello\nworld\n\nlast")
    with gzip.open(tmp_path / "t2.txt.gz", "wt") as f:
        f.write("a\nb\n")
    (tmp_path / "t3.txt").write_bytes(b"a\r\nb\r\n")
    assert values(tf.data.TextLineDataset(str(tmp_path / "t1.txt"))) == \
        [b"hello", b"world", b"", b"last"]
    assert values(tf.data.TextLineDataset(str(tmp_path / "t2.txt.gz"),
                                          compression_type="GZIP")) == [b"a", b"b"]
    assert values(tf.data.TextLineDataset(str(tmp_path / "t3.txt"))) == [b"a", b"b"]
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        values(tf.data.TextLineDataset(str(tmp_path / "nope.txt")))
    names = values(D.list_files(str(tmp_path / "t*.txt"), shuffle=False))
    assert names == [str(tmp_path / "t1.txt").encode(), str(tmp_path / "t3.txt").encode()]
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        D.list_files(str(tmp_path / "zz*"))
