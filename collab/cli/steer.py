"""Steering a debate after it ends: ``ask`` (a follow-up question to a seat) and
``decide`` (record the decision, or how it turned out); ``continue`` is with the other
commands that drive a debate (:mod:`.debate`). The work is in :mod:`collab.control`;
this module only parses and prints."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.cli.runs import RunId
from collab.events import Listener


class _Answers(Listener):
    """A follow-up as it comes: one seat streams its answer to stdout; several at once
    (which would interleave) say on stderr that they answer, then print whole."""

    def __init__(self, streaming: bool) -> None:
        self.streaming = streaming
        self.streamed = False

    def followup_started(self, seat: str, question: str) -> None:
        sys.stderr.write(f"asking {_who(seat)}…\n")
        if self.streaming:
            sys.stdout.write(f"## {_who(seat)}\n\n")
            sys.stdout.flush()

    def followup_output(self, seat: str, text: str, elapsed: float) -> None:
        # The Judge's live text still says "Position 1/2": it is printed once, revealed.
        if self.streaming and text and seat != "judge":
            self.streamed = True
            from collab.text import clean

            sys.stdout.write(clean(text))
            sys.stdout.flush()

    def followup_finished(self, seat: str, answer: str, status: str) -> None:
        from collab.text import clean

        if self.streamed:
            sys.stdout.write("\n" if status == "ok" else f"\n({status}) {clean(answer)}\n")
        elif self.streaming:
            sys.stdout.write(f"{clean(answer)}\n")
        else:
            sys.stdout.write(f"## {_who(seat)}\n\n{clean(answer)}\n\n")
        sys.stdout.flush()

    def warning(self, text: str) -> None:
        sys.stderr.write(f"warning: {text}\n")


def _who(seat: str) -> str:
    return "the Judge" if seat == "judge" else f"Role {seat}"


def ask(
    run_id: RunId,
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="What you want to know.")],
    *,
    seat: Annotated[
        str | None,
        typer.Option(
            "--seat",
            metavar="A|B|judge",
            help="Whom to ask [dim]\\[default: both debaters at once, neither seeing the "
            "other's answer][/dim]",
        ),
    ] = None,
    as_json: o.Json = False,
) -> None:
    """Ask a seat of a finished (or stopped) debate a follow-up question; the answer is
    kept with the run and leaves the ledger and the verdict as they were."""
    from collab.control.steer import ask_seats, seats_of
    from collab.report import result_document
    from collab.state import load_state
    from collab.store import RunDir

    streaming = not as_json and len(seats_of(seat)) == 1
    listener = Listener() if as_json else _Answers(streaming)
    ask_seats(run_id, question, seat, listener)
    if as_json:
        echo_json(result_document(load_state(RunDir(run_id)), RunDir(run_id)))


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
