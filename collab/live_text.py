"""What a person may see of a reply while it is still being written.

A live view shows a reply as it streams, in deltas that may cut anything anywhere. A
debater's reply ends with its contract (a fenced json block, or a bare JSON object at the
very end: :mod:`collab.contract_parse`), which is for collab, not for the reader; the Judge
writes about "Position 1…N" (:mod:`collab.judge.labels`), which the reader knows by the
roles' names. :func:`shown` takes the whole text so far and returns what may be shown now:

- a fenced block tagged ``json``, or untagged with a body that opens with ``{``, stands as
  one line, :data:`RECORDING`; an untagged block waits until its first line says which;
- outside a block, from the first ``{`` followed by a key's quote (or by nothing yet) to
  the end: a bare contract only ever ends a reply, so nothing after it is lost;
- a last line that could still become a fence (````` ``, ``~~~js`` …) waits for its end;
- the given labels become names, whole words only, a list of Positions too
  (``reveal_labels``, as the saved answer), and a tail that could be the start of a label
  or the rest of a list waits for the next delta.

Recomputed from the whole text each time, so no delta boundary can change the outcome:
what is shown of a text is always a prefix of what is shown once more has arrived,
except the line that stands for a block. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from collab.judge.labels import reveal_labels

RECORDING = "recording its points…"

_OPEN = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)")
_CLOSE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*")
_MAYBE_FENCE = re.compile(r"[ \t]*(?:`{1,2}|~{1,2})")  # a last line that may open a fence
_OBJECT = re.compile(r"\{\s*(?:\"|\Z)")  # an object's start: a key's quote, or not yet
_WORD = re.compile(r"[A-Za-z0-9_]")
# "Positions 1, 2" at the end may still become "Positions 1, 2 and 3": it waits.
_GROWING_LIST = re.compile(r"(?<![A-Za-z0-9_])Positions(?:[ ,&0-9]|and|an|a|or|o)*\Z")


@dataclass(frozen=True)
class Shown:
    text: str
    recording: bool  # the contract is being written (or was)


def shown(text: str, labels: Mapping[str, str] | None = None, *, done: bool = False) -> Shown:
    """``text``: the reply so far; ``labels``: label → name (the Judge's "Position 1" →
    the role's name); ``done``: the reply is complete, nothing waits for more."""
    prose, recording = _prose(text, done)
    if labels:
        prose = _reveal(prose, labels, done)
    return Shown(prose, recording)


def _prose(text: str, done: bool) -> tuple[str, bool]:
    out: list[str] = []
    recording = False
    fence = ""  # the open fence, "" outside a block
    hidden: bool | None = None  # in a block: hidden, shown, or None (untagged, undecided)
    held = ""  # an undecided block's lines so far
    obj: re.Match[str] | None = None  # the next possible bare object's start
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl + 1
        line = text[pos:end]
        body = line.rstrip("\r\n")
        whole = nl >= 0 or done  # nothing more can join this line
        if fence:
            closing = _CLOSE.fullmatch(body)
            closes = (
                whole
                and closing is not None
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
            )
            if closes:
                out.append(held + line if hidden is None else "" if hidden else line)
                fence, held = "", ""
            elif hidden is None:  # an untagged block: its first words say what it is
                if not body.strip():
                    if not whole:
                        break
                    held += line
                elif body.lstrip().startswith("{"):
                    hidden, recording = True, True
                    out.append(RECORDING + "\n")
                else:
                    hidden = False
                    out.append(held + line)
            elif not hidden:
                out.append(line)
            pos = end
            continue
        if not whole and (_MAYBE_FENCE.fullmatch(body) or _OPEN.match(body)):
            break  # may still become a fence: wait for the line's end
        m = _OPEN.fullmatch(body)
        if m and not (m["fence"][0] == "`" and "`" in m["info"]):
            words = m["info"].split()
            tag = words[0].lower() if words else ""
            fence, held = m["fence"], line
            hidden = True if tag == "json" else None if not tag else False
            if hidden:
                recording = True
                out.append(RECORDING + "\n")
            elif hidden is False:
                out.append(line)
            pos = end
            continue
        if obj is None or obj.start() < pos:
            obj = _OBJECT.search(text, pos)
        if obj is not None and obj.start() < end and (not done or obj.group(0).endswith('"')):
            before = text[pos : obj.start()]
            sep = "\n" if before.strip() else ""
            out.append((before.rstrip() + sep if before.strip() else "") + RECORDING)
            return "".join(out), True
        out.append(line)
        pos = end
    return "".join(out), recording


def _reveal(text: str, labels: Mapping[str, str], done: bool) -> str:
    keys = sorted((k for k in labels if k), key=len, reverse=True)
    if not keys:
        return text
    cut = len(text) if done else _label_tail(text, keys)
    if not done and (growing := _GROWING_LIST.search(text, 0, cut)):
        cut = growing.start()
    return reveal_labels(text[:cut], {k: labels[k] for k in keys})


def _label_tail(text: str, keys: list[str]) -> int:
    """Where a tail that could still become a label (or a label that a next letter or
    digit would spoil) starts; ``len(text)`` when there is none."""
    longest = max(len(k) for k in keys)
    for i in range(max(0, len(text) - longest), len(text)):
        tail = text[i:]
        if i > 0 and _WORD.match(text[i - 1]):
            continue
        if any(k.startswith(tail) for k in keys):
            return i
    return len(text)
