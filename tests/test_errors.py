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


# TF 2.21's error class and text (without its eager `{{function_node ...}}` prefix and
# trailing ` name: ...`) for operands of a wrong dtype.
WRONG_DTYPE = [
    (lambda: tf.where([True], tf.ones([1]), tf.ones([1], tf.float64)), tf.errors.InvalidArgumentError,
     "cannot compute SelectV2 as input #2(zero-based) was expected to be a float tensor but is "
     "a double tensor [Op:SelectV2]"),
    (lambda: tf.tensor_scatter_nd_update(tf.ones([2]), [[0]], tf.ones([1], tf.float64)),
     tf.errors.InvalidArgumentError,
     "cannot compute TensorScatterUpdate as input #2(zero-based) was expected to be a float "
     "tensor but is a double tensor [Op:TensorScatterUpdate]"),
    (lambda: tf.math.segment_sum(tf.ones([2]), tf.constant([0.0, 1.0])),
     tf.errors.InvalidArgumentError,
     "Value for attr 'Tindices' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.math.segment_mean(tf.ones([2]), tf.constant([0, 1], tf.int16)),
     tf.errors.InvalidArgumentError,
     "Value for attr 'Tindices' of int16 is not in the list of allowed values: int32, int64"),
    (lambda: tf.math.unsorted_segment_sum(tf.ones([2]), tf.constant([0.0, 1.0]), 2),
     tf.errors.InvalidArgumentError,
     "Value for attr 'Tindices' of float is not in the list of allowed values: int16, int32, "
     "int64"),
    (lambda: tf.cumsum(tf.ones([2]), axis=tf.constant(0.0)), tf.errors.InvalidArgumentError,
     "Value for attr 'Tidx' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.cumsum(tf.ones([2]), axis=0.0), TypeError,
     "Cannot convert 0.0 to EagerTensor of dtype int32"),
    (lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1], tf.float16), tf.ones([2, 2, 1, 1], tf.float64),
                          1, "VALID"), tf.errors.InvalidArgumentError,
     "cannot compute Conv2D as input #1(zero-based) was expected to be a half tensor but is a "
     "double tensor [Op:Conv2D]"),
    (lambda: tf.math.real(tf.constant([True])), TypeError,
     "input must be a numeric tensor, but got tensor with dtype <dtype: 'bool'>"),
    (lambda: tf.math.real(tf.constant("a")), TypeError,
     "input must be a numeric tensor, but got tensor with dtype <dtype: 'string'>"),
    # TF's Python wrappers check before any kernel: stack's axis before its dtypes.
    (lambda: tf.stack([tf.constant([1], tf.int64), tf.constant([2])], axis=-3), ValueError,
     "Argument `axis` = -3 not in range [-2, 2)"),
    (lambda: tf.linalg.pinv(tf.constant([1.5, 2.0])), ValueError,
     "Input `a` must have at least 2 dimensions (saw: 1)."),
    # Bool inputs have no dtype attribute: TF names the input; Python values convert to bool.
    (lambda: tf.math.logical_or(tf.constant([1]), tf.constant([True])),
     tf.errors.InvalidArgumentError,
     "cannot compute LogicalOr as input #0(zero-based) was expected to be a bool tensor but is "
     "a int32 tensor [Op:LogicalOr]"),
    (lambda: tf.math.logical_or(tf.constant([1 + 1j]), 0), TypeError,
     "Cannot convert 0 to EagerTensor of dtype bool"),
    (lambda: tf.math.logical_not(tf.constant([1])), tf.errors.InvalidArgumentError,
     "cannot compute LogicalNot as input #0(zero-based) was expected to be a bool tensor but is "
     "a int32 tensor [Op:LogicalNot]"),
    (lambda: tf.reduce_all(tf.constant([1.5])), tf.errors.InvalidArgumentError,
     "cannot compute All as input #0(zero-based) was expected to be a bool tensor but is a "
     "float tensor [Op:All]"),
    (lambda: tf.reduce_any([1, 0]), TypeError, "Cannot convert [1, 0] to EagerTensor of dtype bool"),
    # sparse_softmax_cross_entropy_with_logits: shapes (Python) before dtypes (the kernel)
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([1.0]), logits=tf.constant([1], tf.uint8)), ValueError,
     "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(1,) of "
     "rank 1 and logits.shape=(1,) of rank 1"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(1.0), logits=tf.constant(1, tf.uint8)), ValueError,
     "`logits` cannot be a scalar. Received logits=1`"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([1]), logits=tf.constant([[1, 2]], tf.uint8)),
     tf.errors.InvalidArgumentError,
     "Value for attr 'T' of uint8 is not in the list of allowed values: half, bfloat16, float, "
     "double"),
]


@pytest.mark.parametrize("call, error, text", WRONG_DTYPE)
def test_wrong_dtype_operands_raise_tensorflows_error(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(text)


# TF 2.21's NotFoundError where it declares a dtype but has no CPU kernel for it: the first
# line of its message (the node's dtypes as DataType enum names).
NO_KERNEL = [
    (lambda: tf.nn.avg_pool3d(tf.ones([1, 2, 2, 2, 1], tf.float16), 1, 1, "VALID"),
     "Could not find device for node: {{node AvgPool3D}} = AvgPool3D[T=DT_HALF"),
    (lambda: tf.scatter_nd(tf.constant([[0]], tf.int16), [1.], [2]),
     'Could not find device for node: {{node ScatterNd}} = ScatterNd[T=DT_FLOAT, '
     'Tindices=DT_INT16, bad_indices_policy=""]'),
    (lambda: tf.tensor_scatter_nd_update(tf.constant([1.], tf.float64),
                                         tf.constant([[0]], tf.int16), tf.constant([1.], tf.float64)),
     'Could not find device for node: {{node TensorScatterUpdate}} = TensorScatterUpdate['
     'T=DT_DOUBLE, Tindices=DT_INT16, bad_indices_policy=""]'),
    (lambda: tf.tensor_scatter_nd_add(tf.constant([True]), [[0]], [True]),
     'Could not find device for node: {{node TensorScatterAdd}} = TensorScatterAdd[T=DT_BOOL, '
     'Tindices=DT_INT32, bad_indices_policy=""]'),
]


@pytest.mark.parametrize("call, text", NO_KERNEL)
def test_dtypes_without_a_cpu_kernel_raise_tensorflows_not_found(call, text):
    with pytest.raises(tf.errors.NotFoundError) as info:
        call()
    assert str(info.value).startswith(text)
