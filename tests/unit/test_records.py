"""``@record`` behaves as ``@dataclass(frozen=True)`` does: the same class, defined
twice, once each way, answers every question alike."""

from __future__ import annotations

import copy
import inspect
import pickle
from collections.abc import Mapping
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, replace
from typing import Any, ClassVar

import pytest

from collab.records import record


@record
class Rec:
    kind: ClassVar[str] = "rec"
    name: str
    items: tuple[int, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)
    note: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Std:
    kind: ClassVar[str] = "rec"
    name: str
    items: tuple[int, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)
    note: str | None = field(default=None, repr=False)


@record
class Box:
    """A record holding anything (a list can hold the record itself)."""

    inner: object


def both(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    return Rec(*args, **kwargs), Std(*args, **kwargs)


def raised(action: Any) -> str:
    with pytest.raises(FrozenInstanceError) as exc:
        action()
    return str(exc.value)


def test_equality_and_hash_are_the_dataclass_ones() -> None:
    a, s = both("x", (1, 2), extra={"k": 1}, note="n")
    b, t = both("x", (1, 2), extra={"other": 2}, note="n")  # extra is not compared
    assert (a == b, a != b, hash(a) == hash(b)) == (s == t, s != t, hash(s) == hash(t))
    assert a == b and hash(a) == hash(b) == hash(s) == hash(("x", (1, 2), "n"))
    assert (a == Rec("y"), a == Rec("x", (1,))) == (s == Std("y"), s == Std("x", (1,)))
    assert a.__eq__(s) is NotImplemented and s.__eq__(a) is NotImplemented
    assert (a == ("x", (1, 2))) is False
    assert hash(a) != hash(Rec("x", (1, 2), note="other"))  # note is hashed (compare=True)
    with pytest.raises(TypeError):  # an unhashable field value, as a dataclass says
        hash(Box([]))


def test_repr_is_the_dataclass_one_even_when_it_holds_itself() -> None:
    a, s = both("x", (1,), extra={"k": 1}, note="hidden")
    assert repr(a) == repr(s).replace("Std(", "Rec(")
    assert repr(a) == "Rec(name='x', items=(1,), extra={'k': 1})"
    holder: list[object] = []
    box = Box(holder)
    holder.append(box)
    assert repr(box) == "Box(inner=[...])"


def test_fields_cannot_be_set_or_deleted_and_say_so_as_a_dataclass_does() -> None:
    a, s = both("x")
    assert raised(lambda: setattr(a, "name", "y")) == raised(lambda: setattr(s, "name", "y"))
    assert raised(lambda: setattr(a, "new", 1)) == raised(lambda: setattr(s, "new", 1))
    assert raised(lambda: delattr(a, "name")) == raised(lambda: delattr(s, "name"))
    assert raised(lambda: delattr(a, "new")) == raised(lambda: delattr(s, "new"))
    assert raised(lambda: setattr(a, "name", "y")) == "cannot assign to field 'name'"
    assert a.name == "x"


def test_a_plain_subclass_sets_its_own_attributes_but_not_the_fields() -> None:
    class Sub(Rec):
        pass

    class StdSub(Std):
        pass

    sub, std_sub = Sub("x"), StdSub("x")
    sub.own = 1  # type: ignore[attr-defined]
    std_sub.own = 1  # type: ignore[attr-defined]
    assert sub.own == std_sub.own == 1  # type: ignore[attr-defined]
    assigned = raised(lambda: setattr(std_sub, "name", "y"))
    assert raised(lambda: setattr(sub, "name", "y")) == assigned
    del sub.own  # type: ignore[attr-defined]
    assert not hasattr(sub, "own")


def test_the_dataclass_tools_see_a_frozen_dataclass() -> None:
    a, s = both("x", (1,), note="n")
    assert [f.name for f in fields(a)] == [f.name for f in fields(s)]
    assert asdict(a) == asdict(s)
    assert replace(a, name="y") == Rec("y", (1,), note="n")
    assert copy.deepcopy(a) == a and pickle.loads(pickle.dumps(a)) == a
    for key in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(Rec.__dataclass_params__, key) == getattr(Std.__dataclass_params__, key)  # type: ignore[attr-defined]
    assert str(inspect.signature(Rec)) == str(inspect.signature(Std))
    assert Rec.__match_args__ == Std.__match_args__  # type: ignore[attr-defined]
    assert Rec.__doc__ == Std.__doc__.replace("Std(", "Rec(")  # type: ignore[union-attr]
    match a:
        case Rec(name, items):
            assert (name, items) == ("x", (1,))
        case _:
            pytest.fail("no match")

    @dataclass(frozen=True)
    class More(Rec):  # a frozen dataclass may extend a record, as it may a frozen one
        more: int = 0

    assert More("x", more=1).more == 1
    with pytest.raises(TypeError, match="non-frozen"):

        @dataclass
        class Thawed(Rec):
            more: int = 0


def test_a_class_it_could_not_copy_exactly_is_refused() -> None:
    with pytest.raises(TypeError, match="__post_init__"):

        @record
        class Checked:
            x: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="outside __init__"):

        @record
        class Hidden:
            x: int = field(default=0, init=False)


def test_a_field_left_out_of_the_hash_is_still_compared_and_a_subclass_is_never_equal() -> None:
    @record
    class Keyed:
        key: str
        cache: tuple[int, ...] = field(default=(), hash=False)  # compared, not hashed

    @dataclass(frozen=True)
    class StdKeyed:
        key: str
        cache: tuple[int, ...] = field(default=(), hash=False)

    assert hash(Keyed("k", (1,))) == hash(Keyed("k", (2,))) == hash(StdKeyed("k", (3,)))
    assert (Keyed("k", (1,)) == Keyed("k", (2,))) is (StdKeyed("k", (1,)) == StdKeyed("k", (2,)))

    class Sub(Rec):
        pass

    class StdSub(Std):
        pass

    assert (Sub("x") == Rec("x"), Rec("x") == Sub("x")) == (StdSub("x") == Std("x"), False)
    assert Rec("x").__eq__(Sub("x")) is NotImplemented is Std("x").__eq__(StdSub("x"))
