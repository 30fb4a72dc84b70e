"""Element-wise math found differing from TensorFlow 2.21 by differential fuzzing."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("fn, op", [
    (lambda: tf.constant([1, 0]) // 0, "FloorDiv"),
    (lambda: tf.math.floordiv(tf.constant([4, 5], tf.int64), [2, 0]), "FloorDiv"),
    (lambda: tf.math.floormod(tf.constant([3]), [0]), "FloorMod"),
    (lambda: tf.constant([-7, 7]) % 0, "FloorMod"),
])
def test_integer_division_by_zero_raises(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Integer division by zero.*{op}"):
        fn()


def test_float_division_by_zero_and_nonzero_integers_still_compute():
    np.testing.assert_array_equal((tf.constant([7.0, -7.0]) // 0.0).numpy(), [np.inf, -np.inf])
    np.testing.assert_array_equal((tf.constant([-7, 7]) // 2).numpy(), [-4, 3])
    np.testing.assert_array_equal((tf.constant([-7, 7]) % 3).numpy(), [2, 1])


# -- asinh/acosh/atanh, truncatediv/truncatemod, polyval (values from TensorFlow 2.21) -----------

def test_inverse_hyperbolics_match_tensorflow():
    np.testing.assert_allclose(tf.asinh(tf.constant([-1.0, 0.0, 2.0])).numpy(),
                               [-0.8813736, 0.0, 1.4436355], rtol=1e-6)
    acosh = tf.math.acosh(tf.constant([0.5, 1.0, 2.0])).numpy()
    assert np.isnan(acosh[0]) and np.allclose(acosh[1:], [0.0, 1.316958])
    atanh = tf.atanh(tf.constant([-1.0, 0.5, 2.0])).numpy()
    assert atanh[0] == -np.inf and np.isclose(atanh[1], 0.54930615) and np.isnan(atanh[2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:Asinh\]"):
        tf.math.asinh(tf.constant([1]))


def test_inverse_hyperbolic_gradients():
    x = tf.constant([1.2, 1.5], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        ys = [tf.asinh(x), tf.acosh(x), tf.atanh(x / 2)]
    np.testing.assert_allclose(tape.gradient(ys[0], x).numpy(), 1 / np.sqrt(x.numpy() ** 2 + 1))
    np.testing.assert_allclose(tape.gradient(ys[1], x).numpy(), 1 / np.sqrt(x.numpy() ** 2 - 1))
    np.testing.assert_allclose(tape.gradient(ys[2], x).numpy(), 0.5 / (1 - x.numpy() ** 2 / 4))


def test_truncatediv_truncatemod_round_toward_zero():
    a, b = tf.constant([-7, 7, -7, 7, 6]), tf.constant([2, -2, -2, 2, 3])
    assert tf.truncatediv(a, b).numpy().tolist() == [-3, -3, 3, 3, 2]
    assert tf.truncatemod(a, b).numpy().tolist() == [-1, 1, -1, 1, 0]
    assert tf.truncatediv(a, b).dtype == tf.int32
    assert tf.truncatediv(tf.constant([-7.5, 7.]), tf.constant([2., -2.])).numpy().tolist() == [-3, -3]
    assert tf.truncatemod(tf.constant([-7.5, 7.]), tf.constant([2., -2.])).numpy().tolist() == [-1.5, 1]
    assert tf.truncatediv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8)).numpy().tolist() == [3]
    with pytest.raises(tf.errors.InternalError, match=r"\[Op:TruncateDiv\]"):
        tf.truncatediv(tf.constant([1]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"bool.*\[Op:TruncateMod\]"):
        tf.truncatemod(tf.constant([True]), tf.constant([True]))


def test_polyval_horner():
    out = tf.math.polyval([1.0, 2.0, 3.0], tf.constant([1.5, 2.0]))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [8.25, 11.0]
    assert tf.math.polyval([2, 3], tf.constant([1, 2])).numpy().tolist() == [5, 7]
    assert tf.math.polyval([], tf.constant([1.5, 2.0])).numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="must be list type"):
        tf.math.polyval(tf.constant([2, 3]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Mul\]"):
        tf.math.polyval([1.0, 2.0], tf.constant([0.5, 2.0], tf.float64))
    assert not hasattr(tf, "polyval") and not hasattr(tf.math, "truncatediv")  # as TensorFlow


# -- dtypes TF refuses, values at the edges, pow's exponent gradient (TF 2.21's answers) --------

def test_add_n_refuses_what_tf_refuses():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"must have the same size and shape"
                                                               r".*Input 0: \[2\] != input 1: "
                                                               r"\[2,1\] \[Op:AddN\]"):
        tf.add_n([tf.constant([1., 2.]), tf.constant([[1.], [2.]])])  # no broadcasting
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input 1: \[\]"):
        tf.add_n([tf.constant([1., 2.]), tf.constant(1.)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of bool .*\[Op:AddN\]"):
        tf.add_n([tf.constant([True]), tf.constant([False])])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute AddN as input #1"):
        tf.add_n([tf.constant([1., 2.]), [3, 4]])  # each input converts on its own
    assert tf.add_n([tf.constant([True])]).numpy().tolist() == [True]  # one input: as it is
    assert tf.add_n([tf.constant([1, 2]), tf.constant([3, 4])]).numpy().tolist() == [4, 6]


def test_add_refuses_bools_and_concatenates_strings():
    b = tf.constant([True, False])
    for fn in (lambda: b + b, lambda: tf.add(b, b), lambda: tf.math.add(b, True)):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"of bool .*\[Op:AddV2\]"):
            fn()
    assert (tf.constant(["a", "b"]) + "c").numpy().tolist() == [b"ac", b"bc"]
    assert tf.add("c", tf.constant(["a"])).numpy().tolist() == [b"ca"]


@pytest.mark.parametrize("fn", [
    lambda: -tf.constant([1], tf.uint8), lambda: tf.abs(tf.constant([1], tf.uint32)),
    lambda: tf.sign(tf.constant([1], tf.uint16)),
    lambda: tf.pow(tf.constant([2], tf.uint8), tf.constant([2], tf.uint8)),
    lambda: tf.maximum(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.minimum(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.less(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.greater_equal(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.math.floormod(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.atan2(tf.constant([1j]), tf.constant([1j])),
    lambda: tf.math.squared_difference(tf.constant([3], tf.int8), tf.constant([1], tf.int8)),
    lambda: tf.math.squared_difference(tf.constant([True]), tf.constant([True])),
])
def test_dtypes_tf_refuses_raise_invalid_argument(fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"is not in the list of allowed"):
        fn()


@pytest.mark.parametrize("fn, op", [
    (lambda: tf.math.reciprocal(tf.constant([2])), "Reciprocal"),
    (lambda: tf.round(tf.constant([3.5 + 4j])), "Round"),
    (lambda: tf.constant([1j]) // tf.constant([1j]), "FloorDiv"),
    (lambda: tf.truncatediv(tf.constant([1j]), tf.constant([1j])), "TruncateDiv"),
    (lambda: tf.truncatemod(tf.constant([3.], tf.float16), tf.constant([1.], tf.float16)),
     "TruncateMod"),
])
def test_dtypes_without_a_cpu_kernel_raise_not_found(fn, op):
    with pytest.raises(tf.errors.NotFoundError, match=rf"Could not find device.*\[Op:{op}\]"):
        fn()


def test_true_division_of_bools_and_strings_is_a_type_error():
    b = tf.constant([True])
    with pytest.raises(TypeError, match=r"^Invalid dtype tf.bool in __truediv__. Expected one"):
        b / b
    with pytest.raises(TypeError, match=r"^Invalid dtype tf.string in __truediv__"):
        tf.divide(tf.constant(["a"]), tf.constant(["a"]))
    with pytest.raises(TypeError, match=r"^Invalid dtype tf.bool in tf.math.divide_no_nan"):
        tf.math.divide_no_nan(b, b)


def test_strings_compare_equal():
    s = tf.constant(["a", "b"])
    assert tf.equal(s, "a").numpy().tolist() == [True, False]
    assert tf.not_equal(s, s).numpy().tolist() == [False, False]


def test_float_floordiv_and_floormod_with_infinities_match_tensorflow():
    a = tf.constant([np.inf, -np.inf, np.inf, -np.inf, 5., -5., 5., -5., 0., np.nan, -0.])
    b = tf.constant([3., 3., -3., -3., np.inf, np.inf, -np.inf, -np.inf, np.inf, 1., 3.])
    inf, nan = np.inf, np.nan
    div = (a // b).numpy()
    np.testing.assert_array_equal(div, [inf, -inf, -inf, inf, 0., -0., -0., 0., 0., nan, -0.])
    assert np.signbit(div).tolist() == [False, True, True, False, False, True, True, False,
                                        False, False, True]
    np.testing.assert_array_equal(tf.math.floordiv(tf.constant([1., 7.], tf.float64),
                                                   tf.constant([0.1, 0.7], tf.float64)).numpy(),
                                  [10., 10.])  # the rounded quotient, floored (NumPy: 9, 9)
    mod = (a % b).numpy()
    np.testing.assert_array_equal(mod, [nan, nan, nan, nan, 5., inf, -inf, -5., 0., nan, -0.])
    signed = (tf.constant([3., -3., 0., -0.]) % tf.constant([3., 3., -3., 3.])).numpy()
    assert np.signbit(signed).tolist() == [False, True, False, True]


def test_zeros_like_and_ones_like_of_strings():
    s = tf.constant(["a", "b"])
    assert tf.zeros_like(s).numpy().tolist() == [b"", b""]
    assert tf.zeros_like(tf.constant([1]), dtype=tf.string).numpy().tolist() == [b""]
    assert tf.function(lambda x: tf.zeros_like(x))(s).numpy().tolist() == [b"", b""]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of string .*\[Op:OnesLike\]"):
        tf.ones_like(s)
    with pytest.raises(TypeError, match=r"^Cannot convert 1 to EagerTensor of dtype string$"):
        tf.ones_like(tf.constant([1]), dtype=tf.string)


def test_pow_gradient_for_the_exponent_at_non_positive_bases():
    # TF's rule multiplies x**y by log(x) taken as 0 where x <= 0: NaN where x**y is inf/NaN.
    with tf.GradientTape() as tape:
        x = tf.constant([0., -2., 2., 0., -1., 0., -2.])
        y = tf.constant([2., 2., 2., 0., 0.5, -1., 3.])
        tape.watch(y)
        z = tf.pow(x, y)
    gy = tape.gradient(z, y).numpy()
    np.testing.assert_allclose(gy, [0., 0., 2.7725887, 0., np.nan, np.nan, -0.], rtol=1e-6)
    assert np.signbit(gy[-1])


def test_conj_and_real():
    z = tf.constant([1 + 2j, -3j])
    assert tf.math.conj(z).numpy().tolist() == [1 - 2j, 3j]
    r = tf.math.real(z)
    assert r.dtype == tf.float64 and r.numpy().tolist() == [1., 0.]
    x = tf.constant([1.5])
    assert tf.math.conj(x) is x and tf.math.real(x) is x
    with pytest.raises(TypeError, match=r"Expected numeric or variant tensor"):
        tf.math.conj(tf.constant(["a"]))


# -- round 2 of the differential sweep (TF 2.21's answers, measured with it) ---------------------

@pytest.mark.parametrize("fn, op", [(tf.truncatediv, "TruncateDiv"), (tf.truncatemod, "TruncateMod"),
                                    (tf.math.floordiv, "FloorDiv"), (tf.math.floormod, "FloorMod")])
def test_shape_mismatch_is_reported_before_a_zero_divisor(fn, op):
    # TF checks the broadcast first: InvalidArgumentError, not the divisor's error.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Incompatible shapes: \[4,3\] vs. \[4,2\] \[Op:{op}\]"):
        fn(tf.constant([[1, 4, 1]] * 4), tf.constant([[-2, 0]] * 4))


@pytest.mark.parametrize("dtype", [tf.complex64, tf.complex128])
def test_complex_rsqrt_of_an_infinity_is_zero(dtype):
    # 1 / sqrt(z) with sqrt(z) infinite (sqrt(nan + inf j) = inf + inf j): TF gives 0.
    z = [complex(np.nan, np.inf), complex(np.inf, np.inf), complex(1, np.inf),
         complex(np.inf, 0), complex(-np.inf, 0), complex(np.inf, np.nan), complex(-np.inf, np.inf)]
    assert tf.math.rsqrt(tf.constant(z, dtype)).numpy().tolist() == [0j] * len(z)
    at_zero = tf.math.rsqrt(tf.constant([0j], dtype)).numpy()[0]
    assert at_zero.real == np.inf and np.isnan(at_zero.imag)


def test_bool_tensors_multiply_through_int32():
    b = tf.constant([True, False])
    for out in [b * b, b * True, True * b, b * 1, b * [2], b * tf.constant([1.5, 0.5]),
                tf.constant([3, 0]) * b, b * np.array([1.5, 0.0]), tf.Variable([True, False]) * b]:
        assert out.dtype == tf.bool and out.numpy().tolist() == [True, False]
    assert (b * 0.5).numpy().tolist() == [False, False]  # 0.5 casts to 0
    assert (tf.constant([[True], [False]]) * b).numpy().tolist() == [[True, False], [False, False]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes.*\[Op:Mul\]"):
        tf.constant([True, False, True]) * b
    with pytest.raises(tf.errors.UnimplementedError, match="Cast string to int32"):
        b * ["a", "b"]
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype bool"):
        2.5 * b  # the reflected operator converts to bool first
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of bool is not in the list"):
        tf.multiply(b, b)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of bool is not in the list"):
        b + b


class _Reflecting:
    def __radd__(self, other):
        return "radd"

    def __rmul__(self, other):
        return "rmul"

    def __rsub__(self, other):
        return NotImplemented

    def __rtruediv__(self, other):
        raise ValueError("its own error")

    def __rmatmul__(self, other):
        return "rmatmul"

    def __rpow__(self, other):
        return "rpow"

    def __rfloordiv__(self, other):
        return "rfloordiv"

    def __rmod__(self, other):
        return "rmod"

    def __rand__(self, other):
        return "rand"


def test_operators_fall_back_to_the_other_operands_reflected_method():
    x = tf.constant([1.0, 2.0])
    assert x + _Reflecting() == "radd" and x * _Reflecting() == "rmul"
    assert x @ _Reflecting() == "rmatmul" and x ** _Reflecting() == "rpow"
    assert x // _Reflecting() == "rfloordiv" and x % _Reflecting() == "rmod"
    assert tf.constant([True]) & _Reflecting() == "rand"
    # NotImplemented, or an error of its own: the operator's own error stands.
    for fn in (lambda: x - _Reflecting(), lambda: x / _Reflecting(), lambda: x < _Reflecting()):
        with pytest.raises(ValueError, match="Attempt to convert a value"):
            fn()
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        tf.add(x, _Reflecting())  # only the operators fall back
    out = tf.constant([True, False]) / np.array([True, True])  # NumPy divides them
    assert type(out) is np.ndarray and out.dtype == np.float64 and out.tolist() == [1.0, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:AddV2\]"):
        tf.constant([True, False]) + np.array([True, True])  # not a TypeError: no fallback


def test_complex_reciprocal_of_an_infinity_is_zero():
    # TF 2.21: reciprocal(nan + inf j) is -0j, reciprocal(inf + 1j) is 0j; (0j) stays NaN.
    out = tf.math.reciprocal(tf.constant([complex(np.nan, np.inf), complex(np.inf, 1)]))
    assert out.numpy().tolist() == [0j, 0j]
    assert np.isnan(tf.math.reciprocal(tf.constant([0j])).numpy()[0])


@pytest.mark.parametrize("rank", [0, 9])
def test_where_of_a_rank_it_has_no_kernel_for_raises(rank):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"WhereOp : Unhandled input dimensions: {rank} \[Op:Where\]"):
        tf.where(tf.ones([1] * rank, tf.bool))
    assert tf.where(tf.ones([1] * 8, tf.bool)).shape == (1, 8)


_X = [1 + 2j, -0.5 + 1j]
_W = [1.5 - 0.5j, 2j]


def _complex_gradients(f, y=(0.5 - 1j, 2 + 0.5j)):
    x, y, w = (tf.constant(v, tf.complex128) for v in (_X, y, _W))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        out = tf.reduce_sum(w * f(x, y))
    return out, tape.gradient(out, [x, y])


def test_complex_squared_difference_is_conj_times_itself_with_tfs_gradient():
    # TF 2.21: conj(x - y) (x - y), real-valued (not (x - y)^2), and its rule 2 g (x - y).
    out = tf.math.squared_difference(tf.constant([1 + 1j, 2 - 3j]), tf.constant([0j, 1 + 1j]))
    assert out.numpy().tolist() == [2 + 0j, 17 + 0j]
    x, y, w = (tf.constant(v, tf.complex128) for v in (_X, [0.5 - 1j, 2 + 0j], _W))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch([x, y])
            z = tf.reduce_sum(w * tf.math.squared_difference(x, y))
        gx, gy = inner.gradient(z, [x, y])
        second = tf.reduce_sum(gx * w)
    assert z.numpy() == 13.875 + 9.875j
    np.testing.assert_allclose(gx.numpy(), [-1.5 + 9.5j, 4 + 10j])
    np.testing.assert_allclose(gy.numpy(), [1.5 - 9.5j, -4 - 10j])
    np.testing.assert_allclose(outer.gradient(second, x).numpy(), [5, 8])


@pytest.mark.parametrize("f, expected", [
    (lambda x, y: tf.cast(tf.abs(x), tf.complex128), [0.67082 + 1.341641j, 0]),
    (lambda x, y: tf.sign(x), [0.447214 - 0.223607j, -0.715542 - 0.357771j])])
def test_complex_abs_and_sign_gradients_match_tensorflow(f, expected):
    np.testing.assert_allclose(_complex_gradients(f)[1][0].numpy(), expected, atol=1e-6)


def test_integer_division_by_zero_of_an_empty_output_computes_nothing():
    # TF 2.21 checks the divisor only where it computes an element.
    assert (tf.constant([], tf.int32) // False).shape == (0,)
    assert (tf.constant([[]], tf.int32) // tf.constant([[0], [1]])).shape == (2, 0)
    assert tf.truncatediv(tf.constant([], tf.int32), 0).shape == (0,)
    assert tf.truncatemod(tf.constant([], tf.int32), 0).shape == (0,)


@pytest.mark.parametrize("dtype, shape, error, op", [
    (tf.int8, [2, 2], tf.errors.InvalidArgumentError, "MatMul"),
    (tf.int8, [1, 2, 2], tf.errors.InvalidArgumentError, "BatchMatMulV2"),
    (tf.int16, [2, 2], tf.errors.InvalidArgumentError, "MatMul"),
    (tf.uint8, [2, 2], tf.errors.NotFoundError, "MatMul"),
    (tf.uint32, [1, 2, 2], tf.errors.NotFoundError, "BatchMatMulV2")])
def test_matmul_of_integers_tf_has_no_kernel_for_raises(dtype, shape, error, op):
    a = tf.ones(shape, dtype)
    with pytest.raises(error, match=rf"\[Op:{op}\]"):
        tf.matmul(a, a)
    with pytest.raises(error, match=rf"\[Op:{op}\]"):
        a @ a
    # TF 2.21 multiplies int32, int64 and batched int16 matrices.
    assert tf.matmul(tf.ones([1, 2, 2], tf.int16), tf.ones([1, 2, 2], tf.int16)).dtype == tf.int16
    assert (tf.ones([2, 2], tf.int64) @ tf.ones([2, 2], tf.int64)).numpy().tolist() == [[2, 2]] * 2


def test_scalar_strings_concatenate_eagerly_and_traced():
    # TF 2.21's answers (the tf.function guide's `double`).
    assert repr(tf.constant("a") + tf.constant("a")) == \
        "<tf.Tensor: shape=(), dtype=string, numpy=b'aa'>"
    double = tf.function(lambda a: a + a)
    assert str(double(tf.constant("b"))) == "tf.Tensor(b'bb', shape=(), dtype=string)"


def test_equality_operators_on_shapes_that_do_not_broadcast_traced():
    # TF 2.21's answers: `==` / `!=` give a scalar False / True, in graphs as eagerly.
    f = tf.function(lambda a, b: (a == b, a != b), autograph=False)
    eq, ne = f(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0]))
    assert (bool(eq), bool(ne)) == (False, True)
