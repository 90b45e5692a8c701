"""``--depth auto``'s pure rules (``collab.convergence.changes`` and ``check_auto``), each
branch and its words, without running a debate (the runs: tests/unit/test_depth.py)."""

from __future__ import annotations

from collab.convergence import Decision, changes, check_auto
from collab.ledger import Issue, Ledger

EV_A = "the cache adds an invalidation bug class and the p99 gain is not measured"
EV_B = "a read-through cache with a short ttl keeps the data fresh enough for this page"


def issue(n: int, opened: int = 1, status: str = "open", a: str = EV_A, b: str = EV_B) -> Issue:
    return Issue(f"I{n}", f"T{n}", "A", status, a, b, opened, opened)  # type: ignore[arg-type]


def test_what_a_round_changed() -> None:
    before = Ledger((issue(1), issue(2), issue(3, status="resolved")))
    after = Ledger((
        issue(1, status="resolved"),                  # a status change
        issue(2, b="nothing of the sort: ttl zero"),  # new evidence, B's side only
        issue(3, status="resolved", a="other"),       # closed: its evidence does not count
        issue(4, 2),                                  # a new point
    ))  # fmt: skip
    assert changes(before, after) == ("I1 open → resolved", "new evidence on I2", "new point I4")
    reworded = Ledger((issue(1, a=EV_A + "."), issue(2, b=EV_B.upper().lower() + "!")))
    assert changes(Ledger((issue(1), issue(2))), reworded) == ()
    other_a = Ledger((issue(1, a="nothing of the sort: the gain is 40 ms"),))
    assert changes(Ledger((issue(1),)), other_a) == ("new evidence on I1",)
    assert changes(Ledger((issue(1),)), Ledger((issue(1, a=EV_A + "."),)), similarity=1.0) == (
        "new evidence on I1",
    )


def test_auto_stops_when_every_issue_is_closed() -> None:
    one = [Ledger((issue(1, status="dropped"),))]
    two = [Ledger((issue(1, status="resolved"), issue(2, status="dropped")))]
    assert check_auto(one, 5, contested=True) == Decision(
        "converged-early", detail="the only issue is resolved or dropped"
    )
    assert check_auto(two, 5, contested=True).detail == "all 2 issues are resolved or dropped"


def test_auto_after_the_cross_check_round() -> None:
    r1 = Ledger((issue(1),))
    quiet = check_auto([r1, r1], 5, contested=False)
    assert quiet == Decision(
        "settled", detail="auto: nothing was contested in the cross-check round"
    )
    assert check_auto([r1, r1], 5, contested=True) == Decision(None)
    grew = Ledger((issue(1), issue(2, 2)))
    assert check_auto([r1, grew], 5, contested=False) == Decision(None)  # a new point in round 2


def test_auto_after_round_three() -> None:
    r1 = Ledger((issue(1),))
    same = check_auto([r1, r1, r1], 5, contested=True)
    assert same == Decision(
        "settled",
        detail="auto: round 3 changed nothing that matters (no new point, no contest with new "
        "evidence, no status change)",
    )
    moved = Ledger((issue(1, a="nothing of the sort: the gain is 40 ms"),))
    assert check_auto([r1, r1, moved], 5, contested=True) == Decision(None)
    assert check_auto([r1, moved, moved], 5, contested=True).stop == "settled"
    reworded = Ledger((issue(1, a=EV_A + "."),))
    assert check_auto([r1, r1, reworded], 5, contested=True).stop == "settled"
    assert check_auto([r1, r1, reworded], 5, contested=True, similarity=1.0) == Decision(None)
    assert check_auto([r1, r1, moved], 3, contested=True) == Decision(
        "max-rounds", detail="reached 3/3 rounds"
    )
    assert check_auto([r1, r1, moved], 5, contested=True, budget_spent=True) == Decision(
        "timeout", detail="time budget spent after round 3"
    )


def test_auto_never_settles_round_one() -> None:
    r1 = Ledger((issue(1),))
    assert check_auto([r1], 5, contested=False) == Decision(None)
    assert check_auto([r1], 1, contested=False) == Decision(
        "max-rounds", detail="reached 1/1 rounds"
    )
    assert check_auto([], 5, contested=False) == Decision(None)
