"""The Judge reads the seats as "Position 1" … "Position N", never by their roles.

Which seat is which Position is drawn per run from a seed derived from the run id (a
shuffle of the seats; with two seats, which one is Position 1), so the order is random
across runs and reproducible for an audit (the order is also recorded in state.json).
Whole-word occurrences of the role names (and of "Role A" … "Role E") in the debaters'
prose become the labels before the Judge
reads it; the labels in the Judge's answer become the role names again before collab
shows or saves it. The topic is left as it is. Pure: no I/O.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from collab.seats import SEATS, Seat, Side

LABELS = tuple(f"Position {n}" for n in range(1, len(SEATS) + 1))


def judge_order(run_id: str, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """The seats in Position order (Position 1 first), a shuffle drawn from the run id:
    stable per run, mixed across runs. With two seats Position 1 is A when the first
    byte of the id's digest is even (as it always was)."""
    digest = hashlib.sha256(run_id.encode("utf-8")).digest()
    order = list(seats)
    for k, i in enumerate(range(len(order) - 1, 0, -1)):
        j = i - digest[k] % (i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def first_side(run_id: str) -> Side:
    """The side the Judge reads as Position 1 in a two-seat debate, drawn from the run id."""
    return judge_order(run_id, ("A", "B"))[0]


@dataclass(frozen=True)
class Labels:
    first: Side  # the seat shown as "Position 1"
    name_a: str
    name_b: str
    # A panel: the names of seats C–E, and every seat in Position order (empty: the two
    # seats, ``first`` then the other).
    more_names: tuple[str, ...] = ()
    positions: tuple[Seat, ...] = ()

    def label(self, side: Side) -> str:
        return LABELS[self.order().index(side)]

    def side_of(self, label: str) -> Side:
        return self.order()[LABELS.index(label)]

    def order(self) -> tuple[Side, ...]:
        """The seats in label order: Position 1's first."""
        if self.positions:
            return self.positions
        return (self.first, "B" if self.first == "A" else "A")

    def seat_names(self) -> dict[Side, str]:
        """Each seat's role name."""
        return dict(zip(SEATS, (self.name_a, self.name_b, *self.more_names), strict=False))

    def hide(self, text: str) -> str:
        """Role names (whole words, longest first) and "Role A/B/…" → the labels."""
        names, pattern = self._hiding
        return pattern.sub(lambda m: names[m.group(0)], text)

    @functools.cached_property
    def _hiding(self) -> tuple[dict[str, str], re.Pattern[str]]:
        """What :meth:`hide` replaces and its pattern, made once per Labels (a Judge prompt
        hides every title, evidence and reply with the same)."""
        names: dict[str, str] = {}
        for seat in self.order():
            names[f"Role {seat}"] = self.label(seat)
        for seat, name in self.seat_names().items():
            names[name] = self.label(seat)
        names = {k: v for k, v in names.items() if k.strip()}  # ("Role A"… always there)
        return names, _words(names)

    def names(self) -> dict[str, str]:
        """Each label → its role's name (what :meth:`reveal` replaces), Position 1 first."""
        seat_names = self.seat_names()
        return {self.label(s): seat_names[s] for s in self.order()}

    def reveal(self, text: str) -> str:
        """The labels in the Judge's text → the role names."""
        return reveal_labels(text, self.names())


# Several Positions named at once: "Positions 1 and 3", "Positions 1, 2 and 3",
# "Positions 2, 4, or 5", "Positions 1 & 2".
_LIST = r"Positions (?P<list>\d+(?:(?:,? (?:and|or|&)|,) \d+)+)"
_NUMBER = re.compile(r"\d+")


def reveal_labels(text: str, labels: Mapping[str, str]) -> str:
    """``labels`` (label → name) replaced in ``text``, whole words only, and a list of
    Positions by the list of their names ("Positions 1 and 3" → "X and Z"; left as
    written if it names a Position the run does not have)."""

    def named(m: re.Match[str]) -> str:
        if m["list"] is None:
            return labels[m.group(0)]
        numbers = [f"Position {n}" for n in _NUMBER.findall(m["list"])]
        if not all(n in labels for n in numbers):
            return m.group(0)
        return _NUMBER.sub(lambda n: labels[f"Position {n.group(0)}"], m["list"])

    return _replace_words(text, labels, named, first=_LIST)


def _replace_words(
    text: str,
    mapping: Mapping[str, str],
    by: Callable[[re.Match[str]], str],
    first: str,
) -> str:
    if not mapping:
        return text
    return _words(mapping, first).sub(by, text)


def _words(mapping: Mapping[str, str], first: str | None = None) -> re.Pattern[str]:
    """``first`` (a pattern), then each key of ``mapping`` (longest first), as whole words."""
    keys = sorted(mapping, key=len, reverse=True)
    # ASCII word boundaries: Japanese has no spaces, so a name there matches where it is.
    alternatives = [*([first] if first else []), *(re.escape(k) for k in keys)]
    return re.compile("|".join(rf"(?<![A-Za-z0-9_]){a}(?![A-Za-z0-9_])" for a in alternatives))
