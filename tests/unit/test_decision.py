"""collab decide's rules (collab.decision): which option a --choice names, what text is
kept, which decision is in force and which are superseded."""

from __future__ import annotations

import pytest

from collab.decision import (
    HumanDecision,
    adr_status,
    current,
    resolve_choice,
    superseded,
    user_text,
)
from collab.errors import UsageError

OPTIONS = ("Keep Postgres", "Move to DynamoDB", "Shard Postgres")


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("O2", ("O2", "Move to DynamoDB")),
        ("o3", ("O3", "Shard Postgres")),
        (" O1 ", ("O1", "Keep Postgres")),
        ("Move to DynamoDB", ("O2", "Move to DynamoDB")),
    ],
)
def test_choice_names_an_option(choice: str, expected: tuple[str, str]) -> None:
    assert resolve_choice(choice, OPTIONS) == expected


@pytest.mark.parametrize("choice", ["O4", "O0", "move to dynamodb", "Postgres", "O", "2"])
def test_choice_outside_the_options_is_refused_listing_them(choice: str) -> None:
    with pytest.raises(UsageError, match="O1 Keep Postgres; O2 Move to DynamoDB"):
        resolve_choice(choice, OPTIONS)


def test_free_text_without_options() -> None:
    assert resolve_choice("  go with sessions\n", ()) == (None, "go with sessions")
    assert resolve_choice("O2", ()) == (None, "O2")


@pytest.mark.parametrize(
    ("text", "message"),
    [("   ", "is empty"), ("a\0b", "NUL"), ("x" * 2001, "2001 characters")],
)
def test_user_text_refuses(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        user_text(text, "--why")


def test_user_text_cleans_control_characters() -> None:
    assert user_text("ok\x1b[31m red\u202e", "--why") == "ok red"


def _d(kind: str, text: str) -> HumanDecision:
    return HumanDecision(kind, text, "ana", "2026-12-01T12:00:00+0000")  # type: ignore[arg-type]


def test_the_last_decision_of_each_kind_is_in_force() -> None:
    first, outcome, second = _d("choice", "a"), _d("outcome", "fine"), _d("choice", "b")
    history = [first, outcome, second]
    assert current(history) is second
    assert current(history, "outcome") is outcome
    assert superseded(history) == [first]
    assert adr_status(history) == "accepted"
    assert adr_status([outcome]) == "proposed" and adr_status([]) == "proposed"
    assert current([outcome]) is None
