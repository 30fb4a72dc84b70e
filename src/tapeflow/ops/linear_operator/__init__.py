"""`tf.linalg.LinearOperator` and its subclasses, loaded on first use through tf.linalg.

base: the abstract operator and its generic methods; dense: operators stored as (part of) a
matrix; combined: operators made of operators; structured: operators with a pattern.
"""

from tapeflow.ops.linear_operator import base, combined, dense, structured  # noqa: F401
from tapeflow.ops.linear_operator.base import LinearOperator  # noqa: F401
