"""The decision input of a run as Markdown every report shares (the transcript,
``collab show``, the HTML page): the options (O1…), the constraints, the leaning of the
person deciding (the Judge saw it, the seats did not), and which option each seat
favoured round by round, flips marked. Pure: no I/O; every text is a person's or a
model's, made one line and table-safe (:func:`collab.text.md_cell`)."""

from __future__ import annotations

from typing import Any

from collab.decision import option_ids
from collab.favours import Flip, flips, most_favoured, preference_rows
from collab.seats import SEATS
from collab.state import RunState
from collab.text import md_cell

_STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
# The result document's optional decision-input fields (collab.report.documents), in the
# collab.result/1 schema (collab.report.schemas).
DECISION_INPUT_PROPERTIES: dict[str, Any] = {
    "options": {
        "type": "array",
        "description": "--option: the options the debate weighed, O1… (absent: none given)",
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^O[1-9]$"},
                "text": {"type": "string"},
            },
            "required": ["id", "text"],
        },
    },
    "constraints": {
        "type": "array",
        "items": {"type": "string"},
        "description": "--constraint (absent: none given)",
    },
    "leaning": {
        "type": "string",
        "description": "--leaning: what the person deciding leans towards; the Judge's "
        "prompt only (absent: none given)",
    },
    "favours": {
        "type": "array",
        "description": "With options: the option each seat favoured in each round "
        "(null: it named none that round)",
        "items": {
            "type": "object",
            "properties": {
                "seat": {"type": "string"},
                "round": {"type": "integer", "minimum": 1},
                "option": _STR_OR_NULL,
            },
            "required": ["seat", "round", "option"],
        },
    },
    "flips": {
        "type": "array",
        "description": "With options: each time a seat named another option than before",
        "items": {
            "type": "object",
            "properties": {
                "seat": {"type": "string"},
                "round": {"type": "integer", "minimum": 1},
                "from": {"type": "string"},
                "to": {"type": "string"},
            },
            "required": ["seat", "round", "from", "to"],
        },
    },
    "most_favoured": {
        **_STR_OR_NULL,
        "description": "With options: the option most seats favoured at the end (null: "
        "none, or a tie)",
    },
}


def flip_text(f: Flip) -> str:
    """One flip, as the transcript, the reports and ``collab watch`` say it."""
    return f"Role {f.seat} now favours {f.new} (was {f.old}) in round {f.round_no}"


def decision_input_md(state: RunState) -> list[str]:
    """``## Decision input``; nothing when the run was given no options, constraints or
    leaning."""
    cfg = state.config
    if not (cfg.options or cfg.constraints or cfg.leaning):
        return []
    out = ["## Decision input", ""]
    if cfg.options:
        out += ["Options:", ""]
        ids = option_ids(cfg.options)
        out += [f"- **{i}** {md_cell(o, 300)}" for i, o in zip(ids, cfg.options, strict=True)]
        out.append("")
    if cfg.constraints:
        out += ["Constraints:", "", *(f"- {md_cell(c, 300)}" for c in cfg.constraints), ""]
    if cfg.leaning:
        out += [f"Leaning of the person deciding (shown to the Judge only): "
                f"{md_cell(cfg.leaning, 1000)}", ""]  # fmt: skip
    if cfg.options and state.turns:
        rows = preference_rows(state.turns, SEATS)
        rounds = sorted({t.round_no for t in state.turns})
        out += ["### Favoured option per round", "",
                "| seat | " + " | ".join(f"R{r}" for r in rounds) + " |",
                "|---|" + "---|" * len(rounds)]  # fmt: skip
        out += [f"| Role {seat} | " + " | ".join(cells) + " |" for seat, cells in rows]
        out.append("")
        out += [f"- ⇄ {flip_text(f)}" for f in flips(state.turns)]
        top = most_favoured(state.turns)
        out += [f"- Most seats favour **{top}** at the end." if top
                else "- No option is favoured by most seats at the end."]  # fmt: skip
        out.append("")
    return out
