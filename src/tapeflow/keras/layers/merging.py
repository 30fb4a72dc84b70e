"""Merge layers: Concatenate, Add, Subtract, Multiply, Average, Maximum, Minimum."""

from __future__ import annotations

from typing import Any

from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.ops._dtypes import result_type
from tapeflow.ops import array_ops, index_ops, math_ops, reduce_ops, sets_ops, sparse_ops


class _Merge(Layer):
    """Elementwise merges; `build` validates the input shapes once, as Keras 3's Merge."""

    _reshape_required = False

    def __init__(self, **kwargs: Any) -> None:
        # Keras 3's Merge takes only the base layer's keywords (name, dtype, trainable, ...).
        super().__init__(**kwargs)

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
        xs = [x if isinstance(x, SparseTensor) else convert_to_tensor(x) for x in inputs]
        if len({x.dtype for x in xs}) > 1 and not _any_sparse(xs):
            # Keras 3 merges mixed dtypes in their promoted one (int64 and float32: float32).
            dtype = result_type(*[x.dtype for x in xs])
            xs = [math_ops.cast(x, dtype) for x in xs]
        if self._reshape_required:  # lower ranks gain axes after the batch axis, as Keras
            if _any_sparse(xs):
                raise NotImplementedError(f"tapeflow's {type(self).__name__} layer does not "
                                          f"merge SparseTensors of different ranks.")
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
        if _any_sparse(xs):
            return _sparse_binary("subtract", xs[0], xs[1])
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
        if _any_sparse(xs):
            return _sparse_fold("multiply", xs)
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
        total = _sum(xs)
        if isinstance(total, SparseTensor):
            return total.with_values(total.values / float(len(xs)))
        return total / float(len(xs))


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
        xs = self._check(inputs)
        if _any_sparse(xs):
            return _sparse_fold("maximum", xs)
        return _masked_fold(math_ops.maximum, xs, mask)


class Minimum(_Merge):
    """Elementwise minimum of a list of inputs (masked steps left out, as Keras 3)."""

    def call(self, inputs: Any, mask: Any = None) -> Any:
        xs = self._check(inputs)
        if _any_sparse(xs):
            return _sparse_fold("minimum", xs)
        return _masked_fold(math_ops.minimum, xs, mask)


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
    if _any_sparse(xs):
        return _sparse_fold("add", xs)
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


# -- SparseTensor inputs: Keras 3's TensorFlow-backend ops on them ---------------------------

def _any_sparse(xs: list) -> bool:
    return any(isinstance(x, SparseTensor) for x in xs)


def _sparse_fold(kind: str, xs: list) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = _sparse_binary(kind, out, x)
    return out


def _sparse_binary(kind: str, x1: Any, x2: Any) -> Any:
    """`kind` of two operands, one sparse at least, as Keras 3 computes it: add and subtract
    keep the union of the indices (sparse only if both are), multiply their intersection (a
    dense operand is read at the sparse one's indices), maximum and minimum the union of two
    sparse operands and a dense result otherwise."""
    sparse1, sparse2 = isinstance(x1, SparseTensor), isinstance(x2, SparseTensor)
    if kind == "add":
        return sparse_ops.add(x1, x2)
    if kind == "subtract":
        negated = sparse_ops.map_values(math_ops.negative, x2) if sparse2 else \
            math_ops.negative(x2)
        return sparse_ops.add(x1, negated)
    if kind == "multiply":
        if sparse1 and sparse2:
            indices, values1, values2 = _intersection(x1, x2)
            return SparseTensor(indices, values1 * values2, x1.dense_shape)
        if sparse1:
            return x1.with_values(x1.values * index_ops.gather_nd(x2, x1.indices))
        return x2.with_values(index_ops.gather_nd(x1, x2.indices) * x2.values)
    if sparse1 and sparse2:
        return (sparse_ops.maximum if kind == "maximum" else sparse_ops.minimum)(x1, x2)
    x1 = sparse_ops.to_dense(x1) if sparse1 else x1
    x2 = sparse_ops.to_dense(x2) if sparse2 else x2
    return (math_ops.maximum if kind == "maximum" else math_ops.minimum)(x1, x2)


def _intersection(x1: SparseTensor, x2: SparseTensor) -> tuple:
    """The indices both hold (row-major) and each one's values there: Keras's
    `sparse_intersection_indices_and_values` (set intersection over an added last axis)."""
    def marks(x: SparseTensor, fill: Any) -> SparseTensor:
        return sparse_ops.map_values(lambda v: fill(v, dtype="int8"), x)
    both = sets_ops.set_intersection(
        sparse_ops.expand_dims(marks(x1, math_ops.ones_like), -1),
        sparse_ops.expand_dims(marks(x2, math_ops.ones_like), -1))
    both = sparse_ops.reshape(both, x1.dense_shape)
    kept = [sparse_ops.retain(x, math_ops.cast(
        sparse_ops.add(marks(x, math_ops.zeros_like), both).values, "bool")).values
        for x in (x1, x2)]
    return both.indices, kept[0], kept[1]


def add(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Add` layer: the elementwise sum of `inputs`."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Subtract` layer: `inputs[0] - inputs[1]`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Multiply` layer: the elementwise product of `inputs`."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Average` layer: the elementwise mean of `inputs`."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Maximum` layer: the elementwise maximum of `inputs`."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list, **kwargs: Any) -> Any:
    """Functional interface to the `Minimum` layer: the elementwise minimum of `inputs`."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional interface to the `Concatenate` layer, along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate"]
