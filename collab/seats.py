"""Who sits at the table: the seats of a debate, A–E, and the order they speak in.

A debate has 2–5 seats, labelled A, B, C, D, E in order. Every seat argues through the
same code: nothing below treats a third seat as a copy of the second. ``Side`` is the
older name of a seat that argues, kept as the same type so that both names mean one thing.

The order of a round (pure, no I/O): the blind round has every seat at once; from round 2
seats speak in turn, the seat list shifted so that seat ``(r - 2) mod N`` speaks last
(A = 0: round 2 ends with A, round 3 with B), for two seats too. Runs saved before the
rotation keep the fixed order (A, B, …) on resume (migration m007).
"""

from __future__ import annotations

from typing import Literal, get_args

Seat = Literal["A", "B", "C", "D", "E"]
SEATS: tuple[Seat, ...] = get_args(Seat)
Side = Seat
SIDES: tuple[Side, ...] = SEATS

# Each seat's mark in the views and reports.
SEAT_ICON: dict[str, str] = {"A": "🔵", "B": "🔴", "C": "🟢", "D": "🟡", "E": "🟣"}

MIN_SEATS = 2
MAX_SEATS = len(SEATS)

# How a run orders the turns of a round after the first: "rotating" (the last speaker
# rotates) or "fixed" (the seat list, as runs saved before the rotation did).
TurnOrder = Literal["rotating", "fixed"]
TURN_ORDERS: tuple[TurnOrder, ...] = get_args(TurnOrder)


def seat_list(n: int) -> tuple[Seat, ...]:
    """The first ``n`` seats, A first; ``n`` is 2–5."""
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise ValueError(f"a debate has {MIN_SEATS}–{MAX_SEATS} seats, not {n}")
    return SEATS[:n]


def seat_index(seat: Seat) -> int:
    return SEATS.index(seat)


def round_order(seats: tuple[Seat, ...], round_no: int, rule: TurnOrder) -> tuple[Seat, ...]:
    """The order seats speak in a round taken in turn: with ``rotating``, ``seats``
    shifted so that seat ``(round_no - 2) mod N`` is last; with ``fixed``, ``seats``."""
    if rule == "fixed" or not seats:
        return seats
    last = (round_no - 2) % len(seats)
    return seats[last + 1 :] + seats[: last + 1]
