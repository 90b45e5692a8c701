"""tests/unit: every test's COLLAB_HOME on tmpfs where there is one (/dev/shm), so that
the fsync of every state.json write (a run saves after every step) costs no disk wait; and
no test here starts a process (the unit marker: no tmux, no processes)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")
ON_TMPFS = SHM.is_dir() and os.access(SHM, os.W_OK)


@pytest.fixture
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """tests/conftest.py's ``private_home`` (the folder ``hermetic_env`` makes the test's
    COLLAB_HOME), on tmpfs and removed after the test: the one folder a test makes."""
    if not ON_TMPFS:
        yield Path(tempfile.mkdtemp(prefix="collab-home-", dir=tmp_path_factory.getbasetemp()))
        return
    home = tempfile.mkdtemp(dir=SHM, prefix="collab-unit-")
    try:
        yield Path(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


# Every way a test could start a process: subprocess (run, Popen, check_output, asyncio's),
# os.system, fork and exec (os.spawn*, pty.spawn, multiprocessing), posix_spawn.
_SPAWNERS = (
    (subprocess.Popen, "_execute_child"),
    *((os, name) for name in ("system", "fork", "forkpty", "posix_spawn", "posix_spawnp",
                              "execv", "execve", "execvp", "execvpe")),
)  # fmt: skip


@pytest.fixture(autouse=True, scope="module")
def no_processes() -> Iterator[None]:
    """A unit test that starts a process fails, pointing at tests/e2e (module-scoped: undone
    before any e2e module of the same session runs)."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a unit test starts no process: move this test to tests/e2e")

    patch = pytest.MonkeyPatch()
    for owner, name in _SPAWNERS:
        if hasattr(owner, name):
            patch.setattr(owner, name, refuse)
    try:
        yield
    finally:
        patch.undo()
