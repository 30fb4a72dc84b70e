"""Keras 3's Dot (and `dot`), RMSNormalization, ActivityRegularization, SpatialDropout3D and
ReversibleEmbedding, on tapeflow's ops and layer bases."""

from __future__ import annotations

import string
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, regularizers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.core import Embedding
from tapeflow.keras.layers.layer import Layer, set_keras_mask
from tapeflow.keras.layers.merging import _Merge
from tapeflow.keras.layers.noise import SpatialDropout2D
from tapeflow.ops import array_ops, linalg_ops, math_ops, reduce_ops

__all__ = ["Dot", "dot", "RMSNormalization", "ActivityRegularization", "SpatialDropout3D",
           "ReversibleEmbedding"]


def _l2_normalized(x: Any, axis: int) -> Any:
    """Keras's `ops.normalize(x, axis, order=2)`: x * min(rsqrt(sum(x^2)), 1 / epsilon)."""
    inv_norm = math_ops.rsqrt(reduce_ops.reduce_sum(math_ops.square(x), axis=axis,
                                                    keepdims=True))
    return x * math_ops.minimum(inv_norm, 1.0 / backend.epsilon())


def _batch_dot(x: Any, y: Any, axes: list) -> Any:
    """Keras's `batch_dot` of two batches contracted over `axes` (neither the batch axis):
    the result keeps x's other axes then y's (a rank-1 result gains a unit axis)."""
    x_rank, y_rank = len(x.shape), len(y.shape)
    if x_rank < 2 or y_rank < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with "
                         f"shapes {x.shape} and {y.shape}.")
    if 0 in axes:
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not "
                         "batched, add a dummy batch dimension to your inputs using "
                         "keras.ops.expand_dims(x, 0)")
    letters = iter(string.ascii_letters[2:])
    x_sub = ["a"] + [next(letters) for _ in range(x_rank - 1)]
    y_sub = ["a"] + [next(letters) for _ in range(y_rank - 1)]
    y_sub[axes[1]] = x_sub[axes[0]]
    out = [s for i, s in enumerate(x_sub) if i != axes[0]] + \
        [s for i, s in enumerate(y_sub) if i not in (0, axes[1])]
    result = linalg_ops.einsum(f"{''.join(x_sub)},{''.join(y_sub)}->{''.join(out)}", x, y)
    return result[:, None] if len(out) == 1 else result


class Dot(_Merge):
    """The dot product of two batches of samples along `axes` (an int, or one axis per
    input; never the batch axis), optionally of L2-normalized samples (cosine proximity).

    Args:
      axes: int or (int, int): the axes contracted.
      normalize: L2-normalize each sample along its axis first.
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(f"Invalid type for argument `axes`: it should be a list or an "
                                f"int. Received: axes={axes}")
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two "
                                 f"elements. Received: axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should "
                                 f"be integers. Received: axes={axes}")
        self.axes = axes
        self.normalize = normalize

    def _axes(self, ranks: tuple) -> list:
        """The two contracted axes, negative ones counted from each input's rank."""
        axes = [self.axes] * 2 if isinstance(self.axes, int) else list(self.axes)
        return [a % r if a < 0 else a for a, r in zip(axes, ranks)]

    def _axes_as_keras_checks(self, shape1: tuple, shape2: tuple) -> list:
        """Keras's build and compute_output_shape wrap a negative int axis but index a pair
        as given."""
        if isinstance(self.axes, int):
            return self._axes((len(shape1), len(shape2)))
        return list(self.axes)

    def build(self, input_shape: Any = None) -> None:
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")
        shape1, shape2 = (tuple(s) for s in input_shape)
        axes = self._axes_as_keras_checks(shape1, shape2)
        if shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError(f"Incompatible input shapes: axis values {shape1[axes[0]]} (at "
                             f"axis {axes[0]}) != {shape2[axes[1]]} (at axis {axes[1]}). "
                             f"Full input shapes: {shape1}, {shape2}")
        self.built = True

    def call(self, inputs: Any) -> Any:
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        x1, x2 = (convert_to_tensor(x) for x in inputs)
        axes = self._axes((len(x1.shape), len(x2.shape)))
        if self.normalize:
            x1, x2 = _l2_normalized(x1, axes[0]), _l2_normalized(x2, axes[1])
        return _batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape1, shape2 = (list(s) for s in input_shape)
        axes = self._axes_as_keras_checks(shape1, shape2)
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        output = shape1 + shape2[1:]
        return tuple(output + [1] if len(output) == 1 else output)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> None:
        """A dot product carries no mask (Keras 3)."""
        return None

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs: list, axes: Any = -1, **kwargs: Any) -> Any:
    """Functional interface to the `Dot` layer: the dot product of `inputs[0]` and
    `inputs[1]` along `axes`."""
    return Dot(axes=axes, **kwargs)(inputs)


