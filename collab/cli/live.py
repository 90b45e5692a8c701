"""A debate as it runs, drawn from its events (``collab.event/1``): the same view for
``collab debate`` and for ``collab watch ID`` following a run started elsewhere.

Chatter on stderr, the Judge's summary on stdout. On a terminal, a turn in progress is a
live preview of its last lines (both sides of a blind round at once), replaced by the
turn's final rendering when it ends. Every model and user string is cleaned
(``collab.text.clean``) before rich sees it; none is read as rich markup.
"""

from __future__ import annotations

import time

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from collab.cli.tables import ledger_table
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
from collab.ledger import open_blocking
from collab.report import fmt_cost
from collab.state import RunState
from collab.store import RunDir
from collab.text import clean, one_line

SIDE_STYLE = {"A": ("🔵", "blue"), "B": ("🔴", "red"), "judge": ("⚖", "magenta")}
PREVIEW_LINES = 6


def terminal_markdown(text: str) -> Markdown:
    """Model Markdown for the terminal: cleaned, and a link printed as ``text (target)``,
    never a clickable link whose text hides where it goes."""
    return Markdown(clean(text), hyperlinks=False)


class _Running:
    def __init__(self, title: str, started: float) -> None:
        self.title = title
        self.started = started
        self.text = ""
        self.elapsed = 0.0


