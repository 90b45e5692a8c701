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

import functools
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields
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
from collab.records import record
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
@record
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


@record
class Planned:
    """Before the first call: the plan's document (collab.plan) and its lines as shown."""

    kind: ClassVar[str] = "plan"
    plan: Mapping[str, object]
    lines: tuple[str, ...]


@record
class RoundStarted:
    kind: ClassVar[str] = "round_started"
    round: int
    total: int
    order: tuple[Side, ...] = ()  # the seats as they speak (empty: before panels)
    at_once: bool = False


@record
class TurnStarted:
    kind: ClassVar[str] = "turn_started"
    round: int
    side: Side
    role: str


@record
class Text:
    """Reply text added since the last one (coalesced); ``round`` is None for the Judge."""

    kind: ClassVar[str] = "text"
    side: Speaker
    text: str
    round: int | None = None
    followup: bool = False  # collab ask: a follow-up's text (no round)


@record
class Heartbeat:
    kind: ClassVar[str] = "heartbeat"
    side: Speaker
    elapsed_s: float
    turn_left_s: float
    run_left_s: float
    round: int | None = None
    followup: bool = False


@record
class TurnRetry:
    kind: ClassVar[str] = "turn_retry"
    round: int
    side: Side
    reason: str
    detail: str


@record
class Tokens:
    input: int
    output: int


@record
class Stance:
    id: str
    stance: StanceKind


@record
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
    favours: str | None = None  # with --option: the option id (O1…) the reply named, if any

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
            warnings=tuple(turn.warnings), favours=None if c is None else c.favours,
        )  # fmt: skip


@record
class RunWarning:
    kind: ClassVar[str] = "warning"
    text: str


@record
class LedgerUpdated:
    """The ledger after a round (``issues`` and ``counts`` in its JSON form)."""

    kind: ClassVar[str] = "ledger"
    round: int
    ledger: Ledger
    answered: tuple[Side, ...] = ()  # the seats that answered, of ``seats`` (0: not said)
    seats: int = 0


@record
class AngleInjected:
    kind: ClassVar[str] = "angle"
    round: int
    text: str
    issue_ids: tuple[str, ...]


@record
class Stopped:
    kind: ClassVar[str] = "stop"
    reason: str
    detail: str


@record
class JudgeStarted:
    kind: ClassVar[str] = "judge_started"
    labels: Mapping[str, str] = field(default_factory=dict)  # "Position 1" → the role's name


@record
class JudgeFinished:
    kind: ClassVar[str] = "judge_finished"
    markdown: str
    fallback: bool


@record
class RunFinished:
    """The last event of a run (also after Ctrl-C or a runner failure)."""

    kind: ClassVar[str] = "run_finished"
    status: RunStatus
    exit_code: int
    error: str | None


@record
class FollowupStarted:
    """``collab ask``: a follow-up turn of ``side`` begins."""

    kind: ClassVar[str] = "followup_started"
    side: Speaker
    question: str


@record
class FollowupFinished:
    kind: ClassVar[str] = "followup"
    side: Speaker
    answer: str
    status: str


@record
class RoundsAdded:
    """``collab continue``: ``rounds`` more rounds from round ``round`` on."""

    kind: ClassVar[str] = "continued"
    round: int
    rounds: int
    note: str | None


@record
class Decided:
    """``collab decide``: what the person deciding recorded."""

    kind: ClassVar[str] = "decided"
    decision: HumanDecision


@record
class FavoursFlipped:
    """With ``--option``: a seat names another option than the last one it favoured."""

    kind: ClassVar[str] = "favours_flip"
    round: int
    side: str  # the seat's label, A..E
    old: str
    new: str


@record
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


@record
class Logged:
    """An event as the stream numbered it: ``seq`` strictly increasing in one driving
    process, ``ts`` wall-clock seconds."""

    seq: int
    ts: float
    event: Event

    def to_json(self) -> dict[str, object]:
        """Its ``collab.event/1`` object, made once however many sinks write it (events.jsonl,
        ``--events ndjson``): the same dict each time, only read."""
        doc = self.__dict__.get("_json")
        if doc is None:
            doc = to_json(self)
            object.__setattr__(self, "_json", doc)  # not a field: no part of its value
        return doc


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
            finished: dict[str, object] = {
                "round": ev.round, "side": ev.side, "role": ev.role, "status": ev.status,
                "duration_s": ev.duration_s, "cost_usd": ev.cost_usd,
                "cost_estimated": ev.cost_estimated,
                "tokens": None if tokens is None else {"input": tokens.input,
                                                       "output": tokens.output},
                "new_points": list(ev.new_points),
                "stances": [{"id": s.id, "stance": s.stance} for s in ev.stances],
                "abstain": ev.abstain, "prose": ev.prose, "warnings": list(ev.warnings),
            }  # fmt: skip
            if ev.favours:  # only with --option: older lines stay as they were
                finished["favours"] = ev.favours
            return finished
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


