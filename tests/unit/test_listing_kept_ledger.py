"""``collab list`` (and every reader of :func:`collab.state.stored_runs`: status views,
the MCP list tool, the cost plan's past runs) takes a run's ledger from the one its
state.json keeps, not from a replay of its turns, where that ledger is this collab's own
(stamped ``LEDGER_STAMP``); anything else is replayed as before. Each kind of saved run —
finished, interrupted, running, saved by each older collab (v1–v7, migrated), a kept
ledger that is damaged or foreign, a damaged field, not JSON — lists byte for byte as
the full path (every run replayed) lists it, with the same ledger."""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from collab.ledger import Ledger, ledger_to_dict
from collab.migrations import LATEST
from collab.report import list_document
from collab.runners.base import TurnJob
from collab.state import (
    _REPLAY_RULES,
    LEDGER_STAMP,
    RunState,
    parse_state,
    parsed_run,
    stored_ledger,
    stored_runs,
)
from collab.store import RunDir, new_run_id, scan_runs
from collab.turns import TurnRecord
from tests.unit.test_orchestrator import JUDGE, Run, debate, said
from tests.unit.test_outcome_views import finished, interrupted

OLDER = Path(__file__).resolve().parent.parent / "data" / "older_runs"
# replay-N*.json: runs as collab saved them under replay rules N (RULES_KINDS).
RULES_RUNS = Path(__file__).resolve().parent.parent / "data" / "kept_ledgers"


def mixed(job: TurnJob) -> str:
    """Round 1: A raises three points, B two (one blocking, with a cite: its evidence is
    checked); round 2: B agrees to I1 and contests I2 as minor, A drops its I3, contests I4
    and agrees to I5: resolved, dropped and open issues, of more than one severity, with
    stances, a severity change and a checked cite (each field of an issue is kept)."""
    if job.step.startswith("judge"):
        return JUDGE
    if job.step.startswith("r1-A"):
        return said(["Tabs break alignment", "Spaces cost bytes", "Editors differ"])
    if job.step.startswith("r1-B"):
        point = {"title": "Mixed files corrupt diffs", "evidence": "see src/diff.py:3",
                 "severity": "blocking"}  # fmt: skip
        doc = {"new_points": [point, {"title": "Style guides say spaces", "evidence": "pep8"}]}
        return "B.\n\n```json\n" + json.dumps(doc | {"stances": [], "abstain": None}) + "\n```\n"
    if job.step.startswith("r2-B"):
        stances = [
            {"id": "I1", "stance": "agree", "evidence": "alignment breaks"},
            {"id": "I2", "stance": "contest", "evidence": "cheap", "severity": "minor"},
        ]
        doc = {"new_points": [], "stances": stances, "abstain": None}
        return "B.\n\n```json\n" + json.dumps(doc) + "\n```\n"
    if job.step.startswith("r2-A"):
        stances = [
            ("I3", "drop", "moot"),
            ("I4", "contest", "diffs cope"),
            ("I5", "agree", "most say so"),
        ]
        return said([], stances)
    return said()


@functools.cache
def _saved(kind: str) -> str:
    """The state.json a real run of ``kind`` saved: its debate is driven once (in the
    COLLAB_HOME of the first test asking, whose run dir it then leaves); every test lists
    a copy of it under a run id of its own."""
    if kind == "running":  # as saved while it runs: round 1 held, no round 2, no Judge
        done = debate(mixed, rounds=3).state
        state = replace(
            done, status="running", stop_reason=None, judge=None,
            turns=[t for t in done.turns if t.round_no == 1], checked_rounds=[1],
            round_orders=[o for o in done.round_orders if o.round_no == 1],
        )  # fmt: skip
        RunDir(state.run_id).save(state.to_dict())
    else:
        run = {"finished": finished, "interrupted": interrupted, "mixed": _mixed}[kind]()
        state = run.state
    rd = RunDir(state.run_id)
    text = rd.state_path.read_text(encoding="utf-8")
    shutil.rmtree(rd.path)
    return text


def _mixed() -> Run:
    run = debate(mixed, rounds=2)
    assert run.error is None
    return run


def _copy(kind: str, edit: Callable[[dict[str, object]], None] | None = None) -> str:
    """A run saved as ``kind`` was (then edited by ``edit``), under a new id."""
    doc = json.loads(_saved(kind))
    if edit is not None:
        edit(doc)
    rd = RunDir(new_run_id())
    rd.create(doc | {"run_id": rd.run_id})
    return rd.run_id


def _older(version: int) -> str:
    rd = RunDir(f"2026010{version}-101010-older{version}")
    doc = json.loads((OLDER / f"v{version}.json").read_text(encoding="utf-8"))
    rd.create(doc | {"run_id": rd.run_id})
    return rd.run_id


def _not_json() -> str:
    rd = RunDir("20261102-101010-notjsn")
    rd.create()
    rd.state_path.write_text('{"schema_version": 8, "run_id": ', encoding="utf-8")
    return rd.run_id


def _damaged_ledger(doc: dict[str, object]) -> None:
    doc["ledger"][0]["status"] = "settled"  # type: ignore[index]


def _foreign_stamp(doc: dict[str, object]) -> None:
    """Stamped by another schema, with a kept ledger no replay makes: it must be replayed."""
    doc["ledger_stamp"] = f"schema {LATEST - 1}, replay 1"
    doc["ledger"] = []


def _damaged_turn(doc: dict[str, object]) -> None:
    doc["turns"][1]["status"] = 7  # type: ignore[index]


