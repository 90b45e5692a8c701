"""Where the contract is in a reply (``collab.contract_parse``): the fence rules on line
endings and at the very start of a reply, and which info string tags a block."""

from __future__ import annotations

from collab.contract import Contract, NewPoint
from collab.contract_parse import parse

IDS = frozenset({"I1"})
BODY = '{"new_points": [{"title": "Real", "evidence": "e"}]}'
REAL = Contract((NewPoint("Real", "e"),))


def test_a_reply_with_windows_line_endings_reads_its_fences_like_unix_ones() -> None:
    got = parse(f"My case.\r\n```json\r\n{BODY}\r\n```\r\nThanks.\r\n", IDS)
    assert got.contract == REAL
    assert got.warnings == ()  # closed, and the body needed no repair
    assert got.prose == "My case.\r\nThanks."


def test_a_reply_that_is_only_an_unclosed_json_block_still_yields_its_contract() -> None:
    got = parse(f"```json\n{BODY}\n", IDS)
    assert got.contract == REAL
    assert got.warnings == ("the json block was never closed",)
    assert got.prose == ""


def test_an_info_string_is_a_tag_even_when_it_is_only_capital_x() -> None:
    got = parse(f"Prose.\n```X\n{BODY}\n```", IDS)
    assert (got.contract, got.error) == (None, "no json block found at the end of the reply")


def test_only_spaces_or_tabs_may_follow_a_closing_fence() -> None:
    spaced = parse(f"```json\n{BODY}\n``` \t\nThanks.", IDS)
    assert (spaced.contract, spaced.prose, spaced.warnings) == (REAL, "Thanks.", ())
    # A form feed is no space (CommonMark): the block runs on to the end, still salvaged.
    fed = parse(f"```json\n{BODY}\n```\f\nThanks.", IDS)
    assert (fed.contract, fed.prose) == (REAL, "")
    assert "the json block was never closed" in fed.warnings
