"""Gradients of complex values follow TensorFlow's convention: for a real loss L of z,
tape.gradient gives dL/dRe(z) + i dL/dIm(z), the conjugate of the holomorphic derivative
(TF 2.21's numbers, rounded to 4 places)."""

import numpy as np
import pytest

import tapeflow as tf

A = np.array([[1 + 2j, 0.5 - 1j], [0.3 + 0.1j, 2 - 1j]])
B = tf.constant(np.array([[0.2 + 1j], [1 - 0.5j]]))

# name -> (function of the watched matrix, TF 2.21's gradient of sum(real(f(a) * (1 + .5j))))
CASES = {
    "matmul": (lambda a: tf.matmul(a, B),
        [[(-0.3-1.1j), (1.25+0j)], [(-0.3-1.1j), (1.25+0j)]]),
    "inv": (lambda a: tf.linalg.inv(a),
        [[(-0.0044-0.1378j), (-0.1766-0.0587j)], [(-0.1873+0.0884j), (0.0246+0.2785j)]]),
    "mul": (lambda a: a * a,
        [[-5j, (2+1.5j)], [(0.5-0.5j), (5+0j)]]),
    "div": (lambda a: 1.0 / a,
        [[(0.04-0.22j), (0.8+0.4j)], [(-11-2j), (-0.04+0.22j)]]),
    "sqrt": (lambda a: tf.sqrt(a),
        [[(0.3723+0.0336j), (0.2779-0.4497j)], [(0.9489-0.2964j), (0.287-0.2395j)]]),
    "square": (lambda a: tf.square(a),
        [[-5j, (2+1.5j)], [(0.5-0.5j), (5+0j)]]),
    "reduce_mean": (lambda a: tf.reduce_mean(a, axis=0),
        [[(0.5-0.25j), (0.5-0.25j)], [(0.5-0.25j), (0.5-0.25j)]]),
    "transpose": (lambda a: tf.transpose(a),
        [[(1-0.5j), (1-0.5j)], [(1-0.5j), (1-0.5j)]]),
    "conj": (lambda a: tf.math.conj(a) * a,
        [[(2+4j), (1-2j)], [(0.6+0.2j), (4-2j)]]),
    "imag": (lambda a: tf.cast(tf.math.imag(a), tf.complex128),
        [[1j, 1j], [1j, 1j]]),
    "solve": (lambda a: tf.linalg.solve(a, B),
        [[(-0.2844-0.1197j), (-0.1144-0.184j)], [(0.005+0.4634j), (-0.1852+0.2676j)]]),
}


def _gradient(f):
    a = tf.constant(A)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.math.real(f(a) * (1 + 0.5j)))
    return tape.gradient(y, a).numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_gradients_match_tensorflow(name):
    f, expected = CASES[name]
    np.testing.assert_allclose(_gradient(f), np.array(expected), atol=1e-4)


def test_determinant_gradient_is_the_conjugate_cofactor():
    # d det / d a00 = a11 for a 2x2 matrix, so the gradient of real(det) at a00 is
    # conj(a11) = 2+1j. TF 2.21 gives -0.7056+2.1218j: its rule multiplies by det instead
    # of conj(det) (a known difference we keep: this is the right number).
    a = tf.constant(A)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.math.real(tf.linalg.det(a))
    np.testing.assert_allclose(tape.gradient(y, a).numpy(),
                               [[2 + 1j, -0.3 + 0.1j], [-0.5 - 1j, 1 - 2j]], atol=1e-12)


def test_second_order_through_complex_values():
    # d/dz of the gradient of real(z^3) w.r.t. z: TF 2.21 gives conj(6z) summed (here: per
    # element, since the ops are elementwise).
    z = tf.constant([1.0 + 2.0j, -0.5 + 1.0j])
    with tf.GradientTape() as outer:
        outer.watch(z)
        with tf.GradientTape() as inner:
            inner.watch(z)
            y = tf.math.real(z * z * z)
        g = inner.gradient(y, z)
        h = tf.math.real(g)
    np.testing.assert_allclose(g.numpy(), [-9 - 12j, -2.25 + 3j])
    np.testing.assert_allclose(outer.gradient(h, z).numpy(), [6 - 12j, -3 - 6j])


def test_gradients_with_no_holomorphic_form_refuse_complex_inputs():
    a = tf.constant(np.array([[4.0 + 0j, 1 - 1j], [1 + 1j, 3 + 0j]]))
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.math.real(tf.reduce_sum(tf.linalg.cholesky(a)))
    with pytest.raises(NotImplementedError, match="Cholesky"):
        tape.gradient(y, a)


def test_adjoints_conjugate_complex_matrices():
    # TF 2.21's values; tapeflow used to transpose without conjugating.
    a = tf.constant(A)
    np.testing.assert_allclose(tf.matmul(a, a, adjoint_a=True).numpy(),
                               [[5.1, -1 - 2.5j], [-1 + 2.5j, 6.25]], atol=1e-12)
    np.testing.assert_allclose(tf.matmul(a, a, adjoint_b=True).numpy(),
                               [[6.25, 2.5 - 1j], [2.5 + 1j, 5.1]], atol=1e-12)
    expected = [[1 - 2j, 0.3 - 0.1j], [0.5 + 1j, 2 + 1j]]
    np.testing.assert_array_equal(tf.linalg.adjoint(a).numpy(), expected)
    np.testing.assert_array_equal(tf.transpose(a, conjugate=True).numpy(), expected)
    np.testing.assert_allclose(tf.linalg.matvec(a, a[0], adjoint_a=True).numpy(),
                               [5.05 - 0.35j, 0.5 + 0.5j], atol=1e-12)
    np.testing.assert_allclose(tf.linalg.lstsq(a, a).numpy(), np.eye(2), atol=1e-12)
