"""The issue ledger, kept by our code from the parsed contracts. Pure and deterministic.

The models only propose; this module decides what an issue's status is, so that two
runs fed the same contracts end with the same ledger and resume can rebuild it by replay.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Literal, get_args

from collab.contract import DEFAULT_SEVERITY, Contract, Severity, StanceKind, StanceUpdate
from collab.evidence import EvidenceCheck, EvidenceStatus, recheck
from collab.seats import SIDES, Side

Status = Literal["open", "resolved", "dropped"]
Resolution = Literal["agree", "drop", "conceded"]
# Which stance table a run is replayed with (see STANCE_TABLES); recorded in state.json.
TableName = Literal["v1", "v2"]
# What one stance does to an issue (the evidence is updated first in every case):
#   resolve   status resolved, resolution "agree", the reason kept
#   concede   status dropped, resolution "conceded", who (dropped_by) and why kept
#   drop      status dropped, resolution "drop", who and why kept
#   drop-one  this side steps away; the issue is dropped once every side has
#   reopen    status open, this side's drop withdrawn, the resolution cleared
#   nothing   no status change
Effect = Literal["resolve", "concede", "drop", "drop-one", "reopen", "nothing"]

STATUSES: tuple[Status, ...] = get_args(Status)
TABLE_NAMES: tuple[TableName, ...] = get_args(TableName)
CURRENT_TABLE: TableName = "v2"

# The stance table, decided here once: (the side raised the issue, stance, it gave a
# reason) → effect. v2 is today's rule: a raiser gives up its own point with a reasoned
# "agree" or "drop"; a stance without a reason changes nothing (the parser warns).
# v1 is the rule runs saved before v2 keep (migration m002): a raiser's "agree" changed
# nothing, a reason was not needed, and "abstain" beside items threw the turn away.
_V2: dict[tuple[bool, StanceKind, bool], Effect] = {
    (True, "agree", True): "concede",
    (True, "agree", False): "nothing",
    (True, "contest", True): "reopen",
    (True, "contest", False): "reopen",
    (True, "drop", True): "drop",
    (True, "drop", False): "nothing",
    (False, "agree", True): "resolve",
    (False, "agree", False): "nothing",
    (False, "contest", True): "reopen",
    (False, "contest", False): "reopen",
    (False, "drop", True): "drop-one",
    (False, "drop", False): "nothing",
}
_V1: dict[tuple[bool, StanceKind, bool], Effect] = {
    (raiser, kind, reasoned): (
        "reopen" if kind == "contest"
        else ("nothing" if raiser else "resolve") if kind == "agree"
        else "drop" if raiser else "drop-one"
    )
    for raiser in (True, False)
    for kind in ("agree", "contest", "drop")
    for reasoned in (True, False)
}  # fmt: skip
STANCE_TABLES: dict[TableName, dict[tuple[bool, StanceKind, bool], Effect]] = {
    "v1": _V1,
    "v2": _V2,
}


def effect(table: TableName, raiser: bool, stance: StanceKind, reasoned: bool) -> Effect:
    return STANCE_TABLES[table][(raiser, stance, reasoned)]


@dataclass(frozen=True)
class Issue:
    id: str
    title: str
    raised_by: Side
    status: Status
    evidence_a: str
    evidence_b: str
    round_opened: int
    round_updated: int
    dropped_by: frozenset[Side] = frozenset()
    # How a closed issue closed: a reasoned "agree" by the other side, the raiser's own
    # reasoned "agree" ("conceded"), or a "drop"; and the reason given (what changed the
    # mind). Both empty while the issue is open.
    resolution: Resolution | None = None
    reason: str = ""
    severity: Severity = DEFAULT_SEVERITY
    # Who re-rated the severity, from what, to what, in which round (a reasoned stance).
    severity_changes: tuple[SeverityChange, ...] = ()
    # What the evidence check found for each side's current evidence (``with_checks``).
    checks_a: tuple[EvidenceCheck, ...] = ()
    checks_b: tuple[EvidenceCheck, ...] = ()

    def evidence(self, side: Side) -> str:
        return self.evidence_a if side == "A" else self.evidence_b

    def checks(self, side: Side) -> tuple[EvidenceCheck, ...]:
        return self.checks_a if side == "A" else self.checks_b


@dataclass(frozen=True)
class SeverityChange:
    side: Side
    old: Severity
    new: Severity
    round_no: int


@dataclass(frozen=True)
class Ledger:
    issues: tuple[Issue, ...] = ()


def _with_evidence(issue: Issue, side: Side, evidence: str) -> Issue:
    # An empty evidence string means "nothing new", never "forget what I said".
    if not evidence:
        return issue
    if side == "A":
        return replace(issue, evidence_a=evidence)
    return replace(issue, evidence_b=evidence)


def _apply_stance(issue: Issue, side: Side, stance: StanceUpdate, table: TableName) -> Issue:
    new = _with_evidence(issue, side, stance.evidence)
    what = effect(table, side == issue.raised_by, stance.stance, bool(stance.evidence))
    if what == "resolve":
        return replace(new, status="resolved", resolution="agree", reason=stance.evidence)
    if what == "reopen":
        return replace(
            new, status="open", dropped_by=new.dropped_by - {side}, resolution=None, reason=""
        )
    if what in ("concede", "drop"):
        return replace(
            new, dropped_by=new.dropped_by | {side}, status="dropped",
            resolution="conceded" if what == "concede" else "drop", reason=stance.evidence,
        )  # fmt: skip
    if what == "drop-one":
        dropped_by = new.dropped_by | {side}
        if dropped_by == frozenset(SIDES):
            return replace(
                new, dropped_by=dropped_by, status="dropped", resolution="drop",
                reason=stance.evidence,
            )  # fmt: skip
        return replace(new, dropped_by=dropped_by)
    return new


def apply(
    ledger: Ledger,
    side: Side,
    round_no: int,
    contract: Contract,
    table: TableName = CURRENT_TABLE,
) -> Ledger:
    """Stances first, so a turn can never take a stance on an issue it opens itself.

    ``abstain`` counts only for a contract with no items (v1: it threw the turn away)."""
    if contract.abstain is not None and (
        table == "v1" or not (contract.stances or contract.new_points)
    ):
        return ledger
    issues = list(ledger.issues)
    index = {issue.id: i for i, issue in enumerate(issues)}
    for stance in contract.stances:
        i = index.get(stance.id)
        if i is None:
            continue
        old = issues[i]
        new = _rerate(_apply_stance(old, side, stance, table), side, round_no, stance)
        if new != old:
            issues[i] = replace(new, round_updated=round_no)
    for point in contract.new_points:
        issues.append(
            Issue(
                id=f"I{len(issues) + 1}",
                title=point.title,
                raised_by=side,
                status="open",
                evidence_a=point.evidence if side == "A" else "",
                evidence_b=point.evidence if side == "B" else "",
                round_opened=round_no,
                round_updated=round_no,
                severity=point.severity,
            )
        )
    return Ledger(tuple(issues))


def _rerate(issue: Issue, side: Side, round_no: int, stance: StanceUpdate) -> Issue:
    """The latest reasoned re-rating wins; one without a reason (evidence) changes nothing."""
    if stance.severity is None or stance.severity == issue.severity or not stance.evidence:
        return issue
    change = SeverityChange(side, issue.severity, stance.severity, round_no)
    return replace(
        issue, severity=stance.severity, severity_changes=(*issue.severity_changes, change)
    )


def with_checks(ledger: Ledger, known: dict[tuple[str, str | None], EvidenceStatus]) -> Ledger:
    """Each issue's current evidence with the statuses its cites were checked to have."""
    return Ledger(
        tuple(
            replace(i, checks_a=recheck(i.evidence_a, known), checks_b=recheck(i.evidence_b, known))
            for i in ledger.issues
        )
    )


