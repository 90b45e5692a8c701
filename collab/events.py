"""What happens in a run, as typed events: made by the orchestrator and the turns,
stamped (``seq``, ``ts``) and coalesced by :class:`collab.eventlog.EventStream`, and
consumed typed by every view (the terminal view, ``collab watch``, ``collab status``,
the MCP progress).

Their JSON form, ``collab.event/1``, is made here (:func:`to_json`) only where an event
is written or sent (events.jsonl, ``--events ndjson``), and read back here once
(:func:`from_json`). The rule for a line read back:

- not a ``collab.event/1`` object (a torn last line, another document): not an event,
  skipped;
- a kind this version knows with a field it cannot take (a status or a side outside its
  values, a missing number): :class:`BadEvent`, which the reader reports, never guessed;
- a kind this version does not know (a newer collab wrote it): :class:`Unknown`, kept
  with its fields; the views pass over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeVar, get_args

from collab.contract import STANCE_KINDS, StanceKind
from collab.decision import DECISION_KINDS, HumanDecision
from collab.fields import DamagedField, Fields
from collab.ledger import (
    Issue,
    Ledger,
    Resolution,
    counts,
    ledger_to_dict,
)
from collab.seats import SIDES, Side
from collab.state import RunStatus, issue_from_fields
from collab.turns import TURN_STATUSES, TurnRecord, TurnStatus

EVENT_SCHEMA = "collab.event/1"

# Who a turn event is about: a debater, or the Judge.
Speaker = Literal["A", "B", "C", "D", "E", "judge"]
SPEAKERS: tuple[Speaker, ...] = get_args(Speaker)
RESOLUTIONS: tuple[Resolution, ...] = get_args(Resolution)
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)


class BadEvent(ValueError):
    """A ``collab.event/1`` line of a known kind with a field it cannot take."""


# -- the events ------------------------------------------------------------------------
@dataclass(frozen=True)
class RunStarted:
    kind: ClassVar[str] = "run_started"
    run_id: str
    topic: str
    preset: str
    rounds: int
    runner: str
    attach: str | None
    resumed: bool
    roles: Mapping[Side, str]
    # collab continue: the rounds it adds (0: none) and the decider's note.
    continued: int = 0
    note: str | None = None


@dataclass(frozen=True)
class Planned:
    """Before the first call: the plan's document (collab.plan) and its lines as shown."""

    kind: ClassVar[str] = "plan"
    plan: Mapping[str, object]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class RoundStarted:
    kind: ClassVar[str] = "round_started"
    round: int
    total: int
    order: tuple[Side, ...] = ()  # the seats as they speak (empty: before panels)
    at_once: bool = False


@dataclass(frozen=True)
class TurnStarted:
    kind: ClassVar[str] = "turn_started"
    round: int
    side: Side
    role: str


@dataclass(frozen=True)
class Text:
    """Reply text added since the last one (coalesced); ``round`` is None for the Judge."""

    kind: ClassVar[str] = "text"
    side: Speaker
    text: str
    round: int | None = None
    followup: bool = False  # collab ask: a follow-up's text (no round)


@dataclass(frozen=True)
class Heartbeat:
    kind: ClassVar[str] = "heartbeat"
    side: Speaker
    elapsed_s: float
    turn_left_s: float
    run_left_s: float
    round: int | None = None
    followup: bool = False


@dataclass(frozen=True)
class TurnRetry:
    kind: ClassVar[str] = "turn_retry"
    round: int
    side: Side
    reason: str
    detail: str


@dataclass(frozen=True)
class Tokens:
    input: int
    output: int


@dataclass(frozen=True)
class Stance:
    id: str
    stance: StanceKind


