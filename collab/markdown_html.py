"""A small, safe Markdown subset to HTML: only tags we write, text always escaped first.

Used for the Judge's summary in the HTML report; model text never gets to choose a tag
or an attribute (links only to escaped http(s) targets).
"""

from __future__ import annotations

import html
import re

from collab.text import clean


def _esc(text: str) -> str:
    return html.escape(clean(text), quote=True)


FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_HR_RE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_ITEM_RE = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_QUOTE_RE = re.compile(r"^\s{0,3}>\s?(.*)$")
_SEP_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
_SUMMARY_RE = re.compile(r"^\s*<summary>(.*)</summary>\s*$", re.IGNORECASE)
_DETAILS_OPEN_RE = re.compile(
    r"^\s*<details(?:\s+open)?\s*>\s*(?:<summary>(.*)</summary>\s*)?$", re.IGNORECASE
)
_DETAILS_CLOSE_RE = re.compile(r"^\s*</details\s*>\s*$", re.IGNORECASE)
_INLINE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![*\w])\*(?=[^\s*])([^*]+?)(?<=\S)\*(?![*\w])"), r"<em>\1</em>"),
    (re.compile(r"(?<![_\w])_(?=[^\s_])([^_]+?)(?<=\S)_(?![_\w])"), r"<em>\1</em>"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"<del>\1</del>"),
]


def _inline(text: str) -> str:
    """Escape first, then mark up; code spans and links are parked so nothing re-marks them."""
    s = _esc(text.replace("\x00", ""))
    parked: list[str] = []

    def park(fragment: str) -> str:
        parked.append(fragment)
        return f"\x00{len(parked) - 1}\x00"

    s = re.sub(r"`([^`]+)`", lambda m: park(f"<code>{m[1]}</code>"), s)
    s = re.sub(
        r"\[([^\]\x00]+)\]\((https?://[^\s()\x00]+)\)",
        lambda m: park(f'<a href="{m[2]}" rel="noopener noreferrer nofollow">{m[1]}</a>'),
        s,
    )
    for pattern, repl in _INLINE:
        s = pattern.sub(repl, s)
    return re.sub(r"\x00(\d+)\x00", lambda m: parked[int(m[1])], s)


def _cells(line: str) -> list[str]:
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


def _is_table(lines: list[str], i: int) -> bool:
    if "|" not in lines[i] or i + 1 >= len(lines) or "|" not in lines[i + 1]:
        return False
    return all(_SEP_CELL_RE.match(c) for c in _cells(lines[i + 1]))


