"""What a run came to, as every view shows it (``list``, ``status``, ``watch``, a batch,
``show``, the line a debate ends with): the verdict, the ledger's counts, the open
blocking issues, and why it stopped.

One rule decides the wording: a run *finished* when it is done and a stop rule of the
debate itself ended it (it converged, went round in circles, reached its last round,
settled); a run that is not done, or that a limit cut short (time, cost, no usable
contract), *stopped*. An interrupted run's stop reason is ``interrupted`` in every view
and document, though state.json keeps none (a resume must find the rule unset).
"""

from __future__ import annotations

from collab.ledger import Status, counts, open_blocking
from collab.records import record
from collab.state import RunState
from collab.verdict import Verdict

# The stop rules that end a debate as it should end: its finish is not a "stop".
FINISHING_REASONS = frozenset({"converged-early", "circular-break", "max-rounds", "settled"})


def shown_stop_reason(status: object, stop_reason: str | None) -> str | None:
    """The stop reason every view shows: ``interrupted`` for an interrupted run."""
    return "interrupted" if status == "interrupted" else stop_reason


def counts_text(counted: dict[Status, int], blocking: int = 0) -> str:
    """``2 open (1 blocking) · 3 resolved · 1 dropped``."""
    held = f" ({blocking} blocking)" if blocking else ""
    return (
        f"{counted['open']} open{held} · {counted['resolved']} resolved · "
        f"{counted['dropped']} dropped"
    )


@record
class RunOutcome:
    status: str
    stop_reason: str | None  # as shown: see shown_stop_reason
    stop_detail: str
    verdict: Verdict
    counts: dict[Status, int]
    open_blocking: int
    rounds_done: int
    rounds: int

    @property
    def finished(self) -> bool:
        """Done, and ended by a rule of the debate rather than cut short."""
        return self.status == "done" and (self.stop_reason or "max-rounds") in FINISHING_REASONS

    def counts_text(self) -> str:
        return counts_text(self.counts, self.open_blocking)

    def stop_phrase(self) -> str:
        """``ended: max-rounds``, ``stopped: interrupted``, ``stop: —`` (none yet)."""
        if self.stop_reason is None:
            return "stop: —"
        return f"{'ended' if self.finished else 'stopped'}: {self.stop_reason}"

    def fields(self) -> dict[str, object]:
        """What the ``--json`` documents (list, status, batch) add for the outcome: the
        verdict once the run is done (null before: a ledger still growing has none)."""
        return {
            "verdict": self.verdict if self.status == "done" else None,
            "open_blocking": self.open_blocking,
            "counts": dict(self.counts),
        }


def outcome_of(state: RunState) -> RunOutcome:
    ledger = state.ledger()
    return RunOutcome(
        status=state.status,
        stop_reason=shown_stop_reason(state.status, state.stop_reason),
        stop_detail=state.stop_detail,
        verdict=state.verdict(ledger),  # the ledger replayed once (collab list: every run)
        counts=counts(ledger),
        open_blocking=open_blocking(ledger),
        rounds_done=state.rounds_done(),
        rounds=state.config.rounds,
    )
