"""Who drives a run right now, found without touching its lock.

A run's driver holds ``runs/<id>/lock`` (an flock) and wrote its pid into it. Taking the
lock to test it would make a driver that starts at that moment fail, so instead: the pid
in the file must be alive and, where ``/proc`` shows it, must have the lock file open.
A pid the system has since given to another process fails that test, so ``cancel``
never signals a stranger.
"""

from __future__ import annotations

import os
from pathlib import Path

from collab import procfs
from collab.store import STEERING

LOCK_FILE = "lock"
# Written by the process that starts a detached driver, before the driver takes the lock.
DRIVER_PID_FILE = "driver.pid"
DRIVER_LOG = "driver.log"  # what the detached driver prints


def pid_alive(pid: int) -> bool:
    """True for a live process that is not a zombie."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = procfs.stat_fields(pid)
    if fields is None:
        return True  # no /proc here: the signal said it exists
    return not fields or fields[0][:1] != "Z"


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").strip().splitlines()
    except OSError:
        return []


def _read_pid(path: Path) -> int | None:
    lines = _lines(path)
    text = lines[0].strip() if lines else ""
    return int(text) if text.isdigit() else None


def lock_holder(run_path: Path) -> int | None:
    """The pid of the process driving the run, or None when nobody does."""
    held = _holder(run_path)
    return None if held is None else held[0]


def _holder(run_path: Path) -> tuple[int, bool] | None:
    """The lock's holder and whether it is a steering operation, from one read of the
    lock file (two reads could take the pid of one holder and the role of the next)."""
    lock = run_path / LOCK_FILE
    lines = _lines(lock)
    text = lines[0].strip() if lines else ""
    if not text.isdigit() or not pid_alive(pid := int(text)):
        return None
    if procfs.has_open(pid, lock) is False:
        return None
    return pid, lines[1:2] == [STEERING]


def driver_pid(run_path: Path) -> int | None:
    """The lock holder, else a detached driver that was started and has not taken the
    lock yet (it is still importing): either one is "the run is going"."""
    holder = lock_holder(run_path)
    if holder is not None:
        return holder
    return _detached(run_path)


def driver_of(run_path: Path) -> int | None:
    """Like :func:`driver_pid`, but only a debate's driver: a steering operation holding
    the lock (``collab ask`` on a finished run, ``decide``) does not make it "running"."""
    held = _holder(run_path)
    if held is not None and not held[1]:
        return held[0]
    return _detached(run_path)


def _detached(run_path: Path) -> int | None:
    """A detached driver that was started and has not taken the lock yet."""
    pid = _read_pid(run_path / DRIVER_PID_FILE)
    if pid is None or not pid_alive(pid) or not _is_driver(pid, run_path.name):
        return None
    if _read_pid(run_path / LOCK_FILE) == pid:
        return None  # it took the lock once and let it go: it is finishing or done
    return pid


def _is_driver(pid: int, run_id: str) -> bool:
    """Is ``pid`` the detached driver of this run (where ``/proc`` can tell)?"""
    argv = procfs.cmdline(pid)
    return argv is None or run_id.encode() in argv