def _table(rows: list[list[str]], aligns: list[str]) -> str:
    def cell(tag: str, i: int, text: str) -> str:
        cls = f' class="{aligns[i]}"' if i < len(aligns) and aligns[i] else ""
        return f"<{tag}{cls}>{_inline(text)}</{tag}>"

    width = len(rows[0])
    head = "".join(cell("th", i, t) for i, t in enumerate(rows[0]))
    body = "".join(
        "<tr>"
        + "".join(cell("td", i, t) for i, t in enumerate((r + [""] * width)[:width]))
        + "</tr>"
        for r in rows[1:]
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


def _align(sep: str) -> str:
    s = sep.strip()
    if s.startswith(":") and s.endswith(":"):
        return "c"
    return "r" if s.endswith(":") else ""


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(
        FENCE_RE.match(line) or HEADING_RE.match(line) or _HR_RE.match(line)
        or _ITEM_RE.match(line) or _QUOTE_RE.match(line) or _DETAILS_OPEN_RE.match(line)
        or _is_table(lines, i)
    )  # fmt: skip


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _list(lines: list[str], start: int, shift: int) -> tuple[str, int]:
    """One list at the first item's indent; deeper lines become its items' nested blocks."""
    first = _ITEM_RE.match(lines[start])
    assert first is not None
    base, ordered = len(first[1]), first[2][0].isdigit()
    items: list[tuple[list[str], list[str]]] = []
    i = start
    while i < len(lines):
        line = lines[i]
        m = _ITEM_RE.match(line)
        if not line.strip():
            nxt = next((j for j in range(i, len(lines)) if lines[j].strip()), None)
            if nxt is None or (_indent(lines[nxt]) <= base and not _ITEM_RE.match(lines[nxt])):
                break
            i += 1
            continue
        if m and len(m[1]) <= base + 1:
            if len(m[1]) < base or m[2][0].isdigit() != ordered:
                break
            items.append(([m[3]], []))
        elif _indent(line) > base + 1 and items:
            items[-1][1].append(line)
        elif items and not _starts_block(lines, i) and not items[-1][1]:
            items[-1][0].append(line.strip())  # a lazy continuation line
        else:
            break
        i += 1
    out = []
    for text, children in items:
        nested = ""
        if children:
            cut = min(_indent(c) for c in children if c.strip())
            nested = _blocks([c[cut:] for c in children], shift)
        out.append(f"<li>{_inline(' '.join(text))}{nested}</li>")
    num = first[2][:-1] if ordered else "1"
    tag = "ol" if ordered else "ul"
    attr = f' start="{int(num)}"' if ordered and int(num) != 1 else ""
    return f"<{tag}{attr}>" + "".join(out) + f"</{tag}>", i


def _blocks(lines: list[str], shift: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif m := FENCE_RE.match(line):
            fence, body = m[1], []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            out.append(f"<pre><code>{_esc(chr(10).join(body))}</code></pre>")
            i += 1
        elif m := HEADING_RE.match(line):
            level = min(6, len(m[1]) + shift)
            out.append(f"<h{level}>{_inline(m[2])}</h{level}>")
            i += 1
        elif _HR_RE.match(line):
            out.append("<hr>")
            i += 1
        elif _ITEM_RE.match(line):
            block, i = _list(lines, i, shift)
            out.append(block)
        elif _QUOTE_RE.match(line):
            inner = []
            while i < len(lines) and (q := _QUOTE_RE.match(lines[i])):
                inner.append(q[1])
                i += 1
            out.append(f"<blockquote>{_blocks(inner, shift)}</blockquote>")
        elif _is_table(lines, i):
            aligns = [_align(c) for c in _cells(lines[i + 1])]
            rows = [_cells(line)]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_cells(lines[i]))
                i += 1
            out.append(_table(rows, aligns))
        elif (d := _DETAILS_OPEN_RE.match(line)) and (end := _details_end(lines, i)) is not None:
            inner = lines[i + 1 : end]
            summary = "Details" if d[1] is None else d[1]
            if d[1] is None and inner and (s := _SUMMARY_RE.match(inner[0])):
                summary, inner = s[1], inner[1:]
            out.append(
                f"<details><summary>{_inline(summary)}</summary>{_blocks(inner, shift)}</details>"
            )
            i = end + 1
        else:
            para = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
                para.append(lines[i].strip())
                i += 1
            out.append("<p>" + "\n".join(_inline(p) for p in para) + "</p>")
    return "\n".join(out)


def _details_end(lines: list[str], start: int) -> int | None:
    """The matching ``</details>``, or None: only balanced pairs become elements."""
    depth = 0
    for j in range(start, len(lines)):
        if _DETAILS_OPEN_RE.match(lines[j]):
            depth += 1
        elif _DETAILS_CLOSE_RE.match(lines[j]):
            depth -= 1
            if depth == 0:
                return j
    return None


def markdown_to_html(text: str, heading_shift: int = 0) -> str:
    """The Markdown judges write, as HTML that cannot carry a tag or attribute of theirs."""
    return _blocks(text.replace("\r\n", "\n").split("\n"), heading_shift)


def prose_html(text: str) -> str:
    """A debater's prose as written: escaped, blank lines split paragraphs, newlines kept."""
    paras = [
        p for p in re.split(r"\n(?:[ \t]*\n)+", text.replace("\r\n", "\n").strip()) if p.strip()
    ]
    return "\n".join("<p>" + _esc(p).replace("\n", "<br>\n") + "</p>" for p in paras)


# -- the page ------------------------------------------------------------------------------
