"""What the CLI draws: tables fitted to 80, 100 and 160 columns (ids, names, statuses and
stop reasons whole on one line; free text gives way), ``--version``, and the grouped
``collab debate --help``."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from typing import NamedTuple

import jsonschema
import pytest
from rich.console import Console, RenderableType

from collab import __version__
from collab.batch.pool import Item
from collab.batch.record import ItemStatus
from collab.cli.batch_view import progress_table
from collab.cli.tables import batch_table, doctor_table, ledger_table, presets_table, runs_table
from collab.doctor import Check
from collab.ledger import Issue, Ledger
from collab.presets import load_presets
from collab.report import SCHEMAS
from collab.text import clean
from tests.conftest import Cli

WIDTHS = (80, 100, 160)
LONG_TOPIC = "Should the order service move from a shared Postgres to event sourcing on Kafka"


def render(renderable: RenderableType, width: int) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, legacy_windows=False).print(renderable)
    lines = out.getvalue().splitlines()
    assert lines, "nothing rendered"
    assert max(len(line) for line in lines) <= width, "the table is wider than the console"
    return lines


def whole_on_a_line(lines: Sequence[str], value: str) -> bool:
    return any(value in line for line in lines)


def header(lines: Sequence[str]) -> list[str]:
    """The column titles of a rich table (the line after the top border)."""
    top = next(n for n, line in enumerate(lines) if line.startswith("┏"))
    return [cell.strip() for cell in lines[top + 1].strip("┃").split("┃")]


# -- collab list ---------------------------------------------------------------------------

RUNS = [
    {"run_id": "20261130-101500-3fa9c1", "created": "2026-11-30T10:15:00+0000",
     "topic": LONG_TOPIC, "preset": "advocate-vs-devils-advocate", "rounds_done": 2,
     "rounds": 3, "status": "done", "stop_reason": "converged-early", "cost_usd": 0.1},
    {"run_id": "20261130-094501-a0b1c2", "created": "2026-11-30T09:45:01+0000",
     "topic": "JWT vs sessions", "preset": "security-vs-performance", "rounds_done": 5,
     "rounds": 7, "status": "done", "stop_reason": "circular-break", "cost_usd": 0.2},
    {"run_id": "20261129-231059-ffee00", "created": "2026-11-29T23:10:59+0000",
     "topic": "Tabs or spaces", "preset": "custom", "rounds_done": 1, "rounds": 3,
     "status": "interrupted", "stop_reason": "interrupted", "cost_usd": None},
    {"run_id": "20261129-080000-123abc", "created": "2026-11-29T08:00:00+0000",
     "topic": "Adopt a monorepo?", "preset": "maintainer-vs-innovator", "rounds_done": 3,
     "rounds": 3, "status": "failed", "stop_reason": "max-rounds", "cost_usd": 0.0},
]  # fmt: skip


class Fit(NamedTuple):
    width: int
    columns: list[str]


LIST_FITS = [
    Fit(160, ["id", "date", "topic", "preset", "rounds", "status", "stop"]),
    Fit(100, ["id", "topic", "rounds", "status", "stop"]),
    Fit(80, ["id", "topic", "rounds", "status"]),
]


@pytest.mark.parametrize(list(Fit._fields), LIST_FITS, ids=[str(f.width) for f in LIST_FITS])
def test_list_table_fits(width: int, columns: list[str]) -> None:
    lines = render(runs_table(RUNS), width)
    assert header(lines) == columns
    for r in RUNS:
        assert whole_on_a_line(lines, str(r["run_id"])), (width, r["run_id"])
        if "preset" in columns:
            assert whole_on_a_line(lines, str(r["preset"]))
        if "stop" in columns:
            assert whole_on_a_line(lines, f"{r['status']} ")
            assert whole_on_a_line(lines, str(r["stop_reason"]))
        else:  # one column: the stop reason of a finished run, the status of any other
            shown = r["stop_reason"] if r["status"] == "done" else r["status"]
            assert whole_on_a_line(lines, str(shown))
    # One line per run: the long topic is cut with an ellipsis, not wrapped.
    row = next(line for line in lines if "20261130-101500-3fa9c1" in line)
    assert "Should the" in row and "…" in row
    assert len(lines) == 1 + 3 + len(RUNS) + 1  # title, header block, rows, bottom border


def test_list_table_wide_shows_the_date() -> None:
    lines = render(runs_table(RUNS), 160)
    assert whole_on_a_line(lines, "2026-11-30 10:15")


# -- collab presets ------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_presets_table_fits(width: int) -> None:
    presets = list(load_presets().values())
    lines = render(presets_table(presets), width)
    for p in presets:
        assert whole_on_a_line(lines, p.key), (width, p.key)
    columns = {160: ["preset", "seats", "roles", "when to use"],
               100: ["preset", "roles", "when to use"],
               80: ["preset", "seats", "when to use"]}  # fmt: skip
    assert header(lines) == columns[width]
    if width >= 100:
        for p in presets:
            assert whole_on_a_line(lines, p.role_a.name) and whole_on_a_line(lines, p.role_b.name)
            for label, role in zip(p.labels, p.seats, strict=True):  # a panel's every seat
                assert whole_on_a_line(lines, f"{label}: {role.name}"), (width, role.name)
    # "when to use" wraps: all of its words are there.
    text = " ".join(line.strip("│ ") for line in lines)
    for word in presets[0].summary.split()[:6]:
        assert word in text


# -- a batch's summary ---------------------------------------------------------------------


def batch_row(run_id: str, topic: str, status: str, stop: str | None) -> dict[str, object]:
    return {
        "run_id": run_id, "line": 1, "topic": topic, "status": status, "stop_reason": stop,
        "rounds_done": 2, "rounds": 3, "resolved": 3, "open": 1, "dropped": 0,
        "cost_usd": 0.0213, "path": f"/runs/{run_id}",
    }  # fmt: skip


BATCH = [
    batch_row("20261130-101500-3fa9c1", LONG_TOPIC, "done", "converged-early"),
    batch_row("20261130-101500-77aa01", "JWT vs sessions", "done", "circular-break"),
    batch_row("20261130-101501-0b0b0b", "Tabs or spaces", "failed", None),
    batch_row("20261130-101502-c0ffee", "Monorepo?", "interrupted", "interrupted"),
]


@pytest.mark.parametrize("width", WIDTHS)
def test_batch_summary_table_fits(width: int) -> None:
    lines = render(batch_table(BATCH, title="batch batch-20261130-101500-3fa9c1 · done"), width)
    cols = header(lines)
    for r in BATCH:
        assert whole_on_a_line(lines, str(r["run_id"])), (width, r["run_id"])
        assert whole_on_a_line(lines, str(r["stop_reason"] or r["status"]))
    if width >= 160:
        assert cols[3:6] == ["resolved", "open", "dropped"]
    else:  # resolved/open/dropped merged into one column
        assert "r/o/d" in cols and "resolved" not in cols
        assert whole_on_a_line(lines, "3/1/0")
    if width >= 100:
        assert "cost" in cols and whole_on_a_line(lines, "$0.0213")


@pytest.mark.parametrize("width", WIDTHS)
def test_batch_progress_table_fits(width: int) -> None:
    rows = [
        ItemStatus(Item(str(r["run_id"]), n, str(r["topic"])), str(r["status"]), 2, 3, 0.0213,
                 None, {})
        for n, r in enumerate(BATCH, 1)
    ]  # fmt: skip
    lines = render(progress_table(rows), width)
    for r in BATCH:
        assert whole_on_a_line(lines, f" {r['status']} ")
    assert len(lines) == 3 + len(BATCH) + 1  # one line a debate


# -- the issue ledger, collab doctor -------------------------------------------------------


def test_ledger_table_keeps_ids_and_statuses_whole() -> None:
    evidence = "a long piece of evidence that has to wrap somewhere " * 4
    ledger = Ledger((
        Issue("I1", "Token revocation needs server state", "A", "resolved", evidence, "", 1, 2),
        Issue("I12", "p99 latency of a session lookup", "B", "dropped", "", evidence, 1, 3),
    ))  # fmt: skip
    lines = render(ledger_table(ledger), 80)
    for value in ("I1 ", "I12", "resolved", "dropped"):
        assert whole_on_a_line(lines, value)


def test_doctor_table_keeps_check_names_whole() -> None:
    fix = "install it with your package manager, e.g. apt-get install tmux, then run again"
    checks = [
        Check("tmux", "fail", "not found on PATH", fix),
        Check("agent claude", "ok", "/usr/local/bin/claude 2.0.1"),
        Check("data dir", "info", "/home/someone/.local/share/collab"),
    ]
    lines = render(doctor_table(checks), 80)
    for c in checks:
        assert whole_on_a_line(lines, c.name)


# -- collab --version ----------------------------------------------------------------------


def test_version(cli: Cli) -> None:
    assert cli("--version") == (0, f"collab {__version__}\n", "")


def test_version_json(cli: Cli) -> None:
    code, out, err = cli("--version", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc == {"schema": "collab.version/1", "version": __version__}
    jsonschema.validate(doc, SCHEMAS["collab.version/1"])


@pytest.mark.parametrize("argv", [["--json"], ["--json", "list"]], ids=["alone", "before-list"])
def test_root_json_without_version_is_bad_usage(cli: Cli, argv: list[str]) -> None:
    code, out, _ = cli(*argv)
    assert code == 2
    doc = json.loads(out)
    assert doc["schema"] == "collab.error/1" and doc["error"]["kind"] == "usage"


# -- collab debate --help ------------------------------------------------------------------

PANELS = ("Roles and context", "Agents and models", "Limits", "Output")
PYTHON_TYPES = ("<str>", "<int>", "<float>", "<list[str]>", "<path>")


def help_text(cli: Cli, *argv: str, width: int = 100) -> str:
    """Help as a user's terminal of ``width`` columns gets it (typer renders it with rich)."""
    colour = ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE")
    env = {k: v for k, v in os.environ.items() if k not in colour}
    env |= {"COLUMNS": str(width), "TERMINAL_WIDTH": str(width), "NO_COLOR": "1"}
    res = cli.process(*argv, "--help", replace_env=env, timeout=60)
    assert res.code == 0, res.err
    assert max(len(line) for line in res.out.splitlines()) <= width
    return clean(res.out)


@pytest.mark.parametrize("command", ["debate", "batch"])
def test_debate_help_groups_options_with_metavars(cli: Cli, command: str) -> None:
    text = help_text(cli, command)
    for panel in PANELS:
        assert f"─ {panel} ─" in text, panel
    for metavar in ("SECONDS", "USD", "PATH", "NAME", "MODEL", "AGENT"):
        assert metavar in text, metavar
    options = [line for line in text.splitlines() if line.lstrip("│ *").startswith("-")]
    assert len(options) > 20
    for line in options:
        assert not any(t in line for t in PYTHON_TYPES), line
    assert "--timeout" in text and "[default: 120]" in text


def test_help_shows_version_and_command_groups(cli: Cli) -> None:
    text = help_text(cli, width=80)
    assert "--version" in text
    for panel in ("Debates", "Runs", "Setup and reference"):
        assert f"─ {panel} ─" in text, panel
