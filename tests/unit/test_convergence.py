from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.convergence import Decision, check, same_text
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
    expect: Decision
    max_rounds: int = 3
    angle_injected: bool = False
    budget_spent: bool = False
    # Per round: did any turn's contract block parse? (None: every round's did.)
    parsed: list[bool] | None = None


CASES = [
    Case(
        "contract-less-rounds-are-not-quiet",
        rounds=[led(), led()],
        max_rounds=5,
        parsed=[False, False],
        expect=Decision(None),
    ),
    Case(
        "one-contract-less-round-breaks-the-quiet-pair",
        rounds=[OPEN_1, OPEN_1, OPEN_1],
        max_rounds=5,
        parsed=[True, False, True],
        # Not "no new points in rounds 2 and 3": round 2 said nothing. The rules below run.
        expect=Decision(
            None,
            inject_angle=True,
            circular_ids=("I1",),
            detail="I1 went round in circles for 3 rounds; trying a new angle",
        ),
    ),
    Case(
        "quiet-after-a-contract-less-round",
        rounds=[OPEN_1, OPEN_1, OPEN_1, OPEN_1],
        max_rounds=5,
        parsed=[True, False, True, True],
        expect=Decision("converged-early", detail="no new points in rounds 3 and 4"),
    ),
    Case(
        "no-contract-ever-stops-at-max-rounds-and-says-why",
        rounds=[led(), led()],
        max_rounds=2,
        parsed=[False, False],
        expect=Decision(
            "max-rounds",
            detail="reached 2/2 rounds; the ledger is empty because no contract block parsed",
        ),
    ),
    Case(
        "no-contract-ever-timeout-says-why",
        rounds=[led()],
        max_rounds=5,
        budget_spent=True,
        parsed=[False],
        expect=Decision(
            "timeout",
            detail="time budget spent after round 1; "
            "the ledger is empty because no contract block parsed",
        ),
    ),
    Case(
        "no-rounds",
        rounds=[],
        expect=Decision(None),
    ),
    Case(
        "all-resolved",
        rounds=[led(iss(1, "resolved", "a", "b", 1), iss(2, "resolved", "", "", 1))],
        expect=Decision("converged-early", detail="all 2 issues are resolved or dropped"),
    ),
    Case(
        "all-dropped",
        rounds=[led(iss(1, "dropped", "a", "", 1))],
        expect=Decision("converged-early", detail="the only issue is resolved or dropped"),
    ),
    Case(
        "mix-resolved-dropped",
        rounds=[
            OPEN_1,
            led(
                iss(1, "resolved", "a", "b", 1),
                iss(2, "dropped", "", "", 2),
                iss(3, "resolved", "", "", 2),
                iss(4, "dropped", "", "", 2),
            ),
        ],
        expect=Decision("converged-early", detail="all 4 issues are resolved or dropped"),
    ),
    Case(
        "empty-ledger-not-converged",
        rounds=[led()],
        expect=Decision(None),
    ),
    Case(
        "one-open-issue-not-converged",
        rounds=[led(iss(1, "resolved", "", "", 1), iss(2, "open", "", "", 1))],
        expect=Decision(None),
    ),
    Case(
        "two-quiet-rounds",
        rounds=[OPEN_1, OPEN_2, OPEN_2, OPEN_2],
        max_rounds=5,
        expect=Decision("converged-early", detail="no new points in rounds 3 and 4"),
    ),
    Case(
        "two-quiet-rounds-empty-ledger",
        rounds=[led(), led()],
        max_rounds=5,
        expect=Decision("converged-early", detail="no new points in rounds 1 and 2"),
    ),
    Case(
        "one-quiet-round-not-enough",
        rounds=[*MOVING, led(iss(1, "open", "a", NEW_B, 1), *OPEN_2.issues[1:])],
        max_rounds=5,
        expect=Decision(None),
    ),
    Case(
        "one-round-is-never-quiet",
        rounds=[OPEN_1],
        expect=Decision(None),
    ),
    Case(
        "circular-first-time-injects-angle",
        rounds=STUCK,
        max_rounds=5,
        expect=Decision(
            None,
            inject_angle=True,
            circular_ids=("I1",),
            detail="I1 went round in circles for 3 rounds; trying a new angle",
        ),
    ),
    Case(
        "circular-after-angle-breaks",
        rounds=STUCK_4,
        max_rounds=5,
        angle_injected=True,
        expect=Decision(
            "circular-break",
            circular_ids=("I1", "I2"),
            detail="I1 and I2 went round in circles for 3 rounds after a new angle",
        ),
    ),
    Case(
        "circular-on-last-round-is-max-rounds",
        rounds=STUCK,
        expect=Decision("max-rounds", detail="reached 3/3 rounds"),
    ),
    Case(
        "circular-after-angle-beats-max-rounds",
        rounds=STUCK,
        angle_injected=True,
        expect=Decision(
            "circular-break",
            circular_ids=("I1",),
            detail="I1 went round in circles for 3 rounds after a new angle",
        ),
    ),
    Case(
        "circular-with-budget-spent-is-timeout",
        rounds=STUCK,
        max_rounds=5,
        budget_spent=True,
        expect=Decision("timeout", detail="time budget spent after round 3"),
    ),
    Case(
        "evidence-changed-enough-not-circular",
        rounds=[STUCK[0], STUCK[1], led(iss(1, "open", ARG_A, NEW_B, 1), *STUCK[2].issues[1:])],
        max_rounds=5,
        expect=Decision(None),
    ),
    Case(
        "resolved-issue-not-circular",
        rounds=[STUCK[0], STUCK[1], led(iss(1, "resolved", ARG_A, ARG_B, 1), *STUCK[2].issues[1:])],
        max_rounds=5,
        expect=Decision(None),
    ),
    Case(
        "resolved-mid-window-not-circular",
        rounds=[STUCK[0], led(iss(1, "resolved", ARG_A, ARG_B, 1), *STUCK[1].issues[1:]), STUCK[2]],
        max_rounds=5,
        expect=Decision(None),
    ),
    Case(
        "too-few-rounds-not-circular",
        rounds=STUCK[:2],
        max_rounds=5,
        expect=Decision(None),
    ),
    Case(
        "max-rounds",
        rounds=[*MOVING, led(*OPEN_2.issues, iss(3, "open", "n", "", 3))],
        expect=Decision("max-rounds", detail="reached 3/3 rounds"),
    ),
    Case(
        "budget-spent-timeout",
        rounds=MOVING,
        max_rounds=5,
        budget_spent=True,
        expect=Decision("timeout", detail="time budget spent after round 2"),
    ),
    Case(
        "max-rounds-beats-timeout",
        rounds=MOVING,
        max_rounds=2,
        budget_spent=True,
        expect=Decision("max-rounds", detail="reached 2/2 rounds"),
    ),
    Case(
        "all-resolved-beats-max-rounds",
        rounds=[OPEN_1, led(iss(1, "resolved", "a", "b", 1))],
        max_rounds=2,
        budget_spent=True,
        expect=Decision("converged-early", detail="the only issue is resolved or dropped"),
    ),
    Case(
        "quiet-beats-circular",
        rounds=[STUCK[0], STUCK[0], STUCK[0]],
        angle_injected=True,
        expect=Decision("converged-early", detail="no new points in rounds 2 and 3"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_check(case: Case) -> None:
    got = check(
        case.rounds,
        case.max_rounds,
        angle_injected=case.angle_injected,
        budget_spent=case.budget_spent,
        parsed=case.parsed,
    )
    assert got == case.expect


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
