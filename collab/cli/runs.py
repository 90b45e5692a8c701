"""The commands that read the runs collab kept: ``list``, ``show`` and ``export``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.formats import ADR, EXPORT_FORMATS, REPORT_FORMATS, check_format, spelled


def _resolve(ref: str | None) -> str:
    from collab.run_ids import resolve_run_id

    return resolve_run_id(ref)


_ID_HELP = "The run: its id, a unique prefix, a unique suffix (4+ characters) or @last."
# Every command that takes a run id resolves it here (collab.run_ids), before it runs.
RunId = Annotated[str, typer.Argument(metavar="ID", help=_ID_HELP, callback=_resolve)]


def _resolve_run_or_batch(ref: str) -> str:
    from collab.run_ids import LAST_BATCH, resolve_batch_id

    if ref.startswith("batch-") or ref == LAST_BATCH:
        from collab.batch.record import batch_ids  # a batch's modules: only for a batch

        return resolve_batch_id(ref, batch_ids())
    return _resolve(ref)


def is_batch_id(ref: str) -> bool:
    return ref.startswith("batch-")


RunOrBatchId = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help=_ID_HELP.rstrip(".") + "; or a batch: batch-…, @last-batch.",
        callback=_resolve_run_or_batch,
    ),
]
NewestRunId = Annotated[
    str | None,
    typer.Argument(metavar="[ID]", help=_ID_HELP + " [dim]\\[default: the newest run][/dim]"),
]


def list_runs(as_json: o.Json = False) -> None:
    """List runs, newest first (damaged ones too, with what is wrong)."""
    from collab.report import list_document, run_row
    from collab.state import stored_runs

    runs = stored_runs()
    if as_json:
        echo_json(list_document(runs))
        return
    from rich.console import Console  # for people only: --json, read by scripts, goes without

    from collab.cli.console import stderr_console

    if not runs:
        stderr_console().print('no runs yet: collab debate "TOPIC"')
        return
    from collab.cli.tables import damaged_lines, runs_table
    from collab.run_ids import short_ids

    rows = [run_row(r) for r in runs]
    every = [str(r["run_id"]) for r in rows]
    ids = short_ids(every, every)  # as every view shows a run; --json keeps the whole id
    Console().print(runs_table(rows, ids))
    for line in damaged_lines(rows):
        stderr_console().print(line, soft_wrap=True)


def show(
    run_id: NewestRunId = None,
    *,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help=f"{spelled(REPORT_FORMATS)} [dim]\\[default: md; on a terminal, rendered][/dim]",
        ),
    ] = None,
    as_json: o.Json = False,
    no_pager: Annotated[
        bool,
        typer.Option("--no-pager", help="On a terminal, print the rendering instead of paging it."),
    ] = False,
) -> None:
    """Show a run: transcript, ledger and judge summary (on a terminal rendered, and
    through $PAGER when longer than the screen; piped, or with --format md, Markdown)."""
    if fmt is not None:
        check_format(fmt, REPORT_FORMATS)  # under --json too: a bad value is not ignored
    kind = "json" if as_json else fmt or "md"
    # Stored model text reaches a terminal here: cleaned in every format (_render_run).
    text = _render_run(_resolve(run_id), kind)
    if kind == "md" and fmt is None:
        from rich.console import Console  # for people only: a pipe gets the Markdown

        console = Console()
        if console.is_terminal:
            from collab.cli.page import show_markdown

            show_markdown(text, page=not no_pager, console=console)
            return
    sys.stdout.write(text)


def export(
    run_id: RunId,
    *,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="File to write: .html, .md or .json; for --format adr a file or the "
            "directory of your records (it takes the next free number there). "
            "[dim]\\[default: collab-ID.html here (.md, .json for those formats); for adr "
            "the next free number here][/dim]",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help=f"{spelled(EXPORT_FORMATS)} ({ADR}: an Architecture Decision Record, MADR "
            "layout) [dim]\\[default: from the -o suffix][/dim]",
        ),
    ] = None,
) -> None:
    """Write a run's report to a file (one self-contained HTML page, Markdown, JSON, or an
    Architecture Decision Record)."""
    from collab.errors import UsageError
    from collab.formats import format_of_suffix

    if fmt is not None:
        check_format(fmt, EXPORT_FORMATS)  # before anything is read or written
    if fmt == ADR:
        output, text = _adr(run_id, output or Path("."))
        _write(output, text, mode=0o644)  # a record for the team's repository
        return
    if output is None:  # said in full: the person did not name it
        output = default_export(run_id, fmt or "html").resolve()
    kind = fmt or format_of_suffix(output.suffix)
    if not kind:
        raise UsageError(f"cannot tell the format from {output.name!r}; pass --format")
    text = _render_run(run_id, kind)
    if output.is_dir():
        raise UsageError(f"{output} is a directory")
    _write(output, text)


def default_export(run_id: str, fmt: str) -> Path:
    """``collab-3fa9c1.html`` in the current directory: the run's short id, the format's
    suffix (an unknown format is refused where the format is read)."""
    from collab.cli.finish import shown_id

    return Path(f"collab-{shown_id(run_id)}.{fmt}")


def _write(output: Path, text: str, mode: int = 0o600) -> None:
    from collab.errors import UsageError
    from collab.store import write_named

    sys.stdout.flush()  # -o /dev/stdout writes to the descriptor: what was printed first
    sys.stderr.flush()
    try:
        written = write_named(output, text, mode=mode)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}") from None
    # A report may quote the context files: only its owner may read it, and they are told
    # (a stream, or a file behind a symlink that kept its own mode, is theirs to judge).
    private = " (mode 0600: only you can read it; chmod it to share)" if written == 0o600 else ""
    sys.stderr.write(f"wrote {output}{private}\n")


def _adr(run_id: str, output: Path) -> tuple[Path, str]:
    """The ADR's path (in a directory: the next free number) and its text, every line
    that looks like a secret withheld (it lands in a repository)."""
    from collab.control import refuse_while_driven
    from collab.errors import UsageError
    from collab.report.adr import adr_markdown, file_name, next_number, withhold_lines
    from collab.secret_scan import scan_text
    from collab.store import RunDir

    state = refuse_while_driven(RunDir(run_id))  # as collab result: not while it is driven
    if state.status != "done":
        raise UsageError(f"run {run_id} has not finished ({state.status}): collab resume {run_id}")
    text = adr_markdown(state)
    hits = {h.line: f"looked like a secret: {h.kind}" for h in scan_text(text, "adr.md")}
    if hits:
        text = withhold_lines(text, hits)
        sys.stderr.write(f"withheld {len(hits)} line(s) that looked like secrets\n")
    if output.is_dir():
        names = [p.name for p in output.iterdir()]
        output = output / file_name(next_number(names), state.config.topic)
    elif output.suffix.lower() != ".md":
        raise UsageError(f"an ADR is Markdown: give -o a .md file or a directory, not {output}")
    return output, text


def _render_run(run_id: str, fmt: str) -> str:
    from collab.report import render_html, render_markdown_report, result_document
    from collab.state import load_state
    from collab.store import RunDir
    from collab.text import clean, clean_tree

    check_format(fmt, REPORT_FORMATS)
    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    if fmt == "json":
        doc = clean_tree(result_document(state, run_dir))
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    if fmt == "html":
        return render_html(state)
    return clean(render_markdown_report(state))
