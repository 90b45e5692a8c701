"""collab stats, and the per-run numbers in collab show, after real (fake-agent) debates."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema

from collab.report import SCHEMAS
from tests.conftest import FakeAgent, contract_block
from tests.helpers import JUDGE_REST

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"


def collab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collab", *args], capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL, env=dict(os.environ) | {"COLUMNS": "120"},
    )  # fmt: skip


def test_stats_across_runs_and_per_run(fake_agent: FakeAgent) -> None:
    fake_agent.script(
        [
            {"match": [ROLE_A], "replies": ["A." + contract_block(new=[("Point", "e")])]},
            {"match": [ROLE_B], "replies": ["B." + contract_block(
                stances=[("I1", "agree", "A's benchmark holds")])]},
            {"match": [JUDGE], "replies": ["## TL;DR\n- I1 agreed." + JUDGE_REST]},
        ]
    )  # fmt: skip
    for n in range(2):
        res = collab("debate", f"Stats {n}", "--agent", "fake", "--rounds", "2",
                     "--runner", "subprocess", "--opening", "sequential", "--json")  # fmt: skip
        assert res.returncode == 0, res.stderr
        run_id = json.loads(res.stdout)["run_id"]
    res = collab("stats", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    jsonschema.validate(doc, SCHEMAS["collab.stats/1"])
    assert doc["runs"] == 2 and doc["turns"] == 2 * 2  # converged after round 1: A, B each
    assert doc["concession_rate"] == 0.5 and doc["resolved_by_evidence"] == 2
    assert doc["verdicts"] == {"consensus": 2} and doc["salvage_rate"] == 1.0
    assert doc["judge_fallback_rate"] == 0.0 and doc["rounds_to_converge"] == 1
    table = collab("stats")
    assert table.returncode == 0 and "concession rate" in table.stdout and "50%" in table.stdout
    show = collab("show", run_id)
    assert "## Numbers" in show.stdout and "concession rate: 50%" in show.stdout
    result = json.loads(collab("show", run_id, "--json").stdout)
    assert result["stats"]["agrees"] == 1 and result["stats"]["verdict"] == "consensus"
