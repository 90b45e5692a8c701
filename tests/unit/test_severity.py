"""Severity: parsed leniently, kept per issue, re-rated by a reasoned stance, counted."""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from collab.contract import (
    Contract,
    NewPoint,
    StanceUpdate,
    contract_from_dict,
    contract_to_dict,
)
from collab.contract_parse import parse
from collab.ledger import Ledger, SeverityChange, apply, ledger_to_dict, open_blocking


def reply(data: object) -> str:
    return "prose\n```json\n" + json.dumps(data) + "\n```"


class Row(NamedTuple):
    test_id: str
    point: dict[str, object]
    severity: str
    warning: str | None  # a substring of the warning line (None: no warning)


ROWS = [
    Row("absent-is-major", {"title": "t", "evidence": "e"}, "major", None),
    Row("blocking", {"title": "t", "evidence": "e", "severity": "blocking"}, "blocking", None),
    Row("minor", {"title": "t", "evidence": "e", "severity": "minor"}, "minor", None),
    Row("case-folded", {"title": "t", "evidence": "e", "severity": " Blocking "}, "blocking", None),
    Row("null-is-major", {"title": "t", "evidence": "e", "severity": None}, "major", None),
    Row("unknown-word", {"title": "t", "evidence": "e", "severity": "urgent"}, "major",
        "new_points[0].severity ('urgent' is not blocking/major/minor)"),
    Row("a-number", {"title": "t", "evidence": "e", "severity": 3}, "major",
        "new_points[0].severity (a number is not"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_point_severity_is_lenient(row: Row) -> None:
    parsed = parse(reply({"new_points": [row.point], "stances": []}), [])
    assert parsed.contract is not None  # a bad severity never costs the point
    assert [p.severity for p in parsed.contract.new_points] == [row.severity]
    if row.warning is None:
        assert parsed.warnings == ()
    else:
        assert any(row.warning in w for w in parsed.warnings), parsed.warnings


def test_stance_severity_parsed_and_a_bad_one_dropped() -> None:
    stances = [
        {"id": "I1", "stance": "contest", "evidence": "x", "severity": "blocking"},
        {"id": "I2", "stance": "contest", "evidence": "y", "severity": "huge"},
    ]
    parsed = parse(reply({"new_points": [], "stances": stances}), ["I1", "I2"])
    assert parsed.contract is not None
    assert [s.severity for s in parsed.contract.stances] == ["blocking", None]
    assert parsed.kept == 2


def test_round_trip_keeps_severity_and_old_contracts_load_as_major() -> None:
    c = Contract((NewPoint("t", "e", "minor"),), (StanceUpdate("I1", "contest", "x", "blocking"),))
    assert contract_from_dict(contract_to_dict(c)) == c
    old = {"new_points": [{"title": "t", "evidence": "e"}], "stances": [], "abstain": None}
    assert contract_from_dict(old).new_points[0].severity == "major"


def test_ledger_records_severity_and_who_re_rated_it() -> None:
    lg = apply(Ledger(), "A", 1, Contract((NewPoint("SQL injection", "q", "blocking"),)))
    assert lg.issues[0].severity == "blocking"
    assert open_blocking(lg) == 1
    # B re-rates it with a reason: the latest reasoned change wins, and is recorded.
    lg = apply(lg, "B", 1, Contract(stances=(StanceUpdate("I1", "contest", "why", "minor"),)))
    assert lg.issues[0].severity == "minor"
    assert lg.issues[0].severity_changes == (SeverityChange("B", "blocking", "minor", 1),)
    assert open_blocking(lg) == 0
    assert ledger_to_dict(lg)[0]["severity_changes"] == [
        {"side": "B", "old": "blocking", "new": "minor", "round_no": 1}
    ]
    # The same severity again is no change.
    same = apply(lg, "A", 2, Contract(stances=(StanceUpdate("I1", "contest", "z", "minor"),)))
    assert same.issues[0].severity_changes == lg.issues[0].severity_changes


def test_a_re_rating_without_a_reason_changes_nothing() -> None:
    lg = apply(Ledger(), "A", 1, Contract((NewPoint("t", "e", "blocking"),)))
    again = apply(lg, "B", 1, Contract(stances=(StanceUpdate("I1", "contest", "", "minor"),)))
    assert again.issues[0].severity == "blocking"
    assert again.issues[0].severity_changes == ()


def test_open_blocking_counts_only_open_blocking_issues() -> None:
    points = (NewPoint("a", "e", "blocking"), NewPoint("b", "e", "major"), NewPoint("c", "e"))
    lg = apply(Ledger(), "A", 1, Contract(points))
    lg = apply(lg, "A", 2, Contract(stances=(StanceUpdate("I1", "drop", "beaten"),)))
    assert open_blocking(lg) == 0
    lg = apply(lg, "B", 2, Contract((NewPoint("d", "e", "blocking"),)))
    assert open_blocking(lg) == 1
