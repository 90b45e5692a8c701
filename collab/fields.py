"""Typed reads from JSON loaded off disk, each failure naming the field's path.

A loader wraps every JSON object it walks in a ``Fields`` that knows where the object
sits (``state.turns[2].meta``); a missing key, a wrong type or a value outside its
Literal raises ``DamagedField`` with the path of the field and what was wrong. These are
plain checks, not ``assert``: ``python -O`` strips asserts, and a damaged file would
then load as garbage.

The rules, the same for every loader:

- A missing key takes the default the loader passes (files written by older versions
  lack newer fields); with no default it is damage. ``null`` passes only the ``opt_*``
  reads and the list and object reads that have an empty default.
- ``true``/``false`` are never numbers; an integer is a float; a float is not an integer.
- Values are taken as they are: ``"3"`` is not the integer 3.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Collection, Mapping
from typing import TypeGuard, TypeVar

L = TypeVar("L", bound=str)


class DamagedField(ValueError):
    """A field of loaded data that is missing, of the wrong type or out of range."""

    def __init__(self, path: builtins.str, problem: builtins.str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class _Required(enum.Enum):
    REQUIRED = enum.auto()


_REQUIRED = _Required.REQUIRED


class Fields:
    """One JSON object of a loaded document, and where it sits in that document."""

    __slots__ = ("_data", "path")

    def __init__(self, data: Mapping[builtins.str, object], path: builtins.str) -> None:
        self._data = data
        self.path = path

    @classmethod
    def of(cls, value: object, path: builtins.str) -> Fields:
        if not isinstance(value, dict):
            raise DamagedField(path, f"expected an object, got {describe(value)}")
        return cls(value, path)

    def at(self, key: builtins.str) -> builtins.str:
        return f"{self.path}.{key}"

    def get(self, key: builtins.str) -> object:
        """The raw value (None when missing), for a reader of its own."""
        return self._data.get(key)

    # -- scalars -------------------------------------------------------------------------
    # The reads below take ``self._data.get(key, default)`` and leave a missing required
    # key to ``_wrong``: a call fewer per read (a state.json has ~250 reads a run, and
    # ``collab list`` reads every run's; RunState.from_dict ~20 % faster).
    def str(self, key: builtins.str, default: builtins.str | _Required = _REQUIRED) -> builtins.str:
        value = self._data.get(key, default)
        if isinstance(value, builtins.str):
            return value
        raise self._wrong(key, "a string", value)

    def opt_str(self, key: builtins.str) -> builtins.str | None:
        value = self._data.get(key)
        if value is None or isinstance(value, builtins.str):
            return value
        raise self._wrong(key, "a string or null", value)

    def int(self, key: builtins.str, default: builtins.int | _Required = _REQUIRED) -> builtins.int:
        value = self._data.get(key, default)
        if isinstance(value, builtins.int) and not isinstance(value, builtins.bool):
            return value
        raise self._wrong(key, "an integer", value)

    def opt_int(self, key: builtins.str) -> builtins.int | None:
        value = self._data.get(key)
        if value is None:
            return None
        return self.int(key)

    def float(
        self, key: builtins.str, default: builtins.float | _Required = _REQUIRED
    ) -> builtins.float:
        value = self._data.get(key, default)
        if isinstance(value, builtins.int | builtins.float) and not isinstance(
            value, builtins.bool
        ):
            try:
                return builtins.float(value)
            except OverflowError:  # an integer too big for a float
                pass
        raise self._wrong(key, "a number", value)

    def opt_float(self, key: builtins.str) -> builtins.float | None:
        value = self._data.get(key)
        if value is None:
            return None
        return self.float(key)

    def bool(
        self, key: builtins.str, default: builtins.bool | _Required = _REQUIRED
    ) -> builtins.bool:
        value = self._data.get(key, default)
        if isinstance(value, builtins.bool):
            return value
        raise self._wrong(key, "true or false", value)

    def literal(
        self, key: builtins.str, choices: tuple[L, ...], default: L | _Required = _REQUIRED
    ) -> L:
        value = self._data.get(key, default)
        for choice in choices:
            if value == choice:
                return choice
        raise self._wrong(key, f"one of {', '.join(choices)}", value)

    # -- containers ----------------------------------------------------------------------
    def strs(self, key: builtins.str) -> builtins.list[builtins.str]:
        """A list of strings; missing or null is empty."""
        out: builtins.list[builtins.str] = []
        for i, value in enumerate(self._list(key)):
            if not isinstance(value, builtins.str):
                raise DamagedField(f"{self.at(key)}[{i}]", _expected("a string", value))
            out.append(value)
        return out

    def ints(self, key: builtins.str) -> builtins.list[builtins.int]:
        """A list of integers; missing or null is empty."""
        out: builtins.list[builtins.int] = []
        for i, value in enumerate(self._list(key)):
            if not _is_int(value):
                raise DamagedField(f"{self.at(key)}[{i}]", _expected("an integer", value))
            out.append(value)
        return out

    def obj(self, key: builtins.str) -> Fields:
        if key not in self._data:
            raise DamagedField(self.at(key), "missing")
        return Fields.of(self._data[key], self.at(key))

    def opt_obj(self, key: builtins.str) -> Fields | None:
        """An object, or None when missing or null."""
        value = self._data.get(key)
        return None if value is None else Fields.of(value, self.at(key))

    def items(self, key: builtins.str) -> builtins.list[Fields]:
        """A list of objects; missing or null is empty."""
        at = self.at(key)
        return [Fields.of(v, f"{at}[{i}]") for i, v in enumerate(self._list(key))]

    def only(self, allowed: Collection[builtins.str]) -> None:
        """Refuse keys the loader does not know (where extra keys mean damage)."""
        for key in self._data:
            if key not in allowed:
                raise DamagedField(
                    self.at(builtins.str(key)), f"unknown key (allowed: {', '.join(allowed)})"
                )

    # -- helpers -------------------------------------------------------------------------

    def _list(self, key: builtins.str) -> builtins.list[object]:
        value = self._data.get(key)
        if value is None:
            return []
        if not isinstance(value, builtins.list):
            raise self._wrong(key, "a list", value)
        return value

    def _wrong(self, key: builtins.str, what: builtins.str, value: object) -> DamagedField:
        """``value`` is ``_REQUIRED`` where a required key is missing."""
        if value is _REQUIRED:
            return DamagedField(self.at(key), "missing")
        return DamagedField(self.at(key), _expected(what, value))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _expected(what: str, value: object) -> str:
    return f"expected {what}, got {describe(value)}"


def describe(value: object, limit: int = 40) -> str:
    """A JSON value as an error message shows it: scalars as written, containers by kind."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else text[: limit - 2] + "…'"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
