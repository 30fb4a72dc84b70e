"""tf.linalg.LinearOperator and its subclasses against TF 2.21's recorded answers
(tools/record_linear_operator_fixtures.py): values, dtypes, result classes, hints, errors and
gradients, each case the same expression evaluated in TF and here."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import errors

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "linear_operator.json")
with open(FIXTURE) as _f:
    _DATA = json.load(_f)
CASES = _DATA["cases"]

_ERRORS = {"ValueError": ValueError, "TypeError": TypeError,
           "NotImplementedError": NotImplementedError,
           "InvalidArgumentError": errors.InvalidArgumentError}


@pytest.fixture(scope="module")
def scope():
    namespace = {"tf": tf, "L": tf.linalg, "np": np}
    exec(_DATA["setup"], namespace)
    exec(_DATA["grad"], namespace)
    return namespace


def _check(got, want, name):
    kind = want["kind"]
    if kind == "operator":
        assert isinstance(got, tf.linalg.LinearOperator), name
        assert type(got).__name__ == want["class"], name
        assert got.shape.as_list() == want["shape"], name
        _check(got.to_dense(), want["dense"], name)
    elif kind == "tensor":
        assert tf.is_tensor(got), name
        assert got.dtype.name == want["dtype"], name
        if "imag" in want:
            expected = np.asarray(want["real"]) + 1j * np.asarray(want["imag"])
        else:
            expected = np.asarray(want["value"])
        np.testing.assert_allclose(got.numpy(), expected, rtol=2e-5, atol=2e-5, err_msg=name)
    elif kind == "shape":
        assert isinstance(got, tf.TensorShape) and got.as_list() == want["value"], name
    elif kind == "tuple":
        assert len(got) == len(want["items"]), name
        for item, expected in zip(got, want["items"]):
            _check(item, expected, name)
    else:
        assert got == want["value"] and type(got) is type(want["value"]), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name, scope):
    case = CASES[name]
    want = case["answer"]
    if want["kind"] == "error":
        with pytest.raises(_ERRORS[want["class"]]) as info:
            eval(case["expr"], scope)
        if want["class"] != "InvalidArgumentError":  # TF's kernel text names its device
            assert str(info.value) == want["message"]
        return
    _check(eval(case["expr"], scope), want, name)


def test_classes_are_tf_linalg_names():
    import tapeflow.ops.linear_operator  # noqa: F401
    from tapeflow.framework.exports import exported

    declared = sorted(n for n in exported("linalg") if n.startswith("LinearOperator"))
    assert declared == sorted(tf.linalg._LINEAR_OPERATORS)
    assert issubclass(tf.linalg.LinearOperatorDiag, tf.linalg.LinearOperator)


def test_variables_stay_trainable_through_the_operator():
    m = tf.Variable([[2., 1.], [0., 3.]])
    op = tf.linalg.LinearOperatorFullMatrix(m)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(op.solvevec([1., 1.]))
    # d/dM sum(M^-1 b) = -M^-T 1 (M^-1 b)^T; TF 2.21: [[-1/6, -1/9], [-1/12, -1/18]] * ...
    grad = tape.gradient(y, m).numpy()
    inv = np.linalg.inv(np.array([[2., 1.], [0., 3.]]))
    expected = -np.outer(inv.T @ np.ones(2), inv @ np.ones(2))
    np.testing.assert_allclose(grad, expected, rtol=1e-6)


def test_operators_load_on_first_use():
    # `import tapeflow` must not pay for the operator classes; tf.linalg finds them on demand.
    import subprocess
    import sys

    code = ("import sys, tapeflow as tf; m = 'tapeflow.ops.linear_operator'; "
            "assert m not in sys.modules; tf.linalg.LinearOperatorDiag; "
            "assert m in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_second_order_gradient_and_tracing():
    # f(d) = sum(Diag(d)^-1 B): f' = -rowsum(B) / d^2, f'' = 2 rowsum(B) / d^3.
    b = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    d = tf.Variable([1., 2., 3.])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.linalg.LinearOperatorDiag(d).solve(b))
        first = inner.gradient(y, d)
    second = outer.gradient(first, d)
    rows = np.array([3., 7., 11.])
    np.testing.assert_allclose(first.numpy(), -rows / np.array([1., 4., 9.]), rtol=1e-6)
    np.testing.assert_allclose(second.numpy(), 2 * rows / np.array([1., 8., 27.]), rtol=1e-6)

    @tf.function
    def traced(m):
        return tf.linalg.LinearOperatorFullMatrix(m).solve(b)

    m = tf.constant([[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]])
    np.testing.assert_allclose(traced(m).numpy(), np.linalg.solve(m.numpy(), b.numpy()),
                               rtol=1e-5)


class _Doubling(tf.linalg.LinearOperator):
    """A user operator in TF's documented style: only `_shape` and `_matmul`."""

    def __init__(self, scale):
        self.scale = scale
        super().__init__(dtype=tf.float32, is_square=True, is_non_singular=True)

    def _shape(self):
        return tf.TensorShape([2, 2])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        return 2.0 * self.scale * x


def test_user_subclass_gets_the_generic_methods():
    # TF 2.21 gives the same dense matrix, solve, determinant, inverse class, variables, name.
    op = _Doubling(tf.Variable(1.5))
    np.testing.assert_allclose(op.to_dense().numpy(), 3.0 * np.eye(2))
    np.testing.assert_allclose(op.solvevec([3., 6.]).numpy(), [1., 2.])
    np.testing.assert_allclose(op.determinant().numpy(), 9.0)
    assert type(op.inverse()).__name__ == "LinearOperatorInversion"
    # TF's operators are tf.Modules that track their variables; these find them the same way.
    assert [v.numpy() for v in op.trainable_variables] == [1.5]
    assert op.name == "_Doubling"


def test_traced_permutation_follows_its_argument():
    # One trace serves every permutation: products and determinant read the traced values.
    b = tf.constant([[1., 2.], [3., 4.], [5., 6.]])

    @tf.function(autograph=False)
    def apply(perm):
        op = tf.linalg.LinearOperatorPermutation(perm)
        return op.matmul(b), op.matmul(b, adjoint=True), op.determinant()

    for perm, sign in (([2, 0, 1], 1.0), ([1, 0, 2], -1.0)):
        forward, backward, det = apply(tf.constant(perm))
        np.testing.assert_array_equal(forward.numpy(), b.numpy()[perm])
        np.testing.assert_array_equal(backward.numpy(), b.numpy()[np.argsort(perm)])
        assert det.numpy() == sign


def test_traced_dimension_is_refused_not_baked_in():
    @tf.function(autograph=False)
    def dense(n):
        return tf.linalg.LinearOperatorIdentity(n).to_dense()

    with pytest.raises(ValueError, match="`num_rows` must be known when the operator is built"):
        dense(tf.constant(2))