@dataclass(frozen=True)
class TurnFinished:
    kind: ClassVar[str] = "turn_finished"
    round: int
    side: Side
    role: str
    status: TurnStatus
    duration_s: float
    cost_usd: float | None
    cost_estimated: bool  # the cost is ours, from the price table (the agent reported none)
    tokens: Tokens | None
    new_points: tuple[str, ...]
    stances: tuple[Stance, ...]
    abstain: str | None
    prose: str
    warnings: tuple[str, ...]

    @classmethod
    def of(cls, turn: TurnRecord) -> TurnFinished:
        c, usage = turn.contract, turn.meta.usage
        return cls(
            round=turn.round_no, side=turn.side, role=turn.role_name, status=turn.status,
            duration_s=turn.meta.duration, cost_usd=turn.cost_usd,
            cost_estimated=turn.meta.cost_estimated,
            tokens=None if usage is None else Tokens(usage.input_tokens, usage.output_tokens),
            new_points=() if c is None else tuple(p.title for p in c.new_points),
            stances=() if c is None else tuple(Stance(s.id, s.stance) for s in c.stances),
            abstain=None if c is None else c.abstain, prose=turn.prose,
            warnings=tuple(turn.warnings),
        )  # fmt: skip


@dataclass(frozen=True)
class RunWarning:
    kind: ClassVar[str] = "warning"
    text: str


@dataclass(frozen=True)
class LedgerUpdated:
    """The ledger after a round (``issues`` and ``counts`` in its JSON form)."""

    kind: ClassVar[str] = "ledger"
    round: int
    ledger: Ledger
    answered: tuple[Side, ...] = ()  # the seats that answered, of ``seats`` (0: not said)
    seats: int = 0


@dataclass(frozen=True)
class AngleInjected:
    kind: ClassVar[str] = "angle"
    round: int
    text: str
    issue_ids: tuple[str, ...]


@dataclass(frozen=True)
class Stopped:
    kind: ClassVar[str] = "stop"
    reason: str
    detail: str


@dataclass(frozen=True)
class JudgeStarted:
    kind: ClassVar[str] = "judge_started"
    labels: Mapping[str, str] = field(default_factory=dict)  # "Position 1" → the role's name


@dataclass(frozen=True)
class JudgeFinished:
    kind: ClassVar[str] = "judge_finished"
    markdown: str
    fallback: bool


@dataclass(frozen=True)
class RunFinished:
    """The last event of a run (also after Ctrl-C or a runner failure)."""

    kind: ClassVar[str] = "run_finished"
    status: RunStatus
    exit_code: int
    error: str | None


@dataclass(frozen=True)
class FollowupStarted:
    """``collab ask``: a follow-up turn of ``side`` begins."""

    kind: ClassVar[str] = "followup_started"
    side: Speaker
    question: str


@dataclass(frozen=True)
class FollowupFinished:
    kind: ClassVar[str] = "followup"
    side: Speaker
    answer: str
    status: str


@dataclass(frozen=True)
class RoundsAdded:
    """``collab continue``: ``rounds`` more rounds from round ``round`` on."""

    kind: ClassVar[str] = "continued"
    round: int
    rounds: int
    note: str | None


@dataclass(frozen=True)
class Decided:
    """``collab decide``: what the person deciding recorded."""

    kind: ClassVar[str] = "decided"
    decision: HumanDecision


@dataclass(frozen=True)
class FavoursFlipped:
    """With ``--option``: a seat names another option than the last one it favoured."""

    kind: ClassVar[str] = "favours_flip"
    round: int
    side: str  # the seat's label, A..E
    old: str
    new: str


@dataclass(frozen=True)
class Unknown:
    """A kind this version does not know, read back from a newer collab's file."""

    kind: str
    fields: Mapping[str, object] = field(default_factory=dict)


Event = (
    RunStarted | Planned | RoundStarted | TurnStarted | Text | Heartbeat | TurnRetry | TurnFinished
    | RunWarning | LedgerUpdated | AngleInjected | Stopped | JudgeStarted | JudgeFinished
    | RunFinished | FollowupStarted | FollowupFinished | RoundsAdded | Decided | FavoursFlipped
    | Unknown
)  # fmt: skip


@dataclass(frozen=True)
class Logged:
    """An event as the stream numbered it: ``seq`` strictly increasing in one driving
    process, ``ts`` wall-clock seconds."""

    seq: int
    ts: float
    event: Event

    def to_json(self) -> dict[str, object]:
        return to_json(self)


