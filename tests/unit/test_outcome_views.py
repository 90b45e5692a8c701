"""What a run came to, wherever it shows: the line a debate ends with (a finished run and
an interrupted one, at 80 and 160 columns, NO_COLOR), ``collab list`` and ``status`` (text
and ``--json``, validated against the published schemas), a batch's tables and index.
Runs are real ones, driven by the orchestrator on the in-process runner."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from rich.console import Console

from collab import eventlog
from collab.batch.entries import Entry
from collab.batch.record import Batch, item_status
from collab.cli.batch_view import progress_table, round_shown
from collab.cli.finish import outcome_line, print_outcome
from collab.cli.tables import batch_table
from collab.control import status_document
from collab.control.progress import Progress, remaining_s
from collab.events import Heartbeat, RunStarted, TurnFinished, TurnStarted
from collab.planning import past_states
from collab.report import SCHEMAS, list_document, result_document
from collab.run_ids import match, short_id, short_ids
from collab.runners.base import TurnJob
from collab.runners.inprocess import Reply
from collab.state import RunState, stored_runs
from collab.store import RunDir
from tests.helpers import Cli, whole_command
from tests.unit.test_orchestrator import (
    JUDGE,
    NO_BLOCK,
    Run,
    config,
    debate,
    said,
    shared,
    stopped,
)

ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-9]m|\x1b\[[0-9;]*9[0-7]m")


def blocking_split(job: TurnJob) -> Reply:
    """Round 1: A raises a blocking point, B a major one; after that: no one agrees. Each
    call costs a cent."""
    return Reply(_blocking_split(job), cost_usd=0.01)


def _blocking_split(job: TurnJob) -> str:
    if job.step.startswith("judge"):
        return JUDGE
    if job.step.startswith("r1-A"):
        point = {"title": "Key rotation has no owner", "evidence": "ops.md", "severity": "blocking"}
        doc = {"new_points": [point], "stances": [], "abstain": None}
        return "Rotation.\n\n```json\n" + json.dumps(doc) + "\n```\n"
    if job.step.startswith("r1-B"):
        return said(["p99 of a session lookup"])
    side = job.step.split("-")[1]
    return said([], [("I1" if side == "B" else "I2", "contest", "still so")])


@shared  # driven once; each test gets a copy in its own home
def finished() -> Run:
    run = debate({}, blocking_split, rounds=2)
    assert run.error is None and run.state.status == "done"
    return run


@shared
def interrupted() -> Run:
    run = debate(
        {"r2-B": [Reply(error=KeyboardInterrupt())]}, blocking_split, rounds=3
    )  # round 2 opens with B
    assert run.state.status == "interrupted"
    return run


def line_of(state: RunState, width: int) -> str:
    out = io.StringIO()
    print_outcome(state, RunDir(state.run_id), Console(file=out, width=width, color_system=None))
    return " ".join(out.getvalue().split())  # the words, however the width wrapped them


def validate(doc: object) -> None:
    assert isinstance(doc, dict)
    Draft202012Validator(SCHEMAS[str(doc["schema"])]).validate(doc)


# -- the line a run ends with ----------------------------------------------------------


@pytest.mark.parametrize("width", [80, 160])
def test_a_finished_run_ends_with_its_verdict_and_what_to_do_next(width: int) -> None:
    state = finished().state
    sid = short_id(state.run_id, [state.run_id])
    line = line_of(state, width)
    assert "verdict split" in line
    assert "2 open (1 blocking) · 0 resolved · 0 dropped" in line
    assert "cost $0.0500" in line and "2/2 rounds" in line
    assert "report.html" in line
    assert f"collab show {sid}" in line and f"collab export {sid}" in line
    assert "stopped" not in line  # a normal finish is not an error


@pytest.mark.parametrize("width", [80, 160])
def test_an_interrupted_run_says_stopped_and_how_to_go_on(width: int) -> None:
    state = interrupted().state
    line = line_of(state, width)
    assert "stopped: interrupted in round 2/3" in line
    assert "so far split: 2 open (1 blocking)" in line  # the ledger so far
    assert f"collab resume {state.run_id}" in line
    # collab debate's own error line says it next: said once
    assert "collab resume" not in outcome_line(state, RunDir(state.run_id), resume_hint=False)
    assert "verdict" not in line.replace("so far", "")  # no final verdict claimed


def test_the_line_is_bold_and_without_colour_under_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = interrupted().state  # its line is yellow on a terminal
    out = io.StringIO()
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(file=out, width=120, force_terminal=True)
    console.print(outcome_line(state, RunDir(state.run_id)))
    text = out.getvalue()
    assert "\x1b[1m" in text  # bold
    assert not ANSI_COLOUR.search(text), repr(text)


def test_a_run_stopped_by_a_limit_says_stopped_but_shows_its_verdict() -> None:
    # debate({}, Reply(said(["x"]), cost_usd=0.03), max_cost=0.01)
    state = stopped("cost-cap-blind-checked-once").state
    line = line_of(state, 160)
    assert "stopped: budget" in line and "verdict" in line and "collab show" in line


# -- the documents -----------------------------------------------------------------------


def test_list_and_status_documents_carry_the_outcome() -> None:
    done, cut = finished().state, interrupted().state
    doc = list_document(stored_runs())
    validate(doc)
    rows = {r["run_id"]: r for r in doc["runs"]}  # type: ignore[attr-defined]
    assert rows[done.run_id]["verdict"] == "split"
    assert rows[done.run_id]["open_blocking"] == 1
    assert rows[done.run_id]["counts"] == {"open": 2, "resolved": 0, "dropped": 0}
    assert rows[cut.run_id]["stop_reason"] == "interrupted"
    assert rows[cut.run_id]["verdict"] is None  # none until it is done
    for state, verdict, reason in ((done, "split", "max-rounds"), (cut, None, "interrupted")):
        status = status_document(RunDir(state.run_id))
        validate(status)
        assert (status["verdict"], status["stop_reason"]) == (verdict, reason)
        assert status["open_blocking"] == 1
        result = result_document(state, RunDir(state.run_id))
        assert result["stop_reason"] == reason
    # state.json itself keeps no stop reason for it: a resume must find the rule unset
    assert RunDir(cut.run_id).load()["stop_reason"] is None


def test_a_listing_reads_and_parses_each_state_json_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done, cut = finished().state, interrupted().state
    bad = RunDir("20261130-101502-badbad")
    bad.create({"run_id": bad.run_id, "config": {"topic": "x", "rounds": "two"}})
    reads: list[str] = []
    parses: list[object] = []
    read_text, from_dict = Path.read_text, RunState.from_dict

    def counted_read(path: Path, *args: Any, **kwargs: Any) -> str:
        if path.name == "state.json":
            reads.append(path.parent.name)
        return read_text(path, *args, **kwargs)

    def counted_parse(d: Mapping[str, object]) -> RunState:
        parses.append(d.get("run_id"))
        return from_dict(d)

    monkeypatch.setattr(Path, "read_text", counted_read)
    monkeypatch.setattr(RunState, "from_dict", staticmethod(counted_parse))
    rows = {r["run_id"]: r for r in list_document(stored_runs())["runs"]}  # type: ignore[attr-defined]
    ids = [done.run_id, cut.run_id, bad.run_id]
    assert sorted(reads) == sorted(ids) and sorted(parses) == sorted(ids)  # once each
    assert rows[done.run_id]["verdict"] == "split"  # the outcome, from that one parse
    assert rows[bad.run_id]["status"] == "damaged"
    assert "state.config" in str(rows[bad.run_id]["reason"])
    reads.clear()
    parses.clear()  # the plan's past costs read the same runs the same way
    assert sorted(s.run_id for s in past_states()) == sorted([done.run_id, cut.run_id])
    assert sorted(reads) == sorted(ids) and sorted(parses) == sorted(ids)


def test_a_list_row_that_cannot_be_replayed_has_no_outcome() -> None:
    raw = {"run_id": "20261130-101502-3fa9c1", "status": "done", "config": {"topic": "x"}}
    from collab.store import StoredRun

    (row,) = list_document([StoredRun("20261130-101502-3fa9c1", raw)])["runs"]  # type: ignore[misc]
    assert "verdict" not in row


# -- the commands ------------------------------------------------------------------------


def cli(*args: str, width: int = 160) -> tuple[int, str]:
    env = {"COLUMNS": str(width), "NO_COLOR": "1"}
    res = CliRunner().invoke(whole_command(), list(args), env=env)
    return res.exit_code, res.output


@pytest.mark.parametrize("width", [80, 160])
def test_list_shows_the_verdict_beside_the_stop_reason(width: int) -> None:
    finished()
    code, out = cli("list", width=width)
    assert code == 0
    assert "max-rounds · split · 1 blocking" in out


def test_list_shows_each_run_by_its_short_id_and_json_keeps_the_whole_one(cli: Cli) -> None:
    # ``cli``: the fixture (tests/conftest.py), not this module's helper
    full = sorted(finished().state.run_id for _ in range(2))
    short = short_ids(full, full)
    res = cli("list", env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert res.code == 0, res.err
    for run_id in full:
        assert short[run_id] in res.out and run_id not in res.out, (run_id, res.out)
        assert match(short[run_id], full) == [run_id]  # what is shown can be typed
    assert sorted(r["run_id"] for r in cli("list", "--json").json()["runs"]) == full


def test_status_of_a_finished_run_points_to_show_not_watch() -> None:
    state = finished().state
    code, out = cli("status", state.run_id)
    assert code == 0
    assert "verdict split" in out and "2 open (1 blocking)" in out
    assert "collab show" in out and "watch" not in out and "left" not in out


def test_status_of_an_interrupted_run_says_so_and_how_to_resume() -> None:
    state = interrupted().state
    code, out = cli("status", state.run_id)
    assert code == 0
    assert "stop reason: interrupted" in out and "collab resume" in out
    assert "watch" not in out and "error: interrupted" not in out


# -- a batch ---------------------------------------------------------------------------


@pytest.fixture
def batch() -> Iterator[Batch]:
    """A batch of three made as ``collab batch`` makes it, its runs driven in-process."""
    topics = ["Event sourcing on Kafka for the order service?", "JWT or sessions?", "Monorepo?"]
    entries = [Entry(n, replace(config(rounds=2), topic=t)) for n, t in enumerate(topics, 1)]
    yield Batch.create(entries, RunDir("x").path, 2)


def test_a_batch_shows_the_round_under_way_short_ids_and_verdicts(batch: Batch) -> None:
    first = batch.items[0]
    state = RunState.from_dict(RunDir(first.run_id).load())
    state.status = "running"
    RunDir(first.run_id).save(state.to_dict())
    running = item_status(first)
    assert round_shown(running) == "1/2"  # not "0/2" while round 1 runs
    for item in batch.items:
        debate({}, blocking_split, state=RunState.from_dict(RunDir(item.run_id).load()))
    batch.status = "done"
    batch.write_index()
    index = json.loads((batch.path / "index.json").read_text())
    validate(index)
    assert [r["verdict"] for r in index["runs"]] == ["split"] * 3
    assert "| split |" in (batch.path / "index.md").read_text()
    ids = {i.run_id: short_id(i.run_id, [j.run_id for j in batch.items]) for i in batch.items}
    for width in (80, 100, 160):
        out = io.StringIO()
        con = Console(file=out, width=width, color_system=None)
        con.print(batch_table(batch.summary_rows(), "batch", ids=ids))
        con.print(progress_table(batch.item_statuses(), ids))
        text = out.getvalue()
        assert max(len(line) for line in text.splitlines()) <= width
        for full, short in ids.items():
            assert 4 <= len(short) < 22 and short in text
            assert full not in text  # the whole id no longer takes the width
        assert "verdict" in text and "split" in text
        # the topics get the room the ids no longer take
        assert ("Event sourcing on Kafka" if width >= 100 else "Event sourcing") in text


def test_a_batch_run_that_stopped_shows_its_last_round_while_the_judge_runs(
    batch: Batch,
) -> None:
    """No-contract stops after round 1 of 2: while its Judge runs it is not "round 2/2"."""
    first = batch.items[0]
    debate({}, NO_BLOCK, state=RunState.from_dict(RunDir(first.run_id).load()))
    state = RunState.from_dict(RunDir(first.run_id).load())
    assert (state.stop_reason, state.rounds_done()) == ("no-contract", 1)
    state.status, state.judge = "running", None  # as it was once stopped, Judge under way
    RunDir(first.run_id).save(state.to_dict())
    assert round_shown(item_status(first)) == "1/2"


def test_status_and_watch_take_a_batch_id(batch: Batch) -> None:
    for item in batch.items:
        debate({}, blocking_split, state=RunState.from_dict(RunDir(item.run_id).load()))
    batch.status = "done"
    batch.save()
    code, out = cli("status", batch.batch_id, "--json")
    assert code == 0 and json.loads(out)["batch_id"] == batch.batch_id
    code, out = cli("status", "@last-batch", width=100)
    assert code == 0 and "split" in out and "JWT or sessions?" in out
    code, out = cli("watch", batch.batch_id, width=100)
    assert code == 0 and "split" in out and batch.batch_id in out


# -- the short id --------------------------------------------------------------------------

IDS = ["20261201-101500-3fa9c1", "20261201-101500-77a9c1", "20261201-101501-0b0b0b"]


@pytest.mark.parametrize(
    ("full", "short"),
    [(IDS[0], "fa9c1"), (IDS[1], "7a9c1"), (IDS[2], "0b0b")],
)
def test_short_id_is_the_shortest_suffix_that_names_only_it(full: str, short: str) -> None:
    assert short_id(full, IDS) == short
    assert match(short, IDS) == [full]


def test_short_id_never_reads_as_an_option_or_a_prefix() -> None:
    ids = ["20261201-1015-aaaa", "20261201-1016-aaaa"]
    assert short_id(ids[0], ids) == "5-aaaa"
    ids = ["2026", "20261201-101500-2026"]  # "2026" is a whole id: the other needs more
    assert short_id(ids[1], ids) == "0-2026"


# -- the time left -------------------------------------------------------------------------


def test_no_time_left_is_guessed_before_any_turn_has_ended() -> None:
    state = RunState(run_id="20261201-101500-3fa9c1", config=config(rounds=3))
    assert remaining_s(state, Progress(), now=0.0) is None  # not 6 turns at a made-up pace


def test_the_turns_running_now_are_not_counted_again_in_the_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A blind round: A ended in 3 s, B has run 1 s; then 4 turns and the Judge."""
    monkeypatch.setattr(eventlog, "HEARTBEAT_EVERY", 0.0)
    seen: list[object] = []
    stream = eventlog.EventStream(lambda logged: seen.append(logged.event))
    stream.emit(RunStarted("r", "t", "custom", 3, "subprocess", None, False, {"A": "a", "B": "b"}))
    stream.emit(TurnStarted(1, "A", "a"))
    stream.emit(TurnStarted(1, "B", "b"))
    stream.emit(TurnFinished(1, "A", "a", "ok", 3.0, None, False, None, (), (), None, "", ()))
    stream.turn_output(1, "B", "", 1.0)
    beat = [e for e in seen if isinstance(e, Heartbeat)][-1]
    assert beat.turn_left_s == 2.0
    assert beat.run_left_s == 2.0 + 4 * 3.0 + 3.0  # B's rest, 4 turns, the Judge


