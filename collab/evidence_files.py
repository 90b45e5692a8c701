"""The thin I/O side of the evidence check: which file a cited path means, and its lines.

A context file is matched by the path collab showed the debaters and read from the text
saved in state.json (what they saw). Under ``--tools read`` any other path is read from
the working directory, after resolving symlinks: anything that lands outside it is
``outside``. Without read tools, a path that is not a context file is ``unreadable``
(the check says ``unchecked``: the debaters could not have read it through collab).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from collab.config import DebateConfig
from collab.evidence import Found, check_text, cites, escapes, normal
from collab.turns import TurnRecord

MAX_FILE_BYTES = 2_000_000


def lookup(paths: Iterable[str], cfg: DebateConfig, root: Path) -> dict[str, Found]:
    contexts = {normal(c.path): c.text for c in cfg.contexts}
    out: dict[str, Found] = {}
    for path in paths:
        if path in out:
            continue
        text = contexts.get(normal(path))
        if text is not None:
            out[path] = text.splitlines()
        elif escapes(path):
            out[path] = "outside"
        elif cfg.tools == "read":
            out[path] = _tree_lines(root, path)
        else:
            out[path] = "unreadable"
    return out


def _tree_lines(root: Path, path: str) -> Found:
    base = root.resolve()
    try:
        target = (base / path).resolve()
    except (OSError, RuntimeError):
        return "unreadable"
    if not target.is_relative_to(base):
        return "outside"
    try:
        if not target.is_file():
            return "missing"
        if target.stat().st_size > MAX_FILE_BYTES:
            return "unreadable"
        return target.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return "unreadable"


def check_turn(rec: TurnRecord, cfg: DebateConfig, root: Path) -> TurnRecord:
    """``rec`` with the checks of every cite in its contract's evidence."""
    if rec.contract is None:
        return rec
    texts = [p.evidence for p in rec.contract.new_points]
    texts += [s.evidence for s in rec.contract.stances]
    found = lookup((c.path for t in texts for c in cites(t)), cfg, root)
    checks = {c.key(): c for t in texts for c in check_text(t, found)}
    return replace(rec, evidence_checks=tuple(checks.values()))
