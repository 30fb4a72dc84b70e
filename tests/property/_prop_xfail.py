"""Known tapeflow defects that the property tests found, one entry per (property, primitive).

Each entry marks that primitive's test `xfail(strict=True)` for the expected failure class
only: the suite stays green while the defect stands, fails if the test breaks some other way,
and fails loudly (XPASS) the day the defect is fixed, so the entry is removed.
"""

from __future__ import annotations

import pytest


# (property, primitive) -> (the defect with a minimal reproducer, the failure it causes).
KNOWN_DEFECTS: dict = {}


def defect_marks(prop: str, name: str) -> list:
    """The strict xfail mark for a known defect of `name` under `prop` (none if no defect)."""
    if (prop, name) not in KNOWN_DEFECTS:
        return []
    reason, raises = KNOWN_DEFECTS[prop, name]
    return [pytest.mark.xfail(strict=True, raises=raises, reason=reason)]


def known_defect(prop: str, name: str):
    """Decorator form of `defect_marks`, for a test of one primitive."""
    def apply(test):
        for mark in defect_marks(prop, name):
            test = mark(test)
        return test
    return apply


def marked(names, prop: str, cases: dict = None) -> list:
    """`names` as pytest params with their known-defect marks; given `cases`, primitives
    without a gradient sample are skipped (tests/ops/test_gradient_registry.py fails for them
    until one is written)."""
    params = []
    for name in names:
        marks = defect_marks(prop, name)
        if cases is not None and not cases.get(name):
            marks.append(pytest.mark.skip(reason=f"{name} has no case in "
                                                 f"tests/ops/gradient_samples/"))
        params.append(pytest.param(name, marks=marks))
    return params
