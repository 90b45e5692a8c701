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


@pytest.fixture(scope="session", autouse=True)
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's one folder for COLLAB_HOMEs, on tmpfs where there is one, removed at the
    end by the process that made it: when the suite runs on every core, it is made before the
    fork and removed after the workers end (they leave with os._exit, running no atexit)."""
    if not ON_TMPFS:
        yield tmp_path_factory.getbasetemp()
        return
    # "cu-" (collab unit): a home's path here is as long as it was before the scratch
    # folder (/dev/shm/collab-unit-XXXXXXXX), which views that fold paths at 80 columns show
    root = Path(tempfile.mkdtemp(dir=SHM, prefix="cu-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def private_home(scratch: Path) -> Iterator[Path]:
    """tests/conftest.py's ``private_home`` (the folder ``hermetic_env`` makes the test's
    COLLAB_HOME), under :func:`scratch` and removed after the test: the one folder a test
    makes."""
    home = tempfile.mkdtemp(dir=scratch, prefix="")
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


@pytest.fixture(autouse=True)
def no_processes() -> Iterator[None]:
    """A unit test that starts a process fails, pointing at tests/e2e. Per test, not per
    module: a module-scoped fixture would keep each module on one worker when the unit
    suite runs on every core (tests/conftest.py), and undoing it costs ~20 µs."""

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
