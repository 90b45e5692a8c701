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
    """A user's own ``presets`` or ``templates``, which add to or override the built-in ones
    (refused when someone else could have written them: :func:`check_owned`)."""
    path = collab_home() / kind
    check_owned(path)
    return path


def check_owned(path: Path) -> None:
    """A file or folder collab takes instructions from (config.toml: the agents it runs;
    presets, templates: the prompts) must be the user's (or root's) and writable by no
    one else. Missing is fine."""
    try:
        st = path.stat()
    except OSError:
        return
    uid = os.getuid()
    if st.st_uid not in (uid, 0):
        raise UsageError(
            f"{path} belongs to another user (uid {st.st_uid}), so collab does not read it: "
            f"it decides what runs and what prompts say (fix: chown {uid} {path}, or remove it)"
        )
    if st.st_mode & 0o022:
        raise UsageError(
            f"{path} is writable by group or others, so collab does not read it: it decides "
            f"what runs and what prompts say (fix: chmod go-w {path})"
        )


def config_path() -> Path:
    return collab_home() / "config.toml"


def config_table(section: str, path: Path | None = None) -> tuple[Path, dict[str, object]]:
    """One ``[section]`` of the user's config.toml (empty when the file or table is absent)."""
    path = path or config_path()
    if not path.is_file():
        return path, {}
    check_owned(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [{section}] must be a table")
    return path, table
