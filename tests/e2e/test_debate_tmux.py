"""Whole debates through a real tmux server (libtmux's isolated ``server``) and a fake agent.

The fake agent (tests/fakes/fake_agent.py) answers by prompt substrings, so a rule that
also names a *probe* substring tells us, through the calls log, whether that text was
in the prompt: e.g. Role B's round-1 prompt is answered by the rule that requires Role
A's round-1 prose, never by the rule that requires A's json block.

The helpers and fixtures at the top are shared with tests/test_faults.py and
tests/test_resume.py (the fixtures are imported there as ``*_fixture`` and used by name).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from libtmux import Server

from collab.ledger import ledger_to_dict
from collab.prompts import Prompts
from collab.state import RunState
from collab.store import RunDir, runs_dir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, wait_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# -- prompt markers ----------------------------------------------------------------------

ROLE_MARK = {"A": "(Role A) in a structured debate", "B": "(Role B) in a structured debate"}
JUDGE_MARK = "neutral judge"
REASK_MARK = "did not end with a valid json block"
TOPIC = "JWT vs server-side sessions for a web app"
WAIT = 60.0  # generous deadline for anything a loaded 2-core machine must get done
# The pane's title while Role A (the default "Advocate") speaks through the fake agent.
SEAT_A_TITLE = "A · Advocate · fake"

Stance = tuple[str, str, str]
Point = tuple[str, str]


def round_mark(r: int, n: int) -> str:
    return f"This is round {r} of {n}"


def say(
    prose: str,
    *,
    new: Sequence[Point] = (),
    stances: Sequence[Stance] = (),
    abstain: str | None = None,
    cost: float | None = None,
    sleep: float | None = None,
    wait_file: Path | None = None,
) -> dict[str, object]:
    """One fake reply: prose followed by the json contract block (``wait_file``: given
    only once that file exists — a gate the test opens once it has looked)."""
    action: dict[str, object] = {"text": prose + contract_block(list(new), list(stances), abstain)}
    if cost is not None:
        action["cost_usd"] = cost
    if sleep is not None:
        action["sleep"] = sleep
    if wait_file is not None:
        action["wait_file"] = str(wait_file)
    return action


def turn_rule(
    side: str, r: int, n: int, *replies: object, probe: Sequence[str] = ()
) -> dict[str, object]:
    return {"match": [ROLE_MARK[side], round_mark(r, n), *probe], "replies": list(replies)}


def judge_rule(*replies: object) -> dict[str, object]:
    return {"match": [JUDGE_MARK], "replies": list(replies)}


def reask_rule(side: str, *replies: object) -> dict[str, object]:
    return {"match": [ROLE_MARK[side], REASK_MARK], "replies": list(replies)}


Call = dict[str, Any]


def turn_calls(calls: Sequence[Call], side: str, r: int, n: int) -> list[Call]:
    """The fake's calls for one debater turn (the log keeps the prompt's first 200 chars)."""
    return [c for c in calls if ROLE_MARK[side] in c["prompt"] and round_mark(r, n) in c["prompt"]]


def reask_calls(calls: Sequence[Call], side: str) -> list[Call]:
    return [c for c in calls if ROLE_MARK[side] in c["prompt"] and REASK_MARK in c["prompt"]]


def judge_calls(calls: Sequence[Call]) -> list[Call]:
    return [c for c in calls if JUDGE_MARK in c["prompt"]]


# -- running collab ----------------------------------------------------------------------


def debate_args(
    *,
    rounds: int = 3,
    runner: str = "tmux",
    timeout: float = 60,
    as_json: bool = True,
    topic: str = TOPIC,
    extra: Sequence[str] = (),
    opening: str = "sequential",
) -> list[str]:
    """These debates script B answering A in round 1: sequential unless a test says not."""
    args = [
        "debate", topic, "--agent", "fake", "--rounds", str(rounds), "--runner", runner,
        "--timeout", f"{timeout:g}", "--judge-timeout", "60", "--opening", opening, *extra,
    ]  # fmt: skip
    return [*args, "--json"] if as_json else args


def read_state(run_id: str) -> RunState:
    """state.json as resume reads it: through RunState.from_dict."""
    return RunState.from_dict(RunDir(run_id).load())


def run_ids() -> list[str]:
    runs = runs_dir()
    return sorted(p.name for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []


def panel_free(ledger: list[dict[str, object]]) -> list[dict[str, object]]:
    """Ledger items without what panels added (each seat's stances, the tally)."""
    return [{k: v for k, v in i.items() if k not in ("stances", "tally")} for i in ledger]


def assert_each_turn_once(state: RunState) -> None:
    keys = [(t.round_no, t.side) for t in state.turns]
    assert len(keys) == len(set(keys)), f"a turn was recorded twice: {keys}"
    expected = [(r, s) for r in range(1, state.rounds_done() + 1) for s in state.order_of(r)]
    assert keys == expected, keys


@dataclass
class Spawned:
    """``python -m collab ...`` in its own session, output in files."""

    proc: subprocess.Popen[bytes]
    out_path: Path
    err_path: Path

    def wait(self, timeout: float = 120.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise

    @property
    def out(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    @property
    def err(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")


def spawn_collab(
    args: Sequence[str],
    workdir: Path,
    *,
    env: dict[str, str] | None = None,
    unset: Sequence[str] = (),
) -> Spawned:
    full = dict(os.environ)
    full.update(env or {})
    for name in unset:
        full.pop(name, None)
    full.setdefault("COLUMNS", "400")  # one message, one line
    out_path, err_path = workdir / "collab.out", workdir / "collab.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            Cli.argv(*args),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=full,
            start_new_session=True,
        )
    return Spawned(proc, out_path, err_path)


@pytest.fixture(name="spawned")
def spawned_fixture() -> Iterator[list[Spawned]]:
    """Collab processes a test started; killed if the test left one running."""
    started: list[Spawned] = []
    yield started
    for s in started:
        if s.proc.poll() is None:
            os.killpg(s.proc.pid, signal.SIGKILL)
            s.proc.wait()


# -- tmux and temp dirs ---------------------------------------------------------------------


@pytest.fixture(name="tmux")
def tmux_fixture(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """The isolated tmux server, and collab pointed at it."""
    assert server.socket_name
    monkeypatch.setenv("COLLAB_TMUX_SOCKET", server.socket_name)
    return server


@pytest.fixture(name="private_tmp")
def private_tmp_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where collab makes its per-run temp dirs, in this process and in children."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def collab_tmpdirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("collab-*"))


def tmux_lines(server: Server, *args: str) -> list[str]:
    """stdout of a tmux command, or nothing when the server is not running."""
    try:
        res = server.cmd(*args)
    except Exception:
        return []
    return list(res.stdout) if res.returncode == 0 else []


def sessions(server: Server) -> list[str]:
    return tmux_lines(server, "list-sessions", "-F", "#{session_name}")


def collab_sessions(server: Server) -> list[str]:
    return [s for s in sessions(server) if s.startswith("collab-")]


@dataclass(frozen=True)
class PaneInfo:
    session: str
    window: str
    pane_id: str
    title: str


def panes(server: Server) -> list[PaneInfo]:
    fmt = "#{session_name}\t#{window_id}\t#{pane_id}\t#{pane_title}"
    out = []
    for line in tmux_lines(server, "list-panes", "-a", "-F", fmt):
        session, window, pane, title = line.split("\t", 3)
        out.append(PaneInfo(session, window, pane, title))
    return out


def wait_for_calls(fake: FakeAgent, side: str, r: int, n: int, count: int = 1) -> list[Call]:
    assert wait_until(lambda: len(turn_calls(fake.calls(), side, r, n)) >= count, WAIT), (
        f"Role {side} round {r} was never called"
    )
    return turn_calls(fake.calls(), side, r, n)


# -- 1. a full debate -------------------------------------------------------------------------

A_COST = (0.011, 0.012, 0.013)
B_COST = (0.021, 0.022, 0.023)
JUDGE_COST = 0.05
JUDGE_TEXT = "## TL;DR\n- JUDGE-VERDICT: sessions win on revocation, JWT on fan-out.\n" + JUDGE_REST


def full_debate_script() -> list[dict[str, object]]:
    n = 3
    a1 = say(
        "PROSE-A1 Stateless tokens let every node verify a request alone.",
        new=[("Stateless scaling", "ev-a1 no shared session store")],
        cost=A_COST[0],
    )
    b1 = say(
        "PROSE-B1 A token you cannot revoke is a liability.",
        new=[("Revocation lag", "ev-b2 a stolen token lives until expiry"),
             ("Cookie size", "ev-b3 claims bloat every request")],
        stances=[("I1", "contest", "ev-b1 a Redis lookup is 0.2 ms")],
        cost=B_COST[0],
    )  # fmt: skip
    a2 = say(
        "PROSE-A2 Short expiry plus a denylist answers revocation.",
        new=[("Key rotation", "ev-a4 rotating signing keys is routine")],
        stances=[("I2", "agree", "ev-a2 a denylist is needed anyway"),
                 ("I1", "contest", "ev-a1b the store is a single point of failure")],
        cost=A_COST[1],
    )  # fmt: skip
    # Round 2 is B, then A (the last speaker rotates): B cannot yet see A's I4.
    b2 = say(
        "PROSE-B2 Cookie size is not worth fighting over.",
        stances=[("I3", "drop", "ev-b3b compression makes it moot")],
        cost=B_COST[1],
    )  # fmt: skip
    a3 = say(
        "PROSE-A3 Replicated stores fail too; statelessness has no store to fail.",
        stances=[("I1", "contest", "ev-a1c replicas still partition")],
        cost=A_COST[2],
    )
    b3 = say(
        "PROSE-B3 Fine, overlapping keys make rotation safe.",
        stances=[("I4", "agree", "ev-b4c overlap windows solve it")],
        cost=B_COST[2],
    )
    return [
        judge_rule({"text": JUDGE_TEXT, "cost_usd": JUDGE_COST}),
        turn_rule("A", 1, n, a1),
        # Role B's round-1 prompt: the first rule matches only if A's json block leaked,
        # the second only if A's prose is there; the third would mean neither.
        turn_rule("B", 1, n, say("LEAKED"), probe=['"title": "Stateless scaling"']),
        turn_rule("B", 1, n, b1, probe=["PROSE-A1 Stateless tokens"]),
        turn_rule("B", 1, n, say("B-DID-NOT-SEE-A")),
        turn_rule("A", 2, n, a2),
        turn_rule("B", 2, n, b2),
        turn_rule("A", 3, n, a3),
        turn_rule("B", 3, n, b3),
    ]


FULL_LEDGER: list[dict[str, object]] = [
    {"id": "I1", "title": "Stateless scaling", "raised_by": "A", "status": "open",
     "evidence_a": "ev-a1c replicas still partition",
     "evidence_b": "ev-b1 a Redis lookup is 0.2 ms",
     "round_opened": 1, "round_updated": 3, "dropped_by": [], "resolution": None, "reason": ""},
    {"id": "I2", "title": "Revocation lag", "raised_by": "B", "status": "resolved",
     "evidence_a": "ev-a2 a denylist is needed anyway",
     "evidence_b": "ev-b2 a stolen token lives until expiry",
     "round_opened": 1, "round_updated": 2, "dropped_by": [],
     "resolution": "agree", "reason": "ev-a2 a denylist is needed anyway"},
    {"id": "I3", "title": "Cookie size", "raised_by": "B", "status": "dropped",
     "evidence_a": "", "evidence_b": "ev-b3b compression makes it moot",
     "round_opened": 1, "round_updated": 2, "dropped_by": ["B"],
     "resolution": "drop", "reason": "ev-b3b compression makes it moot"},
    {"id": "I4", "title": "Key rotation", "raised_by": "A", "status": "resolved",
     "evidence_a": "ev-a4 rotating signing keys is routine",
     "evidence_b": "ev-b4c overlap windows solve it",
     "round_opened": 2, "round_updated": 3, "dropped_by": [],
     "resolution": "agree", "reason": "ev-b4c overlap windows solve it"},
]  # fmt: skip
# What every issue of this script also has: the default severity, never re-rated, and no
# cite to check (the scripted evidence names no path:line).
FULL_LEDGER = [
    {**issue, "severity": "major", "severity_changes": [], "checks_a": [], "checks_b": []}
    for issue in FULL_LEDGER
]

FULL_PROSE = {
    (1, "A"): "PROSE-A1 Stateless tokens let every node verify a request alone.",
    (1, "B"): "PROSE-B1 A token you cannot revoke is a liability.",
    (2, "A"): "PROSE-A2 Short expiry plus a denylist answers revocation.",
    (2, "B"): "PROSE-B2 Cookie size is not worth fighting over.",
    (3, "A"): "PROSE-A3 Replicated stores fail too; statelessness has no store to fail.",
    (3, "B"): "PROSE-B3 Fine, overlapping keys make rotation safe.",
}


def test_full_three_round_debate(tmux: Server, fake_agent: FakeAgent, cli: Cli) -> None:
    script = full_debate_script()
    fake_agent.script(script, "UNEXPECTED-PROMPT")
    res = cli(*debate_args(rounds=3))
    assert res.code == 0, res.err
    doc = res.json()
    run_id = doc["run_id"]
    state = read_state(run_id)

    # The ledger, exactly as scripted, in state.json and in the --json document.
    assert panel_free(ledger_to_dict(state.ledger())) == FULL_LEDGER
    assert panel_free(doc["ledger"]) == FULL_LEDGER
    assert doc["counts"] == {"open": 1, "resolved": 2, "dropped": 1}
    assert state.status == doc["status"] == "done"
    assert state.stop_reason == doc["stop_reason"] == "max-rounds"
    assert state.rounds_done() == 3 and doc["rounds"] == {"done": 3, "planned": 3}
    assert_each_turn_once(state)

    # Prose without the json block, everywhere.
    for t, turn in zip(state.turns, doc["turns"], strict=True):
        assert t.status == turn["status"] == "ok"
        assert t.prose == turn["prose"] == FULL_PROSE[(t.round_no, t.side)]
        assert "```" not in t.prose and "new_points" not in t.prose
        assert t.contract is not None
    run_dir = RunDir(run_id).path
    transcript = (run_dir / "transcript.md").read_text(encoding="utf-8")
    judge_md = (run_dir / "judge.md").read_text(encoding="utf-8")
    for prose in FULL_PROSE.values():
        assert prose in transcript
        assert prose in judge_md  # the rounds, folded in <details>
    assert "JUDGE-VERDICT" in transcript and "JUDGE-VERDICT" in judge_md
    assert "new_points" not in transcript and "```json" not in transcript
    # The Judge skipped the open I1: collab names it under the summary (DESIGN §7).
    skipped = "\n\n> Open, but not covered by the Judge's summary: I1 (Stateless scaling)."
    assert doc["judge"] == {"markdown": JUDGE_TEXT.strip() + skipped, "fallback": False}
    assert doc["paths"]["transcript"] == str(run_dir / "transcript.md")
    assert doc["resume"] is None

    # Role B saw A's prose but not A's json block (which rule answered tells).
    calls = fake_agent.calls()
    (b1_call,) = turn_calls(calls, "B", 1, 3)
    assert b1_call["rule"] == 3, "B's prompt lacked A's prose or held A's json block"
    assert len(judge_calls(calls)) == 1
    assert len(calls) == 7  # six turns and the judge: no retry, no re-ask

    # Per-turn cost, summed by side and in total.
    by_turn = {(t["round"], t["side"]): t["cost_usd"] for t in doc["turns"]}
    for r in (1, 2, 3):
        assert by_turn[(r, "A")] == pytest.approx(A_COST[r - 1])
        assert by_turn[(r, "B")] == pytest.approx(B_COST[r - 1])
    assert doc["cost_usd_by_role"]["A"] == pytest.approx(sum(A_COST))
    assert doc["cost_usd_by_role"]["B"] == pytest.approx(sum(B_COST))
    assert doc["cost_usd"] == pytest.approx(sum(A_COST) + sum(B_COST) + JUDGE_COST)
    assert state.cost_usd() == pytest.approx(doc["cost_usd"])
    assert doc["tokens"]["input"] == 700 and doc["tokens"]["output"] == 350


# -- 2. early convergence -----------------------------------------------------------------------


def test_converges_early_when_every_issue_is_resolved(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 3
    fake_agent.script(
        [
            judge_rule("## TL;DR\n- agreed" + JUDGE_REST),
            turn_rule("A", 1, n, say("A1", new=[("Latency", "p99 is 40 ms")])),
            turn_rule(
                "B",
                1,
                n,
                say(
                    "B1",
                    new=[("Cost", "two more nodes")],
                    stances=[("I1", "contest", "p99 is 90 ms")],
                ),
            ),
            turn_rule("A", 2, n, say("A2", stances=[("I2", "agree", "the nodes are cheap")])),
            turn_rule("B", 2, n, say("B2", stances=[("I1", "agree", "your benchmark holds")])),
        ],
        "UNEXPECTED-PROMPT",
    )
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    state = read_state(res.json()["run_id"])
    assert state.stop_reason == "converged-early"
    assert "resolved" in state.stop_detail
    assert state.rounds_done() == 2 and len(state.turns) == 4
    assert [i.status for i in state.ledger().issues] == ["resolved", "resolved"]
    calls = fake_agent.calls()
    assert not turn_calls(calls, "A", 3, n) and not turn_calls(calls, "B", 3, n)
    assert len(judge_calls(calls)) == 1


def test_converges_early_when_two_rounds_bring_no_new_points(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 4
    fake_agent.script(
        [
            judge_rule("## TL;DR\n- nothing to settle" + JUDGE_REST),
            {"match": [ROLE_MARK["A"]], "replies": [say("A has nothing new")]},
            {"match": [ROLE_MARK["B"]], "replies": [say("B has nothing new")]},
        ],
        "UNEXPECTED-PROMPT",
    )
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    doc = res.json()
    state = read_state(doc["run_id"])
    assert state.stop_reason == doc["stop_reason"] == "converged-early"
    assert "no new points in rounds 1 and 2" in state.stop_detail
    assert state.rounds_done() == 2 and state.ledger().issues == ()
    assert len(fake_agent.calls()) == 5


# -- 3. circular -> one new angle, then circular-break ------------------------------------------


def test_circular_debate_gets_one_new_angle_then_breaks(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 6
    # Stuck for rounds 1-3, so the angle for round 4 is angles.toml's third entry.
    angle = Prompts("en").angle(2)
    rules: list[dict[str, object]] = [judge_rule("## TL;DR\n- they went in circles" + JUDGE_REST)]
    for r in range(1, n + 1):
        # Same evidence on I1 every round, but a new point each round: never "quiet".
        if r == 1:
            a = say("A1 opens", new=[("Core dispute", "same A evidence")])
        else:
            a = say(
                f"A{r} same argument",
                new=[(f"Point {r}", f"fresh evidence {r}")],
                stances=[("I1", "contest", "same A evidence")],
            )
        b = say(f"B{r} same rebuttal", stances=[("I1", "contest", "same B evidence")])
        for side, reply in (("A", a), ("B", b)):
            # The probe rule answers only when the angle is in the prompt.
            rules.append(turn_rule(side, r, n, reply, probe=[angle]))
            rules.append(turn_rule(side, r, n, reply))
    fake_agent.script(rules, "UNEXPECTED-PROMPT")
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    doc = res.json()
    state = read_state(doc["run_id"])

    assert state.stop_reason == doc["stop_reason"] == "circular-break"
    assert state.rounds_done() == 4
    assert state.angle is not None
    assert state.angle.round_no == 4 and state.angle.text == angle
    assert state.angle.issue_ids == ("I1",)
    calls = fake_agent.calls()
    with_angle = []
    for r in range(1, 5):
        for side in ("A", "B"):
            (call,) = turn_calls(calls, side, r, n)
            probe_rule = 1 + 4 * (r - 1) + (0 if side == "A" else 2)
            if call["rule"] == probe_rule:
                with_angle.append((r, side))
    assert with_angle == [(4, "A"), (4, "B")], "the angle must be in round 4's prompts only"
    assert not turn_calls(calls, "A", 5, n)
    transcript = (RunDir(state.run_id).path / "transcript.md").read_text(encoding="utf-8")
    assert angle in transcript


# -- 4. the pane, and what is left afterwards ------------------------------------------------------


def test_turns_run_in_a_titled_pane_that_is_gone_afterwards(
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    n = 2
    gate = tmp_path / "let-a-answer"  # A answers only once the test has seen its pane
    fake_agent.script(
        [
            judge_rule("## TL;DR\n- fine" + JUDGE_REST),
            turn_rule("A", 1, n, say("A1 gated", new=[("Point", "evidence")], wait_file=gate)),
        ],
        say("others", stances=[("I1", "contest", "no")]),
    )
    proc = spawn_collab(debate_args(rounds=n), tmp_path)
    spawned.append(proc)

    def titled() -> list[PaneInfo]:
        return [p for p in panes(tmux) if p.session.startswith("collab-")]

    # The pane is titled by the seat and agent that speak in it (A's turn is slow).
    assert wait_until(lambda: [p.title for p in titled()] == [SEAT_A_TITLE], WAIT), titled()
    seen = titled()
    temp_dirs = collab_tmpdirs(private_tmp)
    assert len(temp_dirs) == 1
    assert temp_dirs[0].stat().st_mode & 0o777 == 0o700

    gate.touch()
    assert proc.wait() == 0, proc.err
    doc = json.loads(proc.out)
    assert seen[0].session == f"collab-{doc['run_id']}"
    assert collab_sessions(tmux) == []
    assert titled() == []
    assert collab_tmpdirs(private_tmp) == []
    assert doc["status"] == "done"


# -- 5. inside the user's tmux: split the current window ----------------------------------------


def test_inside_tmux_the_debate_splits_the_current_window(
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    n = 2
    # Wide enough for the split rule (the user keeps 80 columns, the seats 40 each).
    host = tmux.new_session(session_name="host", x=200, y=50)
    host_pane = host.active_window.active_pane
    assert host_pane is not None and host_pane.pane_id is not None
    window = host.active_window.window_id
    (socket_path,) = tmux_lines(tmux, "display-message", "-p", "#{socket_path}")
    gate = tmp_path / "let-a-answer"  # A answers only once the test has seen the split
    fake_agent.script(
        [
            judge_rule("## TL;DR\n- fine" + JUDGE_REST),
            turn_rule("A", 1, n, say("A1 gated", new=[("Point", "evidence")], wait_file=gate)),
        ],
        say("others", stances=[("I1", "contest", "no")]),
    )
    proc = spawn_collab(
        debate_args(rounds=n),
        tmp_path,
        env={"TMUX": f"{socket_path},{os.getpid()},0", "TMUX_PANE": host_pane.pane_id},
        unset=["COLLAB_TMUX_SOCKET"],
    )
    spawned.append(proc)

    def in_window() -> list[PaneInfo]:
        return [p for p in panes(tmux) if p.window == window]

    def split() -> list[PaneInfo]:
        return [p for p in in_window() if p.pane_id != host_pane.pane_id]

    assert wait_until(lambda: [p.title for p in split()] == [SEAT_A_TITLE], WAIT), (
        f"the window was not split: {in_window()}"
    )
    assert collab_sessions(tmux) == []  # no detached session when inside tmux

    gate.touch()
    assert proc.wait() == 0, proc.err
    assert json.loads(proc.out)["status"] == "done"
    assert [p.pane_id for p in in_window()] == [host_pane.pane_id]
    assert sessions(tmux) == ["host"]
    assert collab_tmpdirs(private_tmp) == []


# -- 6. the subprocess runner gives the same ledger ----------------------------------------


def test_subprocess_runner_gives_the_same_ledger_as_tmux(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    ledgers = {}
    statuses = {}
    for runner in ("tmux", "subprocess"):
        fake_agent.script(full_debate_script(), "UNEXPECTED-PROMPT")  # counters reset
        res = cli(*debate_args(rounds=3, runner=runner))
        assert res.code == 0, res.err
        doc = res.json()
        ledgers[runner] = panel_free(doc["ledger"])
        statuses[runner] = [(t["round"], t["side"], t["status"], t["prose"]) for t in doc["turns"]]
        assert doc["stop_reason"] == "max-rounds"
    assert ledgers["subprocess"] == ledgers["tmux"] == FULL_LEDGER
    assert statuses["subprocess"] == statuses["tmux"]
    assert collab_sessions(tmux) == []
