"""`tf.linalg`: matrix products, solves, factorizations, determinants, diagonals and norms."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "linalg")
