"""Records TensorFlow 2.21's `tf.experimental.numpy` answers for tapeflow's tests (run where
TensorFlow is installed; CI does not run it):

    python tools/record_tnp_fixtures.py   # writes tests/experimental/fixtures/tnp.json

`CASES` are expressions over `tf`, `tnp`, `np` and the arrays of `PRELUDE`, each evaluated
with a fresh global seed in three modes (each in its own process, since enabling NumPy
behaviour cannot be undone): TF's defaults, after `experimental_enable_numpy_behavior()`, and
after `experimental_enable_numpy_behavior(prefer_float32=True)`. Each answer is the dtype,
shape and values of the result (or of each result of a tuple), or the error class raised.
`GUIDE` is the program of TensorFlow's guide "NumPy API on TensorFlow" (tensorflow.org/guide/
tf_numpy) without its timings, plots and device listings, with a seed set first; its printed
text is recorded.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "experimental" / "fixtures" / \
    "tnp.json"
MODES = ("default", "numpy", "numpy_f32")

PRELUDE = """
f = tnp.asarray([[1., -2., 3.], [4., 5., -6.]])
g = tnp.asarray([0.5, 1.5, -2.5])
ii = tnp.asarray([[3, 1, 2], [0, 5, 4]])
i32 = tf.constant([[1, 2], [3, 4]])
f32 = tf.constant([1.5, -2.5, 0.5])
b = tnp.asarray([True, False, True])
c = tnp.asarray([1 + 2j, -3j, 2.])
sq = tnp.asarray([[2., 1.], [1., 3.]])
"""

CASES = [
    # creation and inference
    "tnp.asarray(1.5)", "tnp.asarray(1)", "tnp.asarray([1, 2])", "tnp.asarray([1., 2])",
    "tnp.asarray([])", "tnp.array(True)", "tnp.asarray(1 + 2j)", "tnp.asarray(2**63)",
    "tnp.asarray(np.float32(2))", "tnp.asarray(np.arange(3, dtype=np.int16))",
    "tnp.asarray(f32)", "tnp.asarray(i32, dtype=tnp.float32)", "tnp.asarray([1.5, 2.5], int)",
    "tnp.array([[1, 2]], ndmin=3)", "tnp.array(5, ndmin=2)", "tnp.asanyarray([1, 2])",
    "tnp.ascontiguousarray(3.)", "tnp.copy(f32)", "tnp.asarray([f32, f32])",
    "tnp.zeros(3)", "tnp.zeros([2, 2], dtype=tnp.int32)", "tnp.ones((2,))", "tnp.ones(2, int)",
    "tnp.empty(2)", "tnp.zeros_like(i32)", "tnp.ones_like([1., 2.])",
    "tnp.ones_like(f, dtype=tnp.int8)", "tnp.empty_like(i32)", "tnp.full(2, 3)",
    "tnp.full(2, 3.)", "tnp.full([2, 2], 1, tnp.float32)", "tnp.full_like(i32, 7)",
    "tnp.full_like(f32, 2)", "tnp.full_like(i32, 1.5)", "tnp.eye(2)", "tnp.eye(2, 3, 1)",
    "tnp.eye(3, k=-1, dtype=tnp.int32)", "tnp.identity(2)", "tnp.arange(3)", "tnp.arange(3.)",
    "tnp.arange(1, 7, 2)", "tnp.arange(0, 1, 0.25)", "tnp.arange(5, 1, -1)",
    "tnp.arange(3, dtype=tnp.float32)", "tnp.arange(-2)", "tnp.linspace(0, 1, 5)",
    "tnp.linspace(0., 1., 4, endpoint=False)", "tnp.linspace(0, 1, 3, retstep=True)",
    "tnp.linspace(f32, 2 * f32, 3)", "tnp.logspace(0, 2, 3)", "tnp.logspace(0, 3, 4, base=2.)",
    "tnp.geomspace(1, 1000, 4)", "tnp.geomspace(-1, -100, 3)", "tnp.tri(3)",
    "tnp.tri(2, 3, 1, tnp.int32)", "tnp.tril(f)", "tnp.triu(f, 1)", "tnp.tril(ii, -1)",
    "tnp.triu(g)", "tnp.diag(g)", "tnp.diag(f)", "tnp.diag(f, 1)", "tnp.diag(g, -1)",
    "tnp.diagflat(i32)", "tnp.diagonal(f)", "tnp.diagonal(f, 1)",
    "tnp.diagonal(tnp.arange(24).reshape(2, 3, 4), 0, 1, 2)", "tnp.diag_indices(3)",
    "tnp.vander(g)", "tnp.vander([1, 2, 3], 2, True)", "tnp.meshgrid(g, [1., 2.])",
    "tnp.meshgrid([1, 2], [3, 4, 5], indexing='ij')", "tnp.ix_([0, 1], [2, 0])",
    "tnp.ix_(b, [1])",
    # shape manipulation
    "tnp.shape(f)", "tnp.ndim(f)", "tnp.size(f)", "tnp.size(3.)", "tnp.isscalar(3.)",
    "tnp.isscalar(f32)", "tnp.isscalar(tnp.asarray(2))", "tnp.reshape(f, [3, 2])",
    "tnp.reshape(f, -1)", "tnp.reshape(f, (3, 2), order='F')", "tnp.ravel(i32)",
    "tnp.flatten(f)", "tnp.expand_dims(g, 1)", "tnp.squeeze(tnp.ones([1, 2, 1]))",
    "tnp.squeeze(tnp.ones([1, 2, 1]), 0)", "tnp.transpose(f)",
    "tnp.transpose(tnp.ones([2, 3, 4]), (1, 2, 0)).shape", "tnp.swapaxes(f, 0, 1)",
    "tnp.moveaxis(tnp.zeros([2, 3, 4]), 0, -1).shape",
    "tnp.moveaxis(tnp.zeros([2, 3, 4]), [0, 1], [-1, -2]).shape", "tnp.broadcast_to(g, [2, 3])",
    "tnp.broadcast_arrays(g, [[1.], [2.]])", "tnp.atleast_1d(3.)", "tnp.atleast_2d(g)",
    "tnp.atleast_3d(g).shape", "tnp.atleast_3d(f).shape", "tnp.atleast_1d(1, [2, 3])",
    "tnp.concatenate([f, f])", "tnp.concatenate([f, ii], 1)", "tnp.concatenate([g, [1, 2]])",
    "tnp.concatenate([f, f], axis=None)", "tnp.stack([g, g])", "tnp.stack([g, [1, 2, 3]], 1)",
    "tnp.hstack([g, g])", "tnp.hstack([f, f])", "tnp.vstack([g, g])", "tnp.dstack([g, g])",
    "tnp.append(g, 1)", "tnp.append(f, f, 0)", "tnp.split(tnp.arange(6), 3)",
    "tnp.split(tnp.arange(6), [1, 4])", "tnp.hsplit(f, 3)", "tnp.vsplit(f, 2)",
    "tnp.dsplit(tnp.ones([1, 2, 4]), 2)", "tnp.flip(f)", "tnp.flip(f, 1)", "tnp.flipud(f)",
    "tnp.fliplr(f)", "tnp.roll(tnp.arange(5), 2)", "tnp.roll(f, 1, 1)", "tnp.roll(f, -1)",
    "tnp.rot90(f)", "tnp.rot90(f, 2)", "tnp.rot90(f, 3)", "tnp.rot90(f, -1, (1, 0))",
    "tnp.repeat(g, 2)", "tnp.repeat(f, [1, 2], axis=0)", "tnp.repeat(3, 4)", "tnp.tile(g, 2)",
    "tnp.tile(g, [2, 1])", "tnp.tile(f, 2)", "tnp.pad(g, 1, 'constant')",
    "tnp.pad(f, [[1, 0], [0, 2]], 'constant', constant_values=9)", "tnp.pad(g, 2, 'reflect')",
    "tnp.pad(g, 1, 'symmetric')",
    # indexing helpers
    "tnp.take(g, [0, 2])", "tnp.take(f, [1, 0], axis=1)", "tnp.take(g, [5, -7])",
    "tnp.take(g, [4, -1], mode='wrap')", "tnp.take_along_axis(f, tnp.argsort(f, 1), 1)",
    "tnp.take_along_axis(g, tnp.asarray([2, 0]), None)", "tnp.where(b, 1, 2.)",
    "tnp.where(f > 0, f, 0)", "tnp.where(ii)", "tnp.nonzero(ii)", "tnp.nonzero(b)",
    "tnp.select([g > 1, g < 0], [g, -g], 7)", "tnp.compress([True, False], f, 0)",
    "tnp.compress([False, True, True], f, 1)", "tnp.compress([1, 0, 1, 1], f)",
    # arithmetic and promotion
    "tnp.add(tf.constant(1, tf.int32), 1.5)", "tnp.add(tf.constant(1, tf.int32), tf.constant(1.5))",
    "tnp.add(tf.constant(1, tf.int32), 1)", "tnp.add(tf.constant(1., tf.float32), 1.5)",
    "tnp.add(1, 2)", "tnp.add(1., 2)", "tnp.add(b, b)", "tnp.add(i32, f32[:2])",
    "tnp.add(tnp.ones(2, tnp.int16), tnp.ones(2, tnp.uint8))",
    "tnp.add(tnp.ones(2, tnp.int32), tnp.ones(2, tnp.uint32))", "tnp.subtract(ii, 1)",
    "tnp.subtract(f32, 1)", "tnp.multiply(b, b)", "tnp.multiply(ii, 2.5)",
    "tnp.true_divide(tf.constant([1, 2]), 2)", "tnp.divide(tnp.asarray([1, 2], tnp.int32), 2)",
    "tnp.divide(tnp.asarray([1, 2], tnp.int8), 2)", "tnp.divide(b, b)", "tnp.divide(f, 2)",
    "tnp.floor_divide(ii, 2)", "tnp.floor_divide(f, 2)", "tnp.floor_divide(b, True)",
    "tnp.mod(ii, 3)", "tnp.mod(f, 4.)", "tnp.remainder(-7, 3)", "tnp.divmod(ii, 2)",
    "tnp.power(2, 3)", "tnp.power(f, 2)", "tnp.power(ii, 2)", "tnp.float_power(ii, 2)",
    "tnp.float_power(f32, 2)", "tnp.maximum(f, 0)", "tnp.maximum(ii, 2.5)", "tnp.minimum(f, g)",
    "tnp.maximum(b, [False, False, False])", "tnp.minimum(b, True)", "tnp.clip(f, -1, 2)",
    "tnp.clip(ii, 1, None)", "tnp.clip(ii, None, 2.5)", "tnp.clip(g, [0, 0, 0], 1)",
    "tnp.arctan2(f, 2)", "tnp.arctan2(1, 2)", "tnp.hypot(3, 4)", "tnp.hypot(f, g)",
    "tnp.heaviside(f, 0.5)", "tnp.heaviside(ii - 1, 5)", "tnp.logaddexp(f, g)",
    "tnp.logaddexp(1, 2)", "tnp.logaddexp2(f, 1.)", "tnp.nextafter(f32, 2.)",
    "tnp.nextafter(1., 2.)", "tnp.gcd(ii, 4)", "tnp.gcd(12, 18)", "tnp.lcm(ii, 4)",
    "tnp.lcm([4, 6], 10)", "tnp.bitwise_and(ii, 6)", "tnp.bitwise_or(ii, 8)",
    "tnp.bitwise_xor(ii, 1)", "tnp.bitwise_and(b, [True, True, False])", "tnp.bitwise_not(ii)",
    "tnp.bitwise_not(b)", "tnp.bitwise_xor(b, True)",
    # unary
    "tnp.log(f32)", "tnp.log([1, 2])", "tnp.exp(f)", "tnp.exp(1)", "tnp.sqrt(tnp.asarray([1, 4]))",
    "tnp.sqrt(4)", "tnp.sqrt(tnp.asarray([1, 4], tnp.int32))", "tnp.sqrt(c)", "tnp.abs(f)",
    "tnp.abs(ii - 3)", "tnp.abs(c)", "tnp.absolute(f32)", "tnp.fabs(-2)", "tnp.ceil(f32)",
    "tnp.ceil(ii)", "tnp.floor(g)", "tnp.conj(c)", "tnp.conjugate(g)", "tnp.negative(ii)",
    "tnp.reciprocal(f)", "tnp.reciprocal(ii + 1)", "tnp.signbit(f)", "tnp.signbit(b)",
    "tnp.sin(f)", "tnp.cos(ii)", "tnp.tan(g)", "tnp.sinh(g)", "tnp.cosh(g)", "tnp.tanh(ii)",
    "tnp.arcsin(g / 3)", "tnp.arccos(0.5)", "tnp.arctan(ii)", "tnp.arcsinh(g)",
    "tnp.arccosh(tnp.abs(f) + 1)", "tnp.arctanh(g / 3)", "tnp.deg2rad(180)",
    "tnp.deg2rad(f32)", "tnp.rad2deg(np.pi)", "tnp.rad2deg(ii)", "tnp.angle(c)",
    "tnp.angle(c, deg=True)", "tnp.angle(f)", "tnp.angle(ii)", "tnp.cbrt(f)", "tnp.cbrt(27)",
    "tnp.exp2(ii)", "tnp.exp2(f32)", "tnp.expm1(g)", "tnp.log1p(tnp.abs(f))", "tnp.log2(8)",
    "tnp.log10(tnp.abs(f32))", "tnp.fix(f32)", "tnp.fix(ii)", "tnp.iscomplex(c)",
    "tnp.isreal(c)", "tnp.iscomplex(f)", "tnp.iscomplexobj(c)", "tnp.iscomplexobj(f)",
    "tnp.isrealobj(f)", "tnp.isnan(tnp.asarray([1., np.nan]))", "tnp.isnan(ii)",
    "tnp.isfinite(tnp.asarray([1., np.inf, np.nan]))", "tnp.isinf(tnp.asarray([1., -np.inf]))",
    "tnp.isinf(ii)", "tnp.isneginf(tnp.asarray([np.inf, -np.inf]))",
    "tnp.isposinf(tnp.asarray([np.inf, -np.inf]))", "tnp.positive(ii)", "tnp.sinc(g)",
    "tnp.sinc(tnp.asarray([0., 0.5]))", "tnp.square(ii)", "tnp.square(f32)", "tnp.sign(f)",
    "tnp.sign(ii - 2)", "tnp.sign(c)", "tnp.real(c)", "tnp.imag(c)", "tnp.real(f)",
    "tnp.around(tnp.asarray([0.5, 1.5, 2.567]), 1)", "tnp.around(ii, -1)",
    "tnp.round(tnp.asarray([2.5, -0.5]))", "tnp.around(f32)",
    # comparisons and logic
    "tnp.equal(ii, 2)", "tnp.equal(f32, 1.5)", "tnp.not_equal(f, g)", "tnp.greater(ii, 2.5)",
    "tnp.greater_equal(b, False)", "tnp.less(f, 0)", "tnp.less_equal(i32, [2, 3])",
    "tnp.array_equal(f, f)", "tnp.array_equal(f, g)", "tnp.array_equal([1, 2], [1., 2.])",
    "tnp.logical_and(ii, b)", "tnp.logical_or(f, 0)", "tnp.logical_xor(b, True)",
    "tnp.logical_not(ii)", "tnp.isclose(f, f + 1e-7)", "tnp.isclose(ii, 2)",
    "tnp.isclose(tnp.asarray([np.nan]), np.nan, equal_nan=True)", "tnp.allclose(g, g + 1e-9)",
    "tnp.allclose(g, 2 * g)",
    # reductions
    "tnp.sum(f)", "tnp.sum(ii, 0)", "tnp.sum(i32)", "tnp.sum(b)", "tnp.sum(f, 1, keepdims=True)",
    "tnp.sum(ii, dtype=tnp.float32)", "tnp.sum(tnp.ones(3, tnp.uint8))",
    "tnp.sum(f, axis=(0, 1))", "tnp.prod(ii + 1)", "tnp.prod(b)", "tnp.prod(f, 0)",
    "tnp.mean(ii)", "tnp.mean(tnp.asarray([1, 2]))", "tnp.mean(f, 1)", "tnp.mean(f32)",
    "tnp.mean(b)", "tnp.mean(ii, dtype=tnp.float32)", "tnp.amax(f)", "tnp.amax(ii, 1)",
    "tnp.amin(f, 0)", "tnp.amax(b)", "tnp.amin(b)", "tnp.max(f, keepdims=True)",
    "tnp.min(ii)", "tnp.var(f)", "tnp.var(ii, 0)", "tnp.var(f, ddof=1)",
    "tnp.var(f, 1, ddof=1, keepdims=True)", "tnp.var(ii, dtype=tnp.float32)", "tnp.var(c)",
    "tnp.std(f)", "tnp.std(ii, 1)", "tnp.ptp(f)", "tnp.ptp(ii, 0)", "tnp.all(ii)",
    "tnp.all(b)", "tnp.any(f > 4, 1)", "tnp.all(f, keepdims=True)", "tnp.count_nonzero(ii)",
    "tnp.count_nonzero(f, 1)", "tnp.nansum(tnp.asarray([1., np.nan, 2.]))",
    "tnp.nanprod(tnp.asarray([[2., np.nan], [3., 4.]]), 0)",
    "tnp.nanmean(tnp.asarray([1., np.nan, 2.]))", "tnp.nanmean(ii)", "tnp.average(f)",
    "tnp.average(ii)", "tnp.average(f, 1, weights=[1, 2, 1])",
    "tnp.average(ii, weights=tnp.ones([2, 3]))", "tnp.average(f, 0, returned=True)",
    "tnp.average(f, None, f, True)", "tnp.cumsum(ii)", "tnp.cumsum(ii, 1)", "tnp.cumsum(b)",
    "tnp.cumsum(f, 0)", "tnp.cumsum(i32, dtype=tnp.float32)", "tnp.cumprod(ii + 1, 0)",
    "tnp.cumprod(g)", "tnp.cumsum(tnp.ones(2, tnp.uint32))", "tnp.diff(g)", "tnp.diff(f, 2, 1)",
    "tnp.diff(ii, axis=0)", "tnp.diff(b)", "tnp.argmax(f)", "tnp.argmax(f, 1)",
    "tnp.argmin(ii, 0)", "tnp.argmin(g)", "tnp.sort(f)", "tnp.sort(ii, 0)",
    "tnp.sort(f, None)", "tnp.argsort(g)", "tnp.argsort(ii, 0)", "tnp.argsort(f, None)",
    "tnp.argsort(ii, kind='stable')", "tnp.trace(f)", "tnp.trace(ii, 1)", "tnp.trace(sq)",
    "tnp.trace(tnp.arange(8).reshape(2, 2, 2), 0, 1, 2)", "tnp.polyval([1, 2, 3], g)",
    "tnp.polyval([1., 2], 2)", "tnp.polyval(3, ii)",
    # products and linear algebra
    "tnp.matmul(f, tnp.transpose(f))", "tnp.matmul(ii, g)", "tnp.matmul(g, tnp.ones([3, 2]))",
    "tnp.matmul(tnp.ones([2, 2, 3]), tnp.ones([3, 4])).shape", "tnp.matmul(i32, f32[:2])",
    "tnp.dot(g, g)", "tnp.dot(f, g)", "tnp.dot(2, f32)", "tnp.dot(sq, sq)",
    "tnp.dot(tnp.ones([2, 3, 4]), tnp.ones([4, 5])).shape", "tnp.tensordot(f, ii, [[1], [1]])",
    "tnp.tensordot(sq, sq)", "tnp.tensordot(g, g, 0).shape", "tnp.inner(g, g)",
    "tnp.inner(f, g)", "tnp.inner(2, g)", "tnp.vdot(c, c)", "tnp.vdot(f, f)",
    "tnp.outer(g, [1, 2])",
    "tnp.outer(ii, b).shape", "tnp.kron(sq, [1, 2])", "tnp.kron(tnp.eye(2), ii)",
    "tnp.cross(g, [1., 0., 0.])", "tnp.cross([1, 2], [3, 4])", "tnp.cross(f, [0, 1, 0])",
    "tnp.cross([1, 2], [3, 4, 5])", "tnp.einsum('ij,kj->ik', f, ii)", "tnp.einsum('ii', sq)",
    "tnp.einsum('i,i', g, [1, 2, 3])",
    # dtypes
    "tnp.result_type(1, 1.)", "tnp.result_type(i32, 1.5)", "tnp.result_type(tnp.int8, tnp.uint8)",
    "tnp.result_type(f32, np.float64)", "tnp.result_type(i32, b)",
    "tnp.promote_types(tnp.int32, tnp.float32)", "tnp.promote_types(tf.int16, tf.uint16)",
    "tnp.issubdtype(tnp.float32, tnp.inexact)", "tnp.iinfo(tnp.int8).max",
    "tnp.finfo(tnp.float32).eps", "isinstance(f, tnp.ndarray)", "tnp.ndarray is tf.Tensor",
    "tnp.float32 is np.float32", "tnp.bool_ is np.bool_", "tnp.complex_ is np.complex128",
    "tnp.float_ is np.float64", "tnp.int_ is np.int_", "tnp.string_ is np.bytes_",
    "tnp.unicode_ is np.str_", "tnp.object_ is np.object_", "tnp.pi", "tnp.e", "tnp.inf",
    "tnp.newaxis is None",
    # random (a fresh global seed of 1 before each case)
    "tnp.random.rand(2)", "tnp.random.randn(2, 2)", "tnp.random.randint(0, 5, size=3)",
    "tnp.random.randint(7, size=2, dtype=tnp.int32)", "tnp.random.uniform(size=(2,))",
    "tnp.random.uniform(-1, 1, (3,))", "tnp.random.uniform(f32, 2.)",
    "tnp.random.random((2,))", "tnp.random.standard_normal(3)",
    "tnp.random.standard_normal()", "tnp.random.randint(3, dtype=tnp.int16)",
    "tnp.random.poisson(2., (4,)).dtype",
    # operators and methods (NumPy behaviour changes these)
    "tf.constant(1, tf.int32) + tf.constant(1.5)", "tf.constant(1, tf.int32) + 1.5",
    "tf.constant([1, 2]) * 2.5", "2.5 * tf.constant([1, 2])",
    "tf.ones([2]) + tf.ones([2], tf.float64)",
    "tf.constant(1.5)", "tf.constant([1, 2]) / tf.constant([1, 2])", "i32 - f32[:2]",
    "i32 ** 2", "f32 // 2", "i32 % 3", "i32 @ tf.ones([2, 2], tf.float64)", "i32 < 2.5",
    "f32 == 1.5", "i32 == tf.constant(1.)", "b & True", "tf.constant([1, 2], tf.int8) + 200",
    "tf.constant([1, 2], tf.int8) + tf.constant([1, 2], tf.int16)", "1 - i32", "i32 + [1, 2]",
    "i32 + np.float32(1)", "i32 + np.ones(2)", "tf.Variable(1) + 1.5", "-i32",
    "abs(tf.constant(-2.5))",
    "i32.T", "f.T", "i32.reshape(4)", "i32.reshape(1, 4)", "i32.reshape((4, 1))",
    "i32.reshape([-1], order='F')", "i32.astype(tf.float32)", "i32.astype(tnp.float64)",
    "f.ravel()", "f.flatten()", "i32.transpose()", "tnp.ones([2, 3, 4]).transpose(2, 0, 1).shape",
    "i32.clip(2, 3)", "f32.clip(0, 1)", "f.max()", "f.max(1)", "f.min(axis=0)", "i32.mean()",
    "f.mean(1)", "i32.ndim", "i32.size", "i32.tolist()", "+i32", "round(tf.constant(2.567))",
    "i32.data", "f.sum(axis=0)", "i32[:, [0]]", "i32[[1, 0]]", "i32[tnp.asarray([1, 1])]",
    "f[f > 0]", "f[:, (True, False, True)]", "f[1, (0, 0, 1), tnp.asarray([0, 1, 1])]",
    "f[[0, 1], [1, 2]]", "f[..., [2]]", "f[tnp.newaxis, [1]]", "f[1, 1:]",
    "tnp.arange(24).reshape(2, 3, 4)[1, None, 1:3, ...]", "f[[True, False]]", "f[[-1]]",
]

GUIDE = r'''
tf.random.set_seed(0)
tnp.experimental_enable_numpy_behavior()

# Create an ND array and check out different attributes.
ones = tnp.ones([5, 3], dtype=tnp.float32)
print("Created ND array with shape = %s, rank = %s, "
      "dtype = %s on device = %s\n" % (
          ones.shape, ones.ndim, ones.dtype, ones.device))

# `ndarray` is just an alias to `tf.Tensor`.
print("Is `ones` an instance of tf.Tensor: %s\n" % isinstance(ones, tf.Tensor))

# Try commonly used member functions.
print("ndarray.T has shape %s" % str(ones.T.shape))
print("narray.reshape(-1) has shape %s" % ones.reshape(-1).shape)

print("Type promotion for operations")
values = [tnp.asarray(1, dtype=d) for d in
          (tnp.int32, tnp.int64, tnp.float32, tnp.float64)]
for i, v1 in enumerate(values):
  for v2 in values[i + 1:]:
    print("%s + %s => %s" %
          (v1.dtype.name, v2.dtype.name, (v1 + v2).dtype.name))

print("Type inference during array creation")
print("tnp.asarray(1).dtype == tnp.%s" % tnp.asarray(1).dtype.name)
print("tnp.asarray(1.).dtype == tnp.%s\n" % tnp.asarray(1.).dtype.name)

tnp.experimental_enable_numpy_behavior(prefer_float32=True)
print("When prefer_float32 is True:")
print("tnp.asarray(1.).dtype == tnp.%s" % tnp.asarray(1.).dtype.name)
print("tnp.add(1., 2.).dtype == tnp.%s" % tnp.add(1., 2.).dtype.name)

tnp.experimental_enable_numpy_behavior(prefer_float32=False)
print("When prefer_float32 is False:")
print("tnp.asarray(1.).dtype == tnp.%s" % tnp.asarray(1.).dtype.name)
print("tnp.add(1., 2.).dtype == tnp.%s" % tnp.add(1., 2.).dtype.name)

x = tnp.ones([2, 3])
y = tnp.ones([3])
z = tnp.ones([1, 2, 1])
print("Broadcasting shapes %s, %s and %s gives shape %s" % (
    x.shape, y.shape, z.shape, (x + y + z).shape))

x = tnp.arange(24).reshape(2, 3, 4)

print("Basic indexing")
print(x[1, tnp.newaxis, 1:3, ...], "\n")

print("Boolean indexing")
print(x[:, (True, False, True)], "\n")

print("Advanced indexing")
print(x[1, (0, 0, 1), tnp.asarray([0, 1, 1])])

# Mutation is currently not supported
try:
  tnp.arange(6)[1] = -1
except TypeError:
  print("Currently, TensorFlow NumPy does not support mutation.")

class Model(object):
  """Model with a dense and a linear layer."""

  def __init__(self):
    self.weights = None

  def predict(self, inputs):
    if self.weights is None:
      size = inputs.shape[1]
      # Note that type `tnp.float32` is used for performance.
      stddev = tnp.sqrt(size).astype(tnp.float32)
      w1 = tnp.random.randn(size, 64).astype(tnp.float32) / stddev
      bias = tnp.random.randn(64).astype(tnp.float32)
      w2 = tnp.random.randn(64, 2).astype(tnp.float32) / 8
      self.weights = (w1, bias, w2)
    else:
      w1, bias, w2 = self.weights
    y = tnp.matmul(inputs, w1) + bias
    y = tnp.maximum(y, 0)  # Relu
    return tnp.matmul(y, w2)  # Linear projection

model = Model()
# Create input data and compute predictions.
print(model.predict(tnp.ones([2, 32], dtype=tnp.float32)))

# ND array passed into NumPy function.
np_sum = np.sum(tnp.ones([2, 3]))
print("sum = %s. Class: %s" % (float(np_sum), np_sum.__class__))

# `np.ndarray` passed into TensorFlow NumPy function.
tnp_sum = tnp.sum(np.ones([2, 3]))
print("sum = %s. Is a tf.Tensor: %s" % (float(tnp_sum), isinstance(tnp_sum, tf.Tensor)))

labels = 15 + 2 * tnp.random.randn(1, 1000)
print(labels.shape, labels.dtype)

x = tnp.ones([2]) + np.ones([2])
print("x = %s\nis a tf.Tensor: %s" % (x, isinstance(x, tf.Tensor)))

x = tf.constant([1, 2])
print(x)

# `asarray` and `convert_to_tensor` here are no-ops.
tnp_x = tnp.asarray(x)
print(tnp_x)
print(tf.convert_to_tensor(tnp_x))

# Note that tf.Tensor.numpy() will continue to return `np.ndarray`.
print(x.numpy(), x.numpy().__class__)

# ND array passed into TensorFlow function.
tf_sum = tf.reduce_sum(tnp.ones([2, 3], tnp.float32))
print("Output = %s" % tf_sum)

# `tf.Tensor` passed into TensorFlow NumPy function.
tnp_sum = tnp.sum(tf.ones([2, 3]))
print("Output = %s" % tnp_sum)

def create_batch(batch_size=32):
  """Creates a batch of input and labels."""
  return (tnp.random.randn(batch_size, 32).astype(tnp.float32),
          tnp.random.randn(batch_size, 2).astype(tnp.float32))

def compute_gradients(model, inputs, labels):
  """Computes gradients of squared loss between model prediction and labels."""
  with tf.GradientTape() as tape:
    assert model.weights is not None
    # Note that `model.weights` need to be explicitly watched since they
    # are not tf.Variables.
    tape.watch(model.weights)
    # Compute prediction and loss
    prediction = model.predict(inputs)
    loss = tnp.sum(tnp.square(prediction - labels))
  # This call computes the gradient through the computation above.
  return tape.gradient(loss, model.weights)

inputs, labels = create_batch()
gradients = compute_gradients(model, inputs, labels)

# Inspect the shapes of returned gradients to verify they match the
# parameter shapes.
print("Parameter shapes:", [w.shape for w in model.weights])
print("Gradient shapes:", [g.shape for g in gradients])
# Verify that gradients are of type ND array.
assert isinstance(gradients[0], tnp.ndarray)
print("Gradient of the bias:", gradients[1][:4])

# Computes a batch of jacobians. Each row is the jacobian of an element in the
# batch of outputs w.r.t. the corresponding input batch element.
def prediction_batch_jacobian(inputs):
  with tf.GradientTape() as tape:
    tape.watch(inputs)
    prediction = model.predict(inputs)
  return prediction, tape.batch_jacobian(prediction, inputs)

inp_batch = tnp.ones([16, 32], tnp.float32)
output, batch_jacobian = prediction_batch_jacobian(inp_batch)
# Note how the batch jacobian shape relates to the input and output shapes.
print("Output shape: %s, input shape: %s" % (output.shape, inp_batch.shape))
print("Batch jacobian shape:", batch_jacobian.shape)

inputs, labels = create_batch(512)
eager = compute_gradients(model, inputs, labels)
compiled_compute_gradients = tf.function(compute_gradients)
compiled = compiled_compute_gradients(model, inputs, labels)
print("tf.function gradients match eager:",
      all(bool(tnp.allclose(a, b, rtol=1e-4, atol=1e-4)) for a, b in zip(eager, compiled)))

@tf.function
def vectorized_per_example_gradients(inputs, labels):
  def single_example_gradient(arg):
    inp, label = arg
    return compute_gradients(model,
                             tnp.expand_dims(inp, 0),
                             tnp.expand_dims(label, 0))
  # Note that a call to `tf.vectorized_map` semantically maps
  # `single_example_gradient` over each row of `inputs` and `labels`.
  # The interface is similar to `tf.map_fn`.
  # The underlying machinery vectorizes away this map loop which gives
  # nice speedups.
  return tf.vectorized_map(single_example_gradient, (inputs, labels))

batch_size = 128
inputs, labels = create_batch(batch_size)

per_example_gradients = vectorized_per_example_gradients(inputs, labels)
for w, p in zip(model.weights, per_example_gradients):
  print("Weight shape: %s, batch size: %s, per example gradient shape: %s " % (
      w.shape, batch_size, p.shape))

@tf.function
def unvectorized_per_example_gradients(inputs, labels):
  def single_example_gradient(arg):
    inp, label = arg
    return compute_gradients(model,
                             tnp.expand_dims(inp, 0),
                             tnp.expand_dims(label, 0))

  return tf.map_fn(single_example_gradient, (inputs, labels),
                   fn_output_signature=(tf.float32, tf.float32, tf.float32))

per_example_gradients = unvectorized_per_example_gradients(inputs, labels)
print("map_fn per example gradient shapes:", [p.shape for p in per_example_gradients])

device = "/device:CPU:0"
with tf.device(device):
  prediction = model.predict(create_batch(5)[0])
print("prediction is placed on %s" % prediction.device)

with tf.device("/device:CPU:0"):
  prediction_cpu = tnp.copy(prediction)
print(prediction.device)
print(prediction_cpu.device)

def np_sigmoid(y):
  return 1. / (1. + np.exp(-y))

def tnp_sigmoid(y):
  return 1. / (1. + tnp.exp(-y))

@tf.function
def compiled_tnp_sigmoid(y):
  return tnp_sigmoid(y)

y = tnp.random.randn(5).astype(np.float32)
print(tnp_sigmoid(y))
print(compiled_tnp_sigmoid(y))
print(np_sigmoid(y.numpy()))
'''


def encode(value):
    """A JSON form of a result: tensors as dtype, shape and values; sequences item by item."""
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        array = np.asarray(value.numpy())
        return {"dtype": value.dtype.name, "shape": list(array.shape), "value": _values(array)}
    if isinstance(value, (tuple, list)):
        return {"seq": [encode(v) for v in value], "type": type(value).__name__}
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "value": _values(value)}
    if isinstance(value, (bool, np.bool_)):
        return {"py": "bool", "value": bool(value)}
    if isinstance(value, (int, float, np.integer, np.floating)):
        return {"py": type(value).__name__, "value": _values(np.asarray(value))}
    return {"repr": repr(value)}


def _values(array):
    if array.dtype.kind == "c":
        return [_values(array.real), _values(array.imag)]
    if array.dtype.kind == "f":
        return np.where(np.isfinite(array), array, 0).tolist() if np.isfinite(array).all() \
            else [repr(v) for v in array.ravel().tolist()]
    if array.dtype.kind in "SUO":
        return [repr(v) for v in array.ravel().tolist()]
    return array.tolist()


def run_mode(mode: str) -> dict:
    """Every case's answer in one mode (run in a process of its own)."""
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp
    if mode != "default":
        tnp.experimental_enable_numpy_behavior(prefer_float32=mode == "numpy_f32")
    env = {"tf": tf, "tnp": tnp, "np": np}
    exec(PRELUDE, env)
    answers = {}
    for case in CASES:
        tf.random.set_seed(1)
        try:
            answers[case] = encode(eval(case, env))
        except Exception as exc:  # noqa: BLE001 - the class is the answer
            answers[case] = {"error": type(exc).__name__}
    return answers


def run_guide() -> str:
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(GUIDE, {"tf": tf, "tnp": tnp, "np": np})
    return out.getvalue()


import numpy as np  # noqa: E402 - after the docstrings the child processes also read


def main() -> None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    fixture = {"prelude": PRELUDE, "cases": CASES, "guide": GUIDE, "answers": {}}
    for mode in MODES + ("guide",):
        run = subprocess.run([sys.executable, __file__, mode], env=env, capture_output=True,
                             text=True, check=True)
        result = json.loads(run.stdout.splitlines()[-1])
        if mode == "guide":
            fixture["guide_output"] = result
        else:
            fixture["answers"][mode] = result
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(CASES)} cases x {len(MODES)} modes)")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        result = run_guide() if sys.argv[1] == "guide" else run_mode(sys.argv[1])
        print("\n" + json.dumps(result))
    else:
        main()
