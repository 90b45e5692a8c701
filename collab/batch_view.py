"""A batch's live display: a table row per debate and an overall bar on a terminal,
plain log lines otherwise, and a summary table at the end."""

from __future__ import annotations

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from collab.batch import Batch
from collab.batch import Progress as RunProgress
from collab.report import fmt_cost
from collab.ui import clean

STATUS_STYLE = {
    "pending": "dim",
    "running": "cyan",
    "done": "green",
    "failed": "red",
    "interrupted": "yellow",
}


def _short(text: str, n: int = 48) -> str:
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


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
        rows = batch.all_progress()
        finished = sum(1 for p in rows if p.item.exit_code is not None or p.status == "done")
        self.bar.update(self.task, completed=finished)
        if self.live is not None:
            self.live.update(Group(self._table(rows), self.bar))
            return
        for p in rows:
            key = (p.status, p.rounds_done)
            if self._last.get(p.item.run_id) != key:
                self._last[p.item.run_id] = key
                self.console.print(
                    f"{p.item.run_id}  {p.status:<11} round {p.rounds_done}/{p.rounds}  "
                    f"{fmt_cost(p.cost)}  {_short(p.item.topic)}",
                    markup=False,
                    highlight=False,
                )

    def _table(self, rows: list[RunProgress]) -> Table:
        table = Table(expand=False)
        for col in ("#", "topic", "round", "status", "elapsed", "cost"):
            table.add_column(col)
        for n, p in enumerate(rows, 1):
            table.add_row(
                str(n), Text(_short(p.item.topic)), f"{p.rounds_done}/{p.rounds}",
                Text(p.status, style=STATUS_STYLE.get(p.status, "")),
                f"{p.elapsed:.0f}s", fmt_cost(p.cost),
            )  # fmt: skip
        return table

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def summary(self) -> None:
        b = self.batch
        table = Table(title=f"batch {b.batch_id} · {b.status}", title_justify="left")
        for col in ("topic", "stop", "rounds", "resolved", "open", "dropped", "cost", "run"):
            table.add_column(col, overflow="fold")
        for r in b.summary_rows():
            cost = r["cost_usd"]
            table.add_row(
                Text(_short(str(r["topic"]), 40)),
                Text(str(r["stop_reason"] or r["status"]),
                     style=STATUS_STYLE.get(str(r["status"]), "")),
                f"{r['rounds_done']}/{r['rounds']}", str(r["resolved"]), str(r["open"]),
                str(r["dropped"]), fmt_cost(float(cost) if isinstance(cost, int | float) else None),
                str(r["run_id"]),
            )  # fmt: skip
        self.console.print(table)
        self.console.print(Text(f"index: {b.path / 'index.md'}", style="dim"))
        if b.status != "done":
            self.console.print(Text(f"resume with: collab resume {b.batch_id}", style="yellow"))
