"""A context file changed or deleted between a stop and ``collab resume``.

The run goes on with the text saved in state.json when it started (what its saved turns
already argued from), never the file as it is now, and says so: a warning in the terminal
and in events.jsonl, and kept in state.json (the report's Warnings).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from collab.store import RunDir
from tests.conftest import Cli, FakeAgent
from tests.e2e.test_debate_tmux import (
    Spawned,
    assert_each_turn_once,
    debate_args,
    judge_rule,
    read_state,
    run_ids,
    say,
    spawn_collab,
    spawned_fixture,  # noqa: F401  (fixture, used by name)
    turn_calls,
    turn_rule,
    wait_for_calls,
)
from tests.helpers import JUDGE_REST

N = 2
SAVED = "CONTEXT-V1: the service handles 40k requests per second at peak."
NEW = "CONTEXT-V2: rewritten after the run started."


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one warning, one line


def script(fake: FakeAgent) -> None:
    """Every turn is answered only if its prompt holds the saved text and not the new."""
    rules: list[dict[str, object]] = [
        judge_rule("## TL;DR\n- CONTEXT-JUDGE done" + JUDGE_REST),
        {"match": [NEW], "replies": [say("SAW-THE-NEW-FILE")]},
    ]
    for r in range(1, N + 1):
        for side in ("A", "B"):
            first: list[object] = [say("B-INTERRUPTED", sleep=60)] if (r, side) == (1, "B") else []
            reply = say(f"{side}{r} argues", new=[(f"Point {side}{r}", "ev")])
            rules.append(turn_rule(side, r, N, *first, reply, probe=[SAVED]))
    fake.script(rules, "UNEXPECTED-PROMPT: the saved context is missing")


@pytest.mark.parametrize("change", ["changed", "deleted", "replaced-by-a-directory"])
def test_resume_uses_the_saved_context_and_warns_when_the_file_changed(
    no_agent_processes: None,
    fake_agent: FakeAgent,
    cli: Cli,
    tmp_path: Path,
    spawned: list[Spawned],
    change: str,
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(SAVED + "\n", encoding="utf-8")
    script(fake_agent)
    args = debate_args(rounds=N, runner="subprocess", extra=["--context", str(notes)])
    proc = spawn_collab(args, tmp_path)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, N)
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.wait() == 130, proc.err
    (run_id,) = run_ids()
    before = read_state(run_id)
    assert before.status == "interrupted" and before.warnings == []
    assert [c.text for c in before.config.contexts] == [SAVED + "\n"]

    if change == "changed":
        notes.write_text(NEW + "\n", encoding="utf-8")
        what = "changed on disk"
    elif change == "deleted":
        notes.unlink()
        what = "is gone (or unreadable from here)"
    else:
        notes.unlink()
        notes.mkdir()
        what = "is gone (or unreadable from here)"
    warning = (
        f"context file {notes} {what} since the run started; the run goes on with the text "
        "saved when it started (start a new debate to use the file as it is now)"
    )

    res = cli("resume", run_id, env={"COLUMNS": "400"})  # the warning on one line
    assert res.code == 0, res.err
    assert f"⚠ {warning}" in res.err.splitlines()
    after = read_state(run_id)
    assert after.status == "done" and after.rounds_done() == N
    assert_each_turn_once(after)
    assert after.config == before.config  # the saved text, untouched
    assert after.warnings == [warning]
    # Every turn, before and after the resume, was asked with the saved text.
    calls = fake_agent.calls()
    assert all(c["rule"] is not None and c["rule"] != 1 for c in calls), calls
    assert len(turn_calls(calls, "A", 1, N)) == 1 and len(turn_calls(calls, "B", 1, N)) == 2
    b1 = after.turn(1, "B")
    assert b1 is not None and b1.prose == "B1 argues"
    # The warning is kept where people and programs look.
    run_dir = RunDir(run_id).path
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    assert [e["text"] for e in events if e["event"] == "warning"] == [warning]
    assert warning in cli("show", run_id).out
    assert warning in (run_dir / "report.html").read_text(encoding="utf-8")


def test_resume_with_the_context_file_unchanged_says_nothing(
    fake_agent: FakeAgent,
    cli: Cli,
    tmp_path: Path,
    spawned: list[Spawned],
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(SAVED + "\n", encoding="utf-8")
    script(fake_agent)
    args = debate_args(rounds=N, runner="subprocess", extra=["--context", str(notes)])
    proc = spawn_collab(args, tmp_path)
    spawned.append(proc)
    wait_for_calls(fake_agent, "B", 1, N)
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.wait() == 130, proc.err
    (run_id,) = run_ids()
    notes.touch()  # a newer mtime, the same text: not a change

    res = cli("resume", run_id)
    assert res.code == 0, res.err
    assert "context file" not in res.err
    assert read_state(run_id).warnings == []
