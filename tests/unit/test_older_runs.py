"""A run saved by every older collab loads and resumes to the end.

``tests/data/older_runs/vN.json`` is the state.json a 2-round debate (the bench agent,
subprocess runner) left when run with the collab that wrote schema N — each file as that
version saved it, from its own code (v1: 63623da, v2: 8c8f7b7, v3: 1ebcd9c, v4: 2b3f605,
v5: 8ac8ca3, v6: 4fae60e, v7: ce65bb3, v8: 76fbfd5). The test cuts each back to where an
interrupt after round 1 leaves a run (round 2's turns and the Judge not yet run), loads it
through the store (the migrations run there) and resumes it with the in-process runner.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collab.migrations import LATEST
from collab.orchestrator import Orchestrator
from collab.runners.base import TurnJob
from collab.runners.inprocess import SCRIPTED_AGENT, InProcessRunner
from collab.state import load_state
from collab.store import RunDir
from tests.helpers import JUDGE_REST

DATA = Path(__file__).resolve().parent.parent / "data" / "older_runs"
VERSIONS = range(1, LATEST)
CONTRACT = '```json\n{"new_points": [], "stances": [], "abstain": null}\n```\n'


def answer(job: TurnJob) -> str:
    if job.step.startswith("judge"):
        return "## TL;DR\nResumed." + JUDGE_REST
    return f"Round two, said after the resume.\n\n{CONTRACT}"


def test_there_is_a_saved_run_of_every_older_version() -> None:
    assert sorted(p.name for p in DATA.glob("v*.json")) == [f"v{v}.json" for v in VERSIONS]


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"v{v}")
def test_a_run_saved_by_an_older_collab_loads_and_resumes_to_the_end(version: int) -> None:
    saved = json.loads((DATA / f"v{version}.json").read_text(encoding="utf-8"))
    assert saved["schema_version"] == version and saved["status"] == "done"
    round_1 = [t for t in saved["turns"] if t["round_no"] == 1]
    assert [t["side"] for t in round_1] == ["A", "B"]
    cut = {
        **saved, "turns": round_1, "judge": None, "status": "interrupted",
        "stop_reason": None, "stop_detail": None, "rounds_done": 1, "checked_rounds": [1],
    }  # fmt: skip
    if "round_orders" in saved:  # v8 on: the orders of the rounds held (round 1 only)
        cut["round_orders"] = [o for o in saved["round_orders"] if o["round_no"] == 1]
    run_dir = RunDir(saved["run_id"])
    run_dir.create()
    run_dir.state_path.write_text(json.dumps(cut), encoding="utf-8")

    state = load_state(run_dir)  # the migrations from ``version`` run here
    assert state.config.topic == "Tabs or spaces for a new Python codebase"
    assert [t.prose for t in state.turns] == [t["prose"] for t in round_1]
    issues = state.ledger().issues
    assert [i.raised_by for i in issues] == ["A", "A", "B", "B"]  # two points each in round 1

    runner = InProcessRunner(answer)
    Orchestrator(
        state, run_dir, agents={"bench": SCRIPTED_AGENT}, runner_factory=runner.factory,
        resumed=True, clock=runner.clock,
    ).run()  # fmt: skip

    assert sorted(runner.steps()) == ["judge-1", "r2-A-1", "r2-B-1"]  # round 1 not run again
    after = json.loads(run_dir.state_path.read_text(encoding="utf-8"))
    assert after["schema_version"] == LATEST and after["status"] == "done"
    # round 1 kept; round 2 in the fixed order (A, then B) every run before the rotation
    # had (v1-v7), or rotated (B, then A: the last speaker moves) from v8 on
    second = [(2, "A"), (2, "B")] if version < 8 else [(2, "B"), (2, "A")]
    assert saved["config"].get("turn_order", "fixed") == ("fixed" if version < 8 else "rotating")
    assert [(t["round_no"], t["side"]) for t in after["turns"]] == [(1, "A"), (1, "B"), *second]
    assert [t["prose"] for t in after["turns"][:2]] == [t["prose"] for t in round_1]
    assert after["judge"]["text"].startswith("## TL;DR\nResumed.")
