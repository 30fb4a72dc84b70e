"""`tf.version`: tapeflow's own version (it does not claim TensorFlow's)."""

from tapeflow._version import __version__

VERSION = __version__
