"""A batch as it runs: a row per debate and an overall bar on a terminal, plain log lines
otherwise, and a summary table at the end."""

from __future__ import annotations

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from collab.batch.record import Batch, ItemStatus
from collab.cli.tables import RUN_STYLE, Col, FittedTable, TableCell, batch_table
from collab.report import fmt_cost
from collab.text import one_line


class BatchView:
    def __init__(self, batch: Batch, console: Console | None = None) -> None:
        self.batch = batch
        self.console = console or Console(stderr=True)
        self.live: Live | None = None
        self.bar = Progress(
            TextColumn("batch"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
        )
        self.task = self.bar.add_task("debates", total=len(batch.items))
        self._last: dict[str, tuple[str, int]] = {}
        self.console.print(
            Text(f"batch {batch.batch_id}: {len(batch.items)} debates", style="bold"),
        )
        if self.console.is_terminal:
            self.live = Live(console=self.console, refresh_per_second=4, transient=False)
            self.live.start()

    def tick(self, batch: Batch) -> None:
        rows = batch.item_statuses()
        finished = sum(1 for p in rows if p.item.exit_code is not None or p.status == "done")
        self.bar.update(self.task, completed=finished)
        if self.live is not None:
            self.live.update(Group(progress_table(rows), self.bar))
            return
        for p in rows:
            key = (p.status, p.rounds_done)
            if self._last.get(p.item.run_id) != key:
                self._last[p.item.run_id] = key
                self.console.print(
                    f"{p.item.run_id}  {p.status:<11} round {p.rounds_done}/{p.rounds}  "
                    f"{fmt_cost(p.cost)}  {one_line(p.item.topic, 48)}",
                    markup=False,
                    highlight=False,
                )

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def summary(self) -> None:
        b = self.batch
        self.console.print(batch_table(b.summary_rows(), title=f"batch {b.batch_id} · {b.status}"))
        self.console.print(Text(f"index: {b.path / 'index.md'}", style="dim"))
        if b.status != "done":
            self.console.print(Text(f"resume with: collab resume {b.batch_id}", style="yellow"))


_PROGRESS_COLUMNS = (
    Col("n", "#"),
    Col("topic", "topic", free=True),
    Col("round", "round"),
    Col("status", "status"),
    Col("elapsed", "elapsed"),
    Col("cost", "cost"),
)
_PROGRESS_LAYOUT = tuple(c.key for c in _PROGRESS_COLUMNS)


def progress_table(rows: list[ItemStatus]) -> FittedTable:
    """The live rows: the topic gives way, the rest never wraps."""
    cells: list[dict[str, TableCell]] = [
        {
            "n": str(n),
            "topic": one_line(p.item.topic, 48),
            "round": f"{p.rounds_done}/{p.rounds}",
            "status": Text(p.status, style=RUN_STYLE.get(p.status, "")),
            "elapsed": f"{p.elapsed:.0f}s",
            "cost": fmt_cost(p.cost),
        }
        for n, p in enumerate(rows, 1)
    ]
    return FittedTable(_PROGRESS_COLUMNS, (_PROGRESS_LAYOUT,), cells, free_min=12)
