"""The blind opening (the default): in round 1 both sides write at once, neither seeing
the other, on two runners (two tmux panes, or two processes); from round 2 A then B."""

from __future__ import annotations

import json
import shutil
import signal
import threading
from pathlib import Path

import pytest
from libtmux import Server

from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    WAIT,
    Spawned,
    collab_sessions,
    debate_args,
    judge_rule,
    panes,
    private_tmp_fixture,  # noqa: F401  (fixture, used by name)
    read_state,
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401
    tmux_fixture,  # noqa: F401
    turn_calls,
    turn_rule,
    wait_for_calls,
)
from tests.helpers import JUDGE_REST, pid_alive, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

N = 2
JUDGE_OK = judge_rule("## TL;DR\n- both openings weighed; I1 and I2 stay open." + JUDGE_REST)
OPEN_A = say("OPENING-A tokens scale", new=[("Stateless scaling", "ev-a")], sleep=1.0)
OPEN_B = say("OPENING-B sessions revoke", new=[("Revocation", "ev-b")], sleep=1.0)
LATER = say("argues on", stances=[("I1", "contest", "still"), ("I2", "contest", "still")])


def blind_script(fake: FakeAgent, a1: object = OPEN_A, b1: object = OPEN_B) -> None:
    fake.script(
        [JUDGE_OK, turn_rule("A", 1, N, a1), turn_rule("B", 1, N, b1),
         turn_rule("A", 2, N, LATER), turn_rule("B", 2, N, LATER)],
        "unmatched prompt",
    )  # fmt: skip


def prompts(tmp: Path) -> dict[str, str]:
    (temp_dir,) = tmp.glob("collab-*")
    return {p.name.removesuffix(".prompt"): p.read_text() for p in temp_dir.glob("*.prompt")}


@pytest.mark.parametrize("runner", ["tmux", "subprocess"])
def test_blind_round_runs_both_sides_at_once_and_neither_sees_the_other(
    tmux: Server,
    fake_agent: FakeAgent,
    cli: Cli,
    private_tmp: Path,
    runner: str,
) -> None:
    # Each opening answers only once both round-1 calls have started: run one after the
    # other, the first would wait for a second that never starts (no clock to race).
    gate = fake_agent.dir / "both-started"
    blind_script(
        fake_agent,
        a1=say("OPENING-A tokens scale", new=[("Stateless scaling", "ev-a")], wait_file=gate),
        b1=say("OPENING-B sessions revoke", new=[("Revocation", "ev-b")], wait_file=gate),
    )
    both: list[bool] = []

    def open_gate() -> None:
        def started() -> bool:
            calls = fake_agent.calls()
            return bool(turn_calls(calls, "A", 1, N) and turn_calls(calls, "B", 1, N))

        both.append(wait_until(started, 30, 0.05))
        gate.touch()

    opener = threading.Thread(target=open_gate, daemon=True)
    opener.start()
    res = cli(*debate_args(rounds=N, runner=runner, opening="blind",
                                       extra=("--keep-temp",)))  # fmt: skip
    opener.join()
    assert res.code == 0, res.err
    state = read_state(res.json()["run_id"])
    assert state.config.opening == "blind"
    # Round 1 stored A then B, and A's new point got the first id; round 2 ends with A
    # (the last speaker rotates).
    assert [(t.round_no, t.side) for t in state.turns] == [(1, "A"), (1, "B"), (2, "B"), (2, "A")]
    assert [(i.id, i.title, i.raised_by) for i in state.ledger().issues] == [
        ("I1", "Stateless scaling", "A"), ("I2", "Revocation", "B"),
    ]  # fmt: skip
    # Overlap: each side's call started while the other's was still waiting to answer.
    assert both == [True]
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, N)) == len(turn_calls(calls, "B", 1, N)) == 1
    # Neither round-1 prompt holds the other's opening; round 2's prompts hold both.
    p = prompts(private_tmp)
    assert "OPENING-B" not in p["r1-A-1"] and "OPENING-A" not in p["r1-B-1"]
    for step in ("r2-A-1", "r2-B-1"):
        assert "OPENING-A" in p[step] and "OPENING-B" in p[step], step
    # Round 2 is sequential, B then A: A's prompt has B's round-2 reply.
    assert "round=2 role=B" in p["r2-A-1"] and "round=2 role=A" not in p["r2-B-1"]