# -- to JSON -----------------------------------------------------------------------------
def _where(side: Speaker, round_no: int | None, followup: bool) -> dict[str, object]:
    where: dict[str, object] = {} if round_no is None else {"round": round_no}
    where["side"] = side
    if followup:
        where["followup"] = True
    return where


def _fields(ev: Event) -> dict[str, object]:
    match ev:
        case RunStarted():
            return {
                "run_id": ev.run_id, "topic": ev.topic, "preset": ev.preset,
                "rounds": ev.rounds, "runner": ev.runner, "attach": ev.attach,
                "resumed": ev.resumed, "roles": dict(ev.roles),
            } | ({"continued": ev.continued, "note": ev.note} if ev.continued else {})  # fmt: skip
        case Planned():
            return {"plan": dict(ev.plan), "lines": list(ev.lines)}
        case RoundStarted():
            return {
                "round": ev.round,
                "total": ev.total,
                "order": [*ev.order],
                "at_once": ev.at_once,
            }
        case TurnStarted():
            return {"round": ev.round, "side": ev.side, "role": ev.role}
        case Text():
            return {**_where(ev.side, ev.round, ev.followup), "text": ev.text}
        case Heartbeat():
            return {
                **_where(ev.side, ev.round, ev.followup), "elapsed_s": ev.elapsed_s,
                "turn_left_s": ev.turn_left_s, "run_left_s": ev.run_left_s,
            }  # fmt: skip
        case TurnRetry():
            return {"round": ev.round, "side": ev.side, "reason": ev.reason, "detail": ev.detail}
        case TurnFinished():
            tokens = ev.tokens
            return {
                "round": ev.round, "side": ev.side, "role": ev.role, "status": ev.status,
                "duration_s": ev.duration_s, "cost_usd": ev.cost_usd,
                "cost_estimated": ev.cost_estimated,
                "tokens": None if tokens is None else {"input": tokens.input,
                                                       "output": tokens.output},
                "new_points": list(ev.new_points),
                "stances": [{"id": s.id, "stance": s.stance} for s in ev.stances],
                "abstain": ev.abstain, "prose": ev.prose, "warnings": list(ev.warnings),
            }  # fmt: skip
        case RunWarning():
            return {"text": ev.text}
        case LedgerUpdated():
            return {
                "round": ev.round,
                "issues": ledger_to_dict(ev.ledger),
                "counts": counts(ev.ledger),
                "answered": list(ev.answered),
                "seats": ev.seats,
            }
        case AngleInjected():
            return {"round": ev.round, "text": ev.text, "issue_ids": list(ev.issue_ids)}
        case Stopped():
            return {"reason": ev.reason, "detail": ev.detail}
        case JudgeStarted():
            return {"labels": dict(ev.labels)}
        case JudgeFinished():
            return {"markdown": ev.markdown, "fallback": ev.fallback}
        case RunFinished():
            return {"status": ev.status, "exit_code": ev.exit_code, "error": ev.error}
        case FollowupStarted():
            return {"side": ev.side, "question": ev.question}
        case FollowupFinished():
            return {"side": ev.side, "answer": ev.answer, "status": ev.status}
        case RoundsAdded():
            return {"round": ev.round, "rounds": ev.rounds, "note": ev.note}
        case Decided():
            return ev.decision.to_dict()
        case FavoursFlipped():
            return {"round": ev.round, "side": ev.side, "from": ev.old, "to": ev.new}
        case Unknown():
            return dict(ev.fields)


def to_json(logged: Logged) -> dict[str, object]:
    """The ``collab.event/1`` object of an event (one line of events.jsonl)."""
    doc: dict[str, object] = {"schema": EVENT_SCHEMA, "seq": logged.seq, "ts": logged.ts}
    doc["event"] = logged.event.kind
    doc.update(_fields(logged.event))
    return doc


