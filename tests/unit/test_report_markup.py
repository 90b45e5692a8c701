"""report.html's Markdown: the per-text memo keeps each kind of rendering apart."""

from __future__ import annotations

from collab.report.markup import markdown_html, prose_html


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