_Read = Callable[[_Doc, str], object]

# How each field is read, by its declared type (the annotation's text), from the key of
# its name (else ``_KEYS``'); a field whose type says too little has a reader of its own
# (``_OWN``). A missing field with a default reads as it; a missing ``detail`` or
# ``prose`` as "" (older files).
_BY_TYPE: dict[str, _Read] = {
    "str": _Doc.string, "str | None": _Doc.opt_string, "bool": _Doc.flag,
    "int": _Doc.integer, "int | None": _Doc.opt_integer,
    "float": _Doc.number, "float | None": _Doc.opt_number, "tuple[str, ...]": _Doc.strings,
    "tuple[Side, ...]": _Doc.seats,
    "Side": lambda d, key: d.one_of(key, SIDES),
    "Speaker": lambda d, key: d.one_of(key, SPEAKERS),
    "TurnStatus": lambda d, key: d.one_of(key, TURN_STATUSES),
    "RunStatus": lambda d, key: d.one_of(key, RUN_STATUSES),
}  # fmt: skip
_EMPTY_IF_MISSING = frozenset({"detail", "prose"})


def _roles(d: _Doc, key: str) -> Mapping[Side, str]:
    roles = d.obj(key)
    if roles is None:
        raise d.bad(key, "an object")
    return {s: roles.string(s) for s in SIDES if s in roles.doc or s in "AB"}


def _plan(d: _Doc, key: str) -> Mapping[str, object]:
    plan = d.doc.get(key)
    if not isinstance(plan, dict):
        raise BadEvent(f"plan must be an object, got {plan!r}")
    return plan


def _tokens(d: _Doc, key: str) -> Tokens | None:
    t = d.obj(key)
    return None if t is None else Tokens(t.integer("input"), t.integer("output"))


def _stances(d: _Doc, key: str) -> tuple[Stance, ...]:
    return tuple(Stance(s.string("id"), s.one_of("stance", STANCE_KINDS)) for s in d.objects(key))


def _ledger(d: _Doc, key: str) -> Ledger:
    return Ledger(tuple(_issue(i) for i in d.objects("issues")))


def _labels(d: _Doc, key: str) -> Mapping[str, str]:
    labels = d.obj(key) or _Doc(d.kind, {})
    return {k: labels.string(k) for k in labels.doc}


def _decision(d: _Doc, key: str) -> HumanDecision:
    return HumanDecision(
        kind=d.one_of("kind", DECISION_KINDS), text=d.string("text"), by=d.string("by"),
        when=d.string("when"), option=d.opt_string("option"), why=d.opt_string("why"),
    )  # fmt: skip


# Read first, in this order, then the other fields in their declared order.
_OWN: dict[tuple[type, str], _Read] = {
    (RunStarted, "roles"): _roles,
    (Planned, "plan"): _plan,
    (TurnFinished, "tokens"): _tokens,
    (TurnFinished, "stances"): _stances,
    (LedgerUpdated, "ledger"): _ledger,
    (Decided, "decision"): _decision,
    (JudgeStarted, "labels"): _labels,
}
_KEYS: dict[tuple[type, str], str] = {
    (FavoursFlipped, "old"): "from", (FavoursFlipped, "new"): "to"
}  # fmt: skip
_KINDS: dict[str, type] = {c.kind: c for c in get_args(Event) if c is not Unknown}


@functools.cache
def _readers(cls: type) -> tuple[tuple[str, str, _Read], ...]:
    """Each field of the event class ``cls`` (name, key, reader), in the order read."""
    own = [(f.name, f.name, _OWN[cls, f.name]) for f in fields(cls) if (cls, f.name) in _OWN]
    rest = []
    for f in fields(cls):
        if (cls, f.name) in _OWN:
            continue
        read = _BY_TYPE[str(f.type)]
        if f.default is not MISSING:
            read = _or_else(read, f.default)
        elif f.name in _EMPTY_IF_MISSING:
            read = _or_else(read, "")
        rest.append((f.name, _KEYS.get((cls, f.name), f.name), read))
    return (*own, *rest)


def _or_else(read: _Read, missing: object) -> _Read:
    return lambda d, key: read(d, key) if key in d.doc else missing


def _event(kind: str, d: _Doc) -> Event:
    cls = _KINDS.get(kind)
    if cls is None:
        fields = {k: v for k, v in d.doc.items() if k not in ("schema", "seq", "ts", "event")}
        return Unknown(kind, fields)
    event: Event = cls(**{name: read(d, key) for name, key, read in _readers(cls)})
    return event


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
