from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.convergence import Decision, StopReason, check, same_text
from collab.ledger import Issue, Ledger, Status


def iss(n: int, status: Status, ev_a: str, ev_b: str, opened: int) -> Issue:
    return Issue(f"I{n}", f"T{n}", "A", status, ev_a, ev_b, opened, opened)


def led(*issues: Issue) -> Ledger:
    return Ledger(issues)


ARG_A = "Caching cuts p99 latency by half because most reads hit the same 200 keys."
ARG_B = "The cache adds an invalidation bug class and the p99 gain is not measured."
# Reworded / reflowed versions of the same argument, well above the 0.85 threshold.
ARG_A2 = "caching cuts p99 latency by half, because most reads hit the same 200 keys"
ARG_B2 = "The cache adds an invalidation  bug class\nand the p99 gain is not measured!"
NEW_B = "Benchmarks from staging show 40% of reads miss; the half-latency claim fails."

STUCK = [
    led(iss(1, "open", ARG_A, ARG_B, 1)),
    led(iss(1, "open", ARG_A2, ARG_B, 1), iss(2, "open", "x", "", 2)),
    led(iss(1, "open", ARG_A, ARG_B2, 1), iss(2, "open", "x", "", 2), iss(3, "open", "y", "", 3)),
]
STUCK_4 = [*STUCK, led(*STUCK[2].issues, iss(4, "open", "z", "", 4))]
# Each round adds a point, so the quiet-rounds rule never fires first.
OPEN_1 = led(iss(1, "open", "a", "b", 1))
OPEN_2 = led(iss(1, "open", "a", "b", 1), iss(2, "open", "c", "", 2))
MOVING = [OPEN_1, OPEN_2]


class Case(NamedTuple):
    test_id: str
    rounds: list[Ledger]
    max_rounds: int
    angle_injected: bool
    budget_spent: bool
    stop: StopReason | None
    inject_angle: bool
    circular: tuple[str, ...]
    detail: str