def test_show_gives_the_verdict_with_its_counts_and_ended_or_stopped() -> None:
    done, cut = finished().state, interrupted().state
    code, out = cli("show", done.run_id, "--format", "md")
    assert code == 0
    assert "ended: max-rounds" in out and "stopped" not in out.split("## ")[1]
    assert "verdict: split (2 open · 0 resolved · 0 dropped) · open blocking: 1" in out
    code, out = cli("show", cut.run_id, "--format", "md")
    assert code == 0 and "stopped: interrupted" in out
    page = (RunDir(done.run_id).path / "report.html").read_text()
    assert "ended: max-rounds" in page and "stopped:" not in page


@pytest.mark.parametrize(
    ("reason", "said"),
    [("max-rounds", "ended: max-rounds"), ("converged-early", "ended: converged-early"),
     ("budget", "stopped: budget"), ("timeout", "stopped: timeout")],
)  # fmt: skip
def test_an_mcp_hosts_progress_says_ended_or_stopped(reason: str, said: str) -> None:
    from collab.events import Logged, Stopped
    from collab.mcp_server.follow import Tracker

    message = Tracker(3).message(Logged(1, 0.0, Stopped(reason, "why")))
    assert message == f"{said} — why"


def test_an_mcp_hosts_progress_guesses_no_time_left_before_a_turn_ended() -> None:
    from collab.events import Logged
    from collab.mcp_server.follow import Tracker

    tracker = Tracker(3)
    beat = Heartbeat("A", elapsed_s=1.0, turn_left_s=29.0, run_left_s=209.0, round=1)
    tracker.message(Logged(1, 0.0, beat))
    assert "left" not in tracker.heartbeat(0.0)  # 209 s would be FIRST_GUESS, not this run
    done = TurnFinished(1, "A", "a", "ok", 3.0, None, False, None, (), (), None, "", ())
    tracker.message(Logged(2, 0.0, done))
    tracker.message(Logged(3, 0.0, Heartbeat("B", 1.0, 2.0, 17.0, round=1)))
    assert "about 17s left" in tracker.heartbeat(0.0)


def test_the_schemas_hold_the_outcome_fields_to_their_values() -> None:
    from jsonschema import ValidationError

    state = finished().state
    docs = [
        list_document(stored_runs()),
        status_document(RunDir(state.run_id)),
    ]
    for doc in docs:
        validate(doc)
        row = doc["runs"][0] if "runs" in doc else doc  # type: ignore[index]
        for field, bad in (("verdict", "unanimous"), ("open_blocking", -1)):
            broken = json.loads(json.dumps(doc))
            target = broken["runs"][0] if "runs" in broken else broken
            target[field] = bad
            with pytest.raises(ValidationError):
                validate(broken)
        assert row["verdict"] == "split"
