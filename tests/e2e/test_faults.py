"""The fault list (DESIGN §4, §8, §11): each test injects its fault for real.

F1 hang, F2 non-zero exit, F3 empty reply, F4 bad contract, F5 pane killed, F6 tmux
server killed, F7 SIGINT/SIGTERM, F8 SIGKILL + resume, F11 time budget; then a judge
that fails twice and a run where every turn fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest
from libtmux import Server

from collab.state import RunState
from collab.store import RunDir
from tests.conftest import Cli, FakeAgent, contract_block
from tests.e2e.test_debate_tmux import (
    WAIT,
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
    sessions,
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

JUDGE_SAID = "## TL;DR\n- JUDGE-SUMMARY all said" + JUDGE_REST
JUDGE_OK = judge_rule(JUDGE_SAID)
# Any debater turn no rule names: a valid reply that keeps one issue open.
KEEP_OPEN = say("keeps arguing", stances=[("I1", "contest", "still disagree")])


def opener(side: str, r: int, n: int) -> dict[str, object]:
    return turn_rule(side, r, n, say(f"{side}{r} opens", new=[(f"Point {side}{r}", "evidence")]))


def pids(calls: list[dict[str, object]]) -> list[int]:
    out = []
    for c in calls:
        pid = c["pid"]
        assert isinstance(pid, int)
        out.append(pid)
    return out


def all_dead(pid_list: list[int]) -> bool:
    return not any(pid_alive(p) for p in pid_list)


def only_run_id() -> str:
    ids = run_ids()
    assert len(ids) == 1, ids
    return ids[0]


def wait_for_run_id() -> str:
    assert wait_until(lambda: len(run_ids()) == 1, WAIT)
    return only_run_id()


def state_turns(run_id: str) -> int:
    try:
        return len(read_state(run_id).turns)
    except Exception:  # not written yet, or being replaced
        return 0


class PidfileWatch:
    """Collects every pid written to ``path`` while the block runs (it is overwritten)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pids: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.005):
            self._read()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.pids.add(int(self.path.read_text()))

    def __enter__(self) -> set[int]:
        self._thread.start()
        return self.pids

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read()


# -- F1 the agent hangs ----------------------------------------------------------------------


@pytest.mark.parametrize("runner", ["tmux", "subprocess"])
def test_f1_hanging_agent_is_killed_with_its_group_retried_once_then_timeout(
    tmux: Server,
    fake_agent: FakeAgent,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    runner: str,
) -> None:
    n = 2
    child_pidfile = tmp_path / "grandchild.pid"
    monkeypatch.setenv("COLLAB_FAKE_CHILD_PIDFILE", str(child_pidfile))
    fake_agent.script(
        [
            JUDGE_OK,
            # Round 2 (B, then A): a seat failing round 1 alone would stop the run with
            # too-few-seats, so the fault is A's last turn.
            opener("A", 1, n),
            opener("B", 1, n),
            turn_rule("A", 2, n, {"hang": True, "hang_with_child": True}),
        ],
        KEEP_OPEN,
    )
    with PidfileWatch(child_pidfile) as grandchildren:
        res = cli(*debate_args(rounds=n, runner=runner, timeout=3))
    assert res.code == 0, res.err
    doc = res.json()
    state = read_state(doc["run_id"])

    calls = fake_agent.calls()
    hung = turn_calls(calls, "A", 2, n)
    assert len(hung) == 2, "a timed-out turn is retried exactly once"
    assert all_dead(pids(hung))
    # Each attempt's grandchild (same process group as the agent) died with it.
    assert len(grandchildren) == 2, grandchildren
    assert wait_until(lambda: all_dead(sorted(grandchildren)), 10), "a grandchild survived"

    t = state.turn(2, "A")
    assert t is not None
    assert (t.status, t.prose, t.meta.attempts) == ("timeout", "(timeout)", 2)
    assert t.contract is None
    # ... and the debate went on to the end, with the judge.
    assert state.stop_reason == "max-rounds" and state.rounds_done() == n
    assert_each_turn_once(state)
    assert [x.status for x in state.turns] == ["ok", "ok", "ok", "timeout"]
    assert state.judge is not None and not state.judge.fallback
    assert "JUDGE-SUMMARY" in state.judge.text
    assert len(judge_calls(calls)) == 1


