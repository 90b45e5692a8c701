"""The verdict of a debate, computed from the ledger by code — never taken from the Judge.

- ``inconclusive``: a quick run (``--depth quick``: no stances were taken), no contract
  block ever parsed, or no issue was raised;
- ``consensus``: no issue is open (each resolved by a reasoned agree, or dropped);
- ``partial``: some issue is resolved or dropped, others are still open;
- ``split``: every issue is still open.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from collab.ledger import STATUSES, Ledger

Verdict = Literal["consensus", "partial", "split", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
# The rule in one line, for the schemas and the docs.
VERDICT_TEXT = (
    "Computed from the ledger: inconclusive (a quick run, no contract block ever parsed, "
    "or no issue raised), consensus (no issue open), partial (some resolved or dropped, "
    "some open), split (all open)."
)

# The optional fields a list, status or batch row gives for its run (their JSON Schema;
# collab.outcome makes them): the verdict once the run is done (null before), its open
# blocking issues, the issues by status.
VERDICT_FIELDS: dict[str, object] = {
    "verdict": {"enum": [*VERDICTS, None], "description": VERDICT_TEXT + " Null until done."},
    "open_blocking": {"type": "integer", "minimum": 0},
    "counts": {
        "type": "object",
        "properties": {s: {"type": "integer", "minimum": 0} for s in STATUSES},
        "required": list(STATUSES),
    },
}


def with_verdict(*objects: dict[str, Any]) -> None:
    """Declare :data:`VERDICT_FIELDS` in each object schema (optional ones: no new version)."""
    for obj in objects:
        obj["properties"].update(VERDICT_FIELDS)


def verdict(ledger: Ledger, any_contract: bool, *, quick: bool = False) -> Verdict:
    if quick or not any_contract or not ledger.issues:
        return "inconclusive"
    statuses = {issue.status for issue in ledger.issues}
    if "open" not in statuses:
        return "consensus"
    if statuses != {"open"}:
        return "partial"
    return "split"
