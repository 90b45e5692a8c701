"""From a debater's reply to its contract: parse leniently, validate strictly, keep what
is valid. Pure: no I/O; never raises on model text.

Where the contract is:

- the reply's last fenced block, when its info string is ``json`` (any case) or it is
  untagged and its body starts with ``{``; an earlier block, even a json one (a model
  quoting a contract, or text planted in its context), stays in the prose;
- only when the reply has no fenced json block at all: a bare JSON object at the very
  end of the reply (nothing but whitespace after it) that has at least one contract key
  (``new_points``, ``stances``, ``abstain``) — so a stray ``{"timeout": 30}`` in the
  prose never becomes a contract.

Text after the last fenced block is kept in the prose; the block itself is removed from
the prose whether it validates or not. Usual small faults are repaired by json-repair
(trailing commas, single or smart quotes, unquoted keys, comments, a cut-off end).

Validation is item by item: a valid new point is kept even when a stance beside it
names an unknown id; each dropped item is named in one warning. ``agree`` and ``drop``
need a reason (their ``evidence``). ``abstain`` counts only when the block has no valid
point or stance. Nothing is truncated: an over-long title or evidence drops its item.
The contract is ``None`` only when nothing usable is left, and ``error`` then says
exactly what was wrong, for the one re-ask.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass

import json_repair

from collab.contract import (
    DEFAULT_LIMITS,
    DEFAULT_SEVERITY,
    FAVOURS_KEY,
    SEVERITIES,
    STANCE_KINDS,
    TOP_KEYS,
    Contract,
    Limits,
    NewPoint,
    Severity,
    StanceKind,
    StanceUpdate,
    kind_of,
)
from collab.text import clean


@dataclass(frozen=True)
class Parsed:
    """What one reply yields: the prose people read and the contract, or why not."""

    prose: str
    contract: Contract | None
    error: str | None
    # One line naming every item that was dropped, or a repair that was made.
    warnings: tuple[str, ...] = ()
    # Items (points and stances) the block held, and how many were kept.
    sent: int = 0
    kept: int = 0


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    info: str
    body: str
    closed: bool


_OPEN_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CLOSE_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")
# How far back from the end a bare object may start, and how many starts are tried.
_BARE_WINDOW = 20_000
_BARE_TRIES = 200


def _fenced_blocks(text: str) -> list[_Block]:
    """Every fenced block in order; a fence inside a block never opens another."""
    blocks: list[_Block] = []
    pos, open_at, fence, info, body_start = 0, -1, "", "", 0
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
                blocks.append(_Block(open_at, line_end, info, text[body_start:pos], True))
                open_at = -1
        pos = line_end
    if open_at >= 0:
        blocks.append(_Block(open_at, len(text), info, text[body_start:], False))
    return blocks


def _is_json_block(block: _Block) -> bool:
    words = block.info.split()
    tag = words[0].lower() if words else ""
    return tag == "json" or (tag == "" and block.body.lstrip().startswith("{"))


def _bare_object(text: str) -> tuple[int, dict[str, object]] | None:
    """The outermost JSON object that ends the text and has a contract key, and where it
    starts. Strict JSON first; if none, json-repair on starts that open a line."""
    end = len(text.rstrip())
    if end == 0 or text[end - 1] != "}":
        return None
    lo = max(0, end - _BARE_WINDOW)
    starts = [m.start() for m in re.finditer(r"\{", text[lo:end])][:_BARE_TRIES]
    decoder = json.JSONDecoder(strict=False)
    for offset in starts:
        i = lo + offset
        try:
            obj, stop = decoder.raw_decode(text, i)
        except ValueError:
            continue
        if stop == end and isinstance(obj, dict) and any(k in obj for k in TOP_KEYS):
            return i, obj
    for offset in starts:
        i = lo + offset
        if i and text[i - 1] != "\n":
            continue
        repaired = _repair(text[i:end])
        if isinstance(repaired, dict) and any(k in repaired for k in TOP_KEYS):
            return i, repaired
    return None


def _repair(body: str) -> object:
    try:
        return json_repair.repair_json(body, return_objects=True, skip_json_loads=True)
    except (ValueError, RecursionError):
        return None


def _load(body: str) -> tuple[object, bool]:
    """The block's JSON value, and whether it had to be repaired."""
    try:
        return json.loads(body, strict=False), False
    except (ValueError, RecursionError):
        return _repair(body), True