class DebateView:
    """Feed it events in order (``handle``); it prints what a person wants to see."""

    def __init__(self, err: Console | None = None, out: Console | None = None) -> None:
        self.err = err or Console(stderr=True)
        self.out = out or Console()
        self.roles: dict[str, str] = {"A": "Role A", "B": "Role B"}
        self.running: dict[str, _Running] = {}
        self.live: Live | None = None
        self.exit_code: int | None = None

    def handle(self, logged: Logged) -> None:
        """One event of the run (a kind this version does not know shows nothing)."""
        ev = logged.event
        match ev:
            case RunStarted():
                self._run_started(ev)
            case Planned():
                for line in ev.lines:
                    self._print(Text(clean(line), style="dim"))
            case RoundStarted():
                self._print(Rule(f"Round {ev.round}/{ev.total}", characters="─"))
            case TurnStarted():
                icon, _ = SIDE_STYLE.get(ev.side, ("", ""))
                title = f"{icon} Role {ev.side} ({one_line(ev.role, 60)})"
                self.running[ev.side] = _Running(title, time.monotonic())
                self._refresh()
            case TextAdded():
                turn = self.running.get(ev.side)
                if turn is not None:
                    turn.text += clean(ev.text)
                    self._refresh()
            case Heartbeat():
                turn = self.running.get(ev.side)
                if turn is not None:
                    turn.elapsed = ev.elapsed_s
                    self._refresh()
            case TurnRetry():
                self._turn_retry(ev)
            case TurnFinished():
                self._turn_finished(ev)
            case RunWarning():
                self.warn(ev.text)
            case LedgerUpdated():
                self._print(ledger_table(ev.ledger, title=f"Issue ledger after round {ev.round}"))
            case AngleInjected():
                self._angle(ev)
            case Stopped():
                detail = one_line(ev.detail, 300)
                self._print(Text(f"■ stopped: {ev.reason} — {detail}", style="bold"))
            case JudgeStarted():
                self._print(Rule("Judge", characters="─"))
                self.running["judge"] = _Running("⚖ The Judge", time.monotonic())
                self._refresh()
            case JudgeFinished():
                self._judge_finished(ev)
            case RunFinished():
                self.running.clear()
                self._stop_live()
                self.exit_code = ev.exit_code
            case FavoursFlipped():
                self._print(Text(f"⇄ {flip_line(ev)}", style="bold magenta"))
            case FollowupStarted():
                self._print(Rule(f"Follow-up · {_who(ev.side)}", characters="─"))
                self._print(Text(f"? {one_line(ev.question, 500)}", style="bold"))
                self.running[ev.side] = _Running(f"↳ {_who(ev.side)}", time.monotonic())
                self._refresh()
            case FollowupFinished():
                self.running.pop(ev.side, None)
                status = "" if ev.status == "ok" else f" · {ev.status}"
                head = Text(f"↳ {_who(ev.side)}{status}", style="bold")
                self._print(Group(head, terminal_markdown(clean(ev.answer))))
            case RoundsAdded():
                note = f" — note: {one_line(ev.note, 300)}" if ev.note else ""
                self._print(
                    Text(f"＋ {ev.rounds} more round(s) from round {ev.round}{note}", "bold")
                )

    def warn(self, text: str) -> None:
        self._print(Text(f"⚠ {clean(text)}", style="yellow"))

    def close(self) -> None:
        self._stop_live()

    # -- the run ---------------------------------------------------------------------------
    def _run_started(self, ev: RunStarted) -> None:
        self.roles = {s: one_line(ev.roles[s], 80) for s in ("A", "B")}
        head = Text()
        if ev.continued:
            more = f"{ev.continued} more round{'s' if ev.continued > 1 else ''}"
            head.append(f"Continuing debate ({more})\n", style="bold")
        else:
            head.append("Resuming debate\n" if ev.resumed else "Debate\n", style="bold")
        head.append(clean(ev.topic) + "\n\n", style="bold cyan")
        for side in ("A", "B"):
            icon, colour = SIDE_STYLE[side]
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

    def _turn_retry(self, ev: TurnRetry) -> None:
        msg = Text(f"↻ Role {ev.side}: {ev.reason}, retrying once", style="yellow")
        if ev.detail:
            msg.append("\n" + clean(ev.detail), style="dim")
        turn = self.running.get(ev.side)
        if turn is not None:
            turn.text = ""
        self._print(msg)

    def _turn_finished(self, ev: TurnFinished) -> None:
        self.running.pop(ev.side, None)
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
            moves.append(f"  + {one_line(title, 120)}\n", style="green")
        for stance in ev.stances:
            moves.append(f"  {stance.stance} {stance.id}\n", style="cyan")
        if ev.abstain:
            moves.append(f"  abstains: {one_line(ev.abstain, 300)}\n", style="yellow")
        if moves.plain:
            parts.append(moves)
        self._print(Group(*parts))
        self._print(Text(""))

    def _angle(self, ev: AngleInjected) -> None:
        ids = ", ".join(ev.issue_ids)
        text = one_line(ev.text, 500)
        self._print(
            Text(
                f"↺ {ids} went round in circles; new angle for round {ev.round}: {text}", "magenta"
            )
        )

    def _judge_finished(self, ev: JudgeFinished) -> None:
        self.running.pop("judge", None)
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
        if not self.running:
            self._stop_live()

    def _refresh(self) -> None:
        if not self.err.is_terminal or not self.running:
            self._stop_live()
            return
        if self.live is None:
            self.live = Live(console=self.err, refresh_per_second=8, transient=True)
            self.live.start()
        self.live.update(self._preview())

    def _preview(self) -> RenderableType:
        now = time.monotonic()
        panels = []
        for side, turn in self.running.items():
            lines = turn.text.rstrip().splitlines()[-PREVIEW_LINES:]
            body = Text("\n".join(lines) if lines else "⋯ waiting for the first words", "dim")
            elapsed = max(turn.elapsed, now - turn.started)
            _, colour = SIDE_STYLE.get(side, ("", "white"))
            panels.append(
                Panel(
                    body,
                    title=f"{turn.title} · {elapsed:.0f}s",
                    title_align="left",
                    border_style=colour,
                )
            )
        return Columns(panels, expand=True) if len(panels) > 1 else panels[0]

    def _stop_live(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def flip_line(ev: FavoursFlipped) -> str:
    return f"Role {ev.side} now favours {ev.new} (was {ev.old}) in round {ev.round}"


def _who(side: str) -> str:
    return "the Judge" if side == "judge" else f"Role {side}"


def print_outcome(state: RunState, run_dir: RunDir, err: Console | None = None) -> None:
    """The last line of a debate on stderr: where it stopped, what it cost, where it is."""
    err = err or Console(stderr=True)
    err.print(
        Text(
            f"run {state.run_id} · {state.stop_reason} · verdict {state.verdict()} · "
            + (f"{n} open blocking · " if (n := open_blocking(state.ledger())) else "")
            + f"{state.rounds_done()} rounds · "
            f"cost {fmt_cost(state.cost_usd(), state.cost_estimated())} · saved in {run_dir.path}",
            style="dim",
        )
    )
    if state.status == "failed":
        err.print(Text(f"collab: run failed: {state.error}", style="red"))
