"""After a debate ends: ``collab ask`` (one more turn per seat, kept as a follow-up) and
``collab continue`` (more rounds with the decider's note, then a new Judge). The one
implementation behind the CLI and the MCP tools.

The question and the note are untrusted text like the topic: cleaned, capped and
secret-scanned here, and made inert (``collab.text.for_prompt``) where a prompt shows
them. Nothing rewrites history: a follow-up leaves the turns, the ledger and the verdict
as they are; a continue appends rounds and keeps the replaced summary as superseded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from collab.decision import user_text
from collab.doctor import check_prerequisites
from collab.errors import UsageError
from collab.eventlog import Sink, append_event
from collab.events import RoundsAdded
from collab.options import Surface, spell
from collab.orchestrator import EVENTS_FILE, Orchestrator
from collab.prices import fmt_cost
from collab.prompts import MAX_NOTE_CHARS, MAX_QUESTION_CHARS
from collab.report.steering import followup_error
from collab.runners import runner_factory
from collab.seats import SEATS
from collab.secret_scan import ensure_no_secrets
from collab.state import Continued, FollowUp, FollowUpSeat, RunState, load_state
from collab.store import RunDir
from collab.suggest import did_you_mean

MAX_ROUNDS_TOTAL = 14
MAX_ROUNDS_PER_CONTINUE = 7
DEBATERS: tuple[FollowUpSeat, ...] = ("A", "B")


def seats_of(
    seat: str | None, debaters: tuple[FollowUpSeat, ...] = DEBATERS, surface: Surface = "cli"
) -> tuple[FollowUpSeat, ...]:
    """``--seat``: one of the run's seats (``debaters``) or judge (any case); none named is
    every debater."""
    if seat is None:
        return debaters
    name = seat.strip()
    name = name.upper() if name.upper() in debaters else name.lower()
    known_seats = (*debaters, "judge")
    for known in known_seats:
        if name == known:
            return (known,)
    hint = did_you_mean(name, known_seats, "")  # only this run's seats
    which = ", ".join(debaters)
    flag = spell("seat", surface)
    raise UsageError(f"{flag} must be {which} or judge, got {seat!r}" + (hint and f"; {hint}"))


def question_text(question: str) -> str:
    text = user_text(question, "the question", MAX_QUESTION_CHARS)
    ensure_no_secrets("", [], others=[("the question", text)], remedy="remove")
    return text


def note_text(note: str | None, surface: Surface = "cli") -> str | None:
    if note is None:
        return None
    name = spell("note", surface)
    text = user_text(note, name, MAX_NOTE_CHARS)
    ensure_no_secrets("", [], others=[(name, text)], remedy="remove")
    return text


def check_cost(state: RunState, what: str, surface: Surface = "cli") -> None:
    """Refused once the run's total (follow-ups included) has reached its --max-cost."""
    cap = state.config.max_cost
    spent = state.cost_usd() or 0.0
    if cap is not None and spent >= cap:
        raise UsageError(
            f"run {state.run_id} has spent {fmt_cost(spent)} of its {spell('max_cost', surface)} "
            f"${cap:g}: no {what}"
        )


def ask_seats(
    run_id: str,
    question: str,
    seat: str | None,
    event_sinks: Sequence[Sink] = (),
    *,
    max_cost: float | None = None,
    surface: Surface = "cli",
) -> list[FollowUp]:
    """Ask ``seat`` (None: every debater at once) ``question`` about run ``run_id``; the
    answers are kept as follow-ups. ``max_cost`` (MCP's cap) bounds the run's total too.
    Messages name an option as ``surface`` spells it."""
    seats_of(seat, SEATS, surface)  # a seat no run has is refused before the run is read
    text = question_text(question)
    run_dir = RunDir(run_id)
    state = load_state(run_dir)
    seats = seats_of(seat, state.seats, surface)
    if not state.turns:
        raise UsageError(f"run {run_id} has no turns yet: nothing to ask about")
    if max_cost is not None:
        cap = min(max_cost, state.config.max_cost or max_cost)
        state.config = replace(state.config, max_cost=cap)
    check_cost(state, "follow-up", surface)
    ready = check_prerequisites(state.config)
    orch = Orchestrator(
        state,
        run_dir,
        agents=ready.agents,
        binaries=ready.binaries,
        runner_factory=runner_factory(state.config.runner, state.config.seats),
        event_sinks=event_sinks,
    )
    return orch.ask(text, seats)  # refused (exit 2) while the run is being driven


def failed_followups(run_id: str, answers: Sequence[FollowUp]) -> str | None:
    """The one line a ``collab ask`` whose calls failed ends with; None if all answered.
    A failed follow-up is kept with the run (its status says so), so asking again is safe."""
    failed = [
        f"follow-up to {'the Judge' if f.seat == 'judge' else f'Role {f.seat}'} failed: {why}"
        for f in answers
        if (why := followup_error(f)) is not None
    ]
    if not failed:
        return None
    return "; ".join([*failed, f"ask again with collab ask {run_id}"])


def extend(
    state: RunState,
    rounds: int,
    note: str | None,
    when: str | None = None,
    surface: Surface = "cli",
) -> RunState:
    """``state`` made ready for ``rounds`` more rounds: the Judge's summary kept as
    superseded, the stop reason cleared, the note recorded for those rounds. Pure."""
    rid = state.run_id
    if state.status != "done":
        raise UsageError(
            f"run {rid} is {state.status}: continue adds rounds to a finished debate; "
            f"finish this one first with collab resume {rid}"
        )
    if not 1 <= rounds <= MAX_ROUNDS_PER_CONTINUE:
        flag = spell("rounds", surface)
        raise UsageError(f"{flag} must be 1–{MAX_ROUNDS_PER_CONTINUE}, got {rounds}")
    held = state.rounds_done()
    if held + rounds > MAX_ROUNDS_TOTAL:
        raise UsageError(
            f"run {rid} has held {held} rounds; a debate totals at most {MAX_ROUNDS_TOTAL} "
            f"(at most {max(0, MAX_ROUNDS_TOTAL - held)} more)"
        )
    if state.judge is not None:
        state.superseded_judges.append(state.judge)
    state.judge = None
    state.stop_reason, state.stop_detail, state.error = None, "", None
    state.config = replace(state.config, rounds=held + rounds)
    stamp = when or time.strftime("%Y-%m-%dT%H:%M:%S%z")
    state.continues.append(Continued(held, rounds, note, stamp))
    state.status = "pending"  # from here on, collab resume finishes it like any run
    return state


def prepare_continue(
    run_id: str,
    rounds: int,
    note: str | None,
    *,
    max_cost: float | None = None,
    surface: Surface = "cli",
) -> tuple[RunState, RunDir]:
    """Validate and save the continue (under the run's lock); the caller drives it.
    ``max_cost`` (MCP's cap) bounds the run's total too."""
    text = note_text(note, surface)
    run_dir = RunDir(run_id)
    with run_dir.locked(steering=True):
        state = extend(load_state(run_dir), rounds, text, surface=surface)
        if max_cost is not None:
            cap = min(max_cost, state.config.max_cost or max_cost)
            state.config = replace(state.config, max_cost=cap)
        check_cost(state, "more rounds", surface)
        run_dir.save(state.to_dict())
        c = state.continues[-1]
        append_event(run_dir.path / EVENTS_FILE, RoundsAdded(c.after_round + 1, c.rounds, c.note))
    return state, run_dir
