"""A debate's seats as every surface shows them: who sits where (label, role name,
agent, model, family of models), how many answered, where each seat stands on an issue
(the tally: agree / contest / silent, and the families on each side), and the warning
when every answering seat is one family of models. Pure: reads a run, no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from collab.agents.catalogue import UNKNOWN, model_family
from collab.ledger import Issue, tally
from collab.records import record
from collab.seats import SEATS, Seat
from collab.state import ANSWERED, RunState

ONE_FAMILY = "one model family: agreement may reflect one model's view"


@record
class SeatInfo:
    label: Seat
    name: str
    agent: str
    model: str | None
    family: str

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label, "name": self.name, "agent": self.agent, "model": self.model,
            "family": self.family,
        }  # fmt: skip


def seat_infos(state: RunState) -> tuple[SeatInfo, ...]:
    cfg = state.config
    return tuple(
        SeatInfo(s, cfg.role(s).name, cfg.agent(s).agent, cfg.agent(s).model,
                 model_family(cfg.agent(s).agent, cfg.agent(s).model))
        for s in cfg.seats
    )  # fmt: skip


def seat_families(state: RunState) -> dict[Seat, str]:
    """Each seat's family of models, by seat."""
    return {i.label: i.family for i in seat_infos(state)}


def answering(state: RunState) -> tuple[Seat, ...]:
    """The seats that answered at least one turn of the debate."""
    said = {t.side for t in state.turns if t.status in ANSWERED}
    return tuple(s for s in state.seats if s in said)


def one_family_note(state: RunState) -> str | None:
    """:data:`ONE_FAMILY` when the answering seats (two or more) share one family."""
    answered = answering(state)
    families = {f for s, f in seat_families(state).items() if s in answered}
    if any(f.startswith(UNKNOWN) for f in families):  # an unknown family is its own
        return None
    return ONE_FAMILY if len(answered) >= 2 and len(families) == 1 else None


def answered_line(state: RunState, round_no: int) -> str:
    """``2 of 3 seats answered`` for one round."""
    return f"{len(state.answered(round_no))} of {len(state.seats)} seats answered"


@record
class IssueTally:
    agree: tuple[Seat, ...]
    contest: tuple[Seat, ...]
    silent: tuple[Seat, ...]
    families_for: tuple[str, ...]  # the raiser's and the agreeing seats' families
    families_against: tuple[str, ...]  # the contesting seats'

    def to_dict(self) -> dict[str, object]:
        return {
            "agree": len(self.agree), "contest": len(self.contest), "silent": len(self.silent),
            "families_for": list(self.families_for),
            "families_against": list(self.families_against),
        }  # fmt: skip

    def line(self) -> str:
        """``2 agree · 1 contest · 0 silent (for: anthropic, openai; against: google)``."""
        counts = (
            f"{len(self.agree)} agree · {len(self.contest)} contest · {len(self.silent)} silent"
        )
        fams = f"for: {', '.join(self.families_for) or '—'}"
        if self.families_against:
            fams += f"; against: {', '.join(self.families_against)}"
        return f"{counts} ({fams})"


def issue_tally(state: RunState, issue: Issue) -> IssueTally:
    return issue_tallies(state, (issue,))[0]


def issue_tallies(state: RunState, issues: Sequence[Issue]) -> list[IssueTally]:
    """:func:`issue_tally` of each issue, the seats' families read once for all."""
    family = seat_families(state)
    return [_tally(issue, state.seats, family) for issue in issues]


def _tally(issue: Issue, seats: tuple[Seat, ...], family: Mapping[Seat, str]) -> IssueTally:
    got = tally(issue, seats)

    def fams(who: tuple[Seat, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(family[s] for s in who))

    return IssueTally(
        got["agree"], got["contest"], got["silent"],
        fams((issue.raised_by, *got["agree"])), fams(got["contest"]),
    )  # fmt: skip


# The JSON Schemas of a seat and a tally in ``collab.result/2`` (collab.report.schemas
# publishes them).
_TEXTS = {"type": "array", "items": {"type": "string"}}
SEAT_JSON_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "label": {"enum": list(SEATS)},
        **{k: {"type": "string"} for k in ("name", "agent", "family")},
        "model": {"type": ["string", "null"]},
    },
    "required": ["label", "name", "agent", "model", "family"],
}
TALLY_JSON_SCHEMA: dict[str, object] = {
    "type": "object",
    "description": "The seats but the raiser by their latest stance; the families of models "
    "on each side (unknown:AGENT:MODEL is a family of its own)",
    "properties": {
        **{k: {"type": "integer", "minimum": 0} for k in ("agree", "contest", "silent")},
        "families_for": _TEXTS,
        "families_against": _TEXTS,
    },
    "required": ["agree", "contest", "silent", "families_for", "families_against"],
}
