"""``collab gate ID`` and ``collab debate --gate`` on real runs of the fake agent: the exit
codes (0 pass, 4 fail, 5 inconclusive, the run's own first), one line saying why, and the
``collab.gate/1`` document (alone, or as ``gate`` in the result)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from collab.report import SCHEMAS
from tests.conftest import Cli, FakeAgent, contract_block

DEBATE = ["debate", "Gate test", "--agent", "fake", "--runner", "subprocess", "--rounds", "2"]


def contested(fake_agent: FakeAgent) -> None:
    """A raises I1; B contests it every round: it stays open (no severity: major)."""
    fake_agent.script(
        [
            {"match": ["(Role A) in a structured debate"],
             "replies": ["A." + contract_block(new=[("cache", "hit rate 90%")]), "A again."
                         + contract_block()]},
            {"match": ["(Role B) in a structured debate"],
             "replies": ["B." + contract_block(stances=[("I1", "contest", "cold start")])]},
        ],
        "## TL;DR\n- split\n\n## Crux\nIs a cold start acceptable?\n",
    )  # fmt: skip


def test_debate_gate_fails_on_an_open_major_issue(fake_agent: FakeAgent, cli: Cli) -> None:
    contested(fake_agent)
    code, out, _ = cli(*DEBATE, "--gate", "--fail-on", "major", "--json")
    assert code == 4
    doc = json.loads(out)  # still exactly one document
    Draft202012Validator(SCHEMAS["collab.result/2"]).validate(doc)
    gate = doc["gate"]
    Draft202012Validator(SCHEMAS["collab.gate/1"]).validate(gate)
    assert (gate["outcome"], gate["exit_code"], gate["failing"]) == ("fail", 4, ["I1"])
    run_id = doc["run_id"]

    # The same run, gated later, under each policy.
    code, out, _ = cli("gate", run_id, "--fail-on", "major")
    assert code == 4 and out.count("\n") == 1 and out.startswith("fail: 1 open ")
    code, out, _ = cli("gate", run_id)  # default: blocking; I1 is major
    assert code == 0 and out.startswith("pass: verdict ")
    code, out, _ = cli("gate", run_id, "--json")
    gate_doc: dict[str, Any] = json.loads(out)
    assert code == 0 and gate_doc["schema"] == "collab.gate/1" and gate_doc["run_id"] == run_id


def test_debate_gate_without_json_prints_why(fake_agent: FakeAgent, cli: Cli) -> None:
    contested(fake_agent)
    code, _, err = cli(*DEBATE, "--gate", "--fail-on", "major")
    assert code == 4
    assert [line for line in err.splitlines() if line.startswith("gate: ")] == [
        "gate: fail: 1 open blocking or major issue(s) (I1) reach --fail-on major"
    ]


def test_inconclusive_run_gives_5(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script([], "no contract here")
    code, out, _ = cli(*DEBATE, "--gate", "--json")
    doc = json.loads(out)
    assert doc["verdict"] == "inconclusive"
    assert code == 5 and doc["gate"]["outcome"] == "inconclusive"
    code, out, _ = cli("gate", doc["run_id"])
    assert code == 5 and out.startswith("inconclusive: ")


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--gate", "--fail-on", "nope"], "--fail-on must be one of blocking, major, split"),
     (["--fail-on", "major"], "--fail-on needs --gate"),
     (["--gate", "--detach"], "--gate waits for the result")],
)  # fmt: skip
def test_bad_gate_options_start_nothing(
    fake_agent: FakeAgent, cli: Cli, extra: list[str], message: str
) -> None:
    code, out, _ = cli(*DEBATE, *extra, "--json")
    assert code == 2
    doc = json.loads(out)
    assert doc["schema"] == "collab.error/1" and message in doc["error"]["message"]
    assert fake_agent.calls() == []
    code, out, _ = cli("list", "--json")
    assert json.loads(out)["runs"] == []


def test_gate_on_an_unknown_run_is_a_usage_error(cli: Cli) -> None:
    code, _, err = cli("gate", "20990101-000000-abcdef")
    assert code == 2 and err.count("\n") == 1


def test_a_failed_run_keeps_its_own_exit_code(fake_agent: FakeAgent, cli: Cli) -> None:
    fake_agent.script([], {"text": "", "exit": 1, "stderr": "boom"})
    code, out, _ = cli(*DEBATE, "--gate", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["status"] == "failed" and "gate" not in doc
    code, _, err = cli("gate", doc["run_id"])
    assert code == 1 and "did not finish (failed): no gate" in err


def test_a_run_left_without_its_driver_names_no_none(cli: Cli) -> None:
    """A run whose driver died before it began (pending, no error saved): the line says
    what to do, never the literal "None" of the missing error."""
    from collab.request import DebateRequest, build_config
    from collab.state import RunState
    from collab.store import RunDir, new_run_id

    run_dir = RunDir(new_run_id())
    cfg = build_config(DebateRequest(topic="Gate test"), ["claude", "codex", "gemini"])
    run_dir.create(RunState(run_id=run_dir.run_id, config=cfg, status="pending").to_dict())
    code, out, err = cli("gate", run_dir.run_id)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "None" not in err
    assert f"did not finish (pending): no gate; collab resume {run_dir.run_id}" in err
