from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import pytest

from collab.contract import Contract, NewPoint, StanceKind, StanceUpdate
from collab.ledger import (
    CURRENT_TABLE,
    Issue,
    Ledger,
    Side,
    Status,
    TableName,
    apply,
    counts,
    get,
    ledger_to_dict,
    new_points,
    open_issues,
    replay,
    with_checks,
)

Step = tuple[Side, int, Contract | None]


def point(title: str, evidence: str = "") -> Contract:
    return Contract(new_points=(NewPoint(title, evidence),))


def stance(issue_id: str, kind: StanceKind, evidence: str = "") -> Contract:
    return Contract(stances=(StanceUpdate(issue_id, kind, evidence),))


def issue(
    id: str,
    raised_by: Side,
    status: Status,
    ev_a: str,
    ev_b: str,
    opened: int,
    updated: int,
    dropped_by: str = "",
    title: str = "",
    reason: str = "",
) -> Issue:
    """A closed issue records how it closed (agree/drop) and the concession's reason."""
    sides: frozenset[Side] = frozenset(s for s in ("A", "B") if s in dropped_by)
    how = {"resolved": "agree", "dropped": "drop"}.get(status)
    return Issue(
        id, title or f"T{id[1:]}", raised_by, status, ev_a, ev_b, opened, updated, sides,
        how, reason,  # type: ignore[arg-type]
    )  # fmt: skip


A_OPENS: Step = ("A", 1, point("T1", "a1"))


class Case(NamedTuple):
    test_id: str
    steps: list[Step]
    expected: tuple[Issue, ...]


