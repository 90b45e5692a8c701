"""``collab decide`` (and MCP ``debate_decide``): record the decision a run served, or how
it turned out, in its state.json, its events and its reports. Deciding again appends:
the earlier decision stays, superseded (:mod:`collab.decision`).

The run's lock is taken for the write, so a run being driven is refused (exit 2) rather
than raced; the text is cleaned, capped and secret-scanned like a topic.
"""

from __future__ import annotations

import os
import pwd
import time
from collections.abc import Callable

from collab.decision import HumanDecision, resolve_choice, user_text
from collab.errors import StorageError, UsageError
from collab.eventlog import append_event
from collab.events import Decided
from collab.options import Surface, spell
from collab.report import write_reports
from collab.secret_scan import ensure_no_secrets
from collab.state import RunState, load_state
from collab.store import RunDir

EVENTS_FILE = "events.jsonl"
MAX_BY_CHARS = 100


def decider() -> str:
    """Who decides on this machine: ``$USER``, else the login name of this process."""
    name = os.environ.get("USER", "").strip()
    if not name:
        try:
            name = pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            name = f"uid {os.getuid()}"
    return name


def record_decision(
    run_id: str,
    *,
    choice: str | None = None,
    why: str | None = None,
    outcome: str | None = None,
    by: str | None = None,
    warn: Callable[[str], None] | None = None,
    surface: Surface = "cli",
) -> RunState:
    """Append a choice (``choice``, ``why``) or an outcome to run ``run_id`` (a full id).
    Once state.json is saved, an events file or report that cannot be written is told to
    ``warn`` (the decision is kept either way). Messages name an argument as ``surface``
    spells it."""
    name = {k: spell(k, surface) for k in ("choice", "outcome", "why")}
    if (choice is None) == (outcome is None):
        raise UsageError(
            f"give {name['choice']} (the decision) or {name['outcome']} (how it turned out)"
        )
    if outcome is not None and why is not None:
        raise UsageError(f"{name['why']} goes with {name['choice']}")
    who = user_text(by or decider(), "the decider's name", MAX_BY_CHARS)
    run_dir = RunDir(run_id)
    state = load_state(run_dir)  # an unknown or damaged run says so before the lock
    with run_dir.locked(steering=True):
        state = load_state(run_dir)
        if choice is not None:
            option, text = resolve_choice(choice, _options(state), name["choice"])
            reason = None if why is None else user_text(why, name["why"])
            entry = HumanDecision("choice", text, who, _now(), option=option, why=reason)
        else:
            assert outcome is not None
            entry = HumanDecision("outcome", user_text(outcome, name["outcome"]), who, _now())
        ensure_no_secrets(
            "",
            [],
            others=[(name[entry.kind], entry.text), (name["why"], entry.why or "")],
            remedy="remove",
        )
        state.decisions.append(entry)
        run_dir.save(state.to_dict())
        # Saved: from here on a failure is a warning (``warn``), not an error that would
        # say the decision was not kept.
        what = "decision" if entry.kind == "choice" else "outcome"
        try:
            append_event(run_dir.path / EVENTS_FILE, Decided(entry))
        except StorageError as exc:
            (warn or _ignore)(f"the {what} is saved, but not in the run's events: {exc}")
        try:
            write_reports(state, run_dir)
        except StorageError as exc:
            (warn or _ignore)(f"the {what} is saved, but the reports were not rewritten: {exc}")
    return state


def _ignore(text: str) -> None:
    """No one to tell: the saved state is what counts."""


def _options(state: RunState) -> tuple[str, ...]:
    """The options the run weighed (``--option``): a choice names one of them by id or
    exact text (collab.decision.resolve_choice); without options it is free text."""
    return state.config.options


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
