"""The rich tables the commands print, fitted to the terminal's width.

Ids, names, dates, statuses and stop reasons never wrap; free text (a topic, "when to
use", evidence) is what gives way, cut with an ellipsis or wrapped. Where a table's
fixed columns cannot all fit next to a readable amount of free text, it drops or merges
its least useful columns: a :class:`FittedTable` picks its layout when it is rendered,
from the width it is given, so the same table works on a console, in a Live view and in
a test's ``Console(width=80)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from collab.doctor import Check
from collab.evidence import EvidenceCheck, marks
from collab.ledger import Ledger
from collab.presets import Preset
from collab.report import fmt_cost
from collab.text import one_line

TableCell = str | Text

ISSUE_STYLE = {"open": "yellow", "resolved": "green", "dropped": "dim"}
RUN_STYLE = {
    "pending": "dim",
    "running": "cyan",
    "done": "green",
    "failed": "red",
    "interrupted": "yellow",
    "damaged": "red",
}


@dataclass(frozen=True)
class Col:
    key: str
    header: str
    free: bool = False  # free text: gets what the fixed columns leave
    wrap: bool = False  # free text that wraps instead of ending in an ellipsis


class FittedTable:
    """Rows of cells by column key, and layouts (column keys, richest first): renders the
    first layout whose fixed columns fit whole next to ``free_min`` cells of free text."""

    def __init__(
        self,
        columns: Sequence[Col],
        layouts: Sequence[Sequence[str]],
        rows: Sequence[Mapping[str, TableCell]],
        *,
        free_min: int,
        title: str | None = None,
    ) -> None:
        self.columns = {c.key: c for c in columns}
        self.layouts = layouts
        self.rows = rows
        self.free_min = free_min
        self.title = title

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def _width(self, key: str) -> int:
        cells = [self.columns[key].header, *(_text(r[key]).plain for r in self.rows)]
        return max(cell_len(line) for cell in cells for line in cell.splitlines() or [""])

    def layout(self, width: int) -> tuple[Sequence[str], int]:
        """The columns to show at ``width``, and the room left for free text."""
        for keys in self.layouts:
            # Default box and padding: a border left of each column, one at the end, and
            # one space either side of each cell.
            fixed = sum(self._width(k) for k in keys if not self.columns[k].free)
            free = [k for k in keys if self.columns[k].free]
            room = width - fixed - 3 * len(keys) - 1
            if not free or room >= self.free_min * len(free):
                break
        return keys, max(room // max(len(free), 1), 1)

    def table(self, width: int) -> Table:
        keys, room = self.layout(width)
        table = Table(title=self.title, title_justify="left")
        for key in keys:
            col = self.columns[key]
            if not col.free:
                table.add_column(col.header, no_wrap=True)
            elif col.wrap:
                table.add_column(col.header, overflow="fold", max_width=room)
            else:
                table.add_column(col.header, no_wrap=True, overflow="ellipsis", max_width=room)
        for row in self.rows:
            table.add_row(*(row[k] for k in keys))
        return table


def _text(cell: TableCell) -> Text:
    return cell if isinstance(cell, Text) else Text(cell)


# -- collab list ---------------------------------------------------------------------------

_RUN_COLUMNS = (
    Col("id", "id"),
    Col("date", "date"),
    Col("topic", "topic", free=True),
    Col("preset", "preset"),
    Col("rounds", "rounds"),
    Col("status", "status"),
    Col("stop", "stop"),
    Col("outcome", "status"),  # status and stop reason in one: the reason when done
)
_RUN_LAYOUTS = (
    ("id", "date", "topic", "preset", "rounds", "status", "stop"),
    ("id", "date", "topic", "rounds", "status", "stop"),
    ("id", "topic", "rounds", "status", "stop"),  # the id holds the date and time
    ("id", "topic", "rounds", "outcome"),
)


def runs_table(rows: Sequence[Mapping[str, object]]) -> FittedTable:
    """``collab list``: one line per run, from ``collab.report.run_row`` rows. A damaged
    run shows what could be read of it, and its reason where the topic is unknown."""
    cells: list[dict[str, TableCell]] = []
    for r in rows:
        status, stop = str(r["status"]), r["stop_reason"]
        topic = Text(one_line(str(r["topic"]), 50)) if r["topic"] is not None else None
        style = RUN_STYLE.get(status, "") if status == "damaged" else ""
        cells.append({
            "id": str(r["run_id"]),
            "date": _known(r, "created")[:16].replace("T", " "),
            "topic": topic or Text(one_line(str(r["reason"]), 50), style="red"),
            "preset": _known(r, "preset"),
            "rounds": f"{_known(r, 'rounds_done')}/{_known(r, 'rounds')}",
            "status": Text(status, style=style),
            "stop": stop_shown(stop) if stop else "—",
            "outcome": Text(stop_shown(stop) if status == "done" and stop else status,
                            style=style),
        })  # fmt: skip
    return FittedTable(_RUN_COLUMNS, _RUN_LAYOUTS, cells, free_min=20, title="collab runs")


def stop_shown(stop: object) -> str:
    """A stop reason as a table shows it: one that is not a result says so."""
    return f"{stop} · inconclusive" if stop == "no-contract" else str(stop)


def _known(row: Mapping[str, object], key: str) -> str:
    return "?" if row[key] is None else str(row[key])


def damaged_lines(rows: Sequence[Mapping[str, object]]) -> list[Text]:
    """Under ``collab list``: each damaged run's reason in full (the table cuts it)."""
    return [
        Text.assemble(("damaged ", "red"), f"{r['run_id']}: {r['reason']}")
        for r in rows
        if r["status"] == "damaged"
    ]


