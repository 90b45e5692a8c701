"""Batch debates: many runs from one topics file, each driven by its own child process.

``entries`` reads the topics file, ``record`` keeps ``batch.json`` and is the ``Batch``
the CLI holds, ``pool`` runs the children (``child``), ``progress`` reads each run's
state, ``index`` writes the summary.

The names below load on first use: ``python -m collab.batch.child`` imports this package
before the child, and the child must not pay for the topics-file parser or the index.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collab.batch.entries import Entry, read_entries
    from collab.batch.progress import Progress
    from collab.batch.record import Batch

__all__ = ["Batch", "Entry", "Progress", "read_entries"]

_HOME = {
    "Batch": "collab.batch.record",
    "Entry": "collab.batch.entries",
    "Progress": "collab.batch.progress",
    "read_entries": "collab.batch.entries",
}


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
