"""User defaults from ``$COLLAB_HOME/config.toml``: the ``[defaults]`` table.

Precedence: command line, then ``[defaults]``, then collab's built-in defaults.
Agents defined under ``[agents.NAME]`` are read by ``collab.agents.load_agents``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from collab.errors import UsageError
from collab.paths import config_table
from collab.request import REQUEST_KEYS, SEAT_KEYS, DebateRequest, coerce_field

# --allow-secrets is said per command, knowingly, never as a standing default.
_ALLOWED = frozenset(REQUEST_KEYS) - {"topic", "role_a", "role_b", "context", "allow_secrets"}


def user_defaults(path: Path | None = None) -> DebateRequest:
    """Built-in defaults with the user's ``[defaults]`` applied (topic left empty)."""
    base = DebateRequest(topic="")
    path, table = config_table("defaults", path)
    changes: dict[str, object] = {}
    for key, value in table.items():
        names = SEAT_KEYS.get(key) or ((REQUEST_KEYS[key],) if key in _ALLOWED else None)
        if names is None:
            valid = ", ".join(sorted([*_ALLOWED, *SEAT_KEYS]))
            raise UsageError(f"{path}: unknown key {key!r} in [defaults]; valid keys: {valid}")
        for name in names:
            try:
                changes[name] = coerce_field(name, key, value)
            except UsageError as exc:
                raise UsageError(f"{path}: [defaults] {exc.message}") from None
    return replace(base, **changes)  # type: ignore[arg-type]


def merge(defaults: DebateRequest, **given: object) -> DebateRequest:
    """Apply the options the command line actually gave (None means not given)."""
    changes: dict[str, object] = {}
    for seat_key, names in SEAT_KEYS.items():
        value = given.pop(seat_key, None)
        if value is not None:
            for name in names:
                changes[name] = value
    for name, value in given.items():
        if value is not None:
            changes[name] = value
    # Custom roles replace a default preset, and an explicit preset replaces default roles.
    if changes.get("role_a") is not None or changes.get("role_b") is not None:
        changes.setdefault("preset", None)
    return replace(defaults, **changes)  # type: ignore[arg-type]
