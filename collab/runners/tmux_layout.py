"""Where a run's seat panes go in tmux: the split rule, as a pure function.

The user's own pane keeps at least ``USER_MIN`` columns; every seat pane gets at least
``SEAT_MIN_COLS`` columns and ``SEAT_MIN_ROWS`` rows. Inside tmux the seat area is split
off the right of the user's pane (``SEAT_SHARE`` of its width, more if the seats need it,
never leaving the user fewer than ``USER_MIN``) and tiled, one pane per seat, in reading
order (A top left). When the user's pane cannot give that, the turns run in a window of
their own, tiled the same way over the whole window (there the minimums hold when the
window is big enough; a smaller one is tiled as well as it can be).

:func:`plan_panes` decides; :func:`tile` gives the cells and the ``split-window`` steps
that make them from one pane. No I/O.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

USER_MIN = 80
SEAT_MIN_COLS = 40
SEAT_MIN_ROWS = 8
SEAT_SHARE = 0.4  # of the user's pane's width, when the seats fit in it


@dataclass(frozen=True)
class PaneCell:
    """A pane's place, relative to the seat area's top left (tmux cells)."""

    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class Split:
    """``split-window`` of seat ``target``'s pane: ``-h`` (side by side) or ``-v``
    (stacked); the new pane, seat ``makes``, takes ``size`` cells to the right of or below
    the target (which keeps the rest)."""

    target: int
    direction: Literal["h", "v"]
    size: int
    makes: int


@dataclass(frozen=True)
class Tiling:
    cells: tuple[PaneCell, ...]  # in seat order (reading order); cell 0: the pane we start from
    splits: tuple[Split, ...]  # len(cells) - 1 steps, in the order to make them
    columns: int
    rows: int

    def fits(self) -> bool:
        return all(c.width >= SEAT_MIN_COLS and c.height >= SEAT_MIN_ROWS for c in self.cells)


@dataclass(frozen=True)
class PanePlan:
    """``split``: the seat area is ``area_width`` columns split off the user's pane (the
    user keeps ``user_width``). ``window``: a window of the run's own, all of it seats."""

    where: Literal["split", "window"]
    user_width: int
    area_width: int
    area_height: int
    tiling: Tiling


def _sizes(total: int, n: int) -> list[int]:
    """``total`` cells shared by ``n`` panes with a one-cell border between each two."""
    inner = total - (n - 1)
    base, extra = divmod(inner, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def tile(width: int, height: int, seats: int, columns: int) -> Tiling:
    """``seats`` panes over ``width`` × ``height`` in ``columns`` columns, row by row
    (the last row may hold fewer, wider panes); seat 0 is the pane we start from."""
    rows = -(-seats // columns)
    per_row = [min(columns, seats - r * columns) for r in range(rows)]
    heights = _sizes(height, rows)
    row_y = [sum(heights[:r]) + r for r in range(rows)]
    first = [r * columns for r in range(rows)]  # the seat at the start of each row
    splits: list[Split] = []
    # Rows first: the pane holding rows r - 1.. is split; the new pane below takes the
    # rest. Then each row's panes from its left: the new pane right takes the rest.
    for r in range(1, rows):
        splits.append(Split(first[r - 1], "v", height - row_y[r], first[r]))
    cells: list[PaneCell] = []
    for r in range(rows):
        widths = _sizes(width, per_row[r])
        xs = [sum(widths[:c]) + c for c in range(per_row[r])]
        for c in range(per_row[r]):
            if c:
                splits.append(Split(first[r] + c - 1, "h", width - xs[c], first[r] + c))
            cells.append(PaneCell(xs[c], row_y[r], widths[c], heights[r]))
    return Tiling(tuple(cells), tuple(splits), columns, rows)


def best_tiling(width: int, height: int, seats: int) -> Tiling:
    """The tiling with the most room per pane among those that fit; if none fits, the one
    that comes closest to the minimums (each pane's shortfall in width and in height, as
    fractions of the minimum, summed), then the most room."""
    options = [tile(width, height, seats, c) for c in range(1, seats + 1)]
    fitting = [t for t in options if t.fits()]
    if fitting:
        return max(fitting, key=lambda t: (_area(t), -t.rows))

    def closeness(t: Tiling) -> float:
        w = min(c.width for c in t.cells) / SEAT_MIN_COLS
        h = min(c.height for c in t.cells) / SEAT_MIN_ROWS
        return min(w, 1.0) + min(h, 1.0)

    return max(options, key=lambda t: (closeness(t), _area(t)))


def _area(t: Tiling) -> int:
    return min(c.width * c.height for c in t.cells)


def plan_panes(width: int, height: int, seats: int, *, user_pane: bool) -> PanePlan:
    """Where ``seats`` seat panes go. ``user_pane``: ``width`` × ``height`` is the user's
    own pane, to be split (inside tmux); otherwise a window of the run's own."""
    if seats < 1:
        raise ValueError("at least one seat")
    if user_pane:
        share = max(int(width * SEAT_SHARE), 0)
        for area in (share, width - USER_MIN - 1):
            user = width - area - 1
            if area < SEAT_MIN_COLS or user < USER_MIN:
                continue
            t = best_tiling(area, height, seats)
            if t.fits():
                return PanePlan("split", user, area, height, t)
    return PanePlan("window", 0, width, height, best_tiling(width, height, seats))


def window_hint(session: str, window: str, socket: str | None) -> str:
    """The one command that shows the run's own window (``-L`` for a named server)."""
    prefix = f"tmux -L {shlex.quote(socket)}" if socket else "tmux"
    return f"{prefix} select-window -t {shlex.quote(f'={session}:={window}')}"
