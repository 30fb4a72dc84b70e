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


# -- binary operands: conversion of mixed operands (TF 2.21's answers, measured with it) ------

def _operand(name):
    """A fresh operand by its short name: T tensor, V variable, A NumPy array, S NumPy
    scalar, L list (i ints, f floats, m mixed), then int/float/bool Python numbers."""
    return {
        "Tf32": lambda: tf.constant([1.5, 2.0]), "Tf64": lambda: tf.constant([1.5, 2.0], tf.float64),
        "Ti32": lambda: tf.constant([3, 2]), "Ti64": lambda: tf.constant([3, 2], tf.int64),
        "Vf32": lambda: tf.Variable([1.5, 2.0]), "Vi32": lambda: tf.Variable([3, 2]),
        "Af64": lambda: np.array([1.5, 2.0]), "Af32": lambda: np.array([1.5, 2.0], np.float32),
        "Ai64": lambda: np.array([3, 2]), "Ai32": lambda: np.array([3, 2], np.int32),
        "Ab": lambda: np.array([True, False]), "Sf64": lambda: np.float64(2.5),
        "Si64": lambda: np.int64(3), "int": lambda: 3, "float": lambda: 2.5, "bool": lambda: True,
        "Li": lambda: [3, 2], "Lf": lambda: [1.5, 2.5], "Lm": lambda: [3, 2.5],
    }[name]()


_BINARY = {
    "multiply": tf.math.multiply, "maximum": tf.math.maximum, "add": tf.math.add,
    "divide": tf.math.divide, "pow": tf.math.pow, "equal": tf.math.equal,
    "op*": lambda x, y: x * y, "op/": lambda x, y: x / y, "op//": lambda x, y: x // y,
    "op**": lambda x, y: x ** y, "op<": lambda x, y: x < y, "op+": lambda x, y: x + y,
    "op==": lambda x, y: x == y,
}

