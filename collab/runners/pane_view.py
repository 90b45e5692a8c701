"""The live view in a tmux pane: one long-lived process per pane that starts each turn
and shows its reply as readable text.

The tmux runner makes the pane with this program as its only process (no shell, so
nothing is ever typed or echoed): ``python -S -E -c … ROOT DIR FIFO BASH``, generated
paths only. It reads turn names (``r1-A-1``, ours) from the fifo the runner writes;
for each it starts ``BASH DIR/STEP.sh`` as its child (the turn script: the agent's pid
and exit status go to files as with every runner), then shows the turn: ``STEP.view``
gives the title line, the pane title (seat and agent, set with the terminal's title
sequence, never a command line) and how the output streams; ``STEP.out`` is followed as
the agent writes it, the contract block replaced by one line, prose wrapped to the
pane's width; when the script ends, the one-line summary the orchestrator leaves in
``STEP.summary``. Turns follow each other in the same pane, so the last one stays above.

A turn script that ends without recording its exit status ends this view too: the pane
goes dead, which the runner's liveness probe reports as a lost pane. The fifo's writer
gone (collab ended): the view ends after the turn it shows. Keys typed into the pane
are not echoed and never read. The turn's reply is always taken from the output file,
never from this screen.
"""

from __future__ import annotations

# Only built-in modules here: the first turn's script is started before anything else
# is imported (a thread loads the rest meanwhile; see ``_preload``).
import os
import select
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from collab.agents.decoding import Decoder
    from collab.runners.pane_view_text import Piece, Wrapper

POLL = 0.01
END_POLL = 0.004
SUMMARY_WAIT = 1.5
# What the pane shows of one turn when the turn names no cap (it names the reply cap).
VIEW_LIMIT = 20_000

_DIM, _BOLD, _RESET, _CLEAR = "\033[2m", "\033[1m", "\033[0m", "\r\033[2K"


def main(argv: list[str]) -> None:
    """``ROOT DIR FIFO BASH``: run as a file (``python -I -S pane_view.py``), so that no
    package is imported before the first turn starts."""
    if len(argv) != 4:
        return
    root, d, fifo, bash = argv
    sys.path.insert(0, root)
    sys.setswitchinterval(0.001)  # a turn asked for is started at once, whatever loads
    fd = os.open(os.path.join(d, fifo), os.O_RDONLY)
    import threading

    threading.Thread(target=_preload, daemon=True).start()
    feed = _Steps(fd)
    out = sys.stdout
    while True:
        step = feed.next(None)
        if step is None:
            return
        if not step.replace("-", "").isalnum() or not step.isascii():
            continue  # not a turn name of ours (those are generated: r1-A-1, judge-1)
        pid = _start(bash, os.path.join(d, f"{step}.sh"))
        _quiet_terminal()
        from pathlib import Path

        if not show_turn(Path(d), step, pid, out, feed):
            sys.exit(1)  # the script died without its exit status: the pane goes dead


def _preload() -> None:
    """What showing a turn needs, loaded while the pane waits for its first turn."""
    import json  # noqa: F401
    import pathlib  # noqa: F401

    import collab.agents.catalogue
    import collab.runners.pane_view_text
    import collab.runners.turnfiles
    import collab.text  # noqa: F401


