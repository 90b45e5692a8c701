"""The whole of a run as it is saved after every turn; the ledger is derived from the turns."""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Literal, get_args

from collab import __version__
from collab.agents.decoding import Usage, sum_usage
from collab.config import DebateConfig
from collab.contract import DEFAULT_SEVERITY, SEVERITIES, STANCE_KINDS
from collab.decision import DECISION_KINDS, HumanDecision
from collab.errors import DamagedRun
from collab.evidence import EVIDENCE_STATUSES, EvidenceCheck
from collab.fields import DamagedField, Fields
from collab.ledger import (
    CURRENT_TABLE,
    STATUSES,
    TABLE_NAMES,
    Issue,
    LatestStance,
    Ledger,
    Resolution,
    SeverityChange,
    TableName,
    replay,
)
from collab.ledger_cache import LedgerCache, Made, present_in
from collab.records import record
from collab.saved_forms import NOTHING as _NOTHING
from collab.saved_forms import Frozen, Rechecks, SavedForms
from collab.seats import SEATS, SIDES, Seat, Side, round_order
from collab.store import SCHEMA_VERSION, RunDir, StoredRun, scan_runs
from collab.turns import AgentMeta, TurnRecord, meta_from_fields, meta_to_dict
from collab.verdict import Verdict, verdict

RESOLUTIONS: tuple[Resolution, ...] = get_args(Resolution)
RunStatus = Literal["pending", "running", "done", "interrupted", "failed"]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
# Who started the run: a person (CLI, batch) or a model through ``collab mcp``, which sees
# only its own kind of run. Optional in state.json: a run saved without it was a person's.
Origin = Literal["cli", "mcp"]
ORIGINS: tuple[Origin, ...] = get_args(Origin)


@dataclass
class Angle:
    round_no: int
    text: str
    issue_ids: tuple[str, ...]


@dataclass
class Judge:
    text: str  # as shown and saved: role names, not the Judge's "Position 1/2"
    fallback: bool
    meta: AgentMeta | None
    raw: str | None = None  # the Judge's answer as written, for an audit


_JUDGE_FIELDS = tuple(f.name for f in fields(Judge))
_USAGE_FIELDS = tuple(f.name for f in fields(Usage))
FollowUpSeat = Literal["A", "B", "C", "D", "E", "judge"]
FOLLOWUP_SEATS: tuple[FollowUpSeat, ...] = get_args(FollowUpSeat)


@dataclass
class FollowUp:
    """``collab ask``: one more turn of one seat after the debate; the ledger and the
    verdict are left as they were."""

    seat: FollowUpSeat
    question: str
    answer: str  # the reply as kept (cut at the reply cap), or a placeholder if it failed
    status: str  # the call's status: ok, timeout, error, ...
    after_round: int  # the rounds held when it was asked
    when: str
    meta: AgentMeta | None = None


@dataclass
class Continued:
    """``collab continue``: rounds added to a finished debate, and the decider's note
    that went into every prompt of them."""

    after_round: int  # the rounds held before; the added ones follow
    rounds: int
    note: str | None
    when: str

    def covers(self, round_no: int) -> bool:
        return self.after_round < round_no <= self.after_round + self.rounds


@record
class RoundOrder:
    """The order the seats of a round spoke in (every seat at once when ``at_once``),
    recorded when the round starts so that a resume and a reader see the same order."""

    round_no: int
    order: tuple[Seat, ...]
    at_once: bool


# What the ``ledger`` state.json keeps was made by: the schema it was saved under and
# the rules of the replay. A reader takes the kept ledger instead of replaying the turns
# (``collab list``: every run) only when the stamp is this collab's own; bump
# ``_REPLAY_RULES`` with any change to what collab.ledger's replay makes of the same
# turns (apply, with_checks, the stance tables; here: which seats a round holds present,
# ANSWERED), so runs saved before it are replayed
# (tests/data/kept_ledgers/replay-N*.json: runs saved under rules N, pinning them).
_REPLAY_RULES = 1
LEDGER_STAMP = f"schema {SCHEMA_VERSION}, replay {_REPLAY_RULES}"

# A turn that counts as the seat answering its round (the others failed: the seat is
# absent for that round unless it answered).
ANSWERED = ("ok", "abstain")


