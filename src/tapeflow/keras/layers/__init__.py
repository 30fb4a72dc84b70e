"""`keras.layers`: the layer classes."""

from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer, KerasTensor
from tapeflow.keras.layers.input_layer import Input, InputLayer
from tapeflow.keras.layers.core import (Activation, Dense, Dropout, Embedding,
                                        Flatten, Lambda, Reshape)
from tapeflow.keras.layers.convolutional import *  # noqa: F403
from tapeflow.keras.layers.normalization import (BatchNormalization,
                                                 LayerNormalization)
from tapeflow.keras.layers.merging import *  # noqa: F403
from tapeflow.keras.layers.noise import GaussianDropout, GaussianNoise
from tapeflow.keras.layers.recurrent import *  # noqa: F403

from tapeflow.keras.layers import convolutional as _convolutional
from tapeflow.keras.layers import merging as _merging
from tapeflow.keras.layers import recurrent as _recurrent

__all__ = ["Layer", "KerasTensor", "InputSpec", "Input", "InputLayer", "Activation", "Dense",
           "Dropout", "Embedding", "Flatten", "Lambda", "Reshape", "BatchNormalization",
           "LayerNormalization", "GaussianNoise", "GaussianDropout"]
__all__ += _convolutional.__all__
__all__ += _merging.__all__
__all__ += _recurrent.__all__
