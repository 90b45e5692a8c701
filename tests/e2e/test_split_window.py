"""F5 inside the user's own tmux: collab, started in one of the user's panes, split that
window; the pane it split off is killed mid-turn. collab opens a new one in the same
window and re-runs the turn; the run finishes; the user's pane (where collab runs) is
never touched, and the window is as the user left it afterwards.

collab is typed into the user's pane as a user would, so TMUX and TMUX_PANE are the ones
tmux itself set for that pane (no COLLAB_TMUX_SOCKET: collab finds the server from TMUX).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest
from libtmux import Server, Session

from tests.conftest import FakeAgent
from tests.e2e.test_debate_tmux import (
    SEAT_A_TITLE,
    WAIT,
    PaneInfo,
    assert_each_turn_once,
    collab_sessions,
    collab_tmpdirs,
    debate_args,
    judge_rule,
    panes,
    private_tmp_fixture,  # noqa: F401  (fixture, used by name)
    read_state,
    say,
    turn_calls,
    turn_rule,
    wait_for_calls,
)
from tests.helpers import JUDGE_REST, Cli, pid_alive, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

N = 2
PASS_ON = ("COLLAB_HOME", "COLLAB_FAKE_SCRIPT", "HOME", "PATH", "TMPDIR", "SHELL")


def launcher(tmp_path: Path, args: list[str]) -> tuple[Path, Path, Path, Path]:
    """A script the user's pane runs: collab with this test's environment (but the pane's
    own TMUX/TMUX_PANE), its output and exit code in files."""
    out, err, rc = tmp_path / "collab.out", tmp_path / "collab.err", tmp_path / "collab.rc"
    exports = "".join(
        f"export {name}={shlex.quote(os.environ[name])}\n" for name in PASS_ON if name in os.environ
    )
    script = tmp_path / "run-collab.sh"
    script.write_text(
        "unset COLLAB_TMUX_SOCKET\n"
        + exports
        + "export COLUMNS=200\n"
        + f"env | grep '^TMUX' > {shlex.quote(str(tmp_path / 'pane.env'))}\n"
        + shlex.join(Cli.argv(*args))  # the cli fixture's command line, typed in the pane
        + f" > {shlex.quote(str(out))} 2> {shlex.quote(str(err))} < /dev/null\n"
        + f"echo $? > {shlex.quote(str(rc))}.tmp && mv {shlex.quote(str(rc))}.tmp "
        + f"{shlex.quote(str(rc))}\n",
        encoding="utf-8",
    )
    return script, out, err, rc


def test_pane_killed_in_the_users_split_window_is_recreated_there(
    no_agent_processes: None,
    server: Server,
    session: Session,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
) -> None:
    first = say("PANE-KILLED reply", new=[("Lost", "never recorded")], sleep=60)
    fake_agent.script(
        [
            judge_rule("## TL;DR\n- fine" + JUDGE_REST),
            turn_rule("A", 1, N, first, say("A1 rerun", new=[("Point A1", "evidence")])),
        ],
        say("others", stances=[("I1", "contest", "no")]),
    )
    window = session.active_window
    # Wide enough for the split rule (the user keeps 80 columns, the seats 40 each).
    server.cmd("resize-window", "-t", str(window.window_id), "-x", "200", "-y", "50")
    user_pane = window.active_pane
    assert user_pane is not None and user_pane.pane_id is not None
    window_id = window.window_id
    script, out, err, rc = launcher(tmp_path, debate_args(rounds=N, timeout=90))
    user_pane.send_keys(f"bash {shlex.quote(str(script))}", enter=True)

    def split() -> list[PaneInfo]:
        return [
            p for p in panes(server) if p.window == window_id and p.pane_id != user_pane.pane_id
        ]

    (call,) = wait_for_calls(fake_agent, "A", 1, N)
    assert wait_until(lambda: [p.title for p in split()] == [SEAT_A_TITLE], WAIT), (
        f"the user's window was not split: {panes(server)}"
    )
    env = dict(line.split("=", 1) for line in (tmp_path / "pane.env").read_text().splitlines())
    assert env["TMUX_PANE"] == user_pane.pane_id  # as tmux set it for the user's pane
    assert collab_sessions(server) == []  # no detached session when inside tmux
    (killed,) = split()
    server.cmd("kill-pane", "-t", killed.pane_id)

    # A new pane, split off the same window, runs the turn again.
    assert wait_until(lambda: len(turn_calls(fake_agent.calls(), "A", 1, N)) == 2, WAIT), (
        "the turn was not re-run"
    )
    assert wait_until(lambda: [p.pane_id for p in split()] not in ([], [killed.pane_id]), WAIT)
    assert wait_until(rc.exists, WAIT), err.read_text(errors="replace")
    assert rc.read_text().strip() == "0", err.read_text(errors="replace")
    doc = json.loads(out.read_text(encoding="utf-8"))
    state = read_state(doc["run_id"])
    t = state.turn(1, "A")
    assert t is not None
    assert (t.status, t.prose, t.meta.pane_restarts) == ("ok", "A1 rerun", 1)
    assert_each_turn_once(state)
    assert state.status == "done" and state.rounds_done() == N
    assert "PANE-KILLED" not in json.dumps(state.to_dict())
    assert wait_until(lambda: not pid_alive(int(call["pid"])), 10), "the killed turn's agent lives"

    # The user's pane survived, and the window is as the user had it: that pane alone.
    assert wait_until(lambda: split() == [], 10), split()
    assert [p.pane_id for p in panes(server) if p.window == window_id] == [user_pane.pane_id]
    assert collab_sessions(server) == []
    assert collab_tmpdirs(private_tmp) == []
