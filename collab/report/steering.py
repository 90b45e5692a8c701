"""What happened to a debate after it ended, as Markdown every report shares (the
transcript, ``collab show``, the HTML page): the decision and its history, how it turned
out. Pure: no I/O. Every text here is a person's or a model's: made one line and
table-safe where it sits in a line (:func:`collab.text.md_cell`)."""

from __future__ import annotations

from collab.decision import HumanDecision, current, superseded
from collab.state import RunState
from collab.text import md_cell


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


def steering_md(state: RunState) -> str:
    """Every steering section of a run, "" when there is none."""
    lines = decision_md(state)
    return "\n".join(lines).rstrip() + "\n" if lines else ""
