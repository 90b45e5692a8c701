"""The line a run ends with (``collab debate``, ``resume``, ``continue``, ``watch``):
what it came to and what to do next, bold, on stderr; and the recap a resumed run starts
with.

A run that finished says its verdict, the ledger's counts, what it cost, where its
report is and the commands that follow (show, export, ask, continue, decide). Only a
run that did not finish (interrupted, failed, cut short by a limit) says "stopped", with
how far it got and how to go on. Ids are shown as their shortest unique suffix.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from collab.cli.console import stderr_console
from collab.errors import CollabError
from collab.outcome import outcome_of
from collab.prices import fmt_cost
from collab.run_ids import run_ids, short_id
from collab.state import RunState
from collab.store import RunDir
from collab.text import one_line

REPORT = "report.html"
# A run that stopped with no stop reason, by its status (its driver died, or never began).
_NOT_GOING = {"running": "its driver ended", "pending": "not started"}


def shown_id(run_id: str) -> str:
    """The run's shortest unique suffix among the kept runs (the whole id if unsure)."""
    try:
        return short_id(run_id, run_ids())
    except CollabError:  # the runs dir unreadable: the whole id still works
        return run_id


def outcome_line(state: RunState, run_dir: RunDir, *, resume_hint: bool = True) -> Text:
    """``resume_hint``: a stopped run's line names ``collab resume`` with its whole id
    (the id the error line under it names too, when there is one)."""
    o = outcome_of(state)
    sid = shown_id(state.run_id)
    cost = "cost " + fmt_cost(state.cost_usd(), state.cost_estimated())
    report = run_dir.path / REPORT
    where = f"report: {report}" if report.exists() else f"saved in {run_dir.path}"
    if o.finished:
        parts = [
            f"✔ verdict {o.verdict}",
            o.counts_text(),
            f"{o.rounds_done}/{o.rounds} rounds",
            cost,
            where,
            f"next: collab show {sid} · collab export {sid} · collab ask|continue|decide {sid}",
        ]
        return Text(" · ".join(parts), style="bold green" if o.verdict == "consensus" else "bold")
    reason = o.stop_reason or _NOT_GOING.get(state.status, state.status)
    detail = "" if reason == "interrupted" or not o.stop_detail else f" — {o.stop_detail}"
    head = f"■ stopped: {reason}{one_line(detail, 120)}"
    if state.status == "done":  # cut short by a limit, but judged
        parts = [
            head,
            f"verdict {o.verdict}",
            o.counts_text(),
            f"{o.rounds_done}/{o.rounds} rounds",
            cost,
            where,
            f"next: collab show {sid} · collab continue {sid}",
        ]
    else:
        at = min(o.rounds_done + 1, o.rounds)
        parts = [
            f"{head} in round {at}/{o.rounds}",
            f"so far {o.verdict}: {o.counts_text()}",
            cost,
            *([f"continue with: collab resume {state.run_id}"] if resume_hint else []),
        ]
    return Text(" · ".join(parts), style="bold yellow")


def resume_recap(state: RunState) -> Text:
    """Where ``collab resume`` takes a run up: its first turn without a saved result (or
    the Judge), the rounds done, the turns kept, the ledger so far and what it cost."""
    o = outcome_of(state)
    rounds = state.config.rounds
    todo = next(
        (f"round {r}/{rounds}, Role {side}'s turn"
         for r in range(1, rounds + 1) for side in state.order_of(r)
         if state.turn(r, side) is None),
        "the Judge's summary",
    )  # fmt: skip
    cost = fmt_cost(state.cost_usd(), state.cost_estimated())
    return Text(
        f"↻ resuming {shown_id(state.run_id)} ({state.status}) at {todo} · "
        f"{o.rounds_done}/{rounds} rounds done, {len(state.turns)} turns kept · "
        f"ledger {o.counts_text()} · cost so far {cost}",
        style="bold",
    )


def print_outcome(state: RunState, run_dir: RunDir, err: Console | None = None) -> None:
    """The last line of a run on stderr (and a failed run's error under it)."""
    err = err or stderr_console()
    err.print(outcome_line(state, run_dir))
    if state.status == "failed" and state.error:
        err.print(Text(f"collab: run failed: {state.error}", style="red"))
