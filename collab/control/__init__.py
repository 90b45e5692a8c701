"""Start a debate that runs on by itself, and follow it from anywhere: the one
implementation behind ``collab debate --detach``/``status``/``result``/``cancel`` and
the MCP tools.

- :mod:`.start` validate like ``collab debate``, create the run, have
  :mod:`collab.runners.detach` start its driver (``python -m collab.detached``) in a
  session of its own
- :mod:`.status` the ``collab.status/1`` document; :mod:`.progress` reads events.jsonl
- :mod:`.ops` the result once it has ended; cancel like Ctrl-C
- :mod:`.liveness` who drives a run now, found without touching its lock
"""

from __future__ import annotations

from collab.control.liveness import driver_pid, lock_holder, pid_alive
from collab.control.ops import RunStillGoing, cancel_run, result_of
from collab.control.progress import Progress, summary
from collab.control.start import (
    STARTED_SCHEMA,
    Started,
    drive_detached,
    start_detached,
    started_document,
    validate,
)
from collab.control.status import STATUS_SCHEMA, status_document, wait_for_change
from collab.eventlog import EventReader

__all__ = [
    "STARTED_SCHEMA",
    "STATUS_SCHEMA",
    "EventReader",
    "Progress",
    "RunStillGoing",
    "Started",
    "cancel_run",
    "drive_detached",
    "driver_pid",
    "lock_holder",
    "pid_alive",
    "result_of",
    "start_detached",
    "started_document",
    "status_document",
    "summary",
    "validate",
    "wait_for_change",
]
