"""collab stats, and the per-run numbers in collab show, after real (fake-agent) debates."""

from __future__ import annotations

import jsonschema

from collab.report import SCHEMAS
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, Outcome

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"


def collab(cli: Cli, *args: str) -> Outcome:
    return cli.process(*args, env={"COLUMNS": "120"})


def test_stats_across_runs_and_per_run(cli: Cli, fake_agent: FakeAgent) -> None:
    fake_agent.script(
        [
            {"match": [ROLE_A], "replies": ["A." + contract_block(new=[("Point", "e")])]},
            {"match": [ROLE_B], "replies": ["B." + contract_block(
                stances=[("I1", "agree", "A's benchmark holds")])]},
            {"match": [JUDGE], "replies": ["## TL;DR\n- I1 agreed." + JUDGE_REST]},
        ]
    )  # fmt: skip
    for n in range(2):
        res = collab(cli, "debate", f"Stats {n}", "--agent", "fake", "--rounds", "2",
                     "--runner", "subprocess", "--opening", "sequential", "--json")  # fmt: skip
        assert res.code == 0, res.err
        run_id = res.json()["run_id"]
    res = collab(cli, "stats", "--json")
    assert res.code == 0, res.err
    doc = res.json()
    jsonschema.validate(doc, SCHEMAS["collab.stats/1"])
    assert doc["runs"] == 2 and doc["turns"] == 2 * 2  # converged after round 1: A, B each
    assert doc["concession_rate"] == 0.5 and doc["resolved_by_evidence"] == 2
    assert doc["verdicts"] == {"consensus": 2} and doc["salvage_rate"] == 1.0
    assert doc["judge_fallback_rate"] == 0.0 and doc["rounds_to_converge"] == 1
    table = collab(cli, "stats")
    assert table.code == 0 and "concession rate" in table.out and "50%" in table.out
    show = collab(cli, "show", run_id)
    assert "## Numbers" in show.out and "concession rate: 50%" in show.out
    result = collab(cli, "show", run_id, "--json").json()
    assert result["stats"]["agrees"] == 1 and result["stats"]["verdict"] == "consensus"
