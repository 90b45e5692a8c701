"""tests/unit: every test's COLLAB_HOME on tmpfs where there is one (/dev/shm), so that
the fsync of every state.json write (a run saves after every step) costs no disk wait; and
no test here starts a process (the unit marker: no tmux, no processes)."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.every_core import base_temp
from tests.helpers import LEAKY

SHM = Path("/dev/shm")
ON_TMPFS = SHM.is_dir() and os.access(SHM, os.W_OK)


@pytest.fixture(scope="session", autouse=True)
def scratch() -> Iterator[Path]:
    """The session's one folder for COLLAB_HOMEs, on tmpfs where there is one, removed at the
    end (when the suite runs on every core, each worker has its own: tests/every_core.py).
    It asks for no other fixture (not tmp_path_factory, which asks for ``request``): an
    autouse fixture's fixtures are looked up again for every test, ~2,300 times. While it
    stands, the cyclic collector runs less often (:func:`_collector_for_tests`)."""
    # "cu-" (collab unit): a home's path here is as long as it was before the scratch
    # folder (/dev/shm/collab-unit-XXXXXXXX), which views that fold paths at 80 columns show
    root = Path(tempfile.mkdtemp(dir=SHM if ON_TMPFS else None, prefix="cu-"))
    # The runs' temp folders (a turn's, a reply's) in it too, not on /tmp's disk: ~1.6 ms of
    # a debate's ~25 ms. pytest's own base temp folder is made before (pytest_runtestloop).
    was = tempfile.tempdir
    tempfile.tempdir = str(root)
    try:
        with _collector_for_tests():
            yield root
    finally:
        tempfile.tempdir = was
        shutil.rmtree(root, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[object]:
    """pytest's base temp folder (``tmp_path``'s parent) made where pytest makes it, before
    :func:`scratch` points Python's temp folder at the session's scratch folder (removed at the
    end, with what a failed test left in its ``tmp_path``). On every core, made already."""
    base_temp(session.config)
    return (yield)


# The cyclic collector's thresholds while unit tests run (Python's: 700, 10, 10). At those, a
# unit run made ~1,900 young collections and ~13 full ones (~35 ms each: all that the tests
# imported or cached since the session froze its collection), ~0.95 s of ~18 s of the tests'
# CPU; at these, ~0.45 s, for ~4 MB more peak memory (135 -> 139 MB, one process).
_TEST_THRESHOLDS = (5000, 20, 100)


@contextlib.contextmanager
def _collector_for_tests() -> Iterator[None]:
    """The collector's thresholds raised while the session's unit tests run, and put back
    after: in each worker when the suite runs on every core (its session fixtures are its
    own). The collector stays on (tests/unit/test_cli_gc.py)."""
    was = gc.get_threshold()
    gc.set_threshold(*_TEST_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*was)


# Every way a test could start a process: subprocess (run, Popen, check_output, asyncio's),
# os.system, fork and exec (os.spawn*, pty.spawn, multiprocessing), posix_spawn.
_SPAWNERS = (
    (subprocess.Popen, "_execute_child"),
    *((os, name) for name in ("system", "fork", "forkpty", "posix_spawn", "posix_spawnp",
                              "execv", "execve", "execvp", "execvpe")),
)  # fmt: skip


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a unit test starts no process: move this test to tests/e2e")


# How long a thread the test started (and told to stop) has to end after the test. A rich
# Live told to stop ends its refresh thread at once, but does not wait for it.
THREAD_GRACE_S = 2.0


def _left_running(before: set[threading.Thread]) -> list[str]:
    """The threads started since ``before`` still running once each had its grace to end: a
    rich Live a test left on refreshes four times a second for the rest of the run (20 of
    them, left by one test, took ~10 % of the unit suite's CPU)."""
    deadline = time.monotonic() + THREAD_GRACE_S
    left = []
    for thread in threading.enumerate():
        if thread not in before:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                left.append(f"{type(thread).__name__} {thread.name!r}")
    return left


# What it sets for a test and puts back after: COLLAB_HOME and SHELL first, then LEAKY.
_ENV = ("COLLAB_HOME", "SHELL", *LEAKY)


@contextlib.contextmanager
def hermetic(scratch: Path) -> Iterator[Path]:
    """tests/conftest.py's ``hermetic_env`` (a new COLLAB_HOME, SHELL bash, no inherited tmux
    or Claude Code session) and no process started: each way to start one fails, pointing at
    tests/e2e; a thread the test started must have ended. It sets and puts back what it
    changes itself, as it runs around each of ~2,300 tests: the fixtures it stands for
    (private_home, monkeypatch, a process guard) cost ~0.3 ms a test more. Its own work is a
    few dozen microseconds: an environment variable is looked up once on the way in (a
    lookup of an absent one raises and catches KeyError twice), and a home the test left
    empty is removed without rmtree's walk."""
    home = Path(tempfile.mkdtemp(dir=scratch, prefix=""))
    environ = os.environ
    saved = [(name, environ.get(name)) for name in _ENV]
    spawners = [(owner, name, getattr(owner, name)) for owner, name in _SPAWNERS
                if hasattr(owner, name)]  # fmt: skip
    threads = set(threading.enumerate())
    try:
        environ["COLLAB_HOME"] = str(home)
        environ["SHELL"] = "/bin/bash"
        for name, value in saved[2:]:
            if value is not None:
                del environ[name]
        for owner, name, _ in spawners:
            setattr(owner, name, _refuse)
        yield home
    finally:
        for owner, name, original in spawners:
            setattr(owner, name, original)
        for name, value in saved:
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value
        try:
            os.rmdir(home)
        except OSError:  # what the test left in it
            shutil.rmtree(home, ignore_errors=True)
    left = _left_running(threads)
    if left:
        raise AssertionError(f"a unit test leaves no thread running; still running: {left}")


@pytest.fixture(autouse=True)
def hermetic_env(scratch: Path) -> Iterator[Path]:
    """:func:`hermetic`, around every unit test. Per test, not per module: a module-scoped
    fixture keeps a module on one worker when the suite runs on every core."""
    with hermetic(scratch) as home:
        yield home
