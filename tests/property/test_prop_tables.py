"""The property tests' op tables are honest: each entry's function runs the primitive it is
filed under, and every primitive that forward mode treats as elementwise is in a table."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY

from _prop_common import GUARDS, runs_primitive
from _prop_ops import ARG_REDUCTIONS, BINARY, NOT_BROADCASTING, REDUCTIONS, TERNARY, UNARY

TABLES = {**UNARY, **BINARY, **TERNARY, **REDUCTIONS, **ARG_REDUCTIONS}
_VALUES = {"float": [0.5, -1.5], "positive": [0.5, 1.5], "unit": [0.5, -0.5],
           "above1": [1.5, 2.0], "tan": [0.5, -0.5], "order": [1.0, 2.0], "int": [3, -2],
           "nonzero_int": [3, 2], "bool": [True, False], "prob": [0.25, 0.75]}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_entry_runs_its_primitive(name):
    op = TABLES[name]
    args = [tf.constant(np.array(_VALUES[kind])) for kind in op.kinds]
    assert runs_primitive(name, lambda: op.fn(*args)), f"{op.fn} does not run {name}"


def test_every_forward_elementwise_primitive_is_in_a_table():
    missing = sorted(name for name, prim in REGISTRY.items()
                     if prim.elementwise and name not in {**UNARY, **BINARY, **TERNARY}
                     and name not in NOT_BROADCASTING)
    assert not missing, f"elementwise primitives missing from tests/property/_prop_ops.py: {missing}"


def test_guards_name_registered_primitives():
    assert sorted(set(GUARDS) - set(REGISTRY)) == []
