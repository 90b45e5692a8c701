"""Evidence that cites ``path:line`` or ``path:start-end``, checked by code. Pure: no I/O.

A cite is a relative path with a file extension, a colon and a line (or a range), e.g.
``src/auth/session.py:42`` or ``app.py:10-12``. Text quoted in backticks after a cite (up
to the next cite) is that cite's quote: it must appear in the cited lines, whitespace
ignored. A backtick span that is itself a cite is no quote.

Statuses: ``verified`` (the lines exist and hold the quote, if any), ``wrong-line`` (the
lines do not exist, or do not hold the quote), ``no-such-file``, ``outside`` (absolute,
escaping with ``..``, or through a symlink out of the allowed area) and ``unchecked`` (a
file collab cannot read for the debaters: not a context file, and no ``--tools read``).
Which file a path means, and its lines, is the I/O layer's business
(``collab.evidence_files``); this module only reads cites and judges them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from collab.records import record

EvidenceStatus = Literal["verified", "wrong-line", "no-such-file", "outside", "unchecked"]
EVIDENCE_STATUSES: tuple[EvidenceStatus, ...] = get_args(EvidenceStatus)
MARK: dict[EvidenceStatus, str] = {
    "verified": "✓",
    "wrong-line": "✗",
    "no-such-file": "✗",
    "outside": "✗",
    "unchecked": "?",
}
FAILED: frozenset[EvidenceStatus] = frozenset({"wrong-line", "no-such-file", "outside"})

# A path with an extension (letters first), then :line or :start-end.
_CITE_RE = re.compile(
    r"(?<![\w/.~-])(?P<path>/?(?:[\w~.-]+/)*[\w.-]*\.[A-Za-z][A-Za-z0-9]{0,9})"
    r":(?P<start>\d{1,7})(?:\s*[-–]\s*(?P<end>\d{1,7}))?(?![\w:])"
)
_QUOTE_RE = re.compile(r"`([^`\n]{1,400})`")
MAX_CITES = 20  # per piece of evidence


@record
class Cite:
    path: str
    start: int
    end: int
    quote: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start}" + (f"-{self.end}" if self.end != self.start else "")


@record
class EvidenceCheck:
    """One cite and what the check found; ``quote`` is the backticked text it had to hold."""

    cite: str
    quote: str | None
    status: EvidenceStatus

    def key(self) -> tuple[str, str | None]:
        return (self.cite, self.quote)


def cites(text: str) -> list[Cite]:
    """Every cite in ``text``, in order (at most :data:`MAX_CITES`), each with its quote."""
    found = list(_CITE_RE.finditer(text))[:MAX_CITES]
    out: list[Cite] = []
    for n, m in enumerate(found):
        start = int(m["start"])
        end = int(m["end"]) if m["end"] else start
        stop = found[n + 1].start() if n + 1 < len(found) else len(text)
        quote = None
        after = m.end()
        if text[after : after + 1] == "`" and text[max(m.start() - 1, 0) : m.start()] == "`":
            after += 1  # the cite was itself in backticks: its closing one opens no quote
        for q in _QUOTE_RE.finditer(text, after, stop):
            body = q[1].strip()
            if body and not _CITE_RE.fullmatch(body):
                quote = body
                break
        out.append(Cite(m["path"], start, end, quote))
    return out


def escapes(path: str) -> bool:
    """Absolute, or leaving its base with ``..``: outside before any file is looked at."""
    if path.startswith(("/", "~")):
        return True
    norm = posixpath.normpath(path)
    return norm == ".." or norm.startswith("../")


def normal(path: str) -> str:
    """``./a/b.py``, ``.//a/b.py`` and ``a/./b.py`` are ``a/b.py`` (never ``/a/b.py``)."""
    return posixpath.normpath(path)


# What the I/O layer found for a cite's path: its lines, or why there are none.
Found = Sequence[str] | Literal["outside", "missing", "unreadable"]


def judge(cite: Cite, found: Found) -> EvidenceStatus:
    if found == "outside":
        return "outside"
    if found == "missing":
        return "no-such-file"
    if found == "unreadable":
        return "unchecked"
    lines = found
    if cite.start < 1 or cite.end < cite.start or cite.end > len(lines):
        return "wrong-line"
    if cite.quote is not None:
        held = _squash("".join(lines[cite.start - 1 : cite.end]))
        if _squash(cite.quote) not in held:
            return "wrong-line"
    return "verified"


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_text(text: str, lookup: Mapping[str, Found]) -> tuple[EvidenceCheck, ...]:
    """The checks of one piece of evidence; ``lookup`` holds what was found per path."""
    return tuple(
        EvidenceCheck(c.where, c.quote, judge(c, lookup.get(c.path, "unreadable")))
        for c in cites(text)
    )


def recheck(
    text: str, known: Mapping[tuple[str, str | None], EvidenceStatus]
) -> tuple[EvidenceCheck, ...]:
    """The checks of ``text`` from statuses found earlier (``unchecked`` if never checked)."""
    out = []
    for c in cites(text):
        key = (c.where, c.quote)
        out.append(EvidenceCheck(c.where, c.quote, known.get(key, "unchecked")))
    return tuple(out)


def marks(checks: Sequence[EvidenceCheck]) -> str:
    """``src/a.py:3 ✓, b.py:9 ✗ wrong-line`` — for views and prompts."""
    return ", ".join(
        f"{c.cite} {MARK[c.status]}" + ("" if c.status == "verified" else f" {c.status}")
        for c in checks
    )
