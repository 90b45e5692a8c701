"""Megabyte replies are bounded: cut at the reply cap with a visible marker before they are
stored in state.json, printed, or put into the next prompt or the Judge's; the whole
reply is kept once, in the run dir's replies/."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST

ROLE = {"A": "(Role A) in a structured debate", "B": "(Role B) in a structured debate"}
JUDGE = "neutral judge"
ROUNDS = 7
# Evidence that changes from round to round, well past the circularity threshold.
SAYS = [
    "", "latency budgets decide it", "the audit log shows otherwise",
    "replication lag breaks that", "cost per tenant doubles", "the SLA forbids a window",
    "staffing cannot carry two stacks", "the migration plan has no rollback",
]  # fmt: skip
MEGA = 1_000_000
MAX_CHARS = 1000
CAP = 8 * MAX_CHARS  # REPLY_CAP_FACTOR × --max-chars


def big(tag: str) -> str:
    line = f"{tag} argues at length, and again. "
    return (line * (MEGA // len(line) + 1))[:MEGA]


def test_megabyte_replies_for_seven_rounds_stay_bounded(
    cli: Cli, fake_agent: FakeAgent, tmp_path: Path
) -> None:
    rules: list[dict[str, object]] = []
    for r in range(1, ROUNDS + 1):
        for side in ("A", "B"):
            # Fresh evidence on every known issue each round: never circular, 7 rounds.
            known = 2 * (r - 1) + (1 if side == "B" and r > 1 else 0)
            stances = [(f"I{i}", "contest", f"{SAYS[r]} ({side} on I{i})")
                       for i in range(1, known + 1)]  # fmt: skip
            block = contract_block(new=[(f"Point {side}{r}", f"ev {side}{r}")], stances=stances)
            rules.append({"match": [ROLE[side], f"This is round {r} of {ROUNDS}"],
                          "replies": [big(f"{side}{r}") + block]})  # fmt: skip
    rules.append({"match": [JUDGE], "replies": ["## TL;DR\n" + big("JUDGE") + JUDGE_REST]})
    fake_agent.script(rules, "unmatched prompt")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = cli.process(
        "debate", "Big replies", "--agent", "fake",
        "--rounds", str(ROUNDS), "--runner", "subprocess", "--max-chars", str(MAX_CHARS),
        "--timeout", "60", "--judge-timeout", "60", "--keep-temp",
        timeout=300, env={"TMPDIR": str(tmp), "COLUMNS": "120"},
    )  # fmt: skip
    assert proc.code == 0, proc.err[-2000:]
    (run,) = (Path(os.environ["COLLAB_HOME"]) / "runs").iterdir()
    state_path = run / "state.json"
    state = json.loads(state_path.read_text(encoding="utf-8"))
    assert state["status"] == "done" and state["stop_reason"] == "max-rounds"
    assert len(state["turns"]) == 2 * ROUNDS
    # state.json stays well under a megabyte (the first release wrote ~8 MB here).
    assert state_path.stat().st_size < 400_000, state_path.stat().st_size
    for t in state["turns"]:
        for field in ("reply", "prose"):
            text = t[field]
            assert len(text) <= CAP + 40, (field, len(text))
            assert "…[truncated " in text and text.endswith(" chars]"), field
        # The contract at the end of the megabyte was still read: the points are there.
        assert t["contract"]["new_points"][0]["title"] == f"Point {t['side']}{t['round_no']}"
        raw = (run / t["raw_file"]).read_text(encoding="utf-8")
        assert len(raw) > MEGA and raw.startswith(f"{t['side']}{t['round_no']} argues")
    assert [i["title"] for i in state["ledger"]][:2] == ["Point A1", "Point B1"]
    judge = state["judge"]["text"]
    assert len(judge) <= 40_000 + 2_000 and "…[truncated " in judge  # + the skipped-ids line
    # What was printed is bounded too (stderr: the debate; stdout: the Judge).
    assert len(proc.err.encode()) < 2 * ROUNDS * (CAP + 4_000), len(proc.err)
    assert len(proc.out.encode()) < 45_000, len(proc.out)
    # What went into the next prompts and the Judge's is cut too.
    (temp_dir,) = tmp.glob("collab-*")
    for prompt in temp_dir.glob("*.prompt"):
        assert prompt.stat().st_size < 200_000, prompt.name
    for report in ("transcript.md", "judge.md", "report.html"):
        assert (run / report).stat().st_size < 1_000_000, report
