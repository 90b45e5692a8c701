"""What Linux's ``/proc`` says about a process: the one place that reads it.

Each function answers None where ``/proc`` cannot tell (no such process, no ``/proc`` on
this system, no permission); the caller decides what that means for it.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the parenthesised command name: state,
    ppid, pgrp, session, … (field 3 of proc(5) is index 0 here)."""
    try:
        raw = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    stat = raw.decode("ascii", errors="replace")
    return stat[stat.rfind(")") + 2 :].split()


def start_time(pid: int) -> float | None:
    """When ``pid`` started, in seconds since the epoch."""
    fields = stat_fields(pid)
    try:
        btime = next(
            float(line.split()[1])
            for line in (PROC / "stat").read_text(encoding="ascii").splitlines()
            if line.startswith("btime ")
        )
        ticks = int(fields[19]) if fields is not None else None  # field 22: starttime
    except (OSError, StopIteration, ValueError, IndexError, UnicodeDecodeError):
        return None
    return None if ticks is None else btime + ticks / os.sysconf("SC_CLK_TCK")


def cmdline(pid: int) -> list[bytes] | None:
    """The process's argv, as the bytes it was started with."""
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return None


def has_open(pid: int, path: Path) -> bool | None:
    """Has ``pid`` got ``path`` open?"""
    try:
        want = path.stat()
        fds = list((PROC / str(pid) / "fd").iterdir())
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


def pids() -> list[int] | None:
    """Every process id on the system."""
    if not PROC.is_dir():
        return None
    return [int(e.name) for e in PROC.iterdir() if e.name.isdigit()]