# -- from JSON ---------------------------------------------------------------------------
_T = TypeVar("_T", bound=str)


class _Doc:
    """One event's fields, each read as the type it must have (else :class:`BadEvent`)."""

    def __init__(self, kind: str, doc: Mapping[str, object]) -> None:
        self.kind = kind
        self.doc = doc

    def bad(self, key: str, want: str) -> BadEvent:
        return BadEvent(f"{self.kind} event: {key} must be {want}, got {self.doc.get(key)!r}")

    def string(self, key: str, default: str | None = None) -> str:
        v = self.doc.get(key, default)
        if not isinstance(v, str):
            raise self.bad(key, "a string")
        return v

    def opt_string(self, key: str) -> str | None:
        return None if self.doc.get(key) is None else self.string(key)

    def integer(self, key: str) -> int:
        v = self.doc.get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.bad(key, "an integer")
        return v

    def opt_integer(self, key: str) -> int | None:
        return None if self.doc.get(key) is None else self.integer(key)

    def number(self, key: str) -> float:
        v = self.doc.get(key)
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise self.bad(key, "a number")
        return float(v)

    def opt_number(self, key: str) -> float | None:
        return None if self.doc.get(key) is None else self.number(key)

    def flag(self, key: str) -> bool:
        v = self.doc.get(key, False)
        if not isinstance(v, bool):
            raise self.bad(key, "true or false")
        return v

    def seats(self, key: str) -> tuple[Side, ...]:  # a list of seats A–E; missing is empty
        return tuple(self.one_of(key, SIDES, v) for v in self.strings(key))

    def one_of(self, key: str, values: tuple[_T, ...], v: object = None) -> _T:
        v = self.doc.get(key) if v is None else v
        for allowed in values:
            if v == allowed:
                return allowed
        raise self.bad(key, "one of " + "/".join(values))

    def strings(self, key: str) -> tuple[str, ...]:
        v = self.doc.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.bad(key, "a list of strings")
        return tuple(v)

    def objects(self, key: str) -> list[_Doc]:
        v = self.doc.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise self.bad(key, "a list of objects")
        return [_Doc(f"{self.kind} {key}", x) for x in v]

    def obj(self, key: str) -> _Doc | None:
        v = self.doc.get(key)
        if v is None:
            return None
        if not isinstance(v, dict):
            raise self.bad(key, "an object")
        return _Doc(f"{self.kind} {key}", v)


def _issue(d: _Doc) -> Issue:
    try:
        return issue_from_fields(Fields(d.doc, d.kind))
    except DamagedField as exc:
        raise BadEvent(f"{d.kind} event: {exc}") from None


