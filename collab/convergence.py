"""When to stop: pure rules over the ledger as it stood at the end of each round.

The rules run in a fixed order and the first match wins, so one ledger history always
yields one reason. A new angle is only worth injecting when another round will follow;
on the last round, or once the time budget is spent, circularity falls through to the
stop rules below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise
from typing import Literal, get_args

from collab.ledger import Issue, Ledger, get, new_points
from collab.seats import SEATS

# Why a debate stopped: the one type every surface (state.json, the schemas, the docs)
# names. ``no-contract``: round 1 yielded no usable contract from any side, after the
# re-asks, so the debate stops there rather than run every round blind. ``too-few-seats``:
# fewer than two seats answered the opening round (there is no one to debate).
StopReason = Literal[
    "converged-early",
    "circular-break",
    "max-rounds",
    "timeout",
    "budget",
    "interrupted",
    "no-contract",
    "settled",
    "too-few-seats",
]
STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)


@dataclass(frozen=True)
class Decision:
    stop: StopReason | None
    inject_angle: bool = False
    circular_ids: tuple[str, ...] = ()
    detail: str = ""


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def same_text(a: str, b: str, similarity: float) -> bool:
    """Rewording and reflowing the same argument is not progress; this is what counts."""
    a, b = _normalise(a), _normalise(b)
    if a == b:
        return True
    # autojunk would ignore frequent characters in texts over 200 chars and skew the ratio.
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= similarity


def _stuck(history: Sequence[Issue | None], similarity: float) -> bool:
    if any(issue is None or issue.status != "open" for issue in history):
        return False
    return all(
        prev is not None and cur is not None and _same_evidence(prev, cur, similarity)
        for prev, cur in pairwise(history)
    )


def _same_evidence(old: Issue, new: Issue, similarity: float) -> bool:
    """Every seat's evidence on the issue substantially the same as before."""
    return all(same_text(old.evidence(s), new.evidence(s), similarity) for s in SEATS)


def too_few_seats(answered: int, seats: int) -> Decision:
    """After the opening round: one seat answered (none is a failed run, decided later)."""
    return Decision(
        "too-few-seats",
        detail=f"only {answered} of {seats} seats answered the opening round: nothing to debate",
    )


def circular_ids(
    round_ledgers: Sequence[Ledger], *, similarity: float = 0.85, window: int = 3
) -> tuple[str, ...]:
    """Open issues whose evidence from both sides stood still over the last window rounds."""
    if window < 2:
        raise ValueError("window must be at least 2 rounds")
    if len(round_ledgers) < window:
        return ()
    snapshots = round_ledgers[-window:]
    return tuple(
        issue.id
        for issue in snapshots[-1].issues
        if _stuck([get(ledger, issue.id) for ledger in snapshots], similarity)
    )


def _names(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


NO_CONTRACT = "the ledger is empty because no contract block parsed"
NO_CONTRACT_STOP = (
    "no usable contract block from any side in round 1, even after the re-asks: the agents "
    "are not following the contract; check the model (a small or local model may not)"
)


def check(
    round_ledgers: Sequence[Ledger],
    max_rounds: int,
    *,
    angle_injected: bool,
    budget_spent: bool = False,
    parsed: Sequence[bool] | None = None,
    similarity: float = 0.85,
    window: int = 3,
) -> Decision:
    """``parsed[i]``: whether any contract block of round i + 1 parsed. A round without
    one said nothing, so it is not a quiet round (None: every round's did)."""
    current = len(round_ledgers)
    latest = round_ledgers[-1] if round_ledgers else Ledger()

    def spoke(round_no: int) -> bool:
        return parsed is None or round_no > len(parsed) or parsed[round_no - 1]

    never = parsed is not None and len(parsed) >= current > 0 and not any(parsed[:current])
    why_empty = f"; {NO_CONTRACT}" if never else ""

    if latest.issues and all(issue.status != "open" for issue in latest.issues):
        n = len(latest.issues)
        what = "the only issue is" if n == 1 else f"all {n} issues are"
        return Decision("converged-early", detail=f"{what} resolved or dropped")

    quiet = new_points(latest, current) == 0 and new_points(latest, current - 1) == 0
    if current >= 2 and quiet and spoke(current) and spoke(current - 1):
        return Decision(
            "converged-early", detail=f"no new points in rounds {current - 1} and {current}"
        )

    stuck = circular_ids(round_ledgers, similarity=similarity, window=window)
    if stuck:
        who = _names(stuck)
        rounds = _plural(window, "round")
        if angle_injected:
            return Decision(
                "circular-break",
                circular_ids=stuck,
                detail=f"{who} went round in circles for {rounds} after a new angle",
            )
        if current < max_rounds and not budget_spent:
            return Decision(
                None,
                inject_angle=True,
                circular_ids=stuck,
                detail=f"{who} went round in circles for {rounds}; trying a new angle",
            )

    if current >= max_rounds:
        return Decision("max-rounds", detail=f"reached {current}/{max_rounds} rounds{why_empty}")

    if budget_spent:
        return Decision("timeout", detail=f"time budget spent after round {current}{why_empty}")

    if current == 1 and not spoke(1):
        return Decision("no-contract", detail=NO_CONTRACT_STOP)

    return Decision(None)


# --depth quick: one blind round, then the Judge.
QUICK_DETAIL = "quick: no stances were taken"


def changes(before: Ledger, after: Ledger, similarity: float = 0.85) -> tuple[str, ...]:
    """What a round changed that matters (``--depth auto``): a new point, a status change,
    or an open issue contested with new evidence (rewording is not new evidence)."""
    out: list[str] = []
    for issue in after.issues:
        old = get(before, issue.id)
        if old is None:
            out.append(f"new point {issue.id}")
        elif old.status != issue.status:
            out.append(f"{issue.id} {old.status} → {issue.status}")
        elif issue.status == "open" and not _same_evidence(old, issue, similarity):
            out.append(f"new evidence on {issue.id}")
    return tuple(out)


def check_auto(
    round_ledgers: Sequence[Ledger],
    max_rounds: int,
    *,
    contested: bool,
    budget_spent: bool = False,
    similarity: float = 0.85,
) -> Decision:
    """``--depth auto`` after round ``len(round_ledgers)`` (round 1 is blind, round 2 the
    cross-check round): stop once a round changed nothing that matters, or, after the
    cross-check, when nothing is contested. ``contested``: some stance of the last round
    was a contest. All issues closed, the cap and the budget stop it as they stop
    ``standard``."""
    current = len(round_ledgers)
    latest = round_ledgers[-1] if round_ledgers else Ledger()
    if latest.issues and all(issue.status != "open" for issue in latest.issues):
        n = len(latest.issues)
        what = "the only issue is" if n == 1 else f"all {n} issues are"
        return Decision("converged-early", detail=f"{what} resolved or dropped")
    if current == 2:
        new = new_points(latest, 2)
        if not contested and new == 0:
            return Decision(
                "settled", detail="auto: nothing was contested in the cross-check round"
            )
    elif current > 2 and not changes(round_ledgers[-2], latest, similarity):
        return Decision(
            "settled",
            detail=f"auto: round {current} changed nothing that matters (no new point, "
            "no contest with new evidence, no status change)",
        )
    if current >= max_rounds:
        return Decision("max-rounds", detail=f"reached {current}/{max_rounds} rounds")
    if budget_spent:
        return Decision("timeout", detail=f"time budget spent after round {current}")
    return Decision(None)
