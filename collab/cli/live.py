"""A debate as it runs, with rich: chatter on stderr, the Judge's summary on stdout."""

from __future__ import annotations

from rich.console import Console, Group
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.status import Status
from rich.text import Text

from collab.cli.tables import ledger_table
from collab.config import DebateConfig
from collab.events import Listener
from collab.ledger import Ledger, Side
from collab.report import fmt_cost
from collab.state import RunState
from collab.store import RunDir
from collab.text import clean
from collab.turns import TurnRecord

SIDE_STYLE = {"A": ("🔵", "blue"), "B": ("🔴", "red")}


class RichListener(Listener):
    def __init__(self, err: Console | None = None, out: Console | None = None) -> None:
        self.err = err or Console(stderr=True)
        self.out = out or Console()
        self._status: Status | None = None

    def run_started(
        self, run_id: str, cfg: DebateConfig, runner: str, attach: str | None, resumed: bool
    ) -> None:
        head = Text()
        head.append("Resuming debate\n" if resumed else "Debate\n", style="bold")
        head.append(clean(cfg.topic) + "\n\n", style="bold cyan")
        head.append("🔵 Role A ", style="blue")
        head.append(clean(cfg.role_a.name) + "\n")
        head.append("🔴 Role B ", style="red")
        head.append(clean(cfg.role_b.name) + "\n")
        head.append(
            f"preset {cfg.preset} · {cfg.rounds} rounds · runner {runner} · run {run_id}",
            style="dim",
        )
        self.err.print(Panel(head, expand=False))
        if attach:
            self.err.print(Text(f"watch the turns: {attach}", style="dim"))

    def round_started(self, round_no: int, total: int) -> None:
        self.err.print(Rule(f"Round {round_no}/{total}", characters="─"))

    def turn_started(self, round_no: int, side: Side, role_name: str) -> None:
        icon, _ = SIDE_STYLE[side]
        self._start_status(f"{icon} Role {side} ({clean(role_name)}) is thinking…")

    def _start_status(self, text: str) -> None:
        if self.err.is_terminal:
            status = self.err.status(text)
            status.start()
            self._status = status

    def _stop_status(self) -> None:
        status = self._status
        self._status = None
        if status is not None:
            status.stop()

    def turn_retry(self, round_no: int, side: Side, reason: str, detail: str) -> None:
        self._stop_status()
        msg = Text(f"↻ Role {side}: {reason}, retrying once", style="yellow")
        if detail:
            msg.append("\n" + clean(detail), style="dim")
        self.err.print(msg)

    def turn_finished(self, turn: TurnRecord) -> None:
        self._stop_status()
        icon, colour = SIDE_STYLE[turn.side]
        head = Text(f"{icon} Role {turn.side} ({clean(turn.role_name)})", style=f"bold {colour}")
        head.append(f"  {turn.meta.duration:.1f}s · {fmt_cost(turn.cost_usd)}", style="dim")
        if turn.status != "ok":
            head.append(f" · {turn.status}", style="yellow")
        parts: list[Text | Markdown] = [head, Markdown(clean(turn.prose))]
        if turn.contract is not None:
            lines = Text()
            for p in turn.contract.new_points:
                lines.append(f"  + {clean(p.title)}\n", style="green")
            for s in turn.contract.stances:
                lines.append(f"  {s.stance} {s.id}\n", style="cyan")
            if turn.contract.abstain:
                lines.append(f"  abstains: {clean(turn.contract.abstain)}\n", style="yellow")
            if lines.plain:
                parts.append(lines)
        self.err.print(Group(*parts))
        self.err.print()

    def warning(self, text: str) -> None:
        self._stop_status()
        self.err.print(Text(f"⚠ {clean(text)}", style="yellow"))

    def round_finished(self, round_no: int, ledger: Ledger) -> None:
        self.err.print(ledger_table(ledger, title=f"Issue ledger after round {round_no}"))

    def angle_injected(self, round_no: int, text: str, issue_ids: tuple[str, ...]) -> None:
        ids = ", ".join(issue_ids)
        self.err.print(
            Text(
                f"↺ {ids} went round in circles; new angle for round {round_no}: {text}", "magenta"
            )
        )

    def stopped(self, reason: str, detail: str) -> None:
        self.err.print(Text(f"■ stopped: {reason} — {detail}", style="bold"))

    def judge_started(self) -> None:
        self.err.print(Rule("Judge", characters="─"))
        self._start_status("⚖ the Judge is writing the summary…")

    def judge_finished(self, text: str, fallback: bool) -> None:
        self._stop_status()
        if fallback:
            self.err.print(Text("(summary written from the ledger)", style="yellow"))
        if self.out.is_terminal:
            self.out.print(Markdown(clean(text)))
        else:
            # Redirected (collab debate … > decision.md): the Markdown itself.
            self.out.file.write(clean(text).rstrip() + "\n")
            self.out.file.flush()


def print_outcome(state: RunState, run_dir: RunDir, err: Console | None = None) -> None:
    """The last line of a debate on stderr: where it stopped, what it cost, where it is."""
    err = err or Console(stderr=True)
    err.print(
        Text(
            f"run {state.run_id} · {state.stop_reason} · verdict {state.verdict()} · "
            f"{state.rounds_done()} rounds · "
            f"cost {fmt_cost(state.cost_usd())} · saved in {run_dir.path}",
            style="dim",
        )
    )
    if state.status == "failed":
        err.print(Text(f"collab: run failed: {state.error}", style="red"))