def test_sequential_opening_keeps_the_first_releases_order(
    tmux: Server, fake_agent: FakeAgent, cli: Cli, private_tmp: Path
) -> None:
    blind_script(fake_agent, a1=say("OPENING-A", new=[("P", "e")]), b1=say("OPENING-B"))
    res = cli(*debate_args(rounds=N, opening="sequential", extra=("--keep-temp",)))
    assert res.code == 0, res.err
    p = prompts(private_tmp)
    assert "OPENING-A" in p["r1-B-1"]  # B answers A in round 1, as before
    calls = fake_agent.calls()
    (a1,) = turn_calls(calls, "A", 1, N)
    (b1,) = turn_calls(calls, "B", 1, N)
    assert float(b1["time"]) > float(a1["time"])


def test_sigint_in_the_blind_round_then_resume_reruns_only_the_unfinished_side(
    tmux: Server, fake_agent: FakeAgent, tmp_path: Path, spawned: list[Spawned]
) -> None:
    blind_script(fake_agent, a1=say("OPENING-A quick", new=[("Stateless", "ev-a")]),
                 b1={"hang": True})  # fmt: skip
    proc = spawn_collab(debate_args(rounds=N, opening="blind"), tmp_path)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, N)
    # A finished (and was saved) while B still thinks; then Ctrl-C.
    assert wait_until(lambda: _turns_saved(fake_agent) >= 1, WAIT)
    proc.proc.send_signal(signal.SIGINT)
    assert proc.wait() == 130, proc.err
    run_id = _only_run_id()
    state = read_state(run_id)
    assert state.status == "interrupted"
    assert [(t.round_no, t.side) for t in state.turns] == [(1, "A")]
    hung = [c["pid"] for c in turn_calls(fake_agent.calls(), "B", 1, N)]

    def stat(p: object) -> str:
        try:
            return Path(f"/proc/{p}/stat").read_text()
        except OSError:
            return "gone"

    assert wait_until(lambda: not any(pid_alive(int(p)) for p in hung), 10), (
        [stat(p) for p in hung],
        proc.err,
        fake_agent.calls(),
    )

    blind_script(fake_agent, a1=say("A MUST NOT RUN AGAIN"), b1=say("OPENING-B late",
                 new=[("Revocation", "ev-b")]))  # fmt: skip
    (tmp_path / "again").mkdir()
    resumed = spawn_collab(["resume", run_id, "--json"], tmp_path / "again")
    spawned.append(resumed)
    assert resumed.wait() == 0, resumed.err
    state = read_state(run_id)
    assert state.status == "done"
    assert turn_calls(fake_agent.calls(), "A", 1, N) == []  # only B's round 1 re-ran
    assert len(turn_calls(fake_agent.calls(), "B", 1, N)) == 1
    b1 = state.turn(1, "B")
    assert b1 is not None and b1.prose == "OPENING-B late"
    assert [(i.id, i.raised_by) for i in state.ledger().issues] == [("I1", "A"), ("I2", "B")]


def test_a_pane_killed_in_the_blind_round_is_recreated(
    tmux: Server, fake_agent: FakeAgent, tmp_path: Path, spawned: list[Spawned]
) -> None:
    tmux.new_session(session_name="keepalive")
    slow_b = say("PANE-KILLED", new=[("Lost", "never")], sleep=60)
    blind_script(fake_agent, b1=slow_b)
    fake_agent.script(
        [JUDGE_OK, turn_rule("A", 1, N, say("OPENING-A", new=[("S", "e")], sleep=2.0)),
         turn_rule("B", 1, N, slow_b, say("OPENING-B again", new=[("R", "e")])),
         turn_rule("A", 2, N, LATER), turn_rule("B", 2, N, LATER)],
        "unmatched prompt",
    )  # fmt: skip
    proc = spawn_collab(debate_args(rounds=N, opening="blind", timeout=90), tmp_path)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, N)
    ours = [p for p in panes(tmux) if p.session.startswith("collab-")]
    assert len(ours) == 2, ours  # A and B side by side in the run's window
    assert len({p.window for p in ours}) == 1
    b_pane = ours[-1].pane_id
    tmux.cmd("kill-pane", "-t", b_pane)
    assert proc.wait() == 0, proc.err
    state = read_state(json.loads(proc.out)["run_id"])
    b1 = state.turn(1, "B")
    assert b1 is not None and b1.prose == "OPENING-B again" and b1.meta.pane_restarts == 1
    assert state.status == "done" and state.rounds_done() == N
    assert collab_sessions(tmux) == []


def _only_run_id() -> str:
    from collab.store import runs_dir

    (run,) = [p for p in runs_dir().iterdir() if p.is_dir()]
    return run.name


def _turns_saved(fake: FakeAgent) -> int:
    try:
        return len(read_state(_only_run_id()).turns)
    except Exception:  # not written yet, or being replaced
        return 0