# kind → (make the run, does a listing take its kept ledger?)
KINDS: dict[str, tuple[Callable[[], str], bool | None]] = {
    **{k: ((lambda k=k: _copy(k)), True) for k in ("finished", "mixed", "interrupted", "running")},
    **{f"v{v}": ((lambda v=v: _older(v)), False) for v in range(1, LATEST)},  # type: ignore[misc]
    "kept-ledger-damaged": (lambda: _copy("mixed", _damaged_ledger), False),
    "foreign-stamp": (lambda: _copy("mixed", _foreign_stamp), False),
    "damaged-field": (lambda: _copy("finished", _damaged_turn), None),
    "not-json": (_not_json, None),
}


def full_document() -> str:
    """The list as it was made before a kept ledger was read: every run replayed."""
    return json.dumps(list_document(scan_runs(parse=parse_state)), indent=2)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_run_lists_as_the_full_replay_lists_it(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, fast = KINDS[kind]
    run_id = make()
    replays: list[str] = []
    replayed_by = RunState._replayed

    def counted(state: RunState, turns: list[TurnRecord]) -> Ledger:
        replays.append(state.run_id)
        return replayed_by(state, turns)

    monkeypatch.setattr(RunState, "_replayed", counted)
    (run,) = stored_runs()
    assert run.run_id == run_id
    listed_doc = json.dumps(list_document([run]), indent=2)
    # The list replayed exactly the runs whose kept ledger it may not take, once.
    assert replays == ([run_id] if fast is False else [])
    replays.clear()
    assert listed_doc == full_document()
    replays.clear()
    if fast is None:  # damaged: listed with what is wrong, no state, no ledger
        assert run.damage is not None and parsed_run(run) is None
        return
    assert run.state is not None and run.damage is None
    kept = stored_ledger(run.state)
    assert (kept is not None) is fast
    listed = parsed_run(run)
    assert listed is not None
    ledger = listed.ledger()
    assert replays == []  # every later reader of the listed run: that ledger, no replay
    # ... which is the one a replay makes, each issue field by field.
    replayed = RunState.from_dict(run.state).ledger()
    assert ledger == replayed and ledger_to_dict(ledger) == ledger_to_dict(replayed)
    if kept is not None:
        assert ledger == kept and ledger_to_dict(kept) == run.state["ledger"]


def test_the_mixed_run_holds_every_status_and_severity() -> None:
    """So the rows compared above read each one (a status or severity read wrong shows)."""
    run_id = _copy("mixed")
    (run,) = stored_runs()
    listed = parsed_run(run)
    assert listed is not None and run.run_id == run_id
    issues = {i.id: (i.status, i.severity) for i in listed.ledger().issues}
    assert issues == {
        "I1": ("resolved", "major"), "I2": ("open", "minor"), "I3": ("dropped", "major"),
        "I4": ("open", "blocking"), "I5": ("resolved", "major"),
    }  # fmt: skip
    by_id = {i.id: i for i in listed.ledger().issues}
    assert by_id["I2"].severity_changes and by_id["I3"].dropped_by == {"A"}
    assert by_id["I4"].checks_b and by_id["I1"].reason and by_id["I2"].stances
    (row,) = list_document([run])["runs"]  # type: ignore[misc]
    assert (row["verdict"], row["open_blocking"]) == ("partial", 1)
    assert row["counts"] == {"open": 2, "resolved": 2, "dropped": 1}


def test_a_save_stamps_the_ledger_it_keeps() -> None:
    rd = RunDir(finished().state.run_id)
    assert rd.load()["ledger_stamp"] == LEDGER_STAMP == f"schema {LATEST}, replay 1"


# Runs saved under the replay rules (RULES_RUNS/replay-<rules><suffix>.json): the mixed run
# above, and three seats where C's round-2 turn failed, so B's agree alone resolves I1 (an
# absent seat: state.present, ANSWERED) — each with the verdict and counts it lists.
RULES_KINDS = {
    "mixed": ("", "partial", {"open": 2, "resolved": 2, "dropped": 1}),
    "absent-seat": ("-absent-seat", "consensus", {"open": 0, "resolved": 1, "dropped": 0}),
}


@pytest.mark.parametrize("kind", list(RULES_KINDS))
def test_a_run_saved_under_the_replay_rules_keeps_what_todays_replay_makes(kind: str) -> None:
    """The comparisons above hold a run saved and listed by the same code, so a change to
    what the replay makes of the same turns passes them, while every run saved before it
    would list the kept ledger of the old rules where ``collab show`` replays the new ones.
    Runs kept from when the rules were set pin them: if this fails, the replay changed —
    bump ``collab.state._REPLAY_RULES`` and save these runs again under the new number."""
    suffix, verdict, counts = RULES_KINDS[kind]
    text = (RULES_RUNS / f"replay-{_REPLAY_RULES}{suffix}.json").read_text(encoding="utf-8")
    assert json.loads(text)["ledger_stamp"].endswith(f", replay {_REPLAY_RULES}")
    rd = RunDir("20261202-011524-rules1")
    rd.create()
    rd.state_path.write_text(text, encoding="utf-8")
    raw = rd.load()  # migrated, when saved under an older schema
    state = RunState.from_dict(raw)
    assert ledger_to_dict(state.ledger()) == raw["ledger"]
    assert [ledger_to_dict(lg) for lg in state.round_ledgers()] == raw["round_ledgers"]
    (row,) = list_document(scan_runs(parse=parse_state))["runs"]  # type: ignore[misc]
    assert (row["verdict"], row["counts"]) == (verdict, counts)
