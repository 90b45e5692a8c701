"""typer's command and group classes, with a value that already has its parameter's plain
type taken as it is.

typer (≥ 0.2x) converts every parameter's value through a pydantic ``TypeAdapter`` that
it builds the first time the parameter is processed, even when there is nothing to
convert: its own ``--help`` flag when it is not given (None), a default (``--wait``'s
0.0), a run id that is already a ``str``. Building the first adapter imports pydantic:
~0.25 s of CPU, more than typer itself, on every command (``collab --version``,
``collab list --json``, ``collab status ID --json``). These classes give each parameter
typer's own conversion built only when a value needs it: None, and a value whose type
is the parameter's plain type (``str``, ``bool``, ``int``, ``float``: what the parser
gives for a string, a flag, or our own default) are returned as they are, which is what
the adapter returns for them; so is a number typed on the command line in plain decimal
(``--rounds 3``, ``--max-cost 0.25``) for a parameter with no min/max/clamp, converted
with ``int()``/``float()`` as the adapter converts it (``collab debate`` then never
imports pydantic: ~8 MB and ~0.1 s of CPU). Anything else (another number, a choice, a
path, a list, a parser) goes through the adapter as before. On a typer without this
machinery nothing changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import typer.core

try:  # typer >= 0.2x: values converted by pydantic TypeAdapters, built lazily
    from typer._coercion import build_runtime_param
except ImportError:  # pragma: no cover - older typer converts with click types
    build_runtime_param = None  # type: ignore[assignment]

PLAIN = (str, bool, int, float)
# Plain decimals, which pydantic's lax int/float read exactly as int()/float() do (a
# bounded length: no huge-int cases); anything else goes to the adapter and its errors.
_DECIMAL = {
    int: re.compile(r"[+-]?[0-9]{1,18}"),
    float: re.compile(r"[+-]?[0-9]{1,15}(?:\.[0-9]{1,15})?"),
}


@dataclass
class _BuiltWhenNeeded:
    """Stands in for typer's ``RuntimeParam`` of one parameter (its ``coerce``)."""

    descriptor: Any
    built: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:  # as typer's RuntimeParam.coerce: nothing given, nothing built
            return () if param.multiple or param.nargs == -1 else None
        desc = self.descriptor
        plain = desc.file_annotation is None and desc.parameter_info.parser is None
        if plain and desc.annotation in PLAIN and type(value) is desc.annotation:
            return value
        if plain and type(value) is str and _unbounded(desc.parameter_info):
            decimal = _DECIMAL.get(desc.annotation)
            if decimal is not None and decimal.fullmatch(value):
                return desc.annotation(value)
        if self.built is None:
            self.built = build_runtime_param(desc)
        return self.built.coerce(value, param=param, ctx=ctx)


def _unbounded(info: Any) -> bool:
    return info.min is None and info.max is None and not info.clamp


def _build_when_needed(command: Any, ctx: Any) -> None:
    if build_runtime_param is None:  # pragma: no cover
        return
    for param in command.get_params(ctx):
        desc = getattr(param, "type_descriptor", None)
        if desc is not None and getattr(param, "_runtime_param", 0) is None:
            param._runtime_param = _BuiltWhenNeeded(desc)


def _no_type(ctx: Any = None) -> None:
    return None


def _untyped(params: list[Any]) -> list[Any]:
    """The help shows no ``<bool>`` after a flag (it takes no value) and no ``<str>``
    after an argument (its metavar, ``TOPIC``, ``ID``, says what it is)."""
    for param in params:
        if isinstance(param, typer.core.TyperArgument) or getattr(param, "is_flag", False):
            param.display_type_rich = _no_type
    return params


class Command(typer.core.TyperCommand):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _build_when_needed(self, ctx)
        return super().parse_args(ctx, args)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped(super().get_params(ctx))


class Group(typer.core.TyperGroup):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _build_when_needed(self, ctx)
        return super().parse_args(ctx, args)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped(super().get_params(ctx))