def parse(
    reply: str,
    known_ids: Collection[str],
    limits: Limits = DEFAULT_LIMITS,
    *,
    option_ids: Collection[str] = (),
) -> Parsed:
    """``option_ids``: the run's options (O1…); a ``favours`` naming another, not a string,
    or given when the run has none is dropped with a warning, never the contract."""
    whole = reply.strip()
    blocks = _fenced_blocks(reply)
    json_blocks = [b for b in blocks if _is_json_block(b)]
    notes: list[str] = []
    if blocks and _is_json_block(blocks[-1]):
        block = blocks[-1]
        prose = (reply[: block.start] + reply[block.end :]).strip()
        if not block.body.strip():
            return Parsed(prose, None, "the json block is empty")
        data, repaired = _load(block.body)
        if not block.closed:
            notes.append("the json block was never closed")
        if repaired:
            notes.append("the json block was repaired")
    elif json_blocks:
        what = blocks[-1].info.split()
        kind = f"tagged {what[0]!r}" if what else "untagged and holds no JSON object"
        return Parsed(whole, None, f"the last fenced block is {kind}, not the json block")
    else:
        found = _bare_object(reply)
        if found is None:
            return Parsed(whole, None, "no json block found at the end of the reply")
        start, data = found
        prose = reply[:start].strip()
        notes.append("the contract came without a fence")
    if not isinstance(data, dict):
        return Parsed(prose, None, "the json block holds no JSON object", tuple(notes))
    if not any(k in data for k in TOP_KEYS):
        keys = ", ".join(TOP_KEYS)
        return Parsed(prose, None, f"the json block has none of the keys {keys}", tuple(notes))
    return _salvage(prose, data, known_ids, limits, notes, option_ids)


@dataclass
class _Kept:
    points: list[NewPoint]
    stances: list[StanceUpdate]
    dropped: list[str]


def _salvage(
    prose: str,
    data: dict[str, object],
    known_ids: Collection[str],
    limits: Limits,
    notes: list[str],
    option_ids: Collection[str] = (),
) -> Parsed:
    kept = _Kept([], [], [])
    extra = [k for k in data if k not in (*TOP_KEYS, FAVOURS_KEY)]
    if extra:
        notes.append(f"unknown key{'s' if len(extra) > 1 else ''} ignored: {', '.join(extra)}")
    raw_points = _as_list(data.get("new_points"), "new_points", kept)
    raw_stances = _as_list(data.get("stances"), "stances", kept)
    for i, item in enumerate(raw_points):
        _point(item, f"new_points[{i}]", i, limits, kept)
    seen: set[str] = set()
    for i, item in enumerate(raw_stances):
        _stance(item, f"stances[{i}]", i, known_ids, seen, limits, kept)
    sent = len(raw_points) + len(raw_stances)
    abstain = _abstain(
        data.get("abstain"), limits, kept, has_items=bool(kept.points or kept.stances)
    )
    favours = _favours(data.get(FAVOURS_KEY), option_ids, notes)
    warnings = list(notes)
    if kept.dropped:
        warnings.append("dropped " + "; ".join(kept.dropped))
    usable = kept.points or kept.stances or abstain is not None
    if not usable and sent:
        return Parsed(
            prose, None, "nothing in the json block was usable: " + "; ".join(kept.dropped),
            tuple(warnings), sent, 0,
        )  # fmt: skip
    if not usable and kept.dropped:  # only a bad abstain or a bad list
        return Parsed(prose, None, "; ".join(kept.dropped), tuple(warnings), sent, 0)
    contract = Contract(tuple(kept.points), tuple(kept.stances), abstain, favours)
    return Parsed(
        prose, contract, None, tuple(warnings), sent, len(kept.points) + len(kept.stances)
    )


def _as_list(raw: object, key: str, kept: _Kept) -> list[object]:
    if raw is None:
        return []
    if isinstance(raw, list):
        return raw
    kept.dropped.append(f"{key} (a list was expected, not {kind_of(raw)})")
    return []


def _text(item: dict[str, object], key: str) -> str | None:
    """The cleaned string at ``key`` ("" if absent), or None when it is not a string."""
    value = item.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        return None
    return clean(value).strip()


