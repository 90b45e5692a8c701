"""Panels on the real orchestrator and the in-process runner: 3–5 seats through the same
code as two (the blind round with every seat at once, the rotating last speaker recorded
per round, an absent seat, too-few-seats, the quorum, resume mid blind round). Milliseconds
a debate, no processes."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import Any, NamedTuple

import pytest

from collab.agents.catalogue import model_family
from collab.config import AgentChoice
from collab.control.steer import seats_of
from collab.errors import UsageError
from collab.migrations import migrate
from collab.panel import ONE_FAMILY, issue_tally, one_family_note
from collab.report.documents import result_document
from collab.report.html import render_html
from collab.report.markdown import transcript_md
from collab.report.schemas import SCHEMAS
from collab.request import DebateRequest, build_config, request_from
from collab.runners.base import TurnJob
from collab.runners.inprocess import SCRIPTED, SCRIPTED_AGENTS, Reply
from collab.seats import seat_list
from collab.state import RunState
from collab.stats import aggregate, run_stats
from collab.store import RunDir
from tests.helpers import schema_validate
from tests.unit.test_orchestrator import (  # noqa: F401 (home_in_memory: autouse)
    JUDGE,
    QUIET,
    Run,
    debate,
    home_in_memory,
    quiet_run,
    said,
    shared,
)

ROLES = (
    "Skeptic: doubts every claim",
    "Builder: wants it shipped",
    "Operator: runs it at 3 a.m.",
    "Security: guards the data",
    "Finance: counts the cost",
)
FAILS = Reply(exit_code=1, stderr="boom")


def panel(n: int, replies: Any, default: Any = QUIET, **options: Any) -> Run:
    return debate(replies, default, role=ROLES[:n], agents=(SCRIPTED,), **options)


def step_of(job: TurnJob) -> tuple[int, str]:
    head = job.step.split("-")
    return int(head[0][1:]), head[1]


def turn_order(run: Run, r: int) -> list[str]:
    """The seats of round ``r`` in the order their turns were called."""
    return [s.split("-")[1] for s in run.steps() if s.startswith(f"r{r}-") and "fix" not in s]


# -- the order of a round ----------------------------------------------------------------


class Rotation(NamedTuple):
    seats: int
    orders: dict[int, str]  # round → the order its turns were taken in (from round 2)


ROTATIONS = [
    Rotation(2, {2: "BA", 3: "AB", 4: "BA"}),
    Rotation(3, {2: "BCA", 3: "CAB", 4: "ABC", 5: "BCA"}),
    Rotation(4, {2: "BCDA", 3: "CDAB", 4: "DABC", 5: "ABCD"}),
    Rotation(5, {2: "BCDEA", 3: "CDEAB", 4: "DEABC", 5: "EABCD", 6: "ABCDE"}),
]


def fresh(job: TurnJob) -> str:
    """A new point every turn, and the seat's point of the round before withdrawn: no
    round is quiet or circular, so every round is held."""
    if job.step.startswith("judge"):
        return JUDGE
    r, seat = step_of(job)
    mine = re.findall(rf"^\| (I\d+) \| open \| point of r{r - 1}-{seat}-", job.prompt, re.M)
    return said([f"point of {job.step}"], [(i, "drop", "said enough") for i in mine])


@pytest.mark.parametrize("row", ROTATIONS, ids=[f"{r.seats}-seats" for r in ROTATIONS])
def test_round_r_ends_with_seat_r_minus_2_and_the_order_is_recorded(row: Rotation) -> None:
    rounds = max(row.orders)
    run = panel(row.seats, fresh, rounds=rounds)
    assert run.state.stop_reason == "max-rounds"
    blind = run.state.round_orders[0]
    assert (blind.round_no, "".join(blind.order), blind.at_once) == (1, "ABCDE"[: row.seats], True)
    for r, order in row.orders.items():
        assert "".join(turn_order(run, r)) == order
        recorded = run.state.order_of(r)
        assert "".join(recorded) == order and recorded[-1] == "ABCDE"[(r - 2) % row.seats]
    round_events = [e for e in run.events if e["event"] == "round_started"]
    assert [e["order"] for e in round_events][1] == list(row.orders[2])
    # the turns are kept in the order they were taken: the ledger replays them so
    assert [t.side for t in run.state.turns if t.round_no == 2] == list(row.orders[2])


def test_a_later_seat_sees_the_earlier_replies_of_its_round_and_the_last_round() -> None:
    def secret(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        r, seat = step_of(job)
        return said([f"p{r}{seat}"], prose=f"secret {r}{seat}.")

    run = panel(3, secret, rounds=2)
    prompts = {job.step: job.prompt for job in run.runner.jobs}
    # round 2 is B, C, A: A (last) sees B and C of round 2; B (first) sees none of them
    assert "secret 2B" in prompts["r2-A-1"] and "secret 2C" in prompts["r2-A-1"]
    assert "secret 2C" not in prompts["r2-B-1"] and "secret 2A" not in prompts["r2-B-1"]
    assert all(f"secret 1{s}" in prompts["r2-B-1"] for s in "ABC")
    # the blind round: nobody sees anybody's round 1
    for seat in "ABC":
        assert not any(f"secret 1{o}" in prompts[f"r1-{seat}-1"] for o in "ABC")


def test_the_blind_round_runs_every_seat_at_once_one_runner_each() -> None:
    run = panel(5, fresh, rounds=2)
    assert sorted(turn_order(run, 1)) == list("ABCDE")
    # four companions beside the run's runner: five agents at once, never more
    assert len(run.runner.companions) == 4 and all(c.closed for c in run.runner.companions)


def test_an_older_run_resumes_in_its_fixed_order() -> None:
    """Migration m007 records the order runs saved before the rotation kept: A, B."""
    whole = panel(2, fresh, rounds=3)
    after_one = next(s for s in whole.saves if len(s["turns"]) == 2)
    old = copy.deepcopy(after_one)
    del old["config"]["turn_order"], old["round_orders"]
    doc = migrate(old, 6)
    again = debate({}, fresh, state=RunState.from_dict(doc))
    assert turn_order(again, 2) == ["A", "B"] and turn_order(again, 3) == ["A", "B"]
    assert "".join(again.state.order_of(1)) == "AB"


# -- honest degradation ------------------------------------------------------------------


def test_an_absent_seat_is_said_and_the_debate_goes_on() -> None:
    run = panel(3, {"r1-A": [said(["tabs"])], "r2-C": [FAILS, FAILS]}, rounds=3)
    ledgers = {e["round"]: e for e in run.events if e["event"] == "ledger"}
    assert ledgers[2]["answered"] == ["A", "B"] and ledgers[2]["seats"] == 3
    assert ledgers[1]["answered"] == ["A", "B", "C"]
    assert run.state.present(2) == frozenset("AB")
    assert "r3-C-1" in run.steps()  # absent for round 2 only
    judge = next(j.prompt for j in run.runner.jobs if j.step == "judge-1")
    label = run.state.judge_order.index("C") + 1
    assert f"Position {label} in round 2" in judge


class FewSeats(NamedTuple):
    test_id: str
    seats: int
    failing: str  # seats whose round-1 turn fails (both attempts)
    reason: str | None
    status: str


FEW = [
    FewSeats("two-of-three-answer", 3, "C", None, "done"),
    FewSeats("one-of-three-answers", 3, "BC", "too-few-seats", "done"),
    FewSeats("one-of-two-answers", 2, "B", "too-few-seats", "done"),
    FewSeats("one-of-five-answers", 5, "ABCD", "too-few-seats", "done"),
    FewSeats("none-answers", 3, "ABC", "no-contract", "failed"),
]


@pytest.mark.parametrize("row", FEW, ids=[r.test_id for r in FEW])
def test_after_the_blind_round(row: FewSeats) -> None:
    replies = {f"r1-{s}": [FAILS, FAILS] for s in row.failing}
    run = panel(row.seats, {**replies, "r1-A": replies.get("r1-A", [said(["p"])])}, rounds=3)
    st = run.state
    assert st.status == row.status
    if row.reason is None:
        assert st.stop_reason != "too-few-seats" and st.rounds_done() >= 2
    else:
        assert st.stop_reason == row.reason and st.rounds_done() == 1
    if row.reason == "too-few-seats":
        assert st.verdict() == "inconclusive"
        assert "only 1 of" in st.stop_detail


def test_resume_mid_blind_round_reruns_exactly_the_unfinished_seats() -> None:
    whole = panel(3, fresh, rounds=2)
    one_done = next(s for s in whole.saves if len(s["turns"]) == 1)
    done = one_done["turns"][0]["side"]
    again = debate({}, fresh, state=RunState.from_dict(one_done))
    assert sorted(turn_order(again, 1)) == sorted(set("ABC") - {done})
    assert len(again.runner.companions) == 1  # two seats at once, not three
    assert again.runner.companions[0].at_once == 2  # the tmux runner tiles two panes


# -- the quorum and the stance per seat in a run ---------------------------------------


def agreeing(seats: str) -> Any:
    def handler(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        r, seat = step_of(job)
        if r == 1:
            return said(["the crux"]) if seat == "A" else QUIET
        return said([], [("I1", "agree", f"{seat} is convinced")]) if seat in seats else QUIET

    return handler


@shared  # driven once per (seats, options); each test gets a copy in its own home
def agreed(seats: str, **options: Any) -> Run:
    """Three seats, two rounds: A raises I1, and in round 2 ``seats`` agree with it."""
    return panel(3, agreeing(seats), rounds=2, **options)


def quiet_pair() -> Run:
    """Two seats, two rounds, no point raised: ``debate({}, QUIET, rounds=2)``, shared."""
    return quiet_run(rounds=2)


@pytest.mark.parametrize(
    ("quorum", "agree", "status"),
    [(None, "BC", "open"), (None, "BCD", "resolved"), (2, "BC", "resolved"), (3, "BC", "open")],
)
def test_quorum_in_a_four_seat_run(quorum: int | None, agree: str, status: str) -> None:
    run = panel(4, agreeing(agree), rounds=2, quorum=quorum)
    (issue,) = run.state.ledger().issues
    assert issue.status == status
    assert {s.seat for s in issue.stances} == set(agree)


# -- options -----------------------------------------------------------------------------


def cfg_of(values: dict[str, object], surface: Any = "cli") -> Any:
    base = DebateRequest(topic="Tabs or spaces?")
    req = request_from(values, surface, base)
    return build_config(req, [*SCRIPTED_AGENTS, "claude", "codex", "gemini"], surface)


def test_options_make_seats_agents_and_models() -> None:
    cfg = cfg_of({"role": ROLES[:3], "agents": ("claude,codex,gemini",), "models": ("m1,m2,m3",)})
    assert cfg.seats == seat_list(3) and [r.name for r in cfg.roles] == [
        "Skeptic", "Builder", "Operator"
    ]  # fmt: skip
    assert [(a.agent, a.model) for a in cfg.agents] == [
        ("claude", "m1"), ("codex", "m2"), ("gemini", "m3")
    ]  # fmt: skip
    over = cfg_of({"role": ROLES[:3], "agents": ("codex",), "agent_b": "gemini"})
    assert [a.agent for a in over.agents] == ["codex", "gemini", "codex"]
    lists = cfg_of({"role": list(ROLES[:3]), "agents": ["codex", "gemini", "claude"]}, "batch")
    assert [a.agent for a in lists.agents] == ["codex", "gemini", "claude"]
    one = cfg_of({"role": ROLES[:3], "agent": "codex"})
    assert [a.agent for a in one.agents] == ["codex"] * 3


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"role": ROLES[:1]}, "--role takes 2–5 items when given, got 1"),
        ({"role": (*ROLES, "Sixth: x")}, "--role takes at most 5 items, got 6"),
        ({"role": ROLES[:3], "role_a": "X: y"}, "use either --role or --role-a"),
        ({"role": ROLES[:3], "preset": "security-vs-performance"}, "--preset or --role"),
        ({"agents": ("claude",), "agent": "codex"}, "use either --agents or --agent"),
        ({"role": ROLES[:3], "agents": ("claude,codex",)}, "--agents has 2 entries for 3"),
        ({"role": ROLES[:3], "quorum": 3}, "--quorum 3 is more than the 2 seats"),
    ],
)
def test_bad_panel_options_are_one_usage_error(values: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        cfg_of(values)


# -- families, the tally, the result document ---------------------------------------------


@pytest.mark.parametrize(
    ("agent", "model", "family"),
    [
        ("claude", None, "anthropic"), ("claude", "opus", "anthropic"),
        ("codex", "gpt-5", "openai"), ("gemini", None, "google"),
        ("ollama", "llama3.1:8b", "meta"), ("ollama", "qwen2.5:7b", "alibaba"),
        ("llm", "gpt-4o-mini", "openai"), ("llm", "openrouter/anthropic/claude-3", "anthropic"),
        ("llm", "codellama", "meta"), ("ollama", "mystery-7b", "unknown:ollama:mystery-7b"),
        ("command", None, "unknown:command:default"),
    ],
)  # fmt: skip
def test_a_seats_family_of_models(agent: str, model: str | None, family: str) -> None:
    assert model_family(agent, model) == family


def with_agents(state: RunState, *agents: tuple[str, str | None]) -> RunState:
    choices = [AgentChoice(a, m) for a, m in agents]
    cfg = dataclasses.replace(
        state.config, agent_a=choices[0], agent_b=choices[1], more_agents=tuple(choices[2:])
    )
    return dataclasses.replace(state, config=cfg)


def test_one_family_is_said_beside_the_verdict_two_claude_seats_included() -> None:
    run = agreed("BC")
    st = run.state
    three = with_agents(st, ("claude", None), ("claude", "opus"), ("claude", "haiku"))
    assert one_family_note(three) == ONE_FAMILY
    mixed = with_agents(st, ("claude", None), ("codex", None), ("claude", None))
    assert one_family_note(mixed) is None
    unknown = with_agents(st, ("ollama", "x"), ("ollama", "x"), ("ollama", "x"))
    assert one_family_note(unknown) is None  # an unknown family is never "the same"
    two = quiet_pair().state
    assert one_family_note(with_agents(two, ("claude", None), ("claude", None))) == ONE_FAMILY
    # the tally of I1 (A raised it, B and C agreed): families on the side of the point
    (issue,) = mixed.ledger().issues
    got = issue_tally(mixed, issue)
    assert (got.agree, got.contest, got.silent) == (("B", "C"), (), ())
    assert got.families_for == ("anthropic", "openai") and got.families_against == ()
    assert "2 agree · 0 contest · 0 silent (for: anthropic, openai)" in transcript_md(mixed)
    assert "one model family" in transcript_md(three) and "one model family" not in (
        transcript_md(mixed)
    )


def test_the_result_document_is_v2_with_seats_and_v1_is_still_known() -> None:
    run = agreed("B")
    doc = json.loads(json.dumps(result_document(run.state, RunDir(run.state.run_id))))
    schema_validate(doc, SCHEMAS["collab.result/2"])
    assert doc["schema"] == "collab.result/2"
    assert [s["label"] for s in doc["seats"]] == ["A", "B", "C"]
    assert doc["seats"][2] == {"label": "C", "name": "Operator", "agent": SCRIPTED,
                               "model": None, "family": f"unknown:{SCRIPTED}:default"}  # fmt: skip
    assert doc["ledger"][0]["tally"] == {
        "agree": 1, "contest": 0, "silent": 1,
        "families_for": [f"unknown:{SCRIPTED}:default"], "families_against": [],
    }  # fmt: skip
    assert doc["seats_answered"] == [["A", "B", "C"], ["A", "B", "C"]]
    v1 = {**doc, "schema": "collab.result/1"}
    for key in ("seats", "family_note", "seats_answered"):
        v1.pop(key)
    schema_validate(v1, SCHEMAS["collab.result/1"])


def test_stats_give_the_verdict_mix_by_seat_count() -> None:
    three = agreed("BC").state  # I1 resolved by B and C: consensus
    two = quiet_pair().state  # no issue: inconclusive
    total = aggregate([run_stats(three), run_stats(two)])
    assert total.verdicts_by_seats == {"2": {"inconclusive": 1}, "3": {"consensus": 1}}


def test_ask_names_any_seat_of_the_run_and_none_asks_every_seat() -> None:
    assert seats_of(None, ("A", "B", "C")) == ("A", "B", "C")
    assert seats_of("c", ("A", "B", "C")) == ("C",)
    with pytest.raises(UsageError, match="--seat must be A, B or judge, got 'C'"):
        seats_of("C", ("A", "B"))


def test_the_html_report_speaks_seats() -> None:
    run = agreed("B")  # opening="blind": the default, the same config (and run)
    page = render_html(run.state)
    assert "<th>evidence C</th>" in page and "Role C" in page
    assert "3 of 3 seats answered" in page
    assert "1 agree · 0 contest · 1 silent" in page


def test_asking_a_panel_shows_every_seats_evidence_and_keeps_the_judge_blind() -> None:
    """``collab ask`` on a three-seat run: each seat's and the Judge's prompt carries all
    three evidence columns; the Judge reads Positions 1–3, and an option or constraint
    that names a role is hidden from it like every other text it reads."""
    from collab.orchestrator import Orchestrator
    from collab.runners.inprocess import InProcessRunner, script

    def evidence_of(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        _, seat = step_of(job)
        return said([f"point of {job.step}"], prose=f"evidence from seat {seat}")

    state = panel(
        3, evidence_of, rounds=1, option=("Skeptic's plan", "Builder's plan"),
        constraint=("the Operator keeps the pager",),
    ).state  # fmt: skip
    runner = InProcessRunner(script({}, lambda job: Reply(f"answer of {job.step}")))
    orch = Orchestrator(
        state, RunDir(state.run_id), agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
        clock=runner.clock,
    )  # fmt: skip
    orch.ask("Which is cheaper?", seats_of(None, state.config.seats) + seats_of("judge"))
    prompts = {job.step: job.prompt for job in runner.jobs}
    assert sorted(prompts) == ["ask-A-1", "ask-B-1", "ask-C-1", "ask-judge-1"]
    header = "| id | status | title | raised by | A's evidence | B's evidence | C's evidence |"
    for step in ("ask-A-1", "ask-C-1"):
        assert header in prompts[step], step
        assert "|----|--------|-------|-----------|----|----|----|" in prompts[step]
    judge = prompts["ask-judge-1"]
    assert "Position 1, Position 2 and Position 3" in judge
    assert "Position 3's evidence |" in judge
    for name in ("Skeptic", "Builder", "Operator"):
        assert name not in judge, name
    assert "Skeptic's plan" in prompts["ask-A-1"]  # a debater reads the option as given


def test_the_judges_list_of_positions_is_saved_as_the_list_of_names() -> None:
    judge = JUDGE.replace("The Judge's summary.", "Positions 1 and 3 agree; Positions 1, 2 and 3.")
    run = panel(3, {"judge": [judge]}, rounds=1)
    labels = next(e["labels"] for e in run.events if e["event"] == "judge_started")
    one, two, three = (labels[f"Position {n}"] for n in (1, 2, 3))  # type: ignore[index]
    assert run.state.judge is not None
    assert f"{one} and {three} agree; {one}, {two} and {three}." in run.state.judge.text
    assert "Positions" not in run.state.judge.text


def test_the_adr_fallback_summary_and_status_name_every_seat() -> None:
    from collab.control.status import status_document
    from collab.ledger_summary import fallback_summary
    from collab.report.adr import adr_markdown

    def evidence_of(job: TurnJob) -> str:
        if job.step.startswith("judge"):
            return JUDGE
        _, seat = step_of(job)
        return said([f"point of seat {seat}"], prose=f"evidence from seat {seat}")

    state = panel(3, evidence_of, rounds=1).state
    adr = adr_markdown(state)
    assert "Debated by Skeptic, Builder and Operator over 1 round(s)" in adr
    for seat, name in zip("ABC", ("Skeptic", "Builder", "Operator"), strict=True):
        assert f"### {name} (seat {seat})" in adr
        assert f"- The position of {name} (seat {seat})" in adr
    # C's point is a pro of C's position and a con of A's.
    c_line = "I3 point of seat C: "
    a_part = adr.split("### Skeptic (seat A)")[1].split("### Builder")[0]
    assert f"- Bad, because {c_line}" in a_part
    summary = fallback_summary(state)
    assert "  - Operator: " in summary
    roles = status_document(RunDir(state.run_id))["roles"]
    assert roles == {"A": "Skeptic", "B": "Builder", "C": "Operator"}


@pytest.mark.parametrize(
    ("seats", "parallel", "at_once"),
    [(2, 8, 8), (2, 16, 16), (2, 32, 16), (3, 8, 8), (3, 12, 10), (5, 8, 6), (5, 1, 1)],
)
def test_a_batch_of_panels_caps_the_agents_it_starts_at_once(
    seats: int, parallel: int, at_once: int
) -> None:
    from pathlib import Path

    from collab.batch.entries import Entry
    from collab.batch.record import MAX_AGENTS_AT_ONCE, Batch

    cfg = cfg_of({"role": ROLES[:seats]})
    two = cfg_of({})
    b = Batch.create([Entry(1, two), Entry(2, cfg)], Path("topics.jsonl"), parallel)
    got, said_so = b.capped(parallel)
    assert got == at_once and got * seats <= max(MAX_AGENTS_AT_ONCE, seats)
    if at_once == parallel:
        assert said_so is None
    else:
        assert said_so is not None
        assert f"running {at_once} debates at once, not {parallel}" in said_so
        assert f"{seats} seats" in said_so
    # A finished panel no longer counts.
    state = RunState.from_dict(RunDir(b.items[1].run_id).load())
    state.status = "done"
    RunDir(state.run_id).save(state.to_dict())
    assert b.capped(parallel)[0] == min(parallel, MAX_AGENTS_AT_ONCE // 2)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_contract_a_panel_reads_says_what_its_ledger_does(lang: str) -> None:
    """One agree does not resolve a panel's issue, so its seats are not told it does."""
    pair = {j.step: j.prompt for j in quiet_run(rounds=1, lang=lang).runner.jobs}
    three = {j.step: j.prompt for j in panel(3, {}, rounds=1, lang=lang).runner.jobs}
    quorum = {j.step: j.prompt for j in panel(4, {}, rounds=1, lang=lang, quorum=2).runner.jobs}
    every, both = {
        "en": ("once every other seat that answers the round agrees", "once both sides have"),
        "ja": ("その回に答えた他のすべての席", "双方が手を引くと"),
    }[lang]
    some = {"en": "at least 2 of them do", "ja": "2 席以上が認め"}[lang]
    assert both in pair["r1-A-1"] and every not in pair["r1-A-1"]
    for step in ("r1-A-1", "r1-C-1"):
        assert every in three[step] and both not in three[step] and some not in three[step]
    assert some in quorum["r1-D-1"]


def test_a_recorded_position_1_wins_over_the_drawn_order() -> None:
    """A run saved before panels recorded only its Position 1: that seat stays Position 1
    and the others follow in seat order, whatever the run id would draw."""
    from collab.judge.answer import seat_labels
    from collab.judge.labels import judge_order

    rid = next(f"run-{n}" for n in range(100) if judge_order(f"run-{n}", ("A", "B", "C"))[0] == "A")
    assert seat_labels(rid, (), "B", ("x", "y", "z")).order() == ("B", "A", "C")
    assert seat_labels(rid, (), "B", ("x", "y")).order() == ("B", "A")
    assert seat_labels(rid, (), None, ("x", "y", "z")).order() == judge_order(rid, ("A", "B", "C"))
    assert seat_labels(rid, ("C", "A", "B"), "B", ("x", "y", "z")).order() == ("C", "A", "B")
