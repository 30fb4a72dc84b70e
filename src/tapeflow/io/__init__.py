"""tf.io: file I/O, tensor (de)serialization, decoding of raw bytes, CSV and images."""

from tapeflow.io import gfile
from tapeflow.io.file_ops import matching_files, read_file, write_file
from tapeflow.io.image_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg,
                                   decode_png, decode_webp, encode_png, is_jpeg)
from tapeflow.io.parsing_ops import (decode_base64, decode_compressed, decode_csv, decode_raw,
                                     encode_base64)
from tapeflow.io.serialization import parse_tensor, serialize_tensor

# --- tf.train.Example / parse_*example / TFRecord names: owned by tapeflow/io/example.py ---
from tapeflow.io.example import *  # noqa: F401,F403
from tapeflow.io.example import __all__ as _example_all

__all__ = ["decode_base64", "decode_bmp", "decode_compressed", "decode_csv", "decode_gif",
           "decode_image", "decode_jpeg", "decode_png", "decode_raw", "decode_webp",
           "encode_base64", "encode_png", "gfile", "is_jpeg", "matching_files", "parse_tensor",
           "read_file", "serialize_tensor", "write_file"]
__all__ += _example_all
