"""Rescaling, Normalization (with `adapt`), Discretization (with `adapt`) and CategoryEncoding,
as Keras 3 defines them (outputs, dtypes, configs, errors)."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.keras import backend
from tapeflow.keras.layers.layer import Layer


def _serialize(value: Any) -> Any:
    """Keras's serialize_keras_object for a scale/offset: plain numbers and lists as they are,
    arrays as lists."""
    return value.tolist() if isinstance(value, np.ndarray) else value


class Rescaling(Layer):
    """`inputs * scale + offset` in the compute dtype (integers included)."""

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        dtype = self.compute_dtype
        return tf.cast(inputs, dtype) * tf.cast(self.scale, dtype) + tf.cast(self.offset, dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": _serialize(self.scale),
                "offset": _serialize(self.offset)}


def _first_of(batch: Any) -> Any:
    """The features of a (features, labels) element."""
    return batch[0] if isinstance(batch, (tuple, list)) else batch


class Normalization(Layer):
    """(x - mean) / max(sqrt(variance), epsilon) per position of `axis` (the inverse with
    `invert=True`); mean and variance given, or computed by `adapt`."""

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None,
                 invert: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        if (mean is not None) != (variance is not None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must "
                             f"be set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"When setting values directly, `mean` and `variance` must "
                                 f"have the same shape. Received: mean shape "
                                 f"{np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the number "
                                 f"of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape: Any) -> None:
        if input_shape is None:
            return
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        # adapt() builds it directly: its build config (Keras's) is this shape too.
        self._build_shapes = [None if d is None else int(d) for d in input_shape]
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received "
                             f"inputs with ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(d % ndim for d in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. "
                                 f"Received axis={self.axis}, inputs.shape={input_shape}, "
                                 f"with unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1
                                 for d in range(ndim)]
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape,
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(name="variance",
                                                  shape=self._mean_and_var_shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
            return
        mean = np.asarray(self.input_mean)
        variance = np.asarray(self.input_variance)
        if mean.ndim:
            expanded = [1] * ndim
            for i in range(1, mean.ndim + 1):
                expanded[self._keep_axis[-i]] = mean.shape[-i]
            mean, variance = mean.reshape(expanded), variance.reshape(expanded)
        self.mean = tf.cast(np.broadcast_to(mean, self._broadcast_shape), self.compute_dtype)
        self.variance = tf.cast(np.broadcast_to(variance, self._broadcast_shape),
                                self.compute_dtype)
        self.built = True

    def adapt(self, data: Any) -> None:
        """Computes the mean and variance over `data`: an array, a tensor, a (batched)
        tf.data dataset or an iterable of batches (merged batch by batch, as Keras)."""
        from tapeflow.data import Dataset
        iterable = None
        if isinstance(data, (np.ndarray, tf.Tensor)):
            input_shape = tuple(data.shape)
        elif isinstance(data, Dataset):
            spec = data.element_spec
            spec = spec[0] if isinstance(spec, tuple) else spec
            if spec.shape.rank == 1:
                data = data.batch(128)
                spec = _first_of(data.element_spec)
            input_shape = tuple(spec.shape.as_list())
            iterable = data
        elif hasattr(data, "__iter__"):
            batches = [_first_of(b) for b in data]
            if not batches:
                raise ValueError("adapt() received an empty iterable (no batches). Expected at "
                                 "least one batch. Pass a non-empty iterable of arrays or "
                                 "tensors, e.g. layer.adapt([x]) or "
                                 "layer.adapt(list_of_batches).")
            input_shape, iterable = tuple(np.shape(batches[0])), batches
        else:
            raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports "
                            f"`np.ndarray`, backend tensors, `tf.data.Dataset`, "
                            f"`keras.utils.PyDataset`, and iterables of batches (e.g. list, "
                            f"generator).")
        if not self.built:
            self.build(input_shape)
        else:
            for d in self._keep_axis:
                if input_shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"The layer was built with input_shape="
                                     f"{self._build_input_shape}, but adapt() is being called "
                                     f"with data with an incompatible shape, "
                                     f"data.shape={input_shape}")
        if isinstance(data, np.ndarray):
            total_mean = np.mean(data, axis=self._reduce_axis)
            total_var = np.var(data, axis=self._reduce_axis)
        elif isinstance(data, tf.Tensor):
            total_mean = tf.reduce_mean(data, axis=self._reduce_axis)
            total_var = tf.math.reduce_variance(data, axis=self._reduce_axis)
        else:
            total_mean, total_var = self._merged_moments(iterable)
        self.adapt_mean.assign(tf.cast(total_mean, self.adapt_mean.dtype))
        self.adapt_variance.assign(tf.cast(total_var, self.adapt_variance.dtype))
        self.finalize_state()

    def _merged_moments(self, batches: Any) -> tuple:
        """Keras's running merge of per-batch means and variances (in float32)."""
        total_mean = tf.zeros(self._mean_and_var_shape)
        total_var = tf.zeros(self._mean_and_var_shape)
        total_count = 0
        for batch in batches:
            batch = tf.cast(tf.convert_to_tensor(_first_of(batch)), self.compute_dtype)
            batch_mean = tf.reduce_mean(batch, axis=self._reduce_axis)
            batch_var = tf.math.reduce_variance(batch, axis=self._reduce_axis)
            batch_count = math.prod(batch.shape[d] for d in self._reduce_axis) \
                if self._reduce_axis else 1
            total_count += batch_count
            batch_weight = float(batch_count) / total_count
            existing_weight = 1.0 - batch_weight
            new_mean = total_mean * existing_weight + batch_mean * batch_weight
            total_var = (total_var + (total_mean - new_mean) ** 2) * existing_weight + \
                (batch_var + (batch_mean - new_mean) ** 2) * batch_weight
            total_mean = new_mean
        return total_mean, total_var

    def finalize_state(self) -> None:
        """Marks the adapted weights as the mean and variance `call` uses (it reads them at
        each call, so weights loaded from a file take effect too)."""
        if self.input_mean is not None or not self.built:
            return
        self.mean, self.variance = self.adapt_mean, self.adapt_variance

    def _moments(self) -> tuple:
        if self.input_mean is not None:
            return self.mean, self.variance
        return (tf.cast(tf.reshape(self.adapt_mean, self._broadcast_shape), self.compute_dtype),
                tf.cast(tf.reshape(self.adapt_variance, self._broadcast_shape),
                        self.compute_dtype))

    def call(self, inputs: Any) -> Any:
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using "
                             "it.")
        mean, variance = self._moments()
        inputs = tf.cast(inputs, self.compute_dtype)
        std = tf.maximum(tf.sqrt(variance), backend.epsilon())
        if self.invert:
            return mean + inputs * std
        return (inputs - mean) / std

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": np.array(self.input_mean).tolist(),
                "variance": np.array(self.input_variance).tolist()}


