"""`keras.utils.FeatureSpace` (Keras 3.15, TensorFlow backend): declared features of a table
(floats, rescaled, normalized or discretized floats, integer and string categories, hashed
values, custom preprocessing layers) and their hashed crosses, preprocessed by tapeflow's
preprocessing layers and one-hot encoded (`CategoryEncoding`), then concatenated in Keras's
order (features by sorted name, then crosses by sorted name) or returned as a dict.

The space is a layer: `adapt` learns each preprocessor's state, `get_inputs` /
`get_encoded_features` give the symbolic graph for a functional model, and calling it (or
mapping it over a `tf.data.Dataset`) encodes a dict of columns. Configs are Keras's, so a
space's config (and `.keras` file) names Keras's classes and modules.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.keras import backend
from tapeflow.keras import layers, ops
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.saving import serialization

# Where Keras defines the classes below that its public API does not export: their configs
# name this module (and register them by class name), as Keras writes them.
_PRIVATE_MODULE = "keras.src.layers.preprocessing.feature_space"


def _private_config(obj: Any) -> dict:
    """`serialize_keras_object(obj)` under Keras's module and registered name."""
    config = serialization.serialize_keras_object(obj)
    config["module"], config["registered_name"] = _PRIVATE_MODULE, type(obj).__name__
    return config


def _from_private_config(config: dict, expected: type) -> Any:
    """The object of a config that names one of this module's classes (`expected`); any
    other config is resolved by Keras's rules (`deserialize_keras_object`)."""
    private = {cls.__name__: cls for cls in (Feature, Cross, TFDIdentity, TFDConcat)}
    cls = private.get(config.get("class_name"))
    if cls is not expected or config.get("module") not in (_PRIVATE_MODULE, None):
        return serialization.deserialize_keras_object(config)
    obj = cls.from_config(config["config"])
    if config.get("build_config") and hasattr(obj, "build_from_config"):
        obj.build_from_config(config["build_config"])
    return obj


class Cross:
    """A hashed cross of features (`FeatureSpace.cross`): their preprocessed values hashed
    together into `crossing_dim` bins, one-hot encoded or left as integers."""

    def __init__(self, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot"
                 ) -> None:
        if output_mode not in {"int", "one_hot"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot'}}. Received: output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        """'a_X_b' for the features ('a', 'b'): the name of its output and crossing layer."""
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        """The constructor's arguments."""
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict) -> "Cross":
        """The cross `get_config` describes."""
        return cls(**config)


class Feature:
    """A feature: the input dtype, the layer that preprocesses it, and how its output is
    encoded ('float': as it is, 'one_hot': multi-hot over the preprocessor's output space,
    'int': as it is, for dict outputs)."""

    def __init__(self, dtype: str, preprocessor: Any, output_mode: str) -> None:
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             "{'int', 'one_hot', 'float'}. Received: "
                             f"output_mode={output_mode}")
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = _from_private_config(preprocessor, TFDIdentity)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        """The constructor's arguments, the preprocessor serialized."""
        preprocessor = self.preprocessor
        return {"dtype": self.dtype, "output_mode": self.output_mode,
                "preprocessor": _private_config(preprocessor)
                if isinstance(preprocessor, (TFDIdentity, TFDConcat))
                else serialization.serialize_keras_object(preprocessor)}

    @classmethod
    def from_config(cls, config: dict) -> "Feature":
        """The feature `get_config` describes."""
        return cls(**config)


