"""`keras.layers`: the layer classes."""

from tapeflow.keras.layers.layer import Layer, KerasTensor  # noqa: F401
from tapeflow.keras.layers.input_layer import Input, InputLayer  # noqa: F401
from tapeflow.keras.layers.core import (Activation, Dense, Dropout, Embedding,  # noqa: F401
                                        Flatten, Lambda, Reshape)
from tapeflow.keras.layers.convolutional import *  # noqa: F401,F403
from tapeflow.keras.layers.normalization import (BatchNormalization,  # noqa: F401
                                                 LayerNormalization)
from tapeflow.keras.layers.merging import *  # noqa: F401,F403
