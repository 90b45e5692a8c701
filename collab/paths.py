"""Where collab keeps data: built-in presets/templates and the user's data dir."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def builtin_dir(kind: str) -> Path:
    """``presets`` or ``templates``: inside the wheel, or the source checkout's top level."""
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
