"""A debate as it runs, drawn from its events (``collab.event/1``): the same view for
``collab debate`` and for ``collab watch ID`` following a run started elsewhere.

Chatter on stderr, the Judge's summary on stdout. On a terminal, a turn in progress is a
live preview of its last lines, replaced by the turn's final rendering when it ends.
Every model and user string is cleaned (``collab.text.clean``) before rich sees it; none
is read as rich markup.

The preview (:class:`Preview`) shows what :func:`collab.live_text.shown` allows: never
the contract, and the Judge's "Position N" already as the role's name. The seats that
answer at once keep one place until the last is printed (round 1's, blind by default,
from the round's start): side by side when each gets ``MIN_COLUMN`` columns, else
stacked; always in seat order, and their finished turns are printed in that order too
(a seat done early waits for the ones before it).
Each turn's clock runs from the turn's start. The live region ends on an empty line and
leaves the last two columns free, so a ``^C`` echoed by the terminal (after a redraw or in
the middle of one) cannot push it out of place, and once the view is closed
(Ctrl-C included) nothing more is drawn, whichever thread reports late.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.text import Text

from collab.cli.console import stderr_console
from collab.cli.tables import SeatStance, clip_words, ledger_changes, ledger_table
from collab.events import (
    AngleInjected,
    FavoursFlipped,
    FollowupFinished,
    FollowupStarted,
    Heartbeat,
    JudgeFinished,
    JudgeStarted,
    LedgerUpdated,
    Logged,
    Planned,
    RoundsAdded,
    RoundStarted,
    RunFinished,
    RunStarted,
    RunWarning,
    Stopped,
    TurnFinished,
    TurnRetry,
    TurnStarted,
)
from collab.events import Text as TextAdded
from collab.ledger import Ledger
from collab.live_text import RECORDING, shown
from collab.outcome import FINISHING_REASONS
from collab.report import fmt_cost
from collab.seats import SIDES, Side
from collab.text import clean, one_line

SIDE_STYLE = {
    "A": ("🔵", "blue"),
    "B": ("🔴", "red"),
    "C": ("🟢", "green"),
    "D": ("🟡", "yellow"),
    "E": ("🟣", "bright_magenta"),
    "judge": ("⚖", "magenta"),
}
PREVIEW_LINES = 6
MIN_COLUMN = 40  # a seat's preview beside another's needs this many columns, else stacked
TAIL_CHARS = 2000  # of a turn's text, at most this much is wrapped for its panel


def terminal_markdown(text: str) -> Markdown:
    """Model Markdown for the terminal: cleaned, and a link printed as ``text (target)``,
    never a clickable link whose text hides where it goes."""
    return Markdown(clean(text), hyperlinks=False)


@dataclass
class _Turn:
    """A turn the preview shows: started (wall clock, the event's time) or still to
    start; its text so far; finished (and waiting to be printed in seat order)."""

    seat: str
    title: str
    started: float | None = None
    text: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    elapsed: float = 0.0  # the driver's own count (heartbeats)
    finished: TurnFinished | None = None
    printed: bool = False  # its final rendering is above the preview


@dataclass(frozen=True)
class _Slot:
    """What one panel of the preview draws: a snapshot, so the refresh thread never
    reads what the event thread is changing."""

    seat: str
    title: str
    started: float | None
    elapsed: float
    body: str
    done_s: float | None
    printed: bool


ECHO_ROOM = len("^C")


class Preview:
    """The live region: one panel a running seat, in a layout fixed by the number of
    seats and the width; each panel's clock is read when it is drawn."""

    def __init__(self, slots: Sequence[_Slot], clock: Callable[[], float]) -> None:
        self.slots = tuple(slots)
        self.clock = clock

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Two columns stay free on the right: a ^C the terminal echoes while a redraw is
        # being written (a large write reaches the terminal in pieces) shifts the rest of
        # that line two cells; at the full width the line would then wrap, and everything
        # after it, the next redraw included, would land one line lower than drawn.
        width, n = max(options.max_width - ECHO_ROOM, 1), len(self.slots)
        if not n:
            return
        beside = n == 1 or options.max_width // n >= MIN_COLUMN
        if beside:
            lines = PREVIEW_LINES
            widths = [width // n + (1 if i < width % n else 0) for i in range(n)]
        else:
            room = max(console.size.height - 2, 3 * n)
            lines = max(1, min(PREVIEW_LINES, room // n - 2))
            widths = [width] * n
        now = self.clock()
        panels = [
            self._panel(s, w, lines, console, now) for s, w in zip(self.slots, widths, strict=True)
        ]
        if beside and n > 1:
            # Side by side: each panel drawn to its lines, the lines joined row by row
            # (cheaper than a table, which measures every cell again on each refresh).
            drawn = [
                console.render_lines(p, options.update(width=w, height=lines + 2), pad=True)
                for p, w in zip(panels, widths, strict=True)
            ]
            for row in zip(*drawn, strict=True):
                for segments in row:
                    yield from segments
                yield Segment.line()
        else:
            yield from panels
        yield Text("")  # the cursor rests here: an echoed ^C cannot wrap the panel above

    def _panel(self, slot: _Slot, width: int, lines: int, console: Console, now: float) -> Panel:
        _, colour = SIDE_STYLE.get(slot.seat, ("", "white"))
        if slot.done_s is not None:
            clock = f"done in {slot.done_s:.0f}s"
            said = "above" if slot.printed else "in seat order, when the seats before it are"
            body = Text(f"✓ finished: printed {said}", style="dim")
        elif slot.started is None:
            clock = "not started"
            body = Text("⋯ not started yet", style="dim")
        else:
            clock = f"{max(slot.elapsed, now - slot.started):.0f}s"
            body = Text(slot.body or "⋯ waiting for the first words", style="dim")
        inner = max(width - 4, 1)
        if len(body) > (lines + 2) * inner:  # wrap only the end that can show
            body = body[-(lines + 2) * inner :]
        wrapped = body.wrap(console, inner, overflow="fold")[-lines:]
        rows = Text("\n", style="dim", no_wrap=True, overflow="crop").join(wrapped)
        rows.append("\n" * (lines - len(wrapped)))
        title = Text(f"{slot.title} · {clock}")
        title.truncate(max(width - 6, 1), overflow="ellipsis")
        return Panel(
            rows,
            title=title,
            title_align="left",
            border_style=colour,
            width=width,
            height=lines + 2,
        )


class DebateView:
    """Feed it events in order (``handle``); it prints what a person wants to see.
    ``clock``: the wall clock the turns' times are measured on (events carry it)."""

    def __init__(
        self,
        err: Console | None = None,
        out: Console | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.err = err or stderr_console()
        self.out = out or Console()
        self.clock = clock
        self.roles: dict[str, str] = {"A": "Role A", "B": "Role B"}
        self.seats: tuple[Side, ...] = SIDES
        self.slots: list[_Turn] = []
        self.live: Live | None = None
        self.exit_code: int | None = None
        self.ledger = Ledger()
        self.stances: list[SeatStance] = []
        self.titles: dict[str, str] = {}  # issue id → title, for the stance lines
        self.ids_known = True  # the ledger so far was seen: new points' ids can be told
        self.full_ledger_shown = False
        self.closed = False
        self.resumed = False  # a resumed run's round 1 may have seats done already
        self._lock = threading.RLock()  # a blind round's turns report from two threads

    def handle(self, logged: Logged) -> None:
        """One event of the run (a kind this version does not know shows nothing)."""
        with self._lock:
            if not self.closed:
                self._handle(logged)

    def _handle(self, logged: Logged) -> None:
        ev = logged.event
        match ev:
            case RunStarted():
                self._run_started(ev)
            case Planned():
                for line in ev.lines:
                    self._print(Text(clean(line), style="dim"))
            case RoundStarted():
                self._flush(everything=True)
                self.stances = []
                self.full_ledger_shown = False
                order = (" · all at once" if ev.at_once else " · " + ", ".join(ev.order)) if (
                    ev.order) else ""  # fmt: skip
                self._print(Rule(f"Round {ev.round}/{ev.total}{order}", characters="─"))
                # Round 1 (blind by default): every seat's place is set before any starts.
                first = ev.round == 1 and not self.resumed
                self.slots = [_Turn(s, self._title(s)) for s in self.seats] if first else []
                self._refresh()
            case TurnStarted():
                turn = self._slot(ev.side)
                if turn is None:  # a round not announced as blind, or a log from before
                    turn = _Turn(ev.side, self._title(ev.side, ev.role))
                    self.slots.append(turn)
                    self.slots.sort(key=lambda t: self._order(t.seat))
                turn.title, turn.started, turn.text = self._title(ev.side, ev.role), logged.ts, ""
                turn.finished, turn.printed = None, False
                self._refresh()
            case TextAdded():
                turn = self._slot(ev.side)
                if turn is not None and turn.finished is None:
                    turn.text += clean(ev.text)
                    self._refresh()
            case Heartbeat():
                turn = self._slot(ev.side)
                if turn is not None:
                    turn.elapsed = ev.elapsed_s
                    self._refresh()
            case TurnRetry():
                self._turn_retry(ev)
            case TurnFinished():
                turn = self._slot(ev.side)
                if turn is None:
                    self._turn_finished(ev)
                else:
                    turn.finished = ev
                    self._flush()
            case RunWarning():
                self.warn(ev.text)
            case LedgerUpdated():
                self._flush(everything=True)
                self._print(ledger_changes(self.ledger, ev.ledger, self.stances, ev.round))
                self.ledger = ev.ledger
                self.titles = {i.id: i.title for i in ev.ledger.issues}
                self.ids_known = True
            case AngleInjected():
                self._angle(ev)
            case Stopped():
                self._flush(everything=True)
                self._full_ledger()
                detail = one_line(ev.detail, 300)
                ended = "ended" if ev.reason in FINISHING_REASONS else "stopped"  # not an error
                self._print(Text(f"■ {ended}: {ev.reason} — {detail}", style="bold"))
            case JudgeStarted():
                self._flush(everything=True)
                self._full_ledger()
                self._print(Rule("Judge", characters="─"))
                judge = _Turn("judge", "⚖ The Judge", started=logged.ts, labels=ev.labels)
                self.slots = [judge]
                self._refresh()
            case JudgeFinished():
                self._judge_finished(ev)
            case RunFinished():
                self._flush(everything=True)
                self._stop_live()
                self.exit_code = ev.exit_code
            case FavoursFlipped():
                self._print(Text(f"⇄ {flip_line(ev)}", style="bold magenta"))
            case FollowupStarted():
                self._print(Rule(f"Follow-up · {_who(ev.side)}", characters="─"))
                self._print(Text(f"? {one_line(ev.question, 500)}", style="bold"))
                turn = _Turn(ev.side, f"↳ {_who(ev.side)}", started=logged.ts)
                self.slots = [t for t in self.slots if t.seat != ev.side] + [turn]
                self.slots.sort(key=lambda t: self._order(t.seat))
                self._refresh()
            case FollowupFinished():
                self.slots = [t for t in self.slots if t.seat != ev.side]
                self._refresh()
                status = "" if ev.status == "ok" else f" · {ev.status}"
                head = Text(f"↳ {_who(ev.side)}{status}", style="bold")
                self._print(Group(head, terminal_markdown(clean(ev.answer))))
            case RoundsAdded():
                note = f" — note: {one_line(ev.note, 300)}" if ev.note else ""
                self._print(
                    Text(f"＋ {ev.rounds} more round(s) from round {ev.round}{note}", "bold")
                )

    def warn(self, text: str) -> None:
        with self._lock:
            self._print(Text(f"⚠ {clean(text)}", style="yellow"))

    def close(self) -> None:
        """The end of the view (a finished run, or Ctrl-C): the preview is wiped and
        nothing is drawn after, whatever a turn's thread still reports."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            # A turn that finished while one before it ran is printed still (it is saved).
            held = [t.finished for t in self.slots if t.finished is not None and not t.printed]
            self.slots = []
            self._stop_live()
            for turn in held:
                self._turn_finished(turn)

    # -- the run ---------------------------------------------------------------------------
    def _run_started(self, ev: RunStarted) -> None:
        # A resumed run's ledger so far is not in this view: until its next round ends,
        # a stance shows its issue's id alone rather than a title guessed wrong.
        self.ids_known = not ev.resumed or (self.ids_known and bool(self.titles))
        self.resumed = ev.resumed
        self.seats = tuple(sorted(ev.roles))
        self.roles = {s: one_line(ev.roles[s], 80) for s in self.seats}
        head = Text()
        if ev.continued:
            more = f"{ev.continued} more round{'s' if ev.continued > 1 else ''}"
            head.append(f"Continuing debate ({more})\n", style="bold")
        else:
            head.append("Resuming debate\n" if ev.resumed else "Debate\n", style="bold")
        head.append(clean(ev.topic) + "\n\n", style="bold cyan")
        for side in self.seats:
            icon, colour = SIDE_STYLE.get(side, ("", ""))
            head.append(f"{icon} Role {side} ", style=colour)
            head.append(self.roles[side] + "\n")
        head.append(
            f"preset {ev.preset} · {ev.rounds} rounds · runner {ev.runner} · run {ev.run_id}",
            style="dim",
        )
        if ev.note:
            head.append(f"\nnote from the person who decides: {one_line(ev.note, 300)}")
        self._print(Panel(head, expand=False))
        if ev.attach:
            self._print(Text(f"watch the turns: {ev.attach}", style="dim"))

    def _title(self, seat: str, role: str | None = None) -> str:
        icon, _ = SIDE_STYLE.get(seat, ("", ""))
        return f"{icon} Role {seat} ({one_line(role or self.roles.get(seat, ''), 60)})"

    def _order(self, seat: str) -> int:
        order: dict[str, int] = {s: n for n, s in enumerate(self.seats)}
        return order.get(seat, len(order))

    def _slot(self, seat: str) -> _Turn | None:
        return next((t for t in self.slots if t.seat == seat), None)

    def _turn_retry(self, ev: TurnRetry) -> None:
        msg = Text(f"↻ Role {ev.side}: {ev.reason}, retrying once", style="yellow")
        if ev.detail and ev.reason != "timeout":  # "no reply within Ns": said once, at the end
            msg.append("\n" + clean(ev.detail), style="dim")
        turn = self._slot(ev.side)
        if turn is not None:
            turn.text = ""
        self._print(msg)

    def _flush(self, everything: bool = False) -> None:
        """Print the finished turns in seat order: each once every seat before it is
        printed (``everything``: the round is over, print what finished, drop the rest)."""
        for turn in self.slots:
            if turn.finished is None and not everything:
                break
            if turn.finished is not None and not turn.printed:
                self._turn_finished(turn.finished)
                turn.printed = True
        # A printed seat keeps its place (the layout holds) until every seat is printed.
        if everything:
            self.slots = [t for t in self.slots if t.seat == "judge" and t.finished is None]
        elif all(t.printed for t in self.slots):
            self.slots = []
        self._refresh()

    def _turn_finished(self, ev: TurnFinished) -> None:
        icon, colour = SIDE_STYLE.get(ev.side, ("", ""))
        head = Text(f"{icon} Role {ev.side} ({one_line(ev.role, 60)})", style=f"bold {colour}")
        head.append(
            f"  {ev.duration_s:.1f}s · {fmt_cost(ev.cost_usd, ev.cost_estimated)}", style="dim"
        )
        if ev.status != "ok":
            head.append(f" · {ev.status}", style="yellow")
        parts: list[RenderableType] = [head, terminal_markdown(ev.prose)]
        moves = Text()
        for title in ev.new_points:
            # Ids are given in creation order: the next free one, unless the round's
            # ledger has already said otherwise.
            if self.ids_known:
                self.titles.setdefault(f"I{len(self.titles) + 1}", title)
            moves.append(f"  + {clip_words(title, 120)}\n", style="green")
        for stance in ev.stances:
            self.stances.append(SeatStance(ev.side, stance.id, stance.stance))
            known = self.titles.get(stance.id)
            named = f' "{clip_words(known, 80)}"' if known else ""
            moves.append(f"  {stance.stance} {stance.id}{named}\n", style="cyan")
        if ev.abstain:
            moves.append(f"  abstains: {one_line(ev.abstain, 300)}\n", style="yellow")
        if ev.favours:
            moves.append(f"  favours {one_line(ev.favours, 20)}\n", style="cyan")
        if moves.plain:
            parts.append(moves)
        self._print(Group(*parts))
        self._print(Text(""))

    def _full_ledger(self) -> None:
        """The whole ledger with its evidence, once, where the debate ends."""
        if self.full_ledger_shown or not self.ledger.issues:
            return
        self.full_ledger_shown = True
        title = "Issue ledger, with the evidence"
        self._print(ledger_table(self.ledger, title=title, seats=self.seats))

    def _angle(self, ev: AngleInjected) -> None:
        ids = ", ".join(ev.issue_ids)
        text = one_line(ev.text, 500)
        self._print(
            Text(
                f"↺ {ids} went round in circles; new angle for round {ev.round}: {text}", "magenta"
            )
        )

    def _judge_finished(self, ev: JudgeFinished) -> None:
        self.slots = []
        self._stop_live()
        if ev.fallback:
            self.err.print(Text("(summary written from the ledger)", style="yellow"))
        text = clean(ev.markdown)
        if self.out.is_terminal:
            self.out.print(terminal_markdown(text))
        else:
            # Redirected (collab debate … > decision.md): the Markdown itself.
            self.out.file.write(text.rstrip() + "\n")
            self.out.file.flush()

    # -- the live preview ------------------------------------------------------------------
    def _print(self, renderable: RenderableType) -> None:
        if self.live is not None:
            self.live.console.print(renderable)  # above the live preview
        else:
            self.err.print(renderable)

    def preview(self) -> Preview:
        """What the live region shows now (a snapshot of the running turns)."""
        return Preview([self._snapshot(t) for t in self.slots], self.clock)

    def _snapshot(self, turn: _Turn) -> _Slot:
        seen = shown(turn.text, turn.labels)
        # Only the end is drawn: its last lines, and of a long paragraph its last words
        # (the panel is wrapped again at each refresh, four times a second).
        body = "\n".join(seen.text.rstrip().splitlines()[-PREVIEW_LINES:])[-TAIL_CHARS:]
        if seen.recording and not body.endswith(RECORDING):
            body += "\n" + RECORDING
        done = None if turn.finished is None else turn.finished.duration_s
        return _Slot(
            turn.seat, turn.title, turn.started, turn.elapsed, body.strip(), done, turn.printed
        )

    def _refresh(self) -> None:
        if not self.err.is_terminal or not self.slots:
            self._stop_live()
            return
        if self.live is None:
            self.live = Live(
                console=self.err, refresh_per_second=4, transient=True, vertical_overflow="crop"
            )
            self.live.start()
        self.live.update(self.preview())

    def _stop_live(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def flip_line(ev: FavoursFlipped) -> str:
    return f"Role {ev.side} now favours {ev.new} (was {ev.old}) in round {ev.round}"


def _who(side: str) -> str:
    return "the Judge" if side == "judge" else f"Role {side}"
