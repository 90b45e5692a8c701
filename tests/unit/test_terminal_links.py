"""A Markdown link from a model shows its target in the terminal: its text cannot hide it."""

from __future__ import annotations

import io

from rich.console import Console

from collab.cli.live import terminal_markdown


def test_a_link_shows_its_target_and_no_escape_gets_through() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    console.print(
        terminal_markdown("See [the docs](https://evil.example/steal) \x1b]52;c;eA==\x07")
    )
    text = out.getvalue()
    assert "the docs" in text and "https://evil.example/steal" in text
    assert "\x1b]8;" not in text  # no OSC 8 hyperlink whose text differs from its target
    assert "\x1b]52" not in text
