"""Untrusted text: the one place that decides what of a model's or user's text we keep.

Every path that shows, stores or forwards topic, role, context or model text goes
through here. One control-character policy, :func:`clean`, holds for every output (the
terminal, the HTML page, state.json, the next prompt); the steps that only one output
needs sit on top of it:

- terminal and stored text: :func:`clean` alone (ZWJ/ZWNJ kept, so emoji sequences and
  scripts that need joiners still render);
- HTML: :func:`clean`, then HTML escaping (done by the report's Jinja autoescape);
- prompts: :func:`for_prompt` — :func:`clean`, joiners dropped too, code fences turned
  into look-alikes, our ``<<<COLLAB``/``<<<END`` section markers defused, size capped.

The one-line, table-cell and truncation helpers live here too, so a cut is always
marked the same way.
"""

from __future__ import annotations

import re

# Escape sequences first, so that their printable tails go with them.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    r"|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]{0,4096}\x1b\\"  # DCS / SOS / PM / APC strings
    r"|\x1b[ -/]*[0-~]"  # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# C0 except tab and newline, DEL, C1; invisible format characters that can hide or
# reorder text: soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width
# space, LRM/RLM, bidi embeddings/overrides/isolates, word joiner and invisible
# operators, BOM; and lone surrogates (unwritable as UTF-8).
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)
# Zero-width (non-)joiners: needed to render emoji sequences and some scripts, so kept
# for display; a prompt drops them, since they can split a marker a model would still read.
_JOINERS = re.compile("[\u200c\u200d]")
_NEWLINES = re.compile("\r\n|[\r\u0085\u2028\u2029]")

# Every backtick or tilde that belongs to a run of three or more (a fence); a static
# replacement keeps even a file full of fences cheap. U+02CB / U+02DC look alike.
_BACKTICK_RUN = re.compile(r"`(?=``)|(?<=``)`|(?<=`)`(?=`)")
_TILDE_RUN = re.compile(r"~(?=~~)|(?<=~~)~|(?<=~)~(?=~)")
_MARKER = re.compile(r"[<＜﹤]{3,}(?=\s*(?:collab|end))", re.IGNORECASE)

ELLIPSIS = "…"


_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """Lone surrogates (a JSON escape such as ``\\ud800`` in an agent's output decodes to
    one; a pair is already one character) → U+FFFD, so the text can be written as UTF-8."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def clean(text: str) -> str:
    """The control-character policy for every output: newlines normalised to ``\\n``;
    ANSI escapes, C0/C1 controls (but tab and newline), bidi controls and invisible
    characters removed; joiners kept."""
    if "\r" in text or "\u0085" in text or "\u2028" in text or "\u2029" in text:
        text = _NEWLINES.sub("\n", text)
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


def clean_tree(value: object) -> object:
    """:func:`clean` on every string inside a JSON-like value (dicts, lists): for the
    documents we print or send (``--json``, MCP results, events.jsonl); state.json keeps
    the text as received."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {k: clean_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_tree(v) for v in value]
    return value


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` characters, the last one an ellipsis when anything was cut."""
    if limit < 1:
        return ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def one_line(text: str, limit: int | None = None) -> str:
    """Cleaned, whitespace folded to single spaces; truncated with an ellipsis if asked."""
    flat = " ".join(clean(text).split())
    return flat if limit is None else truncate(flat, limit)


def md_cell(text: str, limit: int | None = None) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return one_line(text, limit).replace("|", "\\|")


# What can start inline markup mid-line (CommonMark, with tables and strikethrough):
# emphasis, code, links, raw HTML and autolinks, entities, strikethrough, and the
# backslash itself; ``#`` too, harmless mid-line. Any ASCII punctuation may be escaped.
_MD_INLINE = re.compile(r"[\\`*_\[\]<>#~&]")


def md_inline(text: str) -> str:
    """Untrusted text set mid-line inside our own Markdown (never at a line's start),
    made to render as the text it is: each character that could start markup
    backslash-escaped. Cut and flatten it first (:func:`one_line`): a cut never splits
    an escape."""
    return _MD_INLINE.sub(lambda m: "\\" + m.group(0), text)


def cut_marker(dropped: int | None) -> str:
    """The visible mark left where text was cut to a cap (``None``: cut while it was still
    being written, so how much went is not known yet)."""
    if dropped is None:
        return f"{ELLIPSIS}[truncated]"
    return f"{ELLIPSIS}[truncated {dropped} chars]"


def cap(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text`` plus a visible marker saying how much went."""
    if limit < 0:
        raise ValueError(f"cap must be >= 0, not {limit}")
    if len(text) <= limit:
        return text
    return text[:limit] + cut_marker(len(text) - limit)


def for_prompt(text: str, limit: int) -> str:
    """Make untrusted text safe to place inside one of our delimited prompt sections.

    :func:`clean`, then joiners dropped, code fences turned into a harmless look-alike,
    ``<<<COLLAB``/``<<<END`` defused so the text can neither close nor forge a section,
    and the result capped at ``limit`` characters plus a visible marker.
    """
    text = _JOINERS.sub("", clean(text))
    if "```" in text:
        text = _BACKTICK_RUN.sub("ˋ", text)
    if "~~~" in text:
        text = _TILDE_RUN.sub("˜", text)
    if "<<<" in text or "＜" in text or "﹤" in text:
        text = _MARKER.sub(lambda m: "‹" * len(m.group(0)), text)
    return cap(text, limit)


def prompt_line(text: str, limit: int) -> str:
    """For names, paths and labels in a prompt that must stay on one line."""
    return for_prompt(" ".join(text.split()), limit)


def prompt_cell(text: str, limit: int) -> str:
    """For a Markdown table cell in a prompt: one line, pipes escaped, never empty."""
    return prompt_line(text, limit).replace("|", "\\|") or "—"
