"""The formats a run's report is written in, declared once: ``collab show --format``
takes :data:`REPORT_FORMATS`, ``collab export --format`` :data:`EXPORT_FORMATS` (an
Architecture Decision Record too); ``export -o`` tells one from the file's suffix
(:data:`SUFFIXES`). The options' help, their validation and the docs (held to it by
tests/unit/test_export.py) all read them here. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from collab.errors import UsageError
from collab.suggest import did_you_mean

REPORT_FORMATS: tuple[str, ...] = ("md", "json", "html")
ADR = "adr"
EXPORT_FORMATS: tuple[str, ...] = (*REPORT_FORMATS, ADR)
# export -o's suffix → the format it means (an ADR is Markdown: named with --format).
SUFFIXES: dict[str, str] = {".html": "html", ".htm": "html", ".md": "md", ".json": "json"}


def spelled(formats: Sequence[str]) -> str:
    """``md, json or html``: the formats as a sentence says them."""
    if len(formats) < 2:
        return "".join(formats)
    return ", ".join(formats[:-1]) + " or " + formats[-1]


def check_format(fmt: str, formats: Sequence[str]) -> str:
    """``fmt`` when it is one of ``formats``; else a :class:`UsageError` of one line that
    names them and, for a near miss (``htlm``, ``ADR``), what was probably meant."""
    if fmt in formats:
        return fmt
    hint = did_you_mean(fmt, formats, "")
    raise UsageError(f"--format must be {spelled(formats)}, got {fmt!r}" + (hint and f"; {hint}"))


def format_of_suffix(suffix: str) -> str | None:
    """The format an ``-o`` file's suffix (``.HTM``) means, or None."""
    return SUFFIXES.get(suffix.lower())