# -- F2 non-zero exit with stderr -----------------------------------------------------------------

ERR_LINES = [f"err-line-{i}: upstream said no" for i in range(1, 8)]


def test_f2_nonzero_exit_shows_five_lines_retries_once_then_records_error(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE_OK,
            opener("A", 1, n),
            opener("B", 1, n),
            turn_rule("A", 2, n, {"exit": 3, "stderr": "\n".join(ERR_LINES) + "\n"}),
        ],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n, as_json=False))
    assert res.code == 0, res.err
    for line in ERR_LINES[:5]:
        assert line in res.err
    for line in ERR_LINES[5:]:
        assert line not in res.err
    assert "retrying once" in res.err

    state = read_state(only_run_id())
    t = state.turn(2, "A")
    assert t is not None
    assert (t.status, t.prose, t.meta.attempts, t.meta.exit_code) == ("error", "(error)", 2, 3)
    assert t.meta.error == "\n".join(ERR_LINES[:5])
    assert len(turn_calls(fake_agent.calls(), "A", 2, n)) == 2
    assert state.status == "done" and state.rounds_done() == n
    assert [x.status for x in state.turns] == ["ok", "ok", "ok", "error"]
    assert state.judge is not None and not state.judge.fallback


# -- F3 exit 0, empty reply ----------------------------------------------------------------


def test_f3_empty_reply_retries_once_then_no_response(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script(
        [JUDGE_OK, opener("A", 1, n), opener("B", 1, n), turn_rule("A", 2, n, {"empty": True})],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    state = read_state(res.json()["run_id"])
    t = state.turn(2, "A")
    assert t is not None
    assert (t.status, t.prose, t.meta.attempts) == ("no-response", "(no response)", 2)
    assert len(turn_calls(fake_agent.calls(), "A", 2, n)) == 2
    assert state.status == "done" and state.rounds_done() == n
    assert res.json()["turns"][3]["prose"] == "(no response)"


# -- F4 the contract block is invalid ------------------------------------------------------------

# Past what json-repair can mend into a contract: a list, cut off.
BAD_BLOCK = '\n\n```json\n["Broken", \n```\n'


def test_f4_contract_invalid_twice_leaves_ledger_unchanged_with_a_warning(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE_OK,
            reask_rule("A", {"text": "```json\n{still: not json}\n```\n"}),
            turn_rule("A", 1, n, {"text": "PROSE-A1 argues well" + BAD_BLOCK}),
            opener("B", 1, n),
        ],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n, as_json=False))
    assert res.code == 0, res.err
    assert "unusable twice" in res.err  # shown to the user
    state = read_state(only_run_id())
    t = state.turn(1, "A")
    assert t is not None
    assert t.status == "ok" and t.prose == "PROSE-A1 argues well"
    assert t.contract is None and t.contract_error
    assert t.reask is not None
    assert any("unusable twice" in w and "ledger unchanged" in w for w in t.warnings)
    # Nothing of A's broken block in the ledger: B's point is I1.
    assert [(i.id, i.title, i.raised_by) for i in state.ledger().issues] == [
        ("I1", "Point B1", "B")
    ]
    assert len(reask_calls(fake_agent.calls(), "A")) == 1
    assert state.status == "done" and state.rounds_done() == n
    doc = json.loads(cli("show", state.run_id, "--json").out)
    assert any("unusable twice" in w for w in doc["turns"][0]["warnings"])


def test_f4_contract_invalid_once_then_valid_reask_updates_the_ledger(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE_OK,
            reask_rule("A", contract_block(new=[("From the re-ask", "ev-reask")]).strip()),
            turn_rule("A", 1, n, {"text": "PROSE-A1 argues well" + BAD_BLOCK}),
            turn_rule("B", 1, n, say("B1", stances=[("I1", "contest", "ev-b")])),
        ],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    state = read_state(res.json()["run_id"])
    t = state.turn(1, "A")
    assert t is not None
    assert t.prose == "PROSE-A1 argues well" and t.warnings == ()
    assert t.contract is not None and t.reask is not None and t.contract_error is None
    (issue,) = state.ledger(upto_round=1).issues
    assert (issue.id, issue.title, issue.raised_by) == ("I1", "From the re-ask", "A")
    assert (issue.evidence_a, issue.evidence_b) == ("ev-reask", "ev-b")
    assert len(reask_calls(fake_agent.calls(), "A")) == 1


