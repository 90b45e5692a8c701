"""Steering a debate after it ends: ``decide`` (record the decision, or how it turned
out). The work is in :mod:`collab.control`; this module only parses and prints."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.cli.runs import RunId


def decide(
    run_id: RunId,
    *,
    choice: Annotated[
        str | None,
        typer.Option(
            "--choice",
            metavar="O2|TEXT",
            help="What was decided: an option's id or exact text when the debate was given "
            "--option, free text otherwise. Deciding again supersedes (history is kept).",
        ),
    ] = None,
    why: Annotated[
        str | None, typer.Option("--why", metavar="TEXT", help="Why (with --choice).")
    ] = None,
    outcome: Annotated[
        str | None,
        typer.Option("--outcome", metavar="TEXT", help="Later: how the decision turned out."),
    ] = None,
    as_json: o.Json = False,
) -> None:
    """Record the decision a debate served (or, later, how it turned out)."""
    from collab.control.decide import record_decision
    from collab.decision import current
    from collab.report import result_document
    from collab.store import RunDir

    state = record_decision(run_id, choice=choice, why=why, outcome=outcome)
    if as_json:
        echo_json(result_document(state, RunDir(run_id)))
        return
    entry = state.decisions[-1]
    what = "decided" if entry.kind == "choice" else "outcome recorded"
    label = f"{entry.option}: {entry.text}" if entry.option else entry.text
    sys.stdout.write(f"run {run_id} {what} by {entry.by}: {label}\n")
    earlier = [d for d in state.decisions[:-1] if d.kind == entry.kind]
    if earlier and current(state.decisions, entry.kind) is entry:
        sys.stdout.write(f"  (supersedes {len(earlier)} earlier; all kept)\n")
