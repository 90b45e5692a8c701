"""What the prompt templates see: small typed views, every string already neutralised
(``collab.text.for_prompt``), and the caps that keep a prompt small."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from collab.config import DebateConfig, Role
from collab.contract import DEFAULT_LIMITS, DEFAULT_SEVERITY
from collab.evidence import FAILED, marks
from collab.ledger import Issue, Ledger
from collab.options import MAX_TOPIC_CHARS
from collab.presets import MAX_ROLE_DESCRIPTION_CHARS, MAX_ROLE_NAME_CHARS
from collab.seats import SEATS, Side, seat_index
from collab.text import for_prompt, prompt_cell, prompt_line

MAX_CONTEXT_CHARS_PER_FILE = 20_000
# A reply shown in a later prompt is capped at this many times cfg.max_chars (the reply
# itself was already cut at turn.REPLY_CAP_FACTOR times it when it came in).
PROMPT_REPLY_FACTOR = 4


def older_reply_cap(cfg: DebateConfig) -> int:
    """The round before the previous one is context, not what to rebut: an excerpt."""
    return max(200, cfg.max_chars // 5)


MAX_PATH_CHARS = 300
MAX_ERROR_CHARS = 1_000
MAX_ANGLE_CHARS = 500
# Per cell in the debaters' table, for open issues argued in the last round; the judge
# sees the full cap. Older or closed issues show only id, status and title ("·"), so the
# prompt grows with the live argument, not with the history (the rounds shown carry it).
LEDGER_EVIDENCE_CHARS = 80
ELIDED = "·"


@dataclass(frozen=True)
class TurnView:
    round_no: int
    side: Side
    role_name: str
    prose: str  # the prose only (contract block removed); may be "(timeout)" / "(no response)"
    status: str  # "ok" | "abstain" | "timeout" | "no-response" | "error"


@lru_cache(maxsize=32)
def context_text(text: str) -> str:
    """Context files are the same in every prompt of a run: neutralise each one once."""
    return for_prompt(text.rstrip(), MAX_CONTEXT_CHARS_PER_FILE)


# ---------------------------------------------------------------------------
# What the templates see: small typed views, every string already neutralised.


@dataclass(frozen=True)
class RoleView:
    side: Side
    name: str
    description: str


@dataclass(frozen=True)
class ContextView:
    n: int
    path: str
    text: str


@dataclass(frozen=True)
class IssueRow:
    id: str
    status: str
    title: str
    raised_by: str
    evidence_a: str
    evidence_b: str
    # Every seat's evidence, in seat order (the ledger tables of any seat count).
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnRow:
    round_no: int
    side: Side
    name: str
    status: str
    prose: str


@dataclass(frozen=True)
class JudgeIssue:
    id: str
    status: str
    title: str
    raised_by: str
    evidence_1: str
    evidence_2: str
    # Every Position's evidence, Position 1 first.
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgeTurn:
    round_no: int
    label: str
    position: int
    status: str
    prose: str


@dataclass(frozen=True)
class ContractView:
    max_new_points: int
    max_title_chars: int
    max_evidence_chars: int
    max_abstain_chars: int
    ids: tuple[str, ...]
    example_id: str


def role_view(role: Role) -> RoleView:
    return RoleView(
        side=role.side,
        name=prompt_line(role.name, MAX_ROLE_NAME_CHARS),
        description=for_prompt(role.description.strip(), MAX_ROLE_DESCRIPTION_CHARS),
    )


_AND = {"en": " and ", "ja": "、"}
_COMMA = {"en": ", ", "ja": "、"}


def speaker(cfg: DebateConfig, side: Side) -> dict[str, object]:
    """What every debater-facing prompt shows: the topic, who speaks, who answers (the
    other seats: one opponent, or a panel's others as one joined name). Each seat's view
    is made once (in seat order), then shown wherever the prompt names that seat."""
    views = [role_view(r) for r in cfg.roles]
    me = views[seat_index(side)]
    others = [views[n] for n, s in enumerate(cfg.seats) if s != side]
    joined = [o.name for o in others]
    comma, conj = _COMMA[cfg.lang], _AND[cfg.lang]
    name = comma.join(joined[:-1]) + conj + joined[-1] if len(joined) > 1 else joined[0]
    opponent = (
        others[0]
        if len(others) == 1
        else RoleView(
            side="/".join(o.side for o in others),  # type: ignore[arg-type]
            name=name,
            description="",
        )
    )
    return {
        "topic": for_prompt(cfg.topic.strip(), MAX_TOPIC_CHARS),
        "me": me,
        "opponent": opponent,
        "role_a": views[0],
        "role_b": views[1],
        "panel": len(cfg.seats) > 2,
        "quorum": cfg.quorum,
        "seat_names": [f"{v.side} = {v.name}" for v in views],
        "seats": list(cfg.seats),
    }


STALE_TITLE_CHARS = 80


def rated_title(issue: Issue, title: str) -> str:
    """``title`` (the issue's, already made safe) as the prompts show it: after its
    severity unless that is the default, ``major`` (``[blocking] …``, ``[minor] …``)."""
    if issue.severity == DEFAULT_SEVERITY:
        return title
    return f"[{issue.severity}] {title}"


def failed_evidence(ledger: Ledger, name: Callable[[Side], str]) -> list[str]:
    """One line per issue and seat whose cited evidence failed its check, for the prompts."""
    out = []
    for issue in ledger.issues:
        for side in SEATS:
            bad = [c for c in issue.checks(side) if c.status in FAILED]
            if bad:
                out.append(prompt_line(f"{issue.id}, {name(side)}: {marks(bad)}", 300))
    return out


def issue_row(issue: Issue, evidence_cap: int, seats: Sequence[Side] = ("A", "B")) -> IssueRow:
    """``evidence_cap`` 0: a stale row, without evidence (``ELIDED``) and a shorter title."""
    return IssueRow(
        id=prompt_cell(issue.id, 16),
        status=issue.status,
        title=rated_title(
            issue,
            prompt_cell(
                issue.title, DEFAULT_LIMITS.max_title_chars if evidence_cap else STALE_TITLE_CHARS
            ),
        ),
        raised_by=issue.raised_by,
        evidence_a=prompt_cell(issue.evidence_a, evidence_cap) if evidence_cap else ELIDED,
        evidence_b=prompt_cell(issue.evidence_b, evidence_cap) if evidence_cap else ELIDED,
        evidence=tuple(
            prompt_cell(issue.evidence(s), evidence_cap) if evidence_cap else ELIDED for s in seats
        ),
    )


def live_ledger_rows(
    ledger: Ledger, round_no: int, seats: Sequence[Side] = ("A", "B")
) -> list[IssueRow]:
    """Evidence only for open issues changed in the previous round or this one."""
    return [
        issue_row(
            i,
            LEDGER_EVIDENCE_CHARS if i.status == "open" and i.round_updated >= round_no - 1 else 0,
            seats,
        )
        for i in ledger.issues
    ]


def turn_rows(turns: Sequence[TurnView], reply_cap: int) -> list[TurnRow]:
    return [
        TurnRow(
            round_no=t.round_no,
            side=t.side,
            name=prompt_line(t.role_name, MAX_ROLE_NAME_CHARS),
            status=prompt_line(t.status, 20),
            prose=for_prompt(t.prose.strip(), reply_cap) or "(empty)",
        )
        for t in turns
    ]


def contract_view(ledger: Ledger) -> ContractView:
    ids = tuple(prompt_line(i.id, 16) for i in ledger.issues)
    open_ids = [prompt_line(i.id, 16) for i in ledger.issues if i.status == "open"]
    example = open_ids[0] if open_ids else (ids[0] if ids else "I1")
    return ContractView(
        max_new_points=DEFAULT_LIMITS.max_new_points,
        max_title_chars=DEFAULT_LIMITS.max_title_chars,
        max_evidence_chars=DEFAULT_LIMITS.max_evidence_chars,
        max_abstain_chars=DEFAULT_LIMITS.max_abstain_chars,
        ids=ids,
        example_id=example,
    )


def recent_turns(history: Sequence[TurnView], side: Side, round_no: int) -> list[TurnView]:
    """The two rounds before this one, plus this round's replies so far (the seats that
    spoke before this one: ``history`` holds only the turns already taken)."""
    first = round_no - 2
    return [
        t
        for t in history
        if first <= t.round_no < round_no or (t.round_no == round_no and t.side != side)
    ]
