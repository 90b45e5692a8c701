"""The split rule (issue 20 §8) as a table: 2–5 seats × 80/120/200/300 columns × short
(24 rows) and tall (50 rows) windows; and the tiling's cells and splits agree."""

from __future__ import annotations

import pytest

from collab.runners.tmux_layout import (
    SEAT_MIN_COLS,
    SEAT_MIN_ROWS,
    USER_MIN,
    PaneCell,
    Tiling,
    best_tiling,
    plan_panes,
    tile,
    window_hint,
)

SHORT, TALL = 24, 50

# (seats, columns, rows) → where, the user's columns, grid columns × rows. A window of its
# own that is itself too small (3–5 seats in 24 rows) gets the grid closest to the
# minimums: 2×2 of 39–40 × 11–12 rather than 4 panes of 80 × 5.
TABLE = [
    (2, 80, SHORT, "window", 0, "1x2"),
    (2, 80, TALL, "window", 0, "1x2"),
    (2, 120, SHORT, "window", 0, "2x1"),
    (2, 120, TALL, "window", 0, "2x1"),
    (2, 200, SHORT, "split", 119, "1x2"),
    (2, 200, TALL, "split", 119, "1x2"),
    (2, 300, SHORT, "split", 179, "2x1"),
    (2, 300, TALL, "split", 179, "2x1"),
    (3, 80, SHORT, "window", 0, "2x2"),
    (3, 80, TALL, "window", 0, "1x3"),
    (3, 120, SHORT, "window", 0, "2x2"),
    (3, 120, TALL, "window", 0, "1x3"),
    (3, 200, SHORT, "split", 80, "2x2"),
    (3, 200, TALL, "split", 119, "1x3"),
    (3, 300, SHORT, "split", 179, "2x2"),
    (3, 300, TALL, "split", 179, "1x3"),
    (4, 80, SHORT, "window", 0, "2x2"),
    (4, 80, TALL, "window", 0, "1x4"),
    (4, 120, SHORT, "window", 0, "2x2"),
    (4, 120, TALL, "window", 0, "2x2"),
    (4, 200, SHORT, "split", 80, "2x2"),
    (4, 200, TALL, "split", 119, "1x4"),
    (4, 300, SHORT, "split", 179, "2x2"),
    (4, 300, TALL, "split", 179, "2x2"),
    (5, 80, SHORT, "window", 0, "2x3"),
    (5, 80, TALL, "window", 0, "1x5"),
    (5, 120, SHORT, "window", 0, "3x2"),
    (5, 120, TALL, "window", 0, "1x5"),
    (5, 200, SHORT, "window", 0, "3x2"),
    (5, 200, TALL, "split", 119, "1x5"),
    (5, 300, SHORT, "split", 80, "5x1"),
    (5, 300, TALL, "split", 179, "1x5"),
]


def replay(t: Tiling, width: int, height: int) -> dict[int, PaneCell]:
    """Where tmux puts the panes when the splits are made in order (the target keeps
    what the new pane does not take, less one cell of border)."""
    panes = {0: PaneCell(0, 0, width, height)}
    for s in t.splits:
        p = panes[s.target]
        if s.direction == "h":
            panes[s.target] = PaneCell(p.x, p.y, p.width - s.size - 1, p.height)
            panes[s.makes] = PaneCell(p.x + p.width - s.size, p.y, s.size, p.height)
        else:
            panes[s.target] = PaneCell(p.x, p.y, p.width, p.height - s.size - 1)
            panes[s.makes] = PaneCell(p.x, p.y + p.height - s.size, p.width, s.size)
    return panes


@pytest.mark.parametrize(("seats", "cols", "rows", "where", "user", "grid"), TABLE)
def test_split_rule(seats: int, cols: int, rows: int, where: str, user: int, grid: str) -> None:
    plan = plan_panes(cols, rows, seats, user_pane=True)
    t = plan.tiling
    assert (plan.where, plan.user_width, f"{t.columns}x{t.rows}") == (where, user, grid)
    assert len(t.cells) == seats and len(t.splits) == seats - 1
    if where == "split":
        # The rule: the user keeps ≥ 80 columns, every seat pane has ≥ 40 × 8.
        assert plan.user_width >= USER_MIN
        assert plan.user_width + 1 + plan.area_width == cols
        assert all(c.width >= SEAT_MIN_COLS and c.height >= SEAT_MIN_ROWS for c in t.cells)
    else:
        assert (plan.area_width, plan.area_height) == (cols, rows)
    # The splits make exactly the cells, in seat order, covering the area without overlap.
    made = replay(t, plan.area_width, plan.area_height)
    assert [made[i] for i in range(seats)] == list(t.cells)
    covered = sum(c.width * c.height for c in t.cells)
    borders = plan.area_width * plan.area_height - covered
    assert 0 <= borders <= (t.rows - 1) * plan.area_width + (t.columns - 1) * plan.area_height


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_window_that_fits_in_its_own_window_keeps_the_minimums(seats: int) -> None:
    """Whenever the run gets a window of its own that is big enough, its panes fit."""
    for cols in (80, 120, 160, 200):
        plan = plan_panes(cols, TALL, seats, user_pane=False)
        assert plan.where == "window"
        if cols >= 120:
            assert plan.tiling.fits(), (cols, plan)


def test_reading_order_is_left_to_right_then_down() -> None:
    t = tile(121, 40, 5, 3)
    assert [(c.x, c.y) for c in t.cells] == [(0, 0), (41, 0), (82, 0), (0, 21), (61, 21)]


def test_any_number_of_seats() -> None:
    """Nothing assumes five: seven seats tile too (the labels come from the run)."""
    t = best_tiling(300, 60, 7)
    assert len(t.cells) == 7 and t.fits()


def test_window_hint_is_the_exact_command() -> None:
    assert window_hint("host", "collab-x1", None) == "tmux select-window -t =host:=collab-x1"
    assert window_hint("my host", "collab-x1", "sock") == (
        "tmux -L sock select-window -t '=my host:=collab-x1'"
    )
