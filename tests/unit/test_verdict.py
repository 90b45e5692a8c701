from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.ledger import Issue, Ledger, Status
from collab.verdict import VERDICT_FIELDS, Verdict, verdict, with_verdict


def led(*statuses: Status) -> Ledger:
    return Ledger(
        tuple(Issue(f"I{n}", f"T{n}", "A", s, "", "", 1, 1) for n, s in enumerate(statuses, 1))
    )


class Row(NamedTuple):
    test_id: str
    ledger: Ledger
    expect: Verdict
    any_contract: bool = True


ROWS = [
    Row("no-contract-ever", led(), "inconclusive", any_contract=False),
    Row("no-contract-but-issues-cannot-happen-still-inconclusive", led("open"), "inconclusive",
        any_contract=False),
    Row("contracts-but-no-issue", led(), "inconclusive"),
    Row("all-resolved", led("resolved", "resolved"), "consensus"),
    Row("resolved-and-dropped", led("resolved", "dropped"), "consensus"),
    Row("all-dropped", led("dropped"), "consensus"),
    Row("some-open-some-resolved", led("open", "resolved"), "partial"),
    Row("some-open-some-dropped", led("dropped", "open"), "partial"),
    Row("all-open", led("open", "open"), "split"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_verdict(row: Row) -> None:
    assert verdict(row.ledger, row.any_contract) == row.expect


def test_the_outcome_fields_are_declared_in_every_row_schema_given() -> None:
    row: dict[str, object] = {"properties": {"id": {"type": "string"}}, "required": ["id"]}
    other: dict[str, object] = {"properties": {}}
    with_verdict(row, other)
    assert row == {"properties": {"id": {"type": "string"}, **VERDICT_FIELDS}, "required": ["id"]}
    assert other == {"properties": VERDICT_FIELDS}