# -- F5 the pane is killed mid-turn --------------------------------------------------------------


def test_f5_pane_killed_mid_turn_is_recreated_and_the_turn_rerun(
    tmux: Server, fake_agent: FakeAgent, tmp_path: Path, spawned: list[Spawned]
) -> None:
    n = 2
    tmux.new_session(session_name="keepalive")  # keeps the server up when the pane goes
    first = say("PANE-KILLED reply", new=[("Lost", "never recorded")], sleep=60)
    fake_agent.script(
        [
            JUDGE_OK,
            turn_rule("A", 1, n, first, say("A1 rerun", new=[("Point A1", "evidence")])),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=n, timeout=90), tmp_path)
    spawned.append(proc)
    (call,) = wait_for_calls(fake_agent, "A", 1, n)
    (pane,) = [p for p in panes(tmux) if p.session.startswith("collab-")]
    tmux.cmd("kill-pane", "-t", pane.pane_id)

    assert proc.wait() == 0, proc.err
    state = read_state(json.loads(proc.out)["run_id"])
    t = state.turn(1, "A")
    assert t is not None
    assert t.status == "ok" and t.prose == "A1 rerun"
    assert t.meta.pane_restarts == 1
    assert len(turn_calls(fake_agent.calls(), "A", 1, n)) == 2
    assert all_dead(pids([call]))
    assert_each_turn_once(state)
    assert state.status == "done" and state.rounds_done() == n
    assert "PANE-KILLED" not in json.dumps(state.to_dict())
    assert collab_sessions(tmux) == [] and sessions(tmux) == ["keepalive"]


# -- F6 the tmux server is killed mid-turn ---------------------------------------------------------


def test_f6_tmux_server_killed_fails_resumably_then_resume_completes(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE_OK,
            opener("A", 1, n),
            turn_rule("B", 1, n, say("B-LOST", sleep=60), say("B1 again")),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=n, timeout=90, as_json=False), tmp_path)
    spawned.append(proc)
    (lost_call,) = wait_for_calls(fake_agent, "B", 1, n)
    tmux.kill()

    assert proc.wait() == 1, proc.err
    run_id = only_run_id()
    lines = [ln for ln in proc.err.splitlines() if "collab resume" in ln]
    assert len(lines) == 1, proc.err
    assert f"collab resume {run_id}" in lines[0] and "tmux" in lines[0]
    state = read_state(run_id)
    assert state.status == "failed" and state.error and "tmux" in state.error
    assert [(t.round_no, t.side) for t in state.turns] == [(1, "A")]
    assert wait_until(lambda: all_dead(pids([lost_call])), 10)

    # A fresh server (started on demand on the same socket) and resume.
    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    assert res.json()["run_id"] == run_id
    state = read_state(run_id)
    assert state.status == "done" and state.rounds_done() == n
    assert_each_turn_once(state)
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, n)) == 1, "a saved turn was asked again"
    assert len(turn_calls(calls, "B", 1, n)) == 2
    b1 = state.turn(1, "B")
    assert b1 is not None and b1.prose == "B1 again"
    assert collab_sessions(tmux) == []


# -- F7 SIGINT and SIGTERM -------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_f7_signal_mid_turn_interrupts_cleanly_and_resume_finishes(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
    sig: signal.Signals,
) -> None:
    n = 2
    fake_agent.script(
        [
            JUDGE_OK,
            opener("A", 1, n),
            turn_rule("B", 1, n, say("B-INTERRUPTED", sleep=60), say("B1 again")),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=n, timeout=90, as_json=False), tmp_path)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, n)
    assert collab_sessions(tmux), "the debate runs in a collab session"
    assert collab_tmpdirs(private_tmp)
    os.kill(proc.proc.pid, sig)

    assert proc.wait() == 130, proc.err
    run_id = only_run_id()
    assert f"collab resume {run_id}" in proc.err
    agents = pids(fake_agent.calls())
    assert wait_until(lambda: all_dead(agents), 10), "an agent outlived the interrupt"
    assert collab_sessions(tmux) == []
    assert [p for p in panes(tmux) if p.session.startswith("collab-")] == []
    assert collab_tmpdirs(private_tmp) == []
    state = read_state(run_id)
    assert state.status == "interrupted"
    assert [(t.round_no, t.side) for t in state.turns] == [(1, "A")]

    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    state = read_state(run_id)
    assert state.status == "done" and state.rounds_done() == n
    assert_each_turn_once(state)
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, n)) == 1
    assert "B-INTERRUPTED" not in json.dumps(state.to_dict())
    assert collab_tmpdirs(private_tmp) == []


