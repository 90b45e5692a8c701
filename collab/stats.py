"""What the debates did, in numbers: per run, and across runs (``collab stats``). Pure.

- concession rate: reasoned agrees per debater turn (on either side's issue: a raiser's
  reasoned agree gives up its own point, ``conceded``);
- issues resolved by evidence (a reasoned agree) vs dropped, and left open;
- turns with a usable contract / debater turns (a turn that sent nothing usable is
  counted here, not in the item salvage rate);
- rounds to converge: rounds held by the runs that stopped as ``converged-early``;
- verdict mix;
- contract salvage rate: contract items kept / items sent;
- Judge fallback rate: runs whose summary had to be written from the ledger;
- cost per resolved issue;
- open blocking issues, and the share of cited evidence (``path:line``) that verified;
- decided runs (``collab decide``), and over the decided runs that were given options
  (``--option``): how often the choice matched the option most seats favoured at the end;
- per depth (quick, standard, deep, auto): runs, calls, tokens, cost and the verdict mix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, field

from collab.decision import current
from collab.favours import most_favoured
from collab.ledger import open_blocking
from collab.options import DEPTHS
from collab.records import record
from collab.state import RunState


@record
class RunStats:
    run_id: str
    turns: int
    agrees: int
    resolved: int
    dropped: int
    open: int
    items_sent: int
    items_kept: int
    rounds: int
    converged: bool
    verdict: str
    judge_fallback: bool | None  # None: no Judge yet
    cost_usd: float | None
    open_blocking: int = 0
    # Cites checked after the turns, and how many of them verified.
    cites: int = 0
    cites_verified: int = 0
    conceded: int = 0  # issues dropped by their raiser's reasoned agree
    contract_turns: int = 0  # debater turns whose contract was usable
    decided: bool = False
    # Decided with options: did the choice name the option most seats favoured at the end?
    # None when the run was not decided or had no options.
    choice_matched: bool | None = None
    depth: str = "standard"
    calls: int = 0  # agent calls, retries and re-asks included
    input_tokens: int = 0
    output_tokens: int = 0
    seats: int = 2

    @property
    def concession_rate(self) -> float | None:
        return _ratio(self.agrees, self.turns)

    @property
    def evidence_verified_rate(self) -> float | None:
        return _ratio(self.cites_verified, self.cites)

    @property
    def contract_rate(self) -> float | None:
        return _ratio(self.contract_turns, self.turns)

    @property
    def salvage_rate(self) -> float | None:
        return _ratio(self.items_kept, self.items_sent)

    def document(self) -> dict[str, object]:
        return asdict(self) | {
            "concession_rate": self.concession_rate,
            "salvage_rate": self.salvage_rate,
            "contract_rate": self.contract_rate,
            "cost_per_resolved_usd": _cost_per(self.cost_usd, self.resolved),
            "evidence_verified_rate": self.evidence_verified_rate,
        }


def run_stats(state: RunState) -> RunStats:
    ledger = state.ledger()
    debater_turns = [t for t in state.turns if t.status in ("ok", "abstain")]
    agrees = sum(
        1
        for t in state.turns
        if t.contract is not None
        for s in t.contract.stances
        if s.stance == "agree" and s.evidence
    )
    by_status = Counter(i.status for i in ledger.issues)
    checks = [c for t in state.turns for c in t.evidence_checks]
    choice = current(state.decisions)
    matched = None
    if choice is not None and state.config.options:
        matched = choice.option is not None and choice.option == most_favoured(state.turns)
    return RunStats(
        run_id=state.run_id,
        turns=len(debater_turns),
        agrees=agrees,
        resolved=by_status["resolved"],
        dropped=by_status["dropped"],
        open=by_status["open"],
        items_sent=sum(t.items_sent for t in state.turns),
        items_kept=sum(t.items_kept for t in state.turns),
        rounds=state.rounds_done(),
        converged=state.stop_reason == "converged-early",
        verdict=state.verdict(),
        judge_fallback=None if state.judge is None else state.judge.fallback,
        cost_usd=state.cost_usd(),
        open_blocking=open_blocking(ledger),
        cites=len(checks),
        cites_verified=sum(1 for c in checks if c.status == "verified"),
        conceded=sum(1 for i in ledger.issues if i.resolution == "conceded"),
        contract_turns=sum(1 for t in debater_turns if t.contract is not None),
        decided=choice is not None,
        choice_matched=matched,
        depth=state.config.depth,
        calls=state.calls(),
        input_tokens=state.tokens().input_tokens,
        output_tokens=state.tokens().output_tokens,
        seats=len(state.seats),
    )


@record
class DepthStats:
    """The runs of one depth: what they made and what they concluded."""

    runs: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    verdicts: dict[str, int]
    calls_per_run: float | None
    tokens_per_run: float | None


@record
class Stats:
    runs: int
    turns: int
    concession_rate: float | None
    resolved_by_evidence: int
    dropped: int
    open: int
    rounds_to_converge: float | None  # mean, over converged runs
    converged_runs: int
    verdicts: dict[str, int] = field(default_factory=dict)
    salvage_rate: float | None = None
    items_sent: int = 0
    items_kept: int = 0
    judge_fallback_rate: float | None = None
    cost_usd: float | None = None
    cost_per_resolved_usd: float | None = None
    open_blocking: int = 0
    cites: int = 0
    evidence_verified_rate: float | None = None
    conceded: int = 0
    contract_turns: int = 0
    contract_rate: float | None = None
    decided_runs: int = 0
    # Decided runs given options, and those whose choice was the option most seats
    # favoured at the end (collab.favours.most_favoured).
    decided_with_options: int = 0
    choice_matched: int = 0
    choice_matched_rate: float | None = None
    by_depth: dict[str, DepthStats] = field(default_factory=dict)
    # The verdict mix of the runs of each seat count ("2", "3", …).
    verdicts_by_seats: dict[str, dict[str, int]] = field(default_factory=dict)


# The JSON Schema of one depth's DepthStats in ``collab stats --json``'s ``by_depth``.
DEPTH_STATS_JSON_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": "The runs of one depth: runs, calls, tokens, cost and the verdict mix.",
    "properties": {
        **{k: {"type": "integer", "minimum": 0}
           for k in ("runs", "calls", "input_tokens", "output_tokens")},
        **{k: {"type": ["number", "null"]}
           for k in ("cost_usd", "calls_per_run", "tokens_per_run")},
        "verdicts": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["runs", "calls", "input_tokens", "output_tokens", "verdicts"],
}  # fmt: skip


def per_depth(runs: Sequence[RunStats]) -> dict[str, DepthStats]:
    """Runs grouped by depth, in the order quick, standard, deep, auto."""
    out: dict[str, DepthStats] = {}
    for depth in DEPTHS:
        mine = [r for r in runs if r.depth == depth]
        if not mine:
            continue
        costs = [r.cost_usd for r in mine if r.cost_usd is not None]
        calls = sum(r.calls for r in mine)
        tokens = sum(r.input_tokens + r.output_tokens for r in mine)
        out[depth] = DepthStats(
            runs=len(mine),
            calls=calls,
            input_tokens=sum(r.input_tokens for r in mine),
            output_tokens=sum(r.output_tokens for r in mine),
            cost_usd=round(sum(costs), 6) if costs else None,
            verdicts=dict(sorted(Counter(r.verdict for r in mine).items())),
            calls_per_run=round(calls / len(mine), 2),
            tokens_per_run=round(tokens / len(mine), 1),
        )
    return out


def aggregate(runs: Sequence[RunStats]) -> Stats:
    converged = [r.rounds for r in runs if r.converged]
    judged = [r for r in runs if r.judge_fallback is not None]
    costs = [r.cost_usd for r in runs if r.cost_usd is not None]
    resolved = sum(r.resolved for r in runs)
    cost = round(sum(costs), 6) if costs else None
    sent = sum(r.items_sent for r in runs)
    kept = sum(r.items_kept for r in runs)
    with_options = sum(1 for r in runs if r.choice_matched is not None)
    matched = sum(1 for r in runs if r.choice_matched)
    return Stats(
        runs=len(runs),
        turns=sum(r.turns for r in runs),
        concession_rate=_ratio(sum(r.agrees for r in runs), sum(r.turns for r in runs)),
        resolved_by_evidence=resolved,
        dropped=sum(r.dropped for r in runs),
        open=sum(r.open for r in runs),
        rounds_to_converge=round(sum(converged) / len(converged), 2) if converged else None,
        converged_runs=len(converged),
        verdicts=dict(sorted(Counter(r.verdict for r in runs).items())),
        salvage_rate=_ratio(kept, sent),
        items_sent=sent,
        items_kept=kept,
        judge_fallback_rate=_ratio(sum(1 for r in judged if r.judge_fallback), len(judged)),
        cost_usd=cost,
        cost_per_resolved_usd=_cost_per(cost, resolved),
        open_blocking=sum(r.open_blocking for r in runs),
        cites=sum(r.cites for r in runs),
        evidence_verified_rate=_ratio(
            sum(r.cites_verified for r in runs), sum(r.cites for r in runs)
        ),
        conceded=sum(r.conceded for r in runs),
        contract_turns=sum(r.contract_turns for r in runs),
        contract_rate=_ratio(sum(r.contract_turns for r in runs), sum(r.turns for r in runs)),
        decided_runs=sum(1 for r in runs if r.decided),
        decided_with_options=with_options,
        choice_matched=matched,
        choice_matched_rate=_ratio(matched, with_options),
        by_depth=per_depth(runs),
        verdicts_by_seats={
            str(n): dict(sorted(Counter(r.verdict for r in runs if r.seats == n).items()))
            for n in sorted({r.seats for r in runs})
        },
    )


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _cost_per(cost: float | None, resolved: int) -> float | None:
    return round(cost / resolved, 6) if cost is not None and resolved else None
