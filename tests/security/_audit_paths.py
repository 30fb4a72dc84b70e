"""Which files a block of code opens, removes or renames, from Python's audit events. One hook
serves every test module (an audit hook cannot be removed once added)."""

from __future__ import annotations

import contextlib
import os
import sys

_recording = None   # (the events recorded, the list of paths) while recording


def _audit(event, args):
    if _recording is not None and event in _recording[0]:
        if isinstance(args[0], (str, bytes, os.PathLike)):
            _recording[1].append(os.path.abspath(os.fsdecode(args[0])))


sys.addaudithook(_audit)


@contextlib.contextmanager
def paths_touched(events=("open",)):
    """Yields the list of absolute paths named by `events` (audit event names) inside the
    block."""
    global _recording
    paths = []
    _recording = (frozenset(events), paths)
    try:
        yield paths
    finally:
        _recording = None
