"""What happened to a debate after it ended, as Markdown every report shares (the
transcript, ``collab show``, the HTML page): the rounds a continue added and the note
that came with them, the summaries they superseded, the follow-up questions and their
answers, the decision and its history, how it turned out. Pure: no I/O. Every text
here is a person's or a model's: made one line and table-safe where it sits in a line
(:func:`collab.text.md_cell`)."""

from __future__ import annotations

from collab.decision import HumanDecision, current, superseded
from collab.report.decision_input import decision_input_md
from collab.report.markup import demote_headings
from collab.state import FollowUp, RunState
from collab.text import md_cell, one_line


def followup_error(f: FollowUp) -> str | None:
    """Why a follow-up has no answer: its call's status and error (one line); None when
    it answered."""
    if f.status == "ok":
        return None
    error = None if f.meta is None else f.meta.error
    return f"{f.status} ({one_line(error, 200)})" if error else f.status


def _decision_line(d: HumanDecision) -> str:
    label = f"{d.option}: {md_cell(d.text)}" if d.option else md_cell(d.text)
    return f"{label} — by {md_cell(d.by, 100)}, {d.when}"


def decision_md(state: RunState) -> list[str]:
    """``## Decision``: the choice in force (with why), the outcome, then the superseded
    ones struck through; nothing when no decision was recorded."""
    if not state.decisions:
        return []
    out = ["## Decision", ""]
    choice = current(state.decisions)
    if choice is None:
        out.append("- **Decided:** not yet (status: proposed)")
    else:
        out.append(f"- **Decided** (accepted): {_decision_line(choice)}")
        if choice.why:
            out.append(f"  - Why: {md_cell(choice.why)}")
    outcome = current(state.decisions, "outcome")
    if outcome is not None:
        out.append(f"- **Outcome:** {_decision_line(outcome)}")
    for d in superseded(state.decisions):
        out.append(f"- Superseded {d.kind}: ~~{_decision_line(d)}~~")
    return [*out, ""]


def continues_md(state: RunState) -> list[str]:
    """``## Continued``: each continue's rounds and note, then the superseded summaries."""
    if not state.continues and not state.superseded_judges:
        return []
    out = ["## Continued", ""]
    for c in state.continues:
        first, last = c.after_round + 1, c.after_round + c.rounds
        span = f"round {first}" if first == last else f"rounds {first}–{last}"
        note = f" with a note from the person who decides: {md_cell(c.note)}" if c.note else ""
        out.append(f"- {span} added {c.when}{note}")
    for n, j in enumerate(state.superseded_judges, 1):
        out += ["", f"### Superseded summary {n}", "", "<details><summary>the summary a "
                "continue replaced</summary>", "", demote_headings(demote_headings(
                    j.text.strip())), "", "</details>"]  # fmt: skip
    return [*out, ""]


def _followup(f: FollowUp, names: dict[str, str]) -> list[str]:
    status = "" if f.status == "ok" else f" · {f.status}"
    return [
        f"### {names[f.seat]} · after round {f.after_round} · {f.when}{status}",
        "",
        f"> **Question:** {md_cell(f.question)}",
        "",
        demote_headings(demote_headings(f.answer.strip())),
        "",
    ]


def followups_md(state: RunState) -> list[str]:
    """``## Follow-up questions``: each question and each seat's answer, in order."""
    if not state.followups:
        return []
    cfg = state.config
    names: dict[str, str] = {
        seat: f"Role {seat} ({md_cell(cfg.role(seat).name, 100)})" for seat in cfg.seats
    }
    names["judge"] = "The Judge"
    out = ["## Follow-up questions", "", "_Asked after the debate; the ledger is unchanged._", ""]
    for f in state.followups:
        out += _followup(f, names)
    return out


def steering_md(state: RunState) -> str:
    """Every steering section of a run, "" when there is none."""
    lines = decision_input_md(state) + continues_md(state) + followups_md(state)
    lines += decision_md(state)
    return "\n".join(lines).rstrip() + "\n" if lines else ""
