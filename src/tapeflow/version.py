"""`tf.version`: tapeflow's own version (it does not claim TensorFlow's).

TensorFlow's module also has GIT_VERSION and COMPILER_VERSION, which describe its build:
tapeflow records no Git revision ("unknown", as TensorFlow says when built without one) and is
pure Python, so its compiler is the one that built the interpreter running it. TensorFlow's
GRAPH_DEF_VERSION constants are absent: tapeflow reads and writes no GraphDefs.
"""

import platform as _platform

from tapeflow._version import __version__

VERSION = __version__
GIT_VERSION = "unknown"
COMPILER_VERSION = _platform.python_compiler()

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION"]
