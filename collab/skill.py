"""The Claude Code skill that teaches Claude when and how to run collab.

One source: ``skills/collab/SKILL.md`` at the repository root, where the Claude Code
plugin has it, and inside the wheel as ``collab/_data/skills/collab/SKILL.md``, so
``collab skill install`` writes exactly the plugin's text and the installed skill
matches the installed CLI. Installing never silently replaces a SKILL.md the user
edited: a different file is an error unless ``force`` is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from collab.errors import UsageError
from collab.paths import builtin_dir
from collab.store import atomic_write

SKILL_NAME = "collab"
SKILL_FILE = "SKILL.md"

InstallAction = Literal["installed", "unchanged", "updated"]


@dataclass(frozen=True)
class InstallResult:
    path: Path
    action: InstallAction


def skill_path() -> Path:
    """The one SKILL.md: in the wheel, or in the source checkout's ``skills/``."""
    return builtin_dir("skills") / SKILL_NAME / SKILL_FILE


def skill_text() -> str:
    return skill_path().read_text(encoding="utf-8")


def default_skill_dir(project: bool = False) -> Path:
    """``~/.claude/skills/collab`` for the user, ``./.claude/skills/collab`` for a project."""
    base = Path.cwd() if project else Path.home()
    return base / ".claude" / "skills" / SKILL_NAME


def install_skill(dest_dir: Path, force: bool) -> InstallResult:
    text = skill_text()
    path = dest_dir / SKILL_FILE
    action: InstallAction = "installed"
    if path.is_dir():
        raise UsageError(f"{path} is a directory, not a file; remove it first")
    if path.exists():
        try:
            current = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            current = f"(unreadable: {exc})"
        if current == text:
            return InstallResult(path, "unchanged")
        if not force:
            raise UsageError(f"{path} exists and differs; pass --force to overwrite")
        action = "updated"
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text, mode=0o644)  # a project skill may be committed
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return InstallResult(path, action)