# -- F8 SIGKILL of the orchestrator, then resume --------------------------------------------------


def test_f8_sigkill_mid_turn_then_resume_loses_and_repeats_nothing(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    """Mutant killed: with the ``reap_stale`` call in ``Orchestrator._run`` removed, the
    orphan (which would answer only after a minute) outlives the resume and the killed
    run's temp dir is left behind; both are checked here, right after the resume."""
    n = 2
    orphan_reply = say(
        "ORPHAN-B1 answered after its orchestrator died",
        new=[("Orphan point", "must never reach the ledger")],
        sleep=90,
    )
    fake_agent.script(
        [JUDGE_OK, opener("A", 1, n), turn_rule("B", 1, n, orphan_reply, say("B1 resumed"))],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=n, timeout=120), tmp_path)
    spawned.append(proc)
    (orphan_call,) = wait_for_calls(fake_agent, "B", 1, n)
    os.kill(proc.proc.pid, signal.SIGKILL)
    proc.wait()
    run_id = only_run_id()
    before = read_state(run_id)
    assert before.status == "running"  # as the killed process left it
    assert [(t.round_no, t.side) for t in before.turns] == [(1, "A")]
    assert before.temp_dir is not None
    stale = Path(before.temp_dir)
    assert collab_tmpdirs(private_tmp) == [stale]
    (orphan,) = pids([orphan_call])
    assert pid_alive(orphan), "the orphan must still be running when the resume starts"

    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    assert res.json()["run_id"] == run_id
    # The resume stopped the orphan (it would sleep on for a minute) and removed its dir.
    assert wait_until(lambda: not pid_alive(orphan), 5), "the orphaned agent was not stopped"
    assert not stale.exists(), "the killed run's temp dir was left behind"
    assert collab_tmpdirs(private_tmp) == []
    state = read_state(run_id)
    assert state.status == "done" and state.rounds_done() == n
    assert_each_turn_once(state)
    assert "ORPHAN" not in RunDir(run_id).state_path.read_text(encoding="utf-8")
    assert [i.title for i in state.ledger().issues] == ["Point A1"]
    calls = fake_agent.calls()
    assert len(turn_calls(calls, "A", 1, n)) == 1, "a saved turn was asked again"
    assert len(turn_calls(calls, "B", 1, n)) == 2
    assert len(judge_calls(calls)) == 1
    assert collab_sessions(tmux) == []


def test_f8_sigkill_between_turns_then_resume_loses_and_repeats_nothing(
    no_agent_processes: None,
    tmux: Server,
    fake_agent: FakeAgent,
    private_tmp: Path,
    tmp_path: Path,
    spawned: list[Spawned],
    cli: Cli,
) -> None:
    n = 2
    gate = tmp_path / "let-a-answer"  # A answers once B's prompt file is a FIFO
    fake_agent.script(
        [
            JUDGE_OK,
            turn_rule("A", 1, n, say("A1", new=[("Point A1", "evidence")], wait_file=gate)),
        ],
        KEEP_OPEN,
    )
    proc = spawn_collab(debate_args(rounds=n, timeout=90), tmp_path)
    spawned.append(proc)
    # Hold the orchestrator between A's turn and B's: B's prompt file is a FIFO no one
    # reads, so writing it blocks once A's turn is saved, before B's agent can start.
    assert wait_until(lambda: bool(collab_tmpdirs(private_tmp)), WAIT)
    (tdir,) = collab_tmpdirs(private_tmp)
    try:
        os.mkfifo(tdir / "r1-B-1.prompt", 0o600)
    except FileExistsError:
        pytest.fail("too late: B's turn was already written")
    gate.touch()
    wait_for_calls(fake_agent, "A", 1, n)
    run_id = wait_for_run_id()
    assert wait_until(lambda: state_turns(run_id) == 1, WAIT)
    os.kill(proc.proc.pid, signal.SIGKILL)
    proc.wait()
    assert not turn_calls(fake_agent.calls(), "B", 1, n)
    assert collab_tmpdirs(private_tmp) == [tdir]

    res = cli("resume", run_id, "--json")
    assert res.code == 0, res.err
    # Mutant killed: without ``reap_stale`` in ``Orchestrator._run`` the killed run's temp
    # dir (with the FIFO in it) is left behind.
    assert not tdir.exists(), "the killed run's temp dir was left behind"
    assert collab_tmpdirs(private_tmp) == []
    state = read_state(run_id)
    assert state.status == "done" and state.rounds_done() == n
    assert_each_turn_once(state)
    calls = fake_agent.calls()
    for r in range(1, n + 1):
        for side in ("A", "B"):
            assert len(turn_calls(calls, side, r, n)) == 1, (r, side)
    assert collab_sessions(tmux) == []


