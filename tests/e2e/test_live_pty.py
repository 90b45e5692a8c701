"""The live view on a real terminal (a pty, 100×30): ``collab debate`` against the fake
agent streaming its reply word by word. What reached the terminal is replayed on a small
screen model (the cursor moves and erases rich's live region uses): the contract never
reaches the screen, the clock runs before the first word, and Ctrl-C leaves no
half-drawn panel."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import FakeAgent, contract_block
from tests.helpers import JUDGE_REST

ROOT = Path(__file__).resolve().parents[2]
COLS, ROWS = 100, 30
ARGS = ["--agent", "fake-stream", "--judge-agent", "fake-stream", "--runner", "subprocess"]
PROSE = "Stateless tokens cannot be withdrawn before they expire. " * 4
_TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07]*\x07|(.)", re.S)


class Pty:
    """``collab ARGS`` on a pty; what it wrote, read as it comes."""

    def __init__(self, *args: str) -> None:
        self.raw = b""
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
            os.environ.update(
                PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS=str(COLS), LINES=str(ROWS)
            )
            os.execv(sys.executable, [sys.executable, "-m", "collab", *args])
        self.pid, self.fd = pid, fd

    def read_until(self, done: object, timeout: float = 60.0) -> bool:
        """Read until ``done(text)`` is true (or the end); False on the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if callable(done) and done(self.text()):
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child is gone: EIO
                    chunk = b""
                if not chunk:
                    return done is None
                self.raw += chunk
        return False

    def drain(self, quiet: float = 0.1, timeout: float = 5.0) -> None:
        """Read what was written until nothing more comes for ``quiet`` seconds, as a
        terminal shows everything before a person presses a key: a ^C makes the tty
        drop what it still holds unread (no NOFLSH), which no real screen would lose."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], quiet)
            if not ready:
                return
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.raw += chunk

    def finish(self) -> int:
        assert self.read_until(None), "collab did not end"
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def text(self) -> str:
        return self.raw.decode("utf-8", "replace")


def screen(text: str, cols: int = COLS) -> list[str]:
    """The lines a terminal shows (with its scrollback) after ``text``: printable
    characters by cell width with autowrap, CR, LF, cursor up, erase in line/below."""
    lines: list[list[str]] = [[]]
    row = col = 0
    wrap = False
    for m in _TOKEN.finditer(text):
        ch = m.group(3)
        while len(lines) <= row:
            lines.append([])
        if ch is None:
            arg, cmd = m.group(1), m.group(2)
            n = int(arg) if arg and arg.isdigit() else 1
            if cmd == "A":
                row, wrap = max(0, row - n), False
            elif cmd == "K":
                lines[row] = [] if arg == "2" else lines[row][:col]
            elif cmd == "J":
                lines[row] = lines[row][:col]
                del lines[row + 1 :]
            continue
        if ch == "\r":
            col, wrap = 0, False
        elif ch == "\n":
            row, col, wrap = row + 1, 0, False
        elif ch >= " ":
            width = cell_len(ch)
            if wrap or col + width > cols:
                row, col, wrap = row + 1, 0, False
                while len(lines) <= row:
                    lines.append([])
            line = lines[row]
            line.extend(" " * (col - len(line)))
            line[col : col + width] = [ch] + [""] * (width - 1)
            col += width
            wrap = col >= cols
    return ["".join(line).rstrip() for line in lines]


def script(fake: FakeAgent, sleep: float = 0.0, word_delay: float = 0.02) -> None:
    reply = PROSE + contract_block(new=[("Token revocation", "stolen tokens live on")])
    judge = "## TL;DR\n- Position 1 and Position 2 differ." + JUDGE_REST
    fake.script(
        [{"match": ["neutral judge"], "replies": [{"text": judge, "word_delay": 0.01}]}],
        {"text": reply, "word_delay": word_delay, "sleep": sleep},
    )


def test_a_streamed_debate_never_shows_the_contract_and_the_clock_runs(
    fake_agent: FakeAgent,
) -> None:
    script(fake_agent, sleep=2.2)
    term = Pty("debate", "Should we use JWTs?", "--rounds", "1", *ARGS)
    assert term.finish() == 0
    shown = term.text()
    assert "Stateless tokens" in shown and "recording its points" in shown
    assert "new_points" not in shown and '{"' not in shown  # at no moment
    assert "Position 1" not in shown  # the Judge's labels: role names as it streams
    # Before the first word, the panel's clock counts from the turn's start.
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)
    waiting = re.findall(r"· (\d+)s ─*╮\r?\n│ ⋯ waiting for the first words", plain)
    assert {"1", "2"} <= set(waiting), waiting  # the clock ran before the first word
    final = screen(shown)
    assert any("Issue ledger" in line for line in final)


@pytest.mark.parametrize(
    ("sleep", "word_delay", "seen"),
    [(30.0, 0.0, "waiting for the first words"), (0.0, 0.3, "Stateless tokens")],
    ids=["before-the-first-word", "while-it-streams"],
)
def test_ctrl_c_leaves_no_half_drawn_panel(
    fake_agent: FakeAgent, sleep: float, word_delay: float, seen: str
) -> None:
    script(fake_agent, sleep=sleep, word_delay=word_delay)
    term = Pty("debate", "Should we use JWTs?", "--rounds", "1", *ARGS)
    assert term.read_until(lambda t: seen in t)
    term.drain()  # what was drawn reached the screen before the key was pressed
    os.write(term.fd, b"\x03")
    assert term.finish() == 130
    final = screen(term.text())
    rule = max(n for n, line in enumerate(final) if "Round 1/1" in line)
    after = [line for line in final[rule + 1 :] if line.strip()]
    assert after, final
    assert not any(set(line) & set("╭╮╰╯│") for line in after), after
    assert "interrupted" in after[-1] or any("interrupted" in line for line in after)
