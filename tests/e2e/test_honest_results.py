"""Honest results end to end (fake agents, real processes): a debate in which no contract
block parses stops after round 1 and says so; a Judge reply without its sections is a
failed Judge; a raiser's reasoned agree on its own issue concedes it; a reply holding a
lone surrogate is saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from collab.report import SCHEMAS
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, Outcome

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
REASK = "did not end with a valid json block"
JUDGE = "neutral judge"
VERDICT = "## TL;DR\n- scripted" + JUDGE_REST


def collab(cli: Cli, *args: str) -> Outcome:
    return cli.process(*args, env={"COLUMNS": "160"})


def debate(cli: Cli, topic: str, *extra: str) -> Outcome:
    return collab(
        cli, "debate", topic, "--agent", "fake", "--runner", "subprocess", "--json", *extra
    )


def saved(doc: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(Path(doc["paths"]["state"]).read_text(encoding="utf-8"))
    return state


def judge_calls(fake: FakeAgent) -> list[dict[str, Any]]:
    return [c for c in fake.calls() if JUDGE in str(c["prompt"])]


def test_a_debate_with_no_contract_stops_after_round_1(cli: Cli, fake_agent: FakeAgent) -> None:
    """Every reply is prose only (a model that ignores the contract): 2 turns, 2 re-asks
    and the Judge — 5 calls — where every round used to run: 3 rounds × (turn + re-ask)
    × 2 sides + the Judge = 13."""
    fake_agent.script(
        [{"match": [JUDGE], "replies": [VERDICT]}],
        "I have opinions but no json block.",
    )
    res = debate(cli, "No contract here", "--rounds", "3")
    assert res.code == 0, res.err
    doc = res.json()
    assert (doc["status"], doc["stop_reason"], doc["verdict"]) == (
        "done", "no-contract", "inconclusive"
    )  # fmt: skip
    assert "not following the contract" in doc["stop_detail"]
    assert "check the model" in doc["stop_detail"]
    calls = fake_agent.calls()
    assert len(calls) == 5, [str(c["prompt"])[:60] for c in calls]
    assert sum(REASK in str(c["prompt"]) for c in calls) == 2
    assert len(judge_calls(fake_agent)) == 1
    assert any("not following the contract" in w for w in saved(doc)["warnings"])
    # the foreground view warns too
    fake_agent.script([{"match": [JUDGE], "replies": [VERDICT]}], "Still no block.")
    shown = collab(cli, "debate", "No contract twice", "--agent", "fake", "--runner", "subprocess")
    assert shown.code == 0 and "not following the contract" in shown.out + shown.err

    listed = collab(cli, "list")
    assert listed.code == 0 and "no-contract · inconclusive" in listed.out
    stats = collab(cli, "stats", "--json")
    total = stats.json()
    jsonschema.validate(total, SCHEMAS["collab.stats/1"])
    assert total["verdicts"] == {"inconclusive": 2}
    assert (total["contract_turns"], total["turns"], total["contract_rate"]) == (0, 4, 0.0)
    assert "turns with a usable contract" in collab(cli, "stats").out


def test_a_contract_in_round_1_keeps_the_debate_going(cli: Cli, fake_agent: FakeAgent) -> None:
    fake_agent.script(
        [
            {"match": [JUDGE], "replies": [VERDICT]},
            {"match": [ROLE_A, "round 1 of"], "replies": ["A." + contract_block(new=[("P", "e")])]},
        ],
        "No block from here on.",
    )
    res = debate(cli, "One contract", "--rounds", "3")
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["stop_reason"] == "max-rounds" and doc["rounds"]["done"] == 3


def test_a_refusing_judge_is_asked_once_more_then_the_ledger_summarises(
    cli: Cli,
    fake_agent: FakeAgent,
) -> None:
    refusal = "I'm sorry, but I can't provide a judgement on this debate."
    missing = "missing the required section(s): TL;DR, Crux, Minority report, Open disagreements"
    fake_agent.script(
        [
            {"match": [JUDGE, missing], "replies": [refusal]},  # the retry, naming them all
            {"match": [JUDGE], "replies": [refusal]},
            {"match": [ROLE_A], "replies": ["A." + contract_block(new=[("Point", "e")])]},
            {"match": [ROLE_B], "replies": ["B." + contract_block(
                stances=[("I1", "contest", "no")])]},
        ]
    )  # fmt: skip
    res = debate(cli, "Refusal", "--rounds", "2", "--opening", "sequential")
    assert res.code == 0, res.err
    doc = res.json()
    asked = judge_calls(fake_agent)
    assert [c["rule"] for c in asked] == [1, 0]  # asked, then once more naming what was missing
    assert doc["judge"]["fallback"] is True
    assert refusal not in doc["judge"]["markdown"]
    events = Path(doc["paths"]["run_dir"], "events.jsonl").read_text(encoding="utf-8")
    warned = [json.loads(x)["text"] for x in events.splitlines() if '"warning"' in x]
    assert any("no TL;DR, Crux, Minority report, Open disagreements section" in w for w in warned)
    assert any("summarising from the ledger" in w for w in warned)
    state = saved(doc)
    assert state["judge"]["raw"] == refusal and state["judge"]["meta"]["attempts"] == 2
    stats = collab(cli, "stats", "--json").json()
    assert stats["judge_fallback_rate"] == 1.0


def test_a_judge_that_mends_its_answer_on_the_retry_is_kept(
    cli: Cli, fake_agent: FakeAgent
) -> None:
    fake_agent.script(
        [
            {"match": [JUDGE], "replies": ["## TL;DR\n- one line only", VERDICT]},
            {"match": [ROLE_A], "replies": ["A." + contract_block(new=[("Point", "e")])]},
        ],
        "B." + contract_block(stances=[("I1", "contest", "no")]),
    )
    res = debate(cli, "Mended", "--rounds", "2", "--opening", "sequential")
    assert res.code == 0, res.err
    doc = res.json()
    assert len(judge_calls(fake_agent)) == 2
    assert doc["judge"]["fallback"] is False
    assert doc["judge"]["markdown"].startswith(VERDICT)


def test_a_raiser_concedes_its_own_point(cli: Cli, fake_agent: FakeAgent) -> None:
    """The issue's round: A on its own I1, "B showed …" → dropped as conceded, counted."""
    fake_agent.script(
        [
            {"match": [JUDGE], "replies": [VERDICT]},
            {"match": [ROLE_A, "round 1 of"], "replies": ["A." + contract_block(
                new=[("JWT in localStorage is an XSS risk", "tokens readable by scripts")])]},
            {"match": [ROLE_A], "replies": ["A concedes." + contract_block(stances=[(
                "I1", "agree", "B showed the XSS exposure is from localStorage, not JWT")])]},
            {"match": [ROLE_B], "replies": ["B." + contract_block(
                stances=[("I1", "contest", "store it in an httpOnly cookie")]),
                "B rests." + contract_block()]},
        ]
    )  # fmt: skip
    res = debate(cli, "Concession", "--rounds", "2", "--opening", "sequential")
    assert res.code == 0, res.err
    doc = res.json()
    (issue,) = doc["ledger"]
    assert (issue["status"], issue["resolution"], issue["dropped_by"]) == (
        "dropped", "conceded", ["A"]
    )  # fmt: skip
    assert issue["reason"].startswith("B showed")
    assert doc["verdict"] == "consensus" and doc["stop_reason"] == "converged-early"
    stats = collab(cli, "stats", "--json").json()
    assert stats["conceded"] == 1 and stats["dropped"] == 1