# -- F11 the time budget ---------------------------------------------------------------------------


def test_f11_budget_spent_stops_with_timeout_and_still_judges(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 3
    slow = say("slow but steady", new=[("Slow point", "evidence")], sleep=1.0)
    fake_agent.script([JUDGE_OK], slow)
    res = cli(*debate_args(rounds=n, extra=["--budget", "3"]))
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["status"] == "done"
    assert doc["stop_reason"] == "timeout"
    assert doc["rounds"]["done"] < n
    # The Judge is asked exactly once, budget or not (its own --judge-timeout bounds it),
    # and its answer is the summary: a ledger fallback is not accepted here.
    # Mutant killed: ``Orchestrator._judge`` skipping the call when stop_reason is
    # "timeout" (a fallback summary, no judge call).
    assert len(judge_calls(fake_agent.calls())) == 1
    assert doc["judge"]["fallback"] is False
    assert doc["judge"]["markdown"].startswith("## TL;DR\n- JUDGE-SUMMARY all said")
    judge_md = Path(doc["paths"]["judge"]).read_text(encoding="utf-8")
    assert judge_md.startswith("## TL;DR\n- JUDGE-SUMMARY all said")
    state = read_state(doc["run_id"])
    assert state.judge is not None and state.judge.meta is not None
    assert (state.judge.meta.attempts, state.judge.raw) == (1, JUDGE_SAID)


# -- the judge fails; every turn fails -------------------------------------------------------


def test_judge_failing_twice_falls_back_to_a_ledger_summary(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script(
        [
            judge_rule({"exit": 1, "stderr": "judge exploded"}),
            opener("A", 1, n),
            opener("B", 1, n),
        ],
        KEEP_OPEN,
    )
    res = cli(*debate_args(rounds=n))
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["judge"]["fallback"] is True
    assert len(judge_calls(fake_agent.calls())) == 2
    judge_md = Path(doc["paths"]["judge"]).read_text(encoding="utf-8")
    assert "## TL;DR" in judge_md
    assert "I1" in judge_md and "I2" in judge_md
    assert "Point A1" in judge_md and "Point B1" in judge_md
    state = read_state(doc["run_id"])
    assert state.judge is not None and state.judge.fallback and state.judge.meta is not None
    assert state.judge.meta.attempts == 2


def test_every_turn_failing_fails_the_run_but_keeps_a_summary(
    tmux: Server, fake_agent: FakeAgent, cli: Cli
) -> None:
    n = 2
    fake_agent.script([], {"exit": 1, "stderr": "agent crashed"})
    res = cli(*debate_args(rounds=n))
    assert res.code == 1, res.err
    doc = res.json()
    assert doc["status"] == "failed"
    assert "every turn failed" in (doc["error"] or "")
    assert doc["judge"]["fallback"] is True
    assert "## TL;DR" in Path(doc["paths"]["judge"]).read_text(encoding="utf-8")
    state: RunState = read_state(doc["run_id"])
    assert state.status == "failed"
    assert {t.status for t in state.turns} == {"error"}
    assert all(t.meta.attempts == 2 for t in state.turns)
