"""`tf.test.compute_gradient`: theoretical (tape) and numerical (finite difference) Jacobians.

As TensorFlow's `gradient_checker_v2`: for y = f(*xs), one Jacobian pair per argument, each a
NumPy array of shape [y_size, x_size] (y and x flattened). The theoretical Jacobian is built
one row at a time by pulling a one-hot cotangent back through a GradientTape; the numerical
one column at a time by central differences.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.tape import GradientTape
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor

_FLOAT_KINDS = "fc"


def _to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, IndexedSlices):  # as TF's checker: the dense sum of the slices
        value = value._dense()
    return np.asarray(value._value if hasattr(value, "_value") else value)


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype if dtype.kind == "c" else dtype


def _check_dtype(dtype: np.dtype, what: str) -> None:
    # TensorFlow asserts on non-floating arguments and results the same way.
    if dtype.kind not in _FLOAT_KINDS:
        raise AssertionError(f"Cannot compute gradient for unsupported type {dtype.name} of "
                             f"{what}")


def _theoretical_jacobian(f: Callable, xs: list, y: np.ndarray, param: int) -> np.ndarray:
    """Row i is the gradient of y.flat[i] with respect to xs[param], from the tape."""
    x = xs[param]._value
    x_size = x.size * (2 if x.dtype.kind == "c" else 1)
    y_factor = 2 if y.dtype.kind == "c" else 1
    y_size = y.size * y_factor
    jacobian = np.zeros((y_size, x_size), dtype=_real_dtype(x.dtype))
    for row in range(y_size):
        seed = np.zeros(y.shape, y.dtype)
        seed.ravel().view(_real_dtype(y.dtype))[row] = 1
        grad = _pull_back(f, xs, param, seed)
        if grad is not None:
            jacobian[row, :] = np.ascontiguousarray(grad).ravel().view(jacobian.dtype)
    if y_size == 0:
        grad = _pull_back(f, xs, param, np.zeros(y.shape, y.dtype))
        if grad is not None and grad.shape != x.shape:
            raise ValueError(f"Empty gradient has wrong shape: expected {x.shape}, got "
                             f"{grad.shape}")
        if grad is not None and np.any(grad):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _pull_back(f: Callable, xs: list, param: int, seed: np.ndarray) -> Optional[np.ndarray]:
    """The cotangent of xs[param] for cotangent `seed` on f's output (None if unconnected)."""
    # A fresh tensor per call, so the tape watches exactly this argument.
    source = wrap(xs[param]._value)
    args = list(xs)
    args[param] = source
    with GradientTape() as tape:
        tape.watch(source)
        y = convert_to_tensor(f(*args))
    grad = tape.gradient(y, source, output_gradients=wrap(seed))
    return None if grad is None else _to_numpy(grad)


def _numeric_jacobian(f: Callable, xs: list, y: np.ndarray, param: int,
                      delta: float) -> np.ndarray:
    """Column j is (f(x + delta e_j) - f(x - delta e_j)) / (2 delta)."""
    # Private C-ordered copies, perturbed in place below through a flat view (a transposed
    # input would otherwise give a flat copy, and the perturbation would be lost).
    values = [np.array(x._value, order="C") for x in xs]
    x = values[param]
    x_real = _real_dtype(x.dtype)
    y_real = _real_dtype(y.dtype)
    x_size = x.size * (2 if x.dtype.kind == "c" else 1)
    y_size = y.size * (2 if y.dtype.kind == "c" else 1)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((y_size, x_size), dtype=x_real)
    flat = x.reshape(-1).view(x_real)

    def evaluate() -> np.ndarray:
        return _to_numpy(f(*[wrap(v.copy()) for v in values]))

    for col in range(x_size):
        original = flat[col]
        flat[col] = original + delta
        y_pos = evaluate()
        flat[col] = original - delta
        y_neg = evaluate()
        flat[col] = original
        diff = np.ascontiguousarray((y_pos - y_neg) / scale)
        jacobian[:, col] = diff.ravel().view(y_real)
    return jacobian


def compute_gradient(f: Callable, x: Sequence[Any], delta: Optional[float] = None) -> tuple:
    """Computes the theoretical and numeric Jacobians of `f` at `x`.

    Args:
      f: a function of `len(x)` tensors returning one tensor.
      x: a list or tuple of values convertible to tensors: the point to check at.
      delta: the finite-difference step (default 1/1024, exactly representable).

    Returns:
      `(theoretical, numerical)`: two tuples holding, per argument, a 2-D NumPy array of
      shape `[y_size, x_size]` (complex values count as two reals).

    Raises:
      ValueError: if `x` is not a list or tuple, or an empty result has a nonzero gradient.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"`x` must be a list or tuple of values convertible to a Tensor "
                         f"(arguments to `f`), not a {type(x)}")
    if delta is None:
        delta = 1.0 / 1024
    xs = [convert_to_tensor(value) for value in x]
    y = _to_numpy(f(*xs))
    _check_dtype(y.dtype, "y")
    pairs = []
    for param, value in enumerate(xs):
        _check_dtype(value._value.dtype, f"argument {param}")
        pairs.append((_theoretical_jacobian(f, xs, y, param),
                      _numeric_jacobian(f, xs, y, param, delta)))
    return tuple(zip(*pairs)) if pairs else ((), ())


def max_error(grad1: Sequence[np.ndarray], grad2: Sequence[np.ndarray]) -> float:
    """The largest elementwise gap between two lists of Jacobians of matching shapes."""
    error = 0.0
    for j_t, j_n in zip(grad1, grad2):
        if j_t.size or j_n.size:
            error = max(error, float(np.fabs(j_t - j_n).max()))
    return error


__all__ = ["compute_gradient", "max_error"]
