"""The ledgers :meth:`collab.state.RunState.ledger` made, kept by what they were made from.

A run is saved after every step with its ledger and every round's: replaying the whole
run for each was most of the cost of a save. A ledger is kept with the config, the
stance table and the turns it was replayed from (all immutable, compared by identity)
and the seats present in each of their rounds; it answers again for the same turns, and
a ledger of more turns is replayed on from the longest kept one of its first turns (the
same seats present in their rounds), not from the first turn, so that the issues no
later turn changes stay the same objects (to_dict keeps their forms, the store their
text).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import NamedTuple

from collab.ledger import NO_ISSUES, Ledger
from collab.seats import Seat
from collab.turns import TurnRecord

# Round number → the seats present in it (collab.state.RunState.present).
SeatsByRound = dict[int, frozenset[Seat]]


def present_in(
    turns: Iterable[TurnRecord], present: Callable[[int], frozenset[Seat]]
) -> SeatsByRound:
    """The seats ``present`` in each round of ``turns``."""
    return {r: present(r) for r in {t.round_no for t in turns}}


class Made(NamedTuple):
    made_of: tuple[object, ...]  # (config, stance table, *turns)
    present: SeatsByRound  # for each round of the turns
    ledger: Ledger
    # Read from state.json (RunState.keep_ledger), not replayed here: it answers for the
    # whole run of exactly those turns, and nothing is replayed on from it.
    stored: bool = False


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


class LedgerCache:
    def __init__(self) -> None:
        self._made: dict[int | None, Made] = {}  # the last one per ``upto_round``

    def find(self, upto_round: int | None, made_of: tuple[object, ...]) -> Ledger | None:
        """The ledger kept for ``made_of``: ``upto_round``'s own, or another's made of the
        same turns (the run's is its last round's once that round is done); one read from
        state.json stands only for the whole run's."""
        for made in self._made.values():
            if _same(made.made_of, made_of) and not (made.stored and upto_round is not None):
                self._made[upto_round] = made
                return made.ledger
        return None

    def start(self, made_of: tuple[object, ...], present: SeatsByRound) -> tuple[Ledger, int]:
        """The ledger to replay ``made_of``'s turns on from, and how many of them it has
        taken: the kept one of the most of its first turns, made with the same seats
        present in their rounds (a seat absent since makes it another ledger)."""
        start, done = NO_ISSUES, 0
        for made in self._made.values():
            n = len(made.made_of) - 2  # its turns
            if (
                not made.stored
                and done < n
                and _same(made.made_of, made_of[: n + 2])
                and all(present[r] == seats for r, seats in made.present.items())
            ):
                start, done = made.ledger, n
        return start, done

    def keep(self, upto_round: int | None, made: Made) -> None:
        self._made[upto_round] = made
