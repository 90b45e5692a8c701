"""Where collab keeps data: built-in presets/templates and the user's data dir."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from collab.errors import UsageError

_PKG = Path(__file__).resolve().parent


def builtin_dir(kind: str) -> Path:
    """``presets``, ``templates`` or ``skills``: inside the wheel, or the source
    checkout's top level."""
    packaged = _PKG / "_data" / kind
    if packaged.is_dir():
        return packaged
    return _PKG.parent / kind


def collab_home() -> Path:
    """``$COLLAB_HOME``, else the platform data dir (XDG on Linux)."""
    env = os.environ.get("COLLAB_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "collab"
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "collab"


def user_dir(kind: str) -> Path:
    """A user's own ``presets`` or ``templates``, which add to or override the built-in ones."""
    return collab_home() / kind


def config_path() -> Path:
    return collab_home() / "config.toml"


def config_table(section: str, path: Path | None = None) -> tuple[Path, dict[str, object]]:
    """One ``[section]`` of the user's config.toml (empty when the file or table is absent)."""
    path = path or config_path()
    if not path.is_file():
        return path, {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [{section}] must be a table")
    return path, table