class TFDIdentity(Layer):
    """The preprocessor of plain float features: its input, in its compute dtype."""

    def call(self, x: Any) -> Any:
        return x

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class TFDConcat(Layer):
    """Concatenates the encoded features along `axis`, in their promoted dtype (Keras's
    `ops.concatenate`)."""

    def __init__(self, axis: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, xs: Any) -> Any:
        return ops.concatenate(list(xs), axis=self.axis)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class FeatureSpace(Layer):
    """One-stop preprocessing and encoding of structured data, as Keras 3's.

    Args:
      features: feature name -> its type: a `Feature` (`FeatureSpace.float_normalized()`,
        ...) or a type's name ('float', 'float_rescaled', 'float_normalized',
        'float_discretized', 'integer_categorical', 'string_categorical', 'integer_hashed',
        'string_hashed', with the default arguments).
      output_mode: 'concat' (one float vector) or 'dict' (each encoded feature by name).
      crosses: `Cross`es or tuples of feature names, hashed into `crossing_dim` bins.
      crossing_dim: the bins of a cross given as a tuple of names.
      hashing_dim: the bins of features named 'integer_hashed' / 'string_hashed'.
      num_discretization_bins: the bins of features named 'float_discretized'.
    """

    # -- feature declarations ---------------------------------------------------------------
    @classmethod
    def cross(cls, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot"
              ) -> Cross:
        """A cross of `feature_names` hashed into `crossing_dim` bins."""
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype: str, preprocessor: Any, output_mode: str) -> Feature:
        """A feature of input `dtype` preprocessed by the layer `preprocessor`."""
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name: Optional[str] = None) -> Feature:
        """Float values as they are."""
        name = name or backend.auto_name("float")
        return Feature(dtype="float32", output_mode="float", preprocessor=TFDIdentity(
            dtype="float32", name=f"{name}_preprocessor"))

    @classmethod
    def float_rescaled(cls, scale: Any = 1.0, offset: Any = 0.0, name: Optional[str] = None
                       ) -> Feature:
        """Float values times `scale` plus `offset` (a `Rescaling` layer)."""
        name = name or backend.auto_name("float_rescaled")
        return Feature(dtype="float32", output_mode="float", preprocessor=layers.Rescaling(
            scale=scale, offset=offset, name=f"{name}_preprocessor"))

    @classmethod
    def float_normalized(cls, name: Optional[str] = None) -> Feature:
        """Float values standardized by their adapted mean and variance (`Normalization`)."""
        name = name or backend.auto_name("float_normalized")
        return Feature(dtype="float32", output_mode="float", preprocessor=layers.Normalization(
            axis=-1, name=f"{name}_preprocessor"))

    @classmethod
    def float_discretized(cls, num_bins: int, bin_boundaries: Any = None,
                          output_mode: str = "one_hot", name: Optional[str] = None) -> Feature:
        """Float values binned (`Discretization`, adapted unless `bin_boundaries` is given)."""
        name = name or backend.auto_name("float_discretized")
        return Feature(dtype="float32", output_mode=output_mode,
                       preprocessor=layers.Discretization(
                           num_bins=num_bins, bin_boundaries=bin_boundaries,
                           name=f"{name}_preprocessor"))

    @classmethod
    def integer_categorical(cls, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                            output_mode: str = "one_hot", name: Optional[str] = None
                            ) -> Feature:
        """Integer categories indexed by an adapted vocabulary (`IntegerLookup`)."""
        name = name or backend.auto_name("integer_categorical")
        return Feature(dtype="int32", output_mode=output_mode,
                       preprocessor=layers.IntegerLookup(
                           name=f"{name}_preprocessor", max_tokens=max_tokens,
                           num_oov_indices=num_oov_indices))

    @classmethod
    def string_categorical(cls, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                           output_mode: str = "one_hot", name: Optional[str] = None
                           ) -> Feature:
        """String categories indexed by an adapted vocabulary (`StringLookup`)."""
        name = name or backend.auto_name("string_categorical")
        return Feature(dtype="string", output_mode=output_mode,
                       preprocessor=layers.StringLookup(
                           name=f"{name}_preprocessor", max_tokens=max_tokens,
                           num_oov_indices=num_oov_indices))

    @classmethod
    def string_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                      name: Optional[str] = None) -> Feature:
        """Strings hashed into `num_bins` bins (`Hashing`)."""
        name = name or backend.auto_name("string_hashed")
        return Feature(dtype="string", output_mode=output_mode, preprocessor=layers.Hashing(
            name=f"{name}_preprocessor", num_bins=num_bins))

    @classmethod
    def integer_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                       name: Optional[str] = None) -> Feature:
        """Integers hashed into `num_bins` bins (`Hashing`)."""
        name = name or backend.auto_name("integer_hashed")
        return Feature(dtype="int32", output_mode=output_mode, preprocessor=layers.Hashing(
            name=f"{name}_preprocessor", num_bins=num_bins))

    # -- construction -----------------------------------------------------------------------
    def __init__(self, features: Any, output_mode: str = "concat", crosses: Any = None,
                 crossing_dim: int = 32, hashing_dim: int = 32,
                 num_discretization_bins: int = 32, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {key: self._standardize_feature(key, value)
                         for key, value in features.items()}
        self.crosses = [self._standardize_cross(cross, set(features))
                        for cross in crosses or ()]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'dict', 'concat'}}. Received: output_mode={output_mode}")
        self.output_mode = output_mode
        self.inputs = {key: layers.Input(shape=(1,), dtype=feature.dtype, name=key)
                       for key, feature in self.features.items()}
        self.preprocessors = {key: feature.preprocessor
                              for key, feature in self.features.items()}
        self.encoded_features = None
        self.crossers = {cross.name: layers.HashedCrossing(cross.crossing_dim, name=cross.name)
                         for cross in self.crosses}
        self.one_hot_encoders: dict = {}
        self._is_adapted = False
        self.concat = None
        self._preprocessed_features_names: Optional[list] = None
        self._crossed_features_names: Optional[list] = None
        self._sublayers_built = False

    def _standardize_feature(self, name: str, feature: Any) -> Feature:
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return _from_private_config(feature, Feature)
        makers = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(
                name=name, num_bins=self.num_discretization_bins),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        maker = makers.get(feature) if isinstance(feature, str) else None
        if maker is None:
            raise ValueError(f"Invalid feature type: {feature}")
        return maker()

    def _standardize_cross(self, cross: Any, feature_set: set) -> Cross:
        if isinstance(cross, dict):
            cross = _from_private_config(cross, Cross)
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError("When specifying `crosses`, the argument `crossing_dim` "
                             "(dimensionality of the crossing space) should be specified "
                             "as well.")
        if any(key not in feature_set for key in cross):
            raise ValueError("All features referenced in the `crosses` argument should be "
                             "present in the `features` dict. Received unknown features: "
                             f"{cross}")
        return Cross(cross, crossing_dim=self.crossing_dim)

    # -- adapting ---------------------------------------------------------------------------
    def _list_adaptable_preprocessors(self) -> list:
        """The features whose preprocessor learns state in `adapt` (a Normalization given
        its mean, or a TextVectorization given its vocabulary, does not)."""
        names = []
        for name in self.features:
            preprocessor = self.preprocessors[name]
            if isinstance(preprocessor, layers.Normalization):
                if preprocessor.input_mean is not None:
                    continue
            elif isinstance(preprocessor, layers.TextVectorization):
                if getattr(preprocessor, "_has_input_vocabulary", False):
                    continue
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset: Any) -> None:
        """Learns each adaptable preprocessor's state from its column of `dataset` (a
        `tf.data.Dataset` of feature dicts, batched or not, or a dict of columns)."""
        if not isinstance(dataset, tf.data.Dataset):
            if not isinstance(dataset, dict):
                raise ValueError("`adapt()` can only be called on a tf.data.Dataset or a dict "
                                 f"of arrays/lists. Received instead: {dataset} (of type "
                                 f"{type(dataset)})")
            dataset = tf.data.Dataset.from_tensor_slices(dataset)
        for name in self._list_adaptable_preprocessors():
            column = dataset.map(lambda x, name=name: x[name])
            rank = len(next(iter(column)).shape)
            if rank == 0:  # unbatched scalars
                column = column.batch(32)
            if rank in (0, 1):  # a last axis for the layers to reduce over
                column = column.map(lambda x: tf.expand_dims(x, -1))
            self.preprocessors[name].adapt(column)
        self._is_adapted = True
        self.get_encoded_features()  # builds the encoders and the concatenation
        self.built = True
        self._sublayers_built = True

    def get_inputs(self) -> dict:
        """The `keras.Input` of each feature (shape (None, 1), the feature's dtype)."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self) -> Any:
        """The encoded features of `get_inputs()` as KerasTensors (one, or a dict), to build
        a functional model on."""
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            crossed = self._cross_features(preprocessed)
            self.encoded_features = self._merge_features(preprocessed, crossed)
        return self.encoded_features

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace "
                                 "before you can start using it.")
            self._is_adapted = True

    def _check_if_built(self) -> None:
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    # -- encoding ---------------------------------------------------------------------------
    def _preprocess_features(self, features: dict) -> dict:
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features: dict) -> dict:
        return {cross.name: self.crossers[cross.name](
            [features[name] for name in cross.feature_names]) for cross in self.crosses}

    def _merge_features(self, preprocessed: dict, crossed: dict) -> Any:
        """The encoded features in Keras's order: features by sorted name, then crosses by
        sorted name; the first (symbolic) pass makes the encoders and checks the dtypes."""
        if not self._preprocessed_features_names:
            self._preprocessed_features_names = sorted(preprocessed)
            self._crossed_features_names = sorted(crossed)
        names = self._preprocessed_features_names + self._crossed_features_names
        values = [preprocessed[name] for name in self._preprocessed_features_names] + \
            [crossed[name] for name in self._crossed_features_names]
        if not self._sublayers_built:
            values = [self._first_encoding(name, value) for name, value in zip(names, values)]
        else:
            values = [self.one_hot_encoders[name](value) if name in self.one_hot_encoders
                      else value for name, value in zip(names, values)]
        if self.output_mode == "dict":
            return dict(zip(names, values))
        if self.concat is None:
            self.concat = TFDConcat(axis=-1)
        return self.concat(values)

    def _first_encoding(self, name: str, value: Any) -> Any:
        """`value` one-hot encoded if its spec says so (making its encoder), checked to be
        concatenable in 'concat' mode."""
        spec = self.features[name] if name in self.features else self.crosses_by_name[name]
        if spec.output_mode == "one_hot":
            dtype = _dtype_name(value)
            if not dtype.startswith("int"):
                raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus its "
                                 "preprocessor should return an integer dtype. Instead it "
                                 f"returns a {dtype} dtype.")
            preprocessor = self.preprocessors.get(name) or self.crossers.get(name)
            encoder = layers.CategoryEncoding(num_tokens=_cardinality(name, preprocessor),
                                              output_mode="multi_hot")
            self.one_hot_encoders[name] = encoder
            value = encoder(value)
        dtype = _dtype_name(value)
        if self.output_mode == "concat" and (dtype.startswith("int") or dtype == "string"):
            raise ValueError(f"Cannot concatenate features because feature '{name}' has not "
                             f"been encoded (it has dtype {dtype}). Consider using "
                             "`output_mode='dict'`.")
        return value

    def _convert_input(self, x: Any) -> Any:
        if isinstance(x, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
            return x
        if not isinstance(x, (list, tuple, int, builtins.float)):
            x = np.asarray(x)
        return tf.convert_to_tensor(x)

    def __call__(self, data: Any) -> Any:
        """Encodes a dict of columns (batched: shape (n,) or (n, 1); or one unbatched row of
        scalars, whose encoding comes without a batch axis)."""
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError("A FeatureSpace can only be called with a dict. Received: "
                             f"data={data} (of type {type(data)}")
        data = {key: self._convert_input(value) for key, value in data.items()}
        rebatched = False
        for name, x in data.items():
            if len(x.shape) == 0:
                data[name] = tf.reshape(x, (1, 1))
                rebatched = True
            elif len(x.shape) == 1:
                data[name] = tf.expand_dims(x, -1)
        preprocessed = {k: self._convert_input(v)
                        for k, v in self._preprocess_features(data).items()}
        crossed = {k: self._convert_input(v)
                   for k, v in self._cross_features(preprocessed).items()}
        merged = self._merge_features(preprocessed, crossed)
        if not rebatched:
            return merged
        if self.output_mode == "concat":
            if merged.shape[0] != 1:
                raise ValueError("Expected rebatched data to have batch size 1. Received: "
                                 f"shape={merged.shape}")
            return tf.squeeze(merged, axis=0)
        return {name: tf.squeeze(x, axis=0) if len(x.shape) == 2 and x.shape[0] == 1 else x
                for name, x in merged.items()}

    # -- saving -----------------------------------------------------------------------------
    def get_config(self) -> dict:
        """Keras's config: the features and crosses as Keras serializes them."""
        return {"features": {name: _private_config(feature)
                             for name, feature in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [_private_config(cross) for cross in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config: dict) -> "FeatureSpace":
        """The space `get_config` describes (its preprocessors unadapted until their state
        is loaded)."""
        return cls(**config)

    def get_build_config(self) -> dict:
        """Each preprocessor's build config, by feature."""
        return {name: feature.preprocessor.get_build_config() or {}
                for name, feature in self.features.items()}

    def build_from_config(self, config: dict) -> None:
        """Builds the preprocessors of a loaded space; their state comes with the weights
        (and learned vocabularies with the file's assets)."""
        for name in config:
            preprocessor = self.features[name].preprocessor
            if not preprocessor.built:
                preprocessor.build_from_config(config[name])
        self._is_adapted = True

    def save(self, filepath: Any) -> None:
        """Writes the space to a `.keras` file (`keras.saving.load_model` reads it back):
        adapted vocabularies go in its assets, as Keras writes them."""
        from tapeflow.keras.saving import archive
        archive.save_model(self, filepath)


def _dtype_name(value: Any) -> str:
    dtype = value.dtype
    return dtype if isinstance(dtype, str) else backend.standardize_dtype(dtype)


def _cardinality(name: str, preprocessor: Any) -> int:
    """The size of the output space of a standard preprocessor, for its one-hot encoder."""
    if isinstance(preprocessor, (layers.IntegerLookup, layers.StringLookup)):
        return preprocessor.vocabulary_size()
    if isinstance(preprocessor, layers.CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, (layers.Discretization, layers.HashedCrossing, layers.Hashing)):
        return preprocessor.num_bins
    raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a "
                     "standard feature and the dimensionality of its output space is not "
                     "known, thus it cannot be one-hot encoded. Try using `output_mode='int'`.")


__all__ = ["FeatureSpace"]
