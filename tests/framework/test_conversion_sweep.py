"""Python values to tensors at the edges of the dtypes: floats beyond float32, integers beyond
int64, complex128 requests. Every expected value and error here is TF 2.21's answer."""

import numpy as np
import pytest

import tapeflow as tf

DOUBLE_RANGE = "Can't convert Python sequence with a value out of range for a double-precision float."
OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
MIXED = "Can't convert Python sequence with mixed types to Tensor."


# -- A finite float that overflows the inferred float32 (or float16) is refused -------------

@pytest.mark.parametrize("make", [
    lambda: tf.constant(1e40), lambda: tf.constant(-1e40), lambda: tf.constant([1e40]),
    lambda: tf.constant([1.0, 1e40]), lambda: tf.constant([1, 1e40]),
    lambda: tf.constant([1e40, 1]), lambda: tf.constant(3.4028235677973366e38),
    lambda: tf.constant([1.0, np.float64(1e40)]), lambda: tf.constant([np.float32(1), 1e40]),
    lambda: tf.constant([np.float16(1), 70000.0]), lambda: tf.constant([1.0, True, 1e40]),
    lambda: tf.constant([1.0, np.array(1e40)]), lambda: tf.constant([1.5, 10 ** 400]),
    lambda: tf.constant([1e40, "a"]), lambda: tf.constant([1, 1e40, "a"]),
    lambda: tf.constant([1e40, 1 + 1j]),
    lambda: tf.convert_to_tensor(1e40), lambda: tf.convert_to_tensor(1e40, dtype_hint=tf.int32),
    lambda: tf.fill([2], 3e40), lambda: tf.fill([4, -2], 3e40), lambda: tf.Variable(1e40),
    lambda: tf.add(1e40, tf.constant([1.0, 2.0])),
])
def test_inferred_float32_overflow_raises(make):
    with pytest.raises(ValueError, match="out of range for a double-precision float"):
        make()


def test_float32_limit_and_non_finite_values_convert():
    assert tf.constant(3.4028235677973362e38).numpy() == np.float32(3.4028235e38)
    assert tf.constant(float("inf")).numpy() == np.inf
    assert np.isnan(tf.constant(float("nan")).numpy())
    assert tf.constant(1e-50).numpy() == 0.0
    assert tf.constant([1.5, 10 ** 39]).numpy().tolist() == [1.5, np.inf]  # ints: no check
    assert tf.constant([np.float64(1), 1e40]).dtype == tf.float64


@pytest.mark.parametrize("make, dtype", [
    (lambda: tf.constant(1e40, tf.float32), tf.float32),
    (lambda: tf.constant([1e40], tf.float32), tf.float32),
    (lambda: tf.constant([1, 1e40], tf.float32), tf.float32),
    (lambda: tf.convert_to_tensor([1e40], tf.float32), tf.float32),
    (lambda: tf.convert_to_tensor(1e40, dtype_hint=tf.float32), tf.float32),
    (lambda: tf.constant(1e40, tf.float16), tf.float16),
    (lambda: tf.constant(70000.0, tf.float16), tf.float16),
    (lambda: tf.constant(70000, tf.float16), tf.float16),
    (lambda: tf.constant(10 ** 39, tf.float32), tf.float32),
    (lambda: tf.constant(np.array([1e40]), tf.float32), tf.float32),
    (lambda: tf.constant(np.array([1e40]), tf.float16), tf.float16),
    (lambda: tf.constant(np.float64(1e40), tf.float32), tf.float32),
    (lambda: tf.Variable(1e40, dtype=tf.float32), tf.float32),
    (lambda: tf.constant([1.0, 2.0]) + 1e40, tf.float32),
    (lambda: tf.constant(1.0, tf.float16) + 70000.0, tf.float16),
])
def test_a_requested_float_dtype_takes_overflow_as_inf(make, dtype):
    result = make()
    assert result.dtype == dtype
    assert np.isposinf(result.numpy()).any()


@pytest.mark.parametrize("make, error", [
    (lambda: tf.constant([True, 1e40], tf.float32), MIXED),
    (lambda: tf.constant([True, 1e40], tf.float16), MIXED),
    (lambda: tf.constant([1e40, 1 + 1j], tf.complex64), MIXED),
    (lambda: tf.constant([2 ** 63, 1e40], tf.float32), OUT_OF_RANGE),
])
def test_requested_dtype_errors_after_overflow(make, error):
    with pytest.raises(ValueError, match=error.replace("(", r"\(")):
        make()


def test_overflow_into_a_wider_requested_dtype_is_exact():
    assert tf.constant([True, 1e40], tf.float64).numpy().tolist() == [1.0, 1e40]
    assert tf.constant(1e40, tf.complex128).numpy() == 1e40
    assert tf.constant([1e40, 1 + 1j], tf.complex128).numpy().tolist() == [1e40, 1 + 1j]
    assert tf.constant([1e40], tf.complex64).numpy()[0] == complex(np.inf, 0)
    with pytest.raises(TypeError, match="Cannot convert .* to EagerTensor of dtype int64"):
        tf.constant([1, 1e40], tf.int64)


# -- Integers beyond int64 convert to float dtypes (as doubles) ------------------------------

