"""A batch as it runs: a row per debate and an overall bar on a terminal, plain log lines
otherwise, and a summary table at the end."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from collab.batch.record import Batch, ItemStatus
from collab.cli.console import stderr_console
from collab.cli.tables import RUN_STYLE, Col, FittedTable, TableCell, batch_table
from collab.control.progress import read_progress
from collab.errors import CollabError
from collab.prices import fmt_cost
from collab.run_ids import run_ids, short_ids
from collab.store import RunDir
from collab.text import one_line


class BatchView:
    def __init__(
        self, batch: Batch, console: Console | None = None, *, follow_hint: bool = True
    ) -> None:
        self.batch = batch
        self.console = console or stderr_console()
        self.live: Live | None = None
        self.bar = Progress(
            TextColumn("batch"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
        )
        self.task = self.bar.add_task("debates", total=len(batch.items))
        self._last: dict[str, tuple[str, int]] = {}
        self._attach: str | None = None
        self.ids = batch_short_ids(batch)
        self.console.print(
            Text(f"batch {batch.batch_id}: {len(batch.items)} debates", style="bold"),
        )
        if follow_hint:
            self.console.print(
                Text(
                    f"follow: collab watch {batch.batch_id} (this table) · "
                    "collab watch ID (one debate)",
                    style="dim",
                )
            )
        if self.console.is_terminal:
            self.live = Live(console=self.console, refresh_per_second=4, transient=False)
            self.live.start()

    def tick(self, batch: Batch) -> None:
        rows = batch.item_statuses()
        finished = sum(1 for p in rows if p.item.exit_code is not None or p.status == "done")
        self.bar.update(self.task, completed=finished)
        self._attach_hint(rows)
        if self.live is not None:
            self.live.update(Group(progress_table(rows, self.ids), self.bar))
            return
        for p in rows:
            key = (p.status, p.rounds_done)
            if self._last.get(p.item.run_id) != key:
                self._last[p.item.run_id] = key
                verdict = f" {p.verdict}" if p.verdict else ""
                line = (
                    f"{self.ids.get(p.item.run_id, p.item.run_id)}  {p.status}{verdict}  "
                    f"round {round_shown(p)}  {fmt_cost(p.cost)}  {one_line(p.item.topic, 60)}"
                )
                self.console.print(line, markup=False, highlight=False)

    def _attach_hint(self, rows: list[ItemStatus]) -> None:
        """The tmux session the debates' panes run in, said once, when a run reports it."""
        if self._attach is not None:
            return
        for p in rows:
            if p.status == "running":
                hint = read_progress(RunDir(p.item.run_id).path).attach
                if hint:
                    self._attach = hint
                    text = Text(f"watch the turns: {hint}", style="dim")
                    (self.live.console if self.live else self.console).print(text)
                    return

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def summary(self) -> None:
        print_summary(self.batch, self.console, self.ids)


def print_summary(b: Batch, console: Console, ids: Mapping[str, str] | None = None) -> None:
    """The table at the end of a batch (``collab status batch-…`` too), its index, and
    what to do next."""
    ids = batch_short_ids(b) if ids is None else ids
    console.print(batch_table(b.summary_rows(), title=f"batch {b.batch_id} · {b.status}", ids=ids))
    console.print(Text(f"index: {b.path / 'index.md'}", style="dim"))
    if b.status in ("interrupted", "failed"):
        console.print(Text(f"resume with: collab resume {b.batch_id}", style="yellow"))
    elif b.status == "done" and ids:
        first = next(iter(ids.values()))
        console.print(Text(f"next: collab show ID (e.g. collab show {first})", style="dim"))


def batch_short_ids(b: Batch) -> dict[str, str]:
    """Each run of the batch by its shortest unique suffix among every kept run."""
    wanted = [i.run_id for i in b.items]
    try:
        return short_ids(wanted, run_ids())
    except CollabError:
        return {w: w for w in wanted}


def round_shown(p: ItemStatus) -> str:
    """The round a run is in (while it runs: the one under way; once a rule stopped it,
    its Judge under way: the last round held), of its rounds."""
    if p.status == "pending":
        return f"–/{p.rounds}"
    debating = p.status == "running" and p.stop_reason is None
    at = min(p.rounds_done + 1, p.rounds) if debating else p.rounds_done
    return f"{at}/{p.rounds}"


_PROGRESS_COLUMNS = (
    Col("n", "#"),
    Col("id", "id"),
    Col("topic", "topic", free=True),
    Col("round", "round"),
    Col("status", "status"),
    Col("verdict", "verdict"),
    Col("elapsed", "elapsed"),
    Col("cost", "cost"),
)
_PROGRESS_LAYOUTS = (
    tuple(c.key for c in _PROGRESS_COLUMNS),
    ("n", "id", "topic", "round", "status", "verdict", "cost"),
    ("id", "topic", "round", "status", "verdict"),
    ("id", "topic", "round", "status"),
)


def progress_table(rows: list[ItemStatus], ids: Mapping[str, str] | None = None) -> FittedTable:
    """The live rows: the topic gives way, the rest never wraps."""
    ids = ids or {}
    cells: list[dict[str, TableCell]] = [
        {
            "n": str(n),
            "id": ids.get(p.item.run_id, p.item.run_id),
            "topic": one_line(p.item.topic, 80),
            "round": round_shown(p),
            "status": Text(p.status, style=RUN_STYLE.get(p.status, "")),
            "verdict": p.verdict or "—",
            "elapsed": "—" if p.item.started is None else f"{p.elapsed:.0f}s",
            "cost": fmt_cost(p.cost),
        }
        for n, p in enumerate(rows, 1)
    ]
    return FittedTable(_PROGRESS_COLUMNS, _PROGRESS_LAYOUTS, cells, free_min=12)
