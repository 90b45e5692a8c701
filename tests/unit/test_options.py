# CliRunner: the fake options exist only on this test's own typer app, not in collab's CLI.
"""An option declared once shows on every surface it names, and nowhere else.

Two fake options on a subclass of DebateRequest: ``colour`` on the command line and in
config.toml, ``shade`` in batch entries and over MCP. Each surface is derived from the
declaration by the code the real options go through.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from click.testing import CliRunner

from collab.batch.entries import read_entries
from collab.cli.options import with_debate_options
from collab.errors import UsageError
from collab.mcp_server.inputs import DEBATE_PROPS, debate_props
from collab.options import (
    LIMITS,
    OPTIONS,
    ROLES,
    DebateRequest,
    Option,
    Surface,
    option,
    options_of,
)
from collab.request import request_from
from collab.settings import user_defaults
from tests.helpers import Cli


@dataclass(frozen=True)
class Fake(DebateRequest):
    colour: str = option(
        "red", help="A colour only people give.", surfaces={"cli", "config"}, metavar="COLOUR",
        panel=ROLES, choices=("red", "blue"),
    )  # fmt: skip
    shade: int = option(
        5, help="A shade only files and models give.", surfaces={"batch", "mcp"}, metavar="N",
        panel=LIMITS, minimum=1, maximum=9,
    )  # fmt: skip


FAKE = options_of(Fake)
BASE = Fake(topic="")


_SEEN: dict[str, object] = {}  # what the last invocation of a _fake_app command was given


@functools.cache
def _fake_command(options: tuple[tuple[str, Option], ...]) -> Any:
    """The click command of a typer app whose one command takes ``options``, made once
    (as tests.helpers.whole_command): typer's runner makes the command anew on every call,
    and each new command builds its parameters' converters again (~10 ms a call)."""

    def command(*, given: dict[str, object]) -> None:
        _SEEN.update(given)

    app = typer.Typer()
    app.command()(with_debate_options(command, dict(options)))
    return typer.main.get_command(app)


def _cli(*argv: str, options: Mapping[str, Option] = FAKE) -> tuple[int, str, dict[str, object]]:
    _SEEN.clear()
    command = _fake_command(tuple(options.items()))
    res = CliRunner().invoke(command, list(argv), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return res.exit_code, res.output, dict(_SEEN)


def test_cli_offers_colour_not_shade() -> None:
    code, out, _ = _cli("--help")
    assert code == 0
    assert "--colour" in out and "A colour only people give." in out
    assert "[default: red]" in out
    assert "--shade" not in out
    code, _, given = _cli("--colour", "blue")
    assert code == 0 and given == {"colour": "blue"}
    assert request_from(given, "cli", BASE).colour == "blue"
    code, out, _ = _cli("--shade", "3")
    assert code == 2 and "No such option" in out
    with pytest.raises(UsageError, match=r"^--colour must be red or blue, got 'green'$"):
        request_from({"colour": "green"}, "cli", BASE)


def test_mcp_schema_offers_shade_not_colour() -> None:
    props = debate_props(FAKE)
    assert props["shade"] == {
        "type": "integer", "minimum": 1, "maximum": 9,
        "description": "A shade only files and models give. Default 5.",
    }  # fmt: skip
    assert "colour" not in props
    assert request_from({"shade": 7}, "mcp", BASE).shade == 7
    with pytest.raises(UsageError, match=r"^shade must be 1–9, got 0$"):
        request_from({"shade": 0}, "mcp", BASE)
    with pytest.raises(UsageError, match=r"^unknown argument 'colour'; valid arguments: "):
        request_from({"colour": "blue"}, "mcp", BASE)


def test_batch_entry_takes_shade_not_colour(tmp_path: Path) -> None:
    topics = tmp_path / "t.jsonl"
    topics.write_text('{"topic": "a", "shade": 3}\n', encoding="utf-8")
    (entry,) = read_entries(topics, BASE, ["claude"])
    assert entry.config.topic == "a"
    assert request_from({"topic": "a", "shade": 3}, "batch", BASE).shade == 3
    topics.write_text('{"topic": "a", "colour": "blue"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r":1: unknown key 'colour'; valid keys: "):
        read_entries(topics, BASE, ["claude"])
    with pytest.raises(UsageError, match=r"^shade must be an integer, got str$"):
        request_from({"topic": "a", "shade": "3"}, "batch", BASE)


def test_config_default_honours_colour_not_shade(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[defaults]\ncolour = "blue"\n', encoding="utf-8")
    req = user_defaults(config, BASE)
    assert isinstance(req, Fake) and req.colour == "blue" and req.shade == 5
    # The command line still wins over the config default.
    assert request_from({"colour": "red"}, "cli", req).colour == "red"
    config.write_text("[defaults]\nshade = 3\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"\[defaults\] unknown key 'shade'; valid keys: "):
        user_defaults(config, BASE)


def test_defaults_and_ranges_are_read_from_the_declaration(cli: Cli) -> None:
    """The real options: help and schema show the declared default and range."""
    assert DEBATE_PROPS["timeout"]["description"].endswith(" Default 120.")
    assert DEBATE_PROPS["rounds"]["minimum"] == OPTIONS["rounds"].minimum == 1
    assert DEBATE_PROPS["opening"]["enum"] == ["blind", "sequential"]
    res = cli("debate", "--help", env={"NO_COLOR": "1"})
    assert res.code == 0 and "[default: 120]" in res.out and "[default: blind]" in res.out


def test_shorthand_yields_to_a_seats_own_key_whatever_the_order() -> None:
    for values in ({"agent": "x", "agent_a": "y"}, {"agent_a": "y", "agent": "x"}):
        req = request_from(values, "config", DebateRequest(topic=""))
        assert (req.agent_a, req.agent_b, req.judge_agent) == ("y", "x", "x")


@pytest.mark.parametrize("surface", ["cli", "config", "batch", "mcp"])
@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [("model", "-x", "'-x'"), ("agent", "a\u202eb", "invisible"), ("models", "ok,-y", "'-y'"),
     ("agents", "fake," + "z" * 201, "201"), ("judge_model", "-j", "'-j'"),
     ("model_b", "-b", "'-b'")],
    ids=["model", "agent", "models", "agents", "judge_model", "model_b"],
)  # fmt: skip
def test_a_bad_name_is_named_by_the_key_it_was_given_as(
    surface: Surface, key: str, value: str, shown: str
) -> None:
    """``--model`` sets every seat's model; a bad one is ``--model``'s fault, not the
    first seat's ``--model-a``, on every surface, for a shorthand and a list alike."""
    with pytest.raises(UsageError) as err:
        request_from({key: value}, surface, DebateRequest(topic=""))
    spelled = "--" + key.replace("_", "-") if surface == "cli" else key
    assert str(err.value).startswith(f"{spelled} ") and shown in str(err.value), str(err.value)


def test_batch_restricted_keys_are_marked() -> None:
    marked = {o.name for o in OPTIONS.values() if o.batch_restricted}
    assert marked == {"agent_command", "tools", "agent_setup", "context"}