CASES = [
    Case("empty", [], ()),
    Case("new-point", [A_OPENS], (issue("I1", "A", "open", "a1", "", 1, 1),)),
    Case(
        "new-point-by-b",
        [("B", 2, point("T1", "b1"))],
        (issue("I1", "B", "open", "", "b1", 2, 2),),
    ),
    Case(
        "two-new-points-ids",
        [("A", 1, Contract(new_points=(NewPoint("T1", "x"), NewPoint("T2", "y"))))],
        (issue("I1", "A", "open", "x", "", 1, 1), issue("I2", "A", "open", "y", "", 1, 1)),
    ),
    Case(
        "ids-continue-across-turns",
        [A_OPENS, ("B", 1, point("T2", "b"))],
        (issue("I1", "A", "open", "a1", "", 1, 1), issue("I2", "B", "open", "", "b", 1, 1)),
    ),
    Case(
        "agree-by-other-resolves",
        [A_OPENS, ("B", 1, stance("I1", "agree", "fine"))],
        (issue("I1", "A", "resolved", "a1", "fine", 1, 1, reason="fine"),),
    ),
    Case(
        "agree-by-other-empty-evidence-keeps-old",
        [A_OPENS, ("B", 1, stance("I1", "contest", "no")), ("B", 2, stance("I1", "agree"))],
        (issue("I1", "A", "resolved", "a1", "no", 1, 2),),
    ),
    Case(
        "agree-by-raiser-no-status-change",
        [A_OPENS, ("A", 2, stance("I1", "agree", "a2"))],
        (issue("I1", "A", "open", "a2", "", 1, 2),),
    ),
    Case(
        "agree-by-raiser-same-evidence-is-no-change",
        [A_OPENS, ("A", 2, stance("I1", "agree", "a1"))],
        (issue("I1", "A", "open", "a1", "", 1, 1),),
    ),
    Case(
        "contest-updates-evidence",
        [A_OPENS, ("B", 1, stance("I1", "contest", "wrong"))],
        (issue("I1", "A", "open", "a1", "wrong", 1, 1),),
    ),
    Case(
        "contest-reopens-resolved",
        [A_OPENS, ("B", 1, stance("I1", "agree", "ok")), ("A", 2, stance("I1", "contest", "a2"))],
        (issue("I1", "A", "open", "a2", "ok", 1, 2),),
    ),
    Case(
        "contest-reopens-dropped",
        [A_OPENS, ("A", 2, stance("I1", "drop")), ("B", 3, stance("I1", "contest", "b3"))],
        (issue("I1", "A", "open", "a1", "b3", 1, 3, dropped_by="A"),),
    ),
    Case(
        "contest-clears-own-drop",
        [A_OPENS, ("B", 1, stance("I1", "drop")), ("B", 2, stance("I1", "contest", "b2"))],
        (issue("I1", "A", "open", "a1", "b2", 1, 2),),
    ),
    Case(
        "drop-by-raiser",
        [A_OPENS, ("A", 2, stance("I1", "drop", "moot"))],
        (issue("I1", "A", "dropped", "moot", "", 1, 2, dropped_by="A", reason="moot"),),
    ),
    Case(
        "drop-by-non-raiser-only",
        [A_OPENS, ("B", 1, stance("I1", "drop"))],
        (issue("I1", "A", "open", "a1", "", 1, 1, dropped_by="B"),),
    ),
    Case(
        "drop-by-both",
        [A_OPENS, ("B", 1, stance("I1", "drop")), ("A", 2, stance("I1", "drop"))],
        (issue("I1", "A", "dropped", "a1", "", 1, 2, dropped_by="AB"),),
    ),
    Case(
        "drop-twice-by-non-raiser-is-no-change",
        [A_OPENS, ("B", 1, stance("I1", "drop")), ("B", 2, stance("I1", "drop"))],
        (issue("I1", "A", "open", "a1", "", 1, 1, dropped_by="B"),),
    ),
    Case(
        "unknown-id-ignored",
        [A_OPENS, ("B", 1, stance("I7", "agree", "x"))],
        (issue("I1", "A", "open", "a1", "", 1, 1),),
    ),
    Case(
        "abstain-no-change",
        [
            A_OPENS,
            (
                "B",
                2,
                Contract(
                    new_points=(NewPoint("T2", "x"),),
                    stances=(StanceUpdate("I1", "agree", "y"),),
                    abstain="no view",
                ),
            ),
        ],
        (issue("I1", "A", "open", "a1", "", 1, 1),),
    ),
    Case(
        "none-contract-no-change",
        [A_OPENS, ("B", 2, None)],
        (issue("I1", "A", "open", "a1", "", 1, 1),),
    ),
    Case(
        "stances-before-new-points",
        [
            A_OPENS,
            (
                "B",
                2,
                Contract(
                    new_points=(NewPoint("T2", "b2"),),
                    stances=(StanceUpdate("I2", "drop", ""), StanceUpdate("I1", "agree", "ok")),
                ),
            ),
        ],
        (
            issue("I1", "A", "resolved", "a1", "ok", 1, 2, reason="ok"),
            issue("I2", "B", "open", "", "b2", 2, 2),
        ),
    ),
    Case(
        "evidence-updates-per-side",
        [
            A_OPENS,
            ("B", 1, stance("I1", "contest", "b1")),
            ("A", 2, stance("I1", "contest", "a2")),
            ("B", 2, stance("I1", "contest", "b2")),
        ],
        (issue("I1", "A", "open", "a2", "b2", 1, 2),),
    ),
]


def _sequential(steps: list[Step], table: TableName = CURRENT_TABLE) -> Ledger:
    ledger = Ledger()
    for side, round_no, contract in steps:
        if contract is not None:
            ledger = apply(ledger, side, round_no, contract, table)
    return ledger


@pytest.mark.parametrize(list(Case._fields), CASES, ids=[c.test_id for c in CASES])
def test_apply(test_id: str, steps: list[Step], expected: tuple[Issue, ...]) -> None:
    """These cases were written for the v1 table; runs saved before v2 still replay so."""
    ledger = _sequential(steps, "v1")
    assert ledger.issues == expected
    assert replay(steps, "v1") == ledger


def test_apply_does_not_mutate_input() -> None:
    before = replay([A_OPENS])
    apply(before, "B", 1, stance("I1", "agree", "x"))
    assert before == replay([A_OPENS])


