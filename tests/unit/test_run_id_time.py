"""A damaged run is dated by the time its id begins with (``collab list`` sorts by it):
``collab.store.id_time`` reads ``YYYYMMDD-HHMMSS`` as ``time.strptime`` does — the same
time, the same ValueError — without strptime's import on every listing."""

from __future__ import annotations

import itertools
import time

from collab.store import id_time

FORMAT = "%Y%m%d-%H%M%S"
DATES = [
    "20261130",
    "20240229",
    "20230229",
    "21000229",
    "20000229",
    "00010101",
    "00000101",
    "20261301",
    "20260001",
    "20260100",
    "20260431",
    "20260132",
    "99991231",
    "19700101",
]
TIMES = ["101502", "000000", "235959", "240000", "236000", "235960", "235961", "235962"]
ODD = [
    "",
    "2026",
    "20261130-10150",
    "20261130-1015021",
    "2026113-0101502",
    "20261130_101502",
    "2026-1130101502",
    "20261130-10150x",
    "٢٠٢٦١١٣٠-١٠١٥٠٢",
    "2026¹130-101502",
    "20261130-1 1502",
    "+2026113-101502",
    "abcdefgh-ijklmn",
    "20261130 101502",
]


def strptime_time(text: str) -> float | str:
    try:
        return time.mktime(time.strptime(text, FORMAT))
    except ValueError:
        return "ValueError"


def our_time(text: str) -> float | str:
    try:
        return time.mktime(id_time(text))
    except ValueError:
        return "ValueError"


CASES = [f"{d}-{t}" for d, t in itertools.product(DATES, TIMES)] + ODD


def test_an_id_time_is_the_one_strptime_reads() -> None:
    """One test over the table (each case takes microseconds; a test each, a millisecond)."""
    assert [(t, our_time(t)) for t in CASES] == [(t, strptime_time(t)) for t in CASES]


def test_the_table_holds_times_strptime_refuses_and_reads() -> None:
    results = [strptime_time(f"{d}-{t}") for d, t in itertools.product(DATES, TIMES)]
    assert "ValueError" in results and any(isinstance(r, float) for r in results)
