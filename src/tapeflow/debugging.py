"""`tf.debugging`: assertions (`assert_equal`, `assert_shapes`, `Assert`, ...) and
`check_numerics`."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "debugging")
