"""The gate's table: a result document and a policy → exit 0, 4 or 5 and one reason."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from collab.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_PREREQ, EXIT_USAGE
from collab.gate import EXIT_GATE_FAILED, EXIT_GATE_INCONCLUSIVE, evaluate, severity
from collab.report.schemas import SCHEMAS


def doc(verdict: str, *issues: tuple[str, str, str | None]) -> dict[str, Any]:
    ledger = []
    for i, (status, sev, _) in enumerate(issues, 1):
        item: dict[str, Any] = {"id": f"I{i}", "title": f"issue {i}", "status": status}
        if sev:
            item["severity"] = sev
        ledger.append(item)
    return {"schema": "collab.result/1", "run_id": "r", "status": "done", "verdict": verdict,
            "ledger": ledger}  # fmt: skip


OB = OPEN_BLOCKING = ("open", "blocking", None)
OPEN_MAJOR = ("open", "major", None)
OPEN_MINOR = ("open", "minor", None)
OPEN_UNRATED = ("open", "", None)  # no severity: counts as major
RB = RESOLVED_BLOCKING = ("resolved", "blocking", None)

CASES = [
    # id, document, policy, depth, exit code, failing ids
    ("clean", doc("consensus", RESOLVED_BLOCKING), "blocking", None, 0, []),
    ("open-blocking", doc("partial", RB, OB), "blocking", None, 4, ["I2"]),
    ("open-major-default-passes", doc("split", OPEN_MAJOR), "blocking", None, 0, []),
    ("open-major-under-major", doc("split", OPEN_MAJOR), "major", None, 4, ["I1"]),
    ("unrated-is-major", doc("split", OPEN_UNRATED), "major", None, 4, ["I1"]),
    ("unrated-not-blocking", doc("split", OPEN_UNRATED), "blocking", None, 0, []),
    ("minor-never-fails", doc("split", OPEN_MINOR), "major", None, 0, []),
    ("split-verdict", doc("split", OPEN_MINOR), "split", None, 4, []),
    ("split-policy-blocking", doc("partial", OB, RB), "split", None, 4, ["I1"]),
    ("split-policy-partial-passes", doc("partial", OPEN_MAJOR, RB), "split", None, 0, []),
    ("inconclusive", doc("inconclusive"), "blocking", None, 5, []),
    ("inconclusive-any-policy", doc("inconclusive"), "major", "standard", 5, []),
    ("quick-counts-blocking", doc("inconclusive", OPEN_BLOCKING), "blocking", "quick", 4, ["I1"]),
    ("quick-without-blocking-passes", doc("inconclusive", OPEN_MAJOR), "blocking", "quick", 0, []),
]  # fmt: skip


@pytest.mark.parametrize(("doc_", "policy", "depth", "code", "failing"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_gate_table(
    doc_: dict[str, Any], policy: Any, depth: str | None, code: int, failing: list[str]
) -> None:
    g = evaluate(doc_, policy, depth)
    assert g.exit_code == code
    assert list(g.failing) == failing
    assert "\n" not in g.reason and g.reason.split(":")[0] == g.outcome
    document = g.document("r")
    Draft202012Validator(SCHEMAS["collab.gate/1"]).validate(document)
    if depth == "quick":
        assert "quick depth" in g.reason  # says why an inconclusive verdict did not give 5


def test_gate_codes_never_collide_with_collabs_own() -> None:
    own = {0, EXIT_FAILED, EXIT_USAGE, EXIT_PREREQ, EXIT_INTERRUPTED}
    assert {EXIT_GATE_FAILED, EXIT_GATE_INCONCLUSIVE} == {4, 5}
    assert not own & {EXIT_GATE_FAILED, EXIT_GATE_INCONCLUSIVE}


def test_the_documents_depth_wins_over_the_callers() -> None:
    d = doc("inconclusive", OPEN_MAJOR) | {"depth": "quick"}
    assert evaluate(d, "blocking", None).exit_code == 0


@pytest.mark.parametrize(("given", "seen"),
                         [("blocking", "blocking"), ("minor", "minor"), (None, "major"),
                          ("", "major"), ("critical", "major"), (3, "major")])  # fmt: skip
def test_severity_defaults_to_major(given: object, seen: str) -> None:
    assert severity({"severity": given} if given is not None else {}) == seen


def test_result_schema_takes_the_gate_as_an_optional_field() -> None:
    result = SCHEMAS["collab.result/1"]
    assert result["properties"]["gate"] is SCHEMAS["collab.gate/1"]
    assert "gate" not in result["required"]
