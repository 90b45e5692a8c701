"""One three-seat debate end to end in a real tmux server with the fake agent: the blind
round's three panes at once, SIGKILL with one of three seats done and resume re-running
exactly the other two, the rotating last speaker recorded per round, an absent seat."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest
from libtmux import Server

from tests.conftest import FakeAgent
from tests.e2e.test_debate_tmux import (
    WAIT,
    Spawned,
    judge_rule,
    panes,
    read_state,
    round_mark,
    run_ids,
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401  (fixture, used by name)
    tmux_fixture,  # noqa: F401
)
from tests.helpers import JUDGE_REST, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

N = 3
ROLES = ("Skeptic: doubts every claim", "Builder: wants it shipped", "Operator: runs it")
MARK = {s: f"(Role {s}) in a structured debate" for s in "ABC"}
JUDGE = judge_rule("## TL;DR\n- the panel weighed it." + JUDGE_REST)
FAIL = {"exit": 1, "stderr": "boom"}


def rule(seat: str, r: int, *replies: object) -> dict[str, object]:
    return {"match": [MARK[seat], round_mark(r, N)], "replies": list(replies)}


def calls(fake: FakeAgent, seat: str, r: int) -> list[dict[str, object]]:
    return [c for c in fake.calls() if MARK[seat] in str(c["prompt"])
            and round_mark(r, N) in str(c["prompt"])]  # fmt: skip


def later(seat: str) -> dict[str, object]:
    return say(f"{seat} argues on", stances=[("I1", "contest", f"{seat} holds")])


def test_three_seats_blind_sigkill_resume_rotation_and_an_absent_seat(
    tmux: Server, fake_agent: FakeAgent, tmp_path: Path, spawned: list[Spawned]
) -> None:
    tmux.new_session(session_name="keepalive")
    fake_agent.script(
        [JUDGE, rule("A", 1, say("OPENING-A", new=[("Stateless", "ev-a")])),
         rule("B", 1, {"hang": True}), rule("C", 1, {"hang": True})],
        "unmatched prompt",
    )  # fmt: skip
    args = ["debate", "Tabs or spaces?", *(x for r in ROLES for x in ("--role", r)),
            "--agent", "fake", "--rounds", str(N), "--runner", "tmux", "--timeout", "60",
            "--judge-timeout", "60", "--json"]  # fmt: skip
    first = spawn_collab(args, tmp_path)
    spawned.append(first)
    # Every seat of the blind round runs at once, one pane each, in the run's window.
    assert wait_until(lambda: all(calls(fake_agent, s, 1) for s in "ABC"), WAIT), first.err
    ours = [p for p in panes(tmux) if p.session.startswith("collab-")]
    assert len(ours) == 3 and len({p.window for p in ours}) == 1, ours

    def saved() -> int:
        try:
            return len(read_state(run_ids()[0]).turns)
        except Exception:  # not written yet, or being replaced
            return 0

    assert wait_until(lambda: saved() == 1, WAIT), first.err
    first.proc.send_signal(signal.SIGKILL)  # mid blind round: A done, B and C unfinished
    first.proc.wait()
    (run_id,) = run_ids()
    assert [(t.round_no, t.side) for t in read_state(run_id).turns] == [(1, "A")]

    fake_agent.script(
        [JUDGE, rule("A", 1, say("A MUST NOT RUN AGAIN")),
         rule("B", 1, say("OPENING-B", new=[("Revocation", "ev-b")])),
         rule("C", 1, say("OPENING-C", new=[("Pager duty", "ev-c")])),
         rule("A", 2, later("A")), rule("B", 2, later("B")), rule("C", 2, FAIL, FAIL),
         rule("A", 3, later("A")), rule("B", 3, later("B")), rule("C", 3, later("C"))],
        "unmatched prompt",
    )  # fmt: skip
    (tmp_path / "again").mkdir()
    resumed = spawn_collab(["resume", run_id, "--json"], tmp_path / "again")
    spawned.append(resumed)
    assert resumed.wait() == 0, resumed.err
    doc = json.loads(resumed.out)
    assert doc["schema"] == "collab.result/2" and [s["label"] for s in doc["seats"]] == list("ABC")
    # The resume re-ran exactly the two unfinished seats of round 1 (a new script: a new log).
    assert calls(fake_agent, "A", 1) == []
    assert len(calls(fake_agent, "B", 1)) == 1 and len(calls(fake_agent, "C", 1)) == 1
    state = read_state(run_id)
    assert state.status == "done" and state.rounds_done() == N
    # The last speaker rotates: round 2 ends with A, round 3 with B; recorded per round.
    assert state.order_of(2) == ("B", "C", "A") and state.order_of(3) == ("C", "A", "B")
    assert [t.side for t in state.turns if t.round_no == 2] == ["B", "C", "A"]
    # C failed round 2 twice: absent for it, and every view says so.
    assert state.answered(2) == ("A", "B") and state.answered(3) == ("A", "B", "C")
    transcript = (Path(doc["paths"]["transcript"])).read_text(encoding="utf-8")
    assert "## Round 2 · B, C, A · 2 of 3 seats answered" in transcript
    assert doc["seats_answered"][1] == ["A", "B"]
