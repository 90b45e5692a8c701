"""The gate: a finished run's result document → pass (0), fail (4) or inconclusive (5).

Pure: it reads a ``collab.result/2`` (or ``/1``) document (a mapping) and returns a :class:`Gate`;
the CLI (``collab gate ID``, ``collab debate --gate``) prints it and exits with its code.
The run's own exit codes (1 failed, 2 usage, 3 prerequisite, 130 interrupted) come first:
a gate is only ever computed for a run that finished (status ``done``).

Policies (``--fail-on``):

- ``blocking`` (the default): fail when an open issue is ``blocking``;
- ``major``: fail when an open issue is ``blocking`` or ``major``;
- ``split``: fail when the verdict is ``split`` or an open issue is ``blocking``.

An inconclusive verdict (no contract ever parsed, or no issue raised) gives 5 — except at
quick depth, whose verdict is inconclusive by definition: there the open issues decide,
and the reason says so. An issue without a ``severity`` counts as ``major``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from collab.contract import DEFAULT_SEVERITY, SEVERITIES
from collab.errors import EXIT_OK
from collab.verdict import VERDICTS

EXIT_GATE_FAILED = 4
EXIT_GATE_INCONCLUSIVE = 5

GATE_SCHEMA = "collab.gate/1"
Policy = Literal["blocking", "major", "split"]
POLICIES: tuple[Policy, ...] = get_args(Policy)
GateOutcome = Literal["pass", "fail", "inconclusive"]
GATE_EXITS = (EXIT_OK, EXIT_GATE_FAILED, EXIT_GATE_INCONCLUSIVE)
QUICK_DEPTH = "quick"

_FAILING: dict[Policy, frozenset[str]] = {
    "blocking": frozenset({"blocking"}),
    "major": frozenset({"blocking", "major"}),
    "split": frozenset({"blocking"}),
}


def severity(issue: Mapping[str, object]) -> str:
    """An issue's severity: its own when it has a known one, else ``major``. The one
    place the gate and the pull-request comment read severity."""
    value = issue.get("severity")
    return value if isinstance(value, str) and value in SEVERITIES else DEFAULT_SEVERITY


def open_rows(doc: Mapping[str, object]) -> list[Mapping[str, object]]:
    ledger = doc.get("ledger")
    if not isinstance(ledger, Sequence):
        return []
    return [i for i in ledger if isinstance(i, Mapping) and i.get("status") == "open"]


def open_by_severity(doc: Mapping[str, object]) -> dict[str, int]:
    out: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    for issue in open_rows(doc):
        out[severity(issue)] += 1
    return out


@dataclass(frozen=True)
class Gate:
    policy: Policy
    outcome: GateOutcome
    exit_code: int
    reason: str
    failing: tuple[str, ...]
    verdict: str
    depth: str | None
    open: dict[str, int]

    def document(self, run_id: str) -> dict[str, object]:
        return {
            "schema": GATE_SCHEMA,
            "run_id": run_id,
            "policy": self.policy,
            "outcome": self.outcome,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "failing": list(self.failing),
            "verdict": self.verdict,
            "depth": self.depth,
            "open": self.open,
        }


def evaluate(doc: Mapping[str, object], policy: Policy, depth: str | None = None) -> Gate:
    """The gate of a finished run's result document under ``policy``. ``depth`` is the
    run's depth where it has one (the document's own ``depth`` wins)."""
    verdict = str(doc.get("verdict") or "inconclusive")
    given = doc.get("depth")
    depth = given if isinstance(given, str) else depth
    counts = open_by_severity(doc)
    failing = tuple(str(i.get("id")) for i in open_rows(doc) if severity(i) in _FAILING[policy])
    quick = depth == QUICK_DEPTH

    def gate(outcome: GateOutcome, code: int, reason: str) -> Gate:
        if quick and verdict == "inconclusive":
            reason += (
                " (quick depth: its verdict is inconclusive by definition; the open issues decide)"
            )
        return Gate(policy, outcome, code, reason, failing, verdict, depth, counts)

    if failing:
        kinds = " or ".join(sorted(_FAILING[policy], key=SEVERITIES.index))
        return gate("fail", EXIT_GATE_FAILED,
                    f"fail: {len(failing)} open {kinds} issue(s) ({', '.join(failing)}) "
                    f"reach --fail-on {policy}")  # fmt: skip
    if policy == "split" and verdict == "split":
        return gate("fail", EXIT_GATE_FAILED, "fail: the verdict is split (--fail-on split)")
    if verdict == "inconclusive" and not quick:
        return gate("inconclusive", EXIT_GATE_INCONCLUSIVE,
                    "inconclusive: no contract was parsed or no issue was raised, so nothing "
                    "was decided")  # fmt: skip
    left = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"
    return gate("pass", EXIT_OK,
                f"pass: verdict {verdict}; open issues: {left} (--fail-on {policy})")  # fmt: skip


# The properties of a ``collab.gate/1`` document (``report.schemas`` wraps them): `collab
# gate ID --json`; `collab debate --gate --json` adds the same object as `gate`.
GATE_PROPERTIES: dict[str, object] = {
    "run_id": {"type": "string"},
    "policy": {"enum": list(POLICIES)},
    "outcome": {"enum": list(get_args(GateOutcome))},
    "exit_code": {"enum": list(GATE_EXITS)},
    "reason": {"type": "string"},
    "failing": {"type": "array", "items": {"type": "string"}},
    "verdict": {"enum": list(VERDICTS)},
    "depth": {"type": ["string", "null"]},
    "open": {
        "type": "object",
        "properties": {k: {"type": "integer", "minimum": 0} for k in SEVERITIES},
        "required": list(SEVERITIES),
    },
}
GATE_REQUIRED = ["run_id", "policy", "outcome", "exit_code", "reason", "failing", "verdict", "open"]