# (op, x, y, TF's dtype and values | TF's error class). tf.math functions convert as TF's op
# wrappers do (a tensor fixes the dtype, else the first operand converts and the second to
# its dtype); operators as TF's Tensor operators (`3 * x` converts 3 to x's dtype first).
_BINARY_CASES = [
    ('multiply', 'Af64', 'int', 'float64', [4.5, 6.0]),
    ('multiply', 'int', 'Af64', 'int32', [3.0, 6.0]),
    ('multiply', 'float', 'Li', 'float32', [7.5, 5.0]),
    ('multiply', 'Li', 'float', 'TypeError'),
    ('multiply', 'Sf64', 'Ai32', 'float64', [7.5, 5.0]),
    ('multiply', 'Si64', 'Lf', 'TypeError'),
    ('multiply', 'Ti32', 'Lf', 'TypeError'),
    ('multiply', 'Lf', 'Ti32', 'TypeError'),
    ('multiply', 'float', 'Ti32', 'TypeError'),
    ('multiply', 'int', 'Tf32', 'float32', [4.5, 6.0]),
    ('multiply', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('multiply', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('multiply', 'Vi32', 'Lm', 'TypeError'),
    ('multiply', 'Li', 'Vf32', 'ValueError'),
    ('multiply', 'Si64', 'Vf32', 'ValueError'),
    ('multiply', 'Af64', 'Vi32', 'int32', [3.0, 4.0]),
    ('multiply', 'bool', 'Af64', 'InvalidArgumentError'),
    ('multiply', 'Ab', 'int', 'TypeError'),
    ('multiply', 'Tf32', 'Af64', 'float32', [2.25, 4.0]),
    ('maximum', 'Af64', 'int', 'float64', [3.0, 3.0]),
    ('maximum', 'int', 'Af64', 'int32', [3.0, 3.0]),
    ('maximum', 'float', 'Li', 'float32', [3.0, 2.5]),
    ('maximum', 'Li', 'float', 'TypeError'),
    ('maximum', 'Sf64', 'Ai32', 'float64', [3.0, 2.5]),
    ('maximum', 'Si64', 'Lf', 'TypeError'),
    ('maximum', 'Ti32', 'Lf', 'TypeError'),
    ('maximum', 'Lf', 'Ti32', 'TypeError'),
    ('maximum', 'float', 'Ti32', 'TypeError'),
    ('maximum', 'int', 'Tf32', 'float32', [3.0, 3.0]),
    ('maximum', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('maximum', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('maximum', 'Vi32', 'Lm', 'TypeError'),
    ('maximum', 'Li', 'Vf32', 'ValueError'),
    ('maximum', 'Si64', 'Vf32', 'ValueError'),
    ('maximum', 'Af64', 'Vi32', 'int32', [3.0, 2.0]),
    ('maximum', 'bool', 'Af64', 'InvalidArgumentError'),
    ('maximum', 'Ab', 'int', 'TypeError'),
    ('maximum', 'Tf32', 'Af64', 'float32', [1.5, 2.0]),
    ('add', 'Af64', 'int', 'float64', [4.5, 5.0]),
    ('add', 'int', 'Af64', 'int32', [4.0, 5.0]),
    ('add', 'float', 'Li', 'float32', [5.5, 4.5]),
    ('add', 'Li', 'float', 'InvalidArgumentError'),
    ('add', 'Sf64', 'Ai32', 'float64', [5.5, 4.5]),
    ('add', 'Si64', 'Lf', 'InvalidArgumentError'),
    ('add', 'Ti32', 'Lf', 'InvalidArgumentError'),
    ('add', 'Lf', 'Ti32', 'InvalidArgumentError'),
    ('add', 'float', 'Ti32', 'InvalidArgumentError'),
    ('add', 'int', 'Tf32', 'InvalidArgumentError'),
    ('add', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('add', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('add', 'Vi32', 'Lm', 'InvalidArgumentError'),
    ('add', 'Li', 'Vf32', 'InvalidArgumentError'),
    ('add', 'Si64', 'Vf32', 'InvalidArgumentError'),
    ('add', 'Af64', 'Vi32', 'InvalidArgumentError'),
    ('add', 'bool', 'Af64', 'InvalidArgumentError'),
    ('add', 'Ab', 'int', 'InvalidArgumentError'),
    ('add', 'Tf32', 'Af64', 'float32', [3.0, 4.0]),
    ('divide', 'Af64', 'int', 'float64', [0.5, 0.666667]),
    ('divide', 'int', 'Af64', 'float64', [3.0, 1.5]),
    ('divide', 'float', 'Li', 'float32', [0.833333, 1.25]),
    ('divide', 'Li', 'float', 'TypeError'),
    ('divide', 'Sf64', 'Ai32', 'float64', [0.833333, 1.25]),
    ('divide', 'Si64', 'Lf', 'TypeError'),
    ('divide', 'Ti32', 'Lf', 'TypeError'),
    ('divide', 'Lf', 'Ti32', 'TypeError'),
    ('divide', 'float', 'Ti32', 'TypeError'),
    ('divide', 'int', 'Tf32', 'float32', [2.0, 1.5]),
    ('divide', 'Tf32', 'Tf64', 'TypeError'),
    ('divide', 'Ti32', 'Ti64', 'TypeError'),
    ('divide', 'Vi32', 'Lm', 'TypeError'),
    ('divide', 'Li', 'Vf32', 'float32', [2.0, 1.0]),
    ('divide', 'Si64', 'Vf32', 'float32', [2.0, 1.5]),
    ('divide', 'Af64', 'Vi32', 'float64', [0.333333, 1.0]),
    ('divide', 'Ab', 'int', 'TypeError'),
    ('divide', 'Tf32', 'Af64', 'float32', [1.0, 1.0]),
    ('pow', 'Af64', 'int', 'float64', [3.375, 8.0]),
    ('pow', 'int', 'Af64', 'int32', [3.0, 9.0]),
    ('pow', 'float', 'Li', 'float32', [15.625, 6.25]),
    ('pow', 'Li', 'float', 'TypeError'),
    ('pow', 'Sf64', 'Ai32', 'float64', [15.625, 6.25]),
    ('pow', 'Si64', 'Lf', 'TypeError'),
    ('pow', 'Ti32', 'Lf', 'TypeError'),
    ('pow', 'Lf', 'Ti32', 'TypeError'),
    ('pow', 'float', 'Ti32', 'TypeError'),
    ('pow', 'int', 'Tf32', 'float32', [5.196152, 9.0]),
    ('pow', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('pow', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('pow', 'Vi32', 'Lm', 'TypeError'),
    ('pow', 'Li', 'Vf32', 'ValueError'),
    ('pow', 'Si64', 'Vf32', 'ValueError'),
    ('pow', 'Af64', 'Vi32', 'int32', [1.0, 4.0]),
    ('pow', 'bool', 'Af64', 'InvalidArgumentError'),
    ('pow', 'Ab', 'int', 'TypeError'),
    ('pow', 'Tf32', 'Af64', 'float32', [1.837117, 4.0]),
    ('equal', 'Af64', 'int', 'bool', [0.0, 0.0]),
    ('equal', 'int', 'Af64', 'bool', [0.0, 0.0]),
    ('equal', 'float', 'Li', 'bool', [0.0, 0.0]),
    ('equal', 'Li', 'float', 'TypeError'),
    ('equal', 'Sf64', 'Ai32', 'bool', [0.0, 0.0]),
    ('equal', 'Si64', 'Lf', 'TypeError'),
    ('equal', 'Ti32', 'Lf', 'TypeError'),
    ('equal', 'Lf', 'Ti32', 'TypeError'),
    ('equal', 'float', 'Ti32', 'TypeError'),
    ('equal', 'int', 'Tf32', 'bool', [0.0, 0.0]),
    ('equal', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('equal', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('equal', 'Vi32', 'Lm', 'TypeError'),
    ('equal', 'Li', 'Vf32', 'ValueError'),
    ('equal', 'Si64', 'Vf32', 'ValueError'),
    ('equal', 'Af64', 'Vi32', 'bool', [0.0, 1.0]),
    ('equal', 'bool', 'Af64', 'bool', [1.0, 1.0]),
    ('equal', 'Ab', 'int', 'TypeError'),
    ('equal', 'Tf32', 'Af64', 'bool', [1.0, 1.0]),
    ('op*', 'Ti32', 'Lf', 'TypeError'),
    ('op*', 'Lf', 'Ti32', 'TypeError'),
    ('op*', 'float', 'Ti32', 'TypeError'),
    ('op*', 'int', 'Tf32', 'float32', [4.5, 6.0]),
    ('op*', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op*', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op*', 'Vi32', 'Lm', 'TypeError'),
    ('op*', 'Li', 'Vf32', 'float32', [4.5, 4.0]),
    ('op*', 'Si64', 'Vf32', 'float32', [4.5, 6.0]),
    ('op*', 'Af64', 'Vi32', 'int32', [3.0, 4.0]),
    ('op*', 'Tf32', 'Af64', 'float32', [2.25, 4.0]),
    ('op/', 'Ti32', 'Lf', 'TypeError'),
    ('op/', 'Lf', 'Ti32', 'TypeError'),
    ('op/', 'float', 'Ti32', 'TypeError'),
    ('op/', 'int', 'Tf32', 'float32', [2.0, 1.5]),
    ('op/', 'Tf32', 'Tf64', 'TypeError'),
    ('op/', 'Ti32', 'Ti64', 'TypeError'),
    ('op/', 'Vi32', 'Lm', 'TypeError'),
    ('op/', 'Li', 'Vf32', 'float32', [2.0, 1.0]),
    ('op/', 'Si64', 'Vf32', 'float32', [2.0, 1.5]),
    ('op/', 'Af64', 'Vi32', 'float64', [0.333333, 1.0]),
    ('op/', 'Tf32', 'Af64', 'float32', [1.0, 1.0]),
    ('op//', 'Ti32', 'Lf', 'TypeError'),
    ('op//', 'Lf', 'Ti32', 'TypeError'),
    ('op//', 'float', 'Ti32', 'TypeError'),
    ('op//', 'int', 'Tf32', 'float32', [2.0, 1.0]),
    ('op//', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op//', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op//', 'Vi32', 'Lm', 'TypeError'),
    ('op//', 'Li', 'Vf32', 'float32', [2.0, 1.0]),
    ('op//', 'Si64', 'Vf32', 'float32', [2.0, 1.0]),
    ('op//', 'Af64', 'Vi32', 'int32', [0.0, 1.0]),
    ('op//', 'Tf32', 'Af64', 'float32', [1.0, 1.0]),
    ('op**', 'Ti32', 'Lf', 'TypeError'),
    ('op**', 'Lf', 'Ti32', 'TypeError'),
    ('op**', 'float', 'Ti32', 'TypeError'),
    ('op**', 'int', 'Tf32', 'float32', [5.196152, 9.0]),
    ('op**', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op**', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op**', 'Vi32', 'Lm', 'TypeError'),
    ('op**', 'Li', 'Vf32', 'float32', [5.196152, 4.0]),
    ('op**', 'Si64', 'Vf32', 'float32', [5.196152, 9.0]),
    ('op**', 'Af64', 'Vi32', 'int32', [1.0, 4.0]),
    ('op**', 'Tf32', 'Af64', 'float32', [1.837117, 4.0]),
    ('op<', 'Ti32', 'Lf', 'TypeError'),
    ('op<', 'Lf', 'Ti32', 'TypeError'),
    ('op<', 'float', 'Ti32', 'TypeError'),
    ('op<', 'int', 'Tf32', 'bool', [0.0, 0.0]),
    ('op<', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op<', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op<', 'Vi32', 'Lm', 'TypeError'),
    ('op<', 'Li', 'Vf32', 'bool', [0.0, 0.0]),
    ('op<', 'Si64', 'Vf32', 'bool', [0.0, 0.0]),
    ('op<', 'Af64', 'Vi32', 'bool', [1.0, 0.0]),
    ('op<', 'Tf32', 'Af64', 'bool', [0.0, 0.0]),
    ('op+', 'Ti32', 'Lf', 'InvalidArgumentError'),
    ('op+', 'Lf', 'Ti32', 'TypeError'),
    ('op+', 'float', 'Ti32', 'TypeError'),
    ('op+', 'int', 'Tf32', 'float32', [4.5, 5.0]),
    ('op+', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op+', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op+', 'Vi32', 'Lm', 'InvalidArgumentError'),
    ('op+', 'Li', 'Vf32', 'float32', [4.5, 4.0]),
    ('op+', 'Si64', 'Vf32', 'float32', [4.5, 5.0]),
    ('op+', 'Af64', 'Vi32', 'int32', [4.0, 4.0]),
    ('op+', 'Tf32', 'Af64', 'float32', [3.0, 4.0]),
    ('op==', 'Ti32', 'Lf', 'TypeError'),
    ('op==', 'Lf', 'Ti32', 'TypeError'),
    ('op==', 'float', 'Ti32', 'TypeError'),
    ('op==', 'int', 'Tf32', 'bool', [0.0, 0.0]),
    ('op==', 'Tf32', 'Tf64', 'InvalidArgumentError'),
    ('op==', 'Ti32', 'Ti64', 'InvalidArgumentError'),
    ('op==', 'Vi32', 'Lm', 'TypeError'),
    ('op==', 'Li', 'Vf32', 'bool', [0.0, 1.0]),
    ('op==', 'Si64', 'Vf32', 'bool', [0.0, 0.0]),
    ('op==', 'Af64', 'Vi32', 'bool', [0.0, 1.0]),
    ('op==', 'Tf32', 'Af64', 'bool', [1.0, 1.0]),
]


@pytest.mark.parametrize("op, x, y, expected, values", [
    case if len(case) == 5 else case + (None,) for case in _BINARY_CASES])
def test_binary_operand_conversion_matches_tensorflow(op, x, y, expected, values):
    fn = _BINARY[op]
    x, y = _operand(x), _operand(y)
    if values is None:
        error = {"TypeError": TypeError, "ValueError": ValueError,
                 "InvalidArgumentError": InvalidArgumentError}[expected]
        with pytest.raises(error) as info:
            fn(x, y)
        if error is TypeError:  # InvalidArgumentError is no TypeError: the class is exact
            assert not isinstance(info.value, InvalidArgumentError)
        return
    result = fn(x, y)
    assert result.dtype.name == expected
    np.testing.assert_allclose(np.asarray(result.numpy(), float), values, atol=1e-6)  # 6 places


def test_numpy_operand_keeps_its_dtype_over_a_python_number():
    # TF: the array converts first and 42 takes its dtype (not the reverse).
    y = tf.math.multiply(np.ones([2]) * 1.5, 42)
    assert y.dtype == tf.float64 and y.numpy().tolist() == [63.0, 63.0]
    z = tf.maximum(0., [1, -1])  # the list converts to the first operand's float32
    assert z.dtype == tf.float32 and z.numpy().tolist() == [1.0, 0.0]


def test_division_of_mismatched_dtypes_raises_type_error():
    # TF's truediv checks dtypes in Python: TypeError, not the kernel's InvalidArgumentError.
    f32, i32 = tf.constant([1.0, 2.0]), tf.constant([1, 2])
    for x, y in [(f32, i32), (f32, tf.constant([1.0], tf.float64)), (i32, tf.constant([1], tf.int64)),
                 (tf.Variable([1.0]), tf.constant([1.0], tf.float64))]:
        with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got tf\."):
            x / y
        with pytest.raises(TypeError, match="must have the same dtype"):
            tf.math.divide(x, y)
        with pytest.raises(TypeError, match="must have the same dtype"):
            tf.math.divide_no_nan(x, y)
    with pytest.raises(TypeError, match="must have the same dtype, got tf.int32 != tf.float32"):
        i32 / 2.5  # 2.5 converts with int32 only as a hint, as in TF
    # The kernels' own checks stay InvalidArgumentError (tf.floordiv, //, tf.pow, <).
    for fn in (tf.math.floordiv, lambda a, b: a // b, tf.math.pow, lambda a, b: a < b):
        with pytest.raises(InvalidArgumentError):
            fn(f32, tf.constant([1.0], tf.float64))


def test_variable_after_a_list_or_numpy_scalar_must_match_its_dtype():
    # TF's op wrappers take their slow path for these first operands: the variable does not
    # fix the dtype, and a mismatch raises its conversion ValueError.
    v = tf.Variable([1.5, 2.0])
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type int32 "
                                         "for `tf.Variable of type float32"):
        tf.math.multiply([1, 2], v)
    with pytest.raises(ValueError, match="requested to type int64"):
        tf.math.maximum(np.int64(3), v)
    assert tf.math.multiply([1.0, 2.0], v).numpy().tolist() == [1.5, 4.0]
    assert tf.math.multiply(np.float64(2), v).dtype == tf.float32  # a float: the fast path
    assert ([1, 2] * v).dtype == tf.float32  # the operator converts to the variable's dtype


def test_tensor_equality_with_values_that_do_not_convert_raises():
    x = tf.constant([1.5, 2.0])
    assert (x == None) is False and (x != None) is True  # noqa: E711 - TF's special case
    with pytest.raises(TypeError, match="Cannot convert 'a' to EagerTensor of dtype float"):
        x == "a"  # noqa: B015 - the comparison itself raises
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        x == object()  # noqa: B015 - the comparison itself raises
    # Shapes that do not broadcast compare unequal (TF's incompatible_shape_error=False).
    assert (x == tf.constant([1.0, 2.0, 3.0])).numpy() is np.False_
    assert (x != tf.constant([1.0, 2.0, 3.0])).numpy() is np.True_


# -- Python values: TF's sequence inference and requested dtypes (TF 2.21's answers) ---------

@pytest.mark.parametrize("value, dtype", [
    ([np.float64(1), 2.5], tf.float64), ([2.5, np.float64(1)], tf.float32),
    ([np.float16(1), 2.5], tf.float16), ([np.array(1.0), 2.5], tf.float64),
    ([np.int64(1), 2], tf.int32), ([np.uint8(1)], tf.int32), ([np.int64(2 ** 40)], tf.int64),
    ([np.array([1, 2], np.float16)], tf.float16), ([1, True], tf.int32), ([1j, 1.5], tf.complex128),
    ([1.5, True], tf.float32), ([np.float32(1), np.float64(2)], tf.float32),
])
def test_a_list_takes_the_class_of_its_first_element(value, dtype):
    assert tf.constant(value).dtype == dtype


@pytest.mark.parametrize("value", [
    [True, 1], [True, 1.5], [1, 1j], [1.5, 1j], [1, None], [1, "a"], ["a", 1],
    [np.bool_(True), 1], [[True], [1]], [1.5, None],
])
def test_a_list_of_mixed_classes_raises_value_error(value):
    with pytest.raises(ValueError, match="Can't convert Python sequence with mixed types"):
        tf.constant(value)


def test_integers_beyond_int64_raise_value_error_unless_uint64():
    for value in (2 ** 63, [1, 2 ** 64]):
        with pytest.raises(ValueError, match="out-of-range integer"):
            tf.constant(value)
    assert tf.constant(2 ** 64 - 1, tf.uint64).numpy() == 2 ** 64 - 1


def test_requested_dtype_conversion_errors_name_the_kernel_type():
    with pytest.raises(TypeError, match="^Cannot convert 'a' to EagerTensor of dtype float$"):
        tf.constant("a", tf.float32)
    with pytest.raises(TypeError, match="^Cannot convert 1.5 to EagerTensor of dtype int32$"):
        tf.constant(1.5, tf.int32)
    assert (tf.constant([1.0, 2.0]) * [True, 1.0]).numpy().tolist() == [1.0, 2.0]


def test_a_list_of_tensors_packs_with_the_first_tensors_dtype():
    t1 = tf.constant(1.0)
    assert tf.convert_to_tensor([t1, 2]).dtype == tf.float32
    assert tf.convert_to_tensor([2.0, tf.constant(1.0, tf.float64)]).dtype == tf.float64
    with pytest.raises(InvalidArgumentError, match="cannot compute Pack as input #1"):
        tf.convert_to_tensor([t1, tf.constant(2)])


def test_converting_a_variable_to_another_dtype_raises_tf_value_error():
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type int32 "
                                         "for `tf.Variable of type float32"):
        tf.convert_to_tensor(tf.Variable(1.0), dtype=tf.int32)
