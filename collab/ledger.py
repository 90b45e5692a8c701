"""The issue ledger, kept by our code from the parsed contracts. Pure and deterministic.

The models only propose; this module decides what an issue's status is, so that two
runs fed the same contracts end with the same ledger and resume can rebuild it by replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, get_args

from collab.contract import DEFAULT_SEVERITY, Contract, Severity, StanceKind, StanceUpdate
from collab.evidence import EvidenceCheck, EvidenceStatus, recheck
from collab.records import record
from collab.seats import SEATS, Seat, Side

Status = Literal["open", "resolved", "dropped"]
Resolution = Literal["agree", "drop", "conceded"]
# Which stance table a run is replayed with (see STANCE_TABLES); recorded in state.json.
TableName = Literal["v1", "v2"]
# What one stance does to an issue (the evidence is updated first in every case):
#   resolve   this seat agrees: status resolved, resolution "agree", the reason kept,
#             once the issue is settled (``resolves``: every present seat but the raiser
#             agrees with a reason, or with a quorum K, K of them and no contest)
#   concede   status dropped, resolution "conceded", who (dropped_by) and why kept
#   drop      status dropped, resolution "drop", who and why kept
#   drop-one  this seat steps away; the issue is dropped once every present seat and the
#             raiser have (the raiser counts as present for its own point, so a point
#             is never dropped behind its back; with two seats: both)
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


# Not a @record: made ~1,400 times in a 3-round debate (``replace``), where its __init__
# assigning through object.__setattr__ beats a record's (collab.records) by ~10 ms.
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
    # A panel's seats C–E: their evidence and checks, kept like A's and B's.
    evidence_c: str = ""
    evidence_d: str = ""
    evidence_e: str = ""
    checks_c: tuple[EvidenceCheck, ...] = ()
    checks_d: tuple[EvidenceCheck, ...] = ()
    checks_e: tuple[EvidenceCheck, ...] = ()
    # Each seat's latest stance that changed something (a reasoned one, or a contest),
    # in seat order; a seat with none here is silent on the issue.
    # (Not compared: an issue is "changed" by what it says, not by who last said it.)
    stances: tuple[LatestStance, ...] = field(default=(), compare=False)

    def evidence(self, side: Side) -> str:
        return str(getattr(self, _evidence_field(side)))

    def checks(self, side: Side) -> tuple[EvidenceCheck, ...]:
        found: tuple[EvidenceCheck, ...] = getattr(self, _checks_field(side))
        return found

    def stance_of(self, seat: Seat) -> LatestStance | None:
        return next((s for s in self.stances if s.seat == seat), None)


@record
class LatestStance:
    """One seat's latest stance on an issue: what, with which reason, in which round."""

    seat: Seat
    stance: StanceKind
    reason: str
    round_no: int


def _evidence_field(seat: Seat) -> str:
    return f"evidence_{seat.lower()}"


def _checks_field(seat: Seat) -> str:
    return f"checks_{seat.lower()}"


@record
class SeverityChange:
    side: Side
    old: Severity
    new: Severity
    round_no: int


@record
class Ledger:
    issues: tuple[Issue, ...] = ()


NO_ISSUES = Ledger()


# The seats present in a round (they answered it, or have not had their turn yet): a
# function of the round number. Two seats, both present, unless the caller says otherwise.
Present = Callable[[int], frozenset[Seat]]
PAIR: frozenset[Seat] = frozenset({"A", "B"})


def _pair(_round_no: int) -> frozenset[Seat]:
    return PAIR


def _with_evidence(issue: Issue, side: Side, evidence: str) -> Issue:
    # An empty evidence string means "nothing new", never "forget what I said".
    if not evidence:
        return issue
    return replace(issue, **{_evidence_field(side): evidence})  # type: ignore[arg-type]


def _with_stance(issue: Issue, stance: LatestStance) -> Issue:
    kept = [s for s in issue.stances if s.seat != stance.seat]
    return replace(issue, stances=tuple(sorted([*kept, stance], key=lambda s: s.seat)))


def resolves(issue: Issue, present: frozenset[Seat], quorum: int | None = None) -> bool:
    """Is ``issue`` resolved by the latest stances of the ``present`` seats? Without a
    quorum every present seat but the raiser agrees (with a reason: an agree without one
    is never recorded); with ``quorum`` K at least K of them agree and no present seat
    contests. Never by one agree while another present seat said nothing."""
    others = present - {issue.raised_by}
    latest = {s.seat: s.stance for s in issue.stances if s.seat in present}
    agreed = {seat for seat in others if latest.get(seat) == "agree"}
    if not agreed:
        return False
    if quorum is None:
        return agreed == others
    return len(agreed) >= quorum and "contest" not in latest.values()