def _encode(indices: Any, output_mode: str, depth: int, dtype: str,
            count_weights: Any = None) -> Any:
    """Keras's encode_categorical_inputs on TensorFlow: int, one-hot, multi-hot or counts
    over the last axis (rank <= 2 by bincount, higher ranks by one-hot reductions)."""
    if output_mode == "int":
        return tf.cast(indices, dtype)
    if indices.shape.rank == 0:
        indices = tf.expand_dims(indices, -1)
    rank = indices.shape.rank
    if output_mode == "one_hot":
        if rank > 1 and indices.shape[-1] == 1:
            indices = tf.squeeze(indices, -1)
        return tf.one_hot(indices, depth, dtype=dtype)
    hot = tf.one_hot(indices, depth, dtype=dtype if count_weights is None
                     else count_weights.dtype)
    if count_weights is not None:
        hot = hot * tf.expand_dims(count_weights, -1)
    reduce = tf.reduce_max if output_mode == "multi_hot" else tf.reduce_sum
    return tf.cast(reduce(hot, axis=1 if rank > 1 else 0), dtype)


def _check_mode(value: str, allowed: tuple, caller: str) -> None:
    if value not in allowed:
        raise ValueError(f"Unknown value for `output_mode` argument of {caller}. Allowed "
                         f"values are: {allowed}. Received: output_mode={value}")


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    values = np.sort(np.reshape(values, [-1]))
    step = max(np.size(values) / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


class Discretization(Layer):
    """Buckets values by `bin_boundaries` (or `num_bins` quantiles learned by `adapt`), as
    int32 indices or their one-hot / multi-hot / count encoding."""

    def __init__(self, bin_boundaries: Any = None, num_bins: Optional[int] = None,
                 epsilon: float = 0.01, output_mode: str = "int", sparse: bool = False,
                 dtype: Any = None, name: Optional[str] = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if sparse:
            raise NotImplementedError("Discretization: sparse=True needs tf.SparseTensor, "
                                      "which tapeflow does not have.")
        _check_mode(output_mode, ("int", "one_hot", "multi_hot", "count"), "Discretization")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: "
                             f"`num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(f"Both `num_bins` and `bin_boundaries` should not be set. "
                             f"Received: `num_bins={num_bins}` and "
                             f"`bin_boundaries={bin_boundaries}`")
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries, self.num_bins = bin_boundaries, num_bins
        self.epsilon, self.output_mode, self.sparse = epsilon, output_mode, sparse
        self.summary = None if bin_boundaries else np.array([[], []], dtype="float32")
        self.built = True

    @property
    def output_dtype(self) -> str:
        """int32 for 'int' output, else the compute dtype."""
        return self.compute_dtype if self.output_mode != "int" else "int32"

    def adapt(self, data: Any, steps: Optional[int] = None) -> None:
        """Learns `num_bins` quantile boundaries from `data` (Keras's approximate summary)."""
        from tapeflow.data import Dataset
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        self.reset_state()
        if isinstance(data, Dataset):
            for batch in (data.take(steps) if steps is not None else data):
                self.update_state(batch)
        elif hasattr(data, "__iter__") and not isinstance(data, (np.ndarray, tf.Tensor)):
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            self.update_state(data)
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        """Merges `data` into the running quantile summary."""
        data = np.array(data).astype("float32")
        merged = np.concatenate((_summarize(data, self.epsilon), self.summary), axis=1)
        merged = np.take(merged, np.argsort(merged[0]), axis=1)
        self.summary = _compress(merged, self.epsilon)

    def finalize_state(self) -> None:
        """Turns the summary into `bin_boundaries`."""
        if self.num_bins is not None:
            self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def reset_state(self) -> None:
        """Forgets the data seen by `adapt`."""
        if self.num_bins is not None:
            self.summary = np.array([[], []], dtype="float32")

    def call(self, inputs: Any) -> Any:
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can start "
                             "using the `Discretization` layer.")
        x = tf.cast(inputs, "float32")
        bounds = np.asarray(self.bin_boundaries, np.float32)
        # Bucketize: the number of boundaries <= x.
        indices = tf.reduce_sum(tf.cast(tf.expand_dims(x, -1) >= bounds, "int32"), axis=-1)
        return _encode(indices, self.output_mode, len(self.bin_boundaries) + 1,
                       self.output_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return input_shape
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None \
            else self.num_bins
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return tuple(input_shape[:-1]) + (depth,)
            return tuple(input_shape) + (depth,)
        if input_shape and len(input_shape) >= 2:
            return (input_shape[0],) + tuple(input_shape[2:]) + (depth,)
        return (depth,)

    def get_config(self) -> dict:
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> "Discretization":
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            bins = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = bins
            return layer
        return cls(**config)


class CategoryEncoding(Layer):
    """Integer category ids as one-hot, multi-hot or count vectors of `num_tokens`."""

    _allow_non_tensor_positional_args = True

    def __init__(self, num_tokens: Optional[int] = None, output_mode: str = "multi_hot",
                 sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise NotImplementedError("CategoryEncoding: sparse=True needs tf.SparseTensor, "
                                      "which tapeflow does not have.")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse
        self.built = True

    def call(self, inputs: Any, count_weights: Any = None) -> Any:
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(f"`count_weights` is not used when `output_mode` is not "
                                 f"`'count'`. Received `count_weights={count_weights}`.")
            count_weights = tf.cast(count_weights, self.compute_dtype)
        return _encode(tf.convert_to_tensor(inputs), self.output_mode, self.num_tokens,
                       self.dtype, count_weights)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if input_shape is not None and len(input_shape) == 0:
            return (self.num_tokens,)
        if self.output_mode == "one_hot" and (input_shape[-1] != 1 or len(input_shape) == 1):
            return tuple(input_shape) + (self.num_tokens,)
        return tuple(input_shape[:-1]) + (self.num_tokens,)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode}
