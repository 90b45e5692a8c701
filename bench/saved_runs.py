"""A COLLAB_HOME holding 100 saved runs, for what ``collab list --json`` costs with a
history (bench ``cpu``): 96 finished 2-round debates, one interrupted, one saved by the
previous schema (``tests/data/older_runs/v7.json``: it migrates), one with a damaged field
(a turn's status), one that is not JSON. The debates are real ones, driven by the
orchestrator on the in-process runner (one blocking point and one major one, contested
to the end; a cent a call), each saved as ``collab debate`` saves it.

Run as a child, with COLLAB_HOME pointing at the home to fill:
``python -m bench.saved_runs``.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OLDER_RUN = REPO / "tests" / "data" / "older_runs" / "v7.json"
FINISHED = 97  # one of them then damaged
JUDGE = (
    "## TL;DR\nThe Judge's summary."
    "\n\n## Crux\n- Which cost matters more here?"
    "\n\n## Open disagreements\n- As the ledger lists them."
    "\n\n## Minority report\n- The other side's best case stands."
)


def _said(new: list[dict[str, str]], stances: list[dict[str, str]]) -> str:
    doc = {"new_points": new, "stances": stances, "abstain": None}
    return "My argument.\n\n```json\n" + json.dumps(doc) + "\n```\n"


def _answer(step: str) -> str:
    if step.startswith("judge"):
        return JUDGE
    if step.startswith("r1-A"):
        return _said([{"title": "Key rotation has no owner", "evidence": "ops.md",
                       "severity": "blocking"}], [])  # fmt: skip
    if step.startswith("r1-B"):
        return _said([{"title": "p99 of a session lookup", "evidence": "bench.md"}], [])
    other = "I1" if step.split("-")[1] == "B" else "I2"
    return _said([], [{"id": other, "stance": "contest", "evidence": "still so"}])


def _debate(rounds: int, interrupt_at: str | None = None) -> str:
    from collab.errors import Interrupted
    from collab.options import DebateRequest
    from collab.orchestrator import Orchestrator
    from collab.request import build_config
    from collab.runners.base import TurnJob
    from collab.runners.inprocess import SCRIPTED, SCRIPTED_AGENTS, InProcessRunner, Reply
    from collab.state import RunState
    from collab.store import RunDir, new_run_id

    def handler(job: TurnJob) -> Reply:
        if interrupt_at is not None and job.step.startswith(interrupt_at):
            return Reply(error=KeyboardInterrupt())
        return Reply(_answer(job.step), cost_usd=0.01)

    req = DebateRequest(
        topic="Tabs or spaces?", agent_a=SCRIPTED, agent_b=SCRIPTED, judge_agent=SCRIPTED,
        runner="subprocess", rounds=rounds,
    )  # fmt: skip
    cfg = build_config(req, SCRIPTED_AGENTS.keys())
    run_dir = RunDir(new_run_id())
    while run_dir.path.exists():
        run_dir = RunDir(new_run_id())
    run_dir.create()
    state = RunState(run_id=run_dir.run_id, config=cfg, status="pending")
    runner = InProcessRunner(handler)
    orch = Orchestrator(
        state, run_dir, agents=SCRIPTED_AGENTS, runner_factory=runner.factory,
        clock=runner.clock,
    )  # fmt: skip
    with contextlib.suppress(Interrupted):  # saved as interrupted, as Ctrl-C leaves it
        orch.run()
    return run_dir.run_id


def fill() -> int:
    """Fill COLLAB_HOME's runs/ as the module's doc says; how many runs it holds."""
    from collab.store import RunDir, runs_dir

    finished = [_debate(2) for _ in range(FINISHED)]
    _debate(3, interrupt_at="r2-B")
    damaged = RunDir(finished[-1]).state_path
    doc = json.loads(damaged.read_text(encoding="utf-8"))
    doc["turns"][1]["status"] = 7
    damaged.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    older = RunDir("20261101-101010-aaaaaa")
    older.create(json.loads(OLDER_RUN.read_text(encoding="utf-8")) | {"run_id": older.run_id})
    not_json = RunDir("20261102-101010-bbbbbb")
    not_json.create()
    not_json.state_path.write_text('{"schema_version": 8, "run_id": ', encoding="utf-8")
    return sum(1 for _ in runs_dir().iterdir())


if __name__ == "__main__":
    print(fill())
