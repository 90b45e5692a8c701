"""The readers of a finished panel (3–5 seats): every seat's evidence, checks and cost
reach each of them, not A's and B's only. In-process runs, no processes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from click.testing import CliRunner

from collab.evidence import EvidenceCheck
from collab.report.adr import adr_markdown
from collab.report.documents import result_document
from collab.report.html import render_html
from collab.report.pr_comment import comment_body
from collab.runners.base import TurnJob
from collab.runners.inprocess import Reply
from collab.state import RunState
from collab.store import RunDir
from tests.helpers import whole_command
from tests.unit.test_orchestrator import JUDGE, Run, said, shared
from tests.unit.test_orchestrator import home_in_memory as home_in_memory  # autouse
from tests.unit.test_panels import panel, step_of


def contested(job: TurnJob) -> Reply:
    """Round 1: each seat raises a point; round 2: each seat contests every point with
    evidence of its own. Each turn costs a cent, the Judge two."""
    if job.step.startswith("judge"):
        return Reply(JUDGE, cost_usd=0.02)
    r, seat = step_of(job)
    if r == 1:
        return Reply(said([f"point of seat {seat}"]), cost_usd=0.01)
    stances = [(f"I{i}", "contest", f"EVID-{seat}-I{i}") for i in range(1, 4)]
    return Reply(said([], stances), cost_usd=0.01)


@shared  # driven once per panel size; each test gets a copy in its own home
def _contested_panel(n: int) -> Run:
    return panel(n, contested, rounds=2)


def finished(n: int) -> RunState:
    return _contested_panel(n).state


def test_the_adr_says_what_every_seat_holds_on_an_open_issue() -> None:
    adr = adr_markdown(finished(3))
    change = adr.split("## What Would Change This")[1].split("## More Information")[0]
    line = next(x for x in change.splitlines() if x.startswith("- I1 "))
    for seat in "ABC":
        assert f"seat {seat}: EVID-{seat}-I1" in line, line


def test_the_two_seat_adr_line_is_as_before() -> None:
    from tests.unit.test_orchestrator import debate

    def pair(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        r, seat = step_of(job)
        if r == 1 and seat == "A":
            return said(["the point"])
        return said([], [("I1", "contest", f"E{seat}")])

    adr = adr_markdown(debate(pair, rounds=2).state)
    assert "- I1 the point is still open — seat A: EA; seat B: EB\n" in adr


def test_the_html_report_marks_every_seats_evidence_checks() -> None:
    def cites(job: TurnJob) -> Reply:
        r, seat = (0, "") if job.step.startswith("judge") else step_of(job)
        if r == 2 and seat == "C":
            return Reply(said([], [("I1", "contest", "see gone_c.py:7")]))
        return contested(job)

    state = panel(3, cites, rounds=2).state
    at = next(i for i, t in enumerate(state.turns) if (t.round_no, t.side) == (2, "C"))
    check = EvidenceCheck("gone_c.py:7", None, "no-such-file")
    state.turns[at] = dataclasses.replace(state.turns[at], evidence_checks=(check,))
    assert state.ledger().issues[0].checks("C") == (check,)
    page = render_html(state)
    row = next(x for x in page.splitlines() if '<td class="id">I1</td>' in x)
    assert "see gone_c.py:7" in row and row.count("gone_c.py:7") == 2, row


def test_the_pull_request_comment_counts_every_seats_cost() -> None:
    state = finished(3)
    doc = result_document(state, RunDir(state.run_id))
    body = comment_body(doc, "k")
    assert "A $0.0200 · B $0.0200 · C $0.0200 · judge $0.0200" in body, body.splitlines()[-1]


def test_collab_ask_takes_a_third_seat_on_the_command_line(monkeypatch: Any) -> None:
    """``collab ask ID Q --seat C``: the CLI's own look at --seat (does one answer
    stream?) knows every seat, not A and B only; the run's seats are checked after."""
    import collab.control.steer as steer

    state = finished(3)
    asked: list[str | None] = []
    monkeypatch.setattr(steer, "ask_seats", lambda _id, _q, seat, _sinks: asked.append(seat) or [])
    argv = ["ask", state.run_id, "Which is cheaper?", "--seat", "c"]
    res = CliRunner().invoke(whole_command(), argv)
    assert res.exit_code == 0, res.output
    assert asked == ["c"]