def test_integers_beyond_int64_convert_to_a_requested_float():
    assert tf.convert_to_tensor([2 ** 63], dtype=tf.float32).numpy().tolist() == [2.0 ** 63]
    assert tf.constant(2 ** 63, tf.float32).numpy() == np.float32(2.0 ** 63)
    assert tf.constant([2 ** 64], tf.float64).numpy().tolist() == [2.0 ** 64]
    assert tf.constant([-2 ** 63 - 1], tf.float32).numpy().tolist() == [-(2.0 ** 63)]
    assert tf.constant([2 ** 63, 1.5, True], tf.float32).numpy().tolist() == [2.0 ** 63, 1.5, 1.0]
    assert tf.constant([2 ** 63], tf.complex128).numpy().tolist() == [2.0 ** 63]
    assert np.isposinf(tf.constant([2 ** 63], tf.float16).numpy()).all()
    assert tf.convert_to_tensor([2 ** 63], dtype_hint=tf.float32).dtype == tf.float32
    x = tf.constant([1.0, 2.0])
    assert (x + [2 ** 63]).numpy().tolist() == [2.0 ** 63, 2.0 ** 63]


def test_integers_beyond_int64_in_a_float_list():
    assert tf.constant([1.5, 2 ** 63]).numpy().tolist() == [1.5, 2.0 ** 63]
    assert tf.constant([1, 1.5, 2 ** 63]).dtype == tf.float32  # the float comes first
    for value in ([1, 2 ** 63], [2 ** 63, 1.5], [2 ** 63]):
        with pytest.raises(ValueError, match="out-of-range integer"):
            tf.constant(value)
    for dtype in (tf.complex64, tf.int64, tf.int32):  # no double converter for these
        with pytest.raises(ValueError, match="out-of-range integer"):
            tf.constant([2 ** 63], dtype)
    for dtype in (tf.float32, tf.float64):  # beyond a double
        with pytest.raises(ValueError, match="out-of-range integer"):
            tf.constant([2 ** 1024], dtype)
    with pytest.raises(ValueError, match="double-precision"):
        tf.constant([1.0, 2 ** 1024])


# -- A Python float meeting complex128 is not rounded through float32 ------------------------

def test_python_float_to_complex128_is_exact():
    z = tf.constant(0.7819378983225546 + 0.2231j, tf.complex128)
    assert ((-0.548) + z).numpy() == 0.23393789832255452 + 0.2231j
    assert (z - 0.548).numpy() == 0.23393789832255452 + 0.2231j
    assert tf.convert_to_tensor(0.1, tf.complex128).numpy() == 0.1
    assert tf.convert_to_tensor([0.1], tf.complex128).numpy().tolist() == [0.1]
    assert tf.add(z, 0.1).numpy() == (0.7819378983225546 + 0.1) + 0.2231j
    assert tf.convert_to_tensor([0.1, 1], tf.complex64).numpy()[0] == np.complex64(0.1)


# -- Python bools convert only where TF's converter for the dtype reads them as numbers ------

@pytest.mark.parametrize("dtype", [tf.int8, tf.int16, tf.uint8, tf.uint16, tf.uint32,
                                   tf.complex64])
def test_python_bools_to_dtypes_without_a_bool_reading_converter(dtype):
    for value in (True, [True, False]):
        with pytest.raises(TypeError, match=f"to EagerTensor of dtype {dtype.name}"):
            tf.constant(value, dtype)
    with pytest.raises(ValueError, match="mixed types"):
        tf.constant([True, 1], dtype)
    assert tf.constant([1, True], dtype).numpy().tolist() == [1, 1]  # an int list: cast
    assert tf.constant(np.bool_(True), dtype).numpy() == 1  # NumPy values cast
    assert tf.convert_to_tensor(True, dtype_hint=dtype).dtype == tf.bool


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.uint64, tf.float16, tf.float32,
                                   tf.float64, tf.complex128])
def test_python_bools_to_dtypes_whose_converter_reads_them(dtype):
    assert tf.constant([True, False], dtype).numpy().tolist() == [1, 0]
    assert tf.constant([True, 1], dtype).numpy().tolist() == [1, 1]
    with pytest.raises(TypeError, match="to EagerTensor of dtype"):
        tf.constant([np.bool_(True)], dtype)  # a NumPy bool in a list: no converter takes it


def test_python_bools_meeting_small_integer_and_complex64_tensors():
    with pytest.raises(TypeError, match="^Cannot convert False to EagerTensor of dtype int16$"):
        False & tf.constant(3, tf.int16)
    with pytest.raises(TypeError, match="^Cannot convert True to EagerTensor of dtype complex64$"):
        True - tf.constant(1 + 1j, tf.complex64)
    with pytest.raises(TypeError, match=r"^Cannot convert \[False\] to EagerTensor of dtype int16$"):
        [False] * tf.constant(-1, tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a uint32 tensor "
                                                             "but is a bool tensor"):
        tf.constant([1, 0], tf.uint32) + True
    assert (tf.constant([1, 0], tf.int32) + True).numpy().tolist() == [2, 1]
    with pytest.raises(TypeError, match="^dtype <dtype: 'bool'> of on_value does not match "
                                        "dtype parameter <dtype: 'uint8'>$"):
        tf.one_hot(tf.constant([1, 0, 3, 3], tf.uint8), 4, on_value=True, off_value=False,
                   dtype=tf.uint8)
    assert tf.one_hot([1, 0], 3, on_value=True, off_value=False,
                      dtype=tf.int32).numpy().tolist() == [[0, 1, 0], [1, 0, 0]]


def test_negative_python_ints_to_uint64_raise_as_tf():
    # TF 2.21 raises SystemError (its converter's OverflowError escapes); never a wrapped value.
    for value in ([-1], -1, [1, -2147483649]):
        with pytest.raises(SystemError, match="returned a result with an exception set"):
            tf.constant(value, tf.uint64)
    assert tf.constant([-1], tf.uint32).numpy().tolist() == [4294967295]  # these wrap
    assert tf.constant([-1], tf.uint8).numpy().tolist() == [255]
    assert tf.constant([2 ** 63], tf.uint64).numpy().tolist() == [2 ** 63]