CASES = [
    Case("no-rounds", [], 3, False, False, None, False, (), ""),
    Case(
        "all-resolved",
        [led(iss(1, "resolved", "a", "b", 1), iss(2, "resolved", "", "", 1))],
        3,
        False,
        False,
        "converged-early",
        False,
        (),
        "all 2 issues are resolved or dropped",
    ),
    Case(
        "all-dropped",
        [led(iss(1, "dropped", "a", "", 1))],
        3,
        False,
        False,
        "converged-early",
        False,
        (),
        "the only issue is resolved or dropped",
    ),
    Case(
        "mix-resolved-dropped",
        [
            OPEN_1,
            led(
                iss(1, "resolved", "a", "b", 1),
                iss(2, "dropped", "", "", 2),
                iss(3, "resolved", "", "", 2),
                iss(4, "dropped", "", "", 2),
            ),
        ],
        3,
        False,
        False,
        "converged-early",
        False,
        (),
        "all 4 issues are resolved or dropped",
    ),
    Case("empty-ledger-not-converged", [led()], 3, False, False, None, False, (), ""),
    Case(
        "one-open-issue-not-converged",
        [led(iss(1, "resolved", "", "", 1), iss(2, "open", "", "", 1))],
        3,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case(
        "two-quiet-rounds",
        [OPEN_1, OPEN_2, OPEN_2, OPEN_2],
        5,
        False,
        False,
        "converged-early",
        False,
        (),
        "no new points in rounds 3 and 4",
    ),
    Case(
        "two-quiet-rounds-empty-ledger",
        [led(), led()],
        5,
        False,
        False,
        "converged-early",
        False,
        (),
        "no new points in rounds 1 and 2",
    ),
    Case(
        "one-quiet-round-not-enough",
        [*MOVING, led(iss(1, "open", "a", NEW_B, 1), *OPEN_2.issues[1:])],
        5,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case("one-round-is-never-quiet", [OPEN_1], 3, False, False, None, False, (), ""),
    Case(
        "circular-first-time-injects-angle",
        STUCK,
        5,
        False,
        False,
        None,
        True,
        ("I1",),
        "I1 went round in circles for 3 rounds; trying a new angle",
    ),
    Case(
        "circular-after-angle-breaks",
        STUCK_4,
        5,
        True,
        False,
        "circular-break",
        False,
        ("I1", "I2"),
        "I1 and I2 went round in circles for 3 rounds after a new angle",
    ),
    Case(
        "circular-on-last-round-is-max-rounds",
        STUCK,
        3,
        False,
        False,
        "max-rounds",
        False,
        (),
        "reached 3/3 rounds",
    ),
    Case(
        "circular-after-angle-beats-max-rounds",
        STUCK,
        3,
        True,
        False,
        "circular-break",
        False,
        ("I1",),
        "I1 went round in circles for 3 rounds after a new angle",
    ),
    Case(
        "circular-with-budget-spent-is-timeout",
        STUCK,
        5,
        False,
        True,
        "timeout",
        False,
        (),
        "time budget spent after round 3",
    ),
    Case(
        "evidence-changed-enough-not-circular",
        [STUCK[0], STUCK[1], led(iss(1, "open", ARG_A, NEW_B, 1), *STUCK[2].issues[1:])],
        5,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case(
        "resolved-issue-not-circular",
        [STUCK[0], STUCK[1], led(iss(1, "resolved", ARG_A, ARG_B, 1), *STUCK[2].issues[1:])],
        5,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case(
        "resolved-mid-window-not-circular",
        [STUCK[0], led(iss(1, "resolved", ARG_A, ARG_B, 1), *STUCK[1].issues[1:]), STUCK[2]],
        5,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case(
        "too-few-rounds-not-circular",
        STUCK[:2],
        5,
        False,
        False,
        None,
        False,
        (),
        "",
    ),
    Case(
        "max-rounds",
        [*MOVING, led(*OPEN_2.issues, iss(3, "open", "n", "", 3))],
        3,
        False,
        False,
        "max-rounds",
        False,
        (),
        "reached 3/3 rounds",
    ),
    Case(
        "budget-spent-timeout",
        MOVING,
        5,
        False,
        True,
        "timeout",
        False,
        (),
        "time budget spent after round 2",
    ),
    Case(
        "max-rounds-beats-timeout",
        MOVING,
        2,
        False,
        True,
        "max-rounds",
        False,
        (),
        "reached 2/2 rounds",
    ),
    Case(
        "all-resolved-beats-max-rounds",
        [OPEN_1, led(iss(1, "resolved", "a", "b", 1))],
        2,
        False,
        True,
        "converged-early",
        False,
        (),
        "the only issue is resolved or dropped",
    ),
    Case(
        "quiet-beats-circular",
        [STUCK[0], STUCK[0], STUCK[0]],
        3,
        True,
        False,
        "converged-early",
        False,
        (),
        "no new points in rounds 2 and 3",
    ),
]


@pytest.mark.parametrize(list(Case._fields), CASES, ids=[c.test_id for c in CASES])
def test_check(
    test_id: str,
    rounds: list[Ledger],
    max_rounds: int,
    angle_injected: bool,
    budget_spent: bool,
    stop: StopReason | None,
    inject_angle: bool,
    circular: tuple[str, ...],
    detail: str,
) -> None:
    got = check(rounds, max_rounds, angle_injected=angle_injected, budget_spent=budget_spent)
    assert got == Decision(stop, inject_angle, circular, detail)


def test_window_and_similarity_are_parameters() -> None:
    two = STUCK[1:]
    assert check(two, 5, angle_injected=False, window=2).inject_angle
    assert not check(STUCK, 5, angle_injected=False, similarity=0.999).inject_angle
    with pytest.raises(ValueError):
        check(STUCK, 5, angle_injected=False, window=1)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [("", "", True), ("", "x", False), ("A  b\nC", "a b c", True), (ARG_A, NEW_B, False)],
)
def test_same_text(a: str, b: str, same: bool) -> None:
    assert same_text(a, b, 0.85) is same