def test_prerequisites_check_every_seats_agent_before_anything_starts() -> None:
    """A third seat's missing CLI is found before the run starts, as A's and B's are
    (not when its first turn is called, after the others have run)."""
    from collab.config import AgentChoice
    from collab.doctor import check_prerequisites
    from collab.errors import PrerequisiteError
    from collab.runners.inprocess import SCRIPTED_AGENT, SCRIPTED_AGENTS
    from tests.unit.test_orchestrator import config
    from tests.unit.test_panels import ROLES

    ghost = dataclasses.replace(SCRIPTED_AGENT, name="ghost", argv=("h-review-no-such-cli",))
    known = {**SCRIPTED_AGENTS, "ghost": ghost}
    cfg = config(role=ROLES[:3], agents=("scripted",))
    ready = check_prerequisites(cfg, known, env={})
    assert set(ready.binaries) == {"scripted"}
    third = dataclasses.replace(cfg, more_agents=(AgentChoice("ghost"),))
    with pytest.raises(PrerequisiteError, match="h-review-no-such-cli"):
        check_prerequisites(third, known, env={})


def test_mcp_bounds_a_panels_unpriced_seats_by_its_calls(tmp_path: Any) -> None:
    """Over MCP, a seat C–E agent with no price is seen like A's (the debate is then
    bounded by calls, not refused for a max_cost the model never gave), and the calls
    count every seat."""
    from collab.errors import UsageError
    from collab.mcp_server.args import McpLimits, debate_request
    from tests.unit.test_panels import ROLES

    def ask(n: int, agents: list[str], max_calls: int) -> Any:
        args = {"topic": "Tabs or spaces?", "role": list(ROLES[:n]), "agents": agents,
                "judge_agent": "claude", "rounds": 3}  # fmt: skip
        return debate_request(args, McpLimits(max_calls=max_calls), tmp_path)

    assert ask(2, ["claude"], 7).max_cost is not None  # priced: capped by cost
    assert ask(3, ["claude", "claude", "llm"], 10).max_cost is None  # 3 × 3 + 1 calls
    with pytest.raises(UsageError, match="3 rounds take 10 agent calls"):
        ask(3, ["claude", "claude", "llm"], 9)
    assert ask(2, ["llm"], 7).max_cost is None  # two seats: 2 × 3 + 1, as before
    with pytest.raises(UsageError, match="3 rounds take 16 agent calls"):
        ask(5, ["llm"], 15)


def test_mcp_refuses_the_command_agent_in_a_seat_list_too(tmp_path: Any) -> None:
    from collab.errors import UsageError
    from collab.mcp_server.args import McpLimits, debate_request
    from tests.unit.test_panels import ROLES

    for agents in (["claude", "claude", "command"], "claude,command"):
        args = {"topic": "Tabs or spaces?", "role": list(ROLES[:3]), "agents": agents}
        with pytest.raises(UsageError, match="not offered over MCP"):
            debate_request(args, McpLimits(), tmp_path)


def test_doctor_checks_every_agent_the_defaults_seat(monkeypatch: Any) -> None:
    """``[defaults] agents = [three]``: collab doctor checks the third seat's agent too."""
    from collab import doctor
    from collab.paths import collab_home

    home = collab_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[defaults]\nagents = ["claude", "claude", "llm"]\n')
    checked: list[list[str]] = []

    def run_checks(_agents: Any, seats: list[str], _live: bool) -> list[Any]:
        checked.append(seats)
        return []

    monkeypatch.setattr(doctor, "run_checks", run_checks)
    CliRunner().invoke(whole_command(), ["doctor", "--json"])
    assert checked and "llm" in checked[0], checked


