"""The stance table, in one place: raiser or not × agree/contest/drop × with or without
a reason, for the table runs use today (v2) and the one older runs keep (v1)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.contract import Contract, NewPoint, StanceKind, StanceUpdate
from collab.contract_parse import parse
from collab.ledger import (
    CURRENT_TABLE,
    STANCE_TABLES,
    Issue,
    Ledger,
    Resolution,
    Side,
    Status,
    TableName,
    apply,
    effect,
    replay,
    resolves,
    tally,
)
from collab.seats import seat_list

OPENED = replay([("A", 1, Contract(new_points=(NewPoint("T1", "a1"),)))])


class Cell(NamedTuple):
    table: TableName
    raiser: bool
    stance: StanceKind
    reason: str
    status: Status
    resolution: Resolution | None
    dropped_by: str
    changed: bool


CELLS = [
    # v2: what the contract text tells the debaters.
    Cell("v2", True, "agree", "b convinced me", "dropped", "conceded", "A", True),
    Cell("v2", True, "agree", "", "open", None, "", False),
    Cell("v2", True, "contest", "still true", "open", None, "", True),
    Cell("v2", True, "contest", "", "open", None, "", False),
    Cell("v2", True, "drop", "moot now", "dropped", "drop", "A", True),
    Cell("v2", True, "drop", "", "open", None, "", False),
    Cell("v2", False, "agree", "fair point", "resolved", "agree", "", True),
    Cell("v2", False, "agree", "", "open", None, "", False),
    Cell("v2", False, "contest", "wrong", "open", None, "", True),
    Cell("v2", False, "contest", "", "open", None, "", False),
    Cell("v2", False, "drop", "not worth it", "open", None, "B", True),
    Cell("v2", False, "drop", "", "open", None, "", False),
    # v1: what runs saved before v2 keep (a raiser's agree changed nothing).
    Cell("v1", True, "agree", "b convinced me", "open", None, "", True),
    Cell("v1", True, "agree", "", "open", None, "", False),
    Cell("v1", True, "contest", "still true", "open", None, "", True),
    Cell("v1", True, "contest", "", "open", None, "", False),
    Cell("v1", True, "drop", "moot now", "dropped", "drop", "A", True),
    Cell("v1", True, "drop", "", "dropped", "drop", "A", True),
    Cell("v1", False, "agree", "fair point", "resolved", "agree", "", True),
    Cell("v1", False, "agree", "", "resolved", "agree", "", True),
    Cell("v1", False, "contest", "wrong", "open", None, "", True),
    Cell("v1", False, "contest", "", "open", None, "", False),
    Cell("v1", False, "drop", "not worth it", "open", None, "B", True),
    Cell("v1", False, "drop", "", "open", None, "B", True),
]


def _id(c: Cell) -> str:
    who = "raiser" if c.raiser else "other"
    return f"{c.table}-{who}-{c.stance}-{'reason' if c.reason else 'no-reason'}"


@pytest.mark.parametrize("cell", CELLS, ids=[_id(c) for c in CELLS])
def test_stance_table(cell: Cell) -> None:
    side: Side = "A" if cell.raiser else "B"
    stance = Contract(stances=(StanceUpdate("I1", cell.stance, cell.reason),))
    (issue,) = apply(OPENED, side, 2, stance, cell.table).issues
    assert (issue.status, issue.resolution, "".join(sorted(issue.dropped_by))) == (
        cell.status, cell.resolution, cell.dropped_by,
    )  # fmt: skip
    closed = issue.status != "open"
    assert issue.reason == (cell.reason if closed else "")  # why it closed, when it did
    assert issue.evidence(side) == (cell.reason or (OPENED.issues[0].evidence(side)))
    assert (issue.round_updated == 2) is cell.changed
    assert (issue != OPENED.issues[0]) is cell.changed
    # only a stance that changed the issue and does something by the table is kept as the
    # seat's latest (v1: a raiser's reasoned agree updates its evidence, yet is no stance)
    acted = effect(cell.table, cell.raiser, cell.stance, bool(cell.reason)) != "nothing"
    assert (issue.stance_of(side) is not None) is (acted and cell.changed)


def test_the_table_is_whole() -> None:
    """Every table has a decision for every cell: nothing is left to a default."""
    cells = {(r, k, w) for r in (True, False) for k in ("agree", "contest", "drop") for w in (1, 0)}
    for name, table in STANCE_TABLES.items():
        assert set(table) == cells, name
    assert CURRENT_TABLE == "v2"
    assert {(c.table, c.raiser, c.stance, bool(c.reason)) for c in CELLS} == {
        (t, *cell) for t in STANCE_TABLES for cell in cells
    }
    assert effect("v2", True, "agree", True) == "concede"


def test_both_sides_stepping_away_drops_it() -> None:
    b_away = apply(OPENED, "B", 2, Contract(stances=(StanceUpdate("I1", "drop", "x"),)))
    assert b_away.issues[0].status == "open"
    (issue,) = apply(b_away, "A", 3, Contract(stances=(StanceUpdate("I1", "drop", "y"),))).issues
    assert (issue.status, issue.resolution, issue.dropped_by) == (
        "dropped",
        "drop",
        frozenset("AB"),
    )
    # a contest withdraws only the contester's own step away
    contest = Contract(stances=(StanceUpdate("I1", "contest", "z"),))
    (back,) = apply(b_away, "B", 3, contest).issues
    assert (back.status, back.dropped_by) == ("open", frozenset())


def test_a_concession_is_reopened_by_a_contest() -> None:
    conceded = apply(OPENED, "A", 2, Contract(stances=(StanceUpdate("I1", "agree", "ok"),)))
    (again,) = apply(
        conceded, "B", 3, Contract(stances=(StanceUpdate("I1", "contest", "z"),))
    ).issues
    assert (again.status, again.resolution, again.reason, again.dropped_by) == (
        "open", None, "", frozenset("A")
    )  # fmt: skip


def test_a_reasonless_agree_on_ones_own_issue_is_warned_and_changes_nothing() -> None:
    reply = 'Fine.\n```json\n{"stances": [{"id": "I1", "stance": "agree"}]}\n```'
    parsed = parse(reply, {"I1"})
    assert parsed.contract is None
    assert any("agree I1 without a reason" in w for w in parsed.warnings)
    assert replay([("A", 1, Contract(new_points=(NewPoint("T1", "a1"),)))]) == OPENED


def test_the_issue_report_round_3_concession() -> None:
    """A on its own I2: "B showed the XSS exposure is from localStorage…" → conceded."""
    reply = (
        "B is right on this one.\n```json\n"
        '{"new_points": [], "stances": [{"id": "I2", "stance": "agree", "evidence": '
        '"B showed the XSS exposure is from localStorage, not the format"}], "abstain": null}\n```'
    )
    steps: list[tuple[Side, int, Contract | None]] = [
        ("A", 1, Contract(new_points=(NewPoint("JWT", "a"), NewPoint("XSS", "b")))),
        ("B", 1, Contract(stances=(StanceUpdate("I2", "contest", "localStorage"),))),
        ("A", 3, parse(reply, {"I1", "I2"}).contract),
    ]
    i2 = replay(steps).issues[1]
    assert (i2.status, i2.resolution, i2.dropped_by) == ("dropped", "conceded", frozenset("A"))
    assert i2.reason.startswith("B showed")
    assert replay(steps, "v1").issues[1].status == "open"  # the old rule, kept for old runs


@pytest.mark.parametrize(("table", "kept"), [("v2", True), ("v1", False)])
def test_abstain_beside_stances(table: TableName, kept: bool) -> None:
    both = Contract(stances=(StanceUpdate("I1", "agree", "ok"),), abstain="tired")
    (issue,) = apply(OPENED, "B", 2, both, table).issues
    assert (issue.status == "resolved") is kept
    alone = Contract(abstain="tired")
    assert apply(OPENED, "B", 2, alone, table) == OPENED


def test_issue_defaults() -> None:
    i = Issue("I1", "t", "A", "open", "", "", 1, 1)
    assert (i.resolution, i.reason, i.dropped_by) == (None, "", frozenset())
    assert Ledger().issues == ()


# -- a stance per seat: the same table for 2–5 seats -------------------------------------
# Seat A raises I1 in round 1; the stances below are round 2's, in order. ``absent``: seats
# whose round-2 turn failed (not present); ``quorum``: --quorum. Each row runs for every
# seat count it names; "others" stands for every seat but A, "some" for B alone.


class SeatRow(NamedTuple):
    test_id: str
    counts: tuple[int, ...]
    stances: tuple[tuple[str, StanceKind, str], ...]  # (seat or others/some, stance, reason)
    status: Status
    absent: str = ""
    quorum: int | None = None
    tally: tuple[int, int, int] | None = None  # (agree, contest, silent) among non-raisers


ALL = (2, 3, 4, 5)
PANELS = (3, 4, 5)
SEAT_ROWS = [
    SeatRow("every-other-seat-agrees", ALL, (("others", "agree", "fair"),), "resolved"),
    SeatRow(
        "one-agree-while-others-silent-stays-open",
        PANELS,
        (("B", "agree", "fair"),),
        "open",
        tally=None,
    ),
    SeatRow(
        "one-agree-of-two-seats-resolves",
        (2,),
        (("B", "agree", "fair"),),
        "resolved",
        tally=(1, 0, 0),
    ),
    SeatRow(
        "an-agree-without-a-reason-is-silence",
        PANELS,
        (("others", "agree", "fair"), ("B", "agree", "")),
        "resolved",
    ),
    SeatRow(
        "all-agree-then-one-contests",
        ALL,
        (("others", "agree", "fair"), ("B", "contest", "no")),
        "open",
    ),
    SeatRow(
        "an-absent-seat-is-not-waited-for",
        PANELS,
        (("others-but-C", "agree", "fair"),),
        "resolved",
        absent="C",
    ),
    SeatRow(
        "the-raiser-absent-others-agree",
        ALL,
        (("others", "agree", "fair"),),
        "resolved",
        absent="A",
    ),
    SeatRow(
        "quorum-reached-with-silence",
        (4, 5),
        (("B", "agree", "x"), ("C", "agree", "y")),
        "resolved",
        quorum=2,
    ),
    SeatRow("quorum-not-reached", (4, 5), (("B", "agree", "x"),), "open", quorum=2),
    SeatRow(
        "quorum-blocked-by-a-contest",
        (4, 5),
        (("B", "agree", "x"), ("C", "agree", "y"), ("D", "contest", "z")),
        "open",
        quorum=2,
        tally=None,
    ),
    SeatRow("quorum-one-of-three", (3,), (("B", "agree", "x"),), "resolved", quorum=1),
    SeatRow(
        "quorum-contest-by-the-raiser-blocks",
        (3,),
        (("A", "contest", "still"), ("B", "agree", "x")),
        "open",
        quorum=1,
    ),
    SeatRow("the-raiser-drops", ALL, (("A", "drop", "moot"),), "dropped"),
    SeatRow("the-raiser-concedes", ALL, (("A", "agree", "convinced"),), "dropped"),
    SeatRow(
        "every-present-seat-drops",
        ALL,
        (("others", "drop", "moot"), ("A", "drop", "moot too")),
        "dropped",
    ),
    SeatRow(
        "every-other-seat-drops-but-not-the-raiser", ALL, (("others", "drop", "moot"),), "open"
    ),
    SeatRow(
        "never-dropped-behind-the-absent-raisers-back",
        ALL,
        (("others", "drop", "moot"),),
        "open",
        absent="A",
    ),
    SeatRow(
        "every-present-seat-drops-one-absent",
        PANELS,
        (("others-but-C", "drop", "moot"), ("A", "drop", "too")),
        "dropped",
        absent="C",
    ),
]


def _expand(who: str, seats: tuple[Side, ...]) -> list[Side]:
    if who == "others":
        return [s for s in seats if s != "A"]
    if who == "others-but-C":
        return [s for s in seats if s not in ("A", "C")]
    return [s for s in seats if s == who]


SEAT_CASES = [(row, n) for row in SEAT_ROWS for n in row.counts]


@pytest.mark.parametrize(
    ("row", "n"), SEAT_CASES, ids=[f"{r.test_id}-{n}-seats" for r, n in SEAT_CASES]
)
def test_a_stance_per_seat(row: SeatRow, n: int) -> None:
    seats = seat_list(n)
    present = frozenset(s for s in seats if s not in row.absent)
    steps: list[tuple[Side, int, Contract | None]] = [
        ("A", 1, Contract(new_points=(NewPoint("T1", "a1"),)))
    ]
    for who, kind, reason in row.stances:
        for seat in _expand(who, seats):
            steps.append((seat, 2, Contract(stances=(StanceUpdate("I1", kind, reason),))))
    ledger = replay(steps, present=lambda r: present if r == 2 else frozenset(seats),
                    quorum=row.quorum)  # fmt: skip
    (issue,) = ledger.issues
    assert issue.status == row.status
    for seat, _, contract in steps[1:]:
        assert contract is not None
        kind, reason = contract.stances[0].stance, contract.stances[0].evidence
        latest = issue.stance_of(seat)
        if reason or kind == "contest":  # a stance that changed something is kept per seat
            assert latest is not None and latest.round_no == 2
    if row.tally is not None:
        got = tally(issue, seats)
        assert (len(got["agree"]), len(got["contest"]), len(got["silent"])) == row.tally


def test_one_agree_never_resolves_while_another_present_seat_said_nothing() -> None:
    """Every seat count, every seat that could agree alone: never resolved by one."""
    for n in PANELS:
        seats = seat_list(n)
        for alone in seats[1:]:
            steps: list[tuple[Side, int, Contract | None]] = [
                ("A", 1, Contract(new_points=(NewPoint("T1", "a1"),))),
                (alone, 2, Contract(stances=(StanceUpdate("I1", "agree", "yes"),))),
            ]
            (issue,) = replay(steps, present=lambda r, s=seats: frozenset(s)).issues
            assert issue.status == "open", (n, alone)
            assert tally(issue, seats)["silent"] == tuple(s for s in seats[1:] if s != alone)


# -- the whole table for every seat count ------------------------------------------------
# Each of the twelve cells, taken in round 3 by the raiser (A) or another seat (B), on an
# issue still open (nobody took a stance) or resolved in round 2 (every seat but A agreed
# with a reason): the same table decides for 2, 3, 4 and 5 seats. The one cell whose
# outcome depends on the seat count: a lone agree resolves an open issue with two seats
# only (with more, the other present seats have not agreed yet).

GRID: dict[tuple[bool, StanceKind, bool], tuple[Status, Status]] = {
    # (raiser, stance, with a reason): (status after, on the open issue / the resolved one)
    (True, "agree", True): ("dropped", "dropped"),
    (True, "agree", False): ("open", "resolved"),
    (True, "contest", True): ("open", "open"),
    (True, "contest", False): ("open", "open"),
    (True, "drop", True): ("dropped", "dropped"),
    (True, "drop", False): ("open", "resolved"),
    (False, "agree", True): ("resolved", "resolved"),  # open: with two seats only
    (False, "agree", False): ("open", "resolved"),
    (False, "contest", True): ("open", "open"),
    (False, "contest", False): ("open", "open"),
    (False, "drop", True): ("open", "resolved"),
    (False, "drop", False): ("open", "resolved"),
}
GRID_CASES = [(cell, n, was) for cell in GRID for n in (2, 3, 4, 5) for was in ("open", "resolved")]


def _grid_id(case: tuple[tuple[bool, StanceKind, bool], int, str]) -> str:
    (raiser, kind, reasoned), n, was = case
    who = "raiser" if raiser else "other"
    return f"{who}-{kind}-{'reason' if reasoned else 'no-reason'}-{n}-seats-{was}"


@pytest.mark.parametrize("case", GRID_CASES, ids=[_grid_id(c) for c in GRID_CASES])
def test_every_cell_for_every_seat_count(
    case: tuple[tuple[bool, StanceKind, bool], int, str],
) -> None:
    (raiser, kind, reasoned), n, was = case
    seats = seat_list(n)
    steps: list[tuple[Side, int, Contract | None]] = [
        ("A", 1, Contract(new_points=(NewPoint("T1", "a1"),)))
    ]
    if was == "resolved":
        for seat in seats[1:]:
            steps.append((seat, 2, Contract(stances=(StanceUpdate("I1", "agree", "yes"),))))
    reason = "what changed my mind" if reasoned else ""
    steps.append(("A" if raiser else "B", 3, Contract(stances=(StanceUpdate("I1", kind, reason),))))
    before = replay(steps[:-1], present=lambda r: frozenset(seats)).issues[0]
    (issue,) = replay(steps, present=lambda r: frozenset(seats)).issues
    assert before.status == was
    expected = GRID[(raiser, kind, reasoned)][0 if was == "open" else 1]
    if (raiser, kind, reasoned, was) == (False, "agree", True, "open") and n > 2:
        expected = "open"  # the other present seats said nothing yet
    assert issue.status == expected
    closed_by_it = issue.status != before.status and issue.status != "open"
    if closed_by_it:  # who and why are recorded
        assert issue.reason == reason
        if issue.status == "dropped":
            assert issue.resolution == ("conceded" if kind == "agree" else "drop")
            assert "A" in issue.dropped_by


@pytest.mark.parametrize("quorum", [None, 1])
def test_no_agree_never_resolves_even_with_no_other_seat_present(quorum: int | None) -> None:
    (issue,) = OPENED.issues
    assert not resolves(issue, frozenset({"A"}), quorum)
    assert not resolves(issue, frozenset({"A", "B"}), quorum)


def test_a_seat_that_stepped_away_is_tallied_as_dropping_not_silent() -> None:
    seats = seat_list(4)
    steps: list[tuple[Side, int, Contract | None]] = [
        ("A", 1, Contract(new_points=(NewPoint("T1", "a1"),))),
        ("B", 2, Contract(stances=(StanceUpdate("I1", "drop", "moot"),))),
        ("C", 2, Contract(stances=(StanceUpdate("I1", "contest", "no"),))),
    ]
    (issue,) = replay(steps, present=lambda r: frozenset(seats)).issues
    assert tally(issue, seats) == {
        "agree": (), "contest": ("C",), "drop": ("B",), "silent": ("D",)
    }  # fmt: skip
