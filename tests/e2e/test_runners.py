"""Both runners against real processes; the tmux runner against a real tmux server."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from libtmux import Server

from collab.runners.base import TurnJob
from collab.runners.subprocess import SubprocessRunner
from collab.runners.tmux import PANE_TITLE, TmuxRunner
from collab.runners.turnfiles import TurnDir
from tests.helpers import env_tuple, pid_alive, wait_until

SLEEPER = "exec -a collab-test-sleeper sleep 300"


@pytest.fixture
def tdir() -> Iterator[TurnDir]:
    d = TurnDir()
    yield d
    d.cleanup()


@pytest.fixture(params=["subprocess", "tmux"])
def runner(request: pytest.FixtureRequest, tdir: TurnDir, server: Server) -> Iterator[object]:
    if request.param == "subprocess":
        r: SubprocessRunner | TmuxRunner = SubprocessRunner(tdir)
    else:
        r = TmuxRunner(tdir, "test", server=server)
    yield r
    r.close()


def job(step: str, script: str, *, prompt: str = "", timeout: float = 20.0) -> TurnJob:
    return TurnJob(
        step=step,
        argv=("/bin/bash", "-c", script),
        env=env_tuple(),
        prompt=prompt,
        stdin_prompt=True,
        timeout=timeout,
    )


class Case(NamedTuple):
    test_id: str
    script: str
    prompt: str
    exit_code: int
    stdout: str
    stderr: str


CASES = [
    Case("echo-stdin", "cat", "hello\n", 0, "hello\n", ""),
    Case("stderr-separate", "echo out; echo err >&2; exit 3", "", 3, "out\n", "err\n"),
    Case(
        "hostile-prompt-is-data",
        "cat",
        "$(touch /tmp/collab-pwned) `id` ; rm -rf / \n{{ 7*7 }}\n'\"",
        0,
        "$(touch /tmp/collab-pwned) `id` ; rm -rf / \n{{ 7*7 }}\n'\"",
        "",
    ),
    Case("utf8", "cat", "日本語のトピック ✓\n", 0, "日本語のトピック ✓\n", ""),
    Case("killed-by-signal", "kill -TERM $$", "", 143, "", ""),
]


@pytest.mark.parametrize(list(Case._fields), CASES, ids=[c.test_id for c in CASES])
def test_turn_io(
    runner: SubprocessRunner | TmuxRunner,
    test_id: str,
    script: str,
    prompt: str,
    exit_code: int,
    stdout: str,
    stderr: str,
) -> None:
    res = runner.run(job("r1-A-1", script, prompt=prompt))
    assert not res.timed_out
    assert res.exit_code == exit_code
    assert res.stdout == stdout
    assert res.stderr == stderr
    assert not Path("/tmp/collab-pwned").exists()


def test_env_is_exactly_the_jobs(runner: SubprocessRunner | TmuxRunner) -> None:
    j = TurnJob(
        step="r1-A-1",
        argv=("/usr/bin/env",),
        env=(("COLLAB_X", "a b $(c)"), ("PATH", "/usr/bin:/bin")),
        prompt="",
        stdin_prompt=False,
        timeout=20,
    )
    res = runner.run(j)
    assert sorted(res.stdout.splitlines()) == ["COLLAB_X=a b $(c)", "PATH=/usr/bin:/bin"]


def test_timeout_kills_whole_group(runner: SubprocessRunner | TmuxRunner, tdir: TurnDir) -> None:
    pidfile = tdir.path / "child.pid"
    script = f"bash -c '{SLEEPER}' & echo $! > {pidfile}; {SLEEPER}"
    res = runner.run(job("r1-A-1", script, timeout=1.0))
    assert res.timed_out
    assert res.exit_code is None
    child = int(pidfile.read_text())
    agent = tdir.pid("r1-A-1")
    assert agent is not None
    assert wait_until(lambda: not pid_alive(child) and not pid_alive(agent), 5)


def test_files_are_private(runner: SubprocessRunner | TmuxRunner, tdir: TurnDir) -> None:
    runner.run(job("r1-A-1", "cat", prompt="secret"))
    # The environment (API keys) is read once by the turn script and not kept on disk.
    assert not tdir.file("r1-A-1", "env").exists()
    assert stat.S_IMODE(tdir.path.stat().st_mode) == 0o700
    for f in tdir.path.iterdir():
        if f.is_file():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f


def test_consecutive_turns_reuse_the_pane(runner: SubprocessRunner | TmuxRunner) -> None:
    for i in range(5):
        res = runner.run(job(f"r{i}-A-1", f"echo {i}"))
        assert res.stdout == f"{i}\n"
        assert res.pane_restarts == 0


def test_tmux_pane_titled_and_detached_session(server: Server, tdir: TurnDir) -> None:
    r = TmuxRunner(tdir, "title", server=server)
    try:
        title = server.cmd("display-message", "-p", "-t", r.pane_id, "#{pane_title}").stdout
        assert title == [PANE_TITLE]
        assert r.attach_hint() is not None
        assert "attach -t collab-title" in (r.attach_hint() or "")
    finally:
        r.close()
    assert not r._session_exists()


def test_tmux_split_inside_existing_window(server: Server, tdir: TurnDir) -> None:
    # Wide enough for the split rule (the user keeps 80 columns, the seats 40 each).
    session = server.new_session("user", x=200, y=50)
    user_pane = session.active_window.active_pane
    assert user_pane is not None
    r = TmuxRunner(tdir, "split", server=server, split_from=user_pane.pane_id)
    try:
        panes = server.cmd("list-panes", "-t", user_pane.pane_id, "-F", "#{pane_id}").stdout
        assert r.pane_id in panes and len(panes) == 2
        assert r.attach_hint() is None
        assert r.run(job("r1-A-1", "echo hi")).stdout == "hi\n"
    finally:
        r.close()
    panes = server.cmd("list-panes", "-t", user_pane.pane_id, "-F", "#{pane_id}").stdout
    assert panes == [user_pane.pane_id]


def test_tmux_pane_killed_mid_turn_is_recreated(server: Server, tdir: TurnDir) -> None:
    server.new_session("user")  # the user's own session keeps the server up
    r = TmuxRunner(tdir, "kill", server=server)
    first_pane = r.pane_id
    marker = tdir.path / "runs.log"
    script = f"echo run >> {marker}; if [ $(wc -l < {marker}) -eq 1 ]; then {SLEEPER}; fi; echo ok"
    import threading

    def killer() -> None:
        if wait_until(lambda: marker.exists(), 10):
            server.cmd("kill-pane", "-t", first_pane)

    t = threading.Thread(target=killer)
    t.start()
    try:
        res = r.run(job("r1-A-1", script, timeout=30))
    finally:
        t.join()
        r.close()
    assert res.exit_code == 0
    assert res.stdout == "ok\n"
    assert res.pane_restarts == 1
    assert r.pane_id != first_pane
    assert marker.read_text().count("run") == 2


def test_tmux_server_killed_mid_turn_raises(server: Server, tdir: TurnDir) -> None:
    from collab.errors import RunnerError

    r = TmuxRunner(tdir, "gone", server=server)
    marker = tdir.path / "started"
    import threading

    def killer() -> None:
        if wait_until(lambda: marker.exists(), 10):
            server.kill()

    t = threading.Thread(target=killer)
    t.start()
    try:
        with pytest.raises(RunnerError, match="tmux server went away"):
            r.run(job("r1-A-1", f"touch {marker}; {SLEEPER}", timeout=30))
    finally:
        t.join()
        r.close()
    agent = tdir.pid("r1-A-1")
    assert agent is not None
    assert wait_until(lambda: not pid_alive(agent), 5)


def test_reap_stale_kills_orphaned_agents_and_removes_the_dir(tdir: TurnDir) -> None:
    """What a resume does after a SIGKILL: the dead driver's agents and files go."""
    from collab.runners.turnfiles import reap_stale, wait_for_file

    r = SubprocessRunner(tdir)
    j = job("r1-A-1", SLEEPER)
    r.launch(tdir.write(j))
    import time

    assert wait_for_file(tdir.file("r1-A-1", "pid"), time.monotonic() + 10)
    agent = tdir.pid("r1-A-1")
    assert agent is not None and pid_alive(agent)
    # A pid whose process started after its pid file was written (a reused pid) is left
    # alone: here, our own process with a pid file dated before it started.
    stale = tdir.path / "r9-B-1.pid"
    stale.write_text(f"{os.getpid()}\n")
    os.utime(stale, (1_000_000, 1_000_000))
    assert reap_stale(tdir.path) == 1
    assert wait_until(lambda: not pid_alive(agent), 5)
    assert not tdir.path.exists()
    assert pid_alive(os.getpid())
    r.close()
