"""Test helpers (`tests/**/_name.py`) are imported by bare name from their directory, so two
with one name shadow each other: whichever is imported first serves both, and the other's
tests fail to collect in a full run."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_helper_module_names_are_unique():
    names = Counter(p.name for p in TESTS.rglob("_*.py") if p.name != "__init__.py")
    assert not [name for name, count in names.items() if count > 1]
