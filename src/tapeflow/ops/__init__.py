"""Primitives and their derivative rules, one family per module."""

from tapeflow.ops import array_ops, math_ops, operators, reduce_ops  # noqa: F401