class RMSNormalization(Layer):
    """Root-mean-square normalization: `x * rsqrt(mean(x^2 over axis) + epsilon) * scale`,
    with a `scale` (ones) the size of the normalized axes, as Keras 3.

    Args:
      axis: int or list of ints: the normalized axes.
      epsilon: added to the mean square.
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape: Any) -> None:
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[a] for a in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        dtype = x.dtype
        if dtype.is_floating and dtype.size < 4:  # computes in at least float32, as Keras
            x = math_ops.cast(x, "float32")
        mean_square = reduce_ops.reduce_mean(math_ops.square(x), axis=self.axis, keepdims=True)
        outputs = x * math_ops.rsqrt(mean_square + self.epsilon)
        outputs = outputs * math_ops.cast(self.scale, outputs.dtype)
        return math_ops.cast(outputs, dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        for axis in [self.axis] if isinstance(self.axis, int) else self.axis:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(f"Axis {axis} is out of bounds for input shape "
                                 f"{input_shape}. Received: axis={self.axis}")
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


class ActivityRegularization(Layer):
    """The identity, adding `l1 * sum(|x|) + l2 * sum(x^2)` (over the batch size) of its
    input to the layer's losses."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        """Keras 3's: the penalties as `l1` and `l2` (no `activity_regularizer`)."""
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}


class SpatialDropout3D(SpatialDropout2D):
    """Drops whole channels of 5-D inputs (channels last or first) in training."""

    _ndim = 5

    def __init__(self, rate: float, data_format: Optional[str] = None,
                 seed: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(rate, data_format=data_format, seed=seed, name=name, dtype=dtype)
        self.input_spec = InputSpec(ndim=5)

    def _noise_shape(self, shape: list) -> tuple:
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1, 1)
        return (shape[0], 1, 1, 1, shape[4])


class ReversibleEmbedding(Embedding):
    """An Embedding that also maps vectors back to logits over the ids (`reverse=True`):
    `inputs @ embeddings.T` with `tie_weights`, else `inputs @ reverse_embeddings` (its own
    `(output_dim, input_dim)` weight), optionally in `reverse_dtype` and soft-capped as
    `tanh(logits / logit_soft_cap) * logit_soft_cap`. (Keras's int8/int4 quantization of
    the layer is not implemented.)"""

    def __init__(self, input_dim: int, output_dim: int, tie_weights: bool = True,
                 embeddings_initializer: Any = "uniform", embeddings_regularizer: Any = None,
                 embeddings_constraint: Any = None, mask_zero: bool = False,
                 reverse_dtype: Any = None, logit_soft_cap: Optional[float] = None,
                 **kwargs: Any) -> None:
        quantization_config = kwargs.pop("quantization_config", None)
        if quantization_config is not None:  # Keras 3.15 writes None in every config
            raise NotImplementedError(f"ReversibleEmbedding: tapeflow does not quantize layers. "
                                      f"Received: quantization_config={quantization_config}")
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = tie_weights
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape: Any = None) -> None:
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim), initializer=self.embeddings_initializer,
                name="reverse_embeddings", trainable=True)
        self.built = True

    def _convert_inputs(self, inputs: Any) -> Any:
        """Ids or vectors alike (the forward call casts non-integer ids itself)."""
        return Layer._convert_inputs(self, inputs)

    def call(self, inputs: Any, reverse: bool = False) -> Any:
        if not reverse:
            result = super().call(inputs)
            if self.mask_zero:
                set_keras_mask(result, math_ops.not_equal(inputs, 0))
            return result
        kernel = array_ops.transpose(self.embeddings) if self.tie_weights \
            else self.reverse_embeddings
        x = convert_to_tensor(inputs)
        if self.reverse_dtype is not None:
            x, kernel = math_ops.cast(x, self.reverse_dtype), math_ops.cast(kernel,
                                                                             self.reverse_dtype)
        logits = math_ops.matmul(x, kernel)
        if self.logit_soft_cap is not None:
            logits = math_ops.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        return logits

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> None:
        """The forward call attaches its mask itself (Keras 3)."""
        return None

    def get_config(self) -> dict:
        return {**super().get_config(),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype, "logit_soft_cap": self.logit_soft_cap}
