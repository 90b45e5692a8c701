"""collab.fields' typed reads, each the same way: a missing required key is damage named
``missing``, a missing key with a default is that default, a value of the wrong type is
damage naming what was expected and what was there."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from collab.fields import DamagedField, Fields

Read = Callable[[Fields, str], object]
ReadWithDefault = Callable[[Fields, str, object], object]

# read, what it takes, a default for it, a wrong value and what the damage then says
READS: dict[str, tuple[Read, ReadWithDefault, object, object, object, str]] = {
    "str": (Fields.str, Fields.str, "x", "d", 3, "expected a string, got 3"),
    "int": (Fields.int, Fields.int, 2, 7, True, "expected an integer, got true"),
    "float": (Fields.float, Fields.float, 1.5, 0.0, "1", "expected a number, got '1'"),
    "bool": (Fields.bool, Fields.bool, False, True, 0, "expected true or false, got 0"),
    "literal": (
        lambda f, k: f.literal(k, ("a", "b")),
        lambda f, k, d: f.literal(k, ("a", "b"), d),  # type: ignore[arg-type]
        "b",
        "a",
        "c",
        "expected one of a, b, got 'c'",
    ),
}


@pytest.mark.parametrize("kind", list(READS))
def test_each_read_takes_its_value_its_default_or_names_the_damage(kind: str) -> None:
    read, read_or, good, default, wrong, why = READS[kind]
    f = Fields({"k": good, "bad": wrong, "none": None}, "state.x")
    assert read(f, "k") == good and type(read(f, "k")) is type(good)
    assert read_or(f, "k", default) == good
    assert read_or(f, "gone", default) == default
    with pytest.raises(DamagedField) as missing:
        read(f, "gone")
    assert str(missing.value) == "state.x.gone: missing"
    with pytest.raises(DamagedField) as bad:
        read(f, "bad")
    assert str(bad.value) == f"state.x.bad: {why}"
    with pytest.raises(DamagedField) as null:  # null is not a value of a required read
        read(f, "none")
    assert str(null.value).startswith("state.x.none: expected") and "got null" in str(null.value)


def test_a_list_of_objects_names_each_item_by_its_place() -> None:
    f = Fields({"xs": [{"a": 1}, 5]}, "state")
    with pytest.raises(DamagedField) as bad:
        f.items("xs")
    assert str(bad.value) == "state.xs[1]: expected an object, got 5"
    assert [x.path for x in Fields({"xs": [{}, {}]}, "s").items("xs")] == ["s.xs[0]", "s.xs[1]"]
    assert Fields({}, "s").items("xs") == []
