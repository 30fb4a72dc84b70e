"""Merge layers: Concatenate, Add, Subtract, Multiply, Average, Maximum, Minimum."""

from __future__ import annotations

from typing import Any

from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, math_ops, reduce_ops, sparse_ops


class _Merge(Layer):
    """Elementwise merges; `build` validates the input shapes once, as Keras 3's Merge."""

    _reshape_required = False

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The OR of the inputs' masks when every input has one, else None (Keras 3)."""
        if not isinstance(previous_mask, (list, tuple)) or \
                any(m is None for m in previous_mask):
            return None
        out = previous_mask[0]
        for m in previous_mask[1:]:
            out = math_ops.logical_or(out, m)
        return out

    def _check(self, inputs: Any) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"A merge layer should be called on a list of inputs. "
                             f"Received: inputs={inputs} (not a list of tensors)")
        if any(isinstance(x, SparseTensor) for x in inputs):
            raise NotImplementedError(f"tapeflow's {type(self).__name__} layer does not take "
                                      f"SparseTensor inputs yet (Keras 3 merges them sparse): "
                                      f"densify them first with tf.sparse.to_dense.")
        xs = [convert_to_tensor(x) for x in inputs]
        if self._reshape_required:  # lower ranks gain axes after the batch axis, as Keras
            rank = max(x.shape.rank for x in xs)
            for i, x in enumerate(xs):
                for _ in range(rank - x.shape.rank):
                    x = array_ops.expand_dims(x, 1)
                xs[i] = x
        return xs

    def build(self, input_shape: Any = None) -> None:
        if not input_shape or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A merge layer should be called on a list of inputs. "
                             f"Received: input_shape={_shapes_text(input_shape)} (not a list "
                             f"of shapes)")
        shapes = [tuple(s) for s in input_shape]
        batch_sizes = {s[0] for s in shapes if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes. Received "
                             f"tensors with shapes {_shapes_text(shapes)}")
        output_shape = shapes[0][1:]
        for shape in shapes[1:]:
            output_shape = _elementwise_shape(output_shape, shape[1:])
        self._reshape_required = len({len(s) for s in shapes}) != 1
        self.built = True


def _shapes_text(shapes: Any) -> str:
    """Shapes as Keras prints them: tuples in a list."""
    if isinstance(shapes, list):
        return "[" + ", ".join(str(tuple(s)) for s in shapes) + "]"
    return str(tuple(shapes)) if isinstance(shapes, (list, tuple)) else str(shapes)


