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

LOCK_FILE = "lock"
# Written by the process that starts a detached driver, before the driver takes the lock.
DRIVER_PID_FILE = "driver.pid"


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
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True  # no /proc here: the signal said it exists
    return stat[stat.rfind(")") + 2 :][:1] != "Z"


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _has_open(pid: int, path: Path) -> bool | None:
    """Has ``pid`` got ``path`` open? None where ``/proc`` cannot tell."""
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        want = path.stat()
        fds = list(fd_dir.iterdir())
    except OSError:
        return None
    for fd in fds:
        try:
            st = fd.stat()
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (want.st_dev, want.st_ino):
            return True
    return False


def lock_holder(run_path: Path) -> int | None:
    """The pid of the process driving the run, or None when nobody does."""
    lock = run_path / LOCK_FILE
    pid = _read_pid(lock)
    if pid is None or not pid_alive(pid):
        return None
    return None if _has_open(pid, lock) is False else pid


def driver_pid(run_path: Path) -> int | None:
    """The lock holder, else a detached driver that was started and has not taken the
    lock yet (it is still importing): either one is "the run is going"."""
    holder = lock_holder(run_path)
    if holder is not None:
        return holder
    pid = _read_pid(run_path / DRIVER_PID_FILE)
    if pid is None or not pid_alive(pid) or not _is_driver(pid, run_path.name):
        return None
    if _read_pid(run_path / LOCK_FILE) == pid:
        return None  # it took the lock once and let it go: it is finishing or done
    return pid


def _is_driver(pid: int, run_id: str) -> bool:
    """Is ``pid`` the detached driver of this run (where ``/proc`` can tell)?"""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True
    return run_id.encode() in argv
