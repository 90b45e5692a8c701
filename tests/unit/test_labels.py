from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import pytest

from collab.judge.labels import Labels, first_side, judge_order

L = Labels(first="B", name_a="Advocate", name_b="Devil's Advocate")


class Row(NamedTuple):
    test_id: str
    text: str
    hidden: str


ROWS = [
    Row("names", "Advocate says X; Devil's Advocate says Y.",
        "Position 2 says X; Position 1 says Y."),
    Row("longest-name-first", "Devil's Advocate", "Position 1"),
    Row("role-letters", "Role A and Role B disagree", "Position 2 and Position 1 disagree"),
    Row("whole-words-only", "Advocates advocate; ReAdvocate", "Advocates advocate; ReAdvocate"),
    Row("possessive", "Advocate's point", "Position 2's point"),
    Row("japanese-around", "Advocateの主張", "Position 2の主張"),
    Row("no-names", "nothing to hide", "nothing to hide"),
    Row("none-is-a-word", "None of them; Advocate", "None of them; Position 2"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_hide(row: Row) -> None:
    assert L.hide(row.text) == row.hidden


def test_reveal_maps_labels_back() -> None:
    assert L.reveal("Position 1 wins; Position 2's case is weaker.") == (
        "Devil's Advocate wins; Advocate's case is weaker."
    )
    assert L.reveal("Position 10") == "Position 10"  # whole words only


def test_labels_and_order() -> None:
    assert (L.label("B"), L.label("A")) == ("Position 1", "Position 2")
    assert L.order() == ("B", "A")
    assert L.side_of("Position 1") == "B" and L.side_of("Position 2") == "A"


def test_first_side_is_stable_per_run_and_mixed_across_runs() -> None:
    assert first_side("20261201-101500-3fa9c1") == first_side("20261201-101500-3fa9c1")
    drawn = Counter(first_side(f"20261201-101500-{n:06x}") for n in range(400))
    assert 150 < drawn["A"] < 250 and 150 < drawn["B"] < 250


# A panel: Position 1 is C, 2 is A, 3 is B, 4 is D.
PANEL = Labels(first="C", name_a="Advocate", name_b="Critic", more_names=("Operator", "Owner"),
               positions=("C", "A", "B", "D"))  # fmt: skip


class Many(NamedTuple):
    test_id: str
    judge: str
    shown: str


MANY = [
    Many("two", "Positions 1 and 3 agree.", "Operator and Critic agree."),
    Many("three", "Positions 1, 2 and 3 share I1", "Operator, Advocate and Critic share I1"),
    Many("oxford-comma", "Positions 4, 2, and 1", "Owner, Advocate, and Operator"),
    Many("or", "either Positions 2 or 4", "either Advocate or Owner"),
    Many("ampersand", "Positions 3 & 4's case", "Critic & Owner's case"),
    Many("beside-singles", "Position 2; Positions 1 and 4", "Advocate; Operator and Owner"),
    Many("unknown-position", "Positions 1 and 5", "Positions 1 and 5"),
    Many("longer-number", "Positions 1 and 30", "Positions 1 and 30"),
    Many("one-alone", "Positions 1 are", "Positions 1 are"),
    Many("inside-a-word", "XPositions 1 and 2", "XPositions 1 and 2"),
]  # fmt: skip


@pytest.mark.parametrize("row", MANY, ids=[r.test_id for r in MANY])
def test_a_list_of_positions_becomes_the_list_of_names(row: Many) -> None:
    assert PANEL.reveal(row.judge) == row.shown


@pytest.mark.parametrize("n", [3, 4, 5])
def test_a_panels_position_order_is_any_order_of_its_seats(n: int) -> None:
    """Every seat of a panel can be any Position: across runs each is Position 1 about as
    often as the others, and with three seats all six orders are drawn."""
    seats = ("A", "B", "C", "D", "E")[:n]
    orders = [judge_order(f"20261201-101500-{k:06x}", seats) for k in range(600)]
    assert all(sorted(o) == list(seats) for o in orders)
    first = Counter(o[0] for o in orders)
    assert set(first) == set(seats)
    assert all(600 / n * 0.7 < first[s] < 600 / n * 1.3 for s in seats), first
    if n == 3:
        assert len(set(orders)) == 6


def test_each_labels_hides_its_own_names_however_often_it_hides() -> None:
    """hide's names and pattern are made once per Labels: two Labels never share them."""
    other = Labels(first="B", name_a="Skeptic", name_b="Builder")
    for _ in range(2):
        assert L.hide("Advocate, Skeptic, Role A") == "Position 2, Skeptic, Position 2"
        assert other.hide("Advocate, Skeptic, Role A") == "Advocate, Position 2, Position 2"
        assert Labels(first="A", name_a=" ", name_b="").hide("Role B, ") == "Position 2, "
        fresh = Labels(first="B", name_a="Advocate", name_b="Devil's Advocate")  # (made here)
        assert fresh.hide("None of it, Role B") == "None of it, Position 1"  # no other word