# -- collab presets ------------------------------------------------------------------------

_PRESET_COLUMNS = (
    Col("preset", "preset"),
    Col("a", "Role A"),
    Col("b", "Role B"),
    Col("roles", "roles"),  # both names, one a line
    Col("summary", "when to use", free=True, wrap=True),
)
_PRESET_LAYOUTS = (
    ("preset", "a", "b", "summary"),
    ("preset", "roles", "summary"),
    ("preset", "summary"),  # the key names the roles
)


def presets_table(presets: Sequence[Preset]) -> FittedTable:
    cells: list[dict[str, TableCell]] = []
    for p in presets:
        a, b = one_line(p.role_a.name), one_line(p.role_b.name)
        cells.append({
            "preset": p.key, "a": Text(a), "b": Text(b), "roles": Text(f"A: {a}\nB: {b}"),
            "summary": Text(one_line(p.summary)),
        })  # fmt: skip
    title = "presets (collab presets show NAME)"
    return FittedTable(_PRESET_COLUMNS, _PRESET_LAYOUTS, cells, free_min=30, title=title)


# -- a batch's summary ---------------------------------------------------------------------

_BATCH_COLUMNS = (
    Col("topic", "topic", free=True),
    Col("stop", "stop"),
    Col("rounds", "rounds"),
    Col("resolved", "resolved"),
    Col("open", "open"),
    Col("dropped", "dropped"),
    Col("rod", "r/o/d"),
    Col("cost", "cost"),
    Col("run", "run"),
)
_BATCH_LAYOUTS = (
    ("topic", "stop", "rounds", "resolved", "open", "dropped", "cost", "run"),
    ("topic", "stop", "rounds", "rod", "cost", "run"),
    ("topic", "stop", "rod", "cost", "run"),
    ("topic", "stop", "rod", "run"),
)


def batch_table(rows: Sequence[Mapping[str, object]], title: str) -> FittedTable:
    """The summary at the end of a batch, from ``Batch.summary_rows()``."""
    cells: list[dict[str, TableCell]] = []
    for r in rows:
        cost = r["cost_usd"]
        counts = (str(r["resolved"]), str(r["open"]), str(r["dropped"]))
        cells.append({
            "topic": one_line(str(r["topic"]), 40),
            "stop": Text(stop_shown(r["stop_reason"]) if r["stop_reason"] else str(r["status"]),
                         style=RUN_STYLE.get(str(r["status"]), "")),
            "rounds": f"{r['rounds_done']}/{r['rounds']}",
            "resolved": counts[0], "open": counts[1], "dropped": counts[2],
            "rod": "/".join(counts),
            "cost": fmt_cost(float(cost) if isinstance(cost, int | float) else None),
            "run": str(r["run_id"]),
        })  # fmt: skip
    return FittedTable(_BATCH_COLUMNS, _BATCH_LAYOUTS, cells, free_min=12, title=title)


# -- the issue ledger, collab doctor -------------------------------------------------------


def ledger_table(ledger: Ledger, title: str = "Issue ledger") -> Table:
    table = Table(title=title, title_justify="left", show_lines=False, expand=False)
    for col in ("id", "status"):
        table.add_column(col, no_wrap=True)
    table.add_column("issue", overflow="fold")
    table.add_column("by", no_wrap=True)
    for col in ("A's evidence", "B's evidence"):
        table.add_column(col, overflow="fold")
    if not ledger.issues:
        table.add_row("—", "", "no issues yet", "", "", "")
    for i in ledger.issues:
        table.add_row(
            i.id,
            Text(i.status, style=ISSUE_STYLE[i.status]),
            Text(one_line(i.title if i.severity == "major" else f"[{i.severity}] {i.title}")),
            i.raised_by,
            Text(one_line(_checked(i.evidence_a, i.checks_a), 90)),
            Text(one_line(_checked(i.evidence_b, i.checks_b), 90)),
        )
    return table


def _checked(evidence: str, checks: tuple[EvidenceCheck, ...]) -> str:
    return f"{evidence} ({marks(checks)})" if checks else evidence


_MARKS = {"ok": ("✓", "green"), "warn": ("!", "yellow"), "fail": ("✗", "red"), "info": ("·", "dim")}


def doctor_table(checks: Sequence[Check]) -> Table:
    table = Table(title="collab doctor", title_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column("check", no_wrap=True)
    table.add_column("result", overflow="fold")
    table.add_column("fix", overflow="fold")
    for c in checks:
        mark, style = _MARKS[c.level]
        table.add_row(Text(mark, style=style), c.name, Text(c.detail), Text(c.fix))
    return table
