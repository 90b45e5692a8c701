"""Read and validate a batch's topics file: every entry checked before anything starts.

Formats: ``.txt`` (one topic per line; blank lines and ``#`` comments skipped),
``.jsonl`` (one JSON object per line) and ``.yaml``/``.yml`` (a list of objects or
strings). Object entries may set any debate option that offers the ``batch`` surface
(``collab.options``); relative ``context`` paths are taken from the topics file's folder.

A topics file may come from a repository, a pull request or a colleague: an entry cannot
choose what runs on this machine or what leaves it. The options declared
``batch_restricted`` are refused in an entry (``context`` only where a path resolves
outside the topics file's folder) unless the person running the batch passes
``--trust-entries``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from collab.config import DebateConfig
from collab.errors import UsageError
from collab.options import OPTIONS, DebateRequest
from collab.request import build_config, request_from

MAX_ENTRIES = 500
# Why each batch-restricted option is (the declarations' flag says which are).
_WHY = {
    "agent_command": "it chooses the command that runs on this machine",
    "tools": "it lets the debaters read files on this machine",
    "agent_setup": "it runs your own MCP servers, hooks and settings in each turn",
}


@dataclass(frozen=True)
class Entry:
    line: int
    config: DebateConfig


def read_entries(
    path: Path, defaults: DebateRequest, known_agents: Collection[str], *, trust: bool = False
) -> list[Entry]:
    """Every entry as a validated config; the first bad one raises with its line number.
    ``trust`` (``--trust-entries``) lets entries set the batch-restricted options."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"topics file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read topics file {path}: {exc}") from None
    suffix = path.suffix.lower()
    if suffix == ".txt" or suffix == "":
        raw = _txt(text)
    elif suffix == ".jsonl":
        raw = _jsonl(path, text)
    elif suffix in (".yaml", ".yml"):
        raw = _yaml(path, text)
    else:
        raise UsageError(f"{path}: unknown topics file type {suffix!r}; use .txt, .jsonl or .yaml")
    if not raw:
        raise UsageError(f"{path}: no topics in the file")
    if len(raw) > MAX_ENTRIES:
        raise UsageError(f"{path}: {len(raw)} entries; at most {MAX_ENTRIES} per batch")
    out: list[Entry] = []
    for line, item in raw:
        try:
            req = _request(item, defaults, path.parent, trust)
            out.append(Entry(line, build_config(req, known_agents, "batch")))
        except UsageError as exc:
            raise UsageError(f"{path}:{line}: {exc.message}") from None
    return out


def _txt(text: str) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            out.append((n, s))
    return out


def _jsonl(path: Path, text: str) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            out.append((n, json.loads(s)))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{n}: invalid JSON: {exc.msg}") from None
    return out


def _yaml(path: Path, text: str) -> list[tuple[int, object]]:
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise UsageError(f"{path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return []
    if not isinstance(data, list) or node is None or not isinstance(node, yaml.SequenceNode):
        raise UsageError(f"{path}:1: the YAML file must be a list of topics")
    return [(item.start_mark.line + 1, value) for item, value in zip(node.value, data, strict=True)]


def _request(item: object, defaults: DebateRequest, base: Path, trust: bool) -> DebateRequest:
    if isinstance(item, str):
        return replace(defaults, topic=item)
    if not isinstance(item, dict):
        raise UsageError("an entry must be a topic string or an object with a 'topic'")
    if "topic" not in item:
        raise UsageError("entry has no 'topic'")
    if not trust:
        for key, value in item.items():
            opt = OPTIONS.get(key)
            if opt is None or not opt.batch_restricted:
                continue
            if key == "context":
                _check_context(value, base)
            else:
                raise _restricted(key, _WHY.get(key, "it widens what runs on this machine"))
    return request_from(item, "batch", defaults, folder=base)


def _restricted(key: str, why: str) -> UsageError:
    return UsageError(
        f"{key!r} is not allowed in a batch entry: {why}; set it on the command line, or pass "
        "--trust-entries if you trust this file"
    )


def _check_context(value: object, base: Path) -> None:
    """Each context path, symlinks followed, inside the topics file's folder."""
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list):
        return  # request_from says what is wrong with it
    folder = os.path.realpath(base)
    for given in paths:
        if not isinstance(given, str):
            return
        real = os.path.realpath(Path(base, os.path.expanduser(given)))
        if os.path.commonpath([folder, real]) != folder:
            raise _restricted(
                "context", f"{given} resolves to {real}, outside the topics file's folder {folder}"
            )
