"""Model-written Markdown as HTML that carries nothing of the model's but text and plain markup.

markdown-it-py renders CommonMark (plus tables and strikethrough); nh3, the binding to the
ammonia sanitiser, then rebuilds the result from an allowlist. That second step is why the
output may enter the page unescaped (as :class:`~markupsafe.Markup`): nh3 parses the fragment
into a tree and serialises it again, so

- every element is one of ``TAGS`` (``script`` and ``style`` go with their content; any other
  tag is dropped and its text kept, escaped);
- the only attributes are ``href`` on ``a`` (absolute http, https or mailto, with ``rel``
  forced), ``start`` on ``ol`` and the layout classes in ``CLASSES``; no ``on*``, no ``style``,
  no ``id`` that could take one of the page's anchors;
- the tree is balanced, so a fragment can neither close the page's elements nor leave one of
  its own open over the rest of the page.

Raw HTML is parsed only in the Judge's own answer (it may fold a part away in
``<details>``); turn prose and the summary collab writes itself keep ``html`` off, so a tag
in them stays visible text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from collab.judge.answer import code_lines, section_of
from collab.text import clean

TAGS = frozenset({
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code",
    "em", "strong", "s", "del", "ul", "ol", "li", "a", "details", "summary",
    "table", "thead", "tbody", "tr", "th", "td", "div",
})  # fmt: skip
ATTRIBUTES = {"a": {"href"}, "ol": {"start"}}
CLASSES = {"div": {"scroll"}, "th": {"c", "r"}, "td": {"c", "r"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"

# A table column's alignment as one of the page's classes, not a style attribute.
_ALIGN = {"text-align:center": "c", "text-align:right": "r"}


@cache
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=set(TAGS),
        clean_content_tags={"script", "style"},
        attributes=ATTRIBUTES,
        allowed_classes=CLASSES,
        url_schemes=set(URL_SCHEMES),
        url_relative="deny",
        link_rel=LINK_REL,
        strip_comments=True,
    )


def _table_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return '<div class="scroll">' + self.renderToken(tokens, idx, options, env)


def _table_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


@cache
def _parser(*, raw_html: bool, breaks: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": raw_html, "breaks": breaks, "xhtmlOut": False})
    md.enable(["table", "strikethrough"])
    # The page loads no image (CSP, allowlist); ``![alt](url)`` stays a visible link instead.
    md.disable("image")
    # ``<scheme:…>`` autolinks would eat the brackets of text such as ``<<<END:REPLY>>>``
    # (and make a link of it): angle brackets stay text; ``[text](url)`` links still work.
    md.disable("autolink")
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


def _reshape(tokens: list[Token], heading_shift: int) -> None:
    """Headings pushed ``heading_shift`` levels down (at most h6); alignment as a class."""
    for tok in tokens:
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(6, int(tok.tag[1]) + heading_shift)}"
        elif tok.type in ("th_open", "td_open"):
            align = tok.attrs.pop("style", None)
            if isinstance(align, str) and align in _ALIGN:
                tok.attrSet("class", _ALIGN[align])


@lru_cache(maxsize=128)
def _render(text: str, *, raw_html: bool, breaks: bool, heading_shift: int) -> Markup:
    """The last texts' renderings kept: the seats' descriptions are on every page, and a
    run's reports are written again after a follow-up (the same prose). Pure: the text
    and the three options decide the result."""
    md = _parser(raw_html=raw_html, breaks=breaks)
    env: EnvType = {}
    tokens = md.parse(clean(text), env)
    _reshape(tokens, heading_shift)
    return Markup(_cleaner().clean(md.renderer.render(tokens, md.options, env)).strip())


def markdown_html(text: str, *, heading_shift: int = 0, raw_html: bool = False) -> Markup:
    """Markdown as safe HTML; ``raw_html`` lets allowlisted tags (``<details>``) through."""
    return _render(text, raw_html=raw_html, breaks=False, heading_shift=heading_shift)


def prose_html(text: str) -> Markup:
    """A debater's prose: Markdown without raw HTML, every newline kept as a line break.

    Its headings start at h3, below the page's "Round N"."""
    return _render(text, raw_html=False, breaks=True, heading_shift=2)


def demote_headings(md: str) -> str:
    """The Judge's ATX headings one level down, so they sit under our own section heading.

    The parser finds them, so a ``#`` inside a code fence stays as written."""
    md = re.sub(r"\r\n?", "\n", md)  # as the parser counts lines
    lines = md.split("\n")
    for tok in _parser(raw_html=True, breaks=False).parse(md):
        if (
            tok.type == "heading_open"
            and tok.level == 0
            and tok.map is not None
            and tok.markup.startswith("#")
            and len(tok.markup) < 6
        ):
            row = tok.map[0]
            lines[row] = "#" + lines[row].lstrip()
    return "\n".join(lines)


# The sections a reader needs first, in the Judge's English and Japanese headings.
ANSWER_FIRST = ("tldr", "crux")  # the keys of collab.judge.answer.REQUIRED_SECTIONS
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+")


@lru_cache(maxsize=8)
def answer_first(md: str) -> str:
    """The Judge's TL;DR and Crux sections moved to the top (after any note before the
    first section), the rest in the order written. Sections are found as the Judge check
    finds them (collab.judge.answer: any level, numbering or case, English or Japanese;
    a heading in a code fence that closes is none), cut at the level of the shallowest
    heading that names a required section (else at ``##``). The last answers kept: a run's
    page is written again with the same summary (after a follow-up)."""
    lines = md.splitlines()
    code = code_lines(lines)
    levels = {
        n: len(m.group(1)) for n, line in enumerate(lines)
        if n not in code and (m := _ATX.match(line))
    }  # fmt: skip
    found = {n: section_of(lines[n]) for n in levels}  # each heading's section, read once
    named = [level for n, level in levels.items() if found[n] is not None]
    cut = min(named, default=2)
    preamble: list[str] = []
    sections: list[tuple[int, list[str]]] = []  # (its heading's line number, its lines)
    for n, line in enumerate(lines):
        if levels.get(n) == cut:
            sections.append((n, [line]))
        elif sections:
            sections[-1][1].append(line)
        else:
            preamble.append(line)

    def rank(section: tuple[int, list[str]]) -> int:
        section_found = found[section[0]]
        key = None if section_found is None else section_found.key
        return ANSWER_FIRST.index(key) if key in ANSWER_FIRST else len(ANSWER_FIRST)

    ordered = sorted(sections, key=rank)  # stable: the others keep their order
    return "\n".join(preamble + [line for _, s in ordered for line in s]) + "\n"