def _elementwise_shape(shape1: tuple, shape2: tuple) -> tuple:
    """The broadcast shape of two per-example shapes (Keras's
    `_compute_elemwise_op_output_shape`), or Keras's ValueError."""
    if len(shape1) < len(shape2):
        return _elementwise_shape(shape2, shape1)
    if not shape2:
        return shape1
    out = list(shape1[:-len(shape2)])
    for i, j in zip(shape1[-len(shape2):], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1:
            out.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(f"Inputs have incompatible shapes. Received shapes {shape1} and "
                             f"{shape2}")
        else:
            out.append(i)
    return tuple(out)


class Add(_Merge):
    """Elementwise sum of a list of inputs."""

    def call(self, inputs: Any) -> Any:
        return _sum(self._check(inputs))


class Subtract(_Merge):
    """inputs[0] - inputs[1]."""

    def build(self, input_shape: Any = None) -> None:
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: input_shape={_shapes_text(list(input_shape))}")

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        if len(xs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        return xs[0] - xs[1]


def _feature_masks(xs: list, masks: Any) -> list:
    """Each input's Keras mask (batch, steps) broadcast over its features, or None."""
    masks = masks if isinstance(masks, (list, tuple)) else [None] * len(xs)
    return [None if m is None else
            array_ops.broadcast_to(array_ops.expand_dims(m, -1), array_ops.shape(x))
            for x, m in zip(xs, masks)]


class Multiply(_Merge):
    """Elementwise product of a list of inputs; masked steps count as 1, and are 0 in the
    output when every input is masked (Keras 3)."""

    def call(self, inputs: Any, mask: Any = None) -> Any:
        xs = self._check(inputs)
        masks = _feature_masks(xs, mask)
        out, out_mask = None, None
        for x, m in zip(xs, masks):
            if m is not None:
                x = math_ops.where(m, x, math_ops.ones_like(x))
                out_mask = m if out_mask is None else math_ops.logical_or(out_mask, m)
            out = x if out is None else out * x
        if all(m is not None for m in masks):
            out = math_ops.where(out_mask, out, math_ops.zeros_like(out))
        return out


class Average(_Merge):
    """Elementwise mean of a list of inputs."""

    def call(self, inputs: Any) -> Any:
        xs = self._check(inputs)
        return _sum(xs) / float(len(xs))


def _masked_fold(op: Any, xs: list, masks: Any) -> Any:
    """Folds `op` over the inputs, a masked step taking the other operand's value (Keras 3's
    `_apply_merge_op_and_or_mask`: there is no identity element to put in its place)."""
    out, out_mask = None, None
    for x, m in zip(xs, _feature_masks(xs, masks)):
        if out is None:
            out, out_mask = x, m
            continue
        if m is not None:
            x = math_ops.where(m, x, out)
        if out_mask is not None:
            out = math_ops.where(out_mask, out, x)
        out_mask = math_ops.logical_or(out_mask, m) if m is not None and \
            out_mask is not None else None
        out = op(out, x)
    return out


class Maximum(_Merge):
    """Elementwise maximum of a list of inputs (masked steps left out, as Keras 3)."""

    def call(self, inputs: Any, mask: Any = None) -> Any:
        return _masked_fold(math_ops.maximum, self._check(inputs), mask)


class Minimum(_Merge):
    """Elementwise minimum of a list of inputs (masked steps left out, as Keras 3)."""

    def call(self, inputs: Any, mask: Any = None) -> Any:
        return _masked_fold(math_ops.minimum, self._check(inputs), mask)


class Concatenate(_Merge):
    """Joins a list of inputs along `axis` (the last by default)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape: Any = None) -> None:
        """Checks that the shapes match but on `axis` (Keras 3's validation)."""
        if not input_shape or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 "
                             f"input. Received: input_shape={_shapes_text(input_shape)}")
        reduced = set()
        for shape in input_shape:
            shape = list(shape)
            if len(shape) > self.axis:
                del shape[self.axis]
            reduced.add(tuple(shape))
        if len(reduced) != 1:
            ranks = {len(s) for s in reduced}
            if len(ranks) != 1 or any(
                    len({s[a] for s in reduced if s[a] is not None}) > 1
                    for a in range(ranks.pop())):
                raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes "
                                 f"except for the concatenation axis. Received: "
                                 f"input_shape={_shapes_text(list(input_shape))}")
        self.built = True

    def call(self, inputs: Any) -> Any:
        if isinstance(inputs, (list, tuple)):
            sparse = [isinstance(x, SparseTensor) for x in inputs]
            if all(sparse) and inputs:   # stays sparse; a mix is joined dense (Keras 3)
                return sparse_ops.concat(self.axis, list(inputs))
            if any(sparse):
                inputs = [sparse_ops.to_dense(x) if s else x for x, s in zip(inputs, sparse)]
        return array_ops.concat(self._check(inputs), axis=self.axis)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The inputs' masks (all True for an unmasked one) joined along `axis`, then any()
        over the last axis, as Keras 3."""
        if not isinstance(previous_mask, (list, tuple)) or \
                all(m is None for m in previous_mask):
            return None
        masks = []
        for x, m in zip(inputs, previous_mask):
            x = convert_to_tensor(x)
            if m is None:
                m = math_ops.ones_like(x, dtype="bool")
            elif m.shape.rank < x.shape.rank:
                m = math_ops.logical_or(array_ops.expand_dims(m, -1),
                                        math_ops.zeros_like(x, dtype="bool"))
            masks.append(m)
        return reduce_ops.reduce_any(array_ops.concat(masks, axis=self.axis), axis=-1)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def _sum(xs: list) -> Any:
    """Left-to-right broadcasting sum, as Keras's Add (shapes (2, 3) and (2, 1) add)."""
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def add(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Add` layer: the elementwise sum of `inputs`."""
    return Add(**kwargs)(inputs)


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional interface to the `Concatenate` layer, along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "add", "concatenate"]