@dataclass
class RunState:
    run_id: str
    config: DebateConfig
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    # For ordering runs started within the same second.
    created_ts: float = field(default_factory=time.time)
    status: RunStatus = "running"
    stop_reason: str | None = None
    stop_detail: str = ""
    error: str | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    # Round numbers whose end-of-round stop check has been made (and acted on).
    checked_rounds: list[int] = field(default_factory=list)
    angle: Angle | None = None
    judge: Judge | None = None
    warnings: list[str] = field(default_factory=list)
    # The private temp dir of the process driving the run, so a resume after a crash can
    # stop agents still running from it and remove it.
    temp_dir: str | None = None
    # The side the Judge read as "Position 1" (drawn from the run id; kept for an audit).
    judge_first: Side | None = None
    origin: Origin = "cli"
    # The stance table the ledger is replayed with (collab.ledger.STANCE_TABLES): runs
    # saved before v2 keep v1 (migration m002).
    stance_table: TableName = CURRENT_TABLE
    # What the person deciding recorded (collab decide), oldest first; never rewritten.
    decisions: list[HumanDecision] = field(default_factory=list)
    followups: list[FollowUp] = field(default_factory=list)
    continues: list[Continued] = field(default_factory=list)
    # The Judge summaries a continue replaced, oldest first (shown as superseded).
    superseded_judges: list[Judge] = field(default_factory=list)
    # The plan made before the first call (collab.plan's document); None before --depth.
    # Replaced, never changed in place: to_dict keeps its form (and the store its text)
    # while it is the same object.
    plan: dict[str, object] | None = None
    # The order of each round held or begun (migration m007 records the fixed one of
    # older runs); the Judge's Position 1…N in seat order (``judge_first`` is its first).
    round_orders: list[RoundOrder] = field(default_factory=list)
    judge_order: tuple[Seat, ...] = ()
    # :meth:`ledger`'s answers, kept by what they were replayed from (collab.ledger_cache).
    _ledgers: LedgerCache = field(
        default_factory=LedgerCache, init=False, repr=False, compare=False
    )
    _checked: Rechecks = field(default_factory=Rechecks, init=False, repr=False, compare=False)
    _forms: SavedForms = field(default_factory=SavedForms, init=False, repr=False, compare=False)

    def note_for(self, round_no: int) -> str | None:
        """The decider's note for a round added by ``collab continue`` (None: no note)."""
        for c in self.continues:
            if c.covers(round_no):
                return c.note
        return None

    def last_note(self) -> str | None:
        return self.continues[-1].note if self.continues else None

    # -- seats and rounds ------------------------------------------------------------
    @property
    def seats(self) -> tuple[Seat, ...]:
        return self.config.seats

    def order_of(self, round_no: int) -> tuple[Seat, ...]:
        """The order round ``round_no`` was (or will be) taken in: as recorded, else the
        run's turn order (collab.seats.round_order)."""
        found = next((o for o in self.round_orders if o.round_no == round_no), None)
        if found is not None:
            return found.order
        return round_order(self.seats, round_no, self.config.turn_order)

    def record_order(self, round_no: int, order: tuple[Seat, ...], at_once: bool) -> None:
        if all(o.round_no != round_no for o in self.round_orders):
            self.round_orders.append(RoundOrder(round_no, order, at_once))
            self.round_orders.sort(key=lambda o: o.round_no)

    def sort_turns(self) -> None:
        """Turns in the order they were taken: round by round, in each round's order."""

        def key(t: TurnRecord) -> tuple[int, int, str]:
            order = self.order_of(t.round_no)
            return (t.round_no, order.index(t.side) if t.side in order else len(order), t.side)

        self.turns.sort(key=key)

    def answered(self, round_no: int) -> tuple[Seat, ...]:
        """The seats that answered round ``round_no`` (a turn that did not fail)."""
        return tuple(
            s for s in self.seats if (t := self.turn(round_no, s)) and t.status in ANSWERED
        )

    def present(self, round_no: int) -> frozenset[Seat]:
        """The seats present in a round: all but those whose turn in it failed (a seat
        yet to speak counts as present)."""
        absent = {t.side for t in self.turns if t.round_no == round_no and t.status not in ANSWERED}
        return frozenset(s for s in self.seats if s not in absent)

    # -- derived -------------------------------------------------------------------
    def ledger(self, upto_round: int | None = None) -> Ledger:
        turns = [t for t in self.turns if upto_round is None or t.round_no <= upto_round]
        made_of = (self.config, self.stance_table, *turns)
        ledger = self._ledgers.find(upto_round, made_of)
        if ledger is None:
            ledger = self._replayed(turns)
            self._ledgers.keep(upto_round, Made(made_of, present_in(turns, self.present), ledger))
        return ledger

    def _replayed(self, turns: list[TurnRecord]) -> Ledger:
        present = present_in(turns, self.present)
        start, done = self._ledgers.start((self.config, self.stance_table, *turns), present)
        ledger = replay(
            ((t.side, t.round_no, t.contract) for t in turns[done:]), self.stance_table,
            present.__getitem__, self.config.quorum, start,
        )  # fmt: skip
        # Each cite with what its check found (the latest check of the same cite wins).
        return self._checked(ledger, {c.key(): c.status for t in turns for c in t.evidence_checks})

    def keep_ledger(self, ledger: Ledger) -> None:
        """Take ``ledger`` (the one state.json keeps: :func:`stored_ledger`) as :meth:`ledger`'s
        answer for the turns held now, for the whole run only (collab.ledger_cache)."""
        made_of = (self.config, self.stance_table, *self.turns)
        present = present_in(self.turns, self.present)
        self._ledgers.keep(None, Made(made_of, present, ledger, stored=True))

    def round_ledgers(self) -> list[Ledger]:
        return [self.ledger(r) for r in range(1, self.rounds_done() + 1)]

    def turn(self, round_no: int, side: Side) -> TurnRecord | None:
        for t in self.turns:
            if t.round_no == round_no and t.side == side:
                return t
        return None

    def rounds_done(self) -> int:
        held = {(t.round_no, t.side) for t in self.turns}  # (a :meth:`turn` of each)
        done = 0
        while done < self.config.rounds and all((done + 1, s) in held for s in self.seats):
            done += 1
        return done

    def _metas(self, side: Side | None = None) -> list[AgentMeta]:
        """Every agent call of the run (one side's, or all with the judge's)."""
        metas: list[AgentMeta] = []
        for t in self.turns:
            if side is None or t.side == side:
                metas += [m for m in (t.meta, t.reask) if m is not None]
        if side is None:
            judges = [*self.superseded_judges, *([self.judge] if self.judge else [])]
            metas += [j.meta for j in judges if j.meta is not None]
            metas += [f.meta for f in self.followups if f.meta is not None]
        else:
            metas += [f.meta for f in self.followups if f.seat == side and f.meta is not None]
        return metas

    def cost_estimated(self) -> bool:
        """Is any part of ``cost_usd`` collab's estimate (an agent that reports none)?"""
        return any(m.cost_estimated and m.cost_usd is not None for m in self._metas())

    def calls(self) -> int:
        """Agent calls made: every attempt of every turn, re-ask and Judge answer."""
        return sum(max(1, m.attempts) for m in self._metas())

    def cost_usd(self, side: Side | None = None) -> float | None:
        known = [m.cost_usd for m in self._metas(side) if m.cost_usd is not None]
        return round(sum(known), 6) if known else None

    def judge_cost_usd(self) -> float | None:
        """The Judge's share of :meth:`cost_usd` (which counts it)."""
        meta = None if self.judge is None else self.judge.meta
        return None if meta is None else meta.cost_usd

    def parsed_rounds(self) -> list[bool]:
        """Per round held: did any turn's contract block parse?"""
        return [
            any(t.contract is not None for t in self.turns if t.round_no == r)
            for r in range(1, self.rounds_done() + 1)
        ]

    def any_contract(self) -> bool:
        """Did any turn's contract block parse? (Without one the ledger says nothing.)"""
        return any(t.contract is not None for t in self.turns)

    def verdict(self, ledger: Ledger | None = None) -> Verdict:
        """``ledger``: this state's :meth:`ledger`, when the caller has just replayed it."""
        few = self.stop_reason == "too-few-seats"
        quick = self.config.depth == "quick"
        ledger = self.ledger() if ledger is None else ledger
        return verdict(ledger, self.any_contract() and not few, quick=quick)

    def tokens(self) -> Usage:
        return sum_usage([m.usage for m in self._metas() if m.usage is not None]) or Usage()

    # -- persistence -----------------------------------------------------------------
    def _ledgers_now(self) -> tuple[int, list[Ledger], Ledger]:
        rounds = self.round_ledgers()  # first: the run's ledger may be the last one
        return len(rounds), rounds, self.ledger()

    def to_dict(self) -> dict[str, object]:
        """The state.json document. The parts made from immutable objects (the config,
        each turn, ledger and round order, the plan) are the same objects from one call
        to the next: read them, never change them."""
        forms = self._forms.begin()
        form, same = forms.form, forms.same
        # the rounds done and the ledgers, kept while made of the same (immutable) objects
        done, round_ledgers, ledger = forms.made(
            "ledgers", (self.config, self.stance_table, *self.turns), self._ledgers_now
        )

        def judge_form(judge: Judge) -> Frozen:
            # asdict(judge), its meta (immutable) made once: the Judge is saved till the end
            made = {name: getattr(judge, name) for name in _JUDGE_FIELDS}
            made["meta"] = None if judge.meta is None else form(judge.meta, meta_to_dict)
            return same("judge", made)

        def money() -> tuple[float | None, Frozen, bool, Frozen]:
            tokens = self.tokens()
            by_side = {str(s): self.cost_usd(s) for s in self.seats}
            return (
                self.cost_usd(),
                same("cost_usd_by_side", {**by_side, "judge": self.judge_cost_usd()}),
                self.cost_estimated(),
                same("tokens", {name: getattr(tokens, name) for name in _USAGE_FIELDS}),
            )  # tokens: ints, as asdict's

        # the costs and tokens, kept while the same turns, Judges and follow-ups hold them
        paid_by = (
            self.config, len(self.turns), *self.turns,
            len(self.superseded_judges), *(j.meta for j in self.superseded_judges),
            None if self.judge is None else self.judge.meta,
            *(x for f in self.followups for x in (f.seat, f.meta)),
        )  # fmt: skip
        cost_usd, by_side, estimated, tokens = forms.made(
            "money", paid_by, money, along=("cost_usd_by_side", "tokens")
        )
        return {
            "collab_version": __version__,
            "run_id": self.run_id,
            "created": self.created,
            "created_ts": self.created_ts,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "stop_detail": self.stop_detail,
            "error": self.error,
            "config": form(self.config, DebateConfig.to_dict),
            "rounds_done": done,
            "turns": forms.each("turns", self.turns, lambda t: form(t, TurnRecord.to_dict)),
            "checked_rounds": same("checked_rounds", self.checked_rounds) or _NOTHING,
            "angle": None if self.angle is None else asdict(self.angle),
            "judge": None if self.judge is None else judge_form(self.judge),
            "warnings": list(self.warnings) or _NOTHING,
            "temp_dir": self.temp_dir,
            "judge_first": self.judge_first,
            "origin": self.origin,
            "stance_table": self.stance_table,
            "decisions": [d.to_dict() for d in self.decisions] or _NOTHING,
            "followups": [asdict(f) for f in self.followups] or _NOTHING,
            "continues": [asdict(c) for c in self.continues] or _NOTHING,
            "superseded_judges": [asdict(j) for j in self.superseded_judges] or _NOTHING,
            "plan": None if self.plan is None else form(self.plan, copy.deepcopy),
            # Derived, kept for readers of state.json (resume recomputes them).
            "ledger": forms.ledger(ledger),
            "round_ledgers": forms.ledgers(round_ledgers),
            "ledger_stamp": LEDGER_STAMP,
            "cost_usd": cost_usd,
            "cost_usd_by_side": by_side,
            "round_orders": forms.each(
                "round_orders", self.round_orders, lambda o: form(o, asdict)
            ),
            "judge_order": form(self.judge_order, list) if self.judge_order else _NOTHING,
            "cost_estimated": estimated,
            "tokens": tokens,
        }

    @staticmethod
    def from_dict(d: Mapping[str, object]) -> RunState:
        """Read state.json's document; a damaged field raises ``DamagedField`` naming it."""
        f = Fields(d, "state")
        angle = f.opt_obj("angle")
        judge = f.opt_obj("judge")
        config = DebateConfig.from_fields(f.obj("config"))
        return RunState(
            run_id=f.str("run_id"),
            config=config,
            created=f.str("created", ""),
            created_ts=f.float("created_ts", 0.0),
            status=f.literal("status", RUN_STATUSES, "running"),
            stop_reason=f.opt_str("stop_reason"),
            stop_detail=f.opt_str("stop_detail") or "",
            error=f.opt_str("error"),
            turns=[TurnRecord.from_fields(t, config.seats) for t in f.items("turns")],
            checked_rounds=f.ints("checked_rounds"),
            angle=None if angle is None else _angle(angle),
            judge=None if judge is None else _judge(judge),
            warnings=f.strs("warnings"),
            temp_dir=f.opt_str("temp_dir"),
            judge_first=None if f.get("judge_first") is None else f.literal("judge_first", SIDES),
            origin=f.literal("origin", ORIGINS, "cli"),
            stance_table=f.literal("stance_table", TABLE_NAMES, CURRENT_TABLE),
            decisions=[_decision(d) for d in f.items("decisions")],
            followups=[_followup(x) for x in f.items("followups")],
            continues=[_continued(x) for x in f.items("continues")],
            superseded_judges=[_judge(x) for x in f.items("superseded_judges")],
            plan=_plan(f.get("plan")),
            round_orders=[
                RoundOrder(o.int("round_no"), _seats(o, "order"), o.bool("at_once", False))
                for o in f.items("round_orders")
            ],
            judge_order=_seats(f, "judge_order"),
        )


