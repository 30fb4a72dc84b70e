"""Helpers shared by tf.image's modules: rank and static-size checks, TF's missing gradients."""

from __future__ import annotations

from typing import Any

import numpy as np

import tapeflow as tf

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
