"""Every unit test runs in a home of its own, outside any tmux or Claude Code session, and
cannot start a process (tests/unit/conftest.py); each is put back as it was after."""

from __future__ import annotations

import multiprocessing
import os
import pty
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import LEAKY
from tests.unit import conftest
from tests.unit.conftest import hermetic

# Each a lambda, so that it looks its spawner up when called (after the guard replaced it):
# ``os.fork`` itself, bound here at import, is the real one and would fork the test run.
SPAWNS: dict[str, Callable[[], object]] = {
    "subprocess.run": lambda: subprocess.run(["true"], check=False),
    "os.system": lambda: os.system("true"),
    "os.fork": lambda: os.fork(),
    "os.forkpty": lambda: os.forkpty(),
    "os.posix_spawn": lambda: os.posix_spawn("/bin/true", ["true"], {}),
    "os.posix_spawnp": lambda: os.posix_spawnp("true", ["true"], {}),
    "os.execv": lambda: os.execv("/bin/true", ["true"]),
    "os.execvp": lambda: os.execvp("true", ["true"]),
    "pty.spawn": lambda: pty.spawn(["true"]),
    "multiprocessing": lambda: multiprocessing.get_context("fork").Process(target=print).start(),
}


@pytest.mark.parametrize("spawn", SPAWNS.values(), ids=SPAWNS.keys())
def test_a_unit_test_starts_no_process(spawn: Callable[[], object]) -> None:
    with pytest.raises(AssertionError, match="a unit test starts no process: move this test"):
        spawn()


def test_a_home_of_its_own_and_no_session(hermetic_env: Path, scratch: Path) -> None:
    assert os.environ["COLLAB_HOME"] == str(hermetic_env)
    assert hermetic_env.parent == scratch and list(hermetic_env.iterdir()) == []
    assert os.environ["SHELL"] == "/bin/bash"
    assert not set(LEAKY) & set(os.environ)


def test_what_it_changed_is_put_back_after(hermetic_env: Path, scratch: Path) -> None:
    system = os.system
    os.environ["TMUX"] = "/tmp/tmux-0/default,1,0"
    os.environ["SHELL"] = "/bin/zsh"
    os.system = print  # type: ignore[assignment]  # stands for the real one here
    try:
        with hermetic(scratch) as home:
            assert home != hermetic_env and os.environ["COLLAB_HOME"] == str(home)
            assert "TMUX" not in os.environ and os.environ["SHELL"] == "/bin/bash"
            with pytest.raises(AssertionError):
                os.system("true")
            (home / "left.txt").write_text("x")
        assert os.system is print
        assert os.environ["COLLAB_HOME"] == str(hermetic_env)
        assert os.environ["TMUX"] == "/tmp/tmux-0/default,1,0"
        assert os.environ["SHELL"] == "/bin/zsh"
        assert not home.exists()
    finally:
        os.system = system
        os.environ.pop("TMUX")


def test_a_thread_the_test_leaves_running_fails_it(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "THREAD_GRACE_S", 0.05)
    stop = threading.Event()
    ended = threading.Thread(target=lambda: None, name="ended")
    left = threading.Thread(target=stop.wait, name="left-on", daemon=True)
    try:
        raises = pytest.raises(AssertionError, match="leaves no thread running")
        with raises as raised, hermetic(scratch):
            ended.start()
            left.start()
            ended.join()
        assert "'left-on'" in str(raised.value) and "'ended'" not in str(raised.value)
    finally:
        stop.set()


def test_a_thread_told_to_stop_as_the_test_ends_has_its_grace(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "THREAD_GRACE_S", 5.0)
    with hermetic(scratch):  # as a rich Live told to stop: its thread ends a little later
        ending = threading.Thread(target=threading.Event().wait, args=(0.05,), name="ending")
        ending.start()
    assert not ending.is_alive()


def test_temp_files_go_to_the_scratch_folder_and_tmp_path_where_pytest_keeps_it(
    scratch: Path, tmp_path: Path
) -> None:
    assert tempfile.gettempdir() == str(scratch)  # a run's turn folders: on tmpfs
    # pytest's base temp folder stays where pytest keeps it (and keeps what a failed test
    # left), not in the scratch folder removed at the end of the session
    assert scratch not in tmp_path.parents
