"""Primitives and their derivative rules, one family per module."""

from tapeflow.ops import array_ops, math_ops, operators, reduce_ops  # noqa: F401
from tapeflow.ops import clip_ops, nn_ops, random_ops  # noqa: F401
from tapeflow.ops import index_ops, linalg_ops, manip_ops, special_ops  # noqa: F401
