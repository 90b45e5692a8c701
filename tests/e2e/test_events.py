"""The event stream for machines: events.jsonl, ``--events ndjson`` and ``collab watch``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from collab.report import SCHEMAS
from tests.conftest import Cli, FakeAgent, contract_block
from tests.helpers import JUDGE_REST, wait_until

ROLE_A = "(Role A) in a structured debate"
ROLE_B = "(Role B) in a structured debate"
JUDGE = "neutral judge"
FAST = ["--runner", "subprocess", "--timeout", "30", "--judge-timeout", "30"]
EVENT = SCHEMAS["collab.event/1"]


def script(fake: FakeAgent, word_delay: float = 0.0) -> None:
    words = " ".join(f"w{n}" for n in range(12))
    fake.script(
        [
            {"match": [ROLE_A], "replies": [{"text": f"A says {words}."
                                             + contract_block(new=[("Stateless", "ev-a")]),
                                             "word_delay": word_delay}]},
            {"match": [ROLE_B], "replies": [{"text": "B disagrees."
                                             + contract_block(new=[("Revocation", "ev-b")]),
                                             "word_delay": word_delay}]},
            {"match": [JUDGE], "replies": ["## TL;DR\n- I1 and I2 stay open." + JUDGE_REST]},
        ],
        "unmatched prompt",
    )  # fmt: skip


def collab(cli: Cli, *args: str) -> subprocess.Popen[str]:
    return cli.popen(*args, env={"COLUMNS": "120"})


def check_stream(events: list[dict[str, Any]]) -> None:
    """Schema-valid, ``seq`` strictly increasing, turn events keyed by round and side."""
    for ev in events:
        jsonschema.validate(ev, EVENT)
    seqs = [ev["seq"] for ev in events]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1, seqs
    kinds = [ev["event"] for ev in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    for needed in ("round_started", "turn_started", "text", "turn_finished", "ledger",
                   "stop", "judge_started", "judge_finished"):  # fmt: skip
        assert needed in kinds, needed
    finished = [(ev["round"], ev["side"]) for ev in events if ev["event"] == "turn_finished"]
    assert sorted(finished) == [(1, "A"), (1, "B"), (2, "A"), (2, "B")]


def test_events_ndjson_on_stdout_match_the_events_file(cli: Cli, fake_agent: FakeAgent) -> None:
    script(fake_agent)
    proc = collab(cli, "debate", "Events?", "--agent", "fake-stream", "--rounds", "2",
                  "--events", "ndjson", *FAST)  # fmt: skip
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    lines = out.splitlines()
    docs = [json.loads(line) for line in lines]  # every line one JSON document
    result = docs[-1]
    jsonschema.validate(result, SCHEMAS["collab.result/2"])
    assert result["status"] == "done" and result["verdict"] == "split"
    events = docs[:-1]
    check_stream(events)
    assert events[-1]["exit_code"] == 0 and events[-1]["status"] == "done"
    # The text as it was written, in deltas, adds up to the turn's prose.
    a1 = "".join(e["text"] for e in events if e["event"] == "text" and e.get("round") == 1
                 and e.get("side") == "A")  # fmt: skip
    assert a1.startswith("A says w0 w1") and "w11." in a1
    # What stdout carried is what the run dir keeps.
    kept = Path(result["paths"]["run_dir"]) / "events.jsonl"
    assert [json.loads(line) for line in kept.read_text().splitlines()] == events
    assert err == ""  # machine mode: nothing else said


def test_events_and_json_are_exclusive(cli: Cli, fake_agent: FakeAgent) -> None:
    proc = collab(cli, "debate", "X", "--agent", "fake", "--json", "--events", "ndjson", *FAST)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    doc = json.loads(out)
    assert doc["schema"] == "collab.error/1" and "not both" in doc["error"]["message"]
    proc = collab(cli, "debate", "X", "--agent", "fake", "--events", "xml", *FAST)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2 and len(out.splitlines()) == 1
    assert "--events must be ndjson" in json.loads(out)["error"]["message"]


def test_heartbeats_while_a_turn_runs(
    cli: Cli, fake_agent: FakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("collab.eventlog.HEARTBEAT_EVERY", 0.2)
    fake_agent.script(
        [
            {"match": [ROLE_A], "replies": [{"text": "A." + contract_block(new=[("P", "e")]),
                                             "sleep": 1.0}]},
            {"match": [ROLE_B], "replies": ["B." + contract_block()]},
            {"match": [JUDGE], "replies": ["## TL;DR\n- I1 open." + JUDGE_REST]},
        ]
    )  # fmt: skip
    assert cli("debate", "Beats", "--agent", "fake", "--rounds", "2", "--json", *FAST).code == 0
    (run,) = (Path(os.environ["COLLAB_HOME"]) / "runs").iterdir()
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    beats = [e for e in events if e["event"] == "heartbeat" and e.get("side") == "A"
             and e["round"] == 1]  # fmt: skip
    assert beats, "no heartbeat while Role A thought for a second"
    assert [b["elapsed_s"] for b in beats] == sorted(b["elapsed_s"] for b in beats)
    assert all(b["run_left_s"] >= b["turn_left_s"] >= 0 for b in beats)


def test_watch_follows_a_running_debate_and_exits_with_its_code(
    cli: Cli, fake_agent: FakeAgent
) -> None:
    script(fake_agent, word_delay=0.05)
    driver = collab(cli, "debate", "Watch me", "--agent", "fake-stream", "--rounds", "2",
                    "--json", *FAST)  # fmt: skip
    runs = Path(os.environ["COLLAB_HOME"]) / "runs"
    try:

        def made() -> list[Path]:  # a run dir is put in place whole (a hidden temp first)
            return (
                [p for p in runs.iterdir() if not p.name.startswith(".")] if runs.is_dir() else []
            )

        assert wait_until(lambda: bool(made()), 90), driver.poll()
        (run,) = made()
        assert wait_until(lambda: (run / "events.jsonl").exists(), 90), driver.poll()
        watcher = collab(cli, "watch", run.name)
        w_out, w_err = watcher.communicate(timeout=120)
        d_out, d_err = driver.communicate(timeout=120)
    finally:
        for p in (driver,):
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert driver.returncode == 0, d_err
    assert json.loads(d_out)["status"] == "done"
    # The watcher ended when the run ended, with its exit code, showing what happened.
    assert watcher.returncode == 0, w_err
    assert "Watch me" in w_err and "Round 2/2" in w_err and "■ ended: max-rounds" in w_err
    assert "B disagrees." in w_err and "Issue ledger after round 2" in w_err
    assert "I1 and I2 stay open." in w_out  # the Judge's summary on stdout


def test_watch_a_finished_run_replays_it(cli: Cli, fake_agent: FakeAgent) -> None:
    script(fake_agent)
    proc = collab(
        cli, "debate", "Done already", "--agent", "fake", "--rounds", "2", "--json", *FAST
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    run_id = json.loads(out)["run_id"]
    watcher = collab(cli, "watch", run_id)
    w_out, w_err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, w_err
    assert "Done already" in w_err and "I1 and I2 stay open." in w_out


def test_watch_an_interrupted_run_says_how_to_resume(cli: Cli, fake_agent: FakeAgent) -> None:
    fake_agent.script([{"match": [ROLE_A], "replies": [{"hang": True}]}], "B.")
    driver = collab(cli, "debate", "Hang", "--agent", "fake", "--rounds", "2", "--json",
                    "--opening", "sequential", *FAST)  # fmt: skip
    runs = Path(os.environ["COLLAB_HOME"]) / "runs"
    try:
        assert wait_until(lambda: any(c["prompt"] for c in fake_agent.calls()), 30)
        driver.terminate()  # SIGTERM: like Ctrl-C, saved and resumable
        driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
    assert driver.returncode == 130
    (run,) = runs.iterdir()
    watcher = collab(cli, "watch", run.name)
    _, w_err = watcher.communicate(timeout=60)
    assert watcher.returncode == 130
    assert f"collab resume {run.name}" in w_err