def _seats(f: Fields, key: str) -> tuple[Seat, ...]:
    names = f.strs(key)
    out = tuple(s for name in names for s in SEATS if s == name)
    if len(out) != len(names):
        raise DamagedField(f.at(key), "not a list of seats A–E")
    return out


def _plan(value: object) -> dict[str, object] | None:
    """The plan as saved (an object), or None; anything else is damage."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise DamagedField("state.plan", "not an object")
    return {str(k): v for k, v in value.items()}


def _angle(f: Fields) -> Angle:
    return Angle(
        round_no=f.int("round_no"), text=f.str("text"), issue_ids=tuple(f.strs("issue_ids"))
    )


def _judge(f: Fields) -> Judge:
    meta = f.opt_obj("meta")
    return Judge(
        text=f.str("text"),
        fallback=f.bool("fallback", False),
        meta=None if meta is None else meta_from_fields(meta),
        raw=f.opt_str("raw"),
    )


def _followup(f: Fields) -> FollowUp:
    meta = f.opt_obj("meta")
    return FollowUp(
        seat=f.literal("seat", FOLLOWUP_SEATS),
        question=f.str("question"),
        answer=f.str("answer"),
        status=f.str("status"),
        after_round=f.int("after_round"),
        when=f.str("when", ""),
        meta=None if meta is None else meta_from_fields(meta),
    )


def _continued(f: Fields) -> Continued:
    return Continued(
        after_round=f.int("after_round"),
        rounds=f.int("rounds"),
        note=f.opt_str("note"),
        when=f.str("when", ""),
    )


def _decision(f: Fields) -> HumanDecision:
    return HumanDecision(
        kind=f.literal("kind", DECISION_KINDS),
        text=f.str("text"),
        by=f.str("by", ""),
        when=f.str("when", ""),
        option=f.opt_str("option"),
        why=f.opt_str("why"),
    )


def issue_from_fields(f: Fields) -> Issue:
    """One ledger item as :func:`collab.ledger.ledger_to_dict` writes it (events.jsonl);
    a damaged field raises ``DamagedField`` naming it."""
    dropped = f.strs("dropped_by")
    if not set(dropped) <= set(SEATS):
        raise DamagedField(f.at("dropped_by"), "not a list of seats A–E")
    resolution = None if f.get("resolution") is None else f.literal("resolution", RESOLUTIONS)
    return Issue(
        id=f.str("id"), title=f.str("title"), raised_by=f.literal("raised_by", SEATS),
        status=f.literal("status", STATUSES), evidence_a=f.str("evidence_a", ""),
        evidence_b=f.str("evidence_b", ""), round_opened=f.int("round_opened"),
        round_updated=f.int("round_updated"),
        dropped_by=frozenset(s for s in SEATS if s in dropped), resolution=resolution,
        reason=f.str("reason", ""), severity=f.literal("severity", SEVERITIES, DEFAULT_SEVERITY),
        severity_changes=tuple(
            SeverityChange(c.literal("side", SEATS), c.literal("old", SEVERITIES),
                           c.literal("new", SEVERITIES), c.int("round_no"))
            for c in f.items("severity_changes")
        ),
        checks_a=_checks(f, "checks_a"), checks_b=_checks(f, "checks_b"),
        evidence_c=f.str("evidence_c", ""), evidence_d=f.str("evidence_d", ""),
        evidence_e=f.str("evidence_e", ""), checks_c=_checks(f, "checks_c"),
        checks_d=_checks(f, "checks_d"), checks_e=_checks(f, "checks_e"),
        stances=tuple(
            LatestStance(s.literal("seat", SEATS), s.literal("stance", STANCE_KINDS),
                       s.str("reason", ""), s.int("round_no"))
            for s in f.items("stances")
        ),
    )  # fmt: skip


def _checks(f: Fields, key: str) -> tuple[EvidenceCheck, ...]:
    return tuple(
        EvidenceCheck(c.str("cite"), c.opt_str("quote"), c.literal("status", EVIDENCE_STATUSES))
        for c in f.items(key)
    )


def load_state(run_dir: RunDir) -> RunState:
    try:
        return RunState.from_dict(run_dir.load())
    except DamagedField as exc:
        raise DamagedRun(run_dir.run_id, f"state.json is damaged ({exc})") from None


def state_damage(raw: Mapping[str, object]) -> str | None:
    """Why a loaded state.json is not a run :func:`load_state` would read (None if it is)."""
    return parse_state(raw)[1]


def parse_state(raw: Mapping[str, object]) -> tuple[RunState | None, str | None]:
    """A loaded state.json as the run :func:`load_state` would read, or why it is not one."""
    try:
        return RunState.from_dict(raw), None
    except DamagedField as exc:
        return None, f"state.json is damaged ({exc})"


def stored_ledger(raw: Mapping[str, object]) -> Ledger | None:
    """The ledger a loaded state.json keeps, when this collab's replay of its turns made
    it (stamped :data:`LEDGER_STAMP`: saved by a collab of the same schema and replay
    rules, so never migrated); None when it must be replayed (another stamp or none,
    as in every run saved before the stamp, or a kept ledger that does not read)."""
    items = raw.get("ledger")
    if raw.get("ledger_stamp") != LEDGER_STAMP or not isinstance(items, list):
        return None
    try:
        return Ledger(
            tuple(
                issue_from_fields(Fields.of(x, f"state.ledger[{i}]")) for i, x in enumerate(items)
            )
        )
    except DamagedField:
        return None


def parse_listed(raw: Mapping[str, object]) -> tuple[RunState | None, str | None]:
    """:func:`parse_state`, with the ledger state.json keeps taken as the run's ledger
    where it may be (:func:`stored_ledger`): a list of runs replays none of them."""
    state, damage = parse_state(raw)
    if state is not None and (kept := stored_ledger(raw)) is not None:
        state.keep_ledger(kept)
    return state, damage


def stored_runs() -> list[StoredRun]:
    """Every kept run, newest first, the damaged ones with what is wrong with them; each
    run's state.json read and parsed once (its RunState in ``parsed``, with the ledger
    it keeps where that is this collab's own: :func:`parse_listed`)."""
    return scan_runs(parse=parse_listed)


def parsed_run(run: StoredRun) -> RunState | None:
    """``run``'s state as a RunState: the one :func:`stored_runs` parsed, else parsed now
    (a StoredRun made by hand); None for a damaged run or a state that is not a run."""
    if isinstance(run.parsed, RunState):
        return run.parsed
    if run.state is None or run.damage is not None:
        return None
    return parse_state(run.state)[0]