class _Steps:
    """Turn names from the fifo, one a line."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""
        self.closed = False

    def next(self, timeout: float | None) -> str | None:
        """The next name; None at end of input or when ``timeout`` passes first."""
        while b"\n" not in self.buf:
            if self.closed:
                return None
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            data = os.read(self.fd, 4096)
            if not data:
                self.closed = True
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("ascii", "replace").strip() or self.next(timeout)

    def pending(self, wait: float = 0.0) -> bool:
        """Is the next turn asked for (so nobody waits for this one's summary)? Waits up
        to ``wait`` seconds for it, woken at once when it comes."""
        if b"\n" in self.buf:
            return True
        if self.closed:
            time.sleep(wait)
            return False
        ready, _, _ = select.select([self.fd], [], [], wait)
        if ready:
            data = os.read(self.fd, 4096)
            if not data:
                self.closed = True
            self.buf += data
        return b"\n" in self.buf


def _start(bash: str, script: str) -> int:
    """The turn script as our child, its stdio on /dev/null (nothing of it reaches the
    screen). Our Ctrl-C handler is not inherited (exec resets it): bash gets the default,
    as a shell would give it."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                   (os.POSIX_SPAWN_DUP2, null, 2)]  # fmt: skip
        return os.posix_spawn(bash, [bash, script], dict(os.environ), file_actions=actions)
    finally:
        os.close(null)


def _quiet_terminal() -> None:
    """No echo of keys typed into the pane; Ctrl-C there does not end the view. Once."""
    global _quiet
    if _quiet:
        return
    _quiet = True
    import signal

    try:
        import termios

        attrs = termios.tcgetattr(0)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(0, termios.TCSANOW, attrs)
    except Exception:  # not a terminal (tests): nothing to quiet
        pass
    signal.signal(signal.SIGINT, lambda *_: None)


_quiet = False


def _columns(out: object) -> int:
    try:
        return os.get_terminal_size(out.fileno()).columns  # type: ignore[attr-defined]
    except (OSError, AttributeError, ValueError):
        return 80


def show_turn(d: Path, step: str, pid: int, out: object, feed: _Steps | None = None) -> bool:
    """Show turn ``step`` until its script (``pid``, our child) ends, then its summary.
    False when the script ended without writing its exit status."""
    # Imported once the turn's script is running: the first turn does not wait for them.
    import json

    from collab.agents.catalogue import decoder_for
    from collab.runners.pane_view_text import ContractHider, Wrapper
    from collab.runners.turnfiles import OutputTail
    from collab.text import clean, one_line

    write = out.write  # type: ignore[attr-defined]
    flush = out.flush  # type: ignore[attr-defined]
    try:
        header = json.loads((d / f"{step}.view").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        header = {}
    title = one_line(str(header.get("title") or step), 200)
    pane_title = one_line(str(header.get("pane_title") or title), 120)
    limit = header.get("limit")
    decoder: Decoder = decoder_for(
        str(header.get("output") or "text"), limit if isinstance(limit, int) else VIEW_LIMIT
    )
    tail = OutputTail(d / f"{step}.out")
    exit_path = d / f"{step}.exit"
    started = time.monotonic()
    hider = ContractHider()
    wrapper = Wrapper(_columns(out))
    write(f"\033]2;{pane_title}\033\\{_BOLD}{title}{_RESET}\n")
    flush()
    shown = False
    next_tick = 0.0
    ended = False
    while True:
        if not ended:
            ended = os.waitpid(pid, os.WNOHANG)[0] != 0
        text = clean(decoder.feed(tail.read_new()))
        pieces = hider.feed(text) if text else []
        if ended:
            pieces += hider.finish()
        now = time.monotonic()
        chunk = _render(pieces, wrapper, _columns(out), ended)
        if chunk:
            if not shown:
                write(_CLEAR)
                shown = True
            write(chunk)
            flush()
        elif not shown and now >= next_tick:
            write(f"{_CLEAR}{_DIM}⋯ waiting for the first words · {now - started:.0f}s{_RESET}")
            flush()
            next_tick = now + 1.0
        if ended:
            break
        time.sleep(POLL)
    if not exit_path.exists():
        write(f"{_CLEAR if not shown else chr(10)}{_DIM}── the turn's script ended early{_RESET}\n")
        flush()
        return False
    write(_CLEAR if not shown else ("\n" if wrapper.col else ""))
    summary = _summary(d, step, feed)
    if summary is None:
        code = _read(exit_path).strip() or "?"
        summary = f"exit {code} · {time.monotonic() - started:.1f}s"
    write(f"{_DIM}── {summary}{_RESET}\n\n")
    flush()
    return True


def _render(pieces: Sequence[Piece], w: Wrapper, columns: int, end: bool) -> str:
    """What the pane prints of ``pieces``: prose wrapped to ``columns``, the marker on a
    line of its own."""
    w.width = max(8, columns)
    parts: list[str] = []
    for kind, s in pieces:
        if kind == "marker":
            parts.append(w.flush())
            if w.col:
                parts.append("\n")
            parts.append(f"{_DIM}⋯ {s}{_RESET}\n")
            w.col = 0
        else:
            parts.append(w.feed(s))
    if end:
        parts.append(w.flush())
    return "".join(parts)


def _summary(d: Path, step: str, feed: _Steps | None) -> str | None:
    """The orchestrator's line for the turn, once written (it parses the reply first); not
    waited for once the pane's next turn is asked for."""
    from collab.text import one_line

    path = d / f"{step}.summary"
    end = time.monotonic() + SUMMARY_WAIT
    while time.monotonic() < end:
        if path.exists():
            return one_line(_read(path), 300)
        if feed is None:
            time.sleep(END_POLL)
        elif feed.pending(END_POLL):
            return None
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
