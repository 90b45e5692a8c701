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
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from collab.doctor import Check
from collab.evidence import EvidenceCheck, marks
from collab.ledger import Issue, Ledger
from collab.presets import Preset
from collab.report import fmt_cost
from collab.seats import SIDES, Side
from collab.text import one_line

TableCell = str | Text

ISSUE_STYLE = {"open": "yellow", "resolved": "green", "dropped": "dim"}
VERDICT_STYLE = {"consensus": "green", "partial": "yellow", "split": "red", "inconclusive": "dim"}
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
    ("id", "topic", "rounds", "status", "stop"),  # a whole id holds the date and time
    ("id", "topic", "rounds", "outcome"),
)


def runs_table(
    rows: Sequence[Mapping[str, object]], ids: Mapping[str, str] | None = None
) -> FittedTable:
    """``collab list``: one line per run, from ``collab.report.run_row`` rows. A damaged
    run shows what could be read of it, and its reason where the topic is unknown.
    ``ids`` shows each run by the id given for it (its shortest unique suffix, as every
    other view), else the whole id."""
    ids = ids or {}
    cells: list[dict[str, TableCell]] = []
    for r in rows:
        status, stop = str(r["status"]), r["stop_reason"]
        verdict = verdict_shown(r) if status == "done" else None
        topic = Text(one_line(str(r["topic"]), 50)) if r["topic"] is not None else None
        style = RUN_STYLE.get(status, "") if status == "damaged" else ""
        cells.append({
            "id": ids.get(str(r["run_id"]), str(r["run_id"])),
            "date": _known(r, "created")[:16].replace("T", " "),
            "topic": topic or Text(one_line(str(r["reason"]), 50), style="red"),
            "preset": _known(r, "preset"),
            "rounds": f"{_known(r, 'rounds_done')}/{_known(r, 'rounds')}",
            "status": Text(status, style=style),
            "stop": stop_shown(stop, verdict) if stop else "—",
            "outcome": Text(stop_shown(stop, verdict) if status == "done" and stop else status,
                            style=style),
        })  # fmt: skip
    return FittedTable(_RUN_COLUMNS, _RUN_LAYOUTS, cells, free_min=20, title="collab runs")


def stop_shown(stop: object, verdict: str | None = None) -> str:
    """A stop reason as a table shows it, with the run's verdict when it has one: one
    that is not a result says so."""
    if stop == "no-contract":
        return f"{stop} · inconclusive"
    return f"{stop} · {verdict}" if verdict else str(stop)


def verdict_shown(row: Mapping[str, object]) -> str | None:
    """``partial``, ``split · 2 blocking``; None for a row without a verdict."""
    verdict, blocking = row.get("verdict"), row.get("open_blocking")
    if not isinstance(verdict, str):
        return None
    return verdict + (f" · {blocking} blocking" if isinstance(blocking, int) and blocking else "")


def _known(row: Mapping[str, object], key: str) -> str:
    return "?" if row[key] is None else str(row[key])


def damaged_lines(rows: Sequence[Mapping[str, object]]) -> list[Text]:
    """Under ``collab list``: each damaged run's reason in full (the table cuts it), by
    its whole id: the name of the directory to repair or remove."""
    return [
        Text.assemble(("damaged ", "red"), f"{r['run_id']}: {r['reason']}")
        for r in rows
        if r["status"] == "damaged"
    ]


# -- collab presets ------------------------------------------------------------------------

_PRESET_COLUMNS = (
    Col("preset", "preset"),
    Col("seats", "seats"),  # how many
    Col("roles", "roles"),  # every seat's name, one a line
    Col("summary", "when to use", free=True, wrap=True),
)
_PRESET_LAYOUTS = (
    ("preset", "seats", "roles", "summary"),
    ("preset", "roles", "summary"),  # the role lines count the seats
    ("preset", "seats", "summary"),  # the key names the roles
    ("preset", "summary"),
)


