"""`tf.config`: the devices tapeflow runs on (one CPU), threading, and function execution."""

import tapeflow.function  # noqa: F401 - declares tf.config.run_functions_eagerly
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "config")
