"""dtype inference and conversion rules, as TensorFlow 2.21 applies them (checked with it)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.errors import InvalidArgumentError, UnimplementedError


@pytest.mark.parametrize("value, dtype", [
    (1.5, tf.float32), (3, tf.int32), (2 ** 40, tf.int64), (True, tf.bool), ("hi", tf.string),
    ([1, 2.5], tf.float32), (np.float64(1.5), tf.float64), (np.array([1, 2]), tf.int64),
    (np.ones(2, np.float16), tf.float16),
])
def test_inferred_dtype(value, dtype):
    assert tf.constant(value).dtype == dtype


def test_python_scalar_takes_the_tensor_dtype_in_binary_ops():
    assert (tf.constant([1, 2], tf.int64) + 1).dtype == tf.int64
    y = tf.constant([1.0], tf.float64) * 2.5
    assert y.dtype == tf.float64 and y.numpy()[0] == 2.5
    assert (2 * tf.constant([1.0], tf.float16)).dtype == tf.float16


def test_repeated_python_scalars_keep_their_value_sign_and_dtype():
    x = tf.constant([1.0, -2.0])
    for _ in range(3):  # the constant for a number is made once and shared: it must not drift
        assert (x * 0.5).numpy().tolist() == [0.5, -1.0]
        assert (x * -0.0).numpy().tolist() == [-0.0, 0.0]
        assert np.signbit((x * -0.0).numpy()).tolist() == [True, False]
        assert np.isnan((x * float("nan")).numpy()).all()
        assert (tf.cast(x, tf.float64) * 0.5).dtype == tf.float64


def test_float64_constant_is_exact_from_python_float():
    assert tf.constant(0.1, tf.float64).numpy() == 0.1
    assert repr(tf.constant(0.1, tf.float64)) == \
        "<tf.Tensor: shape=(), dtype=float64, numpy=0.1>"


@pytest.mark.parametrize("x, y, message", [
    (lambda: tf.constant(1.0), lambda: tf.constant(1.0, tf.float64),
     "cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a "
     "double tensor [Op:AddV2]"),
    (lambda: tf.constant(1), lambda: tf.constant(1.0),
     "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a "
     "float tensor [Op:AddV2]"),
    (lambda: tf.constant([1, 2]), lambda: 1.5,
     "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a "
     "float tensor [Op:AddV2]"),
])
def test_mixed_dtypes_raise(x, y, message):
    with pytest.raises(InvalidArgumentError) as info:
        x() + y()
    assert str(info.value) == message


def test_cast():
    assert tf.cast(tf.constant([1.7, -1.7]), tf.int32).numpy().tolist() == [1, -1]
    assert tf.cast(tf.constant([0.0, 2.0]), tf.bool).numpy().tolist() == [False, True]
    assert tf.cast(tf.constant([1, 2]), tf.float64).dtype == tf.float64
    assert tf.cast(tf.constant([1, 2]), "float32").dtype == tf.float32
    with pytest.raises(UnimplementedError, match=r"Cast string to float is not supported"):
        tf.cast(tf.constant("1"), tf.float32)


def test_constant_with_dtype_and_shape():
    assert tf.constant([1, 2], dtype=tf.float32).numpy().tolist() == [1.0, 2.0]
    assert tf.constant(0.0, shape=[2, 2]).shape == (2, 2)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1.5, dtype=tf.int32)
    # TF 2.21's exact message, with nothing after it.
    with pytest.raises(ValueError, match=r"^Can't convert non-rectangular Python sequence to "
                                         r"Tensor\.$"):
        tf.constant([[1, 2], [3]])


def test_integer_division_is_float64_for_int32():
    y = tf.constant([7, 3]) / 2
    assert y.dtype == tf.float64 and y.numpy().tolist() == [3.5, 1.5]
    assert (tf.constant([7, 3], tf.int16) / 2).dtype == tf.float32
    assert (tf.constant([-7, 7]) // 2).numpy().tolist() == [-4, 3]
    assert (tf.constant([-7, 7]) % 3).numpy().tolist() == [2, 1]


# TensorFlow 2.21's conversion with an explicit dtype (outputs checked with the reference):
# NumPy values cast between numeric types (wrapping or truncating), Python values may not
# change kind (a float never becomes an integer, a number never a bool).
@pytest.mark.parametrize("value, dtype, expected", [
    (np.array([1.5]), tf.int32, [1]),
    (np.array([1.5]), tf.bool, [True]),
    (np.float32(2.5), tf.int64, 2),
    ([True], tf.float32, [1.0]),
    (2 ** 40, tf.int32, 0),
    (-1, tf.uint8, 255),
])
def test_explicit_dtype_conversion_casts_as_tensorflow(value, dtype, expected):
    t = tf.constant(value, dtype=dtype)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("value, dtype", [([1.0, 2.0], tf.int32), (3.0, tf.int32),
                                          (3, tf.bool)])
def test_python_values_do_not_change_kind(value, dtype):
    with pytest.raises(TypeError, match=f"Cannot convert .* to EagerTensor of dtype {dtype.name}"):
        tf.constant(value, dtype=dtype)


def test_a_known_tensorshape_converts_to_an_int32_tensor():
    # TF 2.21: tf.constant(TensorShape([2, 3])) is int32 [2 3]; a partial shape is a ValueError.
    t = tf.convert_to_tensor(tf.TensorShape([2, 3]))
    assert t.dtype == tf.int32 and t.numpy().tolist() == [2, 3]
    assert tf.convert_to_tensor(tf.TensorShape([])).dtype == tf.int32
    with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape "
                                         r"\(None, 3\) to a Tensor\."):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))