def _event(kind: str, d: _Doc) -> Event:
    match kind:
        case "run_started":
            roles = d.obj("roles")
            if roles is None:
                raise d.bad("roles", "an object")
            return RunStarted(
                run_id=d.string("run_id"), topic=d.string("topic"), preset=d.string("preset"),
                rounds=d.integer("rounds"), runner=d.string("runner"),
                attach=d.opt_string("attach"), resumed=d.flag("resumed"),
                roles={s: roles.string(s) for s in SIDES if s in roles.doc or s in "AB"},
                continued=d.integer("continued") if "continued" in d.doc else 0,
                note=d.opt_string("note"),
            )  # fmt: skip
        case "round_started":
            total, order = d.integer("total"), d.seats("order")
            return RoundStarted(d.integer("round"), total, order, d.flag("at_once"))
        case "turn_started":
            return TurnStarted(
                round=d.integer("round"), side=d.one_of("side", SIDES), role=d.string("role")
            )
        case "text":
            return Text(
                side=d.one_of("side", SPEAKERS), text=d.string("text"),
                round=d.opt_integer("round"), followup=d.flag("followup"),
            )  # fmt: skip
        case "heartbeat":
            return Heartbeat(
                side=d.one_of("side", SPEAKERS), elapsed_s=d.number("elapsed_s"),
                turn_left_s=d.number("turn_left_s"), run_left_s=d.number("run_left_s"),
                round=d.opt_integer("round"), followup=d.flag("followup"),
            )  # fmt: skip
        case "turn_retry":
            return TurnRetry(
                round=d.integer("round"), side=d.one_of("side", SIDES), reason=d.string("reason"),
                detail=d.string("detail", ""),
            )  # fmt: skip
        case "turn_finished":
            tokens = d.obj("tokens")
            return TurnFinished(
                round=d.integer("round"), side=d.one_of("side", SIDES), role=d.string("role"),
                status=d.one_of("status", TURN_STATUSES), duration_s=d.number("duration_s"),
                cost_usd=d.opt_number("cost_usd"), cost_estimated=d.flag("cost_estimated"),
                tokens=None if tokens is None else Tokens(tokens.integer("input"),
                                                          tokens.integer("output")),
                new_points=d.strings("new_points"),
                stances=tuple(Stance(s.string("id"), s.one_of("stance", STANCE_KINDS))
                              for s in d.objects("stances")),
                abstain=d.opt_string("abstain"), prose=d.string("prose", ""),
                warnings=d.strings("warnings"),
            )  # fmt: skip
        case "plan":
            plan = d.doc.get("plan")
            if not isinstance(plan, dict):
                raise BadEvent(f"plan must be an object, got {plan!r}")
            return Planned(plan=plan, lines=d.strings("lines"))
        case "warning":
            return RunWarning(text=d.string("text"))
        case "ledger":
            issues = tuple(_issue(i) for i in d.objects("issues"))
            seats = d.integer("seats") if "seats" in d.doc else 0
            return LedgerUpdated(d.integer("round"), Ledger(issues), d.seats("answered"), seats)
        case "angle":
            return AngleInjected(
                round=d.integer("round"), text=d.string("text"), issue_ids=d.strings("issue_ids")
            )
        case "stop":
            return Stopped(reason=d.string("reason"), detail=d.string("detail", ""))
        case "judge_started":
            labels = d.obj("labels") or _Doc(kind, {})
            return JudgeStarted({k: labels.string(k) for k in labels.doc})
        case "judge_finished":
            return JudgeFinished(markdown=d.string("markdown"), fallback=d.flag("fallback"))
        case "run_finished":
            return RunFinished(
                status=d.one_of("status", RUN_STATUSES), exit_code=d.integer("exit_code"),
                error=d.opt_string("error"),
            )  # fmt: skip
        case "followup_started":
            return FollowupStarted(side=d.one_of("side", SPEAKERS), question=d.string("question"))
        case "followup":
            return FollowupFinished(
                side=d.one_of("side", SPEAKERS), answer=d.string("answer"),
                status=d.string("status"),
            )  # fmt: skip
        case "continued":
            return RoundsAdded(
                round=d.integer("round"), rounds=d.integer("rounds"), note=d.opt_string("note")
            )
        case "decided":
            return Decided(
                HumanDecision(
                    kind=d.one_of("kind", DECISION_KINDS), text=d.string("text"),
                    by=d.string("by"), when=d.string("when"), option=d.opt_string("option"),
                    why=d.opt_string("why"),
                )
            )  # fmt: skip
        case "favours_flip":
            return FavoursFlipped(
                round=d.integer("round"), side=d.string("side"), old=d.string("from"),
                new=d.string("to"),
            )  # fmt: skip
    fields = {k: v for k, v in d.doc.items() if k not in ("schema", "seq", "ts", "event")}
    return Unknown(kind, fields)


def from_json(doc: object) -> Logged | None:
    """The event of one decoded events.jsonl line; None if it is not a ``collab.event/1``
    object; :class:`BadEvent` if a known kind has a field it cannot take."""
    if not isinstance(doc, dict) or doc.get("schema") != EVENT_SCHEMA:
        return None
    kind = doc.get("event")
    if not isinstance(kind, str):
        raise BadEvent(f"event must be a string, got {kind!r}")
    d = _Doc(kind, doc)
    return Logged(seq=d.integer("seq"), ts=d.number("ts"), event=_event(kind, d))
