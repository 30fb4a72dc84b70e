"""BatchNormalization, LayerNormalization, GroupNormalization and UnitNormalization, with
Keras 3's defaults and update rules."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, constraints, initializers, regularizers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, math_ops, nn_ops, reduce_ops


def _param_shape(input_shape: tuple, axes: tuple) -> tuple:
    return tuple(input_shape[a] for a in axes)


def _broadcast_shape(rank: int, axes: tuple, input_shape: tuple) -> tuple:
    return tuple(input_shape[i] if i in axes else 1 for i in range(rank))


class BatchNormalization(Layer):
    """Normalizes with the batch's statistics in training (and moves the moving statistics
    toward them: `moving = moving * momentum + batch * (1 - momentum)`), with the moving
    statistics at inference. A frozen layer (`trainable = False`) always uses inference mode.

    `renorm=True` is Keras 3's batch renormalization: in training the batch-normalized value
    is corrected by `r = stddev / renorm_stddev` and `d = (mean - renorm_mean) /
    renorm_stddev` (clipped by `renorm_clipping`'s rmin, rmax, dmax; no gradient), the renorm
    statistics move with `renorm_momentum`, and the moving variance follows a moving stddev.

    Weights: gamma, beta (trainable), moving_mean, moving_variance (non-trainable); with
    renorm also moving_stddev, renorm_mean, renorm_stddev (non-trainable).
    """

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, renorm: bool = False,
                 renorm_clipping: Optional[dict] = None, renorm_momentum: float = 0.99,
                 synchronized: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True   # the input's mask passes on (Keras 3)
        self.axis, self.momentum, self.epsilon = int(axis), float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.synchronized = synchronized
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.renorm = renorm
        if renorm:
            renorm_clipping = renorm_clipping or {}
            _check_renorm_clipping(renorm_clipping)
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self._axis = self.axis % rank
        shape = (input_shape[self._axis],)
        self.gamma = self.add_weight(shape=shape, name="gamma",
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight(shape=shape, name="beta",
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.moving_mean = self.add_weight(shape=shape, name="moving_mean",
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight(shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        if self.renorm:
            self._add_renorm_weights(shape)
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: input_shape[self.axis]})
        self.built = True

    def _add_renorm_weights(self, shape: tuple) -> None:
        """The moving stddev (the square root of the moving variance's initializer) and the
        renorm mean and stddev that the training corrections use, as Keras 3 creates them."""
        variance_init = self.moving_variance_initializer

        def stddev_initializer(shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
            return math_ops.sqrt(variance_init(shape, dtype=dtype))

        self.moving_stddev = self.add_weight(shape=shape, name="moving_stddev",
                                             initializer=stddev_initializer, trainable=False)
        self.renorm_mean = self.add_weight(shape=shape, name="renorm_mean",
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.renorm_stddev = self.add_weight(shape=shape, name="renorm_stddev",
                                             initializer=stddev_initializer, trainable=False)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = convert_to_tensor(inputs)
        rank = x._value.ndim
        reduce_axes = tuple(i for i in range(rank) if i != self._axis)
        shape = _broadcast_shape(rank, (self._axis,), x._value.shape)
        if mask is not None and len(mask.shape) != rank - 1:
            raise ValueError(f"The mask provided should be one dimension less than the inputs. "
                             f"Received: mask.shape={tuple(mask.shape)}, "
                             f"inputs.shape={tuple(x.shape)}")
        gamma, beta = self.gamma, self.beta
        if training and self.trainable:
            mean, variance = self._moments(x, reduce_axes, shape, mask)
            if self.renorm:
                gamma, beta = self._renormalized(mean, variance, x.dtype)
                self._update_renorm_statistics(mean, variance)
            else:
                m = self.momentum
                self.moving_mean.assign(math_ops.stop_gradient(
                    self.moving_mean * m + mean * (1.0 - m)))
                self.moving_variance.assign(math_ops.stop_gradient(
                    self.moving_variance * m + variance * (1.0 - m)))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        inv = math_ops.rsqrt(array_ops.reshape(variance, shape) + self.epsilon)
        if gamma is not None:
            inv = inv * array_ops.reshape(gamma, shape)
        y = (x - array_ops.reshape(mean, shape)) * inv
        if beta is not None:
            y = y + array_ops.reshape(beta, shape)
        return y

    def _renormalized(self, mean: Any, variance: Any, dtype: Any) -> tuple:
        """(gamma, beta) composed with the renorm correction: `(x * r + d) * gamma + beta` is
        `x * (r * gamma) + (d * gamma + beta)` (Keras's `_compose_transforms`)."""
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_stddev = math_ops.maximum(   # no division by zero early in training
            convert_to_tensor(self.renorm_stddev),
            math_ops.sqrt(math_ops.cast(self.epsilon, mean.dtype)))
        r = stddev / renorm_stddev
        d = (mean - self.renorm_mean) / renorm_stddev
        clip = self.renorm_clipping
        if clip.get("rmin") is not None:
            r = math_ops.maximum(r, clip["rmin"])
        if clip.get("rmax") is not None:
            r = math_ops.minimum(r, clip["rmax"])
        if clip.get("dmax") is not None:
            d = math_ops.minimum(math_ops.maximum(d, -clip["dmax"]), clip["dmax"])
        r, d = math_ops.stop_gradient(r), math_ops.stop_gradient(d)
        if self.gamma is not None:
            gamma, beta = r * self.gamma, d * self.gamma
        else:
            gamma, beta = math_ops.cast(r, dtype), math_ops.cast(d, dtype)
        return gamma, beta if self.beta is None else beta + self.beta

    def _update_renorm_statistics(self, mean: Any, variance: Any) -> None:
        """Keras 3's updates: the renorm mean and stddev with `renorm_momentum`, the moving
        mean and stddev with `momentum`, and the moving variance as `relu(stddev**2 - eps)`."""
        mean, variance = math_ops.stop_gradient(mean), math_ops.stop_gradient(variance)
        stddev = math_ops.sqrt(variance + self.epsilon)
        rm, m = self.renorm_momentum, self.momentum
        self.renorm_mean.assign(self.renorm_mean * rm + mean * (1.0 - rm))
        self.renorm_stddev.assign(self.renorm_stddev * rm + stddev * (1.0 - rm))
        self.moving_mean.assign(self.moving_mean * m + mean * (1.0 - m))
        moving_stddev = self.moving_stddev * m + stddev * (1.0 - m)
        self.moving_stddev.assign(moving_stddev)
        self.moving_variance.assign(nn_ops.relu(moving_stddev * moving_stddev - self.epsilon))

    @staticmethod
    def _moments(x: Any, axes: tuple, shape: list, mask: Any) -> tuple:
        """The batch's mean and variance over `axes`; with a Keras mask (one dim fewer than
        `x`), over the unmasked positions only, as Keras 3 (each sum over the count plus
        Keras's epsilon, 1e-7)."""
        if mask is None:
            mean = reduce_ops.reduce_mean(x, axis=axes)
            return mean, reduce_ops.reduce_mean(
                math_ops.square(x - array_ops.reshape(mean, shape)), axis=axes)
        keep = array_ops.broadcast_to(array_ops.expand_dims(
            math_ops.cast(mask, "bool"), -1), array_ops.shape(x))
        zeros = math_ops.zeros_like(x)
        count = reduce_ops.reduce_sum(math_ops.cast(keep, x.dtype), axis=axes) + backend.epsilon()
        mean = reduce_ops.reduce_sum(math_ops.where(keep, x, zeros), axis=axes) / count
        centered = math_ops.where(keep, x - array_ops.reshape(mean, shape), zeros)
        return mean, reduce_ops.reduce_sum(math_ops.square(centered), axis=axes) / count

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                **_initializers_config(self, ("beta", "gamma", "moving_mean",
                                              "moving_variance")),
                **_norm_regularizers_config(self), "synchronized": self.synchronized,
                "renorm": self.renorm, "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}


def _check_renorm_clipping(clipping: dict) -> None:
    """Keras 3's checks of `renorm_clipping` (ValueError; its messages, verbatim)."""
    keys = ["rmax", "rmin", "dmax"]
    if set(clipping) - set(keys):
        raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {clipping}. "
                         f"Supported values: {keys}.")
    rmax, rmin, dmax = (clipping.get(k) for k in keys)
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError("rmax should be greater than rmin in the `renorm_clipping` argument. "
                         "Received: rmax={rmax}, rmin={rmin}.")
    if dmax is not None and dmax < 0:
        raise ValueError("dmax should be non-negative in the `renorm_clipping` argument. "
                         "Received: dmax={dmax}.")


class LayerNormalization(Layer):
    """Normalizes each example over `axis` (the last by default), then scales by gamma and
    shifts by beta. Weights: gamma, beta.

    Keras 3.15 takes `rms_scaling` only through `**kwargs` (deprecated, with its warning): it
    then scales by the variance's rsqrt (not the root mean square) and has no beta.
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        rms_scaling = kwargs.pop("rms_scaling", False)
        if rms_scaling:
            warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                          "incorrectly scales the input by the variance, not the root mean "
                          "square. To correctly use RMS Normalization, please use "
                          "`keras.layers.RMSNormalization` instead.", stacklevel=2)
        super().__init__(**kwargs)
        self.supports_masking = True   # the input's mask passes on (Keras 3)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Expected an int or a list/tuple of ints for the argument 'axis', "
                            f"but received: {axis!r}")
        self.epsilon, self.center, self.scale = float(epsilon), center, scale
        self.rms_scaling = rms_scaling
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        # Keras keeps the axes as a sorted list once built (its config then shows `[-1]`).
        self.axis = sorted(self.axis) if isinstance(self.axis, list) else [self.axis]
        self._axes = tuple(sorted(a % rank for a in self.axis))
        shape = _param_shape(input_shape, self._axes)
        self.gamma = self.add_weight(name="gamma", shape=shape,
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) \
            if self.scale or self.rms_scaling else None
        self.beta = self.add_weight(name="beta", shape=shape,
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) \
            if self.center and not self.rms_scaling else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        rank = x._value.ndim
        shape = _broadcast_shape(rank, self._axes, x._value.shape)
        mean = reduce_ops.reduce_mean(x, axis=self._axes, keepdims=True)
        variance = reduce_ops.reduce_mean(math_ops.square(x - mean), axis=self._axes,
                                          keepdims=True)
        if self.rms_scaling:   # Keras's deprecated scaling: the variance, no centering
            y = x * math_ops.rsqrt(variance + self.epsilon)
            return y * array_ops.reshape(self.gamma, shape)
        y = (x - mean) * math_ops.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            y = y * array_ops.reshape(self.gamma, shape)
        if self.beta is not None:
            y = y + array_ops.reshape(self.beta, shape)
        return y

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale, "rms_scaling": self.rms_scaling,
                **_initializers_config(self, ("beta", "gamma")),
                **_norm_regularizers_config(self)}


def _initializers_config(layer: Layer, names: tuple) -> dict:
    return {f"{n}_initializer": initializers.serialize(getattr(layer, f"{n}_initializer"))
            for n in names}


def _norm_regularizers_config(layer: Layer) -> dict:
    """beta/gamma regularizers and constraints, serialized."""
    return {"beta_regularizer": regularizers.serialize(layer.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(layer.gamma_regularizer),
            "beta_constraint": constraints.serialize(layer.beta_constraint),
            "gamma_constraint": constraints.serialize(layer.gamma_constraint)}


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over `axis`: `x * min(rsqrt(sum(x**2)), 1e12)`,
    as Keras 3's `ops.normalize`."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Invalid value for `axis` argument: expected an int or a "
                            f"list/tuple of ints. Received: axis={axis}")
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if x.shape.rank == 0:
            x = array_ops.expand_dims(x, 0)
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        square_sum = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
        inv_norm = math_ops.minimum(math_ops.rsqrt(square_sum),
                                    math_ops.cast(1.0 / 1e-12, x.dtype))
        return x * inv_norm

    def compute_output_shape(self, input_shape: Any) -> Any:
        for axis in self.axis if isinstance(self.axis, list) else [self.axis]:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(f"Axis {self.axis} is out of bounds for input shape "
                                 f"{input_shape}.")
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class GroupNormalization(Layer):
    """Normalizes each example over groups of channels (`groups` of them along `axis`; -1:
    one channel per group, instance normalization), then scales by gamma and shifts by beta
    per channel. Weights: gamma, beta."""

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError(f"Received an invalid value for argument `groups`, expected a "
                             f"positive integer (or `-1` for instance normalization). "
                             f"Received: groups={groups}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups, self.axis, self.epsilon = groups, axis, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape: Any) -> None:
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             f"dimension but the layer received an input with shape "
                             f"{input_shape}.")
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the "
                             f"number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the "
                             f"number of channels ({dim}).")
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: dim})
        self.gamma = self.add_weight(shape=(dim,), name="gamma",
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight(shape=(dim,), name="beta",
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        shape = x.shape.as_list()
        rank = len(shape)
        axis = self.axis % rank
        # (batch, ..., groups, channels per group, ...): statistics over all but the
        # batch and group axes.
        group_shape = [-1] + shape[1:]
        group_shape[axis] = shape[axis] // self.groups
        group_shape.insert(axis, self.groups)
        grouped = array_ops.reshape(x, group_shape)
        reduce_axes = [i for i in range(1, rank + 1) if i != axis]
        mean, variance = nn_ops.moments(grouped, axes=reduce_axes, keepdims=True)
        inv = math_ops.rsqrt(variance + self.epsilon)
        broadcast = [1] * rank
        broadcast[axis] = shape[axis] // self.groups
        broadcast.insert(axis, self.groups)
        if self.gamma is not None:
            inv = inv * array_ops.reshape(self.gamma, broadcast)
        offset = -mean * inv
        if self.beta is not None:
            offset = offset + array_ops.reshape(self.beta, broadcast)
        return array_ops.reshape(grouped * inv + offset, array_ops.shape(x))

    def compute_output_shape(self, input_shape: Any) -> Any:
        axis = self.axis
        if axis >= len(input_shape) or axis < -len(input_shape):
            raise ValueError(f"Axis {axis} is out of bounds for input shape {input_shape}. "
                             f"Received: axis={self.axis}")
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups, "axis": self.axis,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint)}


__all__ = ["BatchNormalization", "LayerNormalization", "UnitNormalization",
           "GroupNormalization"]
