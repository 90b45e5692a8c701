"""The plan before the first call: calls per depth, cost from past runs or marked as an
estimate, the --max-cost warning, and where the plan goes (events, state, result)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from collab.agents import load_agents
from collab.config import AgentChoice
from collab.paths import config_path
from collab.plan import PastCosts, SeatCost, call_counts, make_plan, past_costs, price_per_mtok
from collab.planning import past_states, plan_for
from collab.prices import Price
from collab.report.documents import result_document
from collab.request import DebateRequest, build_config, request_from
from collab.runners.base import TurnJob
from collab.runners.inprocess import Reply
from collab.state import Judge, RunState
from collab.store import RunDir, new_run_id
from collab.turns import AgentMeta, TurnRecord
from tests.fakes.depth_scripts import SCRIPTS
from tests.unit.test_orchestrator import Run, debate, home_in_memory, shared

__all__ = ["home_in_memory"]

NO_PAST = PastCosts({}, {})


def claude_cfg(**options: Any) -> Any:
    return build_config(DebateRequest(topic="Tabs or spaces?", **options), load_agents().keys())


@pytest.mark.parametrize(
    ("options", "counts"),
    [
        # (fewest turns, most turns, fewest calls, most calls): 2 seats; a turn is at
        # most 2 attempts + 1 re-ask, the Judge 2 attempts.
        ({"depth": "quick"}, (2, 2, 3, 2 * 3 + 2)),
        ({}, (4, 6, 5, 6 * 3 + 2)),
        ({"rounds": 2}, (4, 4, 5, 4 * 3 + 2)),
        ({"depth": "deep"}, (4, 14, 5, 14 * 3 + 2)),
        ({"depth": "auto", "rounds": 4}, (4, 8, 5, 8 * 3 + 2)),
    ],
)
def test_calls_per_depth(options: dict[str, Any], counts: tuple[int, int, int, int]) -> None:
    assert call_counts(claude_cfg(**options)) == counts


def test_without_past_runs_the_cost_is_an_estimate_from_prompt_sizes() -> None:
    cfg = claude_cfg(depth="quick", max_chars=1000)
    plan = make_plan(cfg, NO_PAST, 4000)
    inp, out = price_per_mtok("claude", None) or (0.0, 0.0)
    turn = (4000 * inp + 1500 * out) / 4 / 1e6
    judge = ((4000 + 2 * 1500) * inp + 3000 * out) / 4 / 1e6
    assert plan.estimate and plan.document()["prices_as_of"]
    assert plan.cost_low == plan.cost_high == round(2 * turn + judge, 4)
    assert "estimate from prompt sizes at list prices" in plan.lines()[-1]
    bigger = make_plan(cfg, NO_PAST, 8000)
    assert bigger.cost_low is not None and bigger.cost_low > plan.cost_low


def test_past_runs_give_the_cost_and_are_not_marked_as_an_estimate() -> None:
    past = PastCosts({"claude:default": (0.30, 10)}, {"claude:default": (0.10, 2)})
    plan = make_plan(claude_cfg(), past, 4000)
    assert not plan.estimate and plan.document()["prices_as_of"] is None
    assert (plan.cost_low, plan.cost_high) == (0.17, 0.23)  # 4 or 6 turns at 0.03 + 0.05
    assert [s.basis for s in plan.seats] == ["past runs"] * 3
    assert plan.lines()[-1] == "plan: expected cost $0.1700–$0.2300 (from this machine's past runs)"


def test_no_price_and_no_past_runs_gives_no_figure() -> None:
    cfg = claude_cfg(agent_a="ollama", agent_b="ollama", judge_agent="llm")
    plan = make_plan(cfg, NO_PAST, 4000)
    assert plan.cost_low is None and plan.document()["cost_usd"] is None
    assert plan.lines()[-1] == "plan: cost unknown (no past runs and no price for llm)"


def test_max_cost_below_the_lowest_expected_cost_warns() -> None:
    past = PastCosts({"claude:default": (0.30, 10)}, {"claude:default": (0.10, 2)})
    plan = make_plan(claude_cfg(), past, 4000)
    note = plan.over_cap(0.10)
    assert note is not None and "--max-cost $0.1 is below" in note and "$0.1700" in note
    assert plan.over_cap(0.17) is None and plan.over_cap(None) is None


def panel_cfg(agents: str, models: str = "", **values: Any) -> Any:
    """A debate with one seat per agent (``"claude,codex,llm"``) and their models."""
    roles = ("Skeptic: doubts", "Builder: ships", "Operator: runs it", "Security: guards")
    n = len(agents.split(","))
    base = DebateRequest(topic="Tabs or spaces?")
    wanted = {"role": roles[:n], "agents": (agents,), **values}
    if models:
        wanted["models"] = (models,)
    return build_config(request_from(wanted, "cli", base), load_agents().keys())


@pytest.mark.parametrize(
    ("agent", "model", "rates"),
    [
        ("claude", None, (3.0, 15.0)),  # claude's default is a Sonnet
        ("claude", "Opus", (15.0, 75.0)),  # its short names, in any case
        ("claude", "haiku", (0.8, 4.0)),
        ("claude", "claude-opus-4-1", (15.0, 75.0)),  # a full name is kept as given
        ("codex", None, (1.25, 10.0)),
        ("gemini", "opus", None),  # claude's short names are claude's only
    ],
)
def test_a_seats_agent_and_model_find_their_list_price(
    agent: str, model: str | None, rates: tuple[float, float] | None
) -> None:
    assert price_per_mtok(agent, model) == rates


def test_the_users_price_table_is_the_one_read() -> None:
    mine = (Price("claude:claude-opus", 1.0, 2.0),)
    assert price_per_mtok("claude", "opus", mine) == (1.0, 2.0)
    assert price_per_mtok("claude", "haiku", mine) is None


def test_the_plan_names_each_seat_its_model_the_judge_and_the_calls() -> None:
    cfg = panel_cfg("claude,codex,gemini", model_a="opus", judge_agent="llm", depth="quick")
    plan = make_plan(cfg, NO_PAST, 4000)
    assert plan.lines()[:2] == [
        "plan: 3 seats + Judge · A: claude (opus) · B: codex · C: gemini · Judge: llm",
        "plan: depth quick, up to 1 round · 4–11 calls (the most with every retry and re-ask)",
    ]
    two = make_plan(claude_cfg(rounds=2), NO_PAST, 4000)
    assert "up to 2 rounds · 5–14 calls" in two.lines()[1]


def test_with_no_price_the_plan_names_each_unpriced_agent_once() -> None:
    cfg = panel_cfg("codex,gemini,codex", judge_agent="claude")
    plan = make_plan(cfg, NO_PAST, 4000, price=lambda agent, model: None)
    assert (
        plan.lines()[-1]
        == "plan: cost unknown (no past runs and no price for codex, gemini, claude)"
    )


def test_each_seat_says_where_its_cost_per_call_comes_from() -> None:
    # A: past runs of its agent and model; B: its prompts at B's model's price; C: unknown.
    cfg = panel_cfg(
        "claude,codex,llm", "opus,gpt-5,x", judge_agent="gemini", rounds=4, max_chars=1000
    )
    past = PastCosts(
        {"claude:opus": (0.75, 3), "codex:default": (9.0, 1)}, {"gemini:default": (0.5, 4)}
    )
    rates = {("codex", "gpt-5"): (2.0, 8.0)}
    plan = make_plan(cfg, past, 4000, price=lambda agent, model: rates.get((agent, model)))
    # A prompt holds at most the last two rounds' replies (3 seats x 1,500 chars each):
    # rounds 1-4 hold 0, 1, 2, 2 rounds' worth; B's reply is 1,500 chars.
    mean_prompt = (4000 + 8500 + 13000 + 13000) / 4
    assert plan.seats == (
        SeatCost("A", "claude", "opus", 0.25, "past runs", 3),
        SeatCost("B", "codex", "gpt-5", (mean_prompt * 2.0 + 1500 * 8.0) / 4 / 1e6, "estimate"),
        SeatCost("C", "llm", "x", None, "unknown"),
        SeatCost("judge", "gemini", None, 0.125, "past runs", 4),
    )
    assert plan.cost_low is None and plan.estimate


def test_the_judges_prompt_holds_every_round_of_every_seat() -> None:
    cfg = panel_cfg("codex,codex,codex", judge_agent="gemini", rounds=4, max_chars=1000)
    plan = make_plan(cfg, NO_PAST, 4000, price=lambda agent, model: (1.0, 0.0))
    assert plan.seats[-1].usd_per_call == (4000 + 4 * 3 * 1500) / 4 / 1e6


def test_the_cost_range_is_the_mean_debater_turn_times_the_turns_plus_the_judge() -> None:
    cfg = panel_cfg("claude,codex,gemini", judge_agent="llm", rounds=4)
    past = PastCosts(
        {"claude:default": (0.25, 1), "codex:default": (0.5, 2), "gemini:default": (1.5, 2)},
        {"llm:default": (1.0, 2)},
    )
    plan = make_plan(cfg, past, 4000)
    # 0.25, 0.25 and 0.75 a turn: 0.4167 on average; 6 turns at least, 12 at most.
    assert (plan.cost_low, plan.cost_high) == (
        round(6 * 1.25 / 3 + 0.5, 4),
        round(12 * 1.25 / 3 + 0.5, 4),
    )
    assert plan.document()["cost_usd"] == {"low": 3.0, "high": 5.5, "estimate": False}


def record(
    side: Any, round_no: int, agent: str, cost: float | None, reask: float | None = None
) -> TurnRecord:
    def meta(usd: float | None) -> AgentMeta:
        return AgentMeta(agent, None, 0, 1.0, 1, cost_usd=usd)

    again = None if reask is None else meta(reask)
    return TurnRecord(round_no, side, "x", "ok", "r", "p", None, None, "0" * 64, meta(cost), again)


def test_past_costs_are_summed_per_agent_and_model_over_every_run_that_reported_one() -> None:
    cfg = panel_cfg("claude,codex", model_a="opus", judge_agent="gemini")
    done = RunState(
        "20261201-120000-aaaaaa",
        cfg,
        judge=Judge("j", False, AgentMeta("gemini", None, 0, 1.0, 1, cost_usd=0.5)),
    )
    done.turns = [
        record("A", 1, "claude", 0.25, reask=0.125),
        record("B", 1, "codex", 1.0),
        record("A", 2, "claude", None),
    ]
    unjudged = RunState("20261201-120001-bbbbbb", cfg, turns=[record("A", 1, "claude", 0.5)])
    fallback = RunState("20261201-120002-cccccc", cfg, judge=Judge("j", True, None))
    costs = past_costs([done, unjudged, fallback])
    assert costs.turns == {"claude:opus": (0.875, 2), "codex:default": (1.0, 1)}
    assert costs.judge == {"gemini:default": (0.5, 1)}


def test_the_plans_document_holds_its_schema_figures_and_seats() -> None:
    past = PastCosts({"claude:default": (0.25, 5)}, {"claude:default": (0.5, 2)})
    doc = make_plan(claude_cfg(depth="quick"), past, 4000).document()
    seat = {"agent": "claude", "model": None, "basis": "past runs"}
    assert doc == {
        "schema": "collab.plan/1",
        "depth": "quick",
        "rounds": 1,
        "min_calls": 3,
        "max_calls": 8,
        "cost_usd": {"low": 0.35, "high": 0.35, "estimate": False},
        "prices_as_of": None,
        "seats": [
            {"seat": "A", **seat, "usd_per_call": 0.05, "samples": 5},
            {"seat": "B", **seat, "usd_per_call": 0.05, "samples": 5},
            {"seat": "judge", **seat, "usd_per_call": 0.25, "samples": 2},
        ],
    }


def test_the_users_prices_come_before_the_list_prices_in_a_runs_plan() -> None:
    cfg = claude_cfg(model_a="opus")
    listed = plan_for(cfg, states=[])
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('[prices]\n"claude:claude-opus" = [1.0, 2.0]\n', encoding="utf-8")
    config_path().chmod(0o600)
    mine = plan_for(cfg, states=[])
    # opus at 1 and 2 USD per million tokens, not its list price of 15 and 75; B is a Sonnet.
    a_mine, a_listed = mine.seats[0].usd_per_call, listed.seats[0].usd_per_call
    assert a_mine is not None and a_listed is not None and a_mine < a_listed / 7
    assert mine.seats[1] == listed.seats[1]


def test_a_run_plans_before_its_first_call_and_keeps_the_plan() -> None:
    run = debate({}, SCRIPTS["easy"], depth="auto")
    kinds = run.kinds()
    assert kinds.index("plan") < kinds.index("turn_started")
    plan = next(e for e in run.events if e["event"] == "plan")
    assert plan["plan"] == run.state.plan
    assert run.state.plan is not None and run.state.plan["depth"] == "auto"
    assert run.state.plan["max_calls"] == 7 * 2 * 3 + 2
    assert any("depth auto, up to 7 rounds" in line for line in plan["lines"])  # type: ignore[attr-defined]
    assert result_document(run.state, RunDir(run.state.run_id))["plan"] == run.state.plan


def costly(job: TurnJob) -> Reply:
    return Reply(SCRIPTS["easy"](job), cost_usd=0.02)


@shared  # driven once (its own plan made in an empty home); each test gets a copy
def costly_run() -> Run:
    """``debate({}, costly, depth="quick")``: a past run of the scripted agent, on disk."""
    return debate({}, costly, depth="quick")


def test_past_runs_on_this_machine_feed_the_next_plan() -> None:
    costly_run()
    second = debate({}, SCRIPTS["easy"], depth="quick", max_cost=0.05)
    plan = second.state.plan
    assert plan is not None
    assert [s["basis"] for s in plan["seats"]] == ["past runs"] * 3  # type: ignore[attr-defined]
    assert plan["cost_usd"] == {"low": 0.06, "high": 0.06, "estimate": False}
    warning = "--max-cost $0.05 is below this plan's lowest expected cost $0.0600"
    assert any(warning in w for w in second.state.warnings)
    assert plan_for(second.state.config).cost_low == 0.06


def test_the_started_document_carries_the_plan_and_its_warning() -> None:
    from jsonschema import Draft202012Validator

    from collab.control import Started, started_document
    from collab.report import SCHEMAS

    past = PastCosts({"claude:default": (0.30, 10)}, {"claude:default": (0.10, 2)})
    cfg = claude_cfg(depth="auto", max_cost=0.1)
    plan = make_plan(cfg, past, 4000)
    doc = started_document(Started("20261201-120000-abcdef", 1, RunDir("x"), plan), cfg)
    Draft202012Validator(SCHEMAS["collab.started/1"]).validate(doc)
    assert doc["plan"] == plan.document() and doc["depth"] == "auto"
    assert doc["warnings"] == [plan.over_cap(0.1)]


def test_the_plan_event_reads_back_as_written() -> None:
    from collab.events import BadEvent, Logged, Planned, from_json, to_json

    plan = make_plan(claude_cfg(depth="quick"), NO_PAST, 4000)
    logged = Logged(1, 1.0, Planned(plan=plan.document(), lines=tuple(plan.lines())))
    assert from_json(to_json(logged)) == logged
    with pytest.raises(BadEvent):
        from_json({**to_json(logged), "plan": "cheap"})


def test_the_plan_of_a_run_is_sized_from_the_prompt_its_first_turn_gets() -> None:
    run = costly_run()  # a past run of the scripted agent, on disk
    prompts = {job.step: job.prompt for job in run.runner.jobs}  # as costly was asked
    cfg = dataclasses.replace(run.state.config, agent_a=AgentChoice("claude", "opus"))
    # No past runs given: A's cost is an estimate at opus's price, B's is unknown.
    plan = plan_for(cfg, states=[])
    assert plan == make_plan(cfg, NO_PAST, len(prompts["r1-A-1"]))
    assert [s.basis for s in plan.seats] == ["estimate", "unknown", "unknown"]
    assert [s.basis for s in plan_for(cfg).seats] == ["estimate", "past runs", "past runs"]


def test_past_costs_are_read_from_the_newest_runs_that_load() -> None:
    older = debate({}, SCRIPTS["easy"], depth="quick").state
    newer = debate({}, SCRIPTS["easy"], depth="quick").state
    damaged = RunDir(new_run_id())
    damaged.create({**newer.to_dict(), "run_id": damaged.run_id, "plan": "cheap"})
    assert [s.run_id for s in past_states()] == [newer.run_id, older.run_id]
    assert [s.run_id for s in past_states(limit=1)] == [newer.run_id]


def test_past_runs_are_parsed_only_until_the_newest_that_load_are_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every kept run is read (their times order them), but a debate's start parses only
    the newest until ``limit`` load: the damaged among them are skipped, not counted."""
    import collab.planning as planning

    base = debate({}, SCRIPTS["easy"], depth="quick").state.to_dict()
    made = []  # oldest first: each one second newer than the one before
    for n, broken in enumerate([False, False, True, False, True, False]):
        run = RunDir(new_run_id())
        doc = {**base, "run_id": run.run_id, "created_ts": float(base["created_ts"]) + n + 1}
        run.create({**doc, "plan": "cheap"} if broken else doc)
        made.append((run.run_id, broken))
    parsed: list[str] = []
    parse = planning.parse_listed

    def counted(raw: Any) -> Any:
        parsed.append(raw["run_id"])
        return parse(raw)

    monkeypatch.setattr(planning, "parse_listed", counted)
    newest_first = [rid for rid, _ in reversed(made)]
    loading = [rid for rid, broken in reversed(made) if not broken] + [base["run_id"]]
    assert [s.run_id for s in past_states(limit=3)] == loading[:3]
    assert parsed == newest_first[:5]  # three that load, two damaged between them
    parsed.clear()
    assert [s.run_id for s in past_states()] == loading
    assert parsed == [*newest_first, base["run_id"]]
