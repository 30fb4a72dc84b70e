"""tf.io: file I/O, tensor (de)serialization, decoding of raw bytes, CSV and images."""

# --- tf.train.Example / parse_*example / TFRecord names: owned by tapeflow/io/example.py ---
from tapeflow.io.example import *  # noqa: F401,F403
from tapeflow.io.example import __all__ as _example_all

__all__ = sorted(set(_example_all))
