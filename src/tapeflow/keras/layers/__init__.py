"""`keras.layers`: the layer classes."""

from typing import Optional

from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer, KerasTensor
from tapeflow.keras.layers.input_layer import Input, InputLayer
from tapeflow.keras.layers.core import (Activation, Dense, Dropout, Embedding,
                                        Flatten, Lambda, Reshape)
from tapeflow.keras.layers.convolutional import *  # noqa: F403
from tapeflow.keras.layers.normalization import *  # noqa: F403
from tapeflow.keras.layers.merging import *  # noqa: F403
from tapeflow.keras.layers.noise import *  # noqa: F403
from tapeflow.keras.layers.recurrent import *  # noqa: F403
from tapeflow.keras.layers.activation import *  # noqa: F403
from tapeflow.keras.layers.reshaping import *  # noqa: F403
from tapeflow.keras.layers.einsum_dense import EinsumDense
from tapeflow.keras.layers.attention import *  # noqa: F403
from tapeflow.keras.layers.preprocessing import *  # noqa: F403

from tapeflow.keras.layers import activation as _activation
from tapeflow.keras.layers import attention as _attention
from tapeflow.keras.layers import preprocessing as _preprocessing
from tapeflow.keras.layers import convolutional as _convolutional
from tapeflow.keras.layers import merging as _merging
from tapeflow.keras.layers import noise as _noise
from tapeflow.keras.layers import normalization as _normalization
from tapeflow.keras.layers import recurrent as _recurrent
from tapeflow.keras.layers import reshaping as _reshaping



def serialize(layer: Layer) -> dict:
    """A layer's config as Keras 3 writes it (`keras.layers.serialize`)."""
    from tapeflow.keras.saving.serialization import serialize_keras_object
    return serialize_keras_object(layer)


def deserialize(config: dict, custom_objects: Optional[dict] = None) -> Layer:
    """The layer a config describes (`keras.layers.deserialize`); a short
    `{'class_name', 'config'}` names one of Keras's layers."""
    from tapeflow.keras.saving.serialization import deserialize_keras_object
    return deserialize_keras_object(config, custom_objects=custom_objects)


__all__ = ["Layer", "KerasTensor", "InputSpec", "Input", "InputLayer", "Activation", "Dense",
           "Dropout", "Embedding", "Flatten", "Lambda", "Reshape", "EinsumDense", "serialize",
           "deserialize"]
for _module in (_convolutional, _normalization, _merging, _noise, _recurrent, _activation,
                _reshaping, _attention, _preprocessing):
    __all__ += _module.__all__

# Keras's namespace holds only the layers: the submodules (which importing them binds here)
# stay reachable through sys.modules (`from tapeflow.keras.layers.core import Dense`).
for _name in ("input_spec", "layer", "input_layer", "core", "convolutional", "normalization",
              "merging", "noise", "recurrent", "rnn_cells", "activation", "reshaping",
              "einsum_dense", "attention", "preprocessing"):
    globals().pop(_name, None)
del _module, _name, _activation, _attention, _convolutional, _merging, _noise, _normalization
del _recurrent, _reshaping, _preprocessing

# Keras 3.15's further layers, each module's names registered as the ones above.
from tapeflow.keras.layers.core_more import *  # noqa: E402,F403
from tapeflow.keras.layers.conv_lstm import *  # noqa: E402,F403
from tapeflow.keras.layers.wrappers import *  # noqa: E402,F403
from tapeflow.keras.layers.pooling_adaptive import *  # noqa: E402,F403
from tapeflow.keras.layers.reshaping_3d import *  # noqa: E402,F403
from tapeflow.keras.layers.spectrogram import *  # noqa: E402,F403
from tapeflow.keras.layers import core_more as _more  # noqa: E402
from tapeflow.keras.layers import conv_lstm as _conv_lstm  # noqa: E402
from tapeflow.keras.layers import wrappers as _wrappers  # noqa: E402
from tapeflow.keras.layers import pooling_adaptive as _pooling_adaptive  # noqa: E402
from tapeflow.keras.layers import reshaping_3d as _reshaping_3d  # noqa: E402
from tapeflow.keras.layers import spectrogram as _spectrogram  # noqa: E402
__all__ += (_more.__all__ + _conv_lstm.__all__ + _wrappers.__all__ + _pooling_adaptive.__all__
            + _reshaping_3d.__all__ + _spectrogram.__all__)
for _name in ("core_more", "conv_lstm", "wrappers", "pooling_adaptive", "reshaping_3d",
              "spectrogram"):
    globals().pop(_name, None)
del _more, _conv_lstm, _wrappers, _pooling_adaptive, _reshaping_3d, _spectrogram, _name
