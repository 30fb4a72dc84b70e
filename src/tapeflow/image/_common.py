"""Helpers shared by tf.image's modules: rank and size checks, TF's missing gradients, and the
run-time forms of sizes, offsets and checks for traced programs."""

from __future__ import annotations

from typing import Any

import numpy as np

import tapeflow as tf
from tapeflow.framework.context import context
from tapeflow.ops._static import is_traced

_F32 = np.float32


def _no_gradient(op: str, value: Any) -> Any:
    """`value`, whose gradient raises TF's LookupError (TF registers none for `op`)."""
    @tf.custom_gradient
    def blocked(v: Any) -> Any:
        def grad(*_: Any) -> Any:
            raise LookupError(f"gradient registry has no entry for: {op}")
        return tf.identity(v), grad
    return blocked(value)


def _batched(images: Any, op: str) -> tuple:
    """(4-D images, whether a batch axis was added); TF's rank error otherwise."""
    images = tf.convert_to_tensor(images)
    rank = images.shape.rank
    if rank is None:
        raise ValueError("'images' contains no shape.")
    if rank == 3:
        return tf.expand_dims(images, 0), True
    if rank != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    return images, False


def _image_hw(images: Any, op: str) -> tuple:
    height, width = images.shape.as_list()[1:3]
    if height is None or width is None:
        raise NotImplementedError(f"{op}: tapeflow needs the images' height and width known "
                                  f"statically (got shape {images.shape}); give the "
                                  f"tf.function an input_signature with them.")
    return height, width


def _needs_run_time(images: Any, *args: Any) -> bool:
    """Whether an image op is being traced with `images`' height or width unknown, or with a
    traced size or offset among `args` (items of a list included): its sizes and checks are
    then ops of the graph, read and made when it runs. Eager calls never take that path."""
    if context.graph is None:
        return False
    if None in images.shape.as_list()[1:3]:
        return True
    return any(is_traced(a) for arg in args
               for a in (arg if isinstance(arg, (list, tuple)) else [arg]))


def _run_time_hw(images: Any) -> tuple:
    """(height, width) of 4-D `images`: Python ints where static, else int32 scalars read
    when the graph runs."""
    static = images.shape.as_list()[1:3]
    if None not in static:
        return tuple(static)
    shape = tf.shape(images)
    return tuple(shape[1 + i] if d is None else d for i, d in enumerate(static))


def _int32(value: Any) -> Any:
    """A size or offset: a Python int stays one (checked and folded while tracing, as TF's);
    a tensor becomes an int32 scalar."""
    if isinstance(value, tf.Tensor):
        return value if value.dtype == tf.int32 else tf.cast(value, tf.int32)
    return int(value)


def _require(condition: Any, message: str) -> None:
    """TF's `_assert` in image_ops: a Python `condition` is checked now (ValueError); a
    tensor one becomes an Assert op, raising InvalidArgumentError `assertion failed:
    [message]` when the graph runs (made before the ops it guards, so it runs first)."""
    if isinstance(condition, tf.Tensor):
        tf.debugging.Assert(condition, [message])
    else:
        _check(bool(condition), message)


def _check_kernel(value: np.ndarray, ok: np.ndarray, message: str) -> np.ndarray:
    if not ok:
        raise tf.errors.InvalidArgumentError(message.replace("{value}", str(value)))
    return value


def _checked(value: Any, ok: Any, message: str) -> Any:
    """`value` (a size read as the graph runs) passed on once the bool scalar `ok` holds;
    otherwise InvalidArgumentError(`message`, its `{value}` filled in) as the graph runs, as
    TF's kernel's check. The ops that use `value` depend on the check, so it runs first."""
    return _bind(_CHECK, value, ok, message=message)


def _as_f32(value: Any) -> Any:
    """A size as a float: a Python float where static, else a float32 scalar."""
    return float(value) if isinstance(value, int) else tf.cast(value, tf.float32)


def _zeros_around(x: Any, axis: int, before: Any, after: Any) -> Any:
    """`x` between `before` and `after` zeros along `axis` (counts read as the graph runs)."""
    def zeros(count: Any) -> Any:
        shape = tf.unstack(tf.shape(x))
        shape[axis] = count
        return tf.zeros(tf.stack(shape), x.dtype)
    return tf.concat([zeros(before), x, zeros(after)], axis)


def _image_rank(image: Any) -> Any:
    image = tf.convert_to_tensor(image)
    rank = image.shape.rank
    if rank is not None and rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")
    return image


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _numpy_op(name: str, kernel: Any, shape_rule: Any, multiple_results: bool = False) -> Any:
    """A primitive without a gradient (TF registers none) running the NumPy `kernel`, so the op
    works eagerly and in `tf.function` graphs."""
    from tapeflow.autodiff.core import Primitive
    return Primitive(name, kernel, differentiable=False, shape_rule=shape_rule,
                     multiple_results=multiple_results)


def _bind(prim: Any, *inputs: Any, **attrs: Any) -> Any:
    from tapeflow.autodiff.core import bind
    return bind(prim, [tf.convert_to_tensor(x) for x in inputs], attrs)


# No TensorFlow op has this name: TF's kernels check their run-time sizes as they run.
_CHECK = _numpy_op("ImageSizeCheck", _check_kernel, lambda value, ok, **_: value)
