"""coerce_field checks a value against the DebateRequest field's declared type.

Values come from config.toml [defaults] and batch files (TOML/JSON/YAML): ``true`` is
not a number, an integer is a float, ``X | None`` takes null.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from collab.errors import UsageError
from collab.request import coerce_field


class Row(NamedTuple):
    test_id: str
    name: str  # the DebateRequest field
    value: object
    expected: object  # the coerced value, or None with error set
    error: str | None = None


ROWS = [
    Row("int-for-int", "rounds", 4, 4),
    Row("bool-for-int", "rounds", True, None, "'rounds' has the wrong type (bool)"),
    Row("float-for-int", "rounds", 3.0, None, "'rounds' has the wrong type (float)"),
    Row("str-for-int", "rounds", "3", None, "'rounds' has the wrong type (str)"),
    Row("null-for-int", "rounds", None, None, "'rounds' has the wrong type (NoneType)"),
    Row("int-for-float", "budget", 5, 5.0),
    Row("float-for-float", "turn_timeout", 1.5, 1.5),
    Row("bool-for-float", "turn_timeout", False, None, "'turn_timeout' has the wrong type (bool)"),
    Row("str-for-float", "budget", "5", None, "'budget' has the wrong type (str)"),
    Row("null-for-optional-float", "max_cost", None, None),
    Row("int-for-optional-float", "max_cost", 2, 2.0),
    Row("bool-for-optional-float", "max_cost", True, None, "'max_cost' has the wrong type (bool)"),
    Row("str-for-str", "agent_a", "codex", "codex"),
    Row("int-for-str", "agent_a", 5, None, "'agent_a' has the wrong type (int)"),
    Row("null-for-str", "agent_a", None, None, "'agent_a' has the wrong type (NoneType)"),
    Row("null-for-optional-str", "model_a", None, None),
    Row("str-for-optional-str", "model_a", "opus", "opus"),
    Row("list-for-optional-str", "preset", ["x"], None, "'preset' has the wrong type (list)"),
    Row("str-for-tuple", "context", "notes.md", "notes.md"),
    Row("list-for-tuple", "context", ["notes.md"], None, "'context' has the wrong type (list)"),
    Row("bool-for-bool", "keep_temp", True, True),
    Row("int-for-bool", "keep_temp", 1, None, "'keep_temp' has the wrong type (int)"),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.test_id for r in ROWS])
def test_coerce_field(row: Row) -> None:
    if row.error is not None:
        with pytest.raises(UsageError) as err:
            coerce_field(row.name, row.name, row.value)
        assert err.value.message == row.error
        return
    got = coerce_field(row.name, row.name, row.value)
    assert got == row.expected
    assert type(got) is type(row.expected)


def test_message_uses_the_key_as_written() -> None:
    with pytest.raises(UsageError, match=r"^'timeout' has the wrong type \(str\)$"):
        coerce_field("turn_timeout", "timeout", "slow")
