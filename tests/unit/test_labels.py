from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import pytest

from collab.judge.labels import Labels, first_side

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