def run_started(rounds: int, seats: str) -> Any:
    from collab.events import RunStarted

    return RunStarted(
        run_id="r", topic="t", preset="custom", rounds=rounds, runner="in-process",
        attach=None, resumed=False, roles={s: f"Role {s}" for s in seats},
    )  # fmt: skip


def test_the_turns_left_count_every_seat() -> None:
    """The time left (collab status, the heartbeats' estimate), the MCP progress total and
    a running run's "X of Y turns done" count seats × rounds, not 2 × rounds."""
    from collab.control.progress import turns_left
    from collab.eventlog import EventStream
    from collab.events import Logged
    from collab.mcp_server.follow import Tracker

    state = finished(3)  # 2 rounds of 3 seats
    state.stop_reason, state.turns = None, state.turns[:4]
    assert turns_left(state) == 2
    stream = EventStream()
    stream.emit(run_started(2, "ABC"))
    assert stream.turns_left == 6
    stream.emit(run_started(2, "AB"))
    assert stream.turns_left == 4
    tracker = Tracker(2)
    tracker.message(Logged(1, 0.0, run_started(2, "ABCDE")))
    assert tracker.total == 11


def test_a_running_panels_result_says_its_turns(monkeypatch: Any) -> None:
    import collab.control.ops as ops
    from collab.control.ops import RunStillGoing, result_of

    state = finished(3)
    state.status, state.turns = "running", state.turns[:4]
    RunDir(state.run_id).save(state.to_dict())
    monkeypatch.setattr(ops, "driver_of", lambda _path: 4242)
    with pytest.raises(RunStillGoing, match="4 of 6 turns done"):
        result_of(state.run_id)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_panels_prompts_never_say_both_sides(lang: str) -> None:
    """The seats' and the Judge's prompts of a three-seat run speak of every seat (the
    two-seat prompts keep "both sides")."""
    from tests.unit.test_orchestrator import quiet_run

    both = {"en": "both sides", "ja": "双方"}[lang]
    three = {j.step: j.prompt for j in panel(3, {}, rounds=2, lang=lang).runner.jobs}
    for step in ("r2-A-1", "judge-1"):
        assert both not in three[step], (step, [x for x in three[step].splitlines() if both in x])
    pair = {j.step: j.prompt for j in quiet_run(rounds=2, lang=lang).runner.jobs}
    assert both in pair["r2-A-1"] and both in pair["judge-1"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_fallback_summary_of_a_panel_never_says_both_sides(lang: str) -> None:
    from collab.ledger_summary import fallback_summary
    from tests.unit.test_orchestrator import debate, fresh_point

    both = {"en": "both sides", "ja": "双方"}[lang]
    three = panel(3, fresh_point, rounds=1, lang=lang).state
    three.stop_reason = "converged-early"
    text = fallback_summary(three)
    assert "I3" in text and both not in text, [x for x in text.splitlines() if both in x]
    said = {  # every seat converged, not "both sides"
        "en": "- Stopped: converged-early",
        "ja": "- 終了理由: 各席が収束しました (converged-early)",
    }
    assert said[lang] in text.splitlines()[4]
    pair = debate({}, fresh_point, rounds=1, lang=lang).state
    assert both in fallback_summary(pair)


def test_the_html_report_colours_seats_c_to_e_apart_from_a() -> None:
    """A panel's page gives seats C–E their own colour (as the terminal does), not A's;
    a two-seat page has no such rule."""
    import re

    from tests.unit.test_orchestrator import fresh_point, quiet_run

    page = render_html(panel(5, fresh_point, rounds=1).state)
    for seat in "cde":
        assert re.search(rf"\.turn\.{seat}\{{border-left-color:var\(--{seat}\)", page), seat
        assert re.search(rf"\.seat\.{seat}\{{border-top-color:var\(--{seat}\)", page), seat
        # on a narrow screen, each evidence cell says whose it is
        assert f'.ledger td.ev.{seat}::before{{content:"evidence {seat.upper()}"}}' in page, seat
    assert '<td class="ev e">' in page
    assert "--c:" not in render_html(quiet_run(rounds=1).state)
