"""Presets: named sets of 2–5 debating seats, kept as data (one TOML file per preset).

A preset names its seats either as ``[role_a]``/``[role_b]`` (a pair, the first form) or
as ``[[seats]]`` (2–5 entries, in seat order A–E); one file uses one form. Built-in
presets ship in ``presets/``; a file in ``$COLLAB_HOME/presets`` with the
same stem replaces a built-in one, any other stem adds a preset. Loading is strict
(unknown keys are errors) because a typo such as ``descripton`` would otherwise
silently give a role no stance.
"""

from __future__ import annotations

import functools
import os
import time
import tomllib
from pathlib import Path

from collab.errors import UsageError
from collab.lang import Lang
from collab.paths import builtin_dir, user_dir
from collab.records import record
from collab.seats import MAX_SEATS, MIN_SEATS, SEATS, Side
from collab.suggest import did_you_mean

DEFAULT_PRESET = "advocate-vs-devils-advocate"


MAX_ROLE_NAME_CHARS = 80
MAX_ROLE_DESCRIPTION_CHARS = 4000

# The JSON Schema of a preset's seats in its ``--json`` documents (collab.report.schemas):
# a role, the names in order (collab.presets/1), each seat's label and text (collab.preset/1).
_ROLE_PROPERTIES = {"name": {"type": "string"}, "description": {"type": "string"}}
PRESET_ROLE_SCHEMA = {
    "type": "object", "properties": _ROLE_PROPERTIES, "required": ["name", "description"],
}  # fmt: skip
PRESET_SEAT_NAMES_SCHEMA = {
    "type": "array", "items": {"type": "string"}, "minItems": MIN_SEATS, "maxItems": MAX_SEATS,
}  # fmt: skip
PRESET_SEATS_SCHEMA = {
    **PRESET_SEAT_NAMES_SCHEMA,
    "items": {
        "type": "object",
        "properties": {"label": {"enum": list(SEATS)}, **_ROLE_PROPERTIES},
        "required": ["label", "name", "description"],
    },
}

_TOP_KEYS = frozenset({"title", "summary", "role_a", "role_b", "seats"})
_ROLE_KEYS = frozenset({"name", "description", "name_ja", "description_ja"})
# A Japanese user types the full-width colon as naturally as ':'.
_COLONS = (":", "：")


@record
class RoleText:
    name: str
    description: str


@record
class Preset:
    """``seats``: 2–5 roles in seat order (A first); ``seats_ja`` the same seats in
    Japanese (English where a file gives no translation)."""

    key: str
    title: str
    summary: str
    seats: tuple[RoleText, ...]
    seats_ja: tuple[RoleText, ...]
    source: str  # "builtin" or the user file's path

    # The first two seats, for callers that still speak of a pair.
    @property
    def role_a(self) -> RoleText:
        return self.seats[0]

    @property
    def role_b(self) -> RoleText:
        return self.seats[1]

    @property
    def labels(self) -> tuple[str, ...]:
        """The seats' labels in order: A, B, … (at most E)."""
        return SEATS[: len(self.seats)]

    @property
    def role_a_ja(self) -> RoleText:
        return self.seats_ja[0]

    @property
    def role_b_ja(self) -> RoleText:
        return self.seats_ja[1]


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


def seats_for(preset: Preset, lang: Lang) -> tuple[RoleText, ...]:
    """Every seat of ``preset`` in ``lang``, in seat order (2–5 of them)."""
    return preset.seats_ja if lang == "ja" else preset.seats


def roles_for(preset: Preset, lang: Lang) -> tuple[RoleText, ...]:
    """Every seat of ``preset`` in ``lang``, as a debate seats them: a preset with more
    seats than this collab has labels for is a usage error, never cut to the first ones."""
    seats = seats_for(preset, lang)
    if len(seats) > len(SEATS):
        raise UsageError(
            f"preset '{preset.key}' has {len(seats)} seats; a debate here has at most"
            f" {len(SEATS)} (pick another preset, see collab presets)"
        )
    return seats


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


