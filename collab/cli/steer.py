"""Steering a debate after it ends: ``ask`` (a follow-up question to a seat) and
``decide`` (record the decision, or how it turned out); ``continue`` is with the other
commands that drive a debate (:mod:`.debate`). The work is in :mod:`collab.control`;
this module only parses and prints."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from collab.cli import options as o
from collab.cli.options import echo_json
from collab.cli.runs import RunId
from collab.text import clean, one_line

if TYPE_CHECKING:
    from collab.events import FollowupFinished, Logged


class _Answers:
    """A follow-up as it comes (its events): one seat streams its answer to stdout;
    several at once (which would interleave) say on stderr that they answer, then print
    whole."""

    def __init__(self, streaming: bool) -> None:
        self.streaming = streaming
        self.streamed = False

    def __call__(self, logged: Logged) -> None:
        # The typed events only when a follow-up runs: every collab command imports this
        # module to build the CLI, and the events' classes cost ~20 ms of CPU to create.
        from collab.events import FollowupFinished, FollowupStarted, RunWarning, Text

        ev = logged.event
        match ev:
            case FollowupStarted():
                sys.stderr.write(f"asking {_who(ev.side)}…\n")
                if self.streaming:
                    sys.stdout.write(f"## {_who(ev.side)}\n\n")
                    sys.stdout.flush()
            case Text(followup=True):
                # The Judge's live text still says "Position 1/2": printed once, revealed.
                if self.streaming and ev.text and ev.side != "judge":
                    self.streamed = True
                    sys.stdout.write(clean(ev.text))
                    sys.stdout.flush()
            case FollowupFinished():
                self._finished(ev)
            case RunWarning():
                _warn(ev.text)

    def _finished(self, ev: FollowupFinished) -> None:
        if ev.status != "ok":  # no answer: the command ends on the line saying why
            if self.streamed:
                sys.stdout.write("\n")
        elif self.streamed:
            sys.stdout.write("\n")
        elif self.streaming:
            sys.stdout.write(f"{clean(ev.answer)}\n")
        else:
            sys.stdout.write(f"## {_who(ev.side)}\n\n{clean(ev.answer)}\n\n")
        sys.stdout.flush()


def _who(seat: str) -> str:
    return "the Judge" if seat == "judge" else f"Role {seat}"


def _warn(text: str) -> None:
    """A warning on stderr, one line (an agent's stderr folded into it); stdout keeps the
    one JSON document under --json."""
    sys.stderr.write(f"warning: {one_line(text)}\n")


def _warnings(logged: Logged) -> None:
    """Under --json: the follow-ups' warnings (stdout is the result document)."""
    from collab.events import RunWarning

    if isinstance(logged.event, RunWarning):
        _warn(logged.event.text)


def ask(
    run_id: RunId,
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="What you want to know.")],
    *,
    seat: Annotated[
        str | None,
        typer.Option(
            "--seat",
            metavar="A…E|judge",
            help="Whom to ask: a seat of the run or the Judge [dim]\\[default: every debater "
            "at once, none seeing another's answer][/dim]",
        ),
    ] = None,
    as_json: o.Json = False,
) -> None:
    """Ask a seat of a finished (or stopped) debate a follow-up question; the answer is
    kept with the run and leaves the ledger and the verdict as they were."""
    from collab.control.steer import ask_seats, failed_followups, seats_of
    from collab.errors import EXIT_FAILED, CollabError
    from collab.report import result_document
    from collab.seats import SEATS
    from collab.state import load_state
    from collab.store import RunDir

    streaming = not as_json and len(seats_of(seat, SEATS)) == 1
    answers = ask_seats(run_id, question, seat, [_warnings] if as_json else [_Answers(streaming)])
    failed = failed_followups(run_id, answers)
    if as_json:  # the one document: each follow-up's error is in it
        echo_json(result_document(load_state(RunDir(run_id)), RunDir(run_id)))
        if failed is not None:
            raise typer.Exit(EXIT_FAILED)
    elif failed is not None:
        raise CollabError(failed)  # exit 1, one line


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

    state = record_decision(run_id, choice=choice, why=why, outcome=outcome, warn=_warn)
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
