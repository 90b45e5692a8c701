"""Which option each seat favours, round by round, and when it flips. Pure: no I/O.

With ``--option``, a reply's contract may name the option its seat favours now
(``"favours": "O2"``, validated by ``collab.contract_parse``). A seat that names none in
a round keeps what it said before; a **flip** is a seat naming another option than the
last one it named. Seats are labels ("A".."E"), never a fixed pair.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from collab.records import record
from collab.turns import TurnRecord


@record
class Flip:
    seat: str
    round_no: int
    old: str  # the option id it named last
    new: str


def named(turn: TurnRecord) -> str | None:
    """The option a turn's contract named, if any."""
    return None if turn.contract is None else turn.contract.favours


def preferences(turns: Iterable[TurnRecord]) -> dict[str, dict[int, str | None]]:
    """Seat → round → the option it named in that round (None: it named none)."""
    out: dict[str, dict[int, str | None]] = {}
    for t in sorted(turns, key=lambda t: (t.round_no, t.side)):
        out.setdefault(t.side, {})[t.round_no] = named(t)
    return out


def flips(turns: Iterable[TurnRecord]) -> list[Flip]:
    """Every flip, in round order."""
    out: list[Flip] = []
    last: dict[str, str] = {}
    for t in sorted(turns, key=lambda t: (t.round_no, t.side)):
        now = named(t)
        if now is None:
            continue
        before = last.get(t.side)
        if before is not None and before != now:
            out.append(Flip(t.side, t.round_no, before, now))
        last[t.side] = now
    return out


def flip_of(turn: TurnRecord, earlier: Iterable[TurnRecord]) -> Flip | None:
    """The flip ``turn`` makes against its seat's earlier rounds, if it makes one."""
    now = named(turn)
    if now is None:
        return None
    before = [
        (t.round_no, n)
        for t in earlier
        if t.side == turn.side and t.round_no < turn.round_no and (n := named(t)) is not None
    ]
    if not before:
        return None
    old = max(before)[1]
    return None if old == now else Flip(turn.side, turn.round_no, old, now)


def final(turns: Iterable[TurnRecord]) -> dict[str, str]:
    """Seat → the option it named last (seats that never named one are left out)."""
    out: dict[str, str] = {}
    for t in sorted(turns, key=lambda t: (t.round_no, t.side)):
        now = named(t)
        if now is not None:
            out[t.side] = now
    return out


def most_favoured(turns: Iterable[TurnRecord]) -> str | None:
    """The option most seats favoured at the end; None when none named one or it is a tie."""
    counts = Counter(final(turns).values()).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def preference_rows(
    turns: Sequence[TurnRecord], seats: Sequence[str]
) -> list[tuple[str, list[str]]]:
    """For a report: each seat and its favoured option per round ("·" where it named
    none, "O1→O2" marks a flip), over the rounds held."""
    prefs = preferences(turns)
    rounds = sorted({t.round_no for t in turns})
    flipped = {(f.seat, f.round_no): f for f in flips(turns)}
    rows = []
    for seat in seats:
        cells = []
        for r in rounds:
            f = flipped.get((seat, r))
            cells.append(f"{f.old}→{f.new}" if f else (prefs.get(seat, {}).get(r) or "·"))
        rows.append((seat, cells))
    return rows
