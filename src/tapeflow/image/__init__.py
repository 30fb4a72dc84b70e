"""`tf.image`: resizing, flips, rotations, crops, pads, colour, random augmentation, boxes and
image quality measures, as TensorFlow 2.

Modules by kind: `resize` (TF's resize kernels), `transforms` (flips, crops, pads, Keras's
affine transform), `color` (colour spaces and adjustments), `random` (the stateful and
stateless `random_*` ops), `boxes` (patches, crops of boxes, non-max suppression) and
`quality` (PSNR, SSIM, image gradients).
"""

from tapeflow.image import boxes, color, quality, random, resize as _resize_module, transforms
from tapeflow.image.boxes import *  # noqa: F403
from tapeflow.image.color import *  # noqa: F403
from tapeflow.image.quality import *  # noqa: F403
from tapeflow.image.random import *  # noqa: F403
from tapeflow.image.resize import *  # noqa: F403
from tapeflow.image.transforms import *  # noqa: F403
from tapeflow.image.transforms import affine_transform  # noqa: F401 - Keras's layers use it
# TF's tf.image names for the image codecs, which live in tf.io.
from tapeflow.io.image_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg,  # noqa: F401
                                   decode_png, encode_png, is_jpeg)

_CODECS = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
           "encode_png", "is_jpeg"]
__all__ = sorted(_resize_module.__all__ + transforms.__all__ + color.__all__ + random.__all__
                 + quality.__all__ + boxes.__all__ + _CODECS)
