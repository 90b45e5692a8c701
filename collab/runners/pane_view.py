"""The live view in a turn's tmux pane: the reply as it is written, as readable text.

Started by the turn script next to the agent, with generated paths only:
``python -S -E -c … ROOT DIR STEP``. It reads ``STEP.view`` (title, output kind),
follows ``STEP.out`` while the agent writes it, and when ``STEP.exit`` appears prints
the one-line summary the orchestrator leaves in ``STEP.summary`` (or the exit status).
A turn replaces the pane's process, which clears the screen: what the pane's previous turn
brought (its title and summary, ``STEP.before``, left by the tmux runner) is shown first.
It never reads stdin, so what is typed into the pane for the next turn waits for bash.
The turn's reply is always taken from the output file, never from this screen.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from collab.agents.catalogue import decoder_for
from collab.runners.turnfiles import OutputTail
from collab.text import clean, one_line

POLL = 0.01
# At the end of a turn the next one waits for this view to finish: look often.
END_POLL = 0.004
SUMMARY_WAIT = 1.5
# What the pane shows of one turn when the turn names no cap (it names the reply cap).
VIEW_LIMIT = 20_000

_DIM, _BOLD, _RESET, _CLEAR = "\033[2m", "\033[1m", "\033[0m", "\r\033[2K"


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        return
    run(Path(argv[0]), argv[1], sys.stdout)


def run(d: Path, step: str, out: object) -> None:
    write = out.write  # type: ignore[attr-defined]
    flush = out.flush  # type: ignore[attr-defined]
    try:
        header = json.loads((d / f"{step}.view").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        header = {}
    title = one_line(str(header.get("title") or step), 200)
    limit = header.get("limit")
    decoder = decoder_for(
        str(header.get("output") or "text"), limit if isinstance(limit, int) else VIEW_LIMIT
    )
    tail = OutputTail(d / f"{step}.out")
    exit_path = d / f"{step}.exit"
    started = time.monotonic()
    before = _read(d / f"{step}.before")
    if before:
        write(f"{_DIM}{clean(before)}{_RESET}\n")
    write(f"{_BOLD}{title}{_RESET}\n")
    flush()
    shown = False
    next_tick = 0.0
    while True:
        done = exit_path.exists()
        text = clean(decoder.feed(tail.read_new()))
        now = time.monotonic()
        if text:
            if not shown:
                write(_CLEAR)
                shown = True
            write(text)
            flush()
        elif not shown and now >= next_tick:
            write(f"{_CLEAR}{_DIM}⋯ waiting for the first words · {now - started:.0f}s{_RESET}")
            flush()
            next_tick = now + 1.0
        if done:
            break
        time.sleep(POLL)
    write(_CLEAR if not shown else "\n")
    summary = _summary(d, step)
    if summary is None:
        code = _read(exit_path).strip() or "?"
        summary = f"exit {code} · {time.monotonic() - started:.1f}s"
    write(f"{_DIM}── {summary}{_RESET}\n\n")
    flush()


def remember_previous(d: Path, previous: str, step: str) -> None:
    """Leave ``step`` what the same pane showed of ``previous`` (its title and summary),
    which the new turn's view shows first: nothing else survives the pane's respawn."""
    try:
        header = json.loads((d / f"{previous}.view").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    title = one_line(str(header.get("title") or previous), 200)
    summary = one_line(_read(d / f"{previous}.summary"), 300)
    text = f"{title}\n── {summary}" if summary else title
    fd = os.open(d / f"{step}.before", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _summary(d: Path, step: str) -> str | None:
    path = d / f"{step}.summary"
    end = time.monotonic() + SUMMARY_WAIT
    while time.monotonic() < end:
        if path.exists():
            return one_line(_read(path), 300)
        time.sleep(END_POLL)
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
