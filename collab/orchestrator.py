"""The debate loop and nothing else: it calls the pieces and tells the event stream what
happened (typed events, :mod:`collab.events`).

Each turn gets one :class:`TurnContext` built here (the budget's deadline, the run dir for
its reply, the event stream, the cancel flag); nothing below calls back up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from collab import convergence, report
from collab.agents import AgentSpec, spec_for
from collab.caller import AgentCaller
from collab.config import DebateConfig
from collab.doctor import Ready
from collab.errors import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Interrupted,
    PrerequisiteError,
    RunnerError,
    StorageError,
)
from collab.eventlog import EventStream, JsonlFile, Sink, last_seq
from collab.events import (
    AngleInjected,
    FavoursFlipped,
    JudgeFinished,
    JudgeStarted,
    LedgerUpdated,
    Planned,
    RoundStarted,
    RunFinished,
    RunStarted,
    RunWarning,
    Stopped,
    TurnFinished,
)
from collab.evidence_files import check_turn
from collab.favours import flip_of
from collab.judge.answer import seat_labels
from collab.judge.labels import Labels
from collab.ledger import Ledger
from collab.ledger_summary import FallbackCause, fallback_summary
from collab.parallel import at_once, hold_signals, sigterm_as_interrupt
from collab.planning import plan_for
from collab.prices import fmt_cost
from collab.prompts import Prompts, TurnView
from collab.request import context_drift
from collab.reread import read_again
from collab.runners import RunnerFactory, runner_factory
from collab.runners.base import Runner
from collab.runners.turnfiles import TurnDir, reap_stale, stop_agents
from collab.seats import Side, round_order
from collab.state import ANSWERED, Angle, FollowUp, FollowUpSeat, Judge, RunState
from collab.store import RunDir
from collab.turn_taking import Clock, JudgeAnswer, TurnContext, Turns
from collab.turns import TurnRecord

# What a turn's prompt shows of the debate so far: the ledger and the turns.
Seen = tuple[Ledger, list[TurnView]]
EVENTS_FILE = "events.jsonl"


@dataclass(frozen=True)
class Outcome:
    state: RunState
    run_dir: RunDir


class Orchestrator:
    events: EventStream  # events.jsonl and the sinks, one event at a time (set by run)

    def __init__(
        self,
        state: RunState,
        run_dir: RunDir,
        *,
        agents: Mapping[str, AgentSpec],
        runner_factory: RunnerFactory,
        binaries: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        resumed: bool = False,
        event_sinks: Sequence[Sink] = (),
        clock: Clock = time.monotonic,
    ) -> None:
        self.state = state
        self.cfg: DebateConfig = state.config
        self.run_dir = run_dir
        self.agents = agents
        self.runner_factory = runner_factory
        self.binaries = binaries
        self.event_sinks = tuple(event_sinks)
        self.env = env
        self.resumed = resumed
        self.prompts = Prompts(self.cfg.lang)
        self.turns = Turns(self.cfg, self.prompts)
        self.clock = clock
        self._started = clock()
        self._lock = threading.RLock()
        # Set on Ctrl-C/SIGTERM so that turns running on worker threads stop their agents.
        self._cancel = threading.Event()
        # Storage: the events file, what the last good save kept, whether a save failed,
        # and whether the debate had begun (a failure then stops a run: exit 1, not 3).
        self._log: JsonlFile | None = None
        self._kept = ("nothing yet", "pending")
        self._unsaved = False
        self._begun = False

    # -- public ------------------------------------------------------------------------
    def run(self) -> Outcome:
        with self._locked():
            return self._run()

    @contextmanager
    def _locked(self, *, steering: bool = False) -> Iterator[None]:
        """The run's lock; then its state as saved now (collab.reread: what another process
        saved since it was read is kept, not overwritten) and the events file."""
        with self.run_dir.locked(steering=steering), sigterm_as_interrupt():
            if self.run_dir.exists():  # a new run's state.json may not be written yet
                read_again(self.run_dir, self.state)
                self.cfg = self.state.config
                self.turns = Turns(self.cfg, self.prompts)
            events_path = self.run_dir.path / EVENTS_FILE
            log = self._log = JsonlFile(events_path)
            self.events = EventStream(log, *self.event_sinks, first_seq=last_seq(events_path))
            try:
                yield
            finally:
                log.close()

    def _run(self) -> Outcome:
        if self.state.temp_dir:
            reap_stale(Path(self.state.temp_dir))
        tdir = TurnDir(keep=self.cfg.keep_temp)
        self.state.temp_dir = str(tdir.path)
        runner: Runner | None = None
        end: tuple[int, str | None] = (EXIT_FAILED, "unexpected error")
        try:
            runner = self.runner_factory(tdir, self.state.run_id)
            caller = AgentCaller(
                runner, tdir, self.agents, self.env, self.cfg.agent_setup, self.binaries
            )
            for choice in (*self.cfg.agents, self.cfg.judge):
                caller.binary(spec_for(choice.agent, choice.command, self.agents))
            self.state.status = "running"
            self.state.error = None
            self._save()
            self._begun = True
            cfg = self.cfg
            continued, note = self._continuing()
            self.events.emit(
                RunStarted(
                    run_id=self.state.run_id, topic=cfg.topic, preset=cfg.preset,
                    rounds=cfg.rounds, runner=runner.name, attach=runner.attach_hint(),
                    resumed=self.resumed, roles={r.side: r.name for r in cfg.roles},
                    continued=continued, note=note,
                )
            )  # fmt: skip
            self._plan()
            for note in context_drift(self.cfg.contexts) if self.resumed else []:
                # The run keeps the context text saved in state.json.
                self.events.emit(RunWarning(note))
                if note not in self.state.warnings:
                    self.state.warnings.append(note)
            self._debate(caller, runner)
            self._judge(caller)
            spoke = [t for t in self.state.turns if t.status in ("ok", "abstain")]
            if self.state.turns and not spoke:
                self.state.status = "failed"
                last = self.state.turns[-1].meta.error or self.state.turns[-1].status
                self.state.error = f"every turn failed (last: {last})"
            else:
                self.state.status = "done"
            self._save()
            self._write_reports()
            end = (EXIT_OK if self.state.status == "done" else EXIT_FAILED, self.state.error)
        except KeyboardInterrupt:
            hold_signals()  # a second Ctrl-C/SIGTERM must not cut the save short
            if self.state.status == "done":
                # The signal came after the debate ended: keep the result, finish the files.
                self._write_reports()
                end = (EXIT_OK, None)
                return Outcome(self.state, self.run_dir)
            self.state.status = "interrupted"
            self.state.error = "interrupted"
            self._save()
            end = (EXIT_INTERRUPTED, "interrupted")
            raise Interrupted(
                f"interrupted; state saved — continue with: collab resume {self.state.run_id}"
            ) from None
        except (RunnerError, PrerequisiteError) as exc:
            self.state.status = "failed"
            self.state.error = str(exc)
            self._save()
            end = (exc.exit_code, str(exc))
            raise exc.saved(self.state.run_id) from exc
        except StorageError as exc:  # nothing more can be saved: stop, say what was kept
            end = (self._stopped(exc).exit_code, str(exc))
            raise
        finally:
            try:  # a late Ctrl-C/SIGTERM during close must not leave the temp dir behind
                stop_agents(tdir.path)  # no agent outlives its run, whatever ended it
                if runner is not None:
                    runner.close()
            finally:
                tdir.cleanup()
            if not tdir.keep and not self._unsaved:
                self.state.temp_dir = None
                self._save()
            self.events.emit(RunFinished(self.state.status, end[0], end[1]))
        return Outcome(self.state, self.run_dir)

    def _continuing(self) -> tuple[int, str | None]:
        """RunStarted's ``continued``/``note`` when this drive begins a collab continue
        (no turn of an added round held yet); ``(0, None)`` otherwise (a resume, a new run)."""
        st = self.state
        if not self.resumed or not st.continues:
            return 0, None
        c = st.continues[-1]
        if any(t.round_no > c.after_round for t in st.turns):
            return 0, None
        return c.rounds, c.note

    def ask(self, question: str, seats: Sequence[FollowUpSeat]) -> list[FollowUp]:
        """``collab ask``: one more turn per seat, all at once (none sees another's answer),
        kept as follow-ups; the turns, the ledger and the verdict are left as they are."""
        with self._locked(steering=True):
            tdir = TurnDir(keep=self.cfg.keep_temp)
            runner: Runner | None = None
            try:
                runner = self.runner_factory(tdir, self.state.run_id)
                caller = AgentCaller(
                    runner, tdir, self.agents, self.env, self.cfg.agent_setup, self.binaries
                )
                answers = self._ask(caller, runner, question, seats)
                self.state.followups += answers
                self.run_dir.save(self.state.to_dict())  # not saved: an error (exit 3)
                self._saved_anyway()
                return answers
            except KeyboardInterrupt:
                raise Interrupted("interrupted; no follow-up was kept") from None
            finally:
                try:
                    stop_agents(tdir.path)
                    if runner is not None:
                        runner.close()
                finally:
                    tdir.cleanup()

    def _ask(
        self, caller: AgentCaller, runner: Runner, question: str, seats: Sequence[FollowUpSeat]
    ) -> list[FollowUp]:
        st = self.state
        labels = self._labels()
        ledger = st.ledger()
        after, when = st.rounds_done(), time.strftime("%Y-%m-%dT%H:%M:%S%z")
        answers: dict[FollowUpSeat, FollowUp] = {}

        def one(seat: FollowUpSeat, c: AgentCaller) -> Callable[[], None]:
            def go() -> None:
                side: Side | None = None if seat == "judge" else seat
                own = [t for t in st.turns if t.side == side and t.status in ("ok", "abstain")]
                if side is None:
                    judge = st.judge
                    summary = None if judge is None else (judge.raw or labels.hide(judge.text))
                else:
                    summary = None if st.judge is None else st.judge.text
                a = self.turns.follow_up(
                    self._context(), c, side, question, ledger,
                    last_reply=own[-1].prose if own else None, summary=summary, labels=labels,
                )  # fmt: skip
                answers[seat] = FollowUp(seat, question, a.text, a.status, after, when, a.meta)

            return go

        def task(seat: FollowUpSeat) -> Callable[[AgentCaller], None]:
            return lambda c: one(seat, c)()

        at_once(caller, runner, {seat: task(seat) for seat in seats}, self._cancel)
        return [answers[seat] for seat in seats]

    def _plan(self) -> None:
        """The plan, before the first call (a resumed run keeps the one it began with);
        a --max-cost below its lowest expected cost is a warning, not a stop."""
        st = self.state
        if not self.resumed:
            plan = plan_for(self.cfg, prompts=self.prompts)
            st.plan = plan.document()  # a new dict: a plan is replaced, never edited (RunState)
            self._save()
            self.events.emit(Planned(plan=plan.document(), lines=tuple(plan.lines())))
            note = plan.over_cap(self.cfg.max_cost)
            if note is not None:
                self.events.emit(RunWarning(note))
                st.warnings.append(note)

    # -- the loop ----------------------------------------------------------------------
    def _debate(self, caller: AgentCaller, runner: Runner) -> None:
        st = self.state
        if st.stop_reason is not None:
            return
        for r in range(1, self.cfg.rounds + 1):
            if r in st.checked_rounds:
                continue
            at_once = (r == 1 and self.cfg.opening == "blind") or self._cross_check(r)
            order = self._order(r, at_once)
            self.events.emit(RoundStarted(r, self.cfg.rounds, order, at_once))
            todo = [side for side in order if st.turn(r, side) is None]
            if at_once and todo:
                # Every seat writes at once, none seeing another; the cost cap and the
                # budget are checked once, before the round.
                if self._check_stop():
                    return
                self._blind_round(caller, runner, todo, r)
            else:
                for side in todo:
                    if self._check_stop():
                        return
                    self._record(self._take(caller, r, side))
            if self._end_of_round(r):
                return

    def _order(self, r: int, at_once: bool) -> tuple[Side, ...]:
        """Round ``r``'s order: as recorded, else the seat list (every seat at once) or
        the run's turn order (the last speaker rotates); recorded before the first turn."""
        st = self.state
        if any(o.round_no == r for o in st.round_orders):
            return st.order_of(r)
        seats = self.cfg.seats
        order = seats if at_once else round_order(seats, r, self.cfg.turn_order)
        st.record_order(r, order, at_once)
        return order

    def _cross_check(self, r: int) -> bool:
        """``--depth auto``'s round 2: both sides at once, each seeing only round 1."""
        return r == 2 and self.cfg.depth == "auto"

    def _take(
        self, caller: AgentCaller, r: int, side: Side, seen: Seen | None = None
    ) -> TurnRecord:
        """``seen``: the ledger and history the prompt shows (the blind round's, taken
        before either side answered); None: the run as it stands."""
        st = self.state
        angle = st.angle.text if st.angle is not None and st.angle.round_no == r else None
        ledger, history = seen or (st.ledger(), self._history())
        blind = seen is not None
        return self.turns.take(
            self._context(), caller, r, side, ledger, history, angle, blind=blind,
            note=st.note_for(r),
            cross_check=self._cross_check(r),
        )  # fmt: skip

    def _blind_round(
        self, caller: AgentCaller, runner: Runner, todo: list[Side], r: int = 1
    ) -> None:
        """Round ``r`` with every seat in ``todo`` at once, one pane (or process) each; each
        turn is saved the moment it ends, so a resume re-runs exactly the seats left
        unfinished. No prompt shows another seat's round ``r``, whichever ends (or was
        saved) first: round 1 of a blind opening, or ``--depth auto``'s cross-check round."""
        history = [t for t in self._history() if t.round_no < r]
        seen: Seen = (self.state.ledger(r - 1), history)
        seats = self.cfg.seats
        if self._cross_check(r):  # each seat sees only the others' blind replies
            seen_by: dict[Side, Seen] = {
                side: (seen[0], [t for t in history if t.side != side]) for side in seats
            }
        else:
            seen_by = {side: seen for side in seats}

        def task(side: Side) -> Callable[[AgentCaller], None]:
            return lambda c: self._record(self._take(c, r, side, seen_by[side]))

        at_once(caller, runner, {side: task(side) for side in todo}, self._cancel)

    def _record(self, rec: TurnRecord) -> None:
        """Keep a finished turn: in round order, in the round's order whichever finished
        first (a blind round: seat order)."""
        rec = check_turn(rec, self.cfg, Path.cwd())  # evidence cites, checked by code
        with self._lock:
            st = self.state
            flip = flip_of(rec, st.turns)
            st.turns.append(rec)
            st.sort_turns()
            self._save()
            for w in rec.warnings:
                self.events.emit(RunWarning(w))
            self.events.emit(TurnFinished.of(rec))
            if flip is not None:
                self.events.emit(FavoursFlipped(flip.round_no, flip.seat, flip.old, flip.new))

    def _end_of_round(self, r: int) -> bool:
        """The stop rules after round ``r``; True when the debate stops here."""
        st = self.state
        ledger = st.ledger()
        self.events.emit(LedgerUpdated(r, ledger, st.answered(r), len(self.cfg.seats)))
        decision = self._decide(r)
        st.checked_rounds.append(r)
        if decision.inject_angle:
            text = self.prompts.angle(r - 1)
            st.angle = Angle(round_no=r + 1, text=text, issue_ids=decision.circular_ids)
            self.events.emit(AngleInjected(r + 1, text, decision.circular_ids))
        if decision.stop is not None:
            self._stop(decision.stop, decision.detail)
            return True
        self._save()
        return False

    def _decide(self, r: int) -> convergence.Decision:
        """The stop rules of the run's depth after round ``r``."""
        st = self.state
        depth = self.cfg.depth
        answered = len(st.answered(r))
        if r == 1 and answered == 1:  # none answered: the run fails, as it always did
            return convergence.too_few_seats(answered, len(self.cfg.seats))
        if depth in ("quick", "auto") and r == 1 and not any(st.parsed_rounds()[:1]):
            # As in standard: no usable contract from any side stops the run here.
            return convergence.Decision("no-contract", detail=convergence.NO_CONTRACT_STOP)
        if depth == "quick":
            return convergence.Decision("max-rounds", detail=convergence.QUICK_DETAIL)
        if depth == "auto":
            contested = any(
                x.stance == "contest"
                for t in st.turns
                if t.round_no == r and t.contract is not None
                for x in t.contract.stances
            )
            return convergence.check_auto(
                st.round_ledgers(), self.cfg.rounds, contested=contested,
                budget_spent=self._budget_spent(),
            )  # fmt: skip
        return convergence.check(
            st.round_ledgers(),
            self.cfg.rounds,
            angle_injected=st.angle is not None,
            budget_spent=self._budget_spent(),
            parsed=st.parsed_rounds(),
        )

    def _check_stop(self) -> bool:
        """The budget and cost cap, before a turn (or a blind round): True when stopped."""
        if self._budget_spent():
            self._stop("timeout", f"time budget of {self.cfg.budget:g}s spent")
            return True
        cap = self.cfg.max_cost
        cost = self.state.cost_usd() or 0.0
        if cap is not None and cost >= cap:
            what = "estimated cost" if self.state.cost_estimated() else "cost"
            self._stop("budget", f"{what} {fmt_cost(cost)} reached the --max-cost cap of ${cap:g}")
            return True
        return False

    def _stop(self, reason: convergence.StopReason, detail: str) -> None:
        self.state.stop_reason = reason
        self.state.stop_detail = detail
        if reason == "no-contract":  # not a result: say so, as a warning too
            self.state.warnings.append(detail)
            self.events.emit(RunWarning(detail))
        self._save()
        self.events.emit(Stopped(reason, detail))

    def _judge(self, caller: AgentCaller) -> None:
        st = self.state
        if st.judge is not None:
            return
        if st.stop_reason is None:
            st.stop_reason, st.stop_detail = "max-rounds", f"reached {self.cfg.rounds} rounds"
        if not st.judge_order:  # recorded, so the run can be audited
            labels = self._labels()
            st.judge_order = labels.order()
            st.judge_first = st.judge_first or st.judge_order[0]
        labels = self._labels()
        self.events.emit(JudgeStarted(labels.names()))
        cap = self.cfg.max_cost
        answer = JudgeAnswer(None, None, None)
        if cap is not None and (st.cost_usd() or 0.0) >= cap:
            self.events.emit(
                RunWarning("cost cap reached: summarising from the ledger instead of the judge")
            )
        else:
            answer = self.turns.judge(
                self._context(),
                caller,
                st.ledger(),
                self._history(),
                st.stop_reason,
                labels,
                st.last_note(),
                absent=self._absent(),
            )
        # No meta: never asked (the cost cap); no raw: it failed; raw: it lacked a section.
        cause: FallbackCause = "cost-cap" if answer.meta is None else "no-answer"
        cause = "no-sections" if answer.raw is not None else cause
        text = answer.text if answer.text is not None else fallback_summary(st, cause)
        fallback = answer.text is None
        st.judge = Judge(text=text, fallback=fallback, meta=answer.meta, raw=answer.raw)
        self._save()
        self.events.emit(JudgeFinished(text, fallback))

    # -- helpers -----------------------------------------------------------------------
    def _labels(self) -> Labels:
        st = self.state
        names = tuple(r.name for r in self.cfg.roles)
        return seat_labels(st.run_id, st.judge_order, st.judge_first, names)

    def _absent(self) -> list[tuple[int, Side]]:
        """(round, seat) of each seat that answered no turn of a round held."""
        st = self.state
        return [(t.round_no, t.side) for t in st.turns if t.status not in ANSWERED]

    def _history(self) -> list[TurnView]:
        return [
            TurnView(t.round_no, t.side, t.role_name, t.prose, t.status) for t in self.state.turns
        ]

    def _context(self) -> TurnContext:
        deadline = self._started + self.cfg.budget
        return TurnContext(self.events, deadline, self.clock, self._cancel, self.run_dir)

    def _budget_spent(self) -> bool:
        return self.clock() - self._started >= self.cfg.budget

    def _save(self) -> None:
        """state.json after every step; a failed write here (or of events.jsonl since the
        last save) stops the run, keeping what the last good save holds."""
        try:
            self.run_dir.save(self.state.to_dict())
            if self._log is not None:
                self._log.check()
        except StorageError as exc:
            self._unsaved = True
            raise self._stopped(exc) from None
        st = self.state
        kept = f"state.json with {len(st.turns)} of {len(self.cfg.seats) * self.cfg.rounds} turns"
        self._kept = (kept + (" and the summary" if st.judge else ""), st.status)

    def _write_reports(self) -> None:
        try:
            report.write_reports(self.state, self.run_dir)
        except StorageError as exc:
            raise self._stopped(exc) from None

    def _saved_anyway(self) -> None:
        """collab ask, its answers saved: an events file or report that cannot be written
        is a warning (the answers are kept), not an error that would say they were not."""
        failed = [] if self._log is None or self._log.failed is None else [self._log.failed]
        try:
            report.write_reports(self.state, self.run_dir)
        except StorageError as exc:
            failed.append(exc)
        for problem in failed:
            self.events.emit(RunWarning(f"the follow-up is saved, but: {problem}"))

    def _stopped(self, exc: StorageError) -> StorageError:
        """Once the debate has begun a storage failure is a failed run (exit 1)."""
        if not self._begun:
            return exc
        kept, status = self._kept
        then = "collab show" if status == "done" else "collab resume"
        return exc.stopped(kept, f"{then} {self.state.run_id}")


def drive(
    state: RunState,
    run_dir: RunDir,
    ready: Ready,
    *,
    resumed: bool,
    event_sinks: Sequence[Sink] = (),
) -> RunState:
    """Start or continue one run with the agents and binaries the checks found and the
    run's runner; every event goes to events.jsonl and to ``event_sinks``."""
    orch = Orchestrator(
        state,
        run_dir,
        agents=ready.agents,
        binaries=ready.binaries,
        runner_factory=runner_factory(state.config.runner, state.config.seats),
        resumed=resumed,
        event_sinks=event_sinks,
    )
    return orch.run().state