def as_claude_json(text: str) -> dict[str, object]:
    """The CLI's result document as the real claude (JSON.stringify) writes it: a lone
    surrogate comes out as the escape ``\\ud800``."""
    doc = {"type": "result", "subtype": "success", "is_error": False, "result": text,
           "session_id": "s", "total_cost_usd": 0.0,
           "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    return {"raw": json.dumps(doc)}


def test_a_reply_with_a_lone_surrogate_is_saved(cli: Cli, fake_agent: FakeAgent) -> None:
    fake_agent.script(
        [
            {"match": [JUDGE], "replies": [as_claude_json(VERDICT + "\ud800")]},
            {"match": [ROLE_A], "replies": [as_claude_json("A \ud800 says." + contract_block(
                new=[("Point \ud800", "e \udfff")]))]},
        ],
        as_claude_json("B \udc00." + contract_block(stances=[("I1", "contest", "no \ud800")])),
    )  # fmt: skip
    res = debate(cli, "Surrogate", "--rounds", "2", "--opening", "sequential")
    assert res.code == 0, res.out + res.err
    doc = res.json()
    assert doc["status"] == "done", doc["error"]
    assert doc["turns"][0]["prose"] == "A \ufffd says."  # shown as a replacement character
    assert doc["ledger"][0]["title"] == "Point"  # the escape in the block: cleaned away
    assert doc["judge"]["fallback"] is False
    shown = collab(cli, "show", doc["run_id"])
    assert shown.code == 0, shown.err
