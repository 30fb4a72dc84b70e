"""`tf.math`: elementwise and reduction math."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
import tapeflow.ops.complex_ops  # noqa: F401 - tf.math.angle
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "math")
