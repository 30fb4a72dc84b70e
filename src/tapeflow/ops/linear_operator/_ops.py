"""The tapeflow ops the operators are written in, taken from their public declarations so
that every operator method is a composite of differentiable ops."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework import dtypes
from tapeflow.framework.exports import exported
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.variables import Variable

_TOP, _MATH, _LINALG, _SIGNAL = (exported(n) for n in ("", "math", "linalg", "signal"))

add, subtract, multiply, divide = (_TOP[n] for n in ("add", "subtract", "multiply", "divide"))
reduce_sum, reduce_prod, reduce_max, reduce_min = (
    _TOP[n] for n in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min"))
abs_, sqrt, exp, log, negative = (_TOP[n] for n in ("abs", "sqrt", "exp", "log", "negative"))
conj, real, cast, complex_ = _MATH["conj"], _MATH["real"], _TOP["cast"], _TOP["complex"]
ones_like, argsort, transpose = _TOP["ones_like"], _TOP["argsort"], _TOP["transpose"]
reshape, concat, stack, gather, split = (
    _TOP[n] for n in ("reshape", "concat", "stack", "gather", "split"))
ones, zeros, broadcast_to, shape, expand_dims, squeeze, pad, one_hot = (
    _TOP[n] for n in ("ones", "zeros", "broadcast_to", "shape", "expand_dims", "squeeze",
                      "pad", "one_hot"))
matmul, adjoint, eye, solve, det, slogdet, cholesky = (
    _LINALG[n] for n in ("matmul", "adjoint", "eye", "solve", "det", "slogdet", "cholesky"))
triangular_solve, cholesky_solve, svd, eigvalsh = (
    _LINALG[n] for n in ("triangular_solve", "cholesky_solve", "svd", "eigvalsh"))
diag, diag_part, band_part, matrix_transpose = (
    _LINALG[n] for n in ("diag", "diag_part", "band_part", "matrix_transpose"))
ifft, ifft2d, ifft3d = (_SIGNAL[n] for n in ("ifft", "ifft2d", "ifft3d"))

__all__ = ["dtypes", "convert_to_tensor", "TensorShape", "Variable"]
