"""The MCP concurrency cap, shared by every ``collab mcp`` process of a ``COLLAB_HOME``:
a host that reconnects (a new server) must not start from zero, and six calls at once
must not all pass a check made before any of them started.

Under an flock on ``COLLAB_HOME/mcp.lock`` a starter reads ``mcp-runs.json`` (the runs
started over MCP), keeps those whose driver is alive, refuses at the cap, starts its run
and records it, and only then lets the next starter look.

A follow-up the server runs itself (``debate_ask``) holds a slot the same way for as long
as it runs: ``mcp-holds.json`` names the run and the server's pid (a dead pid's hold is
ignored), so an ask counts against ``max_concurrent`` like a debate or a continue.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from typing import TypeVar

from collab.control import driver_pid, pid_alive
from collab.errors import UsageError
from collab.paths import collab_home
from collab.store import RunDir, atomic_write, make_private_dirs, storing

SLOTS_LOCK = "mcp.lock"
REGISTRY = "mcp-runs.json"
HOLDS = "mcp-holds.json"
T = TypeVar("T")


def live_runs() -> list[str]:
    """The MCP-started runs whose driver is alive, and the runs a live server's follow-up
    holds a slot for (a snapshot; no lock taken)."""
    live = [r for r in _recorded() if driver_pid(RunDir(r).path) is not None]
    held = [run for run, pid in _holds() if pid_alive(pid)]
    return list(dict.fromkeys([*live, *held]))


def _refuse(live: list[str]) -> UsageError:
    return UsageError(
        f"{len(live)} debates started over MCP are still running ({', '.join(live)}), "
        "the most collab runs at once (max_concurrent in [mcp] of config.toml); wait "
        "for one to finish, or stop one with debate_cancel"
    )


@contextlib.contextmanager
def holding_slot(cap: int, run_id: str) -> Iterator[None]:
    """Hold one of the ``cap`` slots for a follow-up on ``run_id`` that this process runs
    while the block runs (refused at the cap, like a start); given back after it."""
    me = (run_id, os.getpid())
    with _locked():
        live = live_runs()
        if len(live) >= cap:
            raise _refuse(live)
        _write_holds([*_holds(), me])
    try:
        yield
    finally:
        with _locked():
            rest = _holds()
            if me in rest:
                rest.remove(me)
            _write_holds([(r, p) for r, p in rest if pid_alive(p)])


def _holds() -> list[tuple[str, int]]:
    try:
        data = json.loads((collab_home() / HOLDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, list):
        return []
    return [
        (h[0], h[1])
        for h in data
        if isinstance(h, list) and len(h) == 2 and isinstance(h[0], str) and isinstance(h[1], int)
    ]


def _write_holds(holds: list[tuple[str, int]]) -> None:
    path = collab_home() / HOLDS
    with storing(path):
        atomic_write(path, json.dumps([list(h) for h in holds]) + "\n")


def start_within_cap(cap: int, start: Callable[[], tuple[str, T]]) -> tuple[str, T]:
    """Run ``start`` (which returns the new run's id) only while fewer than ``cap``
    MCP-started runs are alive; the check and the start happen under one lock."""
    with _locked():
        live = live_runs()
        if len(live) >= cap:
            raise _refuse(live)
        run_id, value = start()
        path = collab_home() / REGISTRY
        with storing(path):
            atomic_write(path, json.dumps([*_recorded_live(), run_id]) + "\n")
        return run_id, value


def _recorded_live() -> list[str]:
    return [r for r in _recorded() if driver_pid(RunDir(r).path) is not None]


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
