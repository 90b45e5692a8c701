"""The console collab's chatter goes to: stderr, as rich draws it on a terminal; piped
or redirected (a CI log, ``2> run.log``), every line without the spaces rich pads it
with to the console's width, so a log holds the words and nothing after them."""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console


class Unpadded:
    """A text stream that passes lines on without their trailing spaces (a line is held
    until its newline, or until a flush)."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self._line = ""

    def write(self, text: str) -> int:
        *done, self._line = (self._line + text).split("\n")
        for line in done:
            self.target.write(line.rstrip(" ") + "\n")
        return len(text)

    def flush(self) -> None:
        if self._line:
            self.target.write(self._line)
            self._line = ""
        self.target.flush()

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return getattr(self.target, "encoding", None) or "utf-8"


def stderr_console() -> Console:
    """stderr for people: rich on a terminal, unpadded lines otherwise."""
    if sys.stderr.isatty():
        return Console(stderr=True)
    return Console(file=Unpadded(sys.stderr))  # type: ignore[arg-type]