def open_blocking(ledger: Ledger) -> int:
    return sum(1 for i in ledger.issues if i.status == "open" and i.severity == "blocking")


def replay(
    steps: Iterable[tuple[Side, int, Contract | None]], table: TableName = CURRENT_TABLE
) -> Ledger:
    """Resume rebuilds the ledger from stored turns rather than trusting a saved copy."""
    ledger = Ledger()
    for side, round_no, contract in steps:
        if contract is not None:
            ledger = apply(ledger, side, round_no, contract, table)
    return ledger


def new_points(ledger: Ledger, round_no: int) -> int:
    return sum(1 for issue in ledger.issues if issue.round_opened == round_no)


def counts(ledger: Ledger) -> dict[Status, int]:
    out: dict[Status, int] = dict.fromkeys(STATUSES, 0)
    for issue in ledger.issues:
        out[issue.status] += 1
    return out


def open_issues(ledger: Ledger) -> tuple[Issue, ...]:
    return tuple(issue for issue in ledger.issues if issue.status == "open")


def get(ledger: Ledger, issue_id: str) -> Issue | None:
    for issue in ledger.issues:
        if issue.id == issue_id:
            return issue
    return None


def ledger_to_dict(ledger: Ledger) -> list[dict[str, object]]:
    return [
        {
            "id": issue.id,
            "title": issue.title,
            "raised_by": issue.raised_by,
            "status": issue.status,
            "evidence_a": issue.evidence_a,
            "evidence_b": issue.evidence_b,
            "round_opened": issue.round_opened,
            "round_updated": issue.round_updated,
            "dropped_by": sorted(issue.dropped_by),
            "resolution": issue.resolution,
            "reason": issue.reason,
            "severity": issue.severity,
            "severity_changes": [asdict(c) for c in issue.severity_changes],
            "checks_a": [asdict(c) for c in issue.checks_a],
            "checks_b": [asdict(c) for c in issue.checks_b],
        }
        for issue in ledger.issues
    ]
