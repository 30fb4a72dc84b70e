"""Test configuration: make `src/` importable when tapeflow is not installed."""

import os
import sys

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
try:
    import tapeflow  # noqa: F401
except ImportError:  # running from a checkout without `pip install .`
    sys.path.insert(0, _SRC)
