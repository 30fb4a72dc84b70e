"""Gradient-check cases for the primitives of ops/math_ops.py.

Points avoid kinks (0 for Abs/Sign, ties for Maximum/Minimum, integer ratios for FloorMod)
and domain edges (Log, Sqrt, Asin/Acos). Several binary cases broadcast, so the central
unbroadcasting of cotangents is checked too.
"""

import numpy as np

import tapeflow as tf

_rng = np.random.default_rng(1234)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _signed(*shape):
    """Values in +-[0.3, 1.5]: away from zero."""
    return _u(0.3, 1.5, *shape) * np.where(_rng.random(shape) < 0.5, -1.0, 1.0)


_MASK = np.array([[True, False, True], [False, True, False]])

SAMPLES = {
    # -- binary arithmetic --------------------------------------------------------------------
    "AddV2": [(lambda x, y: x + y, [_u(-1, 1, 2, 3), _u(-1, 1, 3)]),
              (lambda x, y: tf.add(x * x, y), [_u(-1, 1, 2, 1), _u(-1, 1, 1, 3)])],
    "Sub": [(lambda x, y: x - y, [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3)]),
            (lambda x, y: tf.subtract(x, y * y), [_u(-1, 1, 3), _u(-1, 1, 2, 1)])],
    "Mul": [(lambda x, y: x * y, [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3)]),
            (lambda x, y: tf.multiply(x, y), [_u(-1, 1, 2, 3), _u(-1, 1, 3)])],
    "RealDiv": [(lambda x, y: x / y, [_u(-1, 1, 2, 3), _u(0.5, 2, 2, 3)]),
                (lambda x, y: tf.divide(x, y), [_u(-1, 1, 2, 3), _u(-2, -0.5, 1, 3)])],
    "FloorMod": [(lambda x, y: tf.math.floormod(x, y),
                  [np.array([5.3, -3.7, 2.2, 7.9]), np.array([2.0, 1.5, -1.3, 3.1])])],
    "Maximum": [(lambda x, y: tf.maximum(x, y), [np.array([[0.1, -0.5, 2.0], [1.5, 0.3, -1.0]]),
                                                 np.array([[0.4, -0.9, 1.0], [1.2, 0.8, -2.0]])]),
                (lambda x, y: tf.maximum(x * x, y), [_u(-1, 1, 2, 3), np.array([0.25, 0.45, 0.65])])],
    "Minimum": [(lambda x, y: tf.minimum(x, y), [np.array([[0.1, -0.5, 2.0], [1.5, 0.3, -1.0]]),
                                                 np.array([[0.4, -0.9, 1.0], [1.2, 0.8, -2.0]])]),
                (lambda x, y: tf.minimum(x * x, y), [_u(-1, 1, 2, 3), np.array([0.25, 0.45, 0.65])])],
    "Atan2": [(lambda y, x: tf.math.atan2(y, x), [_signed(2, 3), _signed(2, 3)])],
    "Pow": [(lambda x, y: tf.pow(x, y), [_u(0.5, 2, 2, 3), _u(-1.5, 2, 2, 3)]),
            (lambda x, y: x ** y, [_u(0.5, 2, 3), _u(0.5, 2, 2, 1)]),
            # A negative base with a constant integral exponent (no d/dy through log).
            (lambda x: tf.pow(x, tf.constant(3.0, tf.float64)), [_u(-2, -0.5, 4)])],
    # -- unary --------------------------------------------------------------------------------
    "Neg": [(lambda x: -x * x, [_u(-1, 1, 2, 3)]), (lambda x: tf.negative(tf.sin(x)), [_u(-1, 1, 4)])],
    "Abs": [(lambda x: tf.abs(x) * x, [_signed(2, 3)])],
    "Sign": [(lambda x: tf.sign(x), [_signed(5)]), (lambda x: tf.sign(x) * x * x, [_signed(2, 3)])],
    "Square": [(lambda x: tf.square(x), [_u(-2, 2, 2, 3)])],
    "Sqrt": [(lambda x: tf.sqrt(x), [_u(0.3, 3, 2, 3)])],
    "Rsqrt": [(lambda x: tf.math.rsqrt(x), [_u(0.3, 3, 2, 3)])],
    "Reciprocal": [(lambda x: tf.math.reciprocal(x), [_signed(2, 3)])],
    "Exp": [(lambda x: tf.exp(x), [_u(-2, 2, 2, 3)])],
    "Expm1": [(lambda x: tf.math.expm1(x), [_u(-2, 2, 2, 3)])],
    "Log": [(lambda x: tf.math.log(x), [_u(0.3, 3, 2, 3)])],
    "Log1p": [(lambda x: tf.math.log1p(x), [_u(-0.7, 3, 2, 3)])],
    "Sin": [(lambda x: tf.sin(x), [_u(-3, 3, 2, 3)])],
    "Cos": [(lambda x: tf.cos(x), [_u(-3, 3, 2, 3)])],
    "Tan": [(lambda x: tf.tan(x), [_u(-1.2, 1.2, 2, 3)])],
    "Asin": [(lambda x: tf.asin(x), [_u(-0.8, 0.8, 2, 3)])],
    "Acos": [(lambda x: tf.acos(x), [_u(-0.8, 0.8, 2, 3)])],
    "Atan": [(lambda x: tf.atan(x), [_u(-3, 3, 2, 3)])],
    "Asinh": [(lambda x: tf.asinh(x), [_u(-3, 3, 2, 3)])],
    "Acosh": [(lambda x: tf.acosh(x), [_u(1.2, 3, 2, 3)])],
    "Atanh": [(lambda x: tf.atanh(x), [_u(-0.8, 0.8, 2, 3)])],
    "Sinh": [(lambda x: tf.sinh(x), [_u(-2, 2, 2, 3)])],
    "Cosh": [(lambda x: tf.cosh(x), [_u(-2, 2, 2, 3)])],
    "Tanh": [(lambda x: tf.tanh(x), [_u(-2, 2, 2, 3)])],
    "Sigmoid": [(lambda x: tf.sigmoid(x), [_u(-4, 4, 2, 3)])],
    "Softplus": [(lambda x: tf.math.softplus(x), [_u(-4, 4, 2, 3)])],
    "Erf": [(lambda x: tf.math.erf(x), [_u(-2, 2, 2, 3)])],
    # -- where, cast, identity, matmul --------------------------------------------------------
    "SelectV2": [(lambda x, y: tf.where(tf.constant(_MASK), tf.sin(x), y * y),
                  [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3)]),
                 (lambda x, y: tf.where(tf.constant(_MASK), x, y), [_u(-1, 1, 2, 3), _u(-1, 1, 3)])],
    # float64 -> complex128 -> float64 (the way back runs Real, then Cast): exact, unlike a
    # round trip through float32, whose rounding would swamp the finite differences.
    "Cast": [(lambda x: tf.cast(tf.cast(x, tf.complex128), tf.float64) * tf.sin(x),
              [_u(-1, 1, 2, 3)])],
    "Real": [(lambda x: tf.cast(tf.cast(x * x, tf.complex128), tf.float64), [_u(-1, 1, 4)])],
    # float64 -> complex128 -> conjugate -> its real part: the way back runs Conj on g.
    "Conj": [(lambda x: tf.math.real(tf.math.conj(tf.cast(x * x, tf.complex128))), [_u(-1, 1, 4)])],
    "Imag": [(lambda x: tf.math.imag(tf.cast(x, tf.complex128) * (1.5 + 2j)) * x,
              [_u(-1, 1, 4)])],
    # Complex only: |x - y|^2 of complex numbers made from real ones, back to real; broadcast.
    "SquaredDifference": [(lambda x, y: tf.math.real(tf.math.squared_difference(
        tf.cast(x, tf.complex128) * (1 + 2j), tf.cast(y * y, tf.complex128) * (0.5 - 1j))),
        [_u(-1, 1, 2, 3), _u(-1, 1, 3)])],
    "Identity": [(lambda x: tf.identity(x) * x, [_u(-1, 1, 2, 3)])],
    "MatMul": [(lambda a, b: tf.matmul(a, b), [_u(-1, 1, 2, 3), _u(-1, 1, 3, 4)]),
               (lambda a, b: tf.matmul(a, b, transpose_a=True), [_u(-1, 1, 3, 2), _u(-1, 1, 3, 4)]),
               (lambda a, b: tf.matmul(a, b, transpose_b=True), [_u(-1, 1, 2, 3), _u(-1, 1, 4, 3)]),
               (lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
                [_u(-1, 1, 3, 2), _u(-1, 1, 4, 3)]),
               # Batched, with the batch axes broadcasting.
               (lambda a, b: tf.matmul(a, b), [_u(-1, 1, 2, 2, 3), _u(-1, 1, 3, 2)]),
               (lambda a, b: tf.matmul(a * a, b), [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2)])],
    "MulNoNan": [(lambda x, y: tf.math.multiply_no_nan(x, y), [_u(-1, 1, 2, 3), _u(0.5, 2, 3)])],
    "NextAfter": [(lambda x, y: tf.math.nextafter(x * x, y), [_u(-1, 1, 2, 3), _u(2, 3, 2, 3)])],
}
