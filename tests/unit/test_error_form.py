"""An error's form follows what the command line asked for as its parser reads it: one
JSON document when ``--json`` is the flag, one ndjson line under ``--events ndjson``, the
one red line otherwise — "--json" as the topic (after ``--``) or as an option's value
is text, not a request for JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import Cli

ROUNDS = "--rounds must be 1–7, got 99"


@pytest.mark.parametrize(
    "argv",
    [("debate", "--rounds", "99", "--", "--json"),  # the topic is "--json"
     ("debate", "--rounds", "99", "--role-a", "--json", "T"),  # a role named "--json"
     ("debate", "T", "--rounds", "99", "--constraint", "--json")],
    ids=["topic", "role-value", "list-value"],
)  # fmt: skip
def test_json_as_a_value_is_not_the_flag(cli: Cli, argv: tuple[str, ...]) -> None:
    res = cli(*argv)
    assert res.code == 2 and res.out == "", res.out
    assert res.err.strip() == f"collab: {ROUNDS}", res.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [(("debate", "T", "--rounds", "99", "--json"), ROUNDS),
     (("debate", "--json", "T", "--rounds", "99"), ROUNDS),
     (("debate", "T", "--no-such", "--json"), "No such option: --no-such"),  # unread to its end
     (("no-such", "--json"), "No such command 'no-such'"),
     (("presets", "show", "no-such", "--json"), "unknown preset 'no-such'"),  # a group's command
     (("ask", "--json"), "Missing argument"),
     (("--json", "list"), "--json goes after the command"),  # the root's own --json
     (("--json", "debate", "T", "--rounds", "99"), "--json goes after the command")],
    ids=["after", "before", "unknown-option", "unknown-command", "group", "missing", "root",
         "root-then-command"],
)  # fmt: skip
def test_the_json_flag_gets_one_document(cli: Cli, argv: tuple[str, ...], message: str) -> None:
    res = cli(*argv)
    assert res.code == 2 and res.err.count("collab:") == 0, res.err
    doc = res.json()
    assert doc["schema"] == "collab.error/1" and message in doc["error"]["message"], doc


@pytest.mark.parametrize("events", [("--events", "ndjson"), ("--events=ndjson",)])
def test_events_ndjson_gets_one_line_and_a_value_named_events_does_not(
    cli: Cli, events: tuple[str, ...]
) -> None:
    res = cli("debate", "T", "--rounds", "99", *events)
    assert res.code == 2 and res.out.count("\n") == 1
    assert json.loads(res.out)["error"]["message"] == ROUNDS
    res = cli("debate", "--rounds", "99", "--role-a", "--events", "T")
    assert res.code == 2 and res.out == "" and ROUNDS in res.err


@pytest.mark.parametrize(
    ("text", "flags", "refused"),
    [("x" * 3000, ("--context-budget", "1000"), "context-budget"),
     ("token = ghp_" + "a1B2" * 9 + "\n", (), "secret"),
     ("fine\n", ("--rounds", "99"), None)],
    ids=["budget", "secret", "other"],
)  # fmt: skip
def test_an_input_refused_before_sending_says_so_in_the_document(
    cli: Cli, tmp_path: Path, text: str, flags: tuple[str, ...], refused: str | None
) -> None:
    """error.refused: what a program (the GitHub Action) reads instead of the message's
    words; only an input refused before anything was sent has it."""
    context = tmp_path / "notes.md"
    context.write_text(text)
    res = cli("debate", "T", "--context", str(context), *flags, "--json")
    assert res.code == 2
    error = res.json()["error"]
    assert error.get("refused") == refused, error
    assert ("refused" in error) is (refused is not None)
