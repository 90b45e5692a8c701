"""The gate's reason, counts and document, word for word per branch (``collab.gate``):
what `collab gate` prints and a CI log shows."""

from __future__ import annotations

from typing import Any

from collab.gate import evaluate, open_by_severity, open_rows


def doc(verdict: str | None, *issues: tuple[str, str]) -> dict[str, Any]:
    ledger = [
        {"id": f"I{n}", "status": st, "severity": sev} for n, (st, sev) in enumerate(issues, 1)
    ]
    out: dict[str, Any] = {"ledger": ledger}
    if verdict is not None:
        out["verdict"] = verdict
    return out


def test_each_reason_word_for_word() -> None:
    two = doc(
        "partial", ("open", "blocking"), ("open", "major"), ("open", "minor"), ("open", "minor")
    )
    reasons = {
        "blocking": evaluate(two, "blocking").reason,
        "major": evaluate(two, "major").reason,
        "split": evaluate(doc("split", ("open", "major")), "split").reason,
        "inconclusive": evaluate(doc(None), "blocking").reason,
        "pass": evaluate(doc("partial", ("open", "major"), ("open", "minor"), ("open", "minor")),
                         "blocking").reason,
        "pass-none": evaluate(doc("consensus", ("resolved", "blocking")), "major").reason,
        "quick": evaluate(doc("inconclusive", ("open", "minor")), "blocking", "quick").reason,
    }  # fmt: skip
    assert reasons == {
        "blocking": "fail: 1 open blocking issue(s) (I1) reach --fail-on blocking",
        "major": "fail: 2 open blocking or major issue(s) (I1, I2) reach --fail-on major",
        "split": "fail: the verdict is split (--fail-on split)",
        "inconclusive": "inconclusive: no contract was parsed or no issue was raised, so "
        "nothing was decided",
        "pass": "pass: verdict partial; open issues: 1 major, 2 minor (--fail-on blocking)",
        "pass-none": "pass: verdict consensus; open issues: none (--fail-on major)",
        "quick": "pass: verdict inconclusive; open issues: 1 minor (--fail-on blocking) (quick "
        "depth: its verdict is inconclusive by definition; the open issues decide)",
    }


def test_the_document_holds_every_field() -> None:
    d = doc("partial", ("open", "blocking"), ("resolved", "major"), ("open", "minor"))
    g = evaluate(d | {"depth": "deep"}, "blocking", "quick")
    assert g.document("20261201-000000-abcdef") == {
        "schema": "collab.gate/1",
        "run_id": "20261201-000000-abcdef",
        "policy": "blocking",
        "outcome": "fail",
        "exit_code": 4,
        "reason": "fail: 1 open blocking issue(s) (I1) reach --fail-on blocking",
        "failing": ["I1"],
        "verdict": "partial",
        "depth": "deep",  # the document's own depth wins over the caller's
        "open": {"blocking": 1, "major": 0, "minor": 1},
    }


def test_a_depth_that_is_not_text_leaves_the_callers() -> None:
    g = evaluate(doc("inconclusive") | {"depth": None}, "blocking", "quick")
    assert (g.depth, g.outcome, g.exit_code) == ("quick", "pass", 0)


def test_only_open_rows_of_a_list_ledger_count() -> None:
    assert open_rows({"ledger": "open"}) == [] and open_rows({}) == []
    rows = open_rows({"ledger": [{"status": "open", "id": "I1"}, "open", {"status": "dropped"}]})
    assert rows == [{"status": "open", "id": "I1"}]
    assert open_by_severity({}) == {"blocking": 0, "major": 0, "minor": 0}
