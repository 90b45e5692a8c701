"""Presets: named pairs of debating roles, kept as data (one TOML file per preset).

Built-in presets ship in ``presets/``; a file in ``$COLLAB_HOME/presets`` with the
same stem replaces a built-in one, any other stem adds a preset. Loading is strict
(unknown keys are errors) because a typo such as ``descripton`` would otherwise
silently give a role no stance.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from collab.errors import UsageError
from collab.lang import Lang
from collab.paths import builtin_dir, user_dir
from collab.seats import Side
from collab.suggest import did_you_mean

DEFAULT_PRESET = "advocate-vs-devils-advocate"

MAX_ROLE_NAME_CHARS = 80
MAX_ROLE_DESCRIPTION_CHARS = 4000

_TOP_KEYS = frozenset({"title", "summary", "role_a", "role_b"})
_ROLE_KEYS = frozenset({"name", "description", "name_ja", "description_ja"})
# A Japanese user types the full-width colon as naturally as ':'.
_COLONS = (":", "：")


@dataclass(frozen=True)
class RoleText:
    name: str
    description: str


@dataclass(frozen=True)
class Preset:
    key: str
    title: str
    summary: str
    role_a: RoleText
    role_b: RoleText
    role_a_ja: RoleText
    role_b_ja: RoleText
    source: str  # "builtin" or the user file's path


def load_presets() -> dict[str, Preset]:
    """Every preset, the default first and the rest sorted by key."""
    found: dict[str, Preset] = {}
    for path in _toml_files(builtin_dir("presets")):
        found[path.stem] = _load_file(path, "builtin")
    for path in _toml_files(user_dir("presets")):
        found[path.stem] = _load_file(path, str(path))
    keys = sorted(found, key=lambda k: (k != DEFAULT_PRESET, k))
    return {k: found[k] for k in keys}


def get_preset(key: str) -> Preset:
    presets = load_presets()
    try:
        return presets[key]
    except KeyError:
        names = ", ".join(presets) or "(none installed)"
        hint = did_you_mean(key, presets, f"choose one of: {names}")
        raise UsageError(f"unknown preset '{key}'; {hint}") from None


def roles_for(preset: Preset, lang: Lang) -> tuple[RoleText, RoleText]:
    if lang == "ja":
        return preset.role_a_ja, preset.role_b_ja
    return preset.role_a, preset.role_b


def parse_custom_role(text: str, side: Side, option: str = "") -> RoleText:
    """``"Name: description"`` from ``--role-a``/``--role-b``; the first colon splits.
    ``option``: the option as the surface it came from spells it (``role_a`` in a file)."""
    option = option or ("--role-a" if side == "A" else "--role-b")
    cuts = [i for i in (text.find(c) for c in _COLONS) if i >= 0]
    if not cuts:
        raise UsageError(
            f"{option} must look like 'Name: description' (no ':' found in {_preview(text)})"
        )
    cut = min(cuts)
    name = " ".join(text[:cut].split())
    description = text[cut + 1 :].strip()
    if not name:
        raise UsageError(f"{option} has an empty name before ':'; use 'Name: description'")
    if not description:
        raise UsageError(f"{option} has an empty description after ':'; use 'Name: description'")
    if len(name) > MAX_ROLE_NAME_CHARS:
        raise UsageError(
            f"{option} name is {len(name)} characters; keep it under {MAX_ROLE_NAME_CHARS}"
            " (is the ':' in the right place?)"
        )
    if len(description) > MAX_ROLE_DESCRIPTION_CHARS:
        raise UsageError(
            f"{option} description is {len(description)} characters;"
            f" keep it under {MAX_ROLE_DESCRIPTION_CHARS}"
        )
    return RoleText(name=name, description=description)


def _preview(text: str) -> str:
    short = " ".join(text.split())
    return repr(short if len(short) <= 40 else short[:40] + "…")


def _toml_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.toml") if p.is_file())


def _load_file(path: Path, source: str) -> Preset:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"preset file {path}: invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"preset file {path}: cannot read: {exc}") from None
    try:
        return _build(path.stem, data, source)
    except ValueError as exc:
        raise UsageError(f"preset file {path}: {exc}") from None


def _build(key: str, data: dict[str, object], source: str) -> Preset:
    _no_unknown_keys(data, _TOP_KEYS, "")
    a, a_ja = _roles(data, "role_a")
    b, b_ja = _roles(data, "role_b")
    return Preset(
        key=key,
        title=_text(data, "title", ""),
        summary=_text(data, "summary", ""),
        role_a=a,
        role_b=b,
        role_a_ja=a_ja,
        role_b_ja=b_ja,
        source=source,
    )


def _roles(data: dict[str, object], table: str) -> tuple[RoleText, RoleText]:
    """The English role and its Japanese form; a missing translation falls back to English."""
    raw = data.get(table)
    if raw is None:
        raise ValueError(f"missing table [{table}]")
    if not isinstance(raw, dict):
        raise ValueError(f"'{table}' must be a table like [{table}]")
    where = f"{table}."
    _no_unknown_keys(raw, _ROLE_KEYS, where)
    en = RoleText(_text(raw, "name", where), _text(raw, "description", where))
    ja = RoleText(
        _text(raw, "name_ja", where) if "name_ja" in raw else en.name,
        _text(raw, "description_ja", where) if "description_ja" in raw else en.description,
    )
    return en, ja


def _text(data: dict[str, object], key: str, where: str) -> str:
    if key not in data:
        raise ValueError(f"missing key '{where}{key}'")
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"'{where}{key}' must be a string, not {type(value).__name__}")
    value = value.strip()
    if not value:
        raise ValueError(f"'{where}{key}' is empty")
    return value


def _no_unknown_keys(data: dict[str, object], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        listed = ", ".join(f"'{where}{k}'" for k in unknown)
        raise ValueError(f"unknown key {listed}; allowed: {', '.join(sorted(allowed))}")