def _apply_stance(
    issue: Issue,
    side: Side,
    stance: StanceUpdate,
    table: TableName,
    round_no: int = 0,
    present: frozenset[Seat] = PAIR,
    quorum: int | None = None,
) -> Issue:
    new = _with_evidence(issue, side, stance.evidence)
    what = effect(table, side == issue.raised_by, stance.stance, bool(stance.evidence))
    if what != "nothing":
        new = _with_stance(new, LatestStance(side, stance.stance, stance.evidence, round_no))
    if what == "resolve":
        if not resolves(new, present | {side}, quorum):
            return new
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
        if dropped_by >= present | {side, new.raised_by}:
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
    present: frozenset[Seat] = PAIR,
    quorum: int | None = None,
) -> Ledger:
    """Stances first, so a turn can never take a stance on an issue it opens itself.
    ``present``: the seats present in the round (``Present``); ``quorum``: --quorum.

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
        new = _apply_stance(old, side, stance, table, round_no, present, quorum)
        new = _rerate(new, side, round_no, stance)
        if new != old:
            issues[i] = replace(new, round_updated=round_no)
    for point in contract.new_points:
        opened = Issue(
            id=f"I{len(issues) + 1}",
            title=point.title,
            raised_by=side,
            status="open",
            evidence_a="",
            evidence_b="",
            round_opened=round_no,
            round_updated=round_no,
            severity=point.severity,
        )
        issues.append(_with_evidence(opened, side, point.evidence))
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
    """Each issue's current evidence with the statuses its cites were checked to have (an
    issue whose checks are those already is kept: the same object)."""
    return Ledger(tuple(_checked(issue, known) for issue in ledger.issues))


def _checked(issue: Issue, known: dict[tuple[str, str | None], EvidenceStatus]) -> Issue:
    checks = {_checks_field(s): recheck(issue.evidence(s), known) for s in SEATS}
    if all(getattr(issue, name) == found for name, found in checks.items()):
        return issue
    return replace(issue, **checks)  # type: ignore[arg-type]


def open_blocking(ledger: Ledger) -> int:
    return sum(1 for i in ledger.issues if i.status == "open" and i.severity == "blocking")


def replay(
    steps: Iterable[tuple[Side, int, Contract | None]],
    table: TableName = CURRENT_TABLE,
    present: Present = _pair,
    quorum: int | None = None,
    start: Ledger = NO_ISSUES,
) -> Ledger:
    """Resume rebuilds the ledger from stored turns rather than trusting a saved copy.
    ``steps`` in the order the turns were taken (a round's speaking order); ``start``: the
    ledger the steps before them made (with the same ``present`` for their rounds)."""
    ledger = start
    for side, round_no, contract in steps:
        if contract is not None:
            ledger = apply(ledger, side, round_no, contract, table, present(round_no), quorum)
    return ledger


Tally = Literal["agree", "contest", "drop", "silent"]


def tally(issue: Issue, seats: Iterable[Seat]) -> dict[Tally, tuple[Seat, ...]]:
    """Who stands where on ``issue``, among ``seats`` other than its raiser: each seat's
    latest stance, or silent (no stance yet)."""
    out: dict[Tally, list[Seat]] = {"agree": [], "contest": [], "drop": [], "silent": []}
    for seat in seats:
        if seat == issue.raised_by:
            continue
        found = issue.stance_of(seat)
        out["silent" if found is None else found.stance].append(seat)
    return {k: tuple(v) for k, v in out.items()}


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
    return [issue_to_dict(issue) for issue in ledger.issues]


def issue_to_dict(issue: Issue) -> dict[str, object]:
    """One item of :func:`ledger_to_dict`."""
    return {
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
        # A panel's seats C–E and the stances per seat: only where there are some.
        **{
            key: value
            for seat in SEATS[2:]
            for key, value in (
                (_evidence_field(seat), issue.evidence(seat)),
                (_checks_field(seat), [asdict(c) for c in issue.checks(seat)]),
            )
            if value
        },
        **({"stances": [asdict(x) for x in issue.stances]} if issue.stances else {}),
    }


# The JSON Schema of one ledger item (:func:`ledger_to_dict`; collab.report.schemas
# publishes it in the result document).
# One cited ``path:line`` of an issue's evidence and what collab's check found.
_CHECK_JSON = {
    "type": "object",
    "properties": {
        "cite": {"type": "string"},
        "quote": {"type": ["string", "null"]},
        "status": {"enum": ["verified", "wrong-line", "no-such-file", "outside", "unchecked"]},
    },
    "required": ["cite", "status"],
}
ISSUE_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^I[1-9][0-9]*$"},
        "title": {"type": "string"},
        "raised_by": {"enum": list(SEATS)},
        "status": {"enum": list(STATUSES)},
        "evidence_a": {"type": "string"},
        "evidence_b": {"type": "string"},
        "round_opened": {"type": "integer", "minimum": 1},
        "round_updated": {"type": "integer", "minimum": 1},
        "dropped_by": {"type": "array", "items": {"enum": list(SEATS)}},
        "resolution": {"enum": [*get_args(Resolution), None]},
        "reason": {"type": "string"},
        "severity": {"enum": ["blocking", "major", "minor"]},
        "severity_changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "side": {"enum": list(SEATS)},
                    "old": {"enum": ["blocking", "major", "minor"]},
                    "new": {"enum": ["blocking", "major", "minor"]},
                    "round_no": {"type": "integer", "minimum": 1},
                },
                "required": ["side", "old", "new"],
            },
        },
        "checks_a": {"type": "array", "items": _CHECK_JSON},
        "checks_b": {"type": "array", "items": _CHECK_JSON},
        # A panel's seats C–E, and each seat's latest stance (where there are some).
        **{f"evidence_{s.lower()}": {"type": "string"} for s in SEATS[2:]},
        **{f"checks_{s.lower()}": {"type": "array", "items": _CHECK_JSON} for s in SEATS[2:]},
        "stances": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "seat": {"enum": list(SEATS)},
                    "stance": {"enum": ["agree", "contest", "drop"]},
                    "reason": {"type": "string"},
                    "round_no": {"type": "integer", "minimum": 0},
                },
                "required": ["seat", "stance", "reason", "round_no"],
            },
        },
    },
    "required": ["id", "title", "raised_by", "status", "evidence_a", "evidence_b"],
}
