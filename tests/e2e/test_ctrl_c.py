"""Ctrl-C where users press it: during the Judge, a re-ask, a retry, and twice in a row.

Ctrl-C is SIGINT to collab's process group, as a terminal sends it (the agents run in
sessions of their own). Each run must stop with exit 130, the state saved as
``interrupted``, the resume command printed, no agent, pane or temp dir left; then
``collab resume`` finishes it with nothing lost (every saved turn kept as it was) and
nothing repeated (a saved turn is never asked again; only the step in flight is re-run).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from libtmux import Server

from collab.state import RunState
from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    WAIT,
    Call,
    Spawned,
    assert_each_turn_once,
    collab_sessions,
    collab_tmpdirs,
    debate_args,
    judge_calls,
    judge_rule,
    panes,
    private_tmp_fixture,  # noqa: F401  (fixture, used by name)
    read_state,
    reask_calls,
    reask_rule,
    run_ids,
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401
    tmux_fixture,  # noqa: F401
    turn_calls,
    turn_rule,
)
from tests.helpers import JUDGE_REST, pid_alive, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

N = 2
JUDGE_TEXT = "## TL;DR\n- CTRL-C-JUDGE all said" + JUDGE_REST
KEEP_OPEN = say("keeps arguing", stances=[("I1", "contest", "still disagree")])
A1 = say("A1 opens", new=[("Point A1", "ev-a1")])
B1 = say("B1 answers", stances=[("I1", "contest", "ev-b1")])
# Past what json-repair can mend into a contract: a list, cut off.
BAD_BLOCK = '\n\n```json\n["Broken", \n```\n'


def ctrl_c(proc: Spawned) -> None:
    """What a terminal does on Ctrl-C: SIGINT to the foreground process group."""
    os.killpg(proc.proc.pid, signal.SIGINT)


def wait_for(called: Callable[[], object], what: str) -> None:
    assert wait_until(lambda: bool(called()), WAIT), f"{what} was never called"


def only_run_id() -> str:
    ids = run_ids()
    assert len(ids) == 1, ids
    return ids[0]


def agent_pids(calls: Sequence[Call]) -> list[int]:
    return [int(c["pid"]) for c in calls]


def assert_stopped_cleanly(
    proc: Spawned, fake: FakeAgent, tmux: Server, private_tmp: Path
) -> RunState:
    """Exit 130, the resume command shown, nothing left running; the saved state."""
    assert proc.wait() == 130, proc.err
    run_id = only_run_id()
    assert f"interrupted; state saved — continue with: collab resume {run_id}" in proc.err
    agents = agent_pids(fake.calls())
    assert wait_until(lambda: not any(pid_alive(p) for p in agents), 10), "an agent survived"
    assert collab_sessions(tmux) == []
    assert [p for p in panes(tmux) if p.session.startswith("collab-")] == []
    assert collab_tmpdirs(private_tmp) == []
    state = read_state(run_id)
    assert (state.status, state.error) == ("interrupted", "interrupted")
    return state


def resume_done(cli: Cli, run_id: str, before: RunState) -> RunState:
    """``collab resume``: done, same id, every turn saved before kept exactly."""
    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    assert res.json()["run_id"] == run_id and res.json()["status"] == "done"
    after = read_state(run_id)
    assert after.status == "done" and after.rounds_done() == N
    assert_each_turn_once(after)
    kept = len(before.turns)
    assert [t.to_dict() for t in after.turns[:kept]] == [t.to_dict() for t in before.turns]
    assert after.judge is not None and not after.judge.fallback
    assert after.judge.text.startswith(JUDGE_TEXT)
    return after


# -- during the Judge ---------------------------------------------------------------------------


def test_ctrl_c_during_the_judge_then_resume_asks_only_the_judge_again(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    fake_agent.script(
        [
            judge_rule({"text": "JUDGE-INTERRUPTED", "sleep": 60}, JUDGE_TEXT),
            turn_rule("A", 1, N, A1),
            turn_rule("B", 1, N, B1),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=N, timeout=90, as_json=False), tmp_path)
    spawned.append(proc)
    wait_for(lambda: judge_calls(fake_agent.calls()), "the Judge")
    ctrl_c(proc)

    before = assert_stopped_cleanly(proc, fake_agent, tmux, private_tmp)
    assert before.rounds_done() == N and len(before.turns) == 2 * N  # every turn kept
    assert before.judge is None

    after = resume_done(cli, before.run_id, before)
    calls = fake_agent.calls()
    assert len(judge_calls(calls)) == 2  # the interrupted call, then the resumed one
    for r in range(1, N + 1):
        for side in ("A", "B"):
            assert len(turn_calls(calls, side, r, N)) == 1, (r, side)
    assert after.stop_reason == "max-rounds"
    assert "JUDGE-INTERRUPTED" not in json.dumps(after.to_dict())


# -- during a re-ask ----------------------------------------------------------------------------


def test_ctrl_c_during_a_reask_then_resume_reruns_only_that_turn(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    fake_agent.script(
        [
            judge_rule(JUDGE_TEXT),
            reask_rule("B", {"text": "REASK-INTERRUPTED", "sleep": 60}),
            turn_rule("A", 1, N, A1),
            # B's first reply has a broken block (so B is re-asked); on resume, a good one.
            turn_rule("B", 1, N, {"text": "B-BROKEN argues" + BAD_BLOCK}, B1),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=N, timeout=90, as_json=False), tmp_path)
    spawned.append(proc)
    wait_for(lambda: reask_calls(fake_agent.calls(), "B"), "B's re-ask")
    ctrl_c(proc)

    before = assert_stopped_cleanly(proc, fake_agent, tmux, private_tmp)
    assert [(t.round_no, t.side) for t in before.turns] == [(1, "A")]

    after = resume_done(cli, before.run_id, before)
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, N)) == 1, "a saved turn was asked again"
    assert len(turn_calls(calls, "B", 1, N)) == 2  # the turn in flight, re-run whole
    assert len(reask_calls(calls, "B")) == 1  # the resumed reply needed no re-ask
    b1 = after.turn(1, "B")
    assert b1 is not None
    assert (b1.status, b1.prose, b1.reask, b1.warnings) == ("ok", "B1 answers", None, ())
    saved = json.dumps(after.to_dict())
    assert "REASK-INTERRUPTED" not in saved and "B-BROKEN" not in saved


# -- during a retry ------------------------------------------------------------------------------


def test_ctrl_c_during_a_retry_then_resume_reruns_only_that_turn(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    fake_agent.script(
        [
            judge_rule(JUDGE_TEXT),
            turn_rule("A", 1, N, A1),
            # B: the first attempt fails, the retry hangs (Ctrl-C here), the resumed one works.
            turn_rule(
                "B", 1, N,
                {"exit": 1, "stderr": "B-FAILED upstream said no\n"},
                {"text": "RETRY-INTERRUPTED", "hang": True},
                B1,
            ),
        ],
        KEEP_OPEN,
    )  # fmt: skip
    proc = spawn_collab(debate_args(rounds=N, timeout=90, as_json=False), tmp_path)
    spawned.append(proc)
    wait_for(lambda: len(turn_calls(fake_agent.calls(), "B", 1, N)) == 2, "B's retry")
    assert "retrying once" in proc.err
    ctrl_c(proc)

    before = assert_stopped_cleanly(proc, fake_agent, tmux, private_tmp)
    assert [(t.round_no, t.side) for t in before.turns] == [(1, "A")]

    after = resume_done(cli, before.run_id, before)
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, N)) == 1, "a saved turn was asked again"
    assert len(turn_calls(calls, "B", 1, N)) == 3  # two before the Ctrl-C, one resumed
    b1 = after.turn(1, "B")
    assert b1 is not None
    assert (b1.status, b1.prose, b1.meta.attempts, b1.meta.error) == ("ok", "B1 answers", 1, None)
    saved = json.dumps(after.to_dict())
    assert "RETRY-INTERRUPTED" not in saved and "B-FAILED" not in saved


# -- a second Ctrl-C while the state is being saved ----------------------------------------------

# collab itself, with one seam (tests/fakes/slow_save.py): the save of the "interrupted"
# state waits for the test's go-ahead, so that the second Ctrl-C surely lands in it.
SLOW_SAVE = Path(__file__).resolve().parents[1] / "fakes" / "slow_save.py"


def test_second_ctrl_c_during_the_save_is_ignored_until_saved_then_exit_130(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    """Mutant killed: without ``_hold_signals()`` in the KeyboardInterrupt path of
    ``Orchestrator._run`` the second Ctrl-C cuts the save short (the state stays
    "running"), the resume command is never printed, and the temp dir may be left."""
    fake_agent.script(
        [
            judge_rule(JUDGE_TEXT),
            turn_rule("A", 1, N, A1),
            turn_rule("B", 1, N, {"text": "B-INTERRUPTED", "sleep": 60}, B1),
        ],
        KEEP_OPEN,
    )
    holding, go, log = tmp_path / "holding", tmp_path / "go", tmp_path / "saves.log"
    out_path, err_path = tmp_path / "collab.out", tmp_path / "collab.err"
    env = dict(os.environ) | {"COLUMNS": "400"}
    argv = [sys.executable, str(SLOW_SAVE), str(holding), str(go), str(log)]
    with out_path.open("wb") as out, err_path.open("wb") as err:
        popen = subprocess.Popen(
            [*argv, *debate_args(rounds=N, timeout=90, as_json=False)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, start_new_session=True,
        )  # fmt: skip
    proc = Spawned(popen, out_path, err_path)
    spawned.append(proc)
    wait_for(lambda: turn_calls(fake_agent.calls(), "B", 1, N), "Role B")

    ctrl_c(proc)  # the first: collab starts saving the state...
    assert wait_until(holding.exists, WAIT), "the interrupted state was never saved"
    ctrl_c(proc)  # ... the second, and a SIGTERM, while it saves
    os.kill(popen.pid, signal.SIGTERM)
    # Still saving: the signals are held, not acted on.
    assert not wait_until(lambda: popen.poll() is not None, 2), proc.err
    assert read_state(only_run_id()).status == "running"
    go.touch()

    before = assert_stopped_cleanly(proc, fake_agent, tmux, private_tmp)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines and lines == ["save started", "save finished"] * (len(lines) // 2), lines
    assert "Traceback" not in proc.err
    assert [(t.round_no, t.side) for t in before.turns] == [(1, "A")]

    after = resume_done(cli, before.run_id, before)
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, N)) == 1, "a saved turn was asked again"
    assert len(turn_calls(calls, "B", 1, N)) == 2
    assert "B-INTERRUPTED" not in json.dumps(after.to_dict())
