"""`tf.image`: resizing, flips, rotations, crops, pads and colour adjustments, as TensorFlow 2."""

from tapeflow.image.resize import *  # noqa: F403
from tapeflow.image.resize import __all__, affine_transform  # noqa: F401
