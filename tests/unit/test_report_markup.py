"""report.html's Markdown: the plain-paragraph shortcut is the parser's own output, and the
per-text memo keeps each kind of rendering apart."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from collab.report.markup import _parser, _plain, markdown_html, prose_html

# Letters and digits with every character that can start a block or inline markup, the
# spaces the parser strips, and the line and paragraph breaks.
PIECES = [
    "a", "Word", "é", "日本", "1", "42", " ", "  ", "\n", "\n\n", ".", ")", ",", "!", "?", "'",
    '"', "(", "-", "+", "=", "#", ":", "@", "$", "%", "^", "{", "}", "/", "*", "_", "`", "~",
    "[", "]", "<", ">", "&", "|", "\\", "\t", "\u00a0", "\u3000", "===", "---", "1.", "2)",
    "１.", "٣)",
]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)


@settings(max_examples=300, deadline=None)  # pure and cheap: ~1 ms an example
@given(TEXTS, st.booleans())
@example("My argument.", True)
@example('Two lines\nof prose.\n\n\nA second paragraph, 50% (ok)? "Yes" > no.', True)
@example("1999 was a year\n2) not a list here", False)
@example("1. a list", True)
@example("line\n===", False)
@example("trailing  \nspace", True)
def test_the_plain_paragraph_shortcut_is_what_the_parser_makes(text: str, breaks: bool) -> None:
    made = _plain(text, breaks=breaks)
    if made is not None:
        assert made == _parser(raw_html=False, breaks=breaks).render(text)


@pytest.mark.parametrize(
    "text",
    ["My argument.", "", "\n\n", "Two lines\nof prose.\n\nA second, 50% (ok)? \"Yes\" > no.",
     "Über 2024: café — 日本語です。"],
)  # fmt: skip
def test_plain_prose_takes_the_shortcut(text: str) -> None:
    for breaks in (True, False):
        made = _plain(text, breaks=breaks)
        assert made is not None
        assert made == _parser(raw_html=False, breaks=breaks).render(text)


@pytest.mark.parametrize(
    "text",
    ["# h", "- item", "1. one", "> q", "    code", "a *b*", "a_b", "`c`", "[l](http://x)",
     "a & b", "a <b>", "~~s~~", "a | b", "a\\b", "a\tb", "a\u00a0b", "x  \ny", " x", "=\nx"],
)  # fmt: skip
def test_any_markup_goes_to_the_parser(text: str) -> None:
    assert _plain(text, breaks=True) is None


def test_each_kind_of_rendering_is_kept_apart() -> None:
    text = "# Title\n<details><summary>s</summary>x</details>\nline\nnext"
    prose = str(prose_html(text))
    shifted = str(markdown_html(text, heading_shift=1))
    plain = str(markdown_html(text))
    raw = str(markdown_html(text, raw_html=True))
    assert "<h3>" in prose and "<br>" in prose
    assert "<h2>" in shifted and "<br>" not in shifted and "&lt;details&gt;" in shifted
    assert "<h1>" in plain and "&lt;details&gt;" in plain
    assert "<h1>" in raw and "<details>" in raw
    # asked again, in another order: the same answers
    assert str(markdown_html(text, raw_html=True)) == raw
    assert str(markdown_html(text, heading_shift=1)) == shifted
    assert str(prose_html(text)) == prose
    assert str(markdown_html(text)) == plain
