"""A run's Markdown for a person at a terminal: rendered by rich (wrapped at words, to the
terminal's width), and through the pager when it is longer than the screen.

The pager is ``$PAGER`` (as given: a command and its arguments), else ``less`` when there
is one; ``LESS`` is left as the user set it, and when it is unset it becomes ``-FRX`` (keep
colours, leave the text on screen, quit at once if it fits). A ``less`` told to show
escapes as text (a ``LESS`` without ``R``) gets the text without styles. With no pager,
or ``--no-pager``, the rendering goes straight to the terminal. ``NO_COLOR`` is honoured
as rich honours it. The pager is started by the standard library's ``pydoc.pipepager``:
the text goes to its stdin, never to its command line.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

from rich.console import Console

LESS_DEFAULT = "-FRX"


def show_markdown(text: str, *, page: bool, console: Console | None = None) -> None:
    """``text`` rendered on ``console`` (stdout), paged when taller than the screen."""
    from collab.cli.live import terminal_markdown  # the same rendering as the live view

    console = console or Console()
    pager = _pager() if page else None
    styled = pager is None or _styles_ok(pager)
    with console.capture() as captured:
        console.print(terminal_markdown(text), no_wrap=False)
    rendered = captured.get()
    if pager is None or rendered.count("\n") <= console.size.height:
        console.file.write(rendered)
        console.file.flush()
        return
    if not styled:
        plain = Console(width=console.width, no_color=True, force_terminal=False)
        with plain.capture() as captured:
            plain.print(terminal_markdown(text))
        rendered = captured.get()
    import pydoc

    os.environ.setdefault("LESS", LESS_DEFAULT)
    sys.stdout.flush()
    pydoc.pipepager(rendered, pager)


def _pager() -> str | None:
    """The pager's command line, or None (no pager to be had)."""
    given = os.environ.get("PAGER", "").strip()
    if given:
        return given
    return "less" if shutil.which("less") else None


def _styles_ok(pager: str) -> bool:
    try:
        words = shlex.split(pager)
    except ValueError:
        return True
    if not words or os.path.basename(words[0]) != "less":
        return True
    flags = os.environ.get("LESS")
    flags = LESS_DEFAULT if flags is None else flags
    return "R" in flags or "r" in flags or any(w in ("-R", "-r") for w in words[1:])
