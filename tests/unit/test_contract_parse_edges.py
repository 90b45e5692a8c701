"""Edges of contract parsing (``collab.contract_parse``) that change what a debater's
turn keeps: control characters inside JSON strings, and every dropped item named."""

from __future__ import annotations

from collab.contract import NewPoint, StanceUpdate
from collab.contract_parse import parse

IDS = frozenset({"I1", "I2"})
TAB_POINT = '{"new_points": [{"title": "a\tb", "evidence": "line one\nline two"}]}'


def test_a_raw_tab_or_newline_inside_a_json_string_is_read_without_repair() -> None:
    got = parse(f"My case.\n```json\n{TAB_POINT}\n```", IDS)
    assert got.contract is not None and got.warnings == ()  # no "was repaired"
    assert got.contract.new_points == (NewPoint("a\tb", "line one\nline two"),)


def test_a_bare_object_after_prose_on_its_line_may_hold_a_raw_tab() -> None:
    got = parse(f"My case, then the contract: {TAB_POINT}", IDS)
    assert got.contract is not None and got.prose == "My case, then the contract:"
    assert got.warnings == ("the contract came without a fence",)


def test_every_dropped_item_is_named_in_one_line_and_in_the_error() -> None:
    two_bad = '{"stances": [{"id": "I7", "stance": "agree", "evidence": "x"}, {"id": "I1"}]}'
    got = parse(f"```json\n{two_bad}\n```", IDS)
    dropped = (
        "stances[0] ('I7' is not a known issue id); "
        "stances[1] (stance must be one of agree/contest/drop)"
    )
    assert got.error == f"nothing in the json block was usable: {dropped}"
    assert got.warnings == (f"dropped {dropped}",)
    one_good = (
        '{"stances": [{"id": "I1", "stance": "contest", "evidence": "no"}, '
        '{"id": "I9", "stance": "drop", "evidence": "x"}, 5]}'
    )
    kept = parse(f"```json\n{one_good}\n```", IDS)
    assert kept.contract is not None and kept.contract.stances == (
        StanceUpdate("I1", "contest", "no"),
    )
    assert kept.warnings == (
        "dropped stances[1] ('I9' is not a known issue id); "
        "stances[2] (an object was expected, not a number)",
    )
    assert (kept.sent, kept.kept) == (3, 1)


def test_a_long_unknown_favours_is_quoted_to_20_characters() -> None:
    body = (
        '{"new_points": [{"title": "t", "evidence": "e"}], "favours": "Option two: SQLite on disk"}'
    )
    reply = f"```json\n{body}\n```"
    got = parse(reply, IDS, option_ids=("O1", "O2"))
    assert got.warnings == ("favours ignored: 'Option two: SQLite o' is not an option id (O1, O2)",)


def test_severity_warnings_name_the_item_and_quote_40_characters() -> None:
    body = (
        '{"new_points": [{"title": "t", "evidence": "e", "severity": ""},'
        ' {"title": "u", "evidence": "e", "severity": "' + "x" * 50 + '"}],'
        ' "stances": [{"id": "I1", "stance": "contest", "evidence": "no", "severity": "huge"}]}'
    )
    got = parse(f"```json\n{body}\n```", IDS)
    assert got.contract is not None
    assert [p.severity for p in got.contract.new_points] == ["major", "major"]  # "" is unset
    assert got.warnings == (
        "dropped new_points[1].severity ('" + "x" * 39 + " is not blocking/major/minor); "
        "stances[0].severity ('huge' is not blocking/major/minor)",
    )


def test_an_empty_reply_has_no_contract_and_never_raises() -> None:
    for reply in ("", "   \n"):
        got = parse(reply, IDS)
        assert (got.contract, got.error) == (None, "no json block found at the end of the reply")


def test_two_bad_lists_are_both_named_in_the_error_separated_by_a_semicolon() -> None:
    got = parse('```json\n{"new_points": "x", "stances": 5, "abstain": []}\n```', IDS)
    why = (
        "new_points (a list was expected, not a string); "
        "stances (a list was expected, not a number); "
        "abstain (a reason string was expected, not a list)"
    )
    assert (got.contract, got.error) == (None, why)
    assert got.warnings == (f"dropped {why}",)
    assert (got.sent, got.kept) == (0, 0)


def test_why_a_json_block_gave_no_contract_is_said_in_full_with_its_repair_notes() -> None:
    def said(reply: str) -> tuple[object, ...]:
        got = parse(reply, IDS)
        assert got.contract is None and got.prose == "P"
        return got.error, got.warnings

    assert said("P\n```json\n  \n```") == ("the json block is empty", ())
    no_object = "the json block holds no JSON object"
    assert said("P\n```json\nthis is not json\n```") == (
        no_object, ("the json block was repaired",)
    )  # fmt: skip
    assert said("P\n```json\n[1, 2]\n") == (no_object, ("the json block was never closed",))
    no_keys = "the json block has none of the keys new_points, stances, abstain"
    assert said('P\n```json\n{"summary": "x",}\n```') == (
        no_keys, ("the json block was repaired",)
    )  # fmt: skip
    assert said('P\n```json\n{"summary": "x"}\n') == (
        no_keys, ("the json block was never closed",)
    )  # fmt: skip


def test_a_plain_untagged_block_after_a_json_one_is_named_as_the_last_block() -> None:
    reply = 'P\n```json\n{"abstain": "x"}\n```\nthen\n```\nplain\n```'
    got = parse(reply, IDS)
    assert (got.prose, got.contract, got.warnings) == (reply, None, ())
    assert got.error == (
        "the last fenced block is untagged and holds no JSON object, not the json block"
    )


def test_the_last_of_several_fenced_blocks_is_the_one_named() -> None:
    reply = 'P\n```json\n{"abstain": "x"}\n```\n```sh\nls\n```\n```python\nprint(1)\n```'
    got = parse(reply, IDS)
    assert (got.contract, got.prose) == (None, reply)
    assert got.error == "the last fenced block is tagged 'python', not the json block"
