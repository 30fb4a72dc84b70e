"""`tf.lookup`: static and mutable hash tables and their initializers (see
`tapeflow/ops/lookup_ops.py`)."""

import types as _types

import tapeflow.ops.lookup_ops  # noqa: F401 - declares the names
from tapeflow.framework.exports import populate as _populate

experimental = _types.ModuleType(f"{__name__}.experimental", "`tf.lookup.experimental`.")
_populate(vars(experimental), "lookup.experimental")
_populate(globals(), "lookup")