def _point(item: object, where: str, i: int, limits: Limits, kept: _Kept) -> None:
    if i >= limits.max_new_points:
        kept.dropped.append(f"{where} (over the cap of {limits.max_new_points} new points)")
        return
    if not isinstance(item, dict):
        kept.dropped.append(f"{where} (an object was expected, not {kind_of(item)})")
        return
    title = _text(item, "title")
    evidence = _text(item, "evidence")
    if not title:
        kept.dropped.append(f"{where} (no title)")
    elif evidence is None:
        kept.dropped.append(f"{where} (evidence must be a string)")
    elif len(title) > limits.max_title_chars:
        kept.dropped.append(f"{where} (title over {limits.max_title_chars} characters)")
    elif len(evidence) > limits.max_evidence_chars:
        kept.dropped.append(f"{where} (evidence over {limits.max_evidence_chars} characters)")
    else:
        severity = _severity(item, where, kept) or DEFAULT_SEVERITY
        kept.points.append(NewPoint(title, evidence, severity))


def _stance(
    item: object,
    where: str,
    i: int,
    known_ids: Collection[str],
    seen: set[str],
    limits: Limits,
    kept: _Kept,
) -> None:
    if i >= limits.max_stances:
        kept.dropped.append(f"{where} (over the cap of {limits.max_stances} stances)")
        return
    if not isinstance(item, dict):
        kept.dropped.append(f"{where} (an object was expected, not {kind_of(item)})")
        return
    raw_id = item.get("id")
    issue_id = (
        f"I{raw_id}"
        if isinstance(raw_id, int) and not isinstance(raw_id, bool)
        else _text(item, "id")
    )
    if issue_id and re.fullmatch(r"i\d+", issue_id):
        issue_id = issue_id.upper()
    kind = _stance_kind(item.get("stance"))
    evidence = _text(item, "evidence")
    if not issue_id:
        kept.dropped.append(f"{where} (no issue id)")
    elif issue_id not in known_ids:
        kept.dropped.append(f"{where} ({issue_id!r} is not a known issue id)")
    elif kind is None:
        kept.dropped.append(f"{where} (stance must be one of {'/'.join(STANCE_KINDS)})")
    elif evidence is None:
        kept.dropped.append(f"{where} (evidence must be a string)")
    elif len(evidence) > limits.max_evidence_chars:
        kept.dropped.append(f"{where} (evidence over {limits.max_evidence_chars} characters)")
    elif kind in ("agree", "drop") and not evidence:
        kept.dropped.append(f"{where} ({kind} {issue_id} without a reason: say what changed)")
    elif issue_id in seen:
        kept.dropped.append(f"{where} ({issue_id} appears twice)")
    else:
        seen.add(issue_id)
        kept.stances.append(StanceUpdate(issue_id, kind, evidence, _severity(item, where, kept)))


def _abstain(raw: object, limits: Limits, kept: _Kept, *, has_items: bool) -> str | None:
    if raw is None or raw is False:
        return None
    if not isinstance(raw, str):
        kept.dropped.append(f"abstain (a reason string was expected, not {kind_of(raw)})")
        return None
    reason = clean(raw).strip()
    if not reason:
        return None
    if has_items:
        kept.dropped.append("abstain (ignored: the block has points or stances)")
        return None
    if len(reason) > limits.max_abstain_chars:
        kept.dropped.append(f"abstain (over {limits.max_abstain_chars} characters)")
        return None
    return reason


def _favours(raw: object, option_ids: Collection[str], notes: list[str]) -> str | None:
    """Lenient: the favoured option's id (``o2`` reads as ``O2``), or None with a note."""
    if raw is None:
        return None
    if not option_ids:
        notes.append("favours ignored: the debate has no options")
        return None
    if not isinstance(raw, str):
        notes.append(f"favours ignored: an option id was expected, not {kind_of(raw)}")
        return None
    oid = clean(raw).strip().upper()
    if oid not in option_ids:
        notes.append(
            f"favours ignored: {clean(raw)[:20]!r} is not an option id ({', '.join(option_ids)})"
        )
        return None
    return oid


def _severity(item: dict[str, object], where: str, kept: _Kept) -> Severity | None:
    """Lenient: a bad severity is dropped (named in the warning), never its item."""
    raw = item.get("severity")
    if raw is None or raw == "":
        return None
    wanted = raw.strip().lower() if isinstance(raw, str) else None
    for severity in SEVERITIES:
        if wanted == severity:
            return severity
    shown = repr(raw) if isinstance(raw, str) else kind_of(raw)
    kept.dropped.append(f"{where}.severity ({shown[:40]} is not {'/'.join(SEVERITIES)})")
    return None


def _stance_kind(value: object) -> StanceKind | None:
    if not isinstance(value, str):
        return None
    wanted = value.strip().lower()
    for kind in STANCE_KINDS:
        if wanted == kind:
            return kind
    return None
