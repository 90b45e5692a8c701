"""A debate as it runs, drawn from its events (``collab.event/1``): the same view for
``collab debate`` and for ``collab watch ID`` following a run started elsewhere.

Chatter on stderr, the Judge's summary on stdout. On a terminal, a turn in progress is a
live preview of its last lines (both sides of a blind round at once), replaced by the
turn's final rendering when it ends. Every model and user string is cleaned
(``collab.text.clean``) before rich sees it; none is read as rich markup.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from collab.cli.tables import ledger_table
from collab.ledger import Issue, Ledger, open_blocking
from collab.report import fmt_cost
from collab.state import RunState
from collab.store import RunDir
from collab.text import clean, one_line

SIDE_STYLE = {"A": ("🔵", "blue"), "B": ("🔴", "red"), "judge": ("⚖", "magenta")}
PREVIEW_LINES = 6

_Event = Mapping[str, Any]


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

    def handle(self, ev: _Event) -> None:
        kind = str(ev.get("event", ""))
        method = getattr(self, "_on_" + kind, None)
        if method is not None:
            method(ev)

    def close(self) -> None:
        self._stop_live()

    # -- the run ---------------------------------------------------------------------------
    def _on_run_started(self, ev: _Event) -> None:
        roles = ev.get("roles") or {}
        self.roles = {s: one_line(str(roles.get(s, f"Role {s}")), 80) for s in ("A", "B")}
        head = Text()
        head.append("Resuming debate\n" if ev.get("resumed") else "Debate\n", style="bold")
        head.append(clean(str(ev.get("topic", ""))) + "\n\n", style="bold cyan")
        for side in ("A", "B"):
            icon, colour = SIDE_STYLE[side]
            head.append(f"{icon} Role {side} ", style=colour)
            head.append(self.roles[side] + "\n")
        head.append(
            f"preset {ev.get('preset')} · {ev.get('rounds')} rounds · runner {ev.get('runner')}"
            f" · run {ev.get('run_id')}",
            style="dim",
        )
        self._print(Panel(head, expand=False))
        if ev.get("attach"):
            self._print(Text(f"watch the turns: {ev['attach']}", style="dim"))

    def _on_round_started(self, ev: _Event) -> None:
        self._print(Rule(f"Round {ev.get('round')}/{ev.get('total')}", characters="─"))

    def _on_turn_started(self, ev: _Event) -> None:
        side = str(ev.get("side"))
        icon, _ = SIDE_STYLE.get(side, ("", ""))
        title = f"{icon} Role {side} ({one_line(str(ev.get('role', '')), 60)})"
        self.running[side] = _Running(title, time.monotonic())
        self._refresh()

    def _on_text(self, ev: _Event) -> None:
        turn = self.running.get(str(ev.get("side")))
        if turn is not None:
            turn.text += clean(str(ev.get("text", "")))
            self._refresh()

    def _on_heartbeat(self, ev: _Event) -> None:
        turn = self.running.get(str(ev.get("side")))
        if turn is not None:
            turn.elapsed = float(ev.get("elapsed_s") or 0.0)
            self._refresh()

    def _on_turn_retry(self, ev: _Event) -> None:
        msg = Text(f"↻ Role {ev.get('side')}: {ev.get('reason')}, retrying once", style="yellow")
        if ev.get("detail"):
            msg.append("\n" + clean(str(ev["detail"])), style="dim")
        turn = self.running.get(str(ev.get("side")))
        if turn is not None:
            turn.text = ""
        self._print(msg)

    def _on_turn_finished(self, ev: _Event) -> None:
        side = str(ev.get("side"))
        self.running.pop(side, None)
        icon, colour = SIDE_STYLE.get(side, ("", ""))
        role = one_line(str(ev.get("role", self.roles.get(side, ""))), 60)
        head = Text(f"{icon} Role {side} ({role})", style=f"bold {colour}")
        cost = ev.get("cost_usd")
        duration = float(ev.get("duration_s") or 0.0)
        usd = cost if isinstance(cost, int | float) else None
        head.append(
            f"  {duration:.1f}s · {fmt_cost(usd, bool(ev.get('cost_estimated')))}",
            style="dim",
        )
        if ev.get("status") != "ok":
            head.append(f" · {ev.get('status')}", style="yellow")
        parts: list[RenderableType] = [head, terminal_markdown(str(ev.get("prose", "")))]
        moves = Text()
        for title in ev.get("new_points") or []:
            moves.append(f"  + {one_line(str(title), 120)}\n", style="green")
        for stance in ev.get("stances") or []:
            moves.append(f"  {stance.get('stance')} {stance.get('id')}\n", style="cyan")
        if ev.get("abstain"):
            moves.append(f"  abstains: {one_line(str(ev['abstain']), 300)}\n", style="yellow")
        if moves.plain:
            parts.append(moves)
        self._print(Group(*parts))
        self._print(Text(""))

    def _on_warning(self, ev: _Event) -> None:
        self._print(Text(f"⚠ {clean(str(ev.get('text', '')))}", style="yellow"))

    def _on_ledger(self, ev: _Event) -> None:
        ledger = _ledger(ev.get("issues") or [])
        self._print(ledger_table(ledger, title=f"Issue ledger after round {ev.get('round')}"))

    def _on_angle(self, ev: _Event) -> None:
        ids = ", ".join(str(i) for i in ev.get("issue_ids") or [])
        text = one_line(str(ev.get("text", "")), 500)
        self._print(
            Text(
                f"↺ {ids} went round in circles; new angle for round {ev.get('round')}: {text}",
                "magenta",
            )
        )

    def _on_stop(self, ev: _Event) -> None:
        detail = one_line(str(ev.get("detail", "")), 300)
        self._print(Text(f"■ stopped: {ev.get('reason')} — {detail}", style="bold"))

    def _on_judge_started(self, ev: _Event) -> None:
        self._print(Rule("Judge", characters="─"))
        self.running["judge"] = _Running("⚖ The Judge", time.monotonic())
        self._refresh()

    def _on_judge_finished(self, ev: _Event) -> None:
        self.running.pop("judge", None)
        self._stop_live()
        if ev.get("fallback"):
            self.err.print(Text("(summary written from the ledger)", style="yellow"))
        text = clean(str(ev.get("markdown", "")))
        if self.out.is_terminal:
            self.out.print(terminal_markdown(text))
        else:
            # Redirected (collab debate … > decision.md): the Markdown itself.
            self.out.file.write(text.rstrip() + "\n")
            self.out.file.flush()

    def _on_run_finished(self, ev: _Event) -> None:
        self.running.clear()
        self._stop_live()
        code = ev.get("exit_code")
        self.exit_code = int(code) if isinstance(code, int) else 1

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


def _ledger(rows: list[Any]) -> Ledger:
    issues = []
    for r in rows:
        if not isinstance(r, Mapping):
            continue
        issues.append(
            Issue(
                id=str(r.get("id")),
                title=str(r.get("title", "")),
                raised_by="B" if r.get("raised_by") == "B" else "A",
                status=r["status"]
                if r.get("status") in ("open", "resolved", "dropped")
                else "open",
                evidence_a=str(r.get("evidence_a", "")),
                evidence_b=str(r.get("evidence_b", "")),
                round_opened=int(r.get("round_opened") or 1),
                round_updated=int(r.get("round_updated") or 1),
            )
        )
    return Ledger(tuple(issues))


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
