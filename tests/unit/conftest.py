"""tests/unit: every test's COLLAB_HOME on tmpfs where there is one (/dev/shm), so that
the fsync of every state.json write (a run saves after every step) costs no disk wait; and
no test here starts a process (the unit marker: no tmux, no processes)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import LEAKY

SHM = Path("/dev/shm")
ON_TMPFS = SHM.is_dir() and os.access(SHM, os.W_OK)


@pytest.fixture(scope="session", autouse=True)
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's one folder for COLLAB_HOMEs, on tmpfs where there is one, removed at the
    end (when the suite runs on every core, each worker has its own: tests/every_core.py)."""
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


# Every way a test could start a process: subprocess (run, Popen, check_output, asyncio's),
# os.system, fork and exec (os.spawn*, pty.spawn, multiprocessing), posix_spawn.
_SPAWNERS = (
    (subprocess.Popen, "_execute_child"),
    *((os, name) for name in ("system", "fork", "forkpty", "posix_spawn", "posix_spawnp",
                              "execv", "execve", "execvp", "execvpe")),
)  # fmt: skip


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a unit test starts no process: move this test to tests/e2e")


@contextlib.contextmanager
def hermetic(scratch: Path) -> Iterator[Path]:
    """tests/conftest.py's ``hermetic_env`` (a new COLLAB_HOME, SHELL bash, no inherited tmux
    or Claude Code session) and no process started: each way to start one fails, pointing at
    tests/e2e. It sets and puts back what it changes itself, as it runs around each of
    ~2,300 tests: the fixtures it stands for (private_home, monkeypatch, a process guard)
    cost ~0.3 ms a test more."""
    home = Path(tempfile.mkdtemp(dir=scratch, prefix=""))
    saved = {name: os.environ.get(name) for name in ("COLLAB_HOME", "SHELL", *LEAKY)}
    spawners = [(owner, name, getattr(owner, name)) for owner, name in _SPAWNERS
                if hasattr(owner, name)]  # fmt: skip
    try:
        os.environ["COLLAB_HOME"] = str(home)
        os.environ["SHELL"] = "/bin/bash"
        for name in LEAKY:
            os.environ.pop(name, None)
        for owner, name, _ in spawners:
            setattr(owner, name, _refuse)
        yield home
    finally:
        for owner, name, original in spawners:
            setattr(owner, name, original)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def hermetic_env(scratch: Path) -> Iterator[Path]:
    """:func:`hermetic`, around every unit test. Per test, not per module: a module-scoped
    fixture keeps a module on one worker when the suite runs on every core."""
    with hermetic(scratch) as home:
        yield home
