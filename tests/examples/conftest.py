"""Loads the programs in examples/ as modules (they are scripts, not a package)."""

import importlib.util
import os
import sys

import pytest

_EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
# `python examples/x.py` puts examples/ on sys.path, where x.py finds its `_plotting` helper.
sys.path.insert(0, os.path.abspath(_EXAMPLES))


def _load(name: str):
    """The module examples/<name>.py, imported without running its main()."""
    spec = importlib.util.spec_from_file_location(f"example_{name}",
                                                  os.path.join(_EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def load_example():
    """`load_example("newton")`: the example program's module, for calling its functions."""
    return _load
