"""Exact cost: per-turn figures as the agent reported them, totals, and --max-cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST


def run(cli: Cli, *args: str) -> tuple[int, dict[str, object]]:
    res = cli(*args)
    return res.code, res.json()


def script_costs(fake_agent: FakeAgent, a: float, b: float, judge: float) -> None:
    fake_agent.script(
        [
            {
                "match": ["neutral judge"],
                "replies": [{"text": "## TL;DR\n- ok" + JUDGE_REST, "cost_usd": judge}],
            },
            {
                "match": ["(Role A) in a structured debate"],
                "replies": [{"text": "A." + contract_block(), "cost_usd": a}],
            },
            {
                "match": ["(Role B) in a structured debate"],
                "replies": [{"text": "B." + contract_block(), "cost_usd": b}],
            },
        ]
    )


def test_totals_are_sums_of_turns(fake_agent: FakeAgent, cli: Cli) -> None:
    script_costs(fake_agent, 0.01, 0.02, 0.005)
    code, doc = run(
        cli,
        "debate",
        "Cost test",
        "--agent",
        "fake",
        "--runner",
        "subprocess",
        "--rounds",
        "3",
        "--json",
    )
    assert code == 0
    turns = doc["turns"]
    assert isinstance(turns, list)
    # Each turn as its seat's agent reported it (round 2 starts with B: the last speaker
    # rotates, so the order is A B, B A, …).
    assert [t["side"] for t in turns][:4] == ["A", "B", "B", "A"]
    assert [t["cost_usd"] for t in turns] == [{"A": 0.01, "B": 0.02}[t["side"]] for t in turns]
    by_role = doc["cost_usd_by_role"]
    assert isinstance(by_role, dict)
    n = len(turns) // 2
    assert by_role["A"] == pytest.approx(0.01 * n)
    assert by_role["B"] == pytest.approx(0.02 * n)
    assert by_role["judge"] == pytest.approx(0.005)  # the one breakdown: the Judge's share too
    assert doc["cost_usd"] == pytest.approx(0.03 * n + 0.005)
    state = json.loads(Path(str(doc["paths"]["state"])).read_text())  # type: ignore[index]
    assert state["cost_usd"] == pytest.approx(doc["cost_usd"])
    transcript = Path(str(doc["paths"]["transcript"])).read_text()  # type: ignore[index]
    assert "$0.0100" in transcript and "$0.0200" in transcript
    assert "· judge $0.0050)" in transcript


def test_max_cost_stops_before_the_turn_past_the_cap(fake_agent: FakeAgent, cli: Cli) -> None:
    # Every turn costs 0.10: after A1 0.10, B1 0.20, B2 0.30 (round 2 starts with B: the
    # last speaker rotates) → the cap of 0.25 is reached before A2, which must not start.
    script_costs(fake_agent, 0.10, 0.10, 0.05)
    code, doc = run(
        cli,
        "debate",
        "Cost cap",
        "--agent",
        "fake",
        "--runner",
        "subprocess",
        "--rounds",
        "4",
        "--max-cost",
        "0.25",
        "--json",
    )
    assert code == 0
    assert doc["stop_reason"] == "budget"
    turns = doc["turns"]
    assert isinstance(turns, list)
    assert [(t["round"], t["side"]) for t in turns] == [(1, "A"), (1, "B"), (2, "B")]
    judge = doc["judge"]
    assert isinstance(judge, dict)
    # Over the cap: no judge call, the summary comes from the ledger.
    assert judge["fallback"] is True
    assert not any("neutral judge" in str(c["prompt"]) for c in fake_agent.calls())


def test_unknown_cost_is_na_not_a_guess(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script([], "reply" + contract_block())
    code, doc = run(
        cli,
        "debate",
        "No cost",
        "--agent",
        "fake-text",
        "--runner",
        "subprocess",
        "--rounds",
        "2",
        "--json",
    )
    assert code == 0
    assert doc["cost_usd"] is None
    assert all(t["cost_usd"] is None for t in doc["turns"])  # type: ignore[union-attr]
    transcript = Path(str(doc["paths"]["transcript"])).read_text()  # type: ignore[index]
    assert "n/a" in transcript
