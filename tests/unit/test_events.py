"""Typed events: their JSON form (collab.event/1) and reading it back once, by one rule —
not an event: skipped; a known kind with a bad field: reported, never guessed; a kind
this version does not know: kept as Unknown and shown by nobody."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from collab.cli.live import DebateView
from collab.cli.watch import feed_view
from collab.decision import HumanDecision
from collab.eventlog import EventReader, EventStream
from collab.events import (
    AngleInjected,
    BadEvent,
    Decided,
    Event,
    FavoursFlipped,
    FollowupFinished,
    FollowupStarted,
    Heartbeat,
    JudgeFinished,
    JudgeStarted,
    LedgerUpdated,
    Logged,
    Planned,
    RoundsAdded,
    RoundStarted,
    RunFinished,
    RunStarted,
    RunWarning,
    Stance,
    Stopped,
    Text,
    Tokens,
    TurnFinished,
    TurnRetry,
    TurnStarted,
    Unknown,
    from_json,
    to_json,
)
from collab.evidence import EvidenceCheck
from collab.ledger import Issue, Ledger, SeverityChange
from collab.report import SCHEMAS
from tests.helpers import schema_validate

SCHEMA = SCHEMAS["collab.event/1"]
ISSUE = Issue(
    id="I1", title="Stateless", raised_by="B", status="resolved", evidence_a="a.py:3",
    evidence_b="", round_opened=1, round_updated=2, dropped_by=frozenset({"A"}),
    resolution="agree", reason="the test shows it", severity="blocking",
    severity_changes=(SeverityChange("A", "major", "blocking", 2),),
    checks_a=(EvidenceCheck("a.py:3", None, "verified"),),
)  # fmt: skip
PLAN = {
    "schema": "collab.plan/1", "depth": "quick", "rounds": 1, "min_calls": 3, "max_calls": 8,
    "cost_usd": {"low": 0.0088, "high": 0.0088, "estimate": False}, "prices_as_of": None,
    "seats": [{"seat": s, "agent": "fake", "model": None, "usd_per_call": 0.0035,
               "basis": "past runs", "samples": 2} for s in ("A", "B", "judge")],
}  # fmt: skip
EVERY_KIND: list[Event] = [
    RunStarted("r1", "topic", "balanced", 3, "tmux", "tmux attach -t x", False,
               {"A": "Advocate", "B": "Critic"}),
    RoundStarted(1, 3),
    TurnStarted(1, "A", "Advocate"),
    Text("A", "some words", round=1),
    Text("judge", "verdict words"),
    Heartbeat("B", 3.0, 27.0, 120.5, round=1),
    Heartbeat("judge", 3.0, 27.0, 27.0),
    TurnRetry(1, "B", "no-response", "exit 1"),
    TurnFinished(1, "A", "Advocate", "ok", 1.5, 0.01, False, Tokens(10, 20), ("Stateless",),
                 (Stance("I1", "agree"),), None, "prose", ("w",)),
    TurnFinished(2, "B", "Critic", "timeout", 30.0, 0.2, True, None, (), (), "tired", "", ()),
    TurnFinished(2, "C", "Critic", "ok", 3.0, None, False, None, (), (), None, "p", (), "O2"),
    RunWarning("careful"),
    LedgerUpdated(2, Ledger((ISSUE,))),
    AngleInjected(3, "look at costs", ("I1", "I2")),
    Stopped("max-rounds", "3 rounds"),
    JudgeStarted(),
    JudgeStarted({"Position 1": "Security engineer", "Position 2": "Performance engineer"}),
    JudgeFinished("## TL;DR", True),
    RunFinished("done", 0, None),
    FollowupStarted("judge", "why?"),
    Text("A", "because", followup=True),
    Heartbeat("A", 3.0, 1.0, 1.0, followup=True),
    FollowupFinished("A", "because", "ok"),
    RoundsAdded(4, 2, "look at cost"),
    Planned(PLAN, ("plan: depth quick, up to 1 round · 3–8 calls",)),
    Decided(HumanDecision("choice", "Option 2", "me", "2026-12-01T17:00:00+0000", "O2", "cheap")),
    FavoursFlipped(2, "A", "O1", "O2"),
    RunStarted("r1", "topic", "balanced", 4, "tmux", None, True, {"A": "Advocate", "B": "Critic"},
               continued=1, note="look at cost"),
]  # fmt: skip


def line(ev: Event, seq: int = 1) -> dict[str, Any]:
    return to_json(Logged(seq, 1700000000.5, ev))


@pytest.mark.parametrize("ev", EVERY_KIND, ids=lambda ev: f"{ev.kind}")
def test_every_kind_is_schema_valid_json_and_reads_back_the_same(ev: Event) -> None:
    doc = json.loads(json.dumps(line(ev)))  # as a file holds it
    schema_validate(doc, SCHEMA)
    assert from_json(doc) == Logged(1, 1700000000.5, ev)


def test_the_json_keeps_its_keys() -> None:
    """What events.jsonl said before the events were typed (turn events: round, side)."""
    assert line(Text("A", "x", round=2)) == {
        "schema": "collab.event/1", "seq": 1, "ts": 1700000000.5, "event": "text",
        "round": 2, "side": "A", "text": "x",
    }  # fmt: skip
    assert "round" not in line(Text("judge", "x"))
    ledger = line(LedgerUpdated(2, Ledger((ISSUE,))))
    assert ledger["counts"] == {"open": 0, "resolved": 1, "dropped": 0}
    assert ledger["issues"][0]["dropped_by"] == ["A"]


BAD = [
    ("ledger issue status", "ledger", lambda d: d["issues"][0].update(status="weird"), "status"),
    ("ledger issue side", "ledger", lambda d: d["issues"][0].update(raised_by="F"), "raised_by"),
    ("severity", "ledger", lambda d: d["issues"][0].update(severity="huge"), "severity"),
    (
        "evidence check",
        "ledger",
        lambda d: d["issues"][0]["checks_a"][0].update(status="ok"),
        "status",
    ),
    ("turn side", "turn_started", lambda d: d.update(side="F"), "side"),
    ("turn status", "turn_finished", lambda d: d.update(status="great"), "status"),
    ("stance", "turn_finished", lambda d: d["stances"][0].update(stance="maybe"), "stance"),
    ("text side", "text", lambda d: d.update(side="F"), "side"),
    ("exit code", "run_finished", lambda d: d.update(exit_code="0"), "exit_code"),
    ("decision kind", "decided", lambda d: d.update(kind="maybe"), "kind"),
    ("follow-up side", "followup", lambda d: d.update(side="F"), "side"),
    ("missing round", "round_started", lambda d: d.pop("round"), "round"),
    ("judge labels", "judge_started", lambda d: d.update(labels={"Position 1": 3}), "labels"),
]


@pytest.mark.parametrize(("kind", "spoil", "field"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_field_is_rejected_not_guessed(kind: str, spoil: Any, field: str) -> None:
    doc = next(line(ev) for ev in EVERY_KIND if ev.kind == kind)
    spoil(doc)
    with pytest.raises(BadEvent, match=field):
        from_json(doc)


def test_a_newer_kind_is_kept_as_unknown_and_other_lines_are_not_events() -> None:
    doc = {"schema": "collab.event/1", "seq": 4, "ts": 1.0, "event": "forecast", "steps": 3}
    assert from_json(doc) == Logged(4, 1.0, Unknown("forecast", {"steps": 3}))
    assert from_json({"schema": "collab.result/1", "event": "run_finished"}) is None
    assert from_json(["not", "an", "object"]) is None


def write(path: Path, *docs: object, tail: str = "") -> None:
    text = "".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in docs)
    path.write_text(text + tail)


def test_the_reader_reports_a_bad_line_and_keeps_the_rest(tmp_path: Path) -> None:
    bad = line(LedgerUpdated(1, Ledger((ISSUE,))), seq=2)
    bad["issues"][0]["status"] = "weird"
    path = tmp_path / "events.jsonl"
    write(path, line(RoundStarted(1, 3)), bad, "{torn", line(Stopped("x", "y"), seq=3),
          tail='{"schema": "collab.ev')  # fmt: skip
    reader = EventReader(path)
    assert [e.event for e in reader.new()] == [RoundStarted(1, 3), Stopped("x", "y")]
    assert len(reader.problems) == 1
    assert "line 2" in reader.problems[0] and "weird" in reader.problems[0]


def view() -> tuple[DebateView, io.StringIO, io.StringIO]:
    err, out = io.StringIO(), io.StringIO()
    return DebateView(Console(file=err, width=100), Console(file=out, width=100)), err, out


def test_the_view_passes_over_an_unknown_kind() -> None:
    v, err, out = view()
    v.handle(Logged(1, 1.0, Unknown("forecast", {"text": "hidden"})))
    assert err.getvalue() == out.getvalue() == ""


def test_watch_warns_about_a_bad_line_and_shows_the_issues_it_can(tmp_path: Path) -> None:
    bad = line(TurnStarted(1, "A", "Advocate"), seq=2)
    bad["side"] = "F"
    write(tmp_path / "events.jsonl", line(LedgerUpdated(1, Ledger((ISSUE,)))), bad,
          line(RunFinished("done", 0, None), seq=3))  # fmt: skip
    v, err, _ = view()
    assert feed_view(tmp_path, v) == 0
    shown = err.getvalue()
    assert "Stateless" in shown and "resolved" in shown
    assert "skipped: events.jsonl line 2" in shown and "'F'" in shown


def test_the_stream_numbers_coalesces_and_flushes_before_a_turn_ends() -> None:
    got: list[Logged] = []
    stream = EventStream(got.append, first_seq=7)
    stream.emit(TurnStarted(1, "A", "Advocate"))
    stream.turn_output(1, "A", "first ", 0.1)  # the first words go out at once
    stream.turn_output(1, "A", "second ", 0.2)
    stream.turn_output(1, "A", "third", 0.3)
    stream.emit(
        TurnFinished(1, "A", "Advocate", "ok", 1.0, None, False, None, (), (), None, "p", ())
    )
    assert [g.seq for g in got] == [8, 9, 10, 11]
    assert [g.event for g in got[1:3]] == [
        Text("A", "first ", round=1),
        Text("A", "second third", round=1),
    ]


@pytest.mark.parametrize(
    ("kind", "key", "read"),
    [("turn_retry", "detail", "detail"), ("stop", "detail", "detail"),
     ("turn_finished", "prose", "prose")],
)  # fmt: skip
def test_a_missing_detail_or_prose_reads_as_empty(kind: str, key: str, read: str) -> None:
    doc = next(line(ev) for ev in EVERY_KIND if ev.kind == kind)
    del doc[key]
    logged = from_json(doc)
    assert logged is not None and getattr(logged.event, read) == ""
    doc[key] = None
    with pytest.raises(BadEvent, match=key):
        from_json(doc)


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [("plan", "plan", []), ("run_started", "roles", "A"), ("turn_finished", "tokens", 3),
     ("heartbeat", "elapsed_s", "3"), ("run_started", "resumed", "no"),
     ("angle", "issue_ids", [1]), ("continued", "note", 2)],
)  # fmt: skip
def test_every_field_is_read_as_its_declared_type(kind: str, key: str, value: object) -> None:
    doc = next(line(ev) for ev in EVERY_KIND if ev.kind == kind)
    doc[key] = value
    with pytest.raises(BadEvent, match=key):
        from_json(doc)


def test_a_missing_field_with_a_default_reads_as_it() -> None:
    """Files written before a field was added: ``continued`` and ``note`` of run_started,
    ``labels`` of judge_started, ``followup`` of text, ``favours`` of turn_finished."""
    missing = [("run_started", "continued", 0), ("run_started", "note", None),
               ("judge_started", "labels", {}), ("text", "followup", False),
               ("turn_finished", "favours", None)]  # fmt: skip
    for kind, key, want in missing:
        doc = next(line(ev) for ev in EVERY_KIND if ev.kind == kind)
        doc.pop(key, None)
        logged = from_json(doc)
        assert logged is not None and getattr(logged.event, key) == want, (kind, key)


# Every character clean() treats apart (C0, DEL, C1, the invisible ones, the other newlines,
# ANSI), one each side of each range, and text a line escapes or writes as it is.
_EDGES = (
    [chr(c) for c in range(0x00, 0x21)] + ["\x7e", "\x7f", "\x80", "\x9b", "\x9f", "\xa0"]
    + ["\u00ad", "\u061c", "\u180e", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f",
       "\u202a", "\u202e", "\u2028", "\u2029", "\u2060", "\u2064", "\u2066", "\u2069",
       "\ufeff", "\ud800", "\x1b[31m", "\x1b]0;t\x07", "\r\n", "\\", "\\u001b", "\\r", "\\b",
       "\\\\f", '"', "·", "日本", "😀"]
)  # fmt: skip


def test_an_events_line_is_the_cleaned_events_line(tmp_path: Path) -> None:
    """events.jsonl writes a line as it is when cleaning would change none of its strings
    (eventlog's check of the line), else the line of the cleaned event: either way the
    line of the cleaned event, whatever the text holds."""
    from collab.eventlog import JsonlFile
    from collab.events import Logged, RunWarning
    from collab.text import clean_tree

    path = tmp_path / "events.jsonl"
    sink = JsonlFile(path)
    texts = [t for p in _EDGES for t in (p, f"a{p}b", f"plain · {p}")] + ["plain"]
    for text in texts:
        sink(Logged(1, 1.5, RunWarning(text)))
    sink.close()
    want = [
        json.dumps(clean_tree(Logged(1, 1.5, RunWarning(t)).to_json()), ensure_ascii=False)
        for t in texts
    ]
    got = path.read_text(encoding="utf-8").split("\n")
    assert got == [*want, ""]
