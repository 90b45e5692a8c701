"""``--depth`` end to end: ``collab debate`` with the fake agent (its own processes, the
subprocess runner), counting the agent's calls; the plan on stderr and in --json."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from collab.report import SCHEMAS
from tests.conftest import Cli, FakeAgent, contract_block
from tests.fakes.depth_scripts import JUDGE  # every section a Judge must write


def rules(lingering: bool) -> list[dict[str, object]]:
    """easy: each side opens with a point and agrees with the other's from round 2 on;
    lingering: B contests A's point with the same evidence every round."""
    later_b = (
        contract_block(stances=[("I1", "contest", "mixed editors render tabs differently")])
        if lingering
        else contract_block(stances=[("I1", "agree", "the example convinced me")])
    )
    later_a = contract_block(stances=[("I2", "agree", "alignment matters")])
    return [
        {"match": ["(Role A) in a structured debate", "round 1 of"],
         "replies": ["A opens." + contract_block(new=[("tabs", "read faster")])]},
        {"match": ["(Role B) in a structured debate", "round 1 of"],
         "replies": ["B opens." + contract_block(new=[("spaces", "align")])]},
        {"match": ["(Role A) in a structured debate", "round 2 of"], "replies": ["A." + later_a]},
        {"match": ["(Role A) in a structured debate"], "replies": ["A." + contract_block()]},
        {"match": ["(Role B) in a structured debate"], "replies": ["B." + later_b]},
    ]  # fmt: skip


DEBATE = ("debate", "Tabs or spaces?", "--agent", "fake", "--runner", "subprocess")


@pytest.mark.parametrize(
    ("script", "args", "calls", "stop"),
    [
        ("easy", ["--depth", "quick"], 3, ("max-rounds", "quick: no stances were taken")),
        ("easy", ["--rounds", "1"], 3, ("max-rounds", "quick: no stances were taken")),
        ("lingering", ["--depth", "quick"], 3, ("max-rounds", "quick: no stances were taken")),
        ("easy", ["--depth", "auto"], 5,
         ("converged-early", "all 2 issues are resolved or dropped")),
        ("lingering", ["--depth", "auto"], 7,
         ("settled", "auto: round 3 changed nothing that matters (no new point, no contest "
          "with new evidence, no status change)")),
    ],
)  # fmt: skip
def test_depth_counts_the_agents_calls(
    fake_agent: FakeAgent,
    cli: Cli,
    script: str,
    args: list[str],
    calls: int,
    stop: tuple[str, str],
) -> None:
    fake_agent.script(rules(script == "lingering"), JUDGE)
    code, out, _ = cli(*DEBATE, *args, "--json")
    doc = json.loads(out)
    assert code == 0, doc
    Draft202012Validator(SCHEMAS[doc["schema"]]).validate(doc)
    assert len(fake_agent.calls()) == calls
    assert (doc["stop_reason"], doc["stop_detail"]) == stop
    assert doc["plan"]["depth"] == doc["depth"]
    if doc["depth"] == "quick":
        assert doc["verdict"] == "inconclusive"
        assert doc["counts"]["open"] == 2  # the open issues are kept for a gate


def test_the_plan_is_printed_on_stderr_before_the_first_round(
    fake_agent: FakeAgent, cli: Cli
) -> None:
    fake_agent.script(rules(False), JUDGE)
    code, _, shown = cli(*DEBATE, "--depth", "quick")
    err = " ".join(shown.split())  # as the terminal view wraps it
    assert code == 0
    plan = err.index("plan: 2 seats + Judge · A: fake · B: fake · Judge: fake")
    assert "plan: depth quick, up to 1 round · 3–8 calls" in err
    assert "plan: cost unknown (no past runs and no price for fake)" in err
    assert plan < err.index("Round 1/1")


def test_the_plan_is_an_event_before_the_first_turn(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script(rules(False), JUDGE)
    code, out, _ = cli(*DEBATE, "--depth", "auto", "--events", "ndjson")
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    events = [e for e in lines if "event" in e]  # the last line is the result
    kinds = [e["event"] for e in events]
    assert code == 0 and kinds.index("plan") < kinds.index("turn_started")
    plan = events[kinds.index("plan")]
    Draft202012Validator(SCHEMAS["collab.event/1"]).validate(plan)
    assert plan["plan"]["max_calls"] == 7 * 2 * 3 + 2


def test_collab_stats_reports_per_depth(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script(rules(True), JUDGE)
    for args in (["--depth", "quick"], ["--depth", "auto"]):
        assert cli(*DEBATE, *args, "--json")[0] == 0
    res = cli("stats", "--json")
    doc = res.json()
    assert res.code == 0
    Draft202012Validator(SCHEMAS[doc["schema"]]).validate(doc)
    quick, auto = doc["by_depth"]["quick"], doc["by_depth"]["auto"]
    assert (quick["runs"], quick["calls"], quick["verdicts"]) == (1, 3, {"inconclusive": 1})
    assert (auto["runs"], auto["calls"]) == (1, 7)
    assert auto["input_tokens"] > 0 and auto["output_tokens"] > 0
    shown = cli("stats").out
    assert "per depth" in shown
    assert [c.strip() for c in shown.split("│ quick", 1)[1].split("│")[1:3]] == ["1", "3 (3/run)"]
