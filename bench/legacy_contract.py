"""The contract parser of the first release (all or nothing), kept only so that
``python -m bench --only salvage`` can measure before against after.

The return contract: the one fenced json block that ends every debater's reply.

Pure: no I/O. ``parse`` never raises on model text; it reports what was wrong.

Choices worth knowing:

- Only the last fenced block counts. An earlier block, even a json one (a model quoting
  a contract, or text planted in its context), stays in the prose and is never parsed.
- The last block is the contract when its info string is ``json`` (any case), or when it
  is untagged and its body starts with ``{``; models drop the tag often enough that
  refusing would cost a re-ask for nothing. Any other tag means "no contract".
- Text after the last block is allowed and kept in the prose: models like to add a
  closing line after the block, and that is no reason to lose the turn.
- Once the last block is taken as the contract it is removed from the prose whether it
  validates or not, so a broken block is never shown to people or to the other side.
- Fences may be indented and may use backticks or tildes; a closing fence is the same
  character, at least as long, alone on its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal, get_args

from collab.text import clean

StanceKind = Literal["agree", "contest", "drop"]

STANCE_KINDS: tuple[StanceKind, ...] = get_args(StanceKind)
TOP_KEYS = ("new_points", "stances", "abstain")
_POINT_KEYS = ("title", "evidence")
_STANCE_KEYS = ("id", "stance", "evidence")


@dataclass(frozen=True)
class Limits:
    """Caps that keep one reply from flooding the ledger or the next prompt."""

    max_new_points: int = 5
    max_stances: int = 20
    max_title_chars: int = 120
    max_evidence_chars: int = 600
    max_abstain_chars: int = 300


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class NewPoint:
    title: str
    evidence: str


@dataclass(frozen=True)
class StanceUpdate:
    id: str
    stance: StanceKind
    evidence: str


@dataclass(frozen=True)
class Contract:
    new_points: tuple[NewPoint, ...] = ()
    stances: tuple[StanceUpdate, ...] = ()
    abstain: str | None = None


@dataclass(frozen=True)
class Parsed:
    """What one reply yields: the prose people read and the contract, or why not."""

    prose: str
    contract: Contract | None
    error: str | None


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    info: str
    body: str
    closed: bool


_OPEN_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CLOSE_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")


def _last_block(text: str) -> _Block | None:
    """Walk the fences in order so that a fence inside a block never opens another."""
    last: _Block | None = None
    pos = 0
    open_at = -1
    fence = ""
    info = ""
    body_start = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        line_end = len(text) if nl == -1 else nl + 1
        line = text[pos:line_end].rstrip("\r\n")
        if open_at < 0:
            m = _OPEN_RE.match(line)
            if m and not (m["fence"][0] == "`" and "`" in m["info"]):
                open_at, fence, info, body_start = pos, m["fence"], m["info"], line_end
        else:
            m = _CLOSE_RE.match(line)
            if m and m["fence"][0] == fence[0] and len(m["fence"]) >= len(fence):
                last = _Block(open_at, line_end, info, text[body_start:pos], closed=True)
                open_at = -1
        pos = line_end
    if open_at >= 0:
        return _Block(open_at, len(text), info, text[body_start:], closed=False)
    return last


class _Invalid(ValueError):
    pass


def _reject_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _Invalid(f"duplicate key {key!r} in the json block")
        out[key] = value
    return out


def parse(reply: str, known_ids: Collection[str], limits: Limits = DEFAULT_LIMITS) -> Parsed:
    whole = reply.strip()
    block = _last_block(reply)
    if block is None:
        return Parsed(whole, None, "no fenced json block found at the end of the reply")
    if not block.closed:
        return Parsed(whole, None, "the last fenced block is never closed")
    words = block.info.split()
    tag = words[0].lower() if words else ""
    if tag != "json" and not (tag == "" and block.body.lstrip().startswith("{")):
        what = f"tagged {words[0]!r}, not json" if words else "untagged and holds no JSON object"
        return Parsed(whole, None, f"the last fenced block is {what}")
    prose = (reply[: block.start] + reply[block.end :]).strip()
    if not block.body.strip():
        return Parsed(prose, None, "the json block is empty")
    try:
        data = json.loads(block.body, strict=False, object_pairs_hook=_reject_duplicates)
    except _Invalid as exc:
        return Parsed(prose, None, str(exc))
    except json.JSONDecodeError as exc:
        return Parsed(
            prose, None, f"the json block is not valid JSON ({exc.msg}, line {exc.lineno})"
        )
    except (ValueError, RecursionError):
        return Parsed(prose, None, "the json block is not valid JSON")
    try:
        contract = _build(data, known_ids=known_ids, limits=limits)
    except _Invalid as exc:
        return Parsed(prose, None, str(exc))
    return Parsed(prose, contract, None)


class _Reader:
    """Shared by parse (clean, cap, check ids) and contract_from_dict (shape only)."""

    def __init__(self, limits: Limits | None) -> None:
        self.limits = limits

    def text(
        self, obj: dict[str, object], key: str, where: str, cap: int, *, required: bool
    ) -> str:
        if key not in obj:
            if required:
                raise _Invalid(f"{where} has no {key!r}")
            return ""
        value = obj[key]
        if not isinstance(value, str):
            raise _Invalid(f"{where}.{key} must be a string, not {_kind(value)}")
        if self.limits is None:
            return value
        value = clean(value).strip()
        if len(value) > cap:
            raise _Invalid(f"{where}.{key} is {len(value)} characters long (max {cap})")
        return value

    def items(self, data: dict[str, object], key: str, cap: int) -> list[dict[str, object]]:
        raw = data.get(key)
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise _Invalid(f"{key} must be a list, not {_kind(raw)}")
        if self.limits is not None and len(raw) > cap:
            raise _Invalid(f"too many {key.replace('_', ' ')}: {len(raw)} (max {cap})")
        out: list[dict[str, object]] = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise _Invalid(f"{key}[{i}] must be an object, not {_kind(item)}")
            out.append(item)
        return out


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _unknown_keys(obj: dict[str, object], allowed: tuple[str, ...], where: str) -> None:
    extra = [k for k in obj if k not in allowed]
    if extra:
        raise _Invalid(f"unknown key {extra[0]!r} in {where} (allowed: {', '.join(allowed)})")


def _build(data: object, *, known_ids: Collection[str] | None, limits: Limits | None) -> Contract:
    if not isinstance(data, dict):
        raise _Invalid(f"the contract must be a JSON object, not {_kind(data)}")
    _unknown_keys(data, TOP_KEYS, "the contract")
    caps = limits or DEFAULT_LIMITS
    read = _Reader(limits)

    points: list[NewPoint] = []
    for i, item in enumerate(read.items(data, "new_points", caps.max_new_points)):
        where = f"new_points[{i}]"
        _unknown_keys(item, _POINT_KEYS, where)
        title = read.text(item, "title", where, caps.max_title_chars, required=True)
        if limits is not None and not title:
            raise _Invalid(f"{where}.title is empty")
        evidence = read.text(item, "evidence", where, caps.max_evidence_chars, required=False)
        points.append(NewPoint(title, evidence))

    stances: list[StanceUpdate] = []
    seen: set[str] = set()
    for i, item in enumerate(read.items(data, "stances", caps.max_stances)):
        where = f"stances[{i}]"
        _unknown_keys(item, _STANCE_KEYS, where)
        issue_id = read.text(item, "id", where, caps.max_title_chars, required=True)
        kind = read.text(item, "stance", where, caps.max_title_chars, required=True)
        stance = _stance_kind(kind)
        if stance is None:
            raise _Invalid(f"{where}.stance must be one of {'/'.join(STANCE_KINDS)}, not {kind!r}")
        if known_ids is not None and issue_id not in known_ids:
            raise _Invalid(f"{where}.id {issue_id!r} is not a known issue id")
        if issue_id in seen:
            raise _Invalid(f"issue {issue_id!r} appears twice in stances")
        seen.add(issue_id)
        evidence = read.text(item, "evidence", where, caps.max_evidence_chars, required=False)
        stances.append(StanceUpdate(issue_id, stance, evidence))

    abstain = data.get("abstain")
    if abstain is not None:
        if not isinstance(abstain, str):
            raise _Invalid(f"abstain must be null or a string, not {_kind(abstain)}")
        if limits is not None:
            abstain = clean(abstain).strip()
            if not abstain:
                raise _Invalid("abstain must be null or a non-empty reason")
            if len(abstain) > caps.max_abstain_chars:
                raise _Invalid(
                    f"abstain is {len(abstain)} characters long (max {caps.max_abstain_chars})"
                )
            if points or stances:
                raise _Invalid("an abstaining turn must leave new_points and stances empty")
    return Contract(tuple(points), tuple(stances), abstain)


def _stance_kind(value: str) -> StanceKind | None:
    for kind in STANCE_KINDS:
        if value == kind:
            return kind
    return None


def contract_to_dict(contract: Contract) -> dict[str, object]:
    return {
        "new_points": [{"title": p.title, "evidence": p.evidence} for p in contract.new_points],
        "stances": [
            {"id": s.id, "stance": s.stance, "evidence": s.evidence} for s in contract.stances
        ],
        "abstain": contract.abstain,
    }


def contract_from_dict(data: object) -> Contract:
    """Shape and types only: what parse accepted once is not re-judged on load."""
    return _build(data, known_ids=None, limits=None)