def presets_table(presets: Sequence[Preset]) -> FittedTable:
    cells: list[dict[str, TableCell]] = []
    for p in presets:
        names = [one_line(r.name) for r in p.seats]
        roles = "\n".join(f"{label}: {n}" for label, n in zip(p.labels, names, strict=True))
        cells.append({
            "preset": p.key, "seats": str(len(p.seats)), "roles": Text(roles),
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
    Col("verdict", "verdict"),
    Col("rod", "r/o/d"),
    Col("cost", "cost"),
    Col("run", "run"),
)
_BATCH_LAYOUTS = (
    ("topic", "stop", "rounds", "resolved", "open", "dropped", "verdict", "cost", "run"),
    ("topic", "stop", "verdict", "rod", "cost", "run"),
    ("topic", "stop", "verdict", "rod", "run"),
    ("topic", "stop", "rod", "run"),
)


def batch_table(
    rows: Sequence[Mapping[str, object]], title: str, ids: Mapping[str, str] | None = None
) -> FittedTable:
    """The summary at the end of a batch, from ``Batch.summary_rows()``; ``ids`` shows
    each run by the id given for it (its shortest unique suffix), else the whole id."""
    ids = ids or {}
    cells: list[dict[str, TableCell]] = []
    for r in rows:
        verdict = verdict_shown(r)
        cost = r["cost_usd"]
        counts = (str(r["resolved"]), str(r["open"]), str(r["dropped"]))
        cells.append({
            "topic": one_line(str(r["topic"]), 80),
            "stop": Text(stop_shown(r["stop_reason"]) if r["stop_reason"] else str(r["status"]),
                         style=RUN_STYLE.get(str(r["status"]), "")),
            "rounds": f"{r['rounds_done']}/{r['rounds']}",
            "resolved": counts[0], "open": counts[1], "dropped": counts[2],
            "rod": "/".join(counts),
            "cost": fmt_cost(float(cost) if isinstance(cost, int | float) else None),
            "run": ids.get(str(r["run_id"]), str(r["run_id"])),
            "verdict": Text(verdict or "—", style=VERDICT_STYLE.get(str(r.get("verdict")), "")),
        })  # fmt: skip
    return FittedTable(_BATCH_COLUMNS, _BATCH_LAYOUTS, cells, free_min=20, title=title)


# -- the issue ledger, collab doctor -------------------------------------------------------


def ledger_table(
    ledger: Ledger, title: str = "Issue ledger", seats: Sequence[Side] = SIDES
) -> Table:
    """The whole ledger with each seat's evidence (cut at a word), for any number of
    seats: the evidence goes under the issue's title, one line a seat that gave some."""
    table = Table(title=title, title_justify="left", show_lines=False, expand=False)
    for col in ("id", "status", "severity"):
        table.add_column(col, no_wrap=True)
    table.add_column("issue")
    table.add_column("by", no_wrap=True)
    if not ledger.issues:
        table.add_row("—", "", "", "no issues yet", "")
    for i in ledger.issues:
        cell = Text(one_line(i.title), style="bold")
        for seat in seats:
            evidence = i.evidence(seat)
            if evidence:
                checked = _checked(evidence, i.checks(seat))
                cell.append(f"\n{seat}: {clip_words(checked, EVIDENCE_CHARS)}", style="dim")
        table.add_row(
            i.id,
            Text(i.status, style=ISSUE_STYLE[i.status]),
            Text(i.severity, style=SEVERITY_STYLE.get(i.severity, "")),
            cell,
            i.raised_by,
        )
    return table


EVIDENCE_CHARS = 160
CHANGE_WIDTH = 36  # "contested by B, C, D, E; agreed by A" wraps after this
SEVERITY_STYLE = {"blocking": "bold red", "major": "", "minor": "dim"}


def clip_words(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, cut after a whole word (never inside
    one) and ended with an ellipsis when cut."""
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    cut = head.rfind(" ")
    if cut > limit // 2:
        head = head[:cut]
    return head.rstrip(" ,;:.-") + "…"


@dataclass(frozen=True)
class SeatStance:
    """One stance a seat took in a round: the seat, the issue id, agree/contest/drop."""

    seat: str
    issue: str
    stance: str


def ledger_changes(
    before: Ledger, after: Ledger, stances: Sequence[SeatStance], round_no: int
) -> RenderableType:
    """A round's compact ledger: only the issues that changed (new, or a stance taken on
    them, or a new status), one line each, fitted to 80 columns for up to five seats."""
    old = {i.id: i for i in before.issues}
    rows: list[tuple[Issue, str]] = []
    for issue in after.issues:
        change = _change(old.get(issue.id), issue, [s for s in stances if s.issue == issue.id])
        if change:
            rows.append((issue, change))
    n = {status: sum(i.status == status for i in after.issues) for status in ISSUE_STYLE}
    head = Text(f"Issue ledger after round {round_no}: ", style="bold")
    what = f"{len(rows)} changed" if rows else "nothing changed"
    head.append(f"{what} · {n['open']} open · {n['resolved']} resolved · {n['dropped']} dropped")
    if not rows:
        return head
    unchanged = len(after.issues) - len(rows)
    parts: list[RenderableType] = [head, _Changes(rows)]
    if unchanged:
        parts.append(Text(f"{unchanged} other issue(s) unchanged", style="dim"))
    return Group(*parts)


class _Changes:
    """The changed issues, one line each: id, status, severity and the change whole, the
    title cut to what the width leaves (the change wraps past ``CHANGE_WIDTH``)."""

    def __init__(self, rows: Sequence[tuple[Issue, str]]) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fixed = sum(
            max(cell_len(cell) for cell in column)
            for column in (
                [i.id for i, _ in self.rows],
                [i.status for i, _ in self.rows],
                [i.severity for i, _ in self.rows],
            )
        )
        change = min(CHANGE_WIDTH, max(cell_len(c) for _, c in self.rows))
        title = max(12, options.max_width - fixed - change - 8)
        table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1))
        for key in ("id", "status", "severity"):
            table.add_column(key, no_wrap=True)
        table.add_column("title", no_wrap=True, overflow="ellipsis", max_width=title)
        table.add_column("change", width=change)
        for issue, what in self.rows:
            table.add_row(
                issue.id,
                Text(issue.status, style=ISSUE_STYLE[issue.status]),
                Text(issue.severity, style=SEVERITY_STYLE.get(issue.severity, "")),
                one_line(issue.title),
                Text(what, style="cyan"),
            )
        yield table


def _change(old: Issue | None, new: Issue, stances: Sequence[SeatStance]) -> str:
    by: dict[str, list[str]] = {}
    for s in stances:
        by.setdefault(s.stance, []).append(s.seat)
    moved = old is not None and old.status != new.status
    parts: list[str] = []
    if old is None:
        parts.append(f"new, raised by {new.raised_by}")
    for kind, seats in by.items():
        who = ", ".join(dict.fromkeys(seats))
        if kind == "agree":
            parts.append(f"resolved by {who}" if moved and new.status == "resolved"
                         else f"agreed by {who}")  # fmt: skip
        elif kind == "contest":
            parts.append(f"reopened by {who}" if moved and new.status == "open"
                         else f"contested by {who}")  # fmt: skip
        elif kind == "drop":
            parts.append(f"dropped by {who}" if new.status == "dropped" else f"{who} stepped away")
    if moved and not stances:
        parts.append(f"now {new.status}")
    return "; ".join(parts)


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
