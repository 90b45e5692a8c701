"""Who sits at the table: the two sides of a debate and the seat labels.

``Side`` is one of the two debaters, A or B. ``Seat`` labels a place at the table; it
names the same two today, and is the type a debate with more seats widens (A–E) while
``Side`` keeps meaning the two who argue.
"""

from __future__ import annotations

from typing import Literal, get_args

Side = Literal["A", "B"]
SIDES: tuple[Side, ...] = get_args(Side)

Seat = Literal["A", "B"]
SEATS: tuple[Seat, ...] = get_args(Seat)
