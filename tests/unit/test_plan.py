"""The plan before the first call: calls per depth, cost from past runs or marked as an
estimate, the --max-cost warning, and where the plan goes (events, state, result)."""

from __future__ import annotations

from typing import Any

import pytest

from collab.agents import load_agents
from collab.plan import PastCosts, call_counts, make_plan, price_per_mtok
from collab.planning import plan_for
from collab.report.documents import result_document
from collab.request import DebateRequest, build_config
from collab.runners.base import TurnJob
from collab.runners.inprocess import Reply
from collab.store import RunDir
from tests.fakes.depth_scripts import SCRIPTS
from tests.unit.test_orchestrator import debate, home_in_memory

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


def test_past_runs_on_this_machine_feed_the_next_plan() -> None:
    def costly(job: TurnJob) -> Reply:
        return Reply(SCRIPTS["easy"](job), cost_usd=0.02)

    debate({}, costly, depth="quick")
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
