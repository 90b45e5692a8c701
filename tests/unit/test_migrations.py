"""state.json migrations: what a v1 document becomes at v2, one field at a time."""

from __future__ import annotations

import copy
from typing import NamedTuple

import pytest

from collab.migrations import LATEST, MIGRATIONS, migrate

Doc = dict[str, object]


def v1_doc() -> Doc:
    return {
        "schema_version": 1,
        "run_id": "20261201-120000-abcdef",
        "config": {"topic": "T", "rounds": 3},
        "turns": [
            {"round_no": 1, "side": "A",
             "contract": {"new_points": [{"title": "p", "evidence": "e"}] * 2,
                          "stances": [{"id": "I1", "stance": "agree", "evidence": "x"}]}},
            {"round_no": 1, "side": "B", "contract": None},
        ],
        "judge": {"text": "## TL;DR", "fallback": False, "meta": None},
    }  # fmt: skip


NO_OPTIONS: Doc = {"options": [], "constraints": [], "leaning": None}
STEERING: Doc = {"decisions": [], "followups": [], "continues": [], "superseded_judges": []}
UNSTAMPED: Doc = {"ledger_stamp": None}  # m008: a kept ledger no replay rules are known for


class Row(NamedTuple):
    test_id: str
    where: tuple[str | int, ...]
    expected: object


ROWS = [
    Row("opening-sequential", ("config", "opening"), "sequential"),
    Row("agent-setup-lean", ("config", "agent_setup"), "lean"),
    Row("tools-none", ("config", "tools"), "none"),
    Row("items-sent-from-contract", ("turns", 0, "items_sent"), 3),
    Row("items-kept-from-contract", ("turns", 0, "items_kept"), 3),
    Row("items-without-contract", ("turns", 1, "items_kept"), 0),
    Row("judge-first-none", ("judge_first",), None),
    Row("judge-raw-none", ("judge", "raw"), None),
    Row("point-severity-major", ("turns", 0, "contract", "new_points", 1, "severity"), "major"),
    Row("evidence-checks-empty", ("turns", 1, "evidence_checks"), []),
    Row("stance-table-v1", ("stance_table",), "v1"),
    Row("decisions-none", ("decisions",), []),
    Row("followups-none", ("followups",), []),
    Row("continues-none", ("continues",), []),
    Row("superseded-judges-none", ("superseded_judges",), []),
    Row("version", ("schema_version",), LATEST),
    Row("depth-standard", ("config", "depth"), "standard"),
    Row("options-none", ("config", "options"), []),
    Row("constraints-none", ("config", "constraints"), []),
    Row("leaning-none", ("config", "leaning"), None),
    Row("turn-order-fixed", ("config", "turn_order"), "fixed"),
    Row(
        "round-1-order-recorded",
        ("round_orders", 0),
        {"round_no": 1, "order": ["A", "B"], "at_once": False},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_v1_fields_get_what_v1_did(row: Row) -> None:
    node: object = migrate(v1_doc(), 1)
    for key in row.where:
        node = node[key]  # type: ignore[index]
    assert node == row.expected


def test_what_a_v1_run_said_is_kept() -> None:
    doc = v1_doc()
    doc["config"] = {"topic": "T", "rounds": 3, "opening": "blind", "tools": "read"}
    out = migrate(copy.deepcopy(doc), 1)
    assert out["config"] == {**doc["config"], "agent_setup": "lean", "depth": "standard",  # type: ignore[dict-item]
                             **NO_OPTIONS, "turn_order": "fixed"}  # fmt: skip
    assert out["round_orders"] == [{"round_no": 1, "order": ["A", "B"], "at_once": True}]


def test_damage_is_left_for_the_loader_to_name() -> None:
    doc: Doc = {"schema_version": 1, "config": "oops", "turns": ["x", 3], "judge": 7}
    assert migrate(copy.deepcopy(doc), 1) == {
        **doc, "schema_version": LATEST, "judge_first": None, "stance_table": "v1", **STEERING,
        **UNSTAMPED,
    }  # fmt: skip


def test_versions_are_named_and_counted() -> None:
    assert LATEST == len(MIGRATIONS) + 1 == 9
    assert [m.__name__ for m in MIGRATIONS] == [
        "m001_protocol_v2_fields",
        "m002_stance_table_v1",
        "m003_severity_and_evidence_checks",
        "m004_steering",
        "m005_depth",
        "m006_decision_options",
        "m007_panels",
        "m008_ledger_stamp",
    ]
    current = migrate(v1_doc(), 1)
    assert migrate(copy.deepcopy(current), LATEST) == current  # nothing to do at the latest


def test_a_v2_run_gets_severity_and_keeps_what_it_said() -> None:
    doc: Doc = {
        "schema_version": 2,
        "turns": [{"contract": {"new_points": [{"title": "p", "evidence": "e"},
                                               {"title": "q", "evidence": "f",
                                                "severity": "minor"}]}}],
    }  # fmt: skip
    out = migrate(doc, 2)
    points = out["turns"][0]["contract"]["new_points"]  # type: ignore[index]
    assert [p["severity"] for p in points] == ["major", "minor"]
    assert out["turns"][0]["evidence_checks"] == []  # type: ignore[index]


def test_a_v2_run_keeps_the_v1_stance_table() -> None:
    """A run saved before the stance table v2 replays its ledger by the old rule, and a
    run that already says which table it uses keeps it."""
    doc: Doc = {"schema_version": 2, "run_id": "r"}
    assert migrate(copy.deepcopy(doc), 2) == {
        **doc,
        "schema_version": LATEST,
        "stance_table": "v1",
        **STEERING,
        **UNSTAMPED,
    }
    said: Doc = {"schema_version": 2, "stance_table": "v2"}
    assert migrate(copy.deepcopy(said), 2)["stance_table"] == "v2"


def test_a_v4_run_keeps_what_it_recorded_and_gets_no_steering() -> None:
    doc: Doc = {"schema_version": 4, "run_id": "r", "decisions": [{"kind": "choice"}]}
    out = migrate(copy.deepcopy(doc), 4)
    assert out == {**STEERING, **doc, "schema_version": LATEST, **UNSTAMPED}


def test_a_v6_run_weighed_no_options_and_keeps_what_it_said() -> None:
    doc: Doc = {"schema_version": 6, "config": {"topic": "T", "options": ["x", "y"]}}
    out = migrate(copy.deepcopy(doc), 6)
    assert out["config"] == {"topic": "T", "options": ["x", "y"], "constraints": [],
                             "leaning": None, "turn_order": "fixed"}  # fmt: skip


def test_a_v8_run_keeps_its_ledger_copy_but_is_marked_unstamped() -> None:
    """m008: a run saved before the stamp keeps the ledger copy it wrote, marked as made
    by no known rules (so collab list replays its turns); a stamp already there stays."""
    doc: Doc = {"schema_version": 8, "run_id": "r", "ledger": [{"id": "I1"}]}
    assert migrate(copy.deepcopy(doc), 8) == {**doc, "schema_version": LATEST, **UNSTAMPED}
    stamped: Doc = {"schema_version": 8, "ledger_stamp": "schema 9, replay 1"}
    assert migrate(copy.deepcopy(stamped), 8)["ledger_stamp"] == "schema 9, replay 1"
