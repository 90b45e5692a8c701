"""``python -m bench --only quality`` end to end on the fake agent: two cases (one planted
flaw, one clean trap), all three protocols, scripted replies whose scores are known —
and every prompt the run made, checked for the cases' answer keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import quality
from bench.quality_cases import load_all
from bench.quality_score import score
from collab.prompts import Prompts
from tests.helpers import JUDGE_REST

pytestmark = pytest.mark.e2e

PLANTED, CLEAN = "sql-search", "clean-sql-sort"


def reply(points: list[dict[str, str]] = (), stances: list[dict[str, str]] = ()) -> str:  # type: ignore[assignment]
    block = {"new_points": list(points), "stances": list(stances), "abstain": None}
    return "My review.\n```json\n" + json.dumps(block) + "\n```"


SQLI = {
    "title": "SQL injection through the search term",
    "severity": "blocking",
    "evidence": "search.py:10 `WHERE name LIKE '%{term}%'` pastes the term into SQL",
}
RACE = {
    "title": "Race on the shared connection",
    "severity": "blocking",
    "evidence": "db.py:3 shares one connection",
}  # not a context file: unchecked
SORT = {
    "title": "Column pasted into ORDER BY",
    "severity": "blocking",
    "evidence": "orders.py:10 `ORDER BY {column}` is built with an f-string",
}
NOTHING = reply()


def rule(needles: list[str], replies: list[str]) -> dict[str, Any]:
    return {"match": needles, "replies": replies}


def script() -> dict[str, Any]:
    sqli_a = [reply([SQLI, RACE]), reply(stances=[
        {"id": "I2", "stance": "drop", "evidence": "the change has no shared connection"}]),
        NOTHING]  # fmt: skip
    sqli_b = [NOTHING, reply(stances=[
        {"id": "I1", "stance": "agree", "evidence": "the term is pasted into the SQL text"}]),
        NOTHING]  # fmt: skip
    sort_a = [
        reply([SORT]),
        NOTHING,
        reply(
            stances=[
                {"id": "I1", "stance": "drop", "evidence": "the column comes from the allowlist"}
            ]
        ),
    ]
    sort_b = [NOTHING, reply(stances=[
        {"id": "I1", "stance": "contest", "evidence": "orders.py:4 maps sort to fixed columns"}]),
        NOTHING]  # fmt: skip
    rules = [rule(["neutral judge"], ["## TL;DR\n- scripted judge\n" + JUDGE_REST])]
    a, b = "You are **Reviewer**", "You are **Author**"
    for n in ("1", "2", "3"):  # one rule (one reply counter) per protocol: "round r of n."
        single = n == "1"
        rules += [
            rule(["search_products", a, f"of {n}."], [reply([SQLI, RACE])] if single else sqli_a),
            rule(["search_products", b, f"of {n}."], sqli_b),
            rule(["list_orders", a, f"of {n}."], [reply([SORT])] if single else sort_a),
            rule(["list_orders", b, f"of {n}."], sort_b),
        ]
    return {"rules": rules, "default": NOTHING}


def test_two_cases_three_protocols_known_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    render = Prompts._render

    def spy(self: Prompts, name: str, **variables: object) -> str:
        text = render(self, name, **variables)
        seen.append(text)
        return text

    monkeypatch.setattr(Prompts, "_render", spy)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script()))
    cases = [c for c in load_all(quality.CASES_DIR) if c.name in (PLANTED, CLEAN)]
    doc = quality.run(
        cases, quality.CASES_DIR, list(quality.PROTOCOLS), "fake", None, 1,
        fake_script=path, say=lambda _t: None,
    )  # fmt: skip
    assert [s.get("error") for s in doc["samples"]] == [None] * 6
    totals = score(doc["samples"], doc["keys"])
    got = {
        name: (t.found, t.planted, t.false_alarms, t.clean_with_alarm, t.verified, t.cites)
        for name, t in totals.items()
    }
    assert got == {
        # the single call keeps both its false alarms (the race, the allowlisted column)
        "single": (1, 1, 2, 1, 2, 3),
        # two rounds: the race is dropped (its evidence now the reason, without a cite);
        # the clean case's alarm is still open, B's cite of the allowlist verified
        "quick": (1, 1, 1, 1, 3, 3),
        # the third round drops the clean case's alarm too (the planted case had
        # converged after round 2)
        "standard": (1, 1, 0, 0, 2, 2),
    }
    calls = {name: t.calls for name, t in totals.items()}
    assert calls == {"single": 2, "quick": 10, "standard": 12}  # turns + the Judge
    # Re-scored from the results file alone: the same numbers.
    saved = json.loads(json.dumps(doc))
    again = score(saved["samples"], saved["keys"])
    assert {n: (t.found, t.false_alarms, t.verified) for n, t in again.items()} == {
        n: (t.found, t.false_alarms, t.verified) for n, t in totals.items()
    }
    # No prompt the run made holds a case's answer key.
    assert len(seen) >= 20
    for case in cases:
        for f in case.flaws:
            for secret in (f.summary, f.where, f.id, *f.patterns):
                assert not any(secret in text for text in seen), secret
