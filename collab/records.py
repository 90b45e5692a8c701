"""Frozen records: ``@record`` makes the class ``@dataclass(frozen=True)`` makes, at a
third of the cost to define.

On Python 3.11 a frozen dataclass compiles six methods from source when its class is
defined (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): ~0.6 ms a class, and the commands scripts poll (``collab status
--json``, ``collab list --json``) define some fifty of them before they read a file.
``record`` has ``dataclasses`` compile only ``__init__`` and gives the class the other
five as closures over its field names: the same behaviour (equality, hash, repr, the
``FrozenInstanceError`` messages, ``fields``/``replace``/``asdict``, pickling, pattern
matching, ``__dataclass_params__``), checked against ``dataclass(frozen=True)`` by
``tests/unit/test_records.py``. A class it cannot copy exactly (its own ``__eq__``,
``__post_init__``, a field left out of ``__init__`` …) is refused, not approximated.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
# What ``record`` writes itself; a class defining one of these keeps ``dataclass``.
_OWN = ("__eq__", "__hash__", "__repr__", "__setattr__", "__delattr__", "__post_init__")


@dataclass_transform(frozen_default=True, field_specifiers=(field, dataclasses.Field))
def record(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True)``, cheaper to define (see the module's doc)."""
    mine = [name for name in _OWN if name in cls.__dict__]
    if mine or "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__qualname__} defines {mine or '__slots__'}: use dataclass")
    cls = dataclass(cls, eq=False, repr=False)  # __init__ assigns through __setattr__
    fs = fields(cls)  # type: ignore[arg-type]
    if not all(f.init for f in fs):
        raise TypeError(f"{cls.__qualname__} has a field outside __init__: use dataclass")
    names = frozenset(f.name for f in fs)
    compared = tuple(f.name for f in fs if f.compare)
    hashed = tuple(f.name for f in fs if (f.compare if f.hash is None else f.hash))
    shown = tuple(f.name for f in fs if f.repr)

    def __setattr__(self: Any, name: str, value: object) -> None:
        if name in names and name not in self.__dict__:  # __init__ setting a field
            object.__setattr__(self, name, value)
        elif type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        else:
            super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return _values(self, compared) == _values(other, compared)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(_values(self, hashed))

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown_fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({shown_fields})"

    made: tuple[Callable[..., object], ...] = (
        __setattr__, __delattr__, __eq__, __hash__, __repr__
    )  # fmt: skip
    for method in made:
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.eq = params.repr = params.frozen = True  # what dataclass(frozen=True) records
    return cls


def _values(obj: object, names: tuple[str, ...]) -> tuple[object, ...]:
    return tuple(getattr(obj, name) for name in names)
