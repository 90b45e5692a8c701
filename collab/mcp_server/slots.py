"""The MCP concurrency cap, shared by every ``collab mcp`` process of a ``COLLAB_HOME``:
a host that reconnects (a new server) must not start from zero, and six calls at once
must not all pass a check made before any of them started.

Under an flock on ``COLLAB_HOME/mcp.lock`` a starter reads ``mcp-runs.json`` (the runs
started over MCP), keeps those whose driver is alive, refuses at the cap, starts its run
and records it, and only then lets the next starter look.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from typing import TypeVar

from collab.control import driver_pid
from collab.errors import UsageError
from collab.paths import collab_home
from collab.store import RunDir, atomic_write, make_private_dirs, storing

SLOTS_LOCK = "mcp.lock"
REGISTRY = "mcp-runs.json"
T = TypeVar("T")


def live_runs() -> list[str]:
    """The MCP-started runs whose driver is alive (a snapshot; no lock taken)."""
    return [r for r in _recorded() if driver_pid(RunDir(r).path) is not None]


def start_within_cap(cap: int, start: Callable[[], tuple[str, T]]) -> tuple[str, T]:
    """Run ``start`` (which returns the new run's id) only while fewer than ``cap``
    MCP-started runs are alive; the check and the start happen under one lock."""
    with _locked():
        live = live_runs()
        if len(live) >= cap:
            raise UsageError(
                f"{len(live)} debates started over MCP are still running ({', '.join(live)}), "
                "the most collab runs at once (max_concurrent in [mcp] of config.toml); wait "
                "for one to finish, or stop one with debate_cancel"
            )
        run_id, value = start()
        path = collab_home() / REGISTRY
        with storing(path):
            atomic_write(path, json.dumps([*live, run_id]) + "\n")
        return run_id, value


def _recorded() -> list[str]:
    try:
        data = json.loads((collab_home() / REGISTRY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [r for r in data if isinstance(r, str)] if isinstance(data, list) else []


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    path = collab_home() / SLOTS_LOCK
    with storing(path, "lock"):
        make_private_dirs(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for another server's check and start
        yield
    finally:
        os.close(fd)