def test_queries() -> None:
    steps: list[Step] = [
        ("A", 1, Contract(new_points=(NewPoint("T1", ""), NewPoint("T2", "")))),
        ("B", 1, stance("I1", "agree")),
        ("B", 2, point("T3")),
    ]
    ledger = replay(steps, "v1")
    assert counts(Ledger()) == {"open": 0, "resolved": 0, "dropped": 0}
    assert counts(ledger) == {"open": 2, "resolved": 1, "dropped": 0}
    assert [i.id for i in open_issues(ledger)] == ["I2", "I3"]
    assert (new_points(ledger, 1), new_points(ledger, 2), new_points(ledger, 3)) == (2, 1, 0)
    assert get(ledger, "I3") == ledger.issues[2]
    assert get(ledger, "I9") is None


def test_to_dict_shape() -> None:
    ledger = replay([A_OPENS, ("B", 1, stance("I1", "drop")), ("A", 2, stance("I1", "drop"))], "v1")
    (row,) = ledger_to_dict(ledger)
    assert row["dropped_by"] == ["A", "B"]
    assert row["status"] == "dropped"


def test_every_seats_evidence_and_checks_survive_the_round_trip_through_the_saved_item() -> None:
    """A panel's seats C–E write their evidence and checks into the saved ledger item, and
    the state's reader gets back the same issue."""
    from collab.evidence import EvidenceCheck
    from collab.fields import Fields
    from collab.ledger import LatestStance
    from collab.state import issue_from_fields

    check = (EvidenceCheck("a.py:3", None, "verified"),)
    issue = Issue(
        "I1", "T", "C", "open", "ea", "eb", 1, 2, evidence_c="ec", evidence_d="ed",
        evidence_e="ee", checks_c=check, checks_d=check, checks_e=check,
        stances=(LatestStance("B", "agree", "fair", 2), LatestStance("D", "contest", "no", 2)),
    )  # fmt: skip
    (row,) = ledger_to_dict(Ledger((issue,)))
    for seat in "cde":
        assert row[f"evidence_{seat}"] == f"e{seat}"
        assert row[f"checks_{seat}"] == [{"cite": "a.py:3", "quote": None, "status": "verified"}]
    back = issue_from_fields(Fields(row, "ledger[0]"))
    assert back == issue
    assert back.stances == issue.stances  # not compared by ==: read them too
    (two_seats,) = ledger_to_dict(Ledger((replace(issue, evidence_c="", checks_c=(), stances=()),)))
    assert not {"evidence_c", "checks_c", "stances"} & set(two_seats)


def test_a_replay_goes_on_from_the_ledger_the_steps_before_made() -> None:
    steps: list[Step] = [
        A_OPENS,
        ("B", 1, point("T2", "b1")),
        ("B", 2, stance("I1", "agree", "ok")),
    ]
    assert replay(steps[2:], start=replay(steps[:2])) == replay(steps)
    assert replay(steps[2:], start=replay(steps[:2])).issues[0].status == "resolved"


def test_checking_again_keeps_each_issue_whose_checks_stand() -> None:
    """with_checks on a ledger already checked: the same issues (the saves keep their
    text); a new status for one seat's cite makes that issue anew, its other checks kept."""
    checked = with_checks(
        replay([("A", 1, point("T1", "see a.py:1")), ("B", 1, point("T2", "b2")),
                ("B", 2, stance("I1", "contest", "not b.py:2"))]),
        {("a.py:1", None): "verified", ("b.py:2", None): "wrong-line"},
    )  # fmt: skip
    again = with_checks(checked, {("a.py:1", None): "verified", ("b.py:2", None): "wrong-line"})
    assert again == checked and all(
        x is y for x, y in zip(again.issues, checked.issues, strict=True)
    )
    moved = with_checks(checked, {("a.py:1", None): "verified", ("b.py:2", None): "verified"})
    i1, i2 = moved.issues
    assert i2 is checked.issues[1]  # no cites
    assert i1 is not checked.issues[0] and i1.checks_a == checked.issues[0].checks_a
    assert [c.status for c in i1.checks_b] == ["verified"]
