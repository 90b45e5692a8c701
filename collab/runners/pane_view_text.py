"""What the pane's live view makes of a reply as it streams: the contract block hidden,
prose word-wrapped to the pane's display width. Pure: no I/O; fed text deltas split
anywhere (a fence may arrive one backtick at a time).

The contract block is where ``collab.contract_parse`` looks for it: a fenced block tagged
``json`` (any case), an untagged fenced block whose body starts with ``{``, or a bare
object whose first line names a contract key. From its first line on the pane shows one
line, ``recording its points…``, once; text after the block's closing fence is shown
again (a sign-off). Any other fenced block (code in the prose) is shown as it is.

Not :func:`collab.live_text.shown`, the main view's rule: that one recomputes the whole
text for a panel that is redrawn, so a tentative state (a delta that ends at a ``{``)
may show the block's line and take it back; a pane can only be appended to, so here
nothing is printed that may be taken back (a line that may open the block waits).

Wrapping counts display cells (East Asian wide and full-width characters take two, marks
and format characters none); Latin text breaks only at spaces, except a word longer than
a line; a wide character may start a new line anywhere.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

RECORDING = "recording its points…"

_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_CLOSE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")
_CONTRACT_KEY = re.compile(r'"(new_points|stances|abstain)"')  # contract.TOP_KEYS
# A line start that may still become a fence or a bare contract object: hold it back.
_MAYBE = re.compile(r"^[ \t]*(`{1,}|~{1,}|\{)")
_LINES = re.compile(r"(?<=\n)")

Piece = tuple[Literal["text", "marker"], str]


class ContractHider:
    """Feed it text deltas; it returns what the pane may show, in order: prose as
    ``("text", s)`` and, once, ``("marker", RECORDING)`` where the block began."""

    def __init__(self) -> None:
        self._line = ""  # the current line, held back while it may open the block
        self._line_shown = False  # part of the current line is already out: not a line start
        self._state: Literal["prose", "code", "block", "bare", "maybe_fence", "maybe_brace"]
        self._state = "prose"
        self._fence = ""  # the open fence of a code block or of the contract block
        self._held: list[str] = []  # whole lines held while undecided
        self.marked = False

    def feed(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        for part in _LINES.split(text):
            if not part:
                continue
            if self._line_shown:
                # The rest of a line already being shown: no line start in it.
                self._emit_text(out, part)
                if part.endswith("\n"):
                    self._line_shown = False
                continue
            self._line += part
            if self._line.endswith("\n"):
                line, self._line = self._line, ""
                self._whole_line(out, line)
            else:
                self._partial(out)
        return out

    def finish(self) -> list[Piece]:
        """The end of the reply: what was held back and is not the block."""
        out: list[Piece] = []
        if self._state in ("maybe_fence", "maybe_brace"):
            for held in self._held:
                self._emit_text(out, held)
            self._held = []
            self._state = "prose"
        if self._line and self._state in ("prose", "code"):
            self._emit_text(out, self._line)
        self._line = ""
        return out

    # -- lines -------------------------------------------------------------------------
    def _whole_line(self, out: list[Piece], line: str) -> None:
        body = line.rstrip("\n")
        state = self._state
        if state == "block":
            m = _CLOSE.match(body)
            if m and m["fence"][0] == self._fence[0] and len(m["fence"]) >= len(self._fence):
                self._state = "prose"
            return
        if state == "bare":
            return
        if state == "code":
            self._emit_text(out, line)
            m = _CLOSE.match(body)
            if m and m["fence"][0] == self._fence[0] and len(m["fence"]) >= len(self._fence):
                self._state = "prose"
            return
        if state == "maybe_fence":  # an untagged fence: its body's first line decides
            if body.lstrip().startswith("{"):
                self._start_block(out, "block")
            else:
                self._release_held(out, "code")
                self._whole_line(out, line)
            return
        if state == "maybe_brace":  # a lone "{": the next line decides
            if _CONTRACT_KEY.search(body):
                self._start_block(out, "bare")
            else:
                self._release_held(out, "prose")
                self._whole_line(out, line)
            return
        m = _OPEN.match(body)
        if m and not (m["fence"][0] == "`" and "`" in m["info"]):
            info = m["info"].strip().lower()
            self._fence = m["fence"]
            if info == "json":
                self._start_block(out, "block")
            elif info == "":
                self._held = [line]
                self._state = "maybe_fence"
            else:
                self._emit_text(out, line)
                self._state = "code"
            return
        stripped = body.lstrip()
        if stripped.startswith("{"):
            if _CONTRACT_KEY.search(body):
                self._start_block(out, "bare")
                return
            if stripped.rstrip() == "{":
                self._held = [line]
                self._state = "maybe_brace"
                return
        self._emit_text(out, line)

    def _partial(self, out: list[Piece]) -> None:
        """The current line so far (no newline yet): show it unless it may open a block."""
        line = self._line
        if self._state in ("block", "bare"):
            return
        if self._state == "maybe_fence":
            if not line.lstrip().startswith("{") and line.strip():
                self._release_held(out, "code")
                self._partial(out)
            elif line.lstrip().startswith("{"):
                self._start_block(out, "block")
            return
        if self._state == "maybe_brace":
            if _CONTRACT_KEY.search(line):
                self._start_block(out, "bare")
            return
        if self._state == "prose":
            m = _OPEN.match(line)
            if m and m["info"].strip().lower() == "json":
                self._fence = m["fence"]
                self._start_block(out, "block")
                return
            if line.lstrip().startswith("{") and _CONTRACT_KEY.search(line):
                self._start_block(out, "bare")
                return
        if _MAYBE.match(line) or not line.strip():
            return  # a fence (opening, or closing a code block) or a brace may follow
        # Plain prose (or a line inside a code block): out it goes.
        self._emit_text(out, line)
        self._line = ""
        self._line_shown = True

    def _start_block(self, out: list[Piece], state: Literal["block", "bare"]) -> None:
        self._held = []
        self._state = state
        if state == "block":
            # The rest of the fence line (if any) is part of the block.
            self._line = ""
        if not self.marked:
            self.marked = True
            out.append(("marker", RECORDING))

    def _release_held(self, out: list[Piece], state: Literal["prose", "code"]) -> None:
        for held in self._held:
            self._emit_text(out, held)
        self._held = []
        self._state = state

    def _emit_text(self, out: list[Piece], text: str) -> None:
        if self._state in ("block", "bare") or not text:
            return
        out.append(("text", text))


def cell_width(ch: str) -> int:
    """Display cells of one character: 2 for East Asian wide/full-width, 0 for marks and
    format characters, else 1."""
    if ord(ch) < 0x300:
        return 1
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


# Japanese punctuation and small kana that never start a line (kinsoku shori).
_NO_LINE_START = frozenset(
    "、。，．・：；？！）」』】〕〉》｝］ー…‥ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々"
)


class Wrapper:
    """Word-wraps streamed text to ``width`` display cells. A word is held back until the
    space or newline after it arrives (or :meth:`flush`), so it is never split between
    lines unless it alone is longer than a line; a wide character is held until the next
    one, so that closing punctuation goes with it rather than start a line."""

    def __init__(self, width: int) -> None:
        self.width = max(8, width)
        self.col = 0
        self._word = ""
        self._word_w = 0
        self._wide = False  # the word held back is a wide character (and its punctuation)
        self._spaces = 0

    def feed(self, text: str) -> str:
        out: list[str] = []
        for ch in text:
            if ch == "\n":
                self._put_word(out)
                out.append("\n")
                self.col, self._spaces = 0, 0
            elif ch in " \t":
                self._put_word(out)
                self._spaces += 4 - (self.col + self._spaces) % 4 if ch == "\t" else 1
            else:
                w = cell_width(ch)
                if ch in _NO_LINE_START:  # stays with what is before it (kinsoku)
                    self._word += ch
                    self._word_w += w
                elif w == 2:  # a wide character breaks like a word of its own
                    self._put_word(out)
                    self._word, self._word_w, self._wide = ch, 2, True
                else:
                    if self._wide:
                        self._put_word(out)
                    self._word += ch
                    self._word_w += w
        return "".join(out)

    def flush(self) -> str:
        out: list[str] = []
        self._put_word(out)
        return "".join(out)

    def _put_word(self, out: list[str]) -> None:
        if not self._word:
            return
        word, ww = self._word, self._word_w
        self._word, self._word_w, self._wide = "", 0, False
        if self.col > 0 and self.col + self._spaces + ww > self.width:
            out.append("\n")
            self.col = 0
        elif (self.col > 0 or self._spaces) and self.col + self._spaces < self.width:
            out.append(" " * self._spaces)
            self.col += self._spaces
        self._spaces = 0
        if ww <= self.width - self.col:
            out.append(word)
            self.col += ww
            return
        # Longer than a line: cut it at the line's end, as often as it takes.
        for ch in word:
            w = cell_width(ch)
            if self.col + w > self.width:
                out.append("\n")
                self.col = 0
            out.append(ch)
            self.col += w
