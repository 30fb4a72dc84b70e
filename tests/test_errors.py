"""Bad input raises TensorFlow's error class, naming the op and the shapes or dtypes
(messages checked against TensorFlow 2.21)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.errors import InvalidArgumentError

CASES = [
    (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])),
     "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]"),
    (lambda: tf.matmul(tf.ones([2, 2, 3]), tf.ones([3, 3, 2])),
     "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,2] "
     "[Op:BatchMatMulV2]"),
    (lambda: tf.ones([2, 3]) + tf.ones([4]), "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]"),
    (lambda: tf.multiply(tf.ones([2, 3]), tf.ones([2, 2])),
     "Incompatible shapes: [2,3] vs. [2,2] [Op:Mul]"),
    (lambda: tf.multiply(tf.ones([2]), tf.ones([2], tf.int32)),
     "cannot compute Mul as input #1(zero-based) was expected to be a float tensor but is a "
     "int32 tensor [Op:Mul]"),
    (lambda: tf.add(tf.constant([1.0]), "abc"),
     "cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a "
     "string tensor [Op:AddV2]"),
    (lambda: tf.sin(tf.constant([1, 2])),
     "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, "
     "double, complex64, complex128 [Op:Sin]"),
    (lambda: tf.sqrt("abc"),
     "Value for attr 'T' of string is not in the list of allowed values: bfloat16, half, float, "
     "double, complex64, complex128 [Op:Sqrt]"),
    (lambda: tf.reduce_sum(tf.ones([2, 3]), axis=2),
     "Invalid reduction dimension (2 for input with 2 dimension(s) [Op:Sum]"),
    (lambda: tf.reduce_mean(tf.ones([2, 3]), axis=-3),
     "Invalid reduction dimension (-3 for input with 2 dimension(s) [Op:Mean]"),
    (lambda: tf.argmax(tf.ones([2, 3]), axis=2),
     "Expected dimension in the range [-2, 2), but got 2 [Op:ArgMax]"),
    (lambda: tf.reshape(tf.ones([2, 3]), [4, 2]),
     "Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]"),
    (lambda: tf.ones([2, 3])[2],
     "slice index 2 of dimension 0 out of bounds. [Op:StridedSlice]"),
    (lambda: tf.ones([2, 3])[0, 3],
     "slice index 3 of dimension 1 out of bounds. [Op:StridedSlice]"),
]


@pytest.mark.parametrize("bad, message", CASES, ids=[m.split("[Op:")[1][:-1] + str(i)
                                                      for i, (_, m) in enumerate(CASES)])
def test_invalid_argument(bad, message):
    with pytest.raises(InvalidArgumentError) as info:
        bad()
    assert str(info.value) == message


def test_errors_are_tf_errors():
    assert issubclass(InvalidArgumentError, tf.errors.OpError)
    assert tf.errors.InvalidArgumentError is InvalidArgumentError


def test_unconvertible_value():
    # A ValueError in TF 2.21, for tf.constant, convert_to_tensor and op operands alike.
    for convert in (tf.constant, tf.convert_to_tensor, lambda v: tf.add(1., v)):
        with pytest.raises(ValueError, match=r"^Attempt to convert a value \(None\) with an "
                                             r"unsupported type \(<class 'NoneType'>\) to a "
                                             r"Tensor.$"):
            convert(None)


def test_math_log_sigmoid():
    np.testing.assert_allclose(tf.math.log_sigmoid(tf.constant([1., -2.])).numpy(),
                               [-0.3132617, -2.126928], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: tf.constant(1) * 2.5, lambda: 2.5 + tf.constant(1), lambda: tf.constant(1) - 2.0,
    lambda: tf.maximum(tf.constant(1), 1.5), lambda: tf.constant(1) < 1.5,
    lambda: tf.constant(1) == 2.5,
])
def test_python_float_with_an_int_tensor_is_a_type_error_as_tf(make):
    # TF 2.21 converts the Python number to the tensor's dtype first and fails there.
    with pytest.raises(TypeError, match=r"^Cannot convert [0-9.]+ to EagerTensor of dtype int32$"):
        make()


def test_python_number_conversion_errors_name_cpp_dtypes():
    with pytest.raises(TypeError, match=r"Cannot convert 2j to EagerTensor of dtype double"):
        tf.constant(1.0, tf.float64) * 2j
    with pytest.raises(TypeError, match=r"Cannot convert 1 to EagerTensor of dtype bool"):
        tf.constant(True) & 1


def test_numbers_that_fit_still_convert():
    assert (tf.constant(1) * True).numpy() == 1
    assert (tf.constant(1.0, tf.float16) * 1.5).dtype == tf.float16
    assert (tf.constant(2, tf.uint8) * 3).numpy() == 6
    # TF's add converts softly: the mismatch surfaces in AddV2 itself.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:AddV2\]"):
        tf.constant(1) + 2.5
