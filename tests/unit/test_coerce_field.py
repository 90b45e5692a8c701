"""coerce_field checks a value against the option's declared type.

Values come from config.toml [defaults], batch files (TOML/JSON/YAML) and MCP arguments:
``true`` is not a number, an integer is a float, ``X | None`` takes null. Context paths
come as one path or a list of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from collab.errors import UsageError
from collab.options import OPTIONS, DebateRequest
from collab.request import coerce_field, request_from


class Row(NamedTuple):
    test_id: str
    name: str  # the option
    value: object
    expected: object  # the coerced value, or None with error set
    error: str | None = None


ROWS = [
    Row("int-for-int", "rounds", 4, 4),
    Row("bool-for-int", "rounds", True, None, "rounds must be an integer, got bool"),
    Row("float-for-int", "rounds", 3.0, None, "rounds must be an integer, got float"),
    Row("str-for-int", "rounds", "3", None, "rounds must be an integer, got str"),
    Row("null-for-int", "max_chars", None, None, "max_chars must be an integer, got null"),
    Row("null-for-optional-int", "rounds", None, None),
    Row("int-for-float", "budget", 5, 5.0),
    Row("float-for-float", "timeout", 1.5, 1.5),
    Row("bool-for-float", "timeout", False, None, "timeout must be a number, got bool"),
    Row("str-for-float", "budget", "5", None, "budget must be a number, got str"),
    Row("null-for-optional-float", "max_cost", None, None),
    Row("int-for-optional-float", "max_cost", 2, 2.0),
    Row("bool-for-optional-float", "max_cost", True, None, "max_cost must be a number, got bool"),
    Row("str-for-str", "agent_a", "codex", "codex"),
    Row("int-for-str", "agent_a", 5, None, "agent_a must be a string, got int"),
    Row("null-for-str", "agent_a", None, None, "agent_a must be a string, got null"),
    Row("null-for-optional-str", "model_a", None, None),
    Row("str-for-optional-str", "model_a", "opus", "opus"),
    Row("list-for-optional-str", "preset", ["x"], None, "preset must be a string, got list"),
    Row("bool-for-bool", "keep_temp", True, True),
    Row("int-for-bool", "keep_temp", 1, None, "keep_temp must be true or false, got int"),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_coerce_field(row: Row) -> None:
    if row.error is not None:
        with pytest.raises(UsageError) as err:
            coerce_field(OPTIONS[row.name], row.value, row.name)
        assert err.value.message == row.error
        return
    got = coerce_field(OPTIONS[row.name], row.value, row.name)
    assert got == row.expected
    assert type(got) is type(row.expected)


def test_message_uses_the_option_as_the_surface_spells_it() -> None:
    with pytest.raises(UsageError, match=r"^--timeout must be a number, got str$"):
        coerce_field(OPTIONS["timeout"], "slow", "--timeout")


class Paths(NamedTuple):
    test_id: str
    value: object
    expected: tuple[str, ...] | None  # None: an error
    error: str = ""


PATHS = [
    Paths("one-path", "notes.md", ("/base/notes.md",)),
    Paths("a-list", ["a.md", "/abs/b.md"], ("/base/a.md", "/abs/b.md")),
    Paths("a-number", 5, None, "context must be a path or a list of paths, got int"),
    Paths("a-list-with-a-number", ["a.md", 5], None, "context must be a path or a list"),
]


@pytest.mark.parametrize("case", PATHS, ids=[c.test_id for c in PATHS])
def test_context_is_a_path_or_a_list_taken_from_the_folder(case: Paths) -> None:
    base = DebateRequest(topic="t")
    if case.expected is None:
        with pytest.raises(UsageError, match=case.error):
            request_from({"context": case.value}, "batch", base, folder=Path("/base"))
        return
    req = request_from({"context": case.value}, "batch", base, folder=Path("/base"))
    assert req.context == case.expected
