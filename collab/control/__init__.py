"""Start a debate that runs on by itself, and follow it from anywhere: the one
implementation behind ``collab debate --detach``/``status``/``result``/``cancel`` and
the MCP tools.

- :mod:`.start` validate like ``collab debate``, create the run, have
  :mod:`collab.runners.detach` start its driver (``python -m collab.detached``) in a
  session of its own
- :mod:`.status` the ``collab.status/1`` document; :mod:`.progress` reads events.jsonl
- :mod:`.ops` the result once it has ended (refused while the run is driven); cancel
  like Ctrl-C
- :mod:`.liveness` who drives a run now, found without touching its lock
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collab.lazy import exports

if TYPE_CHECKING:
    from collab.control.liveness import driver_of, driver_pid, lock_holder, pid_alive
    from collab.control.ops import RunStillGoing, cancel_run, refuse_while_driven, result_of
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

# Each name's module, imported the first time the name is asked for (PEP 562):
# ``collab status ID --json`` needs .status, not .start's agents, prerequisite checks
# and driver spawning (~30 ms of CPU on a command scripts poll).
__getattr__ = exports(
    __name__,
    {
        "driver_of": "collab.control.liveness",
        "driver_pid": "collab.control.liveness",
        "lock_holder": "collab.control.liveness",
        "pid_alive": "collab.control.liveness",
        "RunStillGoing": "collab.control.ops",
        "cancel_run": "collab.control.ops",
        "refuse_while_driven": "collab.control.ops",
        "result_of": "collab.control.ops",
        "Progress": "collab.control.progress",
        "summary": "collab.control.progress",
        "STARTED_SCHEMA": "collab.control.start",
        "Started": "collab.control.start",
        "drive_detached": "collab.control.start",
        "start_detached": "collab.control.start",
        "started_document": "collab.control.start",
        "validate": "collab.control.start",
        "STATUS_SCHEMA": "collab.control.status",
        "status_document": "collab.control.status",
        "wait_for_change": "collab.control.status",
        "EventReader": "collab.eventlog",
    },
)


__all__ = [
    "STARTED_SCHEMA",
    "STATUS_SCHEMA",
    "EventReader",
    "Progress",
    "RunStillGoing",
    "Started",
    "cancel_run",
    "drive_detached",
    "driver_of",
    "driver_pid",
    "lock_holder",
    "pid_alive",
    "refuse_while_driven",
    "result_of",
    "start_detached",
    "started_document",
    "status_document",
    "summary",
    "validate",
    "wait_for_change",
]