# A preset file's text as last read, by path: (its stat's identity, the text, when read).
_TEXTS: dict[str, tuple[tuple[int, ...], str, int]] = {}
_MAX_TEXTS = 256
# A file changed this close (ns) before it was read may change again with the same stat
# (a file's times tick coarsely: a jiffy, a second, two on FAT; a network file system's
# clock may be off a little): its text is read again every time, never taken as kept.
_RACY_NS = 10_000_000_000


def _read(path: Path) -> str:
    """``path.read_text(encoding="utf-8")``, read again only when the file changed (its
    device, inode, size, mtime or ctime): every debate and view lists all the presets,
    and opening a dozen files was most of it. A file changed within :data:`_RACY_NS` of
    its reading is read every time (as git's racy index entries)."""
    name = str(path)
    try:
        st = os.stat(name)
    except OSError:
        return path.read_text(encoding="utf-8")  # raises as it would have
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    kept = _TEXTS.get(name)
    if kept is not None and kept[0] == stamp and st.st_ctime_ns < kept[2] - _RACY_NS:
        return kept[1]
    read_at = time.time_ns()
    text = path.read_text(encoding="utf-8")
    if len(_TEXTS) >= _MAX_TEXTS:
        _TEXTS.clear()
    _TEXTS[name] = (stamp, text, read_at)
    return text


def _load_file(path: Path, source: str) -> Preset:
    try:
        text = _read(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"preset file {path}: cannot read: {exc}") from None
    try:
        return _parsed(path.stem, text, source)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"preset file {path}: invalid TOML: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"preset file {path}: {exc}") from None


@functools.lru_cache(maxsize=256)
def _parsed(key: str, text: str, source: str) -> Preset:
    """A preset file's text as a (frozen) Preset, parsed once per text: every debate and
    view reads all the presets, and parsing the TOML was most of that (a file read is
    not; an edited file is new text, parsed again)."""
    return _build(key, tomllib.loads(text), source)


def _build(key: str, data: dict[str, object], source: str) -> Preset:
    _no_unknown_keys(data, _TOP_KEYS, "")
    pairs = _seat_list(data) if "seats" in data else [_roles(data, t) for t in ("role_a", "role_b")]
    return Preset(
        key=key,
        title=_text(data, "title", ""),
        summary=_text(data, "summary", ""),
        seats=tuple(en for en, _ in pairs),
        seats_ja=tuple(ja for _, ja in pairs),
        source=source,
    )


def _seat_list(data: dict[str, object]) -> list[tuple[RoleText, RoleText]]:
    """``[[seats]]``: 2–5 tables, never beside ``[role_a]``/``[role_b]``."""
    both = [t for t in ("role_a", "role_b") if t in data]
    if both:
        raise ValueError(f"use either [[seats]] or [role_a]/[role_b], not both (found [{both[0]}])")
    raw = data["seats"]
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise ValueError("'seats' must be an array of tables like [[seats]]")
    if not MIN_SEATS <= len(raw) <= MAX_SEATS:
        raise ValueError(f"has {len(raw)} [[seats]]; a preset has {MIN_SEATS} to {MAX_SEATS} seats")
    pairs = [_role(t, f"seats[{i}].") for i, t in enumerate(raw)]
    names = [en.name.casefold() for en, _ in pairs]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ValueError(f"seats[{i}].name '{pairs[i][0].name}' repeats an earlier seat")
    return pairs


def _roles(data: dict[str, object], table: str) -> tuple[RoleText, RoleText]:
    raw = data.get(table)
    if raw is None:
        raise ValueError(f"missing table [{table}] (or give 2-5 [[seats]])")
    if not isinstance(raw, dict):
        raise ValueError(f"'{table}' must be a table like [{table}]")
    return _role(raw, f"{table}.")


def _role(raw: dict[str, object], where: str) -> tuple[RoleText, RoleText]:
    """The English role and its Japanese form; a missing translation falls back to English."""
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
